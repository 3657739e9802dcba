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
from companion.vision.crop import in_parts
from companion.vision.onnx_session import cpu_session

PATCH = 64
EDGE = 32  # the cut's edge in the patch: half an edge of surroundings on every side
SQUARE = np.array([[16, 16], [48, 16], [48, 48], [16, 48]], np.float32)  # clockwise on screen
# The frame window a patch is cut from reaches this many edges from the cut's centre: the
# patch's corners lie sqrt(2) edges from it, a little more in perspective.
WINDOW = 1.5
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


def patch_of(image: ImageBGR, corners: npt.ArrayLike) -> tuple[npt.NDArray[np.uint8], F64]:
    """The PATCH x PATCH patch in which ``corners`` (4, 2, clockwise) lie on SQUARE, and the
    homography from frame pixels to patch pixels.

    A die of 2 EDGE or more is first halved with area averaging (once or more), so that its
    texture does not alias; the warp does the rest (less than 2x). Training cut its patches
    with one area shrink to the exact size (train_refiner.canonical_patch), several times
    slower; this cut refines otherhand seed 34's dice as well (session 51: 0.0527 edge
    against 0.0539, with a whole-factor shrink)."""
    c = np.asarray(corners, np.float32).reshape(4, 2)
    edge = float(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)))
    # shrunk by halves (OpenCV's area shrink by exactly 2 is 20 times faster than by 3 or 4)
    step = 1
    while edge >= 2 * EDGE * step:
        step *= 2
    half = int(np.ceil(WINDOW * edge)) + 2
    half = -(-half // step) * step  # a whole number of steps
    cx, cy = c.mean(axis=0)
    x0, y0 = int(np.floor(cx)) - half, int(np.floor(cy)) - half
    x1, y1 = x0 + 2 * half, y0 + 2 * half
    h, w = image.shape[:2]
    win: npt.NDArray[Any] = image[max(0, y0) : min(h, y1), max(0, x0) : min(w, x1)]
    pads = (max(0, -y0), max(0, y1 - h), max(0, -x0), max(0, x1 - w))
    if any(pads):
        if win.size == 0:  # wholly outside the frame: a patch of its nearest edge pixels
            win = image[
                min(max(y0, 0), h - 1) : min(max(y0, 0), h - 1) + 1,
                min(max(x0, 0), w - 1) : min(max(x0, 0), w - 1) + 1,
            ]
            pads = (0, 2 * half - 1, 0, 2 * half - 1)
        win = cv2.copyMakeBorder(win, *pads, cv2.BORDER_REPLICATE)
    to_win = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    for _ in range(step.bit_length() - 1):
        win = cv2.resize(win, (win.shape[1] // 2, win.shape[0] // 2), interpolation=cv2.INTER_AREA)
    if step > 1:
        f = 1.0 / step
        to_win = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]]) @ to_win
    local = c @ to_win[:2, :2].T + to_win[:2, 2]  # the corners in the (shrunk) window
    warp = cv2.getPerspectiveTransform(local.astype(np.float32), SQUARE)
    patch = cv2.warpPerspective(
        win, warp, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(patch, np.uint8), warp.astype(np.float64) @ to_win


def refine(
    image: ImageBGR, corners: Sequence[npt.ArrayLike], session: Any, threads: int = 1
) -> list[F32]:
    """Each die's corners as the refiner places them (same order as given, clockwise), all
    dice of a frame in one batch, their patches cut on up to ``threads`` threads."""
    n = len(corners)
    if n == 0:
        return []
    patches = np.empty((n, PATCH, PATCH, 3), np.uint8)
    to_patches = np.empty((n, 3, 3), np.float64)

    def cut(part: range) -> None:
        for i in part:
            patches[i], to_patches[i] = patch_of(image, corners[i])

    in_parts(n, threads, cut)
    x = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32)
    offsets = np.asarray(session.run(None, {"x": x})[0], np.float64).reshape(-1, 4, 2)
    out = []
    for to_patch, off in zip(to_patches, offsets, strict=True):
        pts = (SQUARE + off * EDGE).reshape(1, 4, 2)
        back = cv2.perspectiveTransform(pts, np.linalg.inv(to_patch))[0]
        out.append(np.ascontiguousarray(back, np.float32))
    return out
