"""Spoken-call recognition: accuracy with and without narrowing, confident errors, latency.

    python -m benchmarks.bench_voice [--set DIR] [--limit N]
    python -m benchmarks.bench_voice --fit      # refit the confidence (development set)

The test set (benchmarks/voice_testset.py, seed 8) is generated once into a
cache folder and reused. "Right" means the reported call (after the
confidence threshold) is the call spoken; a null call is never right. A
"confident error" is a wrong call reported with confidence ≥ HIGH_CONFIDENCE,
table talk heard as a call included. Latency is the time from the end of
speech to the call: the endpointer's decision delay (audio time) plus the
recognizer's computing time on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from companion.rules import TABLE_K, Call, call_text
from companion.voice.audio import RATE, read_wav
from companion.voice.heard import HIGH_CONFIDENCE
from companion.voice.narrow import calls_for

from . import voice_testset as ts
from .machine import describe

CACHE = Path.home() / ".cache" / "companion"
TEST_SET = CACHE / "voice-testset-seed8"
DEV_SET = CACHE / "voice-dev-seed1-v2"
ALL_CALLS: tuple[Call, ...] = tuple(TABLE_K.values())


@dataclass
class Row:
    item: ts.Item
    narrowed: bool
    call: str | None
    best: str | None
    confidence: float
    ms: float

    @property
    def right(self) -> bool:
        return self.call is not None and self.call == self.item.call

    @property
    def confident_error(self) -> bool:
        return self.call is not None and self.call != self.item.call and self.confidence >= HIGH_CONFIDENCE


def ensure_set(folder: Path, seed: int, renders: int, talk: slice) -> list[ts.Item]:
    manifest = folder / "manifest.jsonl"
    if not manifest.exists():
        print(f"generating the test set (seed {seed}) into {folder} …", flush=True)
        ts.generate(folder, ts.plan(seed, renders, ts.VOICES, ts.SNRS, talk=talk))
    return ts.load(manifest)


def situation_calls(item: ts.Item, narrowed: bool) -> tuple[Call, ...]:
    return calls_for(tuple(item.roll), tuple(item.layout)) if narrowed else ALL_CALLS


def speech_end(x: np.ndarray) -> float:
    """Seconds to the last clearly loud sample of a clean recording."""
    loud = np.flatnonzero(np.abs(x.astype(np.int32)) > 500)
    return float(loud[-1] + 1) / RATE if loud.size else 0.0


def _pct(rows: list[Row]) -> str:
    return f"{100 * sum(r.right for r in rows) / len(rows):5.1f}%" if rows else "   -  "


def report(rows: list[Row]) -> None:
    calls = [r for r in rows if r.item.call is not None]
    talk = [r for r in rows if r.item.call is None]
    for narrowed in (False, True):
        sel = [r for r in calls if r.narrowed is narrowed]
        tk = [r for r in talk if r.narrowed is narrowed]
        label = "with --roll/--layout" if narrowed else "all eleven calls    "
        best = sum(r.best == r.item.call for r in sel)
        print(f"  {label}: right {_pct(sel)} of {len(sel)} calls "
              f"(best guess {100 * best / len(sel):.1f}%, null {sum(r.call is None for r in sel)}, "
              f"wrong {sum(r.call is not None and not r.right for r in sel)}); "
              f"confident errors {sum(r.confident_error for r in sel + tk)}; "
              f"table talk heard as a call {sum(r.call is not None for r in tk)} of {len(tk)}")
    voices = sorted({r.item.voice for r in calls}, key=ts.VOICES.index)
    levels = list(ts.SNRS)
    print("  right, per voice and noise level (all calls → narrowed):")
    print("    " + "voice".ljust(12) + "".join(f"{('clean' if s is None else f'{s} dB'):>18}" for s in levels)
          + "           total")
    for v in voices:
        cells = []
        for s in levels:
            a = [r for r in calls if r.item.voice == v and r.item.snr == s and not r.narrowed]
            n = [r for r in calls if r.item.voice == v and r.item.snr == s and r.narrowed]
            cells.append(f"{_pct(a)} → {_pct(n)}".rjust(18))
        a = [r for r in calls if r.item.voice == v and not r.narrowed]
        n = [r for r in calls if r.item.voice == v and r.narrowed]
        print("    " + v.ljust(12) + "".join(cells) + f"{_pct(a)} → {_pct(n)}".rjust(18))
    conf = sorted((r.confidence, r.right) for r in calls if r.narrowed and r.call is not None)
    high = [ok for c, ok in conf if c >= HIGH_CONFIDENCE]
    print(f"  narrowed calls given with confidence ≥ {HIGH_CONFIDENCE}: {len(high)} of "
          f"{len([r for r in calls if r.narrowed])}, of which right {sum(high)}")


def latency(items: list[ts.Item], folder: Path, rec: object) -> None:
    """Stream each file through the Listener's endpointer, as the microphone would."""
    from companion.voice.listen import MAX_SECONDS, Utterances
    from companion.voice.recognizer import Recognizer

    assert isinstance(rec, Recognizer)
    clean_end = {}
    for it in items:
        if it.snr is None:
            clean_end[(it.voice, it.spoken, it.speed, it.pitch)] = speech_end(read_wav(folder / it.file))
    delays: list[float] = []
    computes: list[float] = []
    split = 0
    unended: dict[str, int] = defaultdict(int)
    for it in items:
        if it.call is None:
            continue
        end = clean_end.get((it.voice, it.spoken, it.speed, it.pitch))
        if end is None:
            continue
        x = read_wav(folder / it.file)
        # The room goes on after the file ends: repeat its last 0.3 s (no speech
        # there) so the endpointer can decide the end as it would live.
        pcm = np.concatenate([x] + [x[-RATE * 3 // 10:]] * 5).tobytes()
        cuts = Utterances()
        fb = cuts.frame_bytes
        for i in range(0, len(pcm) - fb + 1, fb):
            utt = cuts.push(pcm[i:i + fb])
            if utt is not None:
                detected = (i + fb) / 2 / RATE
                if detected < end:  # cut at a pause inside the call: the Listener would
                    split += 1   # post two results; time the last piece all the same
                    continue
                t0 = time.perf_counter()
                rec.hear(np.frombuffer(utt, dtype="<i2"), situation_calls(it, True))
                computes.append((time.perf_counter() - t0) * 1000)
                delays.append((detected - end) * 1000)
                break
        else:  # the noise kept the endpointer "in speech" to the end
            unended["clean" if it.snr is None else f"{it.snr} dB"] += 1
    if not delays:
        print("  latency: the endpointer cut no utterance")
        return
    total = [d + c for d, c in zip(delays, computes, strict=True)]
    print(f"  end of speech → call, median over {len(total)} calls: {statistics.median(total):.0f} ms "
          f"(endpointer {statistics.median(delays):.0f} ms + recognizer {statistics.median(computes):.0f} ms; "
          f"90th percentile {np.percentile(total, 90):.0f} ms); {split} cuts inside a call")
    if unended:
        print("  no end of speech found within 1.5 s of silence (the Listener then cuts at "
              f"{MAX_SECONDS:.0f} s): " + ", ".join(f"{k} {v}" for k, v in unended.items()))


def run(items: list[ts.Item], folder: Path) -> tuple[list[Row], object]:
    from companion.voice.recognizer import Recognizer

    rec = Recognizer()
    rows: list[Row] = []
    for it in items:
        x = read_wav(folder / it.file)
        for narrowed in (False, True):
            h = rec.hear(x, situation_calls(it, narrowed))
            rows.append(Row(it, narrowed, h.text, call_text(h.best) if h.best else None,
                            h.confidence, h.ms))
    return rows, rec


def fit(folder: Path, items: list[ts.Item]) -> None:
    """Logistic regression of 'the best call is right' on the recognizer's features."""
    from companion.voice.recognizer import Recognizer

    rec = Recognizer()
    xs: list[tuple[float, ...]] = []
    ys: list[float] = []
    for it in items:
        x = read_wav(folder / it.file)
        for narrowed in (False, True):
            f = rec.features(x, situation_calls(it, narrowed))
            if f.best is None:
                continue
            xs.append(f.vector())
            ys.append(1.0 if call_text(f.best) == it.call else 0.0)
    X = np.hstack([np.ones((len(xs), 1)), np.array(xs)])
    y = np.array(ys)
    w = np.zeros(X.shape[1])
    for _ in range(50):  # Newton's method with a little L2 so separable data stays finite
        p = 1 / (1 + np.exp(-X @ w))
        grad = X.T @ (p - y) + 0.01 * w
        hess = (X.T * (p * (1 - p))) @ X + 0.01 * np.eye(X.shape[1])
        w -= np.linalg.solve(hess, grad)
    print(f"fitted on {len(ys)} decodes ({int(sum(ys))} right) of {folder}")
    print("WEIGHTS = (" + ", ".join(f"{v:.3f}" for v in w[1:]) + ")")
    print(f"BIAS = {w[0]:.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_voice")
    ap.add_argument("--set", type=Path, default=None, help=f"test set folder (default {TEST_SET})")
    ap.add_argument("--limit", type=int, default=None, help="use every n-th file only")
    ap.add_argument("--fit", action="store_true", help="fit the confidence on the development set")
    ap.add_argument("--errors", action="store_true", help="list every file not heard right (narrowed)")
    args = ap.parse_args([] if argv is None else argv)  # `python -m benchmarks` passes none
    try:
        from companion.voice.recognizer import pocketsphinx_module

        pocketsphinx_module()
    except RuntimeError as exc:
        print(f"bench_voice: {exc}", file=sys.stderr)
        return 2
    if args.fit:
        folder = args.set or DEV_SET
        items = ensure_set(folder, 1, 1, ts.DEV_TALK)
        fit(folder, items[:: args.limit or 1])
        return 0
    folder = args.set or TEST_SET
    items = ensure_set(folder, 8, 2, ts.TEST_TALK)[:: args.limit or 1]
    print(f"bench_voice on {describe()}")
    print(f"  {len(items)} files from {folder} (high confidence: ≥ {HIGH_CONFIDENCE})")
    t0 = time.perf_counter()
    rows, rec = run(items, folder)
    report(rows)
    ms = [r.ms for r in rows if r.narrowed]
    print(f"  recognizer time per file (narrowed): median {statistics.median(ms):.0f} ms")
    latency(items, folder, rec)
    print(f"  ({time.perf_counter() - t0:.0f} s in all)")
    by_k: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        if r.narrowed and r.item.k:
            by_k[r.item.k].append(r)
    print("  right per call (narrowed): " + ", ".join(f"{k} {_pct(v).strip()}" for k, v in by_k.items()))
    if args.errors:
        for r in rows:
            if r.narrowed and not r.right and (r.item.call is not None or r.call is not None):
                print(f"    {r.item.file}: said {r.item.call} ({r.item.spoken}), heard {r.call} "
                      f"best {r.best} confidence {r.confidence:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
