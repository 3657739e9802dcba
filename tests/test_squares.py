"""Printed squares that are no dice (companion.synth.squares): the finder's hard negatives."""

from __future__ import annotations

import numpy as np
import pytest

from companion.synth import TRAIN, render_frame
from companion.synth.squares import KINDS, dice_keep, lay_over, marker, paste_markers, sheet
from companion.synth.table import SQUARE_SURFACE, surface


def _period(profile: np.ndarray) -> float:
    """The strongest period of a 1-D profile, in samples (from its spectrum)."""
    p = profile - profile.mean()
    spec = np.abs(np.fft.rfft(p))
    spec[:3] = 0
    # thin lines have harmonics nearly as strong: the fundamental is the lowest strong frequency
    k = int(np.nonzero(spec >= 0.5 * spec.max())[0][0])
    return len(p) / k


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_drawn_and_stays_in_range(kind: str) -> None:
    img, cover = sheet(np.random.default_rng(3), 300, 40.0, kind)
    assert img.shape == (300, 300, 3) and cover.shape == (300, 300)
    assert img.dtype == np.float32 and img.min() >= 0 and img.max() <= 255
    assert set(np.unique(cover)) <= {0.0, 1.0}
    assert cover.any()
    # something is printed: not a flat sheet
    assert img.mean(axis=2)[cover > 0].std() > 5


def test_grid_lines_come_at_the_asked_pitch() -> None:
    for pitch in (23.0, 41.0, 77.0):
        img, _ = sheet(np.random.default_rng(int(pitch)), 600, pitch, "grid")
        dark = 255 - img.mean(axis=2)
        assert _period(dark.mean(axis=0)) == pytest.approx(pitch, rel=0.06)
        assert _period(dark.mean(axis=1)) == pytest.approx(pitch, rel=0.06)
    ruled, _ = sheet(np.random.default_rng(0), 600, 40.0, "ruled")
    # ruled paper: lines across only (a margin line down at most)
    rows, cols = ruled.mean(axis=2).mean(axis=1), ruled.mean(axis=2).mean(axis=0)
    assert rows.std() > 2.0 and np.median(np.abs(cols - np.median(cols))) < 0.5


def test_a_marker_has_a_black_border_inside_a_white_margin() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        m = marker(rng, 90)
        assert m.shape == (90, 90) and set(np.unique(m)) <= {0.0, 1.0}
        assert m[0, 0] == 1.0 or m[0].mean() == 0.0  # white margin, or the black border at the edge
        assert (m == 0).mean() > 0.2  # the border alone is a fifth of the marker or more


def test_lay_over_keeps_the_dice_and_prints_around_them() -> None:
    rng = np.random.default_rng(2)
    image = np.full((240, 320, 3), 128, np.uint8)
    quad = np.array([[[100, 80], [160, 80], [160, 140], [100, 140]]], np.float32)
    keep = dice_keep(image.shape[:2], quad)
    assert keep[110, 130] == pytest.approx(1.0) and keep[5, 5] == 0.0
    out = lay_over(rng, image, keep, 30.0, "grid")
    assert out.shape == image.shape and out.dtype == np.uint8
    assert np.array_equal(out[100:120, 120:140], image[100:120, 120:140])
    assert np.abs(out.astype(int) - image).sum(axis=2)[:, :60].mean() > 5


def test_the_square_surface_is_opt_in_and_leaves_the_dice_alone() -> None:
    plain = render_frame(41, n_dice=6, size=(640, 480))
    squares = render_frame(41, n_dice=6, size=(640, 480), surface_kind=SQUARE_SURFACE)
    assert [(d.face, d.center) for d in squares.dice] == [(d.face, d.center) for d in plain.dice]
    assert not np.array_equal(plain.image, squares.image)
    again = render_frame(41, n_dice=6, size=(640, 480), surface_kind=SQUARE_SURFACE, styles=TRAIN)
    assert np.array_equal(squares.image, again.image)


def test_square_surface_has_straight_lines_of_a_die_size() -> None:
    rng = np.random.default_rng(5)
    img = surface(rng, 400, 400, 50.0, SQUARE_SURFACE)
    assert img.shape == (400, 400, 3) and np.isfinite(img).all()
    assert img.std() > 5


def test_markers_are_laid_beside_the_dice_never_over_them() -> None:
    rng = np.random.default_rng(4)
    image = np.full((300, 300, 3), 120.0, np.float32)
    out = paste_markers(
        rng, image, np.array([[150, 150]], np.float32), np.array([50], np.float32), 30
    )
    changed = np.abs(out - image).sum(axis=2) > 1
    assert changed.mean() > 0.05
    assert not changed[125:175, 125:175].any()
    # black and white cells, lit by the table: none brighter than white paper under this light
    assert out[changed].min() < 60 and out.max() <= 255
