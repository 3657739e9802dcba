"""Hand-checked records in tests/records: replay output compared exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "records"
NAMES = sorted(p.stem for p in HERE.glob("*.txt"))


@pytest.mark.parametrize("name", NAMES)
def test_golden_replay_json(name: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "replay", "--json", str(HERE / f"{name}.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    expected = json.loads((HERE / f"{name}.expected.json").read_text(encoding="utf-8"))
    assert json.loads(proc.stdout) == expected
    assert proc.returncode == (0 if expected["ok"] else 1)


def test_goldens_exist() -> None:
    assert len(NAMES) >= 3
