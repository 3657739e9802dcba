"""How streaked a die's crop is: the blur gate (VISION.md: a blurred die reads `?`).

A frame taken while a die still slides, or a camera shaken, smears every edge along one
direction. Along that direction no edge is steeper than the crop's contrast over the
streak's length, whatever the die's art; across it the edges stay sharp. So the
*sharpness* of a crop is the steepest grey-level slope along the direction where it is
least steep (12 directions, every 15 degrees; the mean of each direction's top 0.5 % of
slopes, so a pixel of noise decides nothing), over the crop's contrast. It falls as 1/L for
a streak of L crop pixels: about 0.25 on sharp dice of our renders and 0.39 on real photos,
0.12 at a streak of 0.15 of an edge, 0.09 at 0.25 (docs/vision.md, session 38). Its
*evenness* is that least steepness over the steepest: a streak leaves one direction far less
steep than the others (under 0.5), where small dice and soft art are soft in every direction
and the face model, which learnt them so, reads them right.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]

# The gate (off unless asked: JudgeSettings.blur_gate) reads a die `?` under this sharpness
# whatever its evenness (smeared about 14 crop pixels, a quarter of a face) ...
BLURRED_UNDER = 0.07
# ... and under this one where it is streaked (evenness under STREAK_EVENNESS). Past a streak of
# 0.25 of an edge the model reads wrong 1 die in 10 of those it gives a motif; sharp dice of our
# renders lie above 0.11 (99 %), the real development photos' above 0.12. But 32-40 px dice
# under the renderer's own 3-7 px streak fall to 0.078-0.105, streaked, and are read right, so no
# limit passed its rule (docs/vision.md, session 38: 0.10 cost ordinary frames 0.6 points, 0.085
# caught 69 % of the wrong reads).
STREAKED_UNDER = 0.085
STREAK_EVENNESS = 0.5

_ANGLES = np.deg2rad(np.arange(0.0, 180.0, 15.0))
_DIRS = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)]).astype(np.float32)  # (2, 12)
_TOP_SHARE = 0.005
_INSET = 2  # the Sobel rim and the warp's replicated border say nothing of the die


def _percentiles(grey: F32, shares: tuple[float, ...]) -> list[F32]:
    """np.percentile's (linear) percentiles of each row of whole grey levels (N, P), from one
    histogram a row: a fifth of np.percentile's time."""
    n, p = grey.shape
    rows = grey.astype(np.int64) + 256 * np.arange(n)[:, None]
    below = np.cumsum(np.bincount(rows.ravel(), minlength=256 * n).reshape(n, 256), axis=1)
    out = []
    for share in shares:
        pos = share * (p - 1)
        i = int(np.floor(pos))
        # the i-th smallest level is the number of levels holding at most i values
        v0 = np.count_nonzero(below <= i, axis=1)
        v1 = np.count_nonzero(below <= min(i + 1, p - 1), axis=1)
        out.append((v0 + (pos - i) * (v1 - v0)).astype(np.float32))
    return out


def _slopes(crops: npt.NDArray[np.uint8]) -> tuple[F32, F32]:
    """Each crop's slope magnitudes along the 12 directions (N, 12, P) and its contrast (N,)."""
    n = len(crops)
    # grey levels as OpenCV's BGR2GRAY gives them (rounded to whole levels), all crops at once
    grey = np.rint(crops.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32))
    # Sobel's 3x3 slopes over 8 (its weight), inside the inset
    sm_y = grey[:, :-2] + 2.0 * grey[:, 1:-1] + grey[:, 2:]  # smoothed down the columns
    gx = (sm_y[:, :, 2:] - sm_y[:, :, :-2]) / 8.0
    sm_x = grey[:, :, :-2] + 2.0 * grey[:, :, 1:-1] + grey[:, :, 2:]
    gy = (sm_x[:, 2:] - sm_x[:, :-2]) / 8.0
    cut = _INSET - 1
    grad = np.stack(
        [gx[:, cut:-cut, cut:-cut].reshape(n, -1), gy[:, cut:-cut, cut:-cut].reshape(n, -1)],
        axis=1,
    )  # (N, 2, P)
    slopes = np.abs(_DIRS.T @ grad)  # (N, 12, P)
    lo, hi = _percentiles(grey.reshape(n, -1), (0.02, 0.98))
    return slopes, np.maximum(hi - lo, 1.0)


def _tops(slopes: F32) -> F32:
    """The mean of each direction's top share: (N, 12, P) -> (N, 12)."""
    k = max(int(slopes.shape[2] * _TOP_SHARE), 1)
    return np.asarray(np.partition(slopes, -k, axis=2)[:, :, -k:].mean(axis=2), np.float32)


def sharpness(crops: npt.NDArray[np.uint8]) -> tuple[F32, F32]:
    """Each BGR crop's sharpness and evenness (N,) each: see the module's docstring."""
    if len(crops) == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    slopes, contrast = _slopes(crops)
    tops = _tops(slopes)
    least = tops.min(axis=1)
    return (
        np.asarray(least / contrast, np.float32),
        np.asarray(least / np.maximum(tops.max(axis=1), 1e-6), np.float32),
    )


def judged_blurred(sharp: F32, even: F32) -> npt.NDArray[np.bool_]:
    """The gate's rule on measured sharpness and evenness."""
    return np.asarray(
        (sharp < BLURRED_UNDER) | ((sharp < STREAKED_UNDER) & (even < STREAK_EVENNESS)), np.bool_
    )


def blurred(crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Which crops are smeared beyond slight motion blur (:func:`judged_blurred`).

    Exact, and quick for the sharp crops that are most of a table's: where every direction
    holds as many slopes of at least STREAKED_UNDER x contrast as its top share counts, the
    mean of that share cannot fall under it, and only the other crops are measured in full."""
    n = len(crops)
    out = np.zeros(n, np.bool_)
    if n == 0:
        return out
    slopes, contrast = _slopes(crops)
    k = max(int(slopes.shape[2] * _TOP_SHARE), 1)
    steep = slopes >= (STREAKED_UNDER * contrast)[:, None, None]
    counts = steep.view(np.uint8).sum(axis=2, dtype=np.int32)  # (N, 12)
    doubt = np.flatnonzero((counts < k).any(axis=1))
    if len(doubt):
        tops = _tops(slopes[doubt])
        least = tops.min(axis=1)
        out[doubt] = judged_blurred(
            least / contrast[doubt], least / np.maximum(tops.max(axis=1), 1e-6)
        )
    return out
