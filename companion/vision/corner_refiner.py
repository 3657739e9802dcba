"""A found die's top-face corners moved onto the die's own edges by a small network.

The finder's corners lie about 0.04 of an edge from the true ones on our art and 0.065 on art
another hand drew, and on that art most of the profile's silent errors started at the cut
(docs/vision.md, session 49). The refiner (models/train_refiner.py) sees the die's
surroundings warped so that the finder's cut is the square SQUARE of a PATCH-pixel patch, and
says where the true corners lie, as offsets from SQUARE's in edges.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.paths import shipped_model
from companion.vision.geometry import mean_edges
from companion.vision.onnx_session import cpu_session

PATCH = 64
EDGE = 32  # the cut's edge in the patch: half an edge of surroundings on every side
SQUARE = np.array([[16, 16], [48, 16], [48, 48], [16, 48]], np.float32)  # clockwise on screen
REFINER_ENV = "COMPANION_REFINER"

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
ImageBGR = npt.NDArray[np.uint8]


def refiner_path() -> Path:
    """COMPANION_REFINER if set, else models/corner_refiner.onnx of this installation."""
    return shipped_model(REFINER_ENV, "corner_refiner.onnx")


_SESSIONS: dict[tuple[str, int], Any] = {}


def load_refiner(threads: int = 2) -> Any:
    """The refiner's onnxruntime session, cached per process.

    Raises detect_net.DetectorModelError (the refiner is part of the finder) in one sentence."""
    from companion.vision.detect_net import DetectorModelError

    p = refiner_path()
    key = (str(p), threads)
    if key in _SESSIONS:
        return _SESSIONS[key]
    if not p.is_file():
        raise DetectorModelError(
            f"corner refiner model not found at {p} (reinstall the package, or set "
            f"{REFINER_ENV} to its path)"
        )
    try:
        sess = cpu_session(p, threads)
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise DetectorModelError(
            f"corner refiner model {p} cannot be loaded: {str(exc).splitlines()[0]}"
        ) from None
    _SESSIONS[key] = sess
    return sess


def refine(image: ImageBGR, corners: Sequence[npt.ArrayLike], session: Any) -> list[F32]:
    """Each die's corners as the refiner places them (same order as given, clockwise), all
    dice of a frame in one batch."""
    if len(corners) == 0:
        return []
    patches, to_patches = patches_of(image, corners)
    x = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32)
    offsets = np.asarray(session.run(None, {"x": x})[0], np.float64).reshape(-1, 4, 2)
    pts = np.concatenate([SQUARE + offsets * EDGE, np.ones((len(offsets), 4, 1))], axis=2)
    back = pts @ np.linalg.inv(to_patches).transpose(0, 2, 1)
    return [np.ascontiguousarray(b[:, :2] / b[:, 2:], np.float32) for b in back]


def patches_of(
    image: ImageBGR, corners: Sequence[npt.ArrayLike]
) -> tuple[npt.NDArray[np.uint8], F64]:
    """The patches of many dice (N, PATCH, PATCH, 3), in each of which a die's ``corners``
    (4, 2, clockwise) lie on SQUARE, and their homographies from frame pixels (N, 3, 3).

    A die of 2 EDGE or more is warped from the frame halved with area averaging (once or
    more: OpenCV's area shrink by exactly 2 is 20 times faster than by 3 or 4), so that its
    texture does not alias; the warp does the rest (less than 2x). The halvings are of the
    whole frame, made once for all its dice: session 51 cut a window about each die and
    halved that, 0.3 ms a die in Python's overhead. Training cut its patches with one area
    shrink to the exact size (train_refiner.canonical_patch), several times slower; the
    shipped network refines these as well (validation renders: 0.0240 edge against 0.0238)."""
    c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    edges = mean_edges(c)
    levels = np.zeros(len(c), np.intp)
    while np.any(edges >= 2 * EDGE * 2.0**levels):
        levels += edges >= 2 * EDGE * 2.0**levels
    pyramid = [image]
    for _ in range(int(levels.max())):
        up = pyramid[-1]
        h, w = up.shape[:2]
        if h < 2 or w < 2:
            break
        half = cv2.resize(up, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        pyramid.append(np.asarray(half, np.uint8))
    levels = np.minimum(levels, len(pyramid) - 1)
    patches = np.empty((len(c), PATCH, PATCH, 3), np.uint8)
    to_patches = np.empty((len(c), 3, 3), np.float64)
    for i, (quad, k) in enumerate(zip(c, levels, strict=True)):
        f = 0.5**k  # a level's pixel centres: x' = (x + 0.5) f - 0.5
        to_level = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]])
        local = (quad * f + (0.5 * f - 0.5)).astype(np.float32)
        warp = cv2.getPerspectiveTransform(local, SQUARE)
        patches[i] = cv2.warpPerspective(
            pyramid[k],
            warp,
            (PATCH, PATCH),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        to_patches[i] = warp.astype(np.float64) @ to_level
    return patches, to_patches
