"""benchmarks/bench_detect_net.py's timing in turns against another revision of the finder."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_detect_net import _module_at, _net, _same_finds
from companion.synth import HELD_OUT, render_frame
from companion.vision.detect_net import default_detector_path

ROOT = Path(__file__).resolve().parents[1]


def _in_git_checkout() -> bool:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True)
    return done.returncode == 0


@pytest.mark.skipif(not default_detector_path().is_file(), reason="detector model not built")
@pytest.mark.skipif(not _in_git_checkout(), reason="needs the git history of a checkout")
def test_the_finder_of_another_revision_runs_beside_todays_and_finds_are_compared() -> None:
    image = render_frame(5002, styles=HELD_OUT).image
    old, new = _net(1, _module_at("HEAD")), _net(1)
    a, b = old(image), new(image)
    assert a and _same_finds(a, b)
    moved = b[0].corners.copy()
    moved[0, 0] += np.float32(0.001)
    assert not _same_finds(a, [replace(b[0], corners=moved), *b[1:]])
    assert not _same_finds(a, [replace(b[0], clean=not b[0].clean), *b[1:]])
    assert not _same_finds(a, b[1:])


def test_family_frames_count_found_dice_by_kind_of_body(capsys: pytest.CaptureFixture[str]) -> None:
    """--families reports the dice found per kind of body (marbled bodies are the finder's gap);
    a finder that finds nothing finds none of any kind."""
    from benchmarks.bench_detect_net import families

    families("hard", 2, lambda image: [])
    out = capsys.readouterr().out
    assert "hard drawing families, 2 sets" in out and "found clean 0 (0.00 %)" in out
    by_body = out.split("found clean by body: ")[1]
    assert "/" in by_body and all(part.split()[1].startswith("0/") for part in by_body.split(", "))


@pytest.mark.slow
def test_family_frames_found_as_vision_read_finds_them(capsys: pytest.CaptureFixture[str]) -> None:
    """--judged: the finder's candidates judged by the face model, as `vision read` finds motif
    dice; on the first validation set (marbled) it finds more than the plain finder."""
    from benchmarks.bench_detect_net import main

    found = []
    for extra in ([], ["--judged"]):
        assert main(["--families", "validation", "--sets", "1", *extra]) == 0
        out = capsys.readouterr().out
        found.append(int(out.split("found clean ")[1].split()[0]))
    assert found[1] > found[0]
