"""The shipped sample frames: `calibrate` and `vision read` can be tried without a camera."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main

SAMPLES = Path(__file__).resolve().parents[1] / "calibration" / "samples"


def test_samples_are_small_jpegs() -> None:
    for name in ("empty-mat.jpg", "table-3cults.jpg"):
        data = (SAMPLES / name).read_bytes()
        assert data[:3] == b"\xff\xd8\xff" and len(data) < 200_000


def test_calibrate_on_the_empty_mat_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cal.json"
    code = main(
        ["calibrate", "--frame", str(SAMPLES / "empty-mat.jpg"), "--cults", "3", "--out", str(out)]
    )
    assert code == 0, capsys.readouterr()
    assert json.loads(out.read_text())["image_size"] == [1280, 960]


def test_vision_read_of_the_table_sample(capsys: pytest.CaptureFixture[str]) -> None:
    truth = json.loads((SAMPLES / "table-3cults.json").read_text())["dice"]
    assert main(["vision", "read", str(SAMPLES / "table-3cults.jpg"), "--json"]) == 0
    read = json.loads(capsys.readouterr().out.splitlines()[0])["dice"]
    assert len(read) == len(truth) == 14
    unsure = 0
    for t in truth:  # every drawn die read where it lies, with its motif or `?`, never another
        near = min(read, key=lambda d: (d["x"] - t["x"]) ** 2 + (d["y"] - t["y"]) ** 2)
        assert abs(near["x"] - t["x"]) < 12 and abs(near["y"] - t["y"]) < 12
        assert near["face"] in (t["face"], "?")
        unsure += near["face"] == "?"
    # The shipped model alone sets its `?` limit by drawing families it never saw (issue 13):
    # the sample's 1 and 2 dice read `?` at 0.95-0.98 (limit 0.983); the other ten are read.
    assert unsure <= 4
