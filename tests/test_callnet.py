"""The call network's scoring (companion/voice/callnet.py): CTC by hand, targets, posteriors."""

from __future__ import annotations

import itertools
import math
import re
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import TABLE_K, Call, Word
from companion.voice.callnet import (
    BLANK,
    OTHER,
    WORD_LABEL,
    call_targets,
    ctc_loglik,
    posteriors,
)


def _collapse(path: tuple[int, ...]) -> list[int]:
    out: list[int] = []
    prev = None
    for lab in path:
        if lab != prev and lab != BLANK:
            out.append(lab)
        prev = lab
    return out


def _brute(lp: np.ndarray, target: list[int]) -> float:
    """Sum over every frame-by-frame path that collapses to the target."""
    total = -math.inf
    for path in itertools.product(range(lp.shape[1]), repeat=lp.shape[0]):
        if _collapse(path) == target:
            total = float(np.logaddexp(total, sum(lp[t, lab] for t, lab in enumerate(path))))
    return total


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 5),
    st.lists(st.lists(st.integers(1, 3), min_size=1, max_size=3), min_size=1, max_size=4),
    st.integers(0, 10_000),
)
def test_ctc_forward_is_the_sum_over_every_alignment(
    frames: int, targets: list[list[int]], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(frames, 4))
    lp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    got = ctc_loglik(lp, targets)
    for value, target in zip(got, targets, strict=True):
        want = _brute(lp, target)
        if want == -math.inf:
            assert value == -math.inf  # too few frames for the labels (and blanks between repeats)
        else:
            assert value == pytest.approx(want, abs=1e-9)


def test_a_doubled_label_needs_a_blank_between() -> None:
    lp = np.log(np.full((2, 3), 1 / 3))
    # Two frames cannot say "1 1" (it needs 1, blank, 1) but can say "1 2".
    assert ctc_loglik(lp, [[1, 1]])[0] == -math.inf
    assert ctc_loglik(lp, [[1, 2]])[0] == pytest.approx(2 * math.log(1 / 3))


def test_call_targets_say_the_words_and_each_word_twice() -> None:
    k10 = TABLE_K["K10"]  # IÄÄ! Cthulhu! Ph'nglui!
    i, c, p = (WORD_LABEL[w] for w in (Word.IAA, Word.CTHULHU, Word.PHNGLUI))
    assert call_targets(k10) == [[i, c, p], [i, i, c, p], [i, c, c, p], [i, c, p, p]]
    assert {WORD_LABEL[w] for w in Word} | {OTHER, BLANK} == set(range(6))


def test_posteriors_are_normalised_over_the_allowed_calls_and_talk() -> None:
    calls = (TABLE_K["K1"], TABLE_K["K2"])
    scores: dict[Call | None, float] = {c: -float(n) for n, c in enumerate(TABLE_K.values())}
    scores[None] = -3.0
    post = posteriors(scores, calls)
    assert set(post) == {*calls, None}
    assert math.fsum(math.exp(v) for v in post.values()) == pytest.approx(1.0)
    assert post[TABLE_K["K1"]] > post[TABLE_K["K2"]] > post[None]
    silent: dict[Call | None, float] = dict.fromkeys(scores, -math.inf)
    assert posteriors(silent, calls) == pytest.approx(dict.fromkeys(post, -math.log(3)))


#: A network's opinion of K1, K2, K5 and talk.
_OPINION: dict[Call | None, float] = {
    TABLE_K["K1"]: math.log(0.5),
    TABLE_K["K2"]: math.log(0.3),
    TABLE_K["K5"]: math.log(0.1),
    None: math.log(0.1),
}


def test_choose_adds_the_bonuses_for_what_pocketsphinx_heard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from companion.voice import recognizer as rz

    k1, k2, k5 = TABLE_K["K1"], TABLE_K["K2"], TABLE_K["K5"]
    net = dict(_OPINION)
    assert rz.choose(net, (k1, k2, k5), k5, k2, (0.0, 0.0)) == (k1, k2)
    assert rz.choose(net, (k1, k2, k5), k5, k2, (2.0, 0.0)) == (k5, k1)  # log 0.1 + 2 > log 0.5
    assert rz.choose(net, (k1,), k1, None, (2.0, 0.0)) == (k1, None)
    # Without bonuses given, the module's fitted ones.
    monkeypatch.setattr(rz, "HEARD_BONUS", 2.0)
    monkeypatch.setattr(rz, "SECOND_BONUS", 0.0)
    assert rz.choose(net, (k1, k2, k5), k5, k2) == (k5, k1)


def test_the_network_features_of_a_call() -> None:
    from companion.voice.recognizer import NET_CLIP, net_vector

    k1, k2 = TABLE_K["K1"], TABLE_K["K2"]
    net: dict[Call | None, float] = {k1: math.log(0.7), k2: math.log(0.2), None: math.log(0.1)}
    lp, lead, agrees = net_vector(net, k1, k2)
    assert lp == pytest.approx(math.log(0.7) / 5)
    assert lead == pytest.approx(math.log(0.7 / 0.2) / 5)
    assert agrees == 0.0
    assert net_vector({}, k1, k1) == (0.0, 0.0, 1.0)  # the network was not asked
    sure = net_vector({k1: 0.0, None: -math.inf}, k1, k1)
    assert sure == (0.0, NET_CLIP / 5, 1.0)


def test_a_missing_embedding_package_is_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from companion.voice import callnet

    def missing(name: str) -> None:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(callnet.CallNetUnavailable, match=r"voice extra.*openwakeword"):
        callnet.CallNet()


def test_a_broken_network_file_is_one_sentence(tmp_path: Path) -> None:
    from companion.voice import callnet

    bad = tmp_path / "callnet.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(callnet.CallNetUnavailable, match="callnet.onnx could not be loaded"):
        callnet.CallNet(bad)


def test_the_network_hears_a_synthesised_call(tmp_path: Path) -> None:
    import shutil

    if shutil.which("espeak-ng") is None or shutil.which("sox") is None:
        pytest.skip("espeak-ng and sox are needed to synthesise a call")
    from benchmarks import voice_testset as ts
    from companion.voice.audio import read_wav
    from companion.voice.callnet import CallNet

    items = [
        it
        for it in ts.plan(seed=4, renders=1, voices=("en-us",), snrs=(None,), talk=slice(0, 1))
        if it.k in ("K2", "K8") or it.k is None
    ]
    ts.generate(tmp_path, items)
    net = CallNet()
    everything = tuple(TABLE_K.values())
    for it in items:
        post = posteriors(net.scores(read_wav(tmp_path / it.file)), everything)
        best = max(post, key=lambda c: post[c])
        assert best == (TABLE_K[it.k] if it.k else None), it.spoken


def test_the_benchmark_rechooses_a_cached_row_as_the_recognizer_would() -> None:
    from benchmarks.bench_voice import rechoose
    from companion.rules import call_text
    from companion.voice import recognizer as rz

    k1, k2, k5 = TABLE_K["K1"], TABLE_K["K2"], TABLE_K["K5"]
    net = dict(_OPINION)
    row: dict[str, Any] = {
        "ps_x": [0.5] * len(rz.PS_FEATURES),
        "heard": call_text(k5),
        "heard_second": call_text(k2),
        "net": {("talk" if c is None else call_text(c)): v for c, v in net.items()},
    }
    for bonuses in ((0.0, 0.0), (2.0, 0.5), (0.0, 1.5)):
        best, runner = rz.choose(net, (k1, k2, k5), k5, k2, bonuses)
        assert runner is not None
        assert rechoose(row, *bonuses) == (
            call_text(best),
            (*row["ps_x"], *rz.net_vector(net, best, k5)),
            call_text(runner),
        )


def _train_script() -> Any:
    from tests.scripts import load_script

    return load_script("train_callnet")


def test_the_call_network_never_trains_on_kept_aside_speech() -> None:
    from benchmarks import voice_testset as ts

    tc = _train_script()
    assert {ts.synth_of(v) for v in tc.TRAIN_VOICES} == set(ts.DEV_SYNTHS)
    heard = {ts.synth_of(v) for seed in tc.SEEDS for v in tc._voices(seed)}
    assert heard == {*ts.DEV_SYNTHS, "rhvoice"}  # never festival or Pico
    # RHVoice's slt is festival's kept-aside HTS speaker (CMU ARCTIC slt).
    assert "rhvoice:slt" not in ts.RHVOICE_VOICES
    assert not set(tc.SEEDS) & {ts.KEPT_SEED, *ts.DEV_SEEDS}  # nor what the fit hears
    with pytest.raises(ValueError, match="seed 8"):
        tc.train_plan(ts.KEPT_SEED)
    kept_talk = set(ts.KEPT_TALK)
    # one seed of each kind of wording, RHVoice's English and its other languages
    for seed in (
        *tc.SEEDS[:2],
        tc.RHVOICE_FROM,
        tc.RHVOICE_FROM + 1,
        tc.WORLD_FROM,
        tc.ACCENT_FROM,
        tc.ACCENT_FROM + 1,
    ):
        items = tc.train_plan(seed)
        assert all(it.spoken not in kept_talk for it in items)
        for it in items:  # every saying's words are known, a doubled word included
            labels = tc.labels_said({"k": it.k, "spoken": it.spoken})
            if it.k is None:
                assert labels == [OTHER]
            else:
                assert [lab for i, lab in enumerate(labels) if i == 0 or lab != labels[i - 1]] == [
                    WORD_LABEL[w] for w in TABLE_K[it.k]
                ]


def test_a_warped_copy_is_the_file_played_faster_and_higher() -> None:
    tc = _train_script()
    t = np.arange(16000) / 16000
    tone = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    for factor in tc.WARPS:
        out = tc.warp(tone, factor)
        assert out.dtype == np.int16
        assert len(out) == round(16000 / factor)
        peak = np.argmax(np.abs(np.fft.rfft(out))) * 16000 / len(out)
        assert abs(peak - 440 * factor) < 2
    assert {tc.warp_of(f"{i:04d}.wav") for i in range(100)} == set(tc.WARPS)


@pytest.mark.skipif(shutil.which("sox") is None, reason="sox is not installed")
def test_a_restyled_copy_keeps_its_pitch_when_its_tempo_changes_and_the_reverse() -> None:
    tc = _train_script()
    t = np.arange(16000) / 16000
    tone = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    for tempo, cents in ((1.3, 0), (0.8, 0), (1.0, 300), (1.0, -300), (1.15, -150)):
        out = tc.tempo_pitch(tone, tempo, cents)
        assert out.dtype == np.int16
        assert abs(len(out) - 16000 / tempo) < 0.02 * 16000
        peak = np.argmax(np.abs(np.fft.rfft(out))) * 16000 / len(out)
        assert abs(peak - 440 * 2 ** (cents / 1200)) < 6
    drawn = {tc.tempo_pitch_of(f"{i:04d}.wav") for i in range(200)}
    assert drawn == {(a, b) for a in tc.TEMPOS for b in tc.CENTS}  # tempo and pitch apart


#: Cyrillic in Latin letters, as a reader of the kept-aside wordings would spell it
#: (х as h: "Фхтагн" is "fhtagn").
_LATIN = {
    **dict(zip("абвгґдезиіїйјклмнопрстуфхыэ", "abvggdeziiiyjklmnoprstufhye", strict=True)),
    **{"є": "ye", "ж": "zh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ь": "", "ю": "yu"},
    "я": "ya",
}


def _folded(text: str) -> str:
    """Accents, apostrophes and hyphens dropped, Cyrillic written in Latin letters."""
    bare = "".join(
        c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c)
    )
    # NFKD splits й and ї; put them back before transliterating
    bare = unicodedata.normalize("NFC", bare.replace("и\u0306", "й").replace("і\u0308", "ї"))
    return "".join(_LATIN.get(c, c) for c in bare).replace("'", "").replace("-", " ")


def test_rhvoices_other_languages_say_the_calls_their_own_way() -> None:
    from benchmarks import voice_testset as ts

    tc = _train_script()
    assert _folded("Фхтагн") == _folded("Fhtagn") and _folded("Iá") == _folded("Ia")
    assert _folded("Ftagn") == _folded("F'tagn") and _folded("И-а-а") == _folded("I a a")
    kept_words = {_folded(w) for ws in ts.KEPT_WORDINGS.values() for w in ws}
    kept_talk = {_folded(t) for t in ts.KEPT_TALK}
    for lang, table in ts.WORLD_WORDINGS.items():
        assert set(table) == set(Word)
        for word, sayings in table.items():
            assert len(set(sayings)) == len(sayings) >= 3, (lang, word)
            assert not {_folded(s) for s in sayings} & kept_words, (lang, word)
            assert all(" " not in s for s in sayings)  # a word is never split in two
        for phrase in ts._TALK[lang] + ts.DEV_PHRASES[lang]:
            assert _folded(phrase) not in kept_talk | kept_words, phrase
    assert set(ts.RHVOICE_LANG.values()) == set(ts.WORLD_WORDINGS)
    assert not set(ts.RHVOICE_WORLD_VOICES) & set(ts.RHVOICE_VOICES)
    for seed in range(tc.WORLD_FROM, tc.ACCENT_FROM):
        items = tc.train_plan(seed)
        assert {it.voice for it in items} == set(ts.RHVOICE_WORLD_VOICES)
        for it in items:
            lang = ts.RHVOICE_LANG[it.voice.split(":", 1)[1]]
            if it.k is None:  # talk in the speaker's own language
                assert it.spoken in ts._TALK[lang] + ts.DEV_PHRASES[lang]
            else:
                words = set(re.split(r"[,!]? ", it.spoken.rstrip("!")))
                assert words <= {s for ss in ts.WORLD_WORDINGS[lang].values() for s in ss}


def test_the_safety_margin_is_the_largest_rise_of_a_held_out_voice() -> None:
    from benchmarks.bench_voice import Decoded, fit_rows, held_out_excess, highest_wrong

    rng = np.random.default_rng(3)
    rows = []
    for voice in ("a", "b", "c"):
        for i in range(60):
            right = i % 2 == 0
            x = (float(rng.normal(2.0 if right else -2.0, 0.7)), float(rng.normal()))
            rows.append(Decoded(i % 5 + 1, x, right, False, True, f"espeak:{voice}"))
    # two wrong calls of voice b (an odd seed and an even one, so that holding out
    # half of the seeds never finds them) score like right ones: a fit without b cannot
    # know
    for seed in (1, 2):
        rows.append(Decoded(seed, (1.5, 0.0), False, False, True, "espeak:b"))
    rise, which = held_out_excess(rows, [r.voice for r in rows])
    assert which == "espeak:b" and rise > 1.0
    w, sure_logit = fit_rows(rows, (1, 2, 3, 4, 5))
    # the margin keeps that rise above the fit's own highest wrong call
    assert sure_logit >= highest_wrong(w, rows) + rise - 0.01
    calm = [r for r in rows if r.x != (1.5, 0.0)]
    assert held_out_excess(calm, [r.voice for r in calm])[0] < rise
    # a decode without its voice cannot be held out: the fit refuses rather than
    # falling back to the seeds' halves
    with pytest.raises(ValueError, match="voice"):
        fit_rows([*rows, Decoded(3, (0.0, 0.0), False, False, True, "")], (1, 2, 3, 4, 5))


def test_mbrolas_other_speakers_read_the_english_wordings() -> None:
    from benchmarks import voice_testset as ts

    tc = _train_script()
    # the development MBROLA speakers (de2, de6) never read for training
    dev_speakers = {v.split(":", 1)[1] for v in ts.MBROLA_VOICES}
    for voice in ts.MBROLA_ACCENT_VOICES:
        speaker, lang = voice.split(":", 1)[1].split("-")
        assert ts.synth_of(voice) == "mbrola" and lang == "en"
        assert speaker not in dev_speakers
        assert ts.wordings(voice) is ts._EN and ts.wordings(voice, spelled=True) is ts._SPELLED
    assert ts._lang("mbrola:de2") == "de"  # a German speaker reading German stays German
    # not in the shipped network: its development check failed (docs/voice.md)
    assert not set(tc.SHIPPED_SEEDS) & set(range(tc.ACCENT_FROM, tc.SEEDS[-1] + 1))
    for seed in range(tc.ACCENT_FROM, tc.SEEDS[-1] + 1):
        items = tc.train_plan(seed)
        assert {it.voice for it in items} == set(ts.MBROLA_ACCENT_VOICES)
        table = ts._SPELLED if seed % 2 == 0 else ts._EN
        for it in items:
            if it.k is None:  # English talk, never the kept set's
                assert it.spoken in ts._TALK["en"] + ts.DEV_PHRASES["en"]
            else:
                words = set(re.split(r"[,!]? ", it.spoken.rstrip("!")))
                assert words <= {s for ss in table.values() for s in ss}, it.spoken


def test_the_accented_development_voices_are_the_ones_the_shipped_network_never_heard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from benchmarks import bench_voice as bv

    tc = _train_script()
    assert set(bv.ACCENT_SEEDS) == {s for s in tc.SEEDS if s >= tc.ACCENT_FROM}
    assert not set(bv.ACCENT_SEEDS) & set(tc.SHIPPED_SEEDS)
    monkeypatch.setattr(bv, "CACHE", tmp_path)
    with pytest.raises(SystemExit, match="--accented"):
        bv.dev_parts((), accented=True)
    line = {
        "file": "0000_mbrola-af1-en_K1_10.wav",
        "call": "IÄÄ!",
        "k": "K1",
        "spoken": "ee-ah!",
        "voice": "mbrola:af1-en",
        "speed": 240,
        "pitch": 45,
        "noise": None,
        "snr": None,
        "noise_at": 1.0,
        "roll": "III3",
        "layout": "I3",
    }
    for seed in bv.ACCENT_SEEDS:
        (tmp_path / f"voice-train-seed{seed}").mkdir()
        (tmp_path / f"voice-train-seed{seed}" / "manifest.jsonl").write_text(json.dumps(line))
    parts = bv.dev_parts((), accented=True)
    assert [seed for seed, _, _ in parts] == list(bv.ACCENT_SEEDS)
    assert all(items[0].voice == "mbrola:af1-en" for _, _, items in parts)
    assert bv.dev_parts(()) == []  # without the option, none of them


class _Stop(Exception):
    pass


def test_accented_is_threaded_to_every_development_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import bench_voice as bv

    seen: list[bool] = []

    def parts(seeds: Any, mbrola: bool = False, accented: bool = False) -> list[Any]:
        seen.append(accented)
        return [(1, Path("/nowhere"), [])]

    def stop(*_: Any, **__: Any) -> Any:
        raise _Stop

    monkeypatch.setattr(bv, "dev_parts", parts)
    monkeypatch.setattr(bv, "feature_rows", stop)  # every read stops at its first set
    real_fit_bonuses = bv.fit_bonuses
    for accented in (False, True):
        # fit stops in fit_bonuses, its first read
        for read in (bv.dev_features, bv.fit_bonuses, bv.fit, bv.cross_validate):
            seen.clear()
            with pytest.raises(_Stop):
                read((1,), accented=accented)
            assert seen == [accented], read.__name__
        # fit's second read (the features with the fitted bonuses)
        monkeypatch.setattr(bv, "fit_bonuses", lambda *a, **k: (4.0, 2.0))
        seen.clear()
        with pytest.raises(_Stop):
            bv.fit((1,), accented=accented)
        assert seen == [accented]
        monkeypatch.setattr(bv, "fit_bonuses", real_fit_bonuses)
    # main passes the flag for --fit and --cv, and only with it
    got: list[tuple[str, bool]] = []
    monkeypatch.setattr(bv, "fit", lambda s, lim, w, m, a=False, j=(): got.append(("fit", a)))
    monkeypatch.setattr(bv, "cross_validate", lambda s, w, m, a=False: got.append(("cv", a)))
    import companion.voice.recognizer as rz

    monkeypatch.setattr(rz, "pocketsphinx_module", lambda: None)
    for argv in (["--fit", "--accented"], ["--cv", "--accented"], ["--fit"], ["--cv"]):
        assert bv.main(argv) == 0
    assert got == [("fit", True), ("cv", True), ("fit", False), ("cv", False)]
    # --judge reaches the fit, and never with a seed the fit is fitted on
    judged: list[tuple[int, ...]] = []
    monkeypatch.setattr(bv, "fit", lambda s, lim, w, m, a=False, j=(): judged.append(j))
    assert bv.main(["--fit", "--seeds", "1,2", "--judge", "3,4"]) == 0 and judged == [(3, 4)]
    assert bv.main(["--fit", "--seeds", "1,2", "--judge", "2,3"]) == 2 and judged == [(3, 4)]


def test_the_safety_margin_covers_a_second_draw_of_the_fold_networks() -> None:
    # Two trainings of one fold network hear the same speech differently (docs/voice.md,
    # session 31): a wrong call the first draw scored low, the second may score high.
    from benchmarks.bench_voice import Decoded, fit_rows, held_out_excess, highest_wrong

    rng = np.random.default_rng(5)
    rows = []
    for draw in (0, 1):
        for voice in ("a", "b", "c"):
            for i in range(60):
                right = i % 2 == 0
                x = (float(rng.normal(2.0 if right else -2.0, 0.7)), float(rng.normal()))
                rows.append(Decoded(i % 5 + 1, x, right, False, True, f"espeak:{voice}", draw))
    # the second draw scores one wrong call of every voice and seed parity like a right one
    for voice, seed in itertools.product("abc", (1, 2)):
        rows.append(Decoded(seed, (1.5, 0.0), False, False, True, f"espeak:{voice}", 1))
    rise, which = held_out_excess(rows, [str(r.draw) for r in rows])
    assert which == "1" and rise > 1.0
    assert held_out_excess(rows, [r.voice for r in rows])[0] < rise
    w, sure_logit = fit_rows(rows, (1, 2, 3, 4, 5))
    assert sure_logit >= highest_wrong(w, rows) + rise - 0.01
    # one draw alone has no draw to hold out: the margin is smaller
    first = [r for r in rows if r.draw == 0]
    w0, sure0 = fit_rows(first, (1, 2, 3, 4, 5))
    assert sure0 - highest_wrong(w0, first) < rise


def test_a_second_draw_hears_each_file_again_with_its_own_networks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks import bench_voice as bv
    from benchmarks import voice_testset as ts
    from companion.rules.calls import call_text
    from companion.voice import callnet

    first, second = tmp_path / "first", tmp_path / "second"
    for d in (first, second):
        d.mkdir()
        (d / "without-espeak-ng.onnx").write_bytes(d.name.encode())
    items = [
        ts.Item(f"{k}.wav", None, None, "talk", "espeak-ng:en-us", 175, 50, None, None, 0.0, r, "")
        for k, r in enumerate(("I23", "EE1"))
    ]
    allowed = [bv.situation_calls(it, True) for it in items]
    rows: list[dict[str, Any]] = [
        {
            "file": it.file,
            "voice": it.voice,
            "x": [0.0],
            "ps_x": [0.0],
            "heard": None,
            "net": {call_text(c): -1.0 for c in calls} | {"talk": -0.5},
        }
        for it, calls in zip(items, allowed, strict=True)
    ]
    rows.append({**rows[-1], "file": "none.wav", "x": None})
    items.append(
        ts.Item("none.wav", None, None, "", "espeak-ng:en-us", 175, 50, None, None, 0.0, "I", "")
    )
    heard_by: list[str] = []

    class Net:
        def __init__(self, path: Path) -> None:
            self.path = Path(path)

        def scores(self, samples: np.ndarray) -> dict[Call | None, float]:
            heard_by.append(self.path.parent.name)
            return {c: float(len(call_text(c))) for c in TABLE_K.values()} | {None: 0.0}

    monkeypatch.setattr(callnet, "CallNet", Net)
    monkeypatch.setattr(bv, "feature_rows", lambda folder, items, workers=1: rows)
    monkeypatch.setattr(bv, "read_wav", lambda path: np.zeros(1600, np.int16))
    monkeypatch.setattr(bv, "BASE_DRAW", first)
    monkeypatch.setattr(bv, "DRAWS", [first, second])
    drawn = bv.drawn_rows(tmp_path, items)
    assert len(drawn) == 2 and drawn[0] is rows
    assert heard_by == ["second", "second"]  # the file without a decode is not heard
    for r, again, calls in zip(rows[:2], drawn[1][:2], allowed, strict=True):
        assert again["file"] == r["file"] and again["ps_x"] == r["ps_x"]
        post = callnet.posteriors(Net(second).scores(np.zeros(1)), calls)
        assert again["net"] == {("talk" if c is None else call_text(c)): v for c, v in post.items()}
        assert list(again["net"]) == list(r["net"])  # the allowed calls in the same order
    assert drawn[1][2] is rows[2]
    # heard once: the second time comes from the cache beside the set
    heard_by.clear()
    assert bv.drawn_rows(tmp_path, items)[1] == drawn[1] and heard_by == []
    # draws that are not the base (a network changed in kind) each hear every file
    third = tmp_path / "third"
    third.mkdir()
    (third / "without-espeak-ng.onnx").write_bytes(b"third")
    monkeypatch.setattr(bv, "DRAWS", [third, second])
    reheard = bv.drawn_rows(tmp_path, items)
    assert heard_by == ["third", "third"] and reheard[1] == drawn[1]
    assert len(reheard) == 2 and reheard[0][0]["net"] == drawn[1][0]["net"]  # one Net, one answer
    assert reheard[0][2] is rows[2]


def test_spellings_drawn_from_parts_are_never_a_kept_wording_and_are_labelled() -> None:
    import random

    from benchmarks import voice_testset as ts

    tc = _train_script()
    kept_words = {_folded(w) for ws in ts.KEPT_WORDINGS.values() for w in ws}
    bare_kept = {w.replace(" ", "") for w in kept_words}
    rng = random.Random(0)
    for word in Word:
        pattern = re.compile(ts.spelling_pattern(word))
        drawn = {ts.generated_spelling(word, rng) for _ in range(3000)}
        assert len(drawn) > 40, word  # many more than a table's five
        for s in drawn:
            assert _folded(s).replace(" ", "") not in bare_kept, s
            assert pattern.fullmatch(s), s
    # a kept wording the parts could make is drawn again, not said
    assert re.fullmatch(ts.spelling_pattern(Word.IAA), "Ia")
    assert "Ia" not in {ts.generated_spelling(Word.IAA, rng) for _ in range(3000)}
    # every training saying is labelled with the words said (one may be said twice)
    from companion.voice.callnet import WORD_LABEL

    for seed in tc.GENERATED_SEEDS:
        items = tc.train_plan(seed)
        assert {it.voice for it in items} == set(tc.GENERATED_VOICES)
        for it in items[::7]:
            labels = tc.labels_said(it.__dict__)
            if it.k is None:
                assert labels == [tc.OTHER]
            else:
                once = [x for i, x in enumerate(labels) if i == 0 or x != labels[i - 1]]
                assert once == [WORD_LABEL[w] for w in TABLE_K[it.k]], it.spoken
    # not in the shipped network: a screening test of session 32 (docs/voice.md)
    assert not set(tc.SHIPPED_SEEDS) & set(tc.GENERATED_SEEDS)


def test_generated_seeds_may_be_a_part_so_the_rest_stays_unheard() -> None:
    import argparse

    tc = _train_script()
    ap = argparse.ArgumentParser()
    assert tc.generated_seeds(ap, None) == ()
    assert tc.generated_seeds(ap, "133-138") == tc.GENERATED_SEEDS
    assert tc.generated_seeds(ap, "133-135") == (133, 134, 135)
    assert tc.generated_seeds(ap, "137") == (137,)
    for bad in ("120-135", "136-140", "a-b", "135-133"):
        with pytest.raises(SystemExit):
            tc.generated_seeds(ap, bad)


def test_hearings_averaged_stay_a_distribution_and_keep_a_shared_favourite() -> None:
    from benchmarks.bench_callnet import averaged

    k1, k2 = TABLE_K["K1"], TABLE_K["K2"]
    a = {k1: math.log(0.7), k2: math.log(0.2), None: math.log(0.1)}
    b = {k1: math.log(0.5), k2: math.log(0.4), None: math.log(0.1)}
    out = averaged([a, b])
    assert math.isclose(sum(math.exp(v) for v in out.values()), 1.0, rel_tol=1e-9)
    assert max(out, key=lambda c: out[c]) == k1
    # The mean of log-probabilities: 0.7 and 0.5 against 0.2 and 0.4 is sqrt(0.35) : sqrt(0.08).
    assert math.isclose(out[k1] - out[k2], 0.5 * math.log(0.35 / 0.08), rel_tol=1e-9)
    # A hearing that rules a call out (no path: -inf) does not make the others undefined.
    c = {k1: -math.inf, k2: 0.0, None: -math.inf}
    assert max(averaged([c, b]), key=lambda k: averaged([c, b])[k]) == k2


def test_the_benchmark_plays_a_file_faster_as_the_training_warps_it() -> None:
    from benchmarks.bench_callnet import played_at

    tc = _train_script()
    rng = np.random.default_rng(3)
    x = (3000 * rng.standard_normal(12000)).astype(np.int16)
    for speed in tc.WARPS:
        assert np.array_equal(played_at(x, speed), tc.warp(x, speed))


def test_networks_sharing_one_embedding_score_as_one_alone(tmp_path: Path) -> None:
    from companion.voice.callnet import CallNet, CallNetUnavailable, SpeechEmbedding

    try:
        embed = SpeechEmbedding()
        alone, shared = CallNet(), CallNet(embed=embed)
    except CallNetUnavailable as exc:
        pytest.skip(str(exc))
    rng = np.random.default_rng(5)
    x = (2000 * rng.standard_normal(16000)).astype(np.int16)
    assert shared.embed is embed
    assert alone.scores(x) == shared.scores_of(shared.log_probs_of(embed(x)))


def test_a_network_normalised_per_utterance_ignores_an_utterances_offset(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    tc = _train_script()
    rng = np.random.default_rng(0)
    rows: list[tuple[dict[str, Any], np.ndarray, list[int]]] = [
        ({}, rng.normal(size=(int(rng.integers(8, 20)), 96)).astype(np.float32), [1, 2])
        for _ in range(40)
    ]
    net = tc.train(rows, 1, 0, utterance_mean=True)
    x = rng.normal(size=(1, 12, 96)).astype(np.float32)
    shift = rng.normal(size=(1, 1, 96)).astype(np.float32) * 3
    with torch.no_grad():
        a = net(torch.from_numpy(x))
        b = net(torch.from_numpy(x + shift))
        # In a padded batch the mean is over the utterance's own frames only: a batch of one
        # with its length given reads as the utterance alone.
        c = net(torch.from_numpy(x + shift), torch.tensor([12]))
    assert torch.allclose(a, b, atol=1e-4)
    assert torch.allclose(a, c, atol=1e-4)
    out = tmp_path / "um.onnx"
    tc.export(net, out)
    from companion.voice.callnet import _session

    got = _session(out).run(None, {"embeddings": x + shift})[0]
    assert np.allclose(got, a.numpy(), atol=1e-4)


def test_unheard_training_seeds_are_development_sets_and_the_rest_stay_development(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses
    import json

    from benchmarks import bench_voice as bv
    from benchmarks import voice_testset as ts

    item = ts.Item(
        "a.wav", None, None, "talk", "espeak-ng:en-us", 175, 50, None, None, 0.0, "I", ""
    )
    for name in ("voice-train-seed133", "voice-dev-v5-seed1"):
        (tmp_path / name).mkdir()
        line = json.dumps(dataclasses.asdict(item) | {"file": f"{name}.wav"})
        (tmp_path / name / "manifest.jsonl").write_text(line + "\n", encoding="utf-8")
    monkeypatch.setattr(bv, "CACHE", tmp_path)
    parts = bv.dev_parts((1, 133))
    assert [(s, f.name, [it.file for it in items]) for s, f, items in parts] == [
        (1, "voice-dev-v5-seed1", ["voice-dev-v5-seed1.wav"]),
        (133, "voice-train-seed133", ["voice-train-seed133.wav"]),
    ]
    with pytest.raises(SystemExit, match="--generated"):
        bv.dev_parts((134,))
    assert set(bv.GENERATED_SEEDS) <= set(bv.UNHEARD_SEEDS) and ts.KEPT_SEED not in bv.UNHEARD_SEEDS


def test_a_spelling_is_a_word_as_written_whatever_its_case_and_punctuation() -> None:
    from benchmarks.bench_callnet import spellings

    assert spellings("Ph'nglui, Cthulhu!") == {"phnglui", "cthulhu"}
    assert spellings("IAA!,Ka-tul-hu  fhtagn") == {"iaa", "katulhu", "fhtagn"}
    # A call shares a spelling with another only through a whole word.
    assert not spellings("Iaa! Kthulhu!") & spellings("Iaah! Kthulu!")
    assert spellings("!! , ") == set()


def test_the_benchmark_takes_seeds_as_a_range_and_refuses_others() -> None:
    import argparse

    from benchmarks.voice_testset import seed_range

    ap = argparse.ArgumentParser()
    assert seed_range(ap, "133-135") == range(133, 136)
    assert seed_range(ap, "136") == range(136, 137)
    for bad in ("135-133", "a-b", "-3", "1-"):
        with pytest.raises(SystemExit):
            seed_range(ap, bad)


def test_embedding_ahead_of_the_end_gives_the_same_bits_and_saves_windows() -> None:
    """The listener embeds an utterance while it is said (``SpeechEmbedding.ahead``): the
    utterance's embedding is then the same to the bit, and only the windows its end changed
    are run again."""
    from companion.voice.callnet import CallNetUnavailable, SpeechEmbedding

    try:
        fresh, early = SpeechEmbedding(), SpeechEmbedding()
    except CallNetUnavailable as exc:
        pytest.skip(str(exc))
    rng = np.random.default_rng(7)
    t = np.arange(40000) / 16000
    x = 6000 * np.sin(2 * np.pi * 440 * t) * (1 + 0.5 * np.sin(2 * np.pi * 3 * t))
    x = (x + 300 * rng.standard_normal(t.size)).astype(np.int16)
    run = early._emb.run
    windows_run: list[int] = []

    def spy(names: Any, feeds: dict[str, np.ndarray]) -> Any:
        windows_run.append(feeds["input_1"].shape[0])
        return run(names, feeds)

    early._emb.run = spy  # type: ignore[method-assign]
    want = fresh(x)
    early.ahead(x[:16000])
    early.ahead(x[:28000])
    windows_run.clear()
    got = early(x)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert 0 < sum(windows_run) <= want.shape[0] - 10  # 32 windows, 13 of them kept
    # said softly first: the mel floor (80 dB under the loudest frame) rises when the loud
    # part comes, and the windows embedded ahead at the old floor are not taken again
    soft = x.copy()
    soft[:20000] //= 200
    early.ahead(soft[:18000])
    assert np.array_equal(early(soft), fresh(soft))
