"""A die a profile still reads `?`, looked at alone (companion/vision/look_alone.py)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.synth import VALIDATION, render_frame
from companion.vision import look_alone
from companion.vision.classify import FaceReading
from companion.vision.crop import CROP_SIZE
from companion.vision.detect_net import Candidate, judged_detector_path, load_session
from companion.vision.found import FoundDie

SQUARE = np.array([[100, 100], [180, 100], [180, 180], [100, 180]], np.float32)


def _die(x: float = 0.0, clean: bool = True) -> FoundDie:
    corners = SQUARE + np.array([x, 0.0], np.float32)
    c = corners.mean(axis=0)
    return FoundDie((float(c[0]), float(c[1])), corners, 80.0, clean=clean)


def _r(face: str, conf: float = 0.9, best: str = "2", not_die: bool = False) -> FaceReading:
    return FaceReading(face, conf, face if face != "?" else best, not_die)


@given(
    st.integers(20, 90),
    st.integers(20, 70),
    st.floats(-30, 120),
    st.floats(-30, 100),
    st.integers(4, 200),
)
@settings(max_examples=80, deadline=None)
def test_a_patch_is_the_frame_with_its_edges_repeated(
    w: int, h: int, cx: float, cy: float, side: int
) -> None:
    rng = np.random.default_rng(w * 1000 + h)
    frame = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    centre = np.array([min(max(cx, 0.0), w - 1.0), min(max(cy, 0.0), h - 1.0)], np.float32)
    patch, x0, y0 = look_alone.patch_of(frame, centre, side)
    pad = side + 2
    big = cv2.copyMakeBorder(frame, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    assert patch.shape == (side, side, 3) and patch.dtype == np.uint8
    np.testing.assert_array_equal(
        patch, big[y0 + pad : y0 + pad + side, x0 + pad : x0 + pad + side]
    )
    assert abs(x0 + side / 2 - centre[0]) <= 1 and abs(y0 + side / 2 - centre[1]) <= 1


def _peak(x: float, y: float, score: float, edge: float = 30.0) -> Candidate:
    h = edge / 2
    corners = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], np.float32)
    return Candidate(x, y, edge, corners, score)


def test_the_strongest_peak_near_the_centre_gives_the_corners_in_frame_pixels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = np.zeros((400, 400, 3), np.uint8)
    asked: list[tuple[tuple[int, ...], int, float]] = []

    def peaks(sess: Any, patch: Any, size: int, floor: float, limit: Any = None) -> list[Any]:
        asked.append((patch.shape, size, floor))
        # the patch is 320 pixels: its centre is the die's (140, 140)
        return [
            _peak(160 + 45, 160, 0.95),  # strongest, but 45 px from the centre: a neighbour
            _peak(160 + 12, 160 - 4, 0.6),
            _peak(160 - 6, 160, 0.4),
        ]

    monkeypatch.setattr(look_alone, "peaks", peaks)
    got = look_alone.corners_alone(None, frame, SQUARE)
    assert asked == [((320, 320, 3), 128, look_alone.FLOOR)]
    assert got is not None and got.dtype == np.float32
    x0 = 140 - 160
    np.testing.assert_allclose(got.mean(axis=0), [172 + x0, 156 + x0], atol=1e-4)
    monkeypatch.setattr(look_alone, "peaks", lambda *a, **k: [_peak(160 + 45, 160, 0.95)])
    assert look_alone.corners_alone(None, frame, SQUARE) is None


@pytest.fixture
def moved(monkeypatch: pytest.MonkeyPatch) -> list[npt.NDArray[np.float32]]:
    """corners_alone moves every die 6 px to the right; the corners it was given are kept."""
    given_corners: list[npt.NDArray[np.float32]] = []

    def alone(sess: Any, image: Any, corners: Any) -> npt.NDArray[np.float32]:
        given_corners.append(np.asarray(corners, np.float32))
        return np.asarray(corners, np.float32) + np.array([6, 0], np.float32)

    monkeypatch.setattr(look_alone, "corners_alone", alone)
    return given_corners


class _ByPlace:
    """Reads a crop by the grey it was cut from (die n stands on grey 10 (n + 1))."""

    def __init__(self, reads: dict[int, FaceReading]) -> None:
        self.reads = reads
        self.batches: list[int] = []

    def __call__(self, crops: npt.NDArray[np.uint8]) -> list[FaceReading]:
        assert crops.shape[1:] == (CROP_SIZE, CROP_SIZE, 3)
        self.batches.append(len(crops))
        return [self.reads[round(float(c.mean()) / 10) - 1] for c in crops]


def _frame(n: int) -> npt.NDArray[np.uint8]:
    frame = np.zeros((400, 200 * n + 200, 3), np.uint8)
    for k in range(n):
        frame[40:240, 200 * k + 40 : 200 * k + 240] = 10 * (k + 1)
    return frame


def test_a_question_mark_reads_its_best_guess_when_its_new_cut_is_sure_of_it(
    moved: list[Any],
) -> None:
    found = [
        (_die(0), _r("?", 0.6, best="3")),  # new cut sure of 3, its best guess: reads 3
        (_die(200), _r("?", 0.7, best="1")),  # new cut sure of 2, another motif: stays `?`
        (_die(400), _r("?", 0.5, best="E")),  # new cut `?` too: stays `?`
        (_die(600), _r("?", 0.4, best="I")),  # new cut sure, but dropped as no die
        (_die(800), _r("I", 0.99)),  # read: not looked at
    ]
    reads = {
        0: _r("3", 0.93),
        1: _r("2", 0.99),
        2: _r("?", 0.8, best="E"),
        3: _r("I", 0.95, not_die=True),
    }
    classify = _ByPlace(reads)
    out = look_alone.read_alone(_frame(5), found, classify, 0.1, sess=object())
    assert [r.face for _, r in out] == ["3", "?", "?", "?", "I"]
    assert out[0][1].confidence == pytest.approx(0.93) and out[0][1].best == "3"
    assert out[1:] == found[1:]
    # the die keeps its place and corners; four dice cut once each, in one batch, then the
    # eight cuts about the one the new read takes
    assert out[0][0] is found[0][0]
    assert classify.batches == [4, 8] and len(moved) == 4


class _ThenAround(_ByPlace):
    """Reads the new cuts by place, then the cuts about them with ``around``."""

    def __init__(self, reads: dict[int, FaceReading], around: list[FaceReading]) -> None:
        super().__init__(reads)
        self.around = around

    def __call__(self, crops: npt.NDArray[np.uint8]) -> list[FaceReading]:
        if self.batches:
            self.batches.append(len(crops))
            return self.around[: len(crops)]
        return super().__call__(crops)


def test_a_doubted_new_cut_or_a_cut_about_it_sure_of_another_motif_keeps_the_question_mark(
    moved: list[Any],
) -> None:
    found = [(_die(0), _r("?", 0.6, best="3"))]
    # the model gives the new cut a chance of being no die at or above the profile's doubt
    doubted = FaceReading("3", 0.95, "3", False, 0.1)
    assert look_alone.read_alone(_frame(1), found, _ByPlace({0: doubted}), 0.1, sess=0) == found
    just_under = FaceReading("3", 0.95, "3", False, 0.099)
    out = look_alone.read_alone(_frame(1), found, _ByPlace({0: just_under}), 0.1, sess=0)
    assert out[0][1].face == "3"
    # one cut about the new corners is sure of 2: `?` stays; cuts read `?` or dropped do not count
    against = [_r("3")] * 6 + [_r("2")] + [_r("?")]
    classify = _ThenAround({0: _r("3", 0.95)}, against)
    assert look_alone.read_alone(_frame(1), found, classify, 0.1, sess=0) == found
    assert classify.batches == [1, 8]
    quiet = [_r("3")] * 5 + [_r("?")] * 2 + [_r("2", not_die=True)]
    out = look_alone.read_alone(
        _frame(1), found, _ThenAround({0: _r("3", 0.95)}, quiet), 0.1, sess=0
    )
    assert out[0][1].face == "3"


def test_unclean_and_dropped_dice_are_not_looked_at(moved: list[Any]) -> None:
    found = [
        (_die(0, clean=False), _r("?", 0.7)),
        (_die(200), _r("?", 0.7, not_die=True)),
    ]
    classify = _ByPlace({})
    assert look_alone.read_alone(_frame(2), found, classify, 0.1, sess=object()) == found
    assert classify.batches == [] and moved == []


def test_at_most_most_dice_a_frame_the_most_confident_first(moved: list[Any]) -> None:
    n = look_alone.MOST_DICE + 2
    found = [(_die(200 * k), _r("?", 0.3 + 0.05 * k, best="1")) for k in range(n)]
    out = look_alone.read_alone(
        _frame(n), found, _ByPlace({k: _r("1", 0.9) for k in range(n)}), 0.1, sess=object()
    )
    assert [r.face for _, r in out] == ["?", "?"] + ["1"] * look_alone.MOST_DICE


def test_the_finder_places_a_die_cut_off_its_face_better_alone() -> None:
    """On a rendered frame, corners moved a fifth of an edge off each die's face: looked at
    alone, the finder puts them back near the true ones."""
    f = render_frame(7004, n_dice=12, styles=VALIDATION, clutter=False, edge_range=(40.0, 80.0))
    sess = load_session(judged_detector_path())
    before, after = [], []
    for k, die in enumerate(f.dice):
        true = np.asarray(die.corners, np.float32)
        angle = k * np.pi / 4
        off = true + 0.2 * die.edge * np.array([np.cos(angle), np.sin(angle)], np.float32)
        got = look_alone.corners_alone(sess, f.image, off)
        assert got is not None
        before.append(float(np.linalg.norm(off.mean(axis=0) - true.mean(axis=0))) / die.edge)
        after.append(float(np.linalg.norm(got.mean(axis=0) - true.mean(axis=0))) / die.edge)
    assert np.median(after) < 0.06 < 0.19 < np.median(before)
