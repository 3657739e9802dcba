"""benchmarks/bench_sides.py: the corner error, and a short run on painted sides."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.bench_sides import corner_error, read_frames
from companion.vision.classify import FaceClassifier

SQUARE = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float64)


def test_corner_error_ignores_the_first_corner_and_scales_with_the_edge() -> None:
    assert corner_error(SQUARE, SQUARE) == 0.0
    assert corner_error(SQUARE, np.roll(SQUARE, 2, axis=0)) == 0.0
    assert corner_error(SQUARE + [1, 0], SQUARE) == pytest.approx(0.1)
    assert corner_error(2 * (SQUARE + [1, 0]), 2 * SQUARE) == pytest.approx(0.1)


def test_painted_sides_are_read_and_tallied() -> None:
    t = read_frames(FaceClassifier(), range(99500, 99502), True, (0.8, 1.25))
    c = t.counts
    dice = c["right"] + c["?"] + c["wrong"] + c["missed"]
    assert dice > 10 and c["right"] > 0.8 * dice
    assert len(t.errors) == c["right"] + c["?"] + c["wrong"]
    assert "right" in t.line("painted")
