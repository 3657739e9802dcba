"""A die an enrolled table's read leaves `?`, cut again a few ways (issue 13, session 45).

Most of what a profile reads `?` lies just under a limit: the same die cut a little larger,
smaller or to one side reads its motif sure, or another motif, or `?` again. Each such die is
cut CUTS ways and every cut goes through the whole profile read (head, pixels, their limits);
when at least AGREE of them read one motif sure and none reads another, the die reads that
motif. On development sets of art drawn by another hand (benchmarks/otherhand, seeds 7-18,
2,877 dice read `?`) that read 269 of them right and 1 wrong (docs/vision.md, session 45).
Cutting and reading a cut costs about half a millisecond here, so at most MOST_DICE dice a
frame are cut again, the most confident first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.vision.classify import UNKNOWN
from companion.vision.crop import cut_faces
from companion.vision.found import FoundDie
from companion.vision.geometry import mean_edge

#: How each die is cut again: its face scaled about its centre, and shifted along the
#: frame's axes by a share of its edge.
SCALES = (0.9, 0.95, 1.05, 1.1)
SHIFT = 0.04
CUTS = len(SCALES) + 4
#: The cuts read first (the scales): the shifts are cut only for a die they may still agree on.
FIRST = len(SCALES)
#: Cuts that must read one motif sure, with no cut reading another sure.
AGREE = 5
#: Dice cut again a frame, at most (a frame of camouflaged art can leave twenty `?`).
MOST_DICE = 6

Classify = Callable[[npt.NDArray[np.uint8]], Sequence[Any]]


def cuts(corners: npt.ArrayLike) -> list[npt.NDArray[np.float32]]:
    """A face's corners (4, 2) made the CUTS other ways it is read."""
    c = np.asarray(corners, np.float32).reshape(4, 2)
    centre = c.mean(axis=0)
    edge = mean_edge(c)
    step = SHIFT * edge
    out = [np.asarray((c - centre) * s + centre, np.float32) for s in SCALES]
    for move in ((step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)):
        out.append(np.asarray(c + np.array(move, np.float32), np.float32))
    return out


def _sure(readings: Sequence[Any]) -> Counter[str]:
    """How many of these cuts read each motif sure (a cut dropped as no die reads none)."""
    return Counter(str(r.face) for r in readings if r.face != UNKNOWN and not r.not_die)


def agreed(readings: Sequence[Any]) -> str | None:
    """The motif at least AGREE of a die's cuts read sure, when no cut reads another sure."""
    sure = _sure(readings)
    if len(sure) != 1:
        return None
    motif, n = sure.most_common(1)[0]
    return motif if n >= AGREE else None


def _may_agree(first: Sequence[Any]) -> bool:
    """Whether a die's first FIRST cuts leave agreement possible: they read no two motifs sure,
    and enough of them read one sure that the other cuts can still bring it to AGREE."""
    sure = _sure(first)
    return len(sure) == 1 and sure.most_common(1)[0][1] >= AGREE - (CUTS - FIRST)


def unsure_dice(found: list[tuple[FoundDie, Any]], most: int) -> list[int]:
    """The places in ``found`` of the clean dice read `?` and not dropped as no die: at most
    ``most``, the most confident first."""
    unsure = [
        i for i, (die, r) in enumerate(found) if die.clean and r.face == UNKNOWN and not r.not_die
    ]
    return sorted(unsure, key=lambda i: -float(found[i][1].confidence))[:most]


def read_again(
    image_bgr: npt.NDArray[np.uint8],
    found: list[tuple[FoundDie, Any]],
    classify: Classify,
    threads: int = 1,
) -> list[tuple[FoundDie, Any]]:
    """``found`` (each die with its reading), where a clean die read `?` (and not dropped as no
    die) whose cuts agree (:func:`agreed`) reads their motif, at the mean confidence of the cuts
    that read it. The cuts are read in two batches: a die whose first FIRST cuts already rule
    agreement out (more than half of them, on development sets) is not cut the other ways."""
    unsure = unsure_dice(found, MOST_DICE)
    if not unsure:
        return found
    ways = {i: cuts(found[i][0].corners) for i in unsure}
    first = list(
        classify(cut_faces(image_bgr, [c for i in unsure for c in ways[i][:FIRST]], threads))
    )
    read = {i: first[k * FIRST : (k + 1) * FIRST] for k, i in enumerate(unsure)}
    alive = [i for i in unsure if _may_agree(read[i])]
    if not alive:
        return found
    rest = CUTS - FIRST
    second = list(
        classify(cut_faces(image_bgr, [c for i in alive for c in ways[i][FIRST:]], threads))
    )
    out = list(found)
    for k, i in enumerate(alive):
        mine = read[i] + second[k * rest : (k + 1) * rest]
        motif = agreed(mine)
        if motif is None:
            continue
        conf = float(np.mean([r.confidence for r in mine if r.face == motif]))
        die, r = found[i]
        out[i] = (die, replace(r, face=motif, confidence=conf, best=motif))
    return out
