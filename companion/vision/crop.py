"""The crop contract shared by the die finder and the face classifier.

A die is handed over as the four corners of its top face (image pixels, any
order around the face). `cut_face` maps that quadrilateral onto a square of
CROP_SIZE pixels with a fixed margin of context around it, so the classifier
sees every die at the same scale whatever its size or tilt in the frame.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
import numpy.typing as npt

CROP_SIZE = 64
# Pixels of context kept on each side: a finder's corners may be a few pixels
# off, and the classifier is trained with the same margin.
CROP_MARGIN = 6

_FACE = CROP_SIZE - 2 * CROP_MARGIN
# The crop reaches CROP_MARGIN / _FACE of an edge beyond the face, at most
# sqrt(2) times that beyond its bounding box (a face turned 45 degrees).
SHRINK_PAD = 0.2
_DST = np.array(
    [
        [CROP_MARGIN, CROP_MARGIN],
        [CROP_MARGIN + _FACE, CROP_MARGIN],
        [CROP_MARGIN + _FACE, CROP_MARGIN + _FACE],
        [CROP_MARGIN, CROP_MARGIN + _FACE],
    ],
    dtype=np.float32,
)


def order_corners(corners: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Return the 4 corners sorted by angle around their centroid.

    In image coordinates (y down) that is clockwise as seen on screen, so the
    warp never mirrors the face whatever order the caller used.
    """
    return np.ascontiguousarray(_in_order(np.asarray(corners, np.float32).reshape(1, 4, 2))[0][0])


def _in_order(
    quads: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Faces (N, 4, 2) with their corners in :func:`order_corners`'s order, and each face's
    mean edge (N,), all faces at once (die by die, numpy's small-array overhead was a third
    of a 20-dice frame's cutting)."""
    center = quads.mean(axis=1, keepdims=True)
    angles = np.arctan2(quads[..., 1] - center[..., 1], quads[..., 0] - center[..., 0])
    ordered = np.take_along_axis(quads, np.argsort(angles, axis=1)[..., None], axis=1)
    sides = np.linalg.norm(ordered - np.roll(ordered, 1, axis=1), axis=2)
    return ordered, sides.mean(axis=1, dtype=np.float32)


def cut_face(image_bgr: npt.NDArray[np.uint8], corners: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Warp a die's top face to a CROP_SIZE x CROP_SIZE BGR crop with margin."""
    _check(image_bgr)
    ordered, edges = _in_order(np.asarray(corners, np.float32).reshape(1, 4, 2))
    return _warp(image_bgr, np.ascontiguousarray(ordered[0]), float(edges[0]))


def _check(image_bgr: npt.NDArray[np.uint8]) -> None:
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError("cut_face expects a BGR image of shape (H, W, 3)")


def _warp(
    image_bgr: npt.NDArray[np.uint8], pts: npt.NDArray[np.float32], edge: float
) -> npt.NDArray[np.uint8]:
    """The crop of a face whose corners ``pts`` are in order, its mean edge ``edge``."""
    src_img: npt.NDArray[np.uint8] = image_bgr
    # Large faces are first shrunk with area averaging: a perspective warp
    # alone would alias the thin strokes of the motifs. Only the region the
    # crop covers is shrunk (the face and its margin, at most SHRINK_PAD of an
    # edge beyond the face's bounding box however it is turned, and a pixel
    # for the warp's interpolation): area averaging costs in proportion to
    # the region, and half an edge of padding had made it 0.2-0.4 ms a die.
    if edge > 1.5 * _FACE:
        scale = _FACE / edge
        pad = edge * SHRINK_PAD + 2
        x0 = max(int(pts[:, 0].min() - pad), 0)
        y0 = max(int(pts[:, 1].min() - pad), 0)
        x1 = min(int(pts[:, 0].max() + pad) + 1, image_bgr.shape[1])
        y1 = min(int(pts[:, 1].max() + pad) + 1, image_bgr.shape[0])
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            roi = image_bgr[y0:y1, x0:x1]
            w = max(int(round((x1 - x0) * scale)), 1)
            h = max(int(round((y1 - y0) * scale)), 1)
            src_img = np.asarray(cv2.resize(roi, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
            pts = (pts - np.array([x0, y0], np.float32)) * np.array(
                [w / (x1 - x0), h / (y1 - y0)], np.float32
            )
    matrix = cv2.getPerspectiveTransform(pts, _DST)
    out = cv2.warpPerspective(
        src_img,
        matrix,
        (CROP_SIZE, CROP_SIZE),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(out, dtype=np.uint8)


def cut_faces(
    image_bgr: npt.NDArray[np.uint8], corners: Sequence[npt.ArrayLike], threads: int = 1
) -> npt.NDArray[np.uint8]:
    """Cut every die of a frame: an (N, CROP_SIZE, CROP_SIZE, 3) uint8 batch, each crop
    exactly :func:`cut_face`'s.

    The corners are put in order for all dice at once, and with ``threads`` > 1 a frame of
    many dice is cut on that many threads: OpenCV lets go of the GIL while it shrinks and
    warps, which is most of the rest.
    """
    n = len(corners)
    if n == 0:
        return np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    _check(image_bgr)
    ordered, edges = _in_order(
        np.asarray([np.asarray(c, np.float32).reshape(4, 2) for c in corners])
    )
    out = np.empty((n, CROP_SIZE, CROP_SIZE, 3), np.uint8)

    def cut(part: range) -> None:
        for i in part:
            out[i] = _warp(image_bgr, np.ascontiguousarray(ordered[i]), float(edges[i]))

    ways = min(max(threads, 1), _MOST_THREADS, n // _DICE_A_THREAD)
    if ways <= 1:
        cut(range(n))
        return out
    parts = [range(k, n, ways) for k in range(ways)]
    pending = [_pool().submit(cut, part) for part in parts[1:]]
    cut(parts[0])
    for job in pending:
        job.result()
    return out


# A thread is worth its hand-over only with a few dice to cut (about 0.1-0.3 ms a die).
_DICE_A_THREAD = 4
_MOST_THREADS = 4  # a Pi 4 or 5 has four cores
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(_MOST_THREADS - 1, thread_name_prefix="cut_faces")
        return _POOL
