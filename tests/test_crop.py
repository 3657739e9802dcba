"""cut_face: every die reaches the classifier at the same scale, without aliasing."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from companion.vision.crop import (
    _DST,
    _FACE,
    CROP_MARGIN,
    CROP_SIZE,
    cut_face,
    cut_faces,
    order_corners,
)
from companion.vision.geometry import mean_edge, mean_edges


def _square(
    center: tuple[float, float], edge: float, turn_deg: float = 0.0
) -> npt.NDArray[np.float32]:
    a = np.deg2rad(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    half = edge / 2
    unit = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    out: npt.NDArray[np.float32] = (unit @ rot.T + np.asarray(center)).astype(np.float32)
    return out


def _stripes(size: int = 900) -> np.ndarray:
    """Black and white lines one pixel wide: the finest detail a frame can hold."""
    img = np.zeros((size, size, 3), np.uint8)
    img[::2] = 255
    return img


@pytest.mark.parametrize("edge", [100.0, 150.0, 200.0, 400.0])
def test_a_large_face_of_fine_lines_averages_to_grey(edge: float) -> None:
    # A warp that picked one frame pixel per crop pixel would show bands of
    # black and white (aliasing); averaging gives an even grey.
    crop = cut_face(_stripes(), _square((450, 450), edge, 7.0)).astype(np.float64)
    inner = crop[CROP_MARGIN + 4 : -CROP_MARGIN - 4, CROP_MARGIN + 4 : -CROP_MARGIN - 4]
    assert abs(inner.mean() - 127.5) < 12
    assert inner.std() < 25
    naive = cv2.warpPerspective(
        _stripes(),
        cv2.getPerspectiveTransform(
            _square((450, 450), edge, 7.0),
            _square((CROP_SIZE / 2, CROP_SIZE / 2), _FACE, 0.0),
        ),
        (CROP_SIZE, CROP_SIZE),
    ).astype(np.float64)
    assert naive[CROP_MARGIN + 4 : -CROP_MARGIN - 4].std() > 2 * inner.std()


@pytest.mark.parametrize("edge", [40.0, 70.0, 90.0, 130.0, 180.0, 300.0])
def test_a_mark_lands_at_the_same_place_at_every_size(edge: float) -> None:
    # A dot a quarter of the way into the face must land a quarter of the way
    # into the crop's face, whether the face was supersampled or shrunk first.
    img = np.full((1000, 1000, 3), 40, np.uint8)
    corners = _square((500, 500), edge)
    x0, y0 = corners[0]
    cv2.circle(
        img,
        (round(x0 + edge / 4), round(y0 + edge / 4)),
        max(2, round(edge / 12)),
        (255, 255, 255),
        -1,
    )
    crop = cut_face(img, corners)[..., 0].astype(np.float64)
    ys, xs = np.mgrid[0:CROP_SIZE, 0:CROP_SIZE]
    w = np.clip(crop - 40, 0, None)
    cx, cy = (w * xs).sum() / w.sum(), (w * ys).sum() / w.sum()
    want = CROP_MARGIN + _FACE / 4
    assert abs(cx - want) < 1.0 and abs(cy - want) < 1.0


def test_a_plain_face_stays_its_colour() -> None:
    img = np.full((700, 700, 3), (30, 120, 210), np.uint8)
    for edge in (50.0, 100.0, 160.0, 260.0):
        crop = cut_face(img, _square((350, 350), edge, 20.0))
        assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
        assert np.abs(crop.astype(int) - (30, 120, 210)).max() <= 1


@pytest.mark.parametrize("turn", [0.0, 30.0, 45.0])
@pytest.mark.parametrize("edge", [60.0, 90.0, 150.0, 250.0])
def test_every_crop_pixel_shows_the_frame_where_it_maps(edge: float, turn: float) -> None:
    # On a linear ramp, area averaging and interpolation keep each value, so
    # every pixel of the crop, margin and corners included, must show the ramp
    # at the frame point it maps to. A region shrunk too tightly would show its
    # replicated border there instead.
    ys, xs = np.mgrid[0:1000, 0:1000].astype(np.float64)
    ramp = 0.12 * xs + 0.09 * ys + 10
    img = np.repeat(np.round(ramp).astype(np.uint8)[..., None], 3, axis=2)
    corners = _square((500, 500), edge, turn)
    # a little perspective: the far side a tenth shorter
    corners[2:] += np.array([[-0.05 * edge, 0.0], [0.05 * edge, 0.0]], np.float32)
    got = cut_face(img, corners)[..., 0].astype(np.float64)
    back = np.linalg.inv(cv2.getPerspectiveTransform(order_corners(corners), _DST))
    cy, cx = np.mgrid[0:CROP_SIZE, 0:CROP_SIZE].astype(np.float64)
    pts = back @ np.stack([cx.ravel(), cy.ravel(), np.ones(cx.size)])
    fx, fy = pts[0] / pts[2], pts[1] / pts[2]
    want = (0.12 * fx + 0.09 * fy + 10).reshape(CROP_SIZE, CROP_SIZE)
    assert np.abs(got - want).max() <= 2.5


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_a_frame_cut_at_once_gives_each_die_its_own_crop(threads: int) -> None:
    """cut_faces orders every die's corners at once and may cut on threads: each crop must
    be exactly the one cut_face gives, in the order given, whatever form the corners take."""
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (700, 900, 3), np.uint8)
    img = np.asarray(cv2.GaussianBlur(img, (0, 0), 2.0), np.uint8)
    quads: list[npt.ArrayLike] = []
    for k in range(23):
        edge = float(rng.uniform(20, 260))
        quad = _square((rng.uniform(-40, 940), rng.uniform(-40, 740)), edge, rng.uniform(0, 90))
        quad = quad[rng.permutation(4)] + rng.normal(0, 3, (4, 2)).astype(np.float32)
        # as arrays, as lists of pairs, as flat tuples: callers hand corners over each way
        quads.append(quad if k % 3 == 0 else quad.tolist() if k % 3 == 1 else tuple(quad.ravel()))
    got = cut_faces(img, quads, threads=threads)
    assert got.shape == (23, CROP_SIZE, CROP_SIZE, 3) and got.dtype == np.uint8
    for crop, given in zip(got, quads, strict=True):
        assert np.array_equal(crop, cut_face(img, given))
    assert cut_faces(img, [], threads=threads).shape == (0, CROP_SIZE, CROP_SIZE, 3)


def test_a_frame_that_is_not_bgr_is_refused_before_any_die_is_cut() -> None:
    with pytest.raises(ValueError, match="BGR"):
        cut_faces(np.zeros((50, 50), np.uint8), [_square((25, 25), 20)], threads=2)


def test_mean_edge_is_the_mean_of_the_four_sides() -> None:
    square = np.array([[10, 10], [50, 10], [50, 50], [10, 50]], np.float32)
    assert mean_edge(square) == pytest.approx(40.0)
    kite = np.array([[0, 0], [30, 0], [30, 40], [0, 40]], np.float64)  # sides 30, 40, 30, 40
    assert mean_edge(kite) == pytest.approx(35.0)
    assert isinstance(mean_edge(kite.tolist()), float)
    both = mean_edges(np.stack([square, kite.astype(np.float32)]))
    assert both.dtype == np.float32 and both.tolist() == pytest.approx([40.0, 35.0])
