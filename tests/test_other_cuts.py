"""A die an enrolled table reads `?`, cut again a few ways (companion/vision/other_cuts.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.vision import other_cuts
from companion.vision.classify import FaceReading
from companion.vision.crop import CROP_SIZE
from companion.vision.found import FoundDie
from companion.vision.read import Reader

SQUARE = np.array([[100, 100], [180, 100], [180, 180], [100, 180]], np.float32)


def _die(x: float = 0.0, clean: bool = True) -> FoundDie:
    corners = SQUARE + np.array([x, 0.0], np.float32)
    c = corners.mean(axis=0)
    return FoundDie((float(c[0]), float(c[1])), corners, 80.0, clean=clean)


def _r(face: str, conf: float = 0.9, not_die: bool = False) -> FaceReading:
    return FaceReading(face, conf, face if face != "?" else "2", not_die)


def test_cuts_scale_about_the_centre_and_shift_by_a_share_of_the_edge() -> None:
    cuts = other_cuts.cuts(SQUARE)
    assert len(cuts) == other_cuts.CUTS == 8
    centre = SQUARE.mean(axis=0)
    for cut, scale in zip(cuts, other_cuts.SCALES, strict=False):
        np.testing.assert_allclose(cut.mean(axis=0), centre, atol=1e-4)
        np.testing.assert_allclose(np.ptp(cut[:, 0]), 80 * scale, atol=1e-3)
    moves = [c.mean(axis=0) - centre for c in cuts[len(other_cuts.SCALES) :]]
    step = other_cuts.SHIFT * 80
    np.testing.assert_allclose(moves, [[step, 0], [-step, 0], [0, step], [0, -step]], atol=1e-4)


def test_agreement_needs_enough_sure_cuts_and_none_against() -> None:
    enough = [_r("2")] * other_cuts.AGREE + [_r("?")] * (other_cuts.CUTS - other_cuts.AGREE)
    assert other_cuts.agreed(enough) == "2"
    too_few = [_r("2")] * (other_cuts.AGREE - 1) + [_r("?")] * (
        other_cuts.CUTS - other_cuts.AGREE + 1
    )
    assert other_cuts.agreed(too_few) is None
    against = [_r("2")] * (other_cuts.CUTS - 1) + [_r("3")]
    assert other_cuts.agreed(against) is None
    # a cut the model drops as no die does not vote
    dropped = [_r("2")] * (other_cuts.AGREE - 1) + [_r("2", not_die=True)] + [_r("?")] * 3
    assert other_cuts.agreed(dropped) is None


@dataclass
class _Scripted:
    """A classify that reads the cuts of die n (told by the grey it stands on, 10 * (n + 1))
    with script[n]: its first FIRST readings in the first batch, the rest in the second."""

    script: list[list[FaceReading]]
    batches: list[list[int]] = field(default_factory=list)

    def __call__(self, crops: npt.NDArray[np.uint8]) -> list[FaceReading]:
        assert crops.shape[1:] == (CROP_SIZE, CROP_SIZE, 3)
        stage = len(self.batches)
        dice = [round(float(c.mean()) / 10) - 1 for c in crops]
        self.batches.append(dice)
        out, seen = [], Counter[int]()
        for n in dice:
            out.append(self.script[n][stage * other_cuts.FIRST + seen[n]])
            seen[n] += 1
        return out


def _frame(n: int) -> npt.NDArray[np.uint8]:
    """A frame where die n (at x = 200 n) stands on a square of grey 10 (n + 1)."""
    frame = np.zeros((400, 200 * n + 200, 3), np.uint8)
    for k in range(n):
        frame[40:240, 200 * k + 40 : 200 * k + 240] = 10 * (k + 1)
    return frame


FRAME = _frame(1)


def test_a_question_mark_whose_cuts_agree_reads_their_motif() -> None:
    agree = [_r("3", 0.8)] * 5 + [_r("?", 0.5)] * 3
    found = [(_die(0), _r("I", 0.97)), (_die(200), _r("?", 0.6))]
    out = other_cuts.read_again(_frame(2), found, _Scripted([[], agree]))
    assert out[0] == found[0]
    assert out[1][1].face == "3" and out[1][1].best == "3"
    assert out[1][1].confidence == pytest.approx(0.8)
    assert out[1][0] is found[1][0]


def test_cuts_that_disagree_leave_the_question_mark() -> None:
    split = [_r("3")] * 6 + [_r("2")] + [_r("?")]
    found = [(_die(0), _r("?", 0.6))]
    script = _Scripted([split])
    assert other_cuts.read_again(FRAME, found, script) == found
    assert script.batches == [[0] * other_cuts.FIRST, [0] * (other_cuts.CUTS - other_cuts.FIRST)]


def test_the_other_cuts_are_not_cut_when_the_first_rule_agreement_out() -> None:
    found = [(_die(0), _r("?", 0.6)), (_die(200), _r("?", 0.5))]
    none_sure = [_r("?")] * other_cuts.FIRST + [_r("1")] * (other_cuts.CUTS - other_cuts.FIRST)
    two_motifs = [_r("1"), _r("2")] + [_r("1")] * (other_cuts.CUTS - 2)
    script = _Scripted([none_sure, two_motifs])
    assert other_cuts.read_again(_frame(2), found, script) == found
    assert len(script.batches) == 1


@given(st.lists(st.lists(st.sampled_from("??12"), min_size=8, max_size=8), min_size=1, max_size=6))
@settings(max_examples=60, deadline=None)
def test_two_batches_read_as_every_cut_at_once(faces: list[list[str]]) -> None:
    script = [[_r(f) for f in die] for die in faces]
    found = [(_die(200 * k), _r("?", 0.5)) for k in range(len(faces))]
    out = other_cuts.read_again(_frame(len(faces)), found, _Scripted(script))
    for (_, r), cuts in zip(out, script, strict=True):
        assert r.face == (other_cuts.agreed(cuts) or "?")


def test_unclean_dropped_and_read_dice_are_not_cut_again() -> None:
    found = [
        (_die(0, clean=False), _r("?", 0.7)),  # cut by the frame's edge: stays `?`
        (_die(200), _r("?", 0.7, not_die=True)),  # dropped as no die
        (_die(400), _r("E", 0.99)),
    ]
    script = _Scripted([])
    assert other_cuts.read_again(_frame(3), found, script) == found
    assert script.batches == []


def test_at_most_most_dice_a_frame_the_most_confident_first() -> None:
    n = other_cuts.MOST_DICE + 2
    found = [(_die(200 * k), _r("?", 0.3 + 0.05 * k)) for k in range(n)]
    agree = [_r("1", 0.9)] * other_cuts.CUTS
    out = other_cuts.read_again(_frame(n), found, _Scripted([agree] * n))
    faces = [r.face for _, r in out]
    # the two least confident keep their `?`
    assert faces[:2] == ["?", "?"] and faces[2:] == ["1"] * other_cuts.MOST_DICE


class _Classifier:
    knows_non_dice = False

    def __init__(self, profile: Any) -> None:
        self.profile = profile
        self.seen = 0

    def classify(self, crops: npt.NDArray[np.uint8]) -> list[FaceReading]:
        self.seen += len(crops)
        return [_r("2")] * len(crops)

    def read(self, image_bgr: npt.NDArray[np.uint8], corners: Any) -> list[FaceReading]:
        raise AssertionError("not read here")


def test_only_a_profile_read_cuts_again() -> None:
    found = [(_die(0), _r("?", 0.6))]
    alone = _Classifier(None)
    assert Reader(alone)._again(FRAME, found) == found and alone.seen == 0
    enrolled = _Classifier(SimpleNamespace(doubt=0.05))
    assert Reader(enrolled)._again(FRAME, found)[0][1].face == "2"
    assert enrolled.seen == other_cuts.CUTS
