"""A die a finder found: the record the classic and the learned finders both give the reader."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class FoundDie:
    """One die in frame pixels.

    ``corners`` is the top face, (4, 2) float32, clockwise in the image
    starting from the corner nearest the top-left; ``edge`` its mean side.
    ``clean`` is False when the die was found but its face cannot be cut out
    reliably (merged with a neighbour, cut by the frame border, odd shape);
    ``reason`` then says why in a few words. ``sized`` marks a sure find
    whose size was weighed against the others' (the net finder's size rule),
    so the rule can be weighed again once phantoms are known (``size_doubt``:
    that rule is the only reason the die is not clean).
    """

    center: tuple[float, float]
    corners: npt.NDArray[np.float32]
    edge: float
    clean: bool = True
    reason: str = ""
    sized: bool = False
    size_doubt: bool = False
