"""A table's dice redrawn as their thin strokes, dark on a plain light face.

Some art has no colour of its own: embossed or engraved lines in the body's own material, or
thin gold lines on a sheeny dark wood, where the ink view (ink_view.py) finds the sheen, not
the lines. What such art has is width: its strokes are a few pixels wide, narrower than the
wood's grain bands and the light's gradients. A morphological top-hat (the grey levels less
their opening) keeps bright structures narrower than its element, a black-hat the dark ones;
their larger is each pixel's stroke, scaled per crop so that a dim die and a bright one draw
alike. A second profile is fitted and read on this view where enrolment finds it reads the
table's dice clearly better (enroll.fit_profile; docs/vision.md, session 63).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

# The face inside a crop's margin, a few pixels in: the edge holds table and rim.
FACE = slice(8, 56)
# The structuring element's diameter (pixels of a 64x64 crop): strokes narrower than it stay.
STROKE = 5
# A crop's stroke strength at this quantile of its face is drawn as full ink; never less than
# FLOOR grey levels, so that a plain face's noise is not drawn as strokes.
FULL_INK, FLOOR = 0.98, 4.0
# A light blur first: JPEG's ringing is as narrow as a stroke.
BLUR_SIGMA = 0.7
BODY_GREY, INK_DEPTH = 235.0, 200.0
KIND = "lines"


@dataclass(frozen=True)
class LineView:
    """Thin strokes of either polarity, narrower than ``stroke`` pixels."""

    stroke: int = STROKE

    def apply(self, crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        """The crops (N, 64, 64, 3 BGR) redrawn grey: each pixel's stroke strength, dark on
        light."""
        if not len(crops):
            return crops
        ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (self.stroke, self.stroke))
        out = np.empty(crops.shape[:3], np.uint8)
        for i, c in enumerate(crops):
            g = cv2.cvtColor(cv2.GaussianBlur(c, (0, 0), BLUR_SIGMA), cv2.COLOR_BGR2GRAY)
            t = np.maximum(
                cv2.morphologyEx(g, cv2.MORPH_TOPHAT, ker),
                cv2.morphologyEx(g, cv2.MORPH_BLACKHAT, ker),
            ).astype(np.float32)
            full = max(float(np.quantile(t[FACE, FACE], FULL_INK)), FLOOR)
            out[i] = (BODY_GREY - INK_DEPTH * np.clip(t / full, 0.0, 1.0)).astype(np.uint8)
        return np.ascontiguousarray(np.repeat(out[..., None], 3, axis=3))

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND, "stroke": self.stroke}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LineView:
        stroke = d["stroke"]
        if not isinstance(stroke, int) or isinstance(stroke, bool) or not 3 <= stroke <= 15:
            raise ValueError("a line view's stroke is a whole number of pixels from 3 to 15")
        return cls(stroke)
