"""The blur gate (vision/blur.py): a die streaked beyond slight motion blur reads `?`.

Crops are cut from rendered frames at the dice's true corners, sharp and streaked after
rendering (synth/streak.py), and whole frames are read as `vision read` reads them.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.synth import HELD_OUT, render_frame
from companion.synth.frame import RenderedFrame
from companion.synth.streak import streaked
from companion.vision.blur import (
    BLURRED_UNDER,
    STREAK_EVENNESS,
    STREAKED_UNDER,
    blurred,
    judged_blurred,
    sharpness,
)
from companion.vision.crop import CROP_SIZE, cut_faces
from companion.vision.finders import make_finder
from companion.vision.pips import PipClassifier
from companion.vision.read import UNKNOWN, Reader

U8 = npt.NDArray[np.uint8]


def _edge(frame: RenderedFrame) -> float:
    q = np.asarray(frame.dice[0].corners, np.float64)
    return float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1)))


@pytest.fixture(scope="module")
def frame() -> RenderedFrame:
    # dice of one size (60 px), so a streak is the same share of each
    return render_frame(4242, n_dice=12, styles=HELD_OUT, edge_range=(60.0, 60.0))


def _crops(frame: RenderedFrame, image: U8 | None = None) -> U8:
    return cut_faces(frame.image if image is None else image, [d.corners for d in frame.dice])


def test_sharp_dice_pass_the_gate(frame: RenderedFrame) -> None:
    s, _ = sharpness(_crops(frame))
    assert len(s) == 12
    assert (s >= STREAKED_UNDER).all(), s
    assert not blurred(_crops(frame)).any()


@pytest.mark.parametrize("angle", [0.0, 37.0, 90.0, 145.0])
def test_a_streak_of_a_third_of_an_edge_fails_it_whatever_its_direction(
    frame: RenderedFrame, angle: float
) -> None:
    image = streaked(frame.image, 0.35 * _edge(frame), angle)
    s, even = sharpness(_crops(frame, image))
    assert blurred(_crops(frame, image)).all(), (s, even)
    # a streak: one direction far less steep than the others
    assert (even < STREAK_EVENNESS).all(), even


def test_slight_blur_passes_it(frame: RenderedFrame) -> None:
    # VISION.md's "slight motion blur": a few pixels (0.05 of a 60-pixel die)
    image = streaked(frame.image, 3.0, 20.0)
    assert not blurred(_crops(frame, image)).any(), sharpness(_crops(frame, image))


def test_dice_soft_in_every_direction_pass_until_they_are_much_softer(
    frame: RenderedFrame,
) -> None:
    # small dice and soft art: as soft as a streaked die, but evenly, and the model reads them
    crops = _crops(frame)
    soft = np.stack([cv2.GaussianBlur(c, (0, 0), 4.6) for c in crops])
    s, even = sharpness(soft)
    assert ((s > BLURRED_UNDER) & (s < STREAKED_UNDER)).sum() >= 6, s
    assert (even >= STREAK_EVENNESS).all(), even
    assert not blurred(soft[s > BLURRED_UNDER]).any()
    # much softer, whatever the direction: `?`
    assert blurred(np.stack([cv2.GaussianBlur(c, (0, 0), 8.0) for c in crops])).all()


def test_sharpness_falls_as_the_streak_grows(frame: RenderedFrame) -> None:
    means = [
        float(np.median(sharpness(_crops(frame, streaked(frame.image, n, 60.0)))[0]))
        for n in (0, 6, 12, 24)
    ]
    assert means == sorted(means, reverse=True)
    # about 1/L for a streak of L crop pixels (the crop shows a 60-pixel die 52 pixels wide)
    assert 0.5 < means[3] * 24 * 52 / 60 < 2.0


def test_sharpness_does_not_depend_on_the_light(frame: RenderedFrame) -> None:
    crops = _crops(frame)
    dim = (crops.astype(np.float32) * 0.5 + 40).astype(np.uint8)
    ratio = sharpness(dim)[0] / sharpness(crops)[0]
    assert np.all(np.abs(ratio - 1.0) < 0.1), ratio


def test_a_flat_crop_is_blurred_and_no_crop_is_nothing() -> None:
    flat = np.full((1, CROP_SIZE, CROP_SIZE, 3), 128, np.uint8)
    assert sharpness(flat)[0][0] == 0.0
    assert blurred(flat).tolist() == [True]
    none = np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    assert sharpness(none)[0].shape == (0,)
    assert blurred(none).shape == (0,)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 6),
    smear=st.integers(0, 30),
)
def test_the_quick_gate_is_exactly_the_measure(seed: int, n: int, smear: int) -> None:
    rng = np.random.default_rng(seed)
    crops = np.empty((n, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    for i in range(n):
        img = np.full((CROP_SIZE, CROP_SIZE, 3), rng.integers(0, 256, 3), np.uint8)
        for _ in range(int(rng.integers(0, 8))):
            x, y = rng.integers(0, CROP_SIZE, 2)
            w, h = rng.integers(2, 30, 2)
            img[y : y + h, x : x + w] = rng.integers(0, 256, 3)
        img = np.clip(img + rng.normal(0, rng.uniform(0, 8), img.shape), 0, 255).astype(np.uint8)
        crops[i] = streaked(img, float(smear), float(rng.uniform(0, 180)))
    assert blurred(crops).tolist() == judged_blurred(*sharpness(crops)).tolist()


def test_the_reader_reads_streaked_dice_unknown_and_sharp_ones_as_before(
    frame: RenderedFrame,
) -> None:
    reader = Reader.load(finder="net")
    assert reader.judge is not None and not reader.judge.blur_gate  # not shipped (session 38)
    reader.judge = replace(reader.judge, blur_gate=True)
    sharp = reader.read_with_finds(frame.image)
    assert len(sharp) == 12
    assert not any(d.reason == "blurred" for d, _ in sharp)
    assert sum(r.face != UNKNOWN for _, r in sharp) >= 11
    image = streaked(frame.image, 0.35 * _edge(frame), 30.0)
    smeared = reader.read_with_finds(image)
    assert len(smeared) >= 8
    assert all(d.reason == "blurred" and r.face == UNKNOWN for d, r in smeared)
    # the gate off (JudgeSettings.blur_gate): the model's own reading comes back
    reader.judge = replace(reader.judge, blur_gate=False)
    assert not any(d.reason == "blurred" for d, _ in reader.read_with_finds(image))


def test_a_reading_without_a_judge_has_the_gate_too(frame: RenderedFrame) -> None:
    # pip dice (`--dice d6`) are read by a plain finder and the pip model
    reader = Reader(PipClassifier(), finder=make_finder("net"), blur_gate=True)
    assert reader.judge is None
    image = streaked(frame.image, 0.35 * _edge(frame), 120.0)
    found = reader.read_with_finds(image)
    assert found
    assert all(d.reason == "blurred" and r.face == UNKNOWN for d, r in found)
    assert not any(d.reason == "blurred" for d, _ in reader.read_with_finds(frame.image))
