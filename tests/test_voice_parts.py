"""The pure parts of voice: grammar narrowing, lexicon, WAV reading (no pocketsphinx needed)."""

from __future__ import annotations

import shutil
import wave
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from companion.rules import TABLE_K, call_text, parse_call
from companion.voice.audio import RATE, AudioError, read_wav
from companion.voice.lexicon import (
    GARBAGE_PHONES,
    PRONUNCIATIONS,
    dictionary_text,
    grammar_jsgf,
    parse_tokens,
)
from companion.voice.narrow import calls_for, parse_optional_faces


def texts(roll: str | None, layout: str | None) -> list[str]:
    r = None if roll is None else tuple(roll)
    lay = None if layout is None else tuple(layout)
    return [call_text(c) for c in calls_for(r, lay)]


def test_unknown_roll_and_layout_allow_every_call() -> None:
    assert texts(None, None) == [call_text(c) for c in TABLE_K.values()]


@pytest.mark.parametrize(
    ("roll", "layout", "expected"),
    [
        # empty layout: IÄÄ! must come first (D2); Ph'nglui! needs the E
        (
            "I2E",
            "",
            [
                "IÄÄ!",
                "IÄÄ! Cthulhu!",
                "IÄÄ! Ph'nglui!",
                "IÄÄ! Cthulhu! Ph'nglui!",
                "IÄÄ! Cthulhu! Fhtagn!",
            ],
        ),
        ("EE", "", ["Ph'nglui! Fhtagn!"]),  # only Elder Signs: K8 (D7)
        ("E", "I1", ["Ph'nglui! Fhtagn!", "Fhtagn!"]),  # K9 needs I and a tentacle laid out
        ("E", "I", ["Ph'nglui! Fhtagn!"]),  # no tentacle in the layout: no Fhtagn! (D4)
        ("123", "", []),  # no I anywhere: nothing may be placed, the cult gives up a die
        ("12E", "I", ["Cthulhu!", "Cthulhu! Ph'nglui!", "Cthulhu! Fhtagn!"]),
    ],
)
def test_narrowing_follows_table_k(roll: str, layout: str, expected: list[str]) -> None:
    assert texts(roll, layout) == expected


def test_narrowing_agrees_with_the_engine_for_every_call() -> None:
    from companion.rules import Game, Options

    g = Game(Options.make(["A", "B"]))
    g.layouts["A"] = ["I", "2"]
    roll = ("I", "3", "E")
    legal = {c for c in TABLE_K.values() if g.needs_fault("A", roll, c) is None}
    assert set(calls_for(roll, ("I", "2"))) == legal


def test_unknown_layout_is_the_union_over_layouts() -> None:
    narrow = set(texts("E", None))
    assert narrow == {"Ph'nglui! Fhtagn!", "Fhtagn!"}


def test_faces_are_checked() -> None:
    assert parse_optional_faces(None) is None
    assert parse_optional_faces("") == ()
    with pytest.raises(ValueError, match="not a die face"):
        parse_optional_faces("I2X")
    with pytest.raises(ValueError, match="at least one die"):
        calls_for((), ())


def test_every_word_has_several_pronunciations_in_model_phones() -> None:
    phones = set(GARBAGE_PHONES)  # the en-us model's phones
    for word, prons in PRONUNCIATIONS.items():
        assert len(prons) >= 5, word
        assert len(set(prons)) == len(prons), word
        for p in prons:
            assert set(p.split()) <= phones, p
    text = dictionary_text()
    assert "iaa IY AA\n" in text and "cthulhu(2) " in text
    assert "ph_ng NG\n" in text
    assert len(text.splitlines()) == sum(len(p) for p in PRONUNCIATIONS.values()) + len(
        GARBAGE_PHONES
    )


def test_grammar_holds_exactly_the_calls() -> None:
    calls = (parse_call("IÄÄ! Cthulhu!"), parse_call("Fhtagn!"))
    g = grammar_jsgf(calls)
    assert "public <call> = ( iaa+ cthulhu+ ) | ( fhtagn+ );" in g  # a word may be said twice
    with pytest.raises(ValueError):
        grammar_jsgf(())
    rivals = grammar_jsgf(calls[:1], garbage=True)
    assert "public <call> = ( iaa+ cthulhu+ ) | <garbage>;" in rivals
    assert "<garbage> = ( ph_aa | " in rivals and ")+;" in rivals


def test_hypothesis_tokens_become_a_call() -> None:
    assert parse_tokens("iaa(3) cthulhu fhtagn(2)") == parse_call("IÄÄ! Cthulhu! Fhtagn!")
    assert parse_tokens("iaa iaa(2) <sil> cthulhu(4) cthulhu") == parse_call(
        "IÄÄ! Cthulhu!"
    )  # repeats
    assert parse_tokens("<sil>") is None
    assert parse_tokens("") is None


def _write(path: Path, data: npt.NDArray[np.integer[Any]], rate: int, width: int = 2) -> None:
    channels = 1 if data.ndim == 1 else data.shape[1]
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(data.tobytes())


def _peak_hz(x: npt.NDArray[np.int16]) -> float:
    spec = np.abs(np.fft.rfft(x.astype(np.float64)))
    return float(np.argmax(spec) * RATE / x.size)


def test_stereo_44k_is_mixed_and_resampled(tmp_path: Path) -> None:
    rate = 44100
    t = np.arange(rate) / rate
    left = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
    stereo = np.stack([left, left], axis=1)
    _write(tmp_path / "s.wav", stereo, rate)
    x = read_wav(tmp_path / "s.wav")
    assert x.dtype == np.int16 and x.ndim == 1
    assert abs(x.size - RATE) <= 1
    assert abs(_peak_hz(x) - 440) < 2
    assert 7000 < np.abs(x).max() < 9000


def test_8bit_wav_is_read(tmp_path: Path) -> None:
    t = np.arange(8000) / 8000
    u8 = (128 + 60 * np.sin(2 * np.pi * 300 * t)).astype(np.uint8)
    _write(tmp_path / "u.wav", u8, 8000, width=1)
    x = read_wav(tmp_path / "u.wav")
    assert abs(x.size - RATE) <= 1
    assert abs(_peak_hz(x) - 300) < 2


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "does not exist"),
        (lambda p: p.write_bytes(b"not a wave at all"), "not a readable PCM WAV"),
        (lambda p: p.mkdir(), "is a folder"),
        (lambda p: p.write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt "), "not a readable PCM WAV"),
    ],
)
def test_bad_files_are_one_sentence(tmp_path: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "bad.wav"
    make(p)
    with pytest.raises(AudioError, match=message):
        read_wav(p)


def test_phone_count_reads_the_pronunciation_of_a_token() -> None:
    from companion.voice.lexicon import phone_count

    assert phone_count("iaa") == 2  # IY AA
    assert phone_count("fhtagn(3)") == 5  # F T AA G N
    assert phone_count("cthulhu(2)") == len(PRONUNCIATIONS[parse_call("Cthulhu!")[0]][1].split())
    assert phone_count("<sil>") == 0 and phone_count("ph_aa") == 0 and phone_count("iaa(99)") == 0


def test_confidence_is_the_logistic_below_one_half_and_stretched_above() -> None:
    import math

    from companion.voice.heard import HIGH_CONFIDENCE
    from companion.voice.recognizer import HIGH_LOGIT, SURE_LOGIT, squash

    assert squash(0.0) == 0.5
    assert squash(-2.0) == pytest.approx(1 / (1 + math.exp(2.0)))  # below 0.5: as fitted
    assert squash(SURE_LOGIT) == pytest.approx(HIGH_CONFIDENCE, abs=1e-3)  # 0.8 at SURE_LOGIT
    assert squash(SURE_LOGIT - 0.01) < HIGH_CONFIDENCE
    assert squash(4.0, sure_logit=8.0) == pytest.approx(1 / (1 + math.exp(-4.0 * HIGH_LOGIT / 8.0)))
    assert squash(1.0, sure_logit=0.5) == pytest.approx(1 / (1 + math.exp(-1.0)))  # never squeezed
    values = [squash(z / 4) for z in range(-40, 60)]
    assert values == sorted(values) and values[0] >= 0.0 and values[-1] < 1.0


def test_a_call_of_no_words_has_no_confidence() -> None:
    from companion.voice.recognizer import Features, confidence_of

    assert confidence_of(Features(None, 5.0, 0.0, 0.0, 0.0)) == 0.0


def test_development_talk_never_appears_in_the_test_set() -> None:
    from benchmarks import voice_testset as ts

    test_talk = {p for lang in ("en", "de") for p in ts._TALK[lang][ts.TEST_TALK]}
    test_words = {w.strip(",").lower() for p in test_talk for w in p.split()}
    for seed in ts.DEV_SEEDS:
        talk = {it.spoken for it in ts.dev_plan(seed) if it.call is None}
        assert talk and not talk & test_talk
    for lang in ("en", "de"):
        for phrase in ts.DEV_PHRASES[lang]:
            content = {w.strip(",").lower() for w in phrase.split()} - {"the", "me", "die", "mir"}
            assert not content & test_words, phrase
    with pytest.raises(ValueError):
        ts.dev_plan(8)


def test_the_kept_aside_set_shares_no_synthesiser_wording_or_talk_with_development() -> None:
    from benchmarks import voice_testset as ts

    kept = ts.kept_plan()
    assert {ts.synth_of(it.voice) for it in kept} == {"festival"}
    kept_words = {w.lower() for ws in ts.KEPT_WORDINGS.values() for w in ws}
    kept_talk = set(ts.KEPT_TALK)
    talk_words = {w.strip(",").lower() for p in kept_talk for w in p.split()} - {
        "the",
        "me",
        "your",
    }
    for seed in ts.DEV_SEEDS:
        dev = ts.dev_plan(seed)
        assert {ts.synth_of(it.voice) for it in dev} == {"espeak-ng", "flite"}
        for it in dev:
            if it.call is None:
                assert it.spoken not in kept_talk
                assert not {w.strip(",").lower() for w in it.spoken.split()} & talk_words, it.spoken
            else:  # a kept wording is never a word of a development saying
                said = {w.strip(",!").lower() for w in it.spoken.replace("! ", " ").split(" ")}
                assert not said & kept_words, it.spoken
    # Every call, in every kept voice, said three ways at four noise levels, plus talk.
    assert sum(it.call is not None for it in kept) == 11 * 3 * 3 * 4
    assert sum(it.call is None for it in kept) == len(ts.KEPT_TALK) * 3 * 4


def test_pico_is_a_second_kept_aside_synthesiser_and_mbrola_a_development_one() -> None:
    from benchmarks import voice_testset as ts

    kept = ts.kept_plan(voices=ts.PICO_VOICES)
    assert {ts.synth_of(it.voice) for it in kept} == {"pico"}
    kept_words = {w.lower() for ws in ts.KEPT_WORDINGS.values() for w in ws}
    assert sum(it.call is not None for it in kept) == 11 * 3 * 3 * 4
    assert {it.spoken for it in kept if it.call is None} == set(ts.KEPT_TALK)
    with pytest.raises(ValueError):
        ts.kept_plan(voices=ts.MBROLA_VOICES)  # a development synthesiser is never kept aside
    for seed in ts.DEV_SEEDS:
        dev = ts.mbrola_plan(seed)
        assert {ts.synth_of(it.voice) for it in dev} == {"mbrola"}
        for it in dev:
            if it.call is None:
                assert it.spoken not in ts.KEPT_TALK
            else:
                said = {w.strip(",!").lower() for w in it.spoken.replace("! ", " ").split(" ")}
                assert not said & kept_words, it.spoken
        # German MBROLA voices say the German wordings and talk, as espeak-ng's German does
        german = [it for it in dev if it.voice == "mbrola:de2" and it.call is None]
        assert german and {it.spoken for it in german} <= set(ts._TALK["de"] + ts.DEV_PHRASES["de"])
    with pytest.raises(ValueError):
        ts.mbrola_plan(ts.KEPT_SEED)
    with pytest.raises(ValueError):  # a kept-aside synthesiser never makes a development set
        ts.dev_plan(1, ts.PICO_VOICES)


def test_sayings_repeat_a_word_sometimes_and_keep_the_call() -> None:
    import random

    from benchmarks import voice_testset as ts

    rng = random.Random(5)
    call = parse_call("IÄÄ! Cthulhu!")
    said = [ts.spoken_text(call, "flite:slt", rng) for _ in range(200)]
    parts = [len(s.replace("!", " ").replace(",", " ").split()) for s in said]
    # two words, or three when one is repeated (flite wordings may hold a space: "ee aah")
    assert any(p > 2 for p in parts) and sum(p == 2 for p in parts) > 100


def test_guesses_are_the_best_and_the_second_call() -> None:
    from companion.voice.heard import Heard

    a, b = parse_call("IÄÄ!"), parse_call("Cthulhu!")
    assert Heard(None, 0.3, 1.0, best=a, second=b).guesses == (a, b)
    assert Heard(None, 0.3, 1.0, best=a).guesses == (a,)
    assert Heard(None, 0.0, 1.0).guesses == ()


def test_a_lone_allowed_call_counts_as_the_widest_legal_margin_and_is_flagged() -> None:
    from companion.voice.recognizer import CLIP, FEATURE_NAMES, Features

    call = parse_call("IÄÄ!")
    lone = Features(call, 1.0, 0.0, 0.0, 0.1, 2).vector()
    rivalled = Features(
        call, 1.0, 0.0, 0.0, 0.1, 2, legal_margin=-30.0, second=parse_call("Cthulhu!")
    ).vector()
    assert len(lone) == len(FEATURE_NAMES) == len(rivalled)
    at = FEATURE_NAMES.index("legal_margin")
    assert lone[at : at + 2] == (CLIP, 1.0)
    assert rivalled[at : at + 2] == (-CLIP, 0.0)  # clipped like the other margins


def test_the_templates_lead_is_clipped() -> None:
    from companion.voice.recognizer import DTW_CLIP, FEATURE_NAMES, Features

    call = parse_call("IÄÄ!")
    lead = FEATURE_NAMES.index("dtw_lead")
    assert Features(call, 1.0, 0.0, 0.0, 0.1, 2).vector()[lead] == 0.0  # no opinion
    assert Features(call, 1.0, 0.0, 0.0, 0.1, 2, dtw_lead=-0.5).vector()[lead] == -0.5
    assert Features(call, 1.0, 0.0, 0.0, 0.1, 2, dtw_lead=-9.0).vector()[lead] == -DTW_CLIP
    assert Features(call, 1.0, 0.0, 0.0, 0.1, 2, dtw_lead=9.0).vector()[lead] == DTW_CLIP


def test_the_spelled_development_seed_says_the_calls_in_plain_spellings() -> None:
    from benchmarks import voice_testset as ts

    spelled = {w.lower() for t in (ts._SPELLED, ts._SPELLED_FLITE) for ws in t.values() for w in ws}
    for seed in ts.DEV_SEEDS:
        calls = [it for it in ts.dev_plan(seed) if it.call is not None]
        said = {
            w.strip(",!").lower() for it in calls for w in it.spoken.replace("! ", " ").split(" ")
        }
        if seed in ts.SPELLED_SEEDS:
            assert said <= spelled, said - spelled
        else:  # the older development sets keep their own wordings
            assert not said & spelled, said & spelled


# flite's letter names as its phones: F, N, G, T, H, C, P, S, L, M (``flite -ps``).
FLITE_LETTERS = ("eh f", "eh n", "jh iy", "t iy", "ey ch", "s iy", "p iy", "eh s", "eh l", "eh m")


@pytest.mark.skipif(shutil.which("flite") is None, reason="flite is not installed")
def test_flite_reads_every_development_wording_as_words_not_letters() -> None:
    """flite spells out a token it finds unpronounceable ("ftagn": eff tee ay jee en)."""
    import subprocess

    from benchmarks import voice_testset as ts

    def phones(text: str) -> str:
        out = subprocess.run(
            ["flite", "-t", text, "-ps", "-o", "/dev/null"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return " ".join(out.split())

    assert any(p in phones("ftagn") for p in FLITE_LETTERS)  # the check can see letters
    for table in (ts.wordings("flite:slt"), ts.wordings("flite:slt", spelled=True)):
        for word, alts in table.items():
            for text in alts:
                said = phones(text)
                assert not any(f" {p} " in f" {said} " for p in FLITE_LETTERS), (word, text, said)


def test_a_missing_rhvoice_voice_stops_the_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RHVoice-test would say the text in its default voice; the generator refuses first.
    A voice is known by the name in its voice.info (Letícia's folder has no accent)."""
    from benchmarks import voice_testset as ts

    monkeypatch.setattr("shutil.which", lambda tool: "/usr/bin/" + tool)
    monkeypatch.setattr(ts, "RHVOICE_VOICES_DIR", tmp_path)
    for folder, name in (("magda", "Magda"), ("Leticia-F123", "Letícia-F123")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "voice.info").write_text(f"name={name}\nlanguage=x\n")
    ts.require_tools(("rhvoice:magda", "rhvoice:Letícia-F123"))
    with pytest.raises(SystemExit, match="rhvoice:natan"):
        ts.require_tools(("rhvoice:magda", "rhvoice:natan"))
    with pytest.raises(SystemExit, match="rhvoice:Leticia-F123"):
        ts.require_tools(("rhvoice:Leticia-F123",))
