"""A second opinion that does not use the acoustic model: whole calls matched by DTW.

Every call of table K was said by the development synthesisers (espeak-ng and
flite voices, their own wordings; ``benchmarks/voice_templates.py`` makes
``call_templates.npz``). An utterance's MFCCs are aligned with each template
of a call by dynamic time warping, and the nearest template's mean frame
distance is that call's distance. The CMU model's phones do not enter: a
right call lies nearer its templates (median 4.7 on the development sets,
every voice measured against the other voices' templates) than a wrong call
(5.3) or table talk heard as a call (5.4). The distance itself also grows
for any voice unlike the templates, so the recognizer takes how much nearer
the best call lies than any other call (its lead) as a feature of its
confidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.rules import TABLE_K, Call

from .audio import RATE, Samples

Floats = npt.NDArray[np.float32]

#: Where the shipped templates live (beside this module).
TEMPLATES = Path(__file__).with_name("call_templates.npz")
# 25 ms windows every 10 ms, 26 mel bands over the en-us model's band.
WIN, HOP, NFFT, BANDS, CEPS = 400, 160, 512, 26, 13
LOW_HZ, HIGH_HZ = 130.0, 6800.0
#: Two 10 ms frames are averaged into one: DTW costs a quarter, calls are
#: still a hundred frames long.
STACK = 2
# Frames this far below the loudest tenth are silence, trimmed from both ends.
TRIM_DB = 30.0
# Noise taken out (times its estimate), and the floor left (times the noise).
NOISE_OVER, FLOOR = 2.0, 0.1


def _mel(hz: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return 2595.0 * np.log10(1.0 + hz / 700.0)


def _filterbank() -> npt.NDArray[np.float64]:
    mels = np.linspace(_mel(np.array(LOW_HZ)), _mel(np.array(HIGH_HZ)), BANDS + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    bins = hz / RATE * NFFT
    k = np.arange(NFFT // 2 + 1)
    fb = np.zeros((BANDS, k.size))
    for b in range(BANDS):
        lo, mid, hi = bins[b], bins[b + 1], bins[b + 2]
        fb[b] = np.clip(np.minimum((k - lo) / (mid - lo), (hi - k) / (hi - mid)), 0.0, None)
    return fb


_FB = _filterbank()
_DCT = np.cos(np.pi / BANDS * (np.arange(BANDS) + 0.5)[None, :] * np.arange(CEPS)[:, None])
_WINDOW = np.hamming(WIN)


def features(samples: Samples) -> Floats:
    """MFCCs (c1..c12 and their deltas) of the loud part, normalised per utterance.

    c0 (loudness) is left out and each coefficient is scaled to zero mean and
    unit variance over the utterance: microphones, levels and voices differ
    in their averages more than in how the words move.
    """
    x = samples.astype(np.float64)
    if x.size < WIN:
        return np.zeros((0, 2 * (CEPS - 1)), dtype=np.float32)
    x = np.append(x[0], x[1:] - 0.97 * x[:-1])  # pre-emphasis
    n = 1 + (x.size - WIN) // HOP
    idx = np.arange(WIN)[None, :] + HOP * np.arange(n)[:, None]
    bands = (np.abs(np.fft.rfft(x[idx] * _WINDOW, NFFT)) ** 2) @ _FB.T
    # Spectral subtraction: the quietest tenth of the frames is the room's
    # noise; taken out of every frame (down to a floor at that noise), noisy
    # pauses look like the clean pauses of the templates.
    level = bands.sum(axis=1)
    noise = bands[level <= np.percentile(level, 10)].mean(axis=0)
    bands = np.maximum(bands - NOISE_OVER * noise, FLOOR * noise + 1e-6)
    energy = 10 * np.log10(bands.sum(axis=1))
    loud = np.flatnonzero(energy > np.percentile(energy, 90) - TRIM_DB)
    bands = bands[loud[0] : loud[-1] + 1]
    ceps = (np.log(bands) @ _DCT.T)[:, 1:]
    m = ceps.shape[0] // STACK
    if m < 3:
        return np.zeros((0, 2 * (CEPS - 1)), dtype=np.float32)
    ceps = ceps[: m * STACK].reshape(m, STACK, -1).mean(axis=1)
    delta = np.gradient(ceps, axis=0)
    f = np.hstack([ceps, delta])
    f = (f - f.mean(axis=0)) / (f.std(axis=0) + 1e-6)
    out: Floats = f.astype(np.float32)
    return out


def dtw_costs(
    utt: Floats,
    bank: Floats,
    lengths: npt.NDArray[np.int64],
    bank_sq: Floats | None = None,
) -> Floats:
    """Mean frame distance along the best alignment of ``utt`` with each template.

    ``bank`` holds the templates zero-padded to one length, ``lengths`` their
    true lengths (``bank_sq``: each template frame's squared length, if the
    caller keeps it). Each utterance frame takes one step: the template stays,
    moves one frame or skips one, so a template is met at a half to any
    multiple of its speed, and every step only looks at the row before:
    one vectorised row per utterance frame, all templates at once.
    """
    n, t = utt.shape[0], bank.shape[0]
    if n == 0 or t == 0:
        return np.full(t, np.inf, dtype=np.float32)
    if bank_sq is None:
        bank_sq = (bank**2).sum(axis=2)
    # Squared Euclidean distances, utterance frame × template × template frame;
    # the products as one matrix product (numpy's einsum did them in a plain
    # loop: half the matching's time, issue 18's latency).
    cross = (utt @ bank.reshape(t * bank.shape[1], -1).T).reshape(n, t, bank.shape[1])
    d = (utt**2).sum(axis=1)[:, None, None] + bank_sq[None, :, :]
    d -= 2.0 * cross
    np.maximum(d, 0.0, out=d)
    np.sqrt(d, out=d)
    acc = np.full(bank.shape[:2], np.inf, dtype=np.float32)
    acc[:, 0] = d[0, :, 0]
    best = np.empty_like(acc)
    for i in range(1, n):
        # the best of the row before at the same frame, one back and two back
        best[:, 0] = acc[:, 0]
        np.minimum(acc[:, 1:], acc[:, :-1], out=best[:, 1:])
        np.minimum(best[:, 2:], acc[:, :-2], out=best[:, 2:])
        np.add(best, d[i], out=acc)
    end = acc[np.arange(t), lengths - 1] / n
    return np.asarray(end, dtype=np.float32)


@dataclass(frozen=True)
class Match:
    """The templates' verdict on one utterance among some calls."""

    # each call's nearest template, mean frame distance (inf: too long to be met)
    distance: dict[Call, float]

    @property
    def best(self) -> Call | None:
        return min(self.distance, key=self.distance.__getitem__) if self.distance else None


class Templates:
    """The shipped call templates (``call_templates.npz``)."""

    def __init__(self, path: Path = TEMPLATES, without: str | None = None) -> None:
        """``without``: leave out one voice's templates (to measure on that voice's speech)."""
        with np.load(path) as z:
            bank = z["bank"].astype(np.float32)
            lengths = z["lengths"].astype(np.int64)
            keys = [str(k) for k in z["calls"]]
            voices = [str(v) for v in z["voices"]]
        if not (len(keys) == len(voices) == bank.shape[0] == lengths.size):
            raise ValueError(f"{path}: templates, lengths, calls and voices disagree")
        rows = [i for i, v in enumerate(voices) if v != without]
        self.bank: Floats = bank[rows]
        self.bank_sq: Floats = (self.bank**2).sum(axis=2)  # per template frame, for dtw_costs
        self.lengths: npt.NDArray[np.int64] = lengths[rows]
        self.calls: tuple[Call, ...] = tuple(TABLE_K[keys[i]] for i in rows)
        self.voices: tuple[str, ...] = tuple(voices[i] for i in rows)

    def match(self, samples: Samples, calls: tuple[Call, ...]) -> Match:
        wanted = set(calls)
        rows = np.array([i for i, c in enumerate(self.calls) if c in wanted], dtype=np.int64)
        if rows.size == 0:
            return Match({})
        utt = features(samples)
        if utt.shape[0] == 0:
            return Match({})
        lengths = self.lengths[rows]
        width = int(lengths.max())
        bank = self.bank[rows, :width]
        costs = dtw_costs(utt, bank, lengths, self.bank_sq[rows, :width])
        out: dict[Call, float] = {}
        for r, cost in zip(rows, costs, strict=True):
            c = self.calls[int(r)]
            out[c] = min(out.get(c, np.inf), float(cost))
        return Match(out)


def save(path: Path, calls: list[str], feats: list[Floats], voices: list[str]) -> None:
    """Write templates (``calls``: table K ids such as "K3"; ``voices``: who said each)."""
    if not (len(calls) == len(feats) == len(voices)) or not feats:
        raise ValueError("one call id per template, and at least one template")
    width = max(f.shape[0] for f in feats)
    bank = np.zeros((len(feats), width, feats[0].shape[1]), dtype=np.float16)
    for i, f in enumerate(feats):
        bank[i, : f.shape[0]] = f
    np.savez_compressed(
        path,
        bank=bank,
        lengths=np.array([f.shape[0] for f in feats], dtype=np.int32),
        calls=np.array(calls),
        voices=np.array(voices),
    )
