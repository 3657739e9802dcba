"""Two die finders that must agree before a die is read without doubt.

The learned finder (detect_net) finds almost every die on rendered tables but
was never shown real clutter; the classical one (detect) misses dice on
tables of their own colour but rarely takes a plug or a stone for a die. A die
both see is read as the learned finder cut it; a die only one sees is still
reported (never dropped) but flagged, so it is read ``?`` and the secretary
keys it in; so is a die either finder doubts.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from companion.vision.detect import find_dice
from companion.vision.detect_net import find_dice_net
from companion.vision.found import FoundDie


def find_dice_both(image_bgr: npt.NDArray[np.uint8]) -> list[FoundDie]:
    learned = find_dice_net(image_bgr)
    classic = find_dice(image_bgr)
    used: set[int] = set()
    out: list[FoundDie] = []
    for die in learned:
        match = _nearest(die, classic, used)
        if match is None:
            reason = die.reason or "only the learned finder sees a die here"
            out.append(replace(die, clean=False, reason=reason))
        else:
            used.add(match)
            other = classic[match]
            if other.clean or not die.clean:
                out.append(die)
            else:  # the classical finder saw something it could not cut out cleanly
                out.append(replace(die, clean=False, reason=other.reason))
    for i, die in enumerate(classic):
        if i not in used:
            out.append(
                replace(
                    die,
                    clean=False,
                    reason=die.reason or "only the classical finder sees a die here",
                )
            )
    return out


def _nearest(die: FoundDie, others: list[FoundDie], used: set[int]) -> int | None:
    best, best_d = None, (0.5 * die.edge) ** 2
    for i, o in enumerate(others):
        if i in used:
            continue
        d = (o.center[0] - die.center[0]) ** 2 + (o.center[1] - die.center[1]) ** 2
        if d < best_d:
            best, best_d = i, d
    return best
