"""`companion voice hear`: the JSON contract, narrowing, bad files and bad options."""

from __future__ import annotations

import argparse
import json
import wave
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pocketsphinx")

from companion.voice.cli import add_commands  # noqa: E402


def hear(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[dict[str, object]], str]:
    parser = argparse.ArgumentParser(prog="companion")
    add_commands(parser.add_subparsers(dest="command"))
    ns = parser.parse_args(["voice", "hear", *args])
    code: int = ns.func(ns)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def tone(path: Path, seconds: float = 1.0, rate: int = 16000, channels: int = 1) -> Path:
    t = np.arange(int(seconds * rate)) / rate
    x = (3000 * np.sin(2 * np.pi * 220 * t)).astype(np.int16)
    data = np.repeat(x[:, None], channels, axis=1)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data.tobytes())
    return path


def test_json_contract_one_line_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = tone(tmp_path / "a.wav")
    b = tone(tmp_path / "b.wav", rate=44100, channels=2)
    code, lines, _ = hear(capsys, str(a), str(b), "--json")
    assert code == 0
    assert [ln["file"] for ln in lines] == [str(a), str(b)]
    for ln in lines:
        assert set(ln) == {"file", "call", "confidence", "ms"}
        assert ln["call"] is None or isinstance(ln["call"], str)
        assert isinstance(ln["confidence"], float) and 0.0 <= ln["confidence"] <= 1.0
        assert isinstance(ln["ms"], float) and ln["ms"] >= 0.0


def test_a_hum_is_not_a_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = hear(capsys, str(tone(tmp_path / "hum.wav", seconds=2.0)))
    assert lines[0]["call"] is None


def test_no_legal_call_means_null_without_decoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 123 on an empty layout: no I anywhere, so the cult can only give up a die.
    code, lines, _ = hear(capsys, str(tone(tmp_path / "a.wav")), "--roll", "123", "--layout", "")
    assert code == 0
    assert lines[0]["call"] is None and lines[0]["confidence"] == 0.0


def test_bad_files_give_an_error_line_and_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tone(tmp_path / "good.wav")
    text = tmp_path / "text.wav"
    text.write_text("not audio")
    code, lines, err = hear(
        capsys, str(tmp_path / "missing.wav"), str(text), str(tmp_path), str(good)
    )
    assert code == 1
    assert len(lines) == 4
    assert "does not exist" in str(lines[0]["error"])
    assert "not a readable PCM WAV" in str(lines[1]["error"])
    assert "folder" in str(lines[2]["error"])
    assert "error" not in lines[3]  # the good file after them is still heard
    assert all(ln["call"] is None for ln in lines[:3])
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--roll", "I2X"], "not a die face"),
        (["--roll", ""], "at least one die"),
        (["--layout", "q"], "not a die face"),
        (["--threshold", "1.5"], "between 0 and 1"),
    ],
)
def test_bad_options_are_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, lines, err = hear(capsys, str(tone(tmp_path / "a.wav")), *args)
    assert code == 2
    assert lines == []
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_no_microphone_is_one_sentence() -> None:
    from companion.voice.listen import Listener
    from companion.voice.recognizer import VoiceUnavailable

    listener = Listener(lambda heard: None, device="no such microphone 8")
    try:
        listener.start()
    except VoiceUnavailable as exc:
        assert str(exc) and "\n" not in str(exc)
    else:  # pragma: no cover - a machine whose PortAudio matches any name
        listener.stop()
