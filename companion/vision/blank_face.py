"""Whether a find's face is blank: no motif on it, so no die's top face.

Every top face of the game's dice carries a motif (VISION.md: I, 1, 2, 3 or E), drawn in a
colour of its own, so the grey of a die's face spreads wide over the crop's inner part (its
5th to 95th percentile: 37 or more for 95 % of our development dice, 20 or more for every
die the face model doubted at all). A cell of a printed grid that the finder takes for a die
is one flat colour there (its lines lie at the crop's edge): on our development printed
squares, 3 of 4 such phantoms spread less than 16 (docs/vision.md, session 28).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.crop import CROP_SIZE

# The crop's inner part, in crop pixels: inside the face's edge (a grid cell's lines, a die's
# rim) on a 64-pixel crop.
_INNER = slice(10, CROP_SIZE - 10)
# A face whose grey spreads less than this is blank.
BLANK_SPREAD = 12.0


def blank(crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Which crops (N, 64, 64, 3) BGR show a blank face."""
    if len(crops) == 0:
        return np.zeros(0, bool)
    grey = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for c in crops])[:, _INNER, _INNER]
    flat = grey.reshape(len(crops), -1).astype(np.float32)
    lo, hi = np.percentile(flat, [5.0, 95.0], axis=1)
    return np.asarray(hi - lo < BLANK_SPREAD, bool)
