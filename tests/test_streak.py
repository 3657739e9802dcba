"""synth/streak.py: frames smeared after rendering, for the blur gate's benchmark."""

from __future__ import annotations

import numpy as np
import pytest

from companion.synth.streak import STREAKS, streaked


@pytest.mark.parametrize(("length", "angle"), [(5.0, 0.0), (9.0, 90.0), (12.0, 45.0)])
def test_a_point_becomes_a_line_of_that_length_and_keeps_its_light(
    length: float, angle: float
) -> None:
    img = np.zeros((60, 60, 3), np.uint8)
    img[30, 30] = 250
    out = streaked(img, length, angle).astype(np.float64)
    ys, xs = np.nonzero(out[..., 0] > 0)
    span = np.hypot(xs.max() - xs.min(), ys.max() - ys.min())
    assert length - 2 <= span <= length + 3  # a turned line spreads over its pixels
    assert abs(out[..., 0].sum() - 250) < 250 * 0.05
    # centred on the point
    w = out[..., 0]
    assert abs((w * np.arange(60)[None, :]).sum() / w.sum() - 30) < 0.6
    assert abs((w * np.arange(60)[:, None]).sum() / w.sum() - 30) < 0.6


def test_a_streak_under_two_pixels_changes_nothing() -> None:
    img = np.random.default_rng(0).integers(0, 256, (20, 20, 3), dtype=np.uint8)
    assert streaked(img, 1.4, 33.0) is img


def test_the_benchmark_streaks_are_sharp_slight_and_long() -> None:
    assert STREAKS[0] == 0.0 and max(STREAKS) <= 0.5 and list(STREAKS) == sorted(STREAKS)
