"""`companion replay` on bad input: one sentence, the right exit status, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main

GOOD = '[Cults "Anna Ben"]\n\nAnna: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E\n'


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: bytes | str) -> str:
    p = tmp_path / "game.txt"
    p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(p)


def test_good_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--json", write(tmp_path, GOOD))
    assert code == 0
    assert json.loads(out)["ok"] is True


@pytest.mark.parametrize(
    ("text", "line", "rule"),
    [
        (GOOD + "garbage here\n", 4, "N"),
        (GOOD + "Ben: 12X -> give 1\n", 4, "N"),  # a face that does not exist
        (GOOD + "Zed: 111111 -> give 1\n", 4, "N"),  # unknown cult
        (GOOD + "Ben: 1111\n", 4, "N"),  # truncated line
        (GOOD + "Ben: 111111 ->\n", 4, "N"),
        ('[Cults "Anna Ben"\n', 1, "N"),
        ("Anna: I23E1I -> IÄÄ! place I\n", 1, "N"),  # no Cults tag
        ('[Cults "Anna Ben"]\n[Cults "Anna Ben"]\n', 2, "N"),
        ('[Cults "Anna Ben"]\nAnna: I1 -> IÄÄ! place I\n[Target "5"]\n', 2, "T2"),
        ('[Cults "Anna Ben"]\nAnna: I11111 -> IÄÄ! place I\n[Target "5"]\n', 3, "N"),
    ],
)
def test_bad_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, rule: str
) -> None:
    code, out, err = run(capsys, "--json", write(tmp_path, text))
    assert code == 1
    got = json.loads(out)
    assert got["ok"] is False
    assert (got["error"]["line"], got["error"]["rule"]) == (line, rule)
    assert got["error"]["message"] and "Traceback" not in out + err
    code, out, _ = run(capsys, write(tmp_path, text))
    assert code == 1 and f"line {line}: {rule}:" in out


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(tmp_path / "nope.txt"))
    assert code == 2 and "no such file" in err


def test_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and "folder" in err


def test_binary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--json", write(tmp_path, b"\x00\x01\x02garbage"))
    assert code == 2 and "not a text file" in err
    assert json.loads(out)["ok"] is False


def test_wrong_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latin1 = GOOD.replace("IÄÄ!", "IAA!") + "# Köln\n"
    code, _, err = run(capsys, write(tmp_path, latin1.encode("latin-1")))
    assert code == 2 and "line 4" in err and "UTF-8" in err


def test_bom_and_crlf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, write(tmp_path, "\ufeff" + GOOD.replace("\n", "\r\n")))
    assert code == 0


def test_human_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, write(tmp_path, GOOD))
    assert code == 0 and "ok" in out


def test_cult_names_in_any_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = '[Cults "Björn Zoë"]\nBjörn: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E\n'
    code, out, _ = run(capsys, "--json", write(tmp_path, text))
    assert code == 0 and json.loads(out)["totals"]["Björn"] == 0
    code, out, _ = run(capsys, "--json", write(tmp_path, '[Cults "Bj.rn Zoe"]\n'))
    assert code == 1 and json.loads(out)["error"]["rule"] == "N"


def test_combining_marks_are_the_same_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import unicodedata

    # IÄÄ! and a name typed decomposed (NFD, as macOS keyboards and files often hold them)
    text = '[Cults "Zoë Ben"]\nZoë: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E\n'
    code, out, _ = run(capsys, "--json", write(tmp_path, unicodedata.normalize("NFD", text)))
    assert code == 0, out
    assert json.loads(out)["totals"] == {"Zoë": 0, "Ben": 0}


@pytest.mark.parametrize("mark", ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c"])
def test_only_lf_cr_and_crlf_end_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mark: str
) -> None:
    # a comment runs to the end of the line: other line breaks of Unicode stay inside it
    text = GOOD.replace("place I23E\n", f"place I23E  # note{mark}more words\n") + "Ben: 1\n"
    code, out, _ = run(capsys, "--json", write(tmp_path, text))
    assert code == 1 and json.loads(out)["error"]["line"] == 4
    tagged = f'[Cults "Anna Ben"]\n[Event "Cup{mark}2026"]\n' + GOOD.split("\n", 1)[1]
    code, out, _ = run(capsys, "--json", write(tmp_path, tagged))
    assert code == 0, out


def test_an_unreadable_file_gives_the_whole_json_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--json", str(tmp_path / "nope.txt"))
    got = json.loads(out)
    assert code == 2 and got["ok"] is False and got["error"]["rule"] is None
    assert set(got) == {"ok", "error", "phases", "totals", "finished", "winners", "losers"}
    code, good, _ = run(capsys, "--json", write(tmp_path, GOOD))
    assert set(json.loads(good)) == set(got)  # the keys of a record read


def test_long_numbers_are_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = '[Cults "Anna Ben"]\n[Target "1000000000"]\n' + GOOD.split("\n", 1)[1]
    code, out, _ = run(capsys, "--json", write(tmp_path, big))
    assert code == 0, out
    wrong = GOOD + "score Anna +1000000000\n"
    code, out, _ = run(capsys, "--json", write(tmp_path, wrong))
    assert code == 1 and json.loads(out)["error"]["rule"] != "N"


def test_a_stream_that_cannot_carry_the_names_gets_utf8(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    text = '[Cults "Σοφία Ben"]\nΣοφία: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E\n'
    path = write(tmp_path, text)
    for encoding in ("ascii", "latin-1"):  # latin-1 carries IÄÄ! but not Σοφία
        env = {**os.environ, "PYTHONIOENCODING": encoding}
        for extra in (["--json"], []):
            run = subprocess.run(
                [sys.executable, "-m", "companion", "replay", *extra, path],
                capture_output=True,
                env=env,
                timeout=60,
            )
            assert run.returncode == 0, run.stderr
            assert "Σοφία" in run.stdout.decode("utf-8")
    closed = subprocess.run(
        [sys.executable, "-m", "companion", "replay", path],
        stdout=None,
        timeout=60,
        stdin=subprocess.DEVNULL,
        capture_output=False,
        close_fds=True,
        preexec_fn=lambda: os.close(1),
    )
    assert closed.returncode == 0  # a closed stdout is no reason for a traceback


def test_a_phase_line_after_its_phases_first_turn_is_e4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # NOTATION.md: "a wrong number is N; a phase line while the running phase has not ended
    # is E4". The running phase's own number is not wrong: the line stands where none may.
    text = GOOD + "phase 1\n"
    code, out, _ = run(capsys, "--json", write(tmp_path, text))
    assert code == 1 and (json.loads(out)["error"]["line"], json.loads(out)["error"]["rule"]) == (
        4,
        "E4",
    )
    twice = '[Cults "Anna Ben"]\nphase 1 start Anna\nphase 1 start Anna\n' + GOOD.split("\n")[2]
    code, out, _ = run(capsys, "--json", write(tmp_path, twice + "\n"))
    assert code == 1 and json.loads(out)["error"]["rule"] == "E4"
    # the next phase's number while this one runs: E4 too; any other number: N
    code, out, _ = run(capsys, "--json", write(tmp_path, GOOD + "phase 2\n"))
    assert json.loads(out)["error"]["rule"] == "E4"
    code, out, _ = run(capsys, "--json", write(tmp_path, GOOD + "phase 5\n"))
    assert json.loads(out)["error"]["rule"] == "N"
