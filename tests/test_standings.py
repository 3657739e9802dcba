"""companion standings: replay every record, set aside the broken ones, sum up per cult."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main

# NOTATION.md's example, ended after one phase by a target of 10:
# Anna completes K11 with a doubler (2+3)*1*2 = +10 and wins; Ben completes for +6.
SHORT = """[Event "Cthulhu Cup"]
[Table "7"]
[Cults "Anna Ben"]
[Target "10"]

start Anna 3I21EI
start Ben 1IE2II
phase 1 start Anna
Anna: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E
Ben: 1123E3 -> give 3
Ben: I2E13 -> IÄÄ! Cthulhu! place I23
Ben: E1 -> Cthulhu! Fhtagn! place 1E
score Anna +10 Ben +6
"""


def _standings(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["standings", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_hand_checked_standings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t7.txt").write_text(SHORT, encoding="utf-8")
    (tmp_path / "t8.txt").write_text(SHORT.replace('"7"', '"8"'), encoding="utf-8")
    (tmp_path / "bad.txt").write_text(SHORT.replace("give 3", "give I"), encoding="utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01")
    code, out = _standings(capsys, str(tmp_path))
    assert code == 0 and out["records"] == 2
    rows = {r["cult"]: r for r in out["standings"]}  # type: ignore[attr-defined]
    assert rows["Anna"] == {
        "cult": "Anna",
        "games": 2,
        "wins": 2,
        "points": 20,
        "phases": 2,
        "completed": 2,
        "failed": 0,
        "doublers": 2,
        "unfinished": 0,
        "average_per_phase": 10.0,
    }
    assert (rows["Ben"]["wins"], rows["Ben"]["points"], rows["Ben"]["doublers"]) == (0, 12, 0)
    assert [r["cult"] for r in out["standings"]] == ["Anna", "Ben"]  # type: ignore[attr-defined]
    aside = {Path(a["file"]).name: a for a in out["set_aside"]}  # type: ignore[attr-defined]
    assert aside["bad.txt"]["line"] == 10 and aside["bad.txt"]["rule"] == "T4"
    assert aside["binary.txt"]["line"] is None and "text" in aside["binary.txt"]["reason"]


def test_text_report_and_simulated_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "recs"
    assert (
        main(["simulate", "--cults", "3", "--seed", "5", "--games", "3", "--out", str(out_dir)])
        == 0
    )
    (out_dir / "broken.txt").write_text(
        SHORT.replace("score Anna +10", "score Anna +11"), encoding="utf-8"
    )
    capsys.readouterr()
    code = main(["standings", *sorted(str(p) for p in out_dir.iterdir())])
    text = capsys.readouterr().out
    assert code == 0
    assert text.startswith("standings over 3 records")
    assert "broken.txt, line 13: SC1: Anna scored +10 in this phase, not +11" in text
    code, data = _standings(capsys, str(out_dir))
    rows = data["standings"]
    assert sum(r["games"] for r in rows) == 9  # type: ignore[attr-defined]
    assert sum(r["wins"] for r in rows) >= 3  # type: ignore[attr-defined]
    for r in rows:  # type: ignore[attr-defined]
        assert r["completed"] + r["failed"] == r["phases"]


def test_nothing_to_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["standings", str(tmp_path / "missing.txt")])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""  # no empty table
    assert (
        err.count("missing.txt") == 1 and "missing.txt: no such file" in err
    )  # the path said once
