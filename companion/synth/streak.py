"""A frame streaked after rendering: a die still sliding, or a camera shaken, while it was taken.

The renderer's own blur (camera.photograph) is a few pixels; the blur gate (vision/blur.py) is
measured on streaks of a good part of a die (benchmarks/bench_enrolled.py --streak), so they
are drawn here, apart from the renderer, and never used for training.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]

# The streaks bench_enrolled.py --streak draws, frame after frame, in die edges: a third of the
# frames sharp or within VISION.md's slight blur, the rest longer.
STREAKS = (0.0, 0.0, 0.03, 0.06, 0.10, 0.15, 0.25, 0.35, 0.45)


def streaked(image: U8, length: float, angle: float) -> U8:
    """``image`` smeared evenly along a line of ``length`` pixels at ``angle`` degrees (a
    length under 1.5 leaves it as it is)."""
    n = int(round(length))
    if n < 2:
        return image
    size = n + 1 + n % 2  # odd, so the kernel's centre is a pixel
    kernel = np.zeros((size, size), np.float32)
    mid = (size - 1) / 2
    half = (n - 1) / 2
    kernel[int(mid), int(round(mid - half)) : int(round(mid + half)) + 1] = 1.0
    turn = cv2.getRotationMatrix2D((mid, mid), angle, 1.0)
    kernel = np.asarray(cv2.warpAffine(kernel, turn, (size, size)), np.float32)
    out = cv2.filter2D(image.astype(np.float32), -1, kernel / max(float(kernel.sum()), 1e-6))
    return np.asarray(np.clip(out + 0.5, 0, 255), np.uint8)
