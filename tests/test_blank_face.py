"""A blank face (no motif) that the face model doubts is no die: printed grid cells (session 28)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.blank_face import blank
from companion.vision.judged import BLANK_DOUBT, find_and_read
from tests.test_judged import DICE, RED, FakeFinder, FakeJudge, _frame


def test_a_flat_crop_is_blank_and_one_with_a_motif_is_not() -> None:
    flat = np.full((1, 64, 64, 3), 180, np.uint8)
    noisy = flat.copy()
    rng = np.random.default_rng(0)
    noisy[0] = np.clip(180 + rng.normal(0, 2, (64, 64, 3)), 0, 255).astype(np.uint8)  # sensor noise
    lined = flat.copy()
    lined[0, :, :6] = 40  # a grid line along the crop's edge, outside the inner part
    motif = flat.copy()
    motif[0, 28:36, 20:44] = 40  # a stroke of ink across the middle
    assert blank(np.concatenate([flat, noisy, lined])).tolist() == [True, True, True]
    assert blank(motif).tolist() == [False]
    assert blank(np.zeros((0, 64, 64, 3), np.uint8)).shape == (0,)


GREY = (120, 140, 120)
CELL = (900.0, 700.0, 50.0)  # a grid cell the finder is sure of; the fake model doubts it (0.3)


def test_a_doubted_blank_find_is_dropped_and_a_doubted_one_with_a_motif_kept() -> None:
    assert BLANK_DOUBT < 0.3 < FakeJudge().not_die_threshold
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in DICE] + [(*CELL, 0.9)])
    image = _frame(*[(*d, RED) for d in DICE], (*CELL, GREY))
    got = find_and_read(image, FakeJudge(), session=finder)
    assert len(got) == len(DICE)  # the cell is gone
    # the same find with ink on its face: a die of art the model does not know, kept (read ?)
    x, y, _ = CELL
    image[int(y) - 4 : int(y) + 4, int(x) - 15 : int(x) + 15] = (20, 20, 20)
    got = find_and_read(image, FakeJudge(), session=finder)
    assert len(got) == len(DICE) + 1


@pytest.mark.slow
def test_rendered_dice_are_never_blank_and_grid_cells_are() -> None:
    from companion.synth import VALIDATION, render_frame
    from companion.vision.crop import cut_faces

    crops = []
    for seed in range(71_000, 71_012):
        f = render_frame(seed, size=(1280, 960), styles=VALIDATION, surface_kind="squares")
        crops.append(cut_faces(f.image, [d.corners for d in f.dice]))
    dice = np.concatenate(crops)
    assert len(dice) > 150 and not blank(dice).any()


@pytest.mark.slow
def test_empty_printed_squares_give_far_fewer_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.synth import VALIDATION, render_frame
    from companion.vision import detect_net, judged
    from companion.vision.read import Reader

    frames = [
        render_frame(s, size=(1280, 960), n_dice=0, styles=VALIDATION, surface_kind="squares")
        for s in range(96_000, 96_010)
    ]
    # The judged finder's own network (session 41) finds next to nothing here, rule or no rule.
    assert sum(len(Reader.load().read(f.image)) for f in frames) <= 2
    # The rule measured where it has work: the plain finder's network is sure of grid cells.
    monkeypatch.setenv(detect_net.JUDGED_MODEL_ENV, str(detect_net.default_detector_path()))
    reader = Reader.load()
    finds = sum(len(reader.read(f.image)) for f in frames)
    monkeypatch.setattr(judged, "BLANK_DOUBT", 2.0)  # no find is doubted enough: the rule is off
    before = sum(len(reader.read(f.image)) for f in frames)
    assert before >= 20 and finds <= before / 3


def test_blank_cells_neither_set_the_tables_size_nor_hide_the_dice_a_closer_look_finds() -> None:
    from companion.vision.detect_net import INPUT_LONG
    from tests.test_detect_zoom import CLOSER, LooksFinder, _grid

    # four dice of 50 px found at first among six grid cells of 70 px the finder is sure of
    # and the face model doubts (0.3): kept, the cells would set the table's size (70 px), and
    # the closer look's six more dice of 50 px would be the wrong size
    dice = _grid(10, 50.0)
    cells = [(150.0 + 220 * i, 860.0, 70.0, 0.9) for i in range(5)] + [(1200.0, 500.0, 70.0, 0.9)]
    image = _frame(
        *[(x, y, e, RED) for x, y, e, _ in dice], *[(x, y, e, GREY) for x, y, e, _ in cells]
    )
    finder = LooksFinder({INPUT_LONG: dice[:4] + cells, CLOSER: dice + cells})
    got = find_and_read(image, FakeJudge(), session=finder)
    assert CLOSER in finder.widths
    assert len(got) == 10 and all(d.clean for d, _ in got)
