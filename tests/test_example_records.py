"""The 50 example records of shared/examples: replay each, compare as README says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.record.replay import replay_file

from .conftest import SHARED

RECORDS = SHARED / "examples" / "records"
NAMES = sorted(p.stem for p in RECORDS.glob("*.txt")) if RECORDS.is_dir() else []


def _nonzero(d: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in d.items() if v}


@pytest.mark.skipif(not NAMES, reason="shared/examples/records is not beside the repository")
@pytest.mark.parametrize("name", NAMES)
def test_example_record(name: str) -> None:
    exp = json.loads((RECORDS / f"{name}.expected.json").read_text(encoding="utf-8"))
    got = replay_file(RECORDS / f"{name}.txt").to_json()
    assert got["ok"] == exp["ok"]
    if exp["error"] is None:
        assert got["error"] is None
    else:
        assert got["error"] is not None, got
        assert (got["error"]["line"], got["error"]["rule"]) == (
            exp["error"]["line"],
            exp["error"]["rule"],
        )
    assert _nonzero(got["totals"]) == _nonzero(exp["totals"])
    assert got["finished"] == exp["finished"]
    assert set(got["winners"]) == set(exp["winners"])
    assert set(got["losers"]) == set(exp["losers"])
    assert [_nonzero(p["scores"]) for p in got["phases"]] == [
        _nonzero(p["scores"]) for p in exp["phases"]
    ]


def test_examples_present() -> None:
    # CI lays shared/ beside the clone; if it is missing the parametrized test would
    # silently vanish, so say so loudly here instead.
    assert Path(RECORDS).is_dir(), f"{RECORDS} is missing"


@pytest.mark.skipif(not NAMES, reason="shared/examples/records is not beside the repository")
@pytest.mark.parametrize("line", ["phase 1", "phase 2", "phase 99", "Anna: 111111 -> give 1"])
def test_any_phase_or_turn_line_after_the_end_is_g1(tmp_path: Path, line: str) -> None:
    # NOTATION.md: "A turn or phase line after the game has ended is G1", whatever its number
    from companion.record.replay import replay_text

    text = (RECORDS / "legal-002.txt").read_text(encoding="utf-8")
    ended = replay_text(text).to_json()
    assert ended["ok"] and ended["finished"]
    got = replay_text(text.rstrip("\n") + "\n" + line.replace("Anna", ended["winners"][0]) + "\n")
    assert got.error is not None and got.error.rule == "G1", got.error
