"""Labelled pip-die crops cut from rendered frames, as the pip reader sees them.

Two cuts per die: one from the corners the shipped die finder gives for it on
the rendered frame (what `vision read --dice d6` really reads), one from its
true top-face corners disturbed like a finder's. A die the finder misses
still gives the second.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from companion.synth.crops import jitter_corners
from companion.synth.pip_frame import render_pip_frame
from companion.synth.pips import PipStyle
from companion.vision.crop import CROP_SIZE
from companion.vision.pips import cut_pip_faces, grow_corners

FOUND, JITTERED = 0, 1
LEAN_P, LEAN_MAX = 0.6, 0.45  # how often and how far a jittered cut leans toward the sides


@dataclass
class PipCropSet:
    images: npt.NDArray[np.uint8]  # (N, 64, 64, 3) BGR
    labels: npt.NDArray[np.int64]  # pips - 1
    kinds: npt.NDArray[np.int64]  # FOUND (cut at the finder's corners) or JITTERED
    frames: npt.NDArray[np.int64]  # seed of the frame each crop comes from


_Job = tuple[int, tuple[PipStyle, ...], tuple[int, int], bool, bool]


def _frame_crops(job: _Job) -> tuple[npt.NDArray[np.uint8], list[int], list[int]]:
    seed, styles, size, found, jittered = job
    rng = np.random.default_rng([seed, 11])
    frame = render_pip_frame(seed, n_dice=int(rng.integers(1, 9)), size=size, styles=styles)
    corners: list[npt.NDArray[np.float64]] = []
    labels: list[int] = []
    kinds: list[int] = []
    if found and frame.dice:
        from companion.vision.detect_net import find_dice_net

        finds = find_dice_net(frame.image, threads=1)
        for die in frame.dice:
            near = [
                f
                for f in finds
                if np.hypot(f.center[0] - die.center[0], f.center[1] - die.center[1])
                < 0.6 * die.edge
            ]
            if near:
                best = min(
                    near,
                    key=lambda f: np.hypot(
                        f.center[0] - die.center[0], f.center[1] - die.center[1]
                    ),
                )
                corners.append(np.asarray(best.corners, np.float64))
                labels.append(die.value - 1)
                kinds.append(FOUND)
    if jittered:
        for die in frame.dice:
            # a finder often frames a tilted die's sides with its top: cut wider too,
            # and on real photos its box leans toward the sides in view, as far as
            # nearly half the way to the footprint's centre (the side face's pips then
            # sit at the crop's edge, in line with a two's diagonal)
            c = grow_corners(die.corners, rng.uniform(1.0, 1.3))
            if die.foot is not None and rng.random() < LEAN_P:
                c = c + (die.foot.mean(axis=0) - die.corners.mean(axis=0)) * rng.uniform(
                    0.0, LEAN_MAX
                )
            corners.append(jitter_corners(c, rng, 2.0))
            labels.append(die.value - 1)
            kinds.append(JITTERED)
    return cut_pip_faces(frame.image, corners), labels, kinds


def make_pip_crops(
    seeds: Sequence[int],
    styles: Sequence[PipStyle],
    *,
    size: tuple[int, int] = (640, 480),
    found: bool = True,
    jittered: bool = True,
    workers: int = 1,
) -> PipCropSet:
    """Render one frame per seed and cut its dice (see the module's docstring)."""
    jobs: list[_Job] = [(int(s), tuple(styles), size, found, jittered) for s in seeds]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_frame_crops, jobs, chunksize=4))
    else:
        results = [_frame_crops(j) for j in jobs]
    imgs = [r[0] for r in results if len(r[0])]
    frames = [np.full(len(r[1]), s, np.int64) for r, s in zip(results, seeds, strict=True)]
    return PipCropSet(
        np.concatenate(imgs) if imgs else np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8),
        np.asarray([lb for r in results for lb in r[1]], np.int64),
        np.asarray([k for r in results for k in r[2]], np.int64),
        np.concatenate(frames) if frames else np.zeros(0, np.int64),
    )
