"""Finder candidates judged by the face model before they are chosen (judged.py).

A fake finder session gives heatmap peaks where a test puts them; a fake face model
reads a crop's colour: red is a die, blue no die, anything else it cannot tell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from companion.vision.classify import FaceReading
from companion.vision.detect_net import STRIDE, NetSettings, find_dice_net
from companion.vision.judged import JudgeSettings, decide, find_and_read
from companion.vision.read import Reader

F32 = npt.NDArray[np.float32]
W, H = 1280, 960


@dataclass
class _Input:
    name: str = "image"


@dataclass
class FakeFinder:
    """Peaks (x, y, edge, score) in frame pixels, as the learned finder's maps would give them."""

    peaks: list[tuple[float, float, float, float]]

    def get_inputs(self) -> list[_Input]:
        return [_Input()]

    def run(self, _names: Any, feeds: dict[str, F32]) -> list[F32]:
        _, _, h, w = feeds["image"].shape
        # a second look, closer or shrunk: nothing there
        return [peak_maps(self.peaks if (h, w) == (384, 512) else [], h, w)]


def peak_maps(peaks: list[tuple[float, float, float, float]], h: int, w: int) -> F32:
    """The finder's maps for an h x w input of the frame: a peak (x, y, edge, score), in frame
    pixels, at each die."""
    scale = w / W
    maps = np.zeros((1, 14, h // STRIDE, w // STRIDE), np.float32)
    maps[0, 4] = 1.0  # cos 4t: no rotation
    for x, y, edge, score in peaks:
        ix, iy = int(x * scale / STRIDE), int(y * scale / STRIDE)
        maps[0, 0, iy, ix] = score
        maps[0, 1, iy, ix] = x * scale / STRIDE - ix
        maps[0, 2, iy, ix] = y * scale / STRIDE - iy
        maps[0, 3, iy, ix] = np.log(edge * scale)
    return maps


@dataclass
class FakeJudge:
    """Crops a red face fills are dice (not a die 0.0), blue ones are not (0.99), others 0.3
    (a red thing smaller than the crop too: a die's face fills its crop)."""

    not_die_threshold: float = 0.8
    batches: list[int] = field(default_factory=list)

    def classify(self, crops: npt.NDArray[np.uint8]) -> list[Any]:
        self.batches.append(len(crops))
        centre = crops[:, 24:40, 24:40].reshape(len(crops), -1, 3).mean(axis=1)
        corners = [crops[:, a : a + 6, b : b + 6] for a in (8, 50) for b in (8, 50)]
        filled = np.all([c[..., 2].mean(axis=(1, 2)) > 128 for c in corners], axis=0)
        red = (centre[:, 2] > 128) & filled
        p = np.where(red, 0.0, np.where(centre[:, 0] > 128, 0.99, 0.3))
        return [FaceReading("I", 1.0 - float(q), "I", bool(q >= 0.8), float(q)) for q in p]

    knows_non_dice = True


def _frame(*squares: tuple[float, float, float, tuple[int, int, int]]) -> npt.NDArray[np.uint8]:
    image = np.full((H, W, 3), 90, np.uint8)
    for x, y, edge, colour in squares:
        h = int(edge / 2)
        image[int(y) - h : int(y) + h, int(x) - h : int(x) + h] = colour
    return image


RED, BLUE = (0, 0, 255), (255, 0, 0)
# four dice of 50 px found well, and grid squares of 100 px the finder is sure of
DICE = [(200.0 + 150 * i, 700.0, 50.0) for i in range(4)]
# the finder's corners as they are (no corner refiner), for rules about them on flat squares
FLAT = JudgeSettings(refine=False)
GRID = [(150.0 + 110 * i, 200.0, 100.0) for i in range(8)]
SMALL = (900.0, 700.0, 50.0)  # a die the finder scores under its threshold


def _scene(small_score: float) -> tuple[FakeFinder, npt.NDArray[np.uint8]]:
    finder = FakeFinder(
        [(x, y, e, 0.9) for x, y, e in DICE]
        + [(x, y, e, 0.8) for x, y, e in GRID]
        + [(*SMALL, small_score)]
    )
    image = _frame(*[(*d, RED) for d in [*DICE, SMALL]], *[(*g, BLUE) for g in GRID])
    return finder, image


def test_a_weak_die_the_face_model_is_sure_of_is_found_only_when_judged() -> None:
    finder, image = _scene(0.25)
    old = find_dice_net(image, session=finder)
    assert not any(abs(d.center[0] - SMALL[0]) < 5 for d in old)
    got = find_and_read(image, FakeJudge(), session=finder)
    xs = sorted(d.center[0] for d, _ in got)
    want = sorted(x for x, _, _ in [*DICE, SMALL])
    assert len(xs) == len(want) and np.allclose(xs, want, atol=2)  # every die, no grid square
    assert all(d.clean for d, _ in got)  # and once the squares are gone, none is the wrong size


def test_without_judging_the_squares_set_the_size_and_the_dice_read_doubtful() -> None:
    finder, image = _scene(0.25)
    old = find_dice_net(image, session=finder)
    assert sum(abs(d.edge - 100) < 2 for d in old) == len(GRID)
    assert all(not d.clean for d in old if abs(d.edge - 50) < 2)


def test_phantoms_among_many_squares_stay_dropped_even_when_weak() -> None:
    finder = FakeFinder([(x, y, e, 0.3) for x, y, e in GRID] + [(x, y, e, 0.9) for x, y, e in GRID])
    image = _frame(*[(*g, BLUE) for g in GRID])
    assert find_and_read(image, FakeJudge(), session=finder) == []


def test_a_weak_peak_the_face_model_cannot_vouch_for_is_dropped() -> None:
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in DICE] + [(*SMALL, 0.25)])
    grey = (*SMALL, (90, 200, 90))
    image = _frame(*[(*d, RED) for d in DICE], grey)
    got = find_and_read(image, FakeJudge(), session=finder)
    assert len(got) == len(DICE)


def test_candidates_are_bounded() -> None:
    # 12 x 9 grid squares, all peaks: only the strongest weak ones, and at most `most` in all
    grid = [(80.0 + 100 * i, 80.0 + 100 * j, 60.0) for i in range(12) for j in range(9)]
    finder = FakeFinder([(x, y, e, 0.2 + 0.001 * k) for k, (x, y, e) in enumerate(grid)])
    image = _frame(*[(*g, RED) for g in grid])
    judge = FakeJudge()
    find_and_read(image, judge, JudgeSettings(weak=20), None, finder)
    assert judge.batches == [20]
    strong = FakeFinder([(x, y, e, 0.5 + 0.001 * k) for k, (x, y, e) in enumerate(grid)])
    find_and_read(image, judge, JudgeSettings(weak=20, most=50), None, strong)
    assert judge.batches == [20, 50]
    # weak peaks never crowd out the finder's own choice
    mixed = FakeFinder([(x, y, e, 0.3 if k % 2 else 0.9) for k, (x, y, e) in enumerate(grid)])
    got = find_and_read(image, judge, JudgeSettings(weak=5), None, mixed)
    assert judge.batches[-1] == 54 + 5 and len(got) == 59


@pytest.mark.parametrize(
    ("score", "not_die", "kept"),
    [
        (0.9, 0.79, None),  # strong, but sure it is no die
        (0.9, 0.5, False),  # strong and not sure: stays
        (0.3, 0.03, True),  # weak, sure it is a die: becomes a sure die
        (0.3, 0.05, None),  # weak, not sure enough
        (0.45, 0.5, False),  # doubtful peak, not sure either way: stays doubtful
        (0.45, 0.02, True),
        (0.45, 0.8, None),
        (0.35, 0.5, None),  # under the finder's low and not sure it is a die
    ],
)
def test_score_and_not_a_die_decide_together(
    score: float, not_die: float, kept: bool | None
) -> None:
    """kept: None dropped, False kept as the finder scored it, True kept as a sure die."""
    cfg = JudgeSettings(sure_die=0.05, doubt=1.0)
    got = decide([score], np.array([not_die], np.float32), 0.78, cfg, NetSettings())
    assert got == ([] if kept is None else [(0, kept)])


def test_a_doubtful_peak_needs_less_doubt_about_being_a_die_when_told() -> None:
    p = np.array([0.3], np.float32)
    assert decide([0.45], p, 0.78, JudgeSettings(doubt=1.0), NetSettings()) == [(0, False)]
    assert decide([0.45], p, 0.78, JudgeSettings(doubt=0.25), NetSettings()) == []


def test_the_limit_for_a_sure_die_follows_the_models_threshold() -> None:
    cfg, net = JudgeSettings(sure_die=0.05), NetSettings()
    p = np.array([0.045], np.float32)
    assert decide([0.3], p, 0.95, cfg, net) == [(0, True)]
    assert decide([0.3], p, 0.6, cfg, net) == []


class _Pips:
    """A pip reader: no not-a-die class."""

    def read(self, image: Any, corners: list[Any]) -> list[Any]:
        return [FaceReading("I", 0.99, "I") for _ in corners]

    def classify(self, crops: Any) -> list[Any]:
        return self.read(None, list(crops))


def test_d6_keeps_the_finders_own_path() -> None:
    finder, image = _scene(0.25)
    reader = Reader(
        _Pips(), finder=lambda im: find_dice_net(im, session=finder), judge=JudgeSettings()
    )
    assert reader.judge is None
    got = reader.read(image)
    assert len(got) == len(find_dice_net(image, session=finder))


@pytest.fixture(scope="module")
def grid_frame() -> Any:
    from companion.synth import VALIDATION, render_frame

    # small dice (32-60 px) on printed squares, validation styles: a development frame where
    # the finder scores four dice under its threshold
    return render_frame(
        71_010, size=(1280, 960), styles=VALIDATION, surface_kind="squares", edge_range=(32, 60)
    )


def _read(frame: Any, judged: bool) -> tuple[int, int, int]:
    """(true dice read with their motif, true dice found, finds given a motif matching none)."""
    from companion.evaluation.scoring import match_points

    reader = Reader.load()
    if not judged:
        reader.judge = None
    got = reader.read(frame.image)
    pairs = match_points([(d.x, d.y) for d in got], [d.corners for d in frame.dice])
    right = sum(got[i].face == frame.dice[j].face for i, j in pairs)
    matched = {i for i, _ in pairs}
    silent_phantoms = sum(d.face != "?" for i, d in enumerate(got) if i not in matched)
    return right, len(pairs), silent_phantoms


@pytest.mark.slow
def test_small_dice_among_grid_squares_are_found_only_when_judged(grid_frame: Any) -> None:
    right_before, found_before, _ = _read(grid_frame, judged=False)
    right, found, silent = _read(grid_frame, judged=True)
    assert found >= found_before + 3
    assert right >= right_before + 3
    assert silent == 0


def test_a_vouched_for_peak_beside_a_die_is_its_side() -> None:
    # a weak peak 0.82 edge from a found die (their faces share 18%): the face model sees a
    # die face there, its side
    side = (DICE[0][0] + 41.0, DICE[0][1], 50.0)
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in DICE] + [(*side, 0.3)])
    image = _frame(*[(*d, RED) for d in DICE])
    image[675:725, 225:266] = RED  # the side shows red as well
    assert len(find_and_read(image, FakeJudge(), session=finder)) == len(DICE)


def test_a_vouched_for_peak_of_another_size_than_the_tables_dice_is_dropped() -> None:
    odd = (900.0, 700.0, 30.0)  # 0.6x the table's dice: a key, a button
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in DICE] + [(*odd, 0.3)])
    image = _frame(*[(*d, RED) for d in [*DICE, odd]])
    assert len(find_and_read(image, FakeJudge(), session=finder)) == len(DICE)


def test_a_weak_peak_decoded_at_the_wrong_size_is_cut_again_at_the_tables_size() -> None:
    # a marbled die: the finder's weak peak is at its centre but decoded a third too small,
    # so its crop would fall to the size rule; cut at the sure dice's size, it is found whole
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in DICE] + [(SMALL[0], SMALL[1], 32.0, 0.3)])
    image = _frame(*[(*d, RED) for d in [*DICE, SMALL]])
    got = find_and_read(image, FakeJudge(), session=finder)
    assert len(got) == len(DICE) + 1
    new = [d for d, _ in got if abs(d.center[0] - SMALL[0]) < 3]
    assert len(new) == 1 and new[0].clean and abs(new[0].edge - 50.0) < 1.5
    # without the second cut the size rule drops it, as before
    off = find_and_read(image, FakeJudge(), JudgeSettings(resize_most=0), session=finder)
    assert len(off) == len(DICE)


def test_the_tables_size_comes_from_the_dice_not_the_squares_the_model_drops() -> None:
    # the finder is sure of 8 grid squares of 100 px and of 4 dice of 50 px; a die's weak peak
    # decoded at 100 px is cut at the dice's size, 50 px, not the squares'
    finder = FakeFinder(
        [(x, y, e, 0.9) for x, y, e in DICE]
        + [(x, y, e, 0.95) for x, y, e in GRID]
        + [(SMALL[0], SMALL[1], 100.0, 0.3)]
    )
    image = _frame(*[(*d, RED) for d in [*DICE, SMALL]], *[(*g, BLUE) for g in GRID])
    got = find_and_read(image, FakeJudge(), session=finder)
    new = [d for d, _ in got if abs(d.center[0] - SMALL[0]) < 3]
    assert len(new) == 1 and abs(new[0].edge - 50.0) < 1.5
    assert len(got) == len(DICE) + 1


def test_only_the_learned_finder_with_a_model_that_knows_non_dice_is_judged() -> None:
    reader = Reader.load()
    assert getattr(reader.classifier, "knows_non_dice", False)
    assert reader.judge == JudgeSettings()
    assert Reader.load(finder="classic").judge is None
    assert Reader.load(finder="both").judge is None


def test_peaks_far_smaller_than_a_die_never_count_toward_the_bound() -> None:
    # 96 grid crossings of 10 px, stronger than the dice, and the four dice
    tiny = [(60.0 + 40 * i, 60.0 + 40 * j, 10.0) for i in range(12) for j in range(8)]
    finder = FakeFinder(
        [(x, y, e, 0.95) for x, y, e in tiny] + [(x, y, e, 0.9) for x, y, e in DICE]
    )
    image = _frame(*[(*d, RED) for d in DICE])
    judge = FakeJudge()
    got = find_and_read(image, judge, JudgeSettings(most=8), None, finder)
    assert judge.batches == [len(DICE)] and len(got) == len(DICE)


# Dice of 100 px, and a sure square the face model cannot place (neither sure it is a die nor
# sure it is none): a printed marker's square, or a die of the table seen smaller or bigger.
BIG = [(200.0 + 170 * i, 600.0, 100.0) for i in range(4)]
GREY, BLACK = (90, 200, 90), (0, 0, 0)


def _odd_scene(x: float, y: float, edge: float) -> tuple[FakeFinder, npt.NDArray[np.uint8]]:
    finder = FakeFinder([(bx, by, e, 0.9) for bx, by, e in BIG] + [(x, y, edge, 0.9)])
    # a grey square with a black one inside: not blank, so not taken for an empty grid cell
    return finder, _frame(*[(*d, RED) for d in BIG], (x, y, edge, GREY), (x, y, edge / 2, BLACK))


def test_a_sure_find_far_smaller_than_the_tables_dice_is_dropped() -> None:
    finder, image = _odd_scene(1000.0, 250.0, 40.0)  # 0.4x: no whole die of the table
    got = find_and_read(image, FakeJudge(), session=finder)
    xs = sorted(d.center[0] for d, _ in got)
    assert len(xs) == len(BIG) and np.allclose(xs, [x for x, _, _ in BIG], atol=2)
    # without the bound it stays, read '?' for its size, as before
    off = JudgeSettings(far_lo=0.0)
    kept = [d for d, _ in find_and_read(image, FakeJudge(), off, session=finder) if not d.clean]
    assert len(kept) == 1 and "size unlike" in kept[0].reason


# 0.56x: a die of a 14 mm set beside 20 mm ones, seen farther; 2.5x: a die seen with a side
@pytest.mark.parametrize("edge", [56.0, 250.0])
def test_a_sure_find_that_can_hold_a_die_stays_doubtful(edge: float) -> None:
    finder, image = _odd_scene(1000.0, 250.0, edge)
    got = find_and_read(image, FakeJudge(), session=finder)
    (odd,) = [d for d, _ in got if abs(d.center[0] - 1000.0) < 3]
    assert not odd.clean and "size unlike" in odd.reason


def test_a_small_find_cut_by_the_frame_border_stays_doubtful() -> None:
    finder, image = _odd_scene(W - 10.0, 250.0, 40.0)  # half of it outside the frame
    got = find_and_read(image, FakeJudge(), session=finder)
    (odd,) = [d for d, _ in got if abs(d.center[0] - (W - 10.0)) < 3]
    assert not odd.clean and "cut by the frame border" in odd.reason


@dataclass
class SizedFinder:
    """Peaks by the input's long side: what the finder sees at 512, 768 and 1024 pixels."""

    by_long: dict[int, list[tuple[float, float, float, float]]]

    def get_inputs(self) -> list[_Input]:
        return [_Input()]

    def run(self, _names: Any, feeds: dict[str, F32]) -> list[F32]:
        _, _, h, w = feeds["image"].shape
        return [peak_maps(self.by_long.get(w, []), h, w)]


def _half_seen_at_768(
    six: list[tuple[float, float, float]],
) -> tuple[SizedFinder, npt.NDArray[np.uint8]]:
    """Printed squares: at 512 no peak on any die, at 768 on three of six, at 1024 on all."""
    finder = SizedFinder(
        {768: [(x, y, e, 0.9) for x, y, e in six[:3]], 1024: [(x, y, e, 0.9) for x, y, e in six]}
    )
    return finder, _frame(*[(*d, RED) for d in six])


def test_a_further_look_finds_the_dice_the_closer_look_still_missed() -> None:
    six = [(200.0 + 150 * i, 500.0, 50.0) for i in range(6)]
    finder, image = _half_seen_at_768(six)
    assert len(find_and_read(image, FakeJudge(), JudgeSettings(further=0), session=finder)) == 3
    further = JudgeSettings()  # as shipped: the further look at 1024
    assert further.further == 1024
    got = find_and_read(image, FakeJudge(), further, session=finder)
    xs = sorted(d.center[0] for d, _ in got)
    assert len(xs) == 6 and np.allclose(xs, [x for x, _, _ in six], atol=2)
    # no further look where the closer look found nothing new
    none_closer = SizedFinder({1024: [(x, y, e, 0.9) for x, y, e in six]})
    assert find_and_read(image, FakeJudge(), further, session=none_closer) == []


def test_the_further_look_adds_no_die_smaller_than_the_contracts() -> None:
    # dice of 36 px (VISION.md's frames hold 40-160 px): the further look's reads of such dice
    # were wrong 2 in 22 times, so it adds none of them; the closer look still does
    finder, image = _half_seen_at_768([(200.0 + 120 * i, 500.0, 36.0) for i in range(6)])
    assert len(find_and_read(image, FakeJudge(), JudgeSettings(further=1024), session=finder)) == 3
    any_size = JudgeSettings(further=1024, further_min_edge=0.0)
    assert len(find_and_read(image, FakeJudge(), any_size, session=finder)) == 6


def test_where_the_closer_look_is_taken_its_corners_recut_the_dice_the_first_look_decoded_big() -> (
    None
):
    # dice of 36 px: at 512 the finder finds them (19 input pixels, so the closer look is
    # taken) but decodes them a third too big, at 768 at their size (session 39)
    six = [(200.0 + 150 * i, 500.0, 36.0) for i in range(6)]
    finder = SizedFinder(
        {512: [(x, y, 48.0, 0.9) for x, y, _ in six], 768: [(x, y, e, 0.9) for x, y, e in six]}
    )
    image = _frame(*[(*d, RED) for d in six])
    # the corner refiner off: it would move the first look's cuts onto the dice itself
    first = find_and_read(
        image, FakeJudge(), JudgeSettings(recut=0.0, refine=False), session=finder
    )
    assert len(first) == 6 and all(abs(d.edge - 48.0) < 1 for d, _ in first)
    assert all(r.not_die_p == pytest.approx(0.3) for _, r in first)  # the crop holds grey too
    got = find_and_read(image, FakeJudge(), JudgeSettings(recut=1.15, refine=False), session=finder)
    assert sorted(d.center[0] for d, _ in got) == pytest.approx([x for x, _, _ in six], abs=2)
    assert all(abs(d.edge - 36.0) < 1 for d, _ in got)
    assert all(r.not_die_p == 0.0 for _, r in got)  # read again on the new cut


def test_a_recut_the_face_model_drops_keeps_the_first_looks_cut() -> None:
    # the closer look's peak on the die sits on a printed mark over its edge: that cut is no die
    die, mark = (400.0, 500.0, 36.0), (400.0, 516.0, 16.0)
    others = [(700.0 + 150 * i, 500.0, 36.0) for i in range(3)]
    finder = SizedFinder(
        {
            512: [(x, y, e, 0.9) for x, y, e in [die, *others]],
            768: [(mark[0], mark[1], 36.0, 0.9)] + [(x, y, e, 0.9) for x, y, e in others],
        }
    )
    image = _frame((*die, RED), *[(*d, RED) for d in others], (*mark, BLUE))
    got = find_and_read(image, FakeJudge(), JudgeSettings(recut=1.15), session=finder)
    (kept,) = [d for d, _ in got if abs(d.center[0] - die[0]) < 3]
    assert abs(kept.center[1] - die[1]) < 2  # the first look's cut, not the mark's
    assert all(abs(d.center[1] - 500.0) < 2 for d, _ in got)


@dataclass
class LooksBySize(FakeFinder):
    """The first look (512 x 384) finds ``peaks``; any other look finds ``later``."""

    later: list[tuple[float, float, float, float]] = field(default_factory=list)

    def run(self, _names: Any, feeds: dict[str, F32]) -> list[F32]:
        _, _, h, w = feeds["image"].shape
        return [peak_maps(self.peaks if (h, w) == (384, 512) else self.later, h, w)]


def test_each_face_is_cut_once_a_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    # the texture test, the voucher and the read share the crops: big dice on a body counted
    # as textured, whose shrunk look finds a die the first look missed
    from companion.vision import crop, judged

    big = [(250.0 + 200 * i, 500.0, 80.0) for i in range(4)]
    missed = (1100.0, 500.0, 80.0)
    finder = LooksBySize([(x, y, e, 0.9) for x, y, e in big], later=[(*missed, 0.9)])
    image = _frame(*[(*d, RED) for d in [*big, missed]])
    cut: list[int] = []
    real = crop.cut_faces

    def counting(image: Any, corners: Any, threads: int = 1) -> Any:
        cut.extend(id(c) for c in corners)
        return real(image, corners, threads)

    monkeypatch.setattr(judged, "cut_faces", counting)
    got = find_and_read(image, FakeJudge(), net=NetSettings(textured=0.0), session=finder)
    xs = sorted(d.center[0] for d, _ in got)
    assert np.allclose(xs, sorted(x for x, _, _ in [*big, missed]), atol=2)
    assert len(cut) == len(set(cut)) >= 5


@pytest.mark.parametrize("dx", [38.0, 39.0])
def test_a_sure_find_beside_a_stronger_die_is_its_side(dx: float) -> None:
    # dice whose sides carry art: the finder is sure of a side too, foreshortened, under SIDE
    # of an edge away, sharing too little of the die's face (under OVERLAP) to be one with it
    side = (DICE[0][0] + dx, DICE[0][1], 40.0)
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in DICE] + [(*side, 0.85)])
    image = _frame(*[(*d, RED) for d in [*DICE, side]])
    got = find_and_read(image, FakeJudge(), session=finder)
    xs = sorted(d.center[0] for d, _ in got)
    assert len(xs) == len(DICE) and np.allclose(xs, [x for x, _, _ in DICE], atol=2)


@pytest.mark.parametrize(
    ("dx", "side_colour", "die_colour", "kept"),
    [
        (45.0, (0, 0, 150), RED, False),  # 0.9 of an edge away and darker: the die's side
        (45.0, RED, RED, True),  # as bright: a die beside it
        (45.0, RED, (0, 0, 150), True),  # brighter than the stronger find: not its side
        (49.0, (0, 0, 150), RED, True),  # darker, but a whole edge away: a die in shadow
    ],
)
def test_a_darker_find_beside_a_stronger_die_is_its_side(
    dx: float, side_colour: tuple[int, int, int], die_colour: tuple[int, int, int], kept: bool
) -> None:
    # a side in view faces away from the light from above; found a little farther than SIDE
    side = (DICE[0][0] + dx, DICE[0][1], 50.0)
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in DICE] + [(*side, 0.85)])
    image = _frame((*side, side_colour), (*DICE[0], die_colour), *[(*d, RED) for d in DICE[1:]])
    # the finder's own cuts (FLAT): overlapping flat squares are no faces the refiner learnt
    xs = sorted(d.center[0] for d, _ in find_and_read(image, FakeJudge(), FLAT, session=finder))
    want = sorted([x for x, _, _ in DICE] + ([side[0]] if kept else []))
    assert len(xs) == len(want) and np.allclose(xs, want, atol=3)


def test_dice_side_by_side_are_all_kept() -> None:
    # top faces of dice that touch lie an edge apart (a little less in perspective)
    row = [(300.0 + 43.0 * i, 500.0, 50.0) for i in range(4)]  # 0.86 of an edge apart
    finder = FakeFinder([(x, y, e, 0.9) for x, y, e in row])
    image = _frame(*[(*d, RED) for d in row])
    assert len(find_and_read(image, FakeJudge(), FLAT, session=finder)) == len(row)
