"""A die an enrolled table's read still leaves `?`, looked at alone (issue 13, session 47).

On art drawn by another hand most such dice are cut in the wrong place, not drawn beyond
the profile: their corners lie a median 18 % of an edge off the face (dice read right:
6.5 %), and cut at their true corners nearly all read their motif sure. The finder places
corners better where the die is larger on its input, so such a die is looked at alone: a
patch of PATCH_EDGES edges about it, given to the finder with the die EDGE_IN input pixels
long. Its strongest peak near the die's centre gives new corners, and the new cut is read
through the whole profile read. A motif it reads sure counts only when it is the first
read's best guess too, the model has less doubt that the new cut holds a die than the
profile allows (the head vouches for it, not the pixels alone), and none of the cuts about
the new corners (other_cuts.cuts) reads another motif sure. On development sets (otherhand
seeds 28-30, 283 such dice) that read 77 right and 1 wrong; the new read alone 86, of them
4 wrong (docs/vision.md, session 47).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.classify import UNKNOWN
from companion.vision.crop import cut_faces
from companion.vision.detect_net import judged_detector_path, load_session, peaks
from companion.vision.found import FoundDie
from companion.vision.geometry import mean_edge
from companion.vision.other_cuts import CUTS, cuts, read_again, unsure_dice

#: The patch's side, in the die's edges: the die and its neighbourhood, as the finder saw
#: dice among others when it learnt.
PATCH_EDGES = 4.0
#: The die's edge on the finder's input (a 128-pixel input).
EDGE_IN = 32.0
#: Peaks from this score are taken: the die is known to be there.
FLOOR = 0.3
#: A peak counts for the die when its centre lies within this share of its edge.
NEAR = 0.5
#: Dice looked at alone a frame, at most (a pass of the finder each: 3.3 ms here, session 47).
MOST_DICE = 6

Classify = Callable[[npt.NDArray[np.uint8]], Sequence[Any]]


def patch_of(
    image_bgr: npt.NDArray[np.uint8], centre: npt.NDArray[np.float32], side: int
) -> tuple[npt.NDArray[np.uint8], int, int]:
    """The square of ``side`` pixels about ``centre`` (the frame's edge pixels repeated where
    it reaches beyond the frame) and its top left corner in the frame."""
    h, w = image_bgr.shape[:2]
    x0, y0 = int(round(float(centre[0]) - side / 2)), int(round(float(centre[1]) - side / 2))
    xa, ya = min(max(x0, 0), w - 1), min(max(y0, 0), h - 1)
    xb, yb = max(min(x0 + side, w), xa + 1), max(min(y0 + side, h), ya + 1)
    inside = image_bgr[ya:yb, xa:xb]
    top, left = ya - y0, xa - x0
    bottom, right = side - top - (yb - ya), side - left - (xb - xa)
    if top or left or bottom > 0 or right > 0:
        inside = np.asarray(
            cv2.copyMakeBorder(
                inside, top, max(bottom, 0), left, max(right, 0), cv2.BORDER_REPLICATE
            ),
            np.uint8,
        )
    return np.ascontiguousarray(inside), x0, y0


def corners_alone(
    sess: Any, image_bgr: npt.NDArray[np.uint8], corners: npt.ArrayLike
) -> npt.NDArray[np.float32] | None:
    """The corners the finder gives a die looked at alone, or None where it has no peak near
    the die's centre."""
    c = np.asarray(corners, np.float32).reshape(4, 2)
    centre = c.mean(axis=0)
    edge = mean_edge(c)
    if not edge > 1.0:
        return None
    side = max(8, int(round(PATCH_EDGES * edge)))
    patch, x0, y0 = patch_of(image_bgr, centre, side)
    size = max(64, int(round(PATCH_EDGES * EDGE_IN / 32)) * 32)
    near = [
        p
        for p in peaks(sess, patch, size, FLOOR, 20)
        if np.hypot(p.x + x0 - centre[0], p.y + y0 - centre[1]) < NEAR * edge
    ]
    if not near:
        return None
    best = max(near, key=lambda p: p.score)
    return np.asarray(best.corners + np.array([x0, y0], np.float32), np.float32)


def read_alone(
    image_bgr: npt.NDArray[np.uint8],
    found: list[tuple[FoundDie, Any]],
    classify: Classify,
    doubt: float,
    threads: int = 1,
    sess: Any = None,
) -> list[tuple[FoundDie, Any]]:
    """``found`` (each die with its reading), where a clean die read `?` (and not dropped as no
    die) whose cut by its corners looked at alone (:func:`corners_alone`) reads sure the motif
    that was its best guess, with a not-die probability under ``doubt`` and no cut about those
    corners sure of another motif, reads that motif at the new read's confidence. The die
    keeps its place and corners: only its reading changes. ``sess``: the judged finder's
    network (loaded on ``threads`` if not given, only for a frame with such a die)."""
    unsure = unsure_dice(found, MOST_DICE)
    if not unsure:
        return found
    if sess is None:
        sess = load_session(judged_detector_path(), threads=threads)
    looked = [(i, corners_alone(sess, image_bgr, found[i][0].corners)) for i in unsure]
    again = [(i, c) for i, c in looked if c is not None]
    if not again:
        return found
    readings = list(classify(cut_faces(image_bgr, [c for _, c in again], threads)))
    sure = [
        (i, c, new)
        for (i, c), new in zip(again, readings, strict=True)
        if new.face != UNKNOWN
        and not new.not_die
        and new.face == found[i][1].best
        and float(new.not_die_p) < doubt
    ]
    if not sure:
        return found
    # the cuts about each new cut, in one batch: none may read another motif sure
    around = list(classify(cut_faces(image_bgr, [w for _, c, _ in sure for w in cuts(c)], threads)))
    out = list(found)
    for k, (i, _, new) in enumerate(sure):
        others = {
            str(a.face)
            for a in around[k * CUTS : (k + 1) * CUTS]
            if a.face != UNKNOWN and not a.not_die
        }
        if others - {new.face}:
            continue
        die, r = found[i]
        out[i] = (die, replace(r, face=new.face, confidence=float(new.confidence)))
    return out


def enrolled_again(
    classifier: Any,
    image_bgr: npt.NDArray[np.uint8],
    found: list[tuple[FoundDie, Any]],
    threads: int = 1,
) -> list[tuple[FoundDie, Any]]:
    """A profile read's `?` read again: cut other ways (other_cuts.read_again), then looked at
    alone (:func:`read_alone`), for a face classifier with an enrolment profile; ``found`` as
    it is for one without: measured on profile reads only, and the model alone keeps its `?`
    (it is not sure of art it never saw)."""
    profile = getattr(classifier, "profile", None)
    if profile is None:
        return found
    again = read_again(image_bgr, found, classifier.classify, threads)
    return read_alone(image_bgr, again, classifier.classify, float(profile.doubt), threads)
