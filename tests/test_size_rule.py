"""The net finder's size rule weighed again once the reader has set phantoms aside.

On grid paper the empty squares outnumber the dice; while they count toward the
table's die size, every real die looks the wrong size and reads '?'.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from companion.vision.classify import FaceReading
from companion.vision.detect_net import Candidate, NetSettings, select, weigh_sizes_again
from companion.vision.found import FoundDie
from companion.vision.read import Reader


def _cand(x: float, y: float, edge: float, score: float) -> Candidate:
    h = edge / 2
    corners = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], np.float32)
    return Candidate(x, y, edge, corners, score)


SQUARES = [_cand(100 + 110 * i, 150, 100, 0.9) for i in range(6)]  # phantoms: grid cells
DICE = [_cand(200 + 150 * i, 600, 45, 0.9) for i in range(3)]


def test_phantoms_make_real_dice_look_the_wrong_size() -> None:
    got = select([*SQUARES, *DICE], 1280, 960, NetSettings())
    dice = [d for d in got if d.edge == 45]
    assert len(dice) == 3 and all(not d.clean and d.size_doubt for d in dice)


def test_without_the_phantoms_the_dice_are_clean_again() -> None:
    got = select([*SQUARES, *DICE], 1280, 960, NetSettings())
    again = weigh_sizes_again([d for d in got if d.edge == 45])
    assert all(d.clean and d.reason == "" for d in again)


def test_a_die_still_unlike_the_others_stays_doubtful() -> None:
    odd = _cand(900, 800, 100, 0.9)
    again = weigh_sizes_again(
        select([*DICE, _cand(800, 600, 45, 0.9), odd], 1280, 960, NetSettings())
    )
    (big,) = [d for d in again if d.edge == 100]
    assert not big.clean and "size unlike" in big.reason
    assert all(d.clean for d in again if d.edge == 45)


def test_other_doubts_are_kept() -> None:
    weak = FoundDie((50.0, 50.0), DICE[0].corners, 45.0, False, "weak detection (0.40)")
    cut = FoundDie((60.0, 60.0), DICE[0].corners, 45.0, False, "cut by the frame border")
    assert weigh_sizes_again([weak, cut]) == [weak, cut]


class _Classifier:
    """Reads every crop as `I`, except the ones at the given x as no die at all."""

    def __init__(self, phantom_x: set[float]) -> None:
        self.phantom_x = phantom_x
        self.xs: list[float] = []

    def read(
        self, image_bgr: npt.NDArray[np.uint8], corners: list[npt.NDArray[np.float32]]
    ) -> list[Any]:
        xs = [float(c[:, 0].mean()) for c in corners]
        return [
            FaceReading("?" if x in self.phantom_x else "I", 0.99, "I", not_die=x in self.phantom_x)
            for x in xs
        ]

    def classify(self, crops: npt.NDArray[np.uint8]) -> list[Any]:
        raise AssertionError("not used")


def test_reader_drops_phantoms_and_reads_the_dice_it_had_doubted() -> None:
    found = select([*SQUARES, *DICE], 1280, 960, NetSettings())
    reader = Reader(_Classifier({c.x for c in SQUARES}), finder=lambda image: found)
    got = reader.read(np.zeros((960, 1280, 3), np.uint8))
    assert [(d.x, d.face) for d in got] == [(c.x, "I") for c in DICE]


def test_reader_keeps_the_size_doubt_when_nothing_was_set_aside() -> None:
    found = select([*SQUARES, *DICE], 1280, 960, NetSettings())
    reader = Reader(_Classifier(set()), finder=lambda image: found)
    faces = {d.x: d.face for d in reader.read(np.zeros((960, 1280, 3), np.uint8))}
    assert all(faces[c.x] == "?" for c in DICE)
