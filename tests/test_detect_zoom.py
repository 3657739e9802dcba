"""The learned finder's second look at a frame of big dice, shrunk (detect_net.zoomed_peaks).

A fake finder session gives each input size its own peaks, in frame pixels, and counts the
sizes it was run at: the first look is the frame at 512 pixels across, the second at the
size that makes the first look's sure dice about ZOOM_EDGE_IN pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.vision.detect_net import (
    INPUT_LONG,
    ZOOM_EDGE_IN,
    ZOOM_VOUCH_MOST,
    ZOOM_WEAK,
    Candidate,
    NetSettings,
    find_dice_net,
    zoom_size,
    zoomed_peaks,
)
from companion.vision.judged import find_and_read
from tests.test_judged import FakeJudge, peak_maps

F32 = npt.NDArray[np.float32]
W, H = 1280, 960
Peak = tuple[float, float, float, float]  # x, y, edge in frame pixels, score


@dataclass
class _Input:
    name: str = "image"


@dataclass
class LooksFinder:
    """Peaks for each input width (the first look's is 512); every other width sees nothing."""

    looks: dict[int, list[Peak]]
    widths: list[int] = field(default_factory=list)

    def get_inputs(self) -> list[_Input]:
        return [_Input()]

    def run(self, _names: Any, feeds: dict[str, F32]) -> list[F32]:
        _, _, h, w = feeds["image"].shape
        self.widths.append(w)
        return [peak_maps(self.looks.get(w, []), h, w)]


def _grid(n: int, edge: float, score: float = 0.9, start: int = 0) -> list[Peak]:
    """n dice of one edge, in rows, well apart (from the start-th place)."""
    places = range(start, start + n)
    return [(150.0 + 220 * (i % 5), 150.0 + 220 * (i // 5), edge, score) for i in places]


def _missed(sure: int, weak: int, edge: float) -> list[Peak]:
    """The first look at marbled dice: `sure` found, `weak` more only as weak peaks."""
    return _grid(sure, edge) + _grid(weak, edge, 0.25, start=sure)


FRAME = np.full((H, W, 3), 90, np.uint8)
# dice of 100 px are 40 px on the 512 input; shrunk to 20 px: a 256-pixel input
BIG, SECOND = 100.0, 256


def test_the_second_look_is_as_large_as_makes_the_dice_twenty_input_pixels() -> None:
    cfg = NetSettings()
    finder = LooksFinder({INPUT_LONG: _missed(3, 2, BIG)})
    first = zoomed_peaks(finder, FRAME, INPUT_LONG, 0.15, cfg=cfg)
    assert zoom_size(first, W, INPUT_LONG, cfg) == SECOND
    assert round(INPUT_LONG * ZOOM_EDGE_IN / (BIG * INPUT_LONG / W) / 32) * 32 == SECOND
    # dice of 50 px are 20 input pixels already: no second look
    small = zoomed_peaks(LooksFinder({INPUT_LONG: _missed(3, 2, 50.0)}), FRAME, INPUT_LONG, 0.15)
    assert zoom_size(small, W, INPUT_LONG, cfg) == 0


def test_big_dice_all_found_get_no_second_look() -> None:
    # no weak peak of the dice's size away from them: nothing was missed
    for first in (_grid(6, BIG), _missed(6, 1, BIG), _grid(6, BIG) + _grid(3, 40.0, 0.25, 6)):
        finder = LooksFinder({INPUT_LONG: first, SECOND: _grid(12, BIG)})
        zoomed_peaks(finder, FRAME, INPUT_LONG, 0.15)
        assert finder.widths == [INPUT_LONG]


def test_big_dice_the_first_look_misses_are_found_by_the_second() -> None:
    # marbled dice of 100 px: the first look is sure of one of twelve, the second of all
    finder = LooksFinder({INPUT_LONG: _missed(1, 4, BIG), SECOND: _grid(12, BIG, 0.8)})
    found = find_dice_net(FRAME, session=finder, settings=NetSettings(drop_below=0.0))
    assert finder.widths == [INPUT_LONG, SECOND]
    assert len(found) == 12
    assert all(d.clean for d in found)
    # the die both looks found is the first look's (its corners are the finer), once
    centers = sorted((round(d.center[0]), round(d.center[1])) for d in found)
    assert len(set(centers)) == 12


def test_the_first_looks_sure_dice_come_first_then_the_rest_strongest_first() -> None:
    finder = LooksFinder(
        {INPUT_LONG: _grid(2, BIG, 0.6) + [(1200.0, 900.0, BIG, 0.3)], SECOND: _grid(8, BIG, 0.95)}
    )
    got = zoomed_peaks(finder, FRAME, INPUT_LONG, 0.15)
    assert [round(c.score, 2) for c in got[:2]] == [0.6, 0.6]
    rest = [c.score for c in got[2:]]
    assert rest == sorted(rest, reverse=True)
    assert round(rest[-1], 2) == 0.3


def test_a_second_look_that_finds_fewer_new_dice_than_the_first_found_is_not_kept() -> None:
    # five dice found; the second look adds three more "dice" (grid squares under big dice)
    extra = [(1150.0, 150.0 + 200 * i, BIG, 0.9) for i in range(3)]
    finder = LooksFinder({INPUT_LONG: _missed(5, 3, BIG), SECOND: _grid(5, BIG) + extra})
    got = find_dice_net(FRAME, session=finder, settings=NetSettings(drop_below=0.0))
    assert finder.widths == [INPUT_LONG, SECOND]
    assert len(got) == 5
    # one new die is never enough, even beside a single sure one
    finder = LooksFinder({INPUT_LONG: _missed(1, 2, BIG), SECOND: _grid(2, BIG)})
    assert len(find_dice_net(FRAME, session=finder, settings=NetSettings(drop_below=0.0))) == 1


def test_no_second_look_without_a_sure_die_or_for_dice_of_the_usual_size() -> None:
    finder = LooksFinder({INPUT_LONG: [(400.0, 400.0, BIG, 0.45)], SECOND: _grid(12, BIG)})
    zoomed_peaks(finder, FRAME, INPUT_LONG, 0.15)
    assert finder.widths == [INPUT_LONG]
    finder = LooksFinder({INPUT_LONG: _grid(4, 50.0), 320: _grid(12, 50.0)})
    zoomed_peaks(finder, FRAME, INPUT_LONG, 0.15)
    assert finder.widths == [INPUT_LONG]


def test_a_close_up_is_never_looked_at_smaller_than_itself() -> None:
    # a 96 x 96 frame holding one die of 60 px: the first look is the frame as it is
    finder = LooksFinder({})
    close = np.full((96, 96, 3), 90, np.uint8)
    zoomed_peaks(finder, close, INPUT_LONG, 0.15)
    assert finder.widths == [96]
    one = [Candidate(48.0, 48.0, 60.0, np.zeros((4, 2), np.float32), 0.9)]
    assert zoom_size(one, 96, INPUT_LONG, NetSettings()) == 0


RED, BLUE = (0, 0, 255), (255, 0, 0)  # a die and no die to FakeJudge


def _paint(
    image: npt.NDArray[np.uint8], places: list[Peak], colour: tuple[int, int, int]
) -> npt.NDArray[np.uint8]:
    """``image`` with a square of ``colour`` at each place (x, y, edge, _), in place."""
    for x, y, edge, _ in places:
        h = int(edge / 2)
        image[int(y) - h : int(y) + h, int(x) - h : int(x) + h] = colour
    return image


def _squares(n: int, edge: float) -> npt.NDArray[np.uint8]:
    image = FRAME.copy()
    h = int(edge / 2)
    for x, y, _, _ in _grid(n, edge):
        image[int(y) - h : int(y) + h, int(x) - h : int(x) + h] = (0, 0, 255)  # red: a die
    return image


def test_the_readers_judged_candidates_take_the_second_look_too() -> None:
    finder = LooksFinder({INPUT_LONG: _missed(2, 3, BIG), SECOND: _grid(10, BIG)})
    judge = FakeJudge()
    got = find_and_read(_squares(10, BIG), judge, session=finder)
    assert finder.widths[:2] == [INPUT_LONG, SECOND]
    assert len(got) == 10
    # one batch: both looks' peaks are judged, then made one per die
    assert judge.batches == [2 + 3 + 10]


def test_without_a_sure_die_weak_peaks_the_face_model_vouches_for_size_the_second_look() -> None:
    # big dice of a strongly striped body: the first look is sure of none of twenty and
    # scores them all weakly (session 21); the face model is sure they are dice
    finder = LooksFinder({INPUT_LONG: _grid(20, BIG, 0.3), SECOND: _grid(20, BIG, 0.8)})
    judge = FakeJudge()
    got = find_and_read(_squares(20, BIG), judge, session=finder)
    assert finder.widths[:2] == [INPUT_LONG, SECOND]
    assert len(got) == 20 and all(d.clean for d, _ in got)
    assert judge.batches[0] == ZOOM_VOUCH_MOST  # the vouching: the strongest weak peaks only
    # the plain finder has no face model to vouch: no second look without a sure die
    plain = LooksFinder({INPUT_LONG: _grid(12, BIG, 0.3), SECOND: _grid(12, BIG, 0.8)})
    assert not find_dice_net(FRAME, session=plain)
    assert plain.widths[:1] == [INPUT_LONG] and SECOND not in plain.widths


def test_weak_peaks_the_face_model_does_not_vouch_for_give_no_second_look() -> None:
    # printed squares without dice: weak peaks of one big size, none a die to the face model
    finder = LooksFinder({INPUT_LONG: _grid(12, BIG, 0.3), SECOND: _grid(12, BIG, 0.8)})
    grey = FRAME.copy()  # the fake face model cannot tell: not sure of any die
    find_and_read(grey, FakeJudge(), session=finder)
    assert SECOND not in finder.widths


def test_too_few_weak_peaks_or_of_many_sizes_give_no_second_look() -> None:
    three = _grid(ZOOM_WEAK - 1, BIG, 0.3)
    mixed = [(x, y, BIG * (1.0 + i % 2 * 1.5), 0.3) for i, (x, y, _, _) in enumerate(_grid(6, BIG))]
    small = _grid(12, 50.0, 0.3)  # 20 input pixels already
    for first in (three, mixed, small):
        finder = LooksFinder({INPUT_LONG: first, SECOND: _grid(12, BIG)})
        find_and_read(_squares(12, BIG), FakeJudge(), session=finder)
        assert SECOND not in finder.widths, first
    # a second look sized by weak peaks is kept only if it finds two dice or more
    finder = LooksFinder({INPUT_LONG: _grid(6, BIG, 0.3), SECOND: _grid(1, BIG)})
    got = find_and_read(_squares(6, BIG), FakeJudge(), session=finder)
    assert finder.widths[:2] == [INPUT_LONG, SECOND]
    assert len(got) == 6  # the weak peaks, each judged a die, and no more


def test_a_second_look_not_kept_still_gives_the_new_dice_the_face_model_vouches_for() -> None:
    # five dice found; three more only as weak peaks whose corners miss the die by 62 px (the
    # face model cannot tell what they are); the second look finds all eight (three new:
    # fewer than five, so the look is not kept as a whole) and one grid square
    weak = [(x + 62.0, y, e, 0.25) for x, y, e, _ in _grid(3, BIG, start=5)]
    square = (1150.0, 800.0, BIG, 0.9)
    looks = {INPUT_LONG: _grid(5, BIG) + weak, SECOND: _grid(8, BIG) + [square]}
    image = _squares(8, BIG)  # red: dice to the fake face model; the square is grey
    got = find_and_read(image, FakeJudge(), session=LooksFinder(looks))
    assert len(got) == 8 and all(d.clean for d, _ in got)
    true = np.array([(x, y) for x, y, *_ in _grid(8, BIG)])
    for d, _ in got:  # each at a die, not at the weak peaks beside them
        assert np.hypot(*(true - np.asarray(d.center)).T).min() < 5
    # the plain finder has no face model: the look is dropped and the weak peaks with it
    plain = find_dice_net(image, session=LooksFinder(looks), settings=NetSettings(drop_below=0.0))
    assert len(plain) == 5
    # new dice of another size than the table's are not offered to the face model
    odd = {INPUT_LONG: _grid(5, BIG) + weak, SECOND: _grid(5, BIG) + _grid(3, 2 * BIG, start=5)}
    judge = FakeJudge()
    assert len(find_and_read(image, judge, session=LooksFinder(odd))) == 5
    assert len(judge.batches) == 1  # the reading's own batch: nothing was vouched for


def _striped(n: int, edge: float) -> npt.NDArray[np.uint8]:
    """`_squares`, each die's body striped (red throughout, so still a die to FakeJudge)."""
    image = _squares(n, edge)
    red = image[..., 2] == 255
    stripes = (np.arange(W)[None, :] // 6 % 2 == 1) & red
    image[stripes] = (0, 200, 255)
    return image


def test_textured_dice_the_first_look_scores_under_its_floor_are_found_by_a_shrunk_look() -> None:
    # ten big marbled dice: the first look finds eight and has no peak at all on two (at 512
    # the stripes read as edges; session 27), the shrunk look finds all ten
    looks = {INPUT_LONG: _grid(8, BIG), SECOND: _grid(10, BIG)}
    finder = LooksFinder(looks)
    got = find_and_read(_striped(10, BIG), FakeJudge(), session=finder)
    assert finder.widths[:2] == [INPUT_LONG, SECOND]
    assert len(got) == 10 and all(d.clean for d, _ in got)


def test_plain_bodies_small_dice_or_no_face_model_take_no_shrunk_look() -> None:
    looks = {INPUT_LONG: _grid(8, BIG), SECOND: _grid(10, BIG)}
    # plain bodies: the first look is trusted (most frames of big dice; the look costs a pass)
    finder = LooksFinder(looks)
    assert len(find_and_read(_squares(10, BIG), FakeJudge(), session=finder)) == 8
    assert finder.widths == [INPUT_LONG]
    # dice under NetSettings.shrunk_from_in input pixels
    small = 50.0
    assert small * INPUT_LONG / W < NetSettings().shrunk_from_in
    finder = LooksFinder({INPUT_LONG: _grid(8, small), 640: _grid(10, small)})
    find_and_read(_striped(10, small), FakeJudge(), session=finder)
    assert finder.widths == [INPUT_LONG]
    # the plain finder has no face model to vouch for the new dice
    finder = LooksFinder(looks)
    assert len(find_dice_net(_striped(10, BIG), session=finder)) == 8
    assert finder.widths == [INPUT_LONG]


def test_a_shrunk_look_adds_only_new_dice_the_face_model_vouches_for() -> None:
    # the shrunk look also finds a grey square (no die to the face model) and a die twice the
    # table's size: neither is added
    image = _striped(8, BIG)
    looks = {
        INPUT_LONG: _grid(8, BIG),
        SECOND: _grid(8, BIG) + [(1150.0, 800.0, BIG, 0.9), (700.0, 800.0, 2 * BIG, 0.9)],
    }
    got = find_and_read(image, FakeJudge(), session=LooksFinder(looks))
    assert len(got) == 8


def test_a_new_die_decoded_a_quarter_too_big_is_vouched_for_at_the_tables_size() -> None:
    # as above, but the second look decodes the three new dice 1.25 times too big: cut so, a
    # crop shows the table around the die and the face model cannot vouch for it
    weak = [(x + 62.0, y, e, 0.25) for x, y, e, _ in _grid(3, BIG, start=5)]
    big = [(x, y, 1.25 * e, s) for x, y, e, s in _grid(3, BIG, start=5)]
    looks = {INPUT_LONG: _grid(5, BIG) + weak, SECOND: _grid(5, BIG) + big}
    judge = FakeJudge()
    got = find_and_read(_squares(8, BIG), judge, session=LooksFinder(looks))
    assert len(got) == 8 and all(d.clean for d, _ in got)
    assert all(abs(d.edge / BIG - 1.0) < 0.05 for d, _ in got)  # kept at the table's size
    assert judge.batches[:2] == [3, 3]  # vouched as decoded, then again at the table's size


CLOSER = 768  # 1.5 times the first look's 512
SMALL = 45.0  # small dice on printed squares: no peak at all at 512 on some tables


def test_small_dice_the_first_look_does_not_see_are_found_by_a_closer_look() -> None:
    finder = LooksFinder({INPUT_LONG: [], CLOSER: _grid(10, SMALL)})
    got = find_and_read(_squares(10, SMALL), FakeJudge(), session=finder)
    assert finder.widths[:2] == [INPUT_LONG, CLOSER]
    assert len(got) == 10 and all(d.clean for d, _ in got)
    # two dice seen at first (fewer than three sure dice): the other eight are added
    finder = LooksFinder({INPUT_LONG: _grid(2, SMALL), CLOSER: _grid(10, SMALL)})
    assert len(find_and_read(_squares(10, SMALL), FakeJudge(), session=finder)) == 10


def test_no_closer_look_where_the_first_is_sure_of_three_dice_or_without_a_face_model() -> None:
    mid = 55.0  # 22 input pixels: not small (NetSettings.closer_below_in)
    finder = LooksFinder({INPUT_LONG: _grid(3, mid), CLOSER: _grid(10, mid)})
    assert len(find_and_read(_squares(10, mid), FakeJudge(), session=finder)) == 3
    assert CLOSER not in finder.widths
    plain = LooksFinder({INPUT_LONG: [], CLOSER: _grid(10, SMALL)})
    assert not find_dice_net(_squares(10, SMALL), session=plain)
    assert CLOSER not in plain.widths
    # a frame smaller than the finder's usual one is never enlarged
    small_frame = np.full((480, 640, 3), 90, np.uint8)
    finder = LooksFinder({})
    find_and_read(small_frame, FakeJudge(), session=finder)
    assert all(w <= INPUT_LONG for w in finder.widths)


def test_a_closer_look_adds_nothing_the_face_model_does_not_vouch_for_twice() -> None:
    # printed squares without dice: the closer look's peaks are grey squares
    finder = LooksFinder({INPUT_LONG: [], CLOSER: _grid(10, SMALL)})
    assert not find_and_read(FRAME.copy(), FakeJudge(), session=finder)
    assert finder.widths[:2] == [INPUT_LONG, CLOSER]
    # one die vouched for among squares is not enough to trust the look
    image = FRAME.copy()
    x, y, _, _ = _grid(1, SMALL)[0]
    h = int(SMALL / 2)
    image[int(y) - h : int(y) + h, int(x) - h : int(x) + h] = (0, 0, 255)
    finder = LooksFinder({INPUT_LONG: [], CLOSER: _grid(10, SMALL)})
    assert not find_and_read(image, FakeJudge(), session=finder)


def _ten_found_among_squares(edge: float) -> None:
    """Ten dice of ``edge``, four found at first among five grid squares the finder is sure of
    and the face model drops: the closer look finds the other six."""
    squares = _grid(5, edge, start=15)
    image = _paint(_squares(10, edge), squares, BLUE)
    looks = {INPUT_LONG: _grid(4, edge) + squares, CLOSER: _grid(10, edge) + squares}
    finder = LooksFinder(looks)
    got = find_and_read(image, FakeJudge(), session=finder)
    assert CLOSER in finder.widths
    assert len(got) == 10 and all(d.clean for d, _ in got)


def test_small_dice_among_printed_squares_are_found_by_a_closer_look() -> None:
    # four small dice found among five grid squares the finder is sure of (the face model
    # drops them): the dice it keeps are 18 input pixels, so the frame is looked at closer
    _ten_found_among_squares(SMALL)
    # big dice kept: no closer look
    big = LooksFinder({INPUT_LONG: _grid(4, BIG), CLOSER: _grid(10, BIG)})
    assert len(find_and_read(_squares(10, BIG), FakeJudge(), session=big)) == 4
    assert CLOSER not in big.widths
    # what the closer look finds that the face model is not sure of is not added
    grey = LooksFinder({INPUT_LONG: _grid(4, SMALL), CLOSER: _grid(10, SMALL)})
    assert len(find_and_read(_squares(4, SMALL), FakeJudge(), session=grey)) == 4
    assert CLOSER in grey.widths


def test_dice_among_printed_squares_the_face_model_drops_take_a_closer_look() -> None:
    # four dice of 22 input pixels (not small) found, and five grid squares the finder is sure
    # of that the face model drops: a printed surface, where the finder misses dice at 512
    # whatever their size (session 28), so the frame is looked at closer
    mid = 55.0
    _ten_found_among_squares(mid)
    # the same dice with nothing dropped: the first look is trusted
    plain = LooksFinder({INPUT_LONG: _grid(4, mid), CLOSER: _grid(10, mid)})
    assert len(find_and_read(_squares(10, mid), FakeJudge(), session=plain)) == 4
    assert CLOSER not in plain.widths


def test_a_closer_look_reads_the_dice_among_many_stronger_grid_squares() -> None:
    # forty small dice on a grid mat, none seen at 512; at 768 forty grid squares score higher
    # than any die: the look reads far more than the 32 strongest new peaks (those would all be
    # squares) and finds every die
    dice = [(60.0 + 70 * (i % 17), 60.0 + 140 * (i // 17), SMALL, 0.8) for i in range(40)]
    squares = [(60.0 + 70 * (i % 17), 130.0 + 140 * (i // 17), SMALL, 0.95) for i in range(40)]
    image = _paint(_paint(FRAME.copy(), dice, RED), squares, BLUE)
    finder = LooksFinder({INPUT_LONG: [], CLOSER: squares + dice})
    got = find_and_read(image, FakeJudge(), session=finder)
    assert len(got) == 40 and all(d.clean for d, _ in got)


def test_many_weak_peaks_the_face_model_drops_also_take_a_closer_look() -> None:
    # four dice of 22 input pixels found; five weak peaks on printed squares the face model is
    # sure are no die (the grid cells of a mat the finder scores under its threshold)
    mid = 55.0
    for n_squares, closer in ((5, True), (4, False)):
        squares = _grid(n_squares, mid, 0.3, start=15)
        image = _paint(_squares(10, mid), squares, BLUE)
        looks = {INPUT_LONG: _grid(4, mid) + squares, CLOSER: _grid(10, mid)}
        finder = LooksFinder(looks)
        got = find_and_read(image, FakeJudge(), session=finder)
        assert (CLOSER in finder.widths) is closer
        assert len(got) == (10 if closer else 4)
