"""The die finder on rendered frames (exact truth) and on real webcam photos."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.evaluation.scoring import Tally, box_polygon, corner_error, match_points, tally_frame
from companion.synth import HELD_OUT, TRAIN, DiePlacement, render_frame, render_placed
from companion.vision.detect import find_dice
from companion.vision.found import FoundDie
from companion.vision.geometry import order_corners

REAL = Path(__file__).resolve().parents[2] / "shared" / "real-dice"
WHITE = next(s for s in TRAIN if s.body.name == "white" and s.ink_name == "black")
RED = next(s for s in TRAIN if s.body.name == "red")


def _mat(
    h: int = 480, w: int = 640, color: tuple[int, int, int] = (60, 110, 40)
) -> npt.NDArray[np.uint8]:
    rng = np.random.default_rng(0)
    img = np.full((h, w, 3), color, np.float32) + rng.normal(0, 3, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def test_empty_table_has_no_dice() -> None:
    for seed in range(3):
        frame = render_frame(seed, n_dice=0, size=(640, 480), clutter=False)
        assert find_dice(frame.image) == []


def test_rejects_grey_images() -> None:
    with pytest.raises(ValueError):
        find_dice(np.zeros((100, 100), np.uint8))


def test_round_stones_and_pencils_are_not_dice() -> None:
    img = _mat()
    cv2.ellipse(img, (200, 200), (30, 24), 20, 0, 360, (60, 200, 60), -1, cv2.LINE_AA)  # doubler
    cv2.ellipse(
        img, (420, 300), (28, 26), 0, 0, 360, (30, 130, 240), -1, cv2.LINE_AA
    )  # start stone
    pencil = cv2.boxPoints(((320, 100), (300, 14), 15)).astype(np.int32)
    cv2.fillConvexPoly(img, pencil, (30, 200, 240), cv2.LINE_AA)
    cv2.line(img, (0, 400), (640, 380), (20, 20, 20), 6, cv2.LINE_AA)  # cable
    assert find_dice(img) == []


def test_a_plain_square_die_is_found_with_its_corners() -> None:
    img = _mat()
    true = cv2.boxPoints(((300.0, 240.0), (80.0, 80.0), 30.0)).astype(np.float32)
    cv2.fillConvexPoly(img, true.round().astype(np.int32), (230, 230, 230), cv2.LINE_AA)
    cv2.circle(img, (300, 240), 9, (30, 30, 30), -1)
    found = find_dice(img)
    assert len(found) == 1
    die = found[0]
    assert die.clean
    assert abs(die.center[0] - 300) < 3 and abs(die.center[1] - 240) < 3
    assert corner_error(die.corners, order_corners(true)) < 0.08 * 80
    assert die.corners.shape == (4, 2) and die.corners.dtype == np.float32


@pytest.mark.parametrize("n", [2, 3])
def test_touching_dice_in_a_row_are_split(n: int) -> None:
    a = np.deg2rad(10.0)
    dice = [
        DiePlacement("I2E"[j], (400.0 + 91 * j * np.cos(a), 300.0 + 91 * j * np.sin(a)), 90.0, 10.0)
        for j in range(n)
    ]
    frame = render_placed(1, dice, style=WHITE, size=(960, 720), surface_kind="felt")
    found = find_dice(frame.image)
    pairs = match_points([d.center for d in found], [d.corners for d in frame.dice])
    assert len(found) == n and len(pairs) == n


def test_die_cut_by_the_border_is_flagged_not_dropped() -> None:
    dice = [
        DiePlacement("3", (20.0, 300.0), 100.0, 0.0),
        DiePlacement("1", (400.0, 300.0), 100.0, 0.0),
    ]
    frame = render_placed(2, dice, style=RED, size=(800, 600), surface_kind="felt")
    found = find_dice(frame.image)
    assert len(found) == 2
    edge_die = min(found, key=lambda d: d.center[0])
    assert not edge_die.clean and "border" in edge_die.reason
    assert max(found, key=lambda d: d.center[0]).clean


def _score(seeds: range, styles: tuple) -> Tally:  # type: ignore[type-arg]
    tally = Tally()
    for seed in seeds:
        frame = render_frame(seed, styles=styles)
        found: list[FoundDie] = find_dice(frame.image)
        tally_frame(
            tally,
            [(d.center[0], d.center[1], "x" if d.clean else "?") for d in found],
            [d.corners for d in frame.dice],
            None,
            [d.corners for d in found],
        )
    return tally


def test_rendered_frames_of_held_out_styles() -> None:
    tally = _score(range(1000, 1012), HELD_OUT)
    print(tally.summary())
    # Floors a little under today's figures (see the report), not the targets.
    assert tally.recall >= 0.88, tally.summary()
    assert tally.precision >= 0.94, tally.summary()
    assert float(np.median(tally.corner_err)) < 5.0, tally.summary()


@pytest.mark.slow
def test_rendered_frames_many() -> None:
    tally = _score(range(2000, 2100), HELD_OUT)
    print(tally.summary())
    assert tally.recall >= 0.88 and tally.precision >= 0.93, tally.summary()


def _real_labels(path: Path, w: int, h: int) -> list[npt.NDArray[np.float32]]:
    boxes = []
    for line in path.read_text().splitlines():
        if line.strip():
            _, x, y, bw, bh = (float(v) for v in line.split())
            boxes.append(
                box_polygon((x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h)
            )
    return boxes


@pytest.mark.slow
def test_real_photos_die_centers() -> None:
    if not REAL.is_dir():
        pytest.skip("shared/real-dice is not beside the repository")
    tally = Tally()
    for jpg in sorted(REAL.glob("*.jpg")):
        # a JPEG read in colour is always 8-bit BGR; cv2's stubs type it as any number
        img = cast("npt.NDArray[np.uint8] | None", cv2.imread(str(jpg)))
        assert img is not None
        found = find_dice(img)
        boxes = _real_labels(jpg.with_suffix(".txt"), img.shape[1], img.shape[0])
        tally_frame(tally, [(d.center[0], d.center[1], "x") for d in found], boxes)
    print("real-dice:", tally.summary())
    assert tally.true_dice == 951
    # Floors just under what the finder measures today (see the report), so
    # that a regression fails; these are not the targets.
    assert tally.recall >= 0.84 and tally.precision >= 0.72, tally.summary()


@settings(max_examples=25, deadline=None)
@given(h=st.integers(1, 120), w=st.integers(1, 160), seed=st.integers(0, 2**16), flat=st.booleans())
def test_any_image_gives_well_formed_dice(h: int, w: int, seed: int, flat: bool) -> None:
    rng = np.random.default_rng(seed)
    img = (
        np.full((h, w, 3), rng.integers(0, 256, 3), np.uint8)
        if flat
        else rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    )
    for die in find_dice(img):
        assert die.corners.shape == (4, 2)
        assert -1 <= die.center[0] <= w and -1 <= die.center[1] <= h
        assert die.clean or die.reason
