"""Corner ordering and size for the top faces the finder reports."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]


def order_corners(pts: npt.ArrayLike) -> FloatArray:
    """Four points clockwise in image coordinates (y down), first nearest the top-left."""
    p = np.asarray(pts, dtype=np.float32).reshape(4, 2)
    c = p.mean(axis=0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    p = p[np.argsort(ang)]  # increasing angle with y down is clockwise on screen
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    return np.roll(p, -start, axis=0).astype(np.float32)


def mean_edge(corners: npt.ArrayLike) -> float:
    """The mean length of a face's four sides (corners (4, 2), in order round the face)."""
    c = np.asarray(corners)
    return float(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)))


def mean_edges(quads: npt.ArrayLike) -> npt.NDArray[np.floating]:
    """:func:`mean_edge` of many faces (N, 4, 2) at once, in their own float type."""
    q = np.asarray(quads)
    return np.asarray(np.linalg.norm(q - np.roll(q, 1, axis=1), axis=2).mean(axis=1))
