"""A table's dice redrawn as dark ink on a plain light face, from the table's own colours.

On a grained or speckled body (wood, most of all) the network sees the grain's stripes as
strongly as the drawing: the profile's head and pixels cannot tell the motifs apart and the
set reads `?`. But the ink is another colour than the body, and the grain varies the body's
colour mostly along its own axis (light and dark brown). An enrolment learns both from its
dice: the spread of each die's face about its own median colour (mostly body, grain included)
and the colour of its far pixels (mostly ink). Each pixel is then projected on the body-whitened
direction from body to ink (Fisher's discriminant): grain, along the body's spread, fades; ink
stays. The crop is redrawn grey, ink dark on a light face, and a second profile is fitted and
read on that view beside the plain one (enroll.fit_profile keeps it only where its own
cross-check reads the enrolment clearly better; docs/vision.md, session 62).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]

# The face inside a crop's margin, a few pixels in: the edge holds table and rim.
FACE = slice(8, 56)
# Share of each face's pixels, nearest its median colour, taken as body: the ink is a minority
# of a face, the grain is not.
BODY_SHARE = 0.85
# Share of the face's pixels furthest from the body (whitened) taken as ink.
INK_SHARE = 0.15
# Quantile of the face pixels' projection taken as full ink (the view's darkest grey).
FULL_INK = 0.95
# Added to the body covariance (grey levels squared): a body of one flat colour has none.
RIDGE = 4.0
# Blur before projecting: JPEG keeps colour in 8x8 blocks, which the projection would draw.
BLUR_SIGMA = 1.0
BODY_GREY, INK_DEPTH = 235.0, 200.0


@dataclass(frozen=True)
class InkView:
    """The colour direction from a table's body to its ink, whitened by the body's spread."""

    direction: F32  # (3,) BGR weights
    full: float  # the projection drawn as full ink

    @classmethod
    def fit(cls, crops: npt.NDArray[np.uint8]) -> InkView | None:
        """The view of a table's enrolled dice (N, 64, 64, 3 BGR); None when no ink stands out."""
        if len(crops) < 2:
            return None
        z = _face_offsets(crops)
        r = np.linalg.norm(z, axis=2)
        body = r <= np.quantile(r, BODY_SHARE, axis=1, keepdims=True)
        cov = np.cov(z[body].T) + np.eye(3) * RIDGE
        prec = np.linalg.inv(cov)
        d = np.einsum("nij,jk,nik->ni", z, prec, z)
        ink = z[d > np.quantile(d, 1.0 - INK_SHARE)]
        if not len(ink):
            return None
        w = np.asarray(prec @ ink.mean(axis=0), np.float32)
        full = float(np.quantile(np.abs(z @ w), FULL_INK))
        if not np.isfinite(full) or full < 1e-3:
            return None
        return cls(w, full)

    def apply(self, crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        """The crops redrawn: each pixel's ink (projection on the direction, from its face's
        median colour) as dark grey on light, the same in all three channels."""
        if not len(crops):
            return crops
        b = _blurred(crops)
        x = b.astype(np.float32)
        med = np.median(x[:, FACE, FACE].reshape(len(b), -1, 3), axis=1)
        s = (x - med[:, None, None, :]) @ self.direction / self.full
        g = (BODY_GREY - INK_DEPTH * np.clip(s, 0.0, 1.0)).astype(np.uint8)
        return np.ascontiguousarray(np.repeat(g[..., None], 3, axis=3))

    def to_json(self) -> dict[str, Any]:
        return {"direction": [float(v) for v in self.direction], "full": self.full}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> InkView:
        w = np.asarray(d["direction"], np.float32)
        full = float(d["full"])
        if w.shape != (3,) or not np.all(np.isfinite(w)) or not full > 0:
            raise ValueError("an ink view needs three finite weights and a positive full ink")
        return cls(w, full)


def _blurred(crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    return np.stack([cv2.GaussianBlur(c, (0, 0), BLUR_SIGMA) for c in crops])


def _face_offsets(crops: npt.NDArray[np.uint8]) -> F32:
    """Each face pixel's colour less its face's median colour (N, P, 3)."""
    x = crops[:, FACE, FACE].reshape(len(crops), -1, 3).astype(np.float32)
    return np.asarray(x - np.median(x, axis=1, keepdims=True), np.float32)
