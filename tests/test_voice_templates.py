"""The DTW second opinion: MFCCs, the alignment, the shipped templates (no pocketsphinx needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from benchmarks import voice_testset as ts
from companion.rules import TABLE_K
from companion.voice.audio import RATE, Samples
from companion.voice.templates import (
    TEMPLATES,
    Floats,
    Match,
    Templates,
    dtw_costs,
    features,
    save,
)


def tone(freqs: Sequence[float], seconds: float = 0.25, seed: int = 0) -> Samples:
    """Tones one after another (a crude "word" per frequency), with a little noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(RATE * seconds)) / RATE
    parts = [np.zeros(RATE // 5)]
    parts += [8000 * np.sin(2 * np.pi * f * t) * np.hanning(t.size) for f in freqs]
    parts.append(np.zeros(RATE // 5))
    x = np.concatenate(parts) + rng.normal(0, 30, sum(p.size for p in parts))
    return np.clip(x, -32768, 32767).astype(np.int16)


def test_features_trim_silence_and_normalise() -> None:
    f = features(tone([300, 1200, 600]))
    assert f.shape[1] == 24
    # 0.75 s of tones at 20 ms a frame, the 0.4 s of silence around them trimmed
    assert 30 <= f.shape[0] <= 45
    assert np.allclose(f.mean(axis=0), 0, atol=1e-4)
    assert features(np.zeros(100, dtype=np.int16)).shape[0] == 0


def test_dtw_prefers_the_same_sequence_at_another_speed() -> None:
    a = features(tone([300, 1200, 600]))
    slow = features(tone([300, 1200, 600], seconds=0.4, seed=1))
    other = features(tone([1200, 300, 2000]))
    width = max(a.shape[0], other.shape[0])
    bank = np.zeros((2, width, a.shape[1]), dtype=np.float32)
    bank[0, : a.shape[0]] = a
    bank[1, : other.shape[0]] = other
    lengths = np.array([a.shape[0], other.shape[0]], dtype=np.int64)
    self_cost = dtw_costs(a, bank, lengths)
    assert self_cost[0] == pytest.approx(0.0, abs=1e-2) and self_cost[1] > 0.5
    costs = dtw_costs(slow, bank, lengths)
    assert costs[0] < costs[1]
    # a template more than twice the utterance's length cannot be met
    assert np.isinf(dtw_costs(a[:5], bank, lengths)).all()


def test_saved_templates_match_their_own_call(tmp_path: Path) -> None:
    sounds = {"K1": [300, 1200, 600], "K5": [1200, 300, 2000], "K9": [2500, 500, 900]}
    feats: list[Floats] = [features(tone(f)) for f in sounds.values()]
    path = tmp_path / "t.npz"
    save(path, list(sounds), feats, ["test"] * 3)
    bank = Templates(path)
    m = bank.match(tone([1200, 300, 2000], seconds=0.3, seed=4), tuple(TABLE_K.values()))
    assert m.best == TABLE_K["K5"]
    assert m.distance[TABLE_K["K5"]] < min(m.distance[TABLE_K["K1"]], m.distance[TABLE_K["K9"]])
    # only the allowed calls are matched
    assert set(bank.match(tone([300]), (TABLE_K["K1"], TABLE_K["K2"])).distance) == {TABLE_K["K1"]}
    assert bank.match(tone([300]), (TABLE_K["K2"],)) == Match({})
    with pytest.raises(ValueError, match="one call id per template"):
        save(path, ["K1"], feats, ["test"])


def test_shipped_templates_cover_every_call_in_development_voices_only() -> None:
    bank = Templates(TEMPLATES)
    assert set(bank.calls) == set(TABLE_K.values())
    with np.load(TEMPLATES) as z:
        voices = {str(v) for v in z["voices"]}
    # the kept-aside synthesisers (festival, Pico) never made a template
    assert voices == set(ts.DEV_VOICES)
    assert not any(ts.synth_of(v) in ("festival", "pico") for v in voices)


def test_a_voice_can_be_left_out() -> None:
    every = Templates(TEMPLATES)
    without = Templates(TEMPLATES, without="flite:slt")
    assert "flite:slt" in every.voices and "flite:slt" not in without.voices
    assert len(without.calls) == len(every.calls) - every.voices.count("flite:slt")


def _plain_dtw(utt: Floats, bank: Floats, lengths: np.ndarray) -> list[float]:
    """dtw_costs written out cell by cell in float64: the reference it must agree with."""
    out = []
    for b, length in zip(bank.astype(np.float64), lengths, strict=True):
        n, width = utt.shape[0], b.shape[0]
        acc = np.full((n, width), np.inf)
        for i in range(n):
            for j in range(width):
                d = float(np.sqrt(((utt[i].astype(np.float64) - b[j]) ** 2).sum()))
                if i == 0:
                    acc[i, j] = d if j == 0 else np.inf
                else:
                    acc[i, j] = d + acc[i - 1, max(j - 2, 0) : j + 1].min()
        out.append(acc[n - 1, length - 1] / n)
    return out


def test_dtw_is_the_plain_alignment_and_the_kept_lengths_change_nothing() -> None:
    rng = np.random.default_rng(3)
    utt = rng.standard_normal((5, 24)).astype(np.float32)
    bank = rng.standard_normal((4, 12, 24)).astype(np.float32)
    lengths = np.array([12, 5, 9, 3], dtype=np.int64)
    bank[1, 5:] = bank[2, 9:] = bank[3, 3:] = 0.0  # zero-padded as saved
    got = dtw_costs(utt, bank, lengths)
    want = _plain_dtw(utt, bank, lengths)
    assert np.isinf(got[0]) and np.isinf(want[0])  # 12 frames cannot be met in 5 steps
    assert np.allclose(got[1:], want[1:], rtol=1e-5)
    kept = dtw_costs(utt, bank, lengths, (bank**2).sum(axis=2))
    assert np.array_equal(got, kept)
