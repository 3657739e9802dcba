"""Labelled face crops cut from rendered frames, as the classifier sees them.

Corners are disturbed the way a die finder gets them wrong (a few pixels per
corner, a slightly wrong scale and centre), so the classifier learns not to
depend on exact corners.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from companion.synth.frame import FACES, render_frame
from companion.synth.styles import Style
from companion.vision.crop import CROP_SIZE, cut_face
from companion.vision.geometry import mean_edge

#: Label of a crop that holds no die (the classifier's sixth class, synth/nondie.py).
NOT_DIE = len(FACES)


@dataclass
class CropSet:
    images: npt.NDArray[np.uint8]  # (N, CROP_SIZE, CROP_SIZE, 3) BGR
    labels: npt.NDArray[np.int64]  # index into FACES, or NOT_DIE
    styles: list[str]
    frames: npt.NDArray[np.int64]  # seed of the frame each crop comes from


def jitter_corners(
    corners: npt.ArrayLike, rng: np.random.Generator, amount: float = 1.0
) -> npt.NDArray[np.float64]:
    """Corners as an imperfect die finder might report them."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    center = c.mean(axis=0)
    edge = mean_edge(c)
    scale = 1 + rng.uniform(-0.08, 0.08) * amount
    moved = (c - center) * scale + center + rng.uniform(-0.04, 0.04, 2) * edge * amount
    return np.asarray(moved + rng.normal(0, 0.025 * edge * amount, (4, 2)), np.float64)


def background_squares(
    dice: Sequence[npt.ArrayLike], shape: tuple[int, ...], count: int, rng: np.random.Generator
) -> list[npt.NDArray[np.float64]]:
    """Up to `count` die-sized squares of the table that touch no die (the dice's own top-face
    corners)."""
    faces = [np.asarray(c, np.float64).reshape(4, 2) for c in dice]
    if not faces:
        return []
    h, w = shape[:2]
    centres = np.array([f.mean(axis=0) for f in faces])
    edges = [mean_edge(f) for f in faces]
    out: list[npt.NDArray[np.float64]] = []
    for _ in range(count * 10):
        if len(out) == count:
            break
        edge = float(rng.choice(edges)) * rng.uniform(0.8, 1.2)
        c = rng.uniform([edge, edge], [w - edge, h - edge])
        # clear of every die by more than a die and a half (its sides and shadow included)
        if np.any(
            np.linalg.norm(centres - c, axis=1) < 1.5 * (np.asarray(edges) + edge) / 2 + edge * 0.3
        ):
            continue
        a = rng.uniform(0, np.pi / 2)
        r = edge / np.sqrt(2)
        out.append(
            np.array(
                [
                    [c[0] + r * np.cos(a + k * np.pi / 2), c[1] + r * np.sin(a + k * np.pi / 2)]
                    for k in range(4)
                ]
            )
        )
    return out


def _frame_crops(
    args: tuple[int, tuple[Style, ...], int, float, tuple[int, int], int],
) -> tuple[list[npt.NDArray[np.uint8]], list[int], list[str], int]:
    seed, styles, per_die, jitter, size, background = args
    rng = np.random.default_rng(seed + 7_000_003)
    frame = render_frame(seed, n_dice=int(rng.integers(4, 17)), size=size, styles=styles)
    imgs, labels, names = [], [], []
    for die in frame.dice:
        for _ in range(per_die):
            imgs.append(cut_face(frame.image, jitter_corners(die.corners, rng, jitter)))
            labels.append(FACES.index(die.face))
            names.append(die.style)
    for quad in background_squares(
        [d.corners for d in frame.dice], frame.image.shape, background, rng
    ):
        imgs.append(cut_face(frame.image, quad))
        labels.append(NOT_DIE)
        names.append("table")
    return imgs, labels, names, seed


def make_crops(
    seeds: Sequence[int],
    styles: Sequence[Style],
    *,
    per_die: int = 1,
    jitter: float = 1.0,
    size: tuple[int, int] = (640, 480),
    workers: int = 1,
    background: int = 0,
) -> CropSet:
    """Render one frame per seed and cut every die (per_die jittered crops each), and up to
    `background` squares of the table clear of any die (labelled NOT_DIE)."""
    jobs = [(int(s), tuple(styles), per_die, jitter, size, background) for s in seeds]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_frame_crops, jobs, chunksize=8))
    else:
        results = [_frame_crops(j) for j in jobs]
    imgs: list[npt.NDArray[np.uint8]] = []
    labels: list[int] = []
    names: list[str] = []
    frames: list[int] = []
    for im, lb, nm, seed in results:
        imgs.extend(im)
        labels.extend(lb)
        names.extend(nm)
        frames.extend([seed] * len(im))
    images = np.stack(imgs) if imgs else np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    return CropSet(images, np.asarray(labels, np.int64), names, np.asarray(frames, np.int64))
