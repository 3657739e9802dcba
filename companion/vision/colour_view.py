"""A table's dice redrawn as how yellow (or blue) each pixel is, dark on a plain light face.

Gold and brass art on wood has nearly the wood's brightness and hue family, and the grain's
dark stripes are as bold as the drawing's outline: the network sees stripes, and the ink view
(ink_view.py), fitted on the table's colour spread, finds the grain or the light's sheen. What
the metal has is more yellow than the wood: CIELAB's b* axis (blue to yellow) holds it, and the
grain, mostly a change of lightness, fades there. Each crop is stretched between its own face's
low and high b* so that a die in warm light and one in cold light draw alike. A second profile
is fitted and read on this view where enrolment finds it reads the table's dice clearly better
and the ink view does not (enroll.fit_profile; docs/vision.md, sessions 63-64).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

# The face inside a crop's margin, a few pixels in: the edge holds table and rim.
FACE = slice(8, 56)
# A crop's face b* at these quantiles is drawn as no ink and as full ink; never less apart than
# SPAN levels, so that a face of one colour is not stretched into noise.
LOW, HIGH, SPAN = 0.05, 0.98, 4.0
# Blur before converting: JPEG keeps colour in 8x8 blocks, which the view would draw.
BLUR_SIGMA = 1.0
BODY_GREY, INK_DEPTH = 235.0, 200.0
KIND = "yellow"


@dataclass(frozen=True)
class ColourView:
    """CIELAB b* (blue to yellow) of each crop, stretched per crop, yellow drawn dark."""

    def apply(self, crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        """The crops (N, 64, 64, 3 BGR) redrawn grey."""
        if not len(crops):
            return crops
        out = np.empty(crops.shape[:3], np.uint8)
        for i, c in enumerate(crops):
            lab = cv2.cvtColor(cv2.GaussianBlur(c, (0, 0), BLUR_SIGMA), cv2.COLOR_BGR2LAB)
            b = lab[..., 2].astype(np.float32)
            lo, hi = np.quantile(b[FACE, FACE], [LOW, HIGH])
            s = np.clip((b - lo) / max(float(hi - lo), SPAN), 0.0, 1.0)
            out[i] = (BODY_GREY - INK_DEPTH * s).astype(np.uint8)
        return np.ascontiguousarray(np.repeat(out[..., None], 3, axis=3))

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ColourView:
        if d.get("kind") != KIND:
            raise ValueError("not a colour view")
        return cls()
