"""Crops of things that are not dice, as a die finder might cut them out.

The face classifier learns a sixth class, "not a die" (`NOT_DIE`), from these:
a finder fooled by grid paper, tiled mats or printed markers hands the
classifier squares that hold no motif at all, and a classifier that only
knows the five motifs then reads an empty grid square as `I` at full
confidence. Each crop is drawn at the crop's own scale (64x64, the square
[6, 58] being what the finder took for a top face, with its margin of
context), so it needs no frame: empty grid and tile cells, whole markers and
marker fragments, printed text, plain paper, wood, cloth and felt, coins, and
bits of a printed mat.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.table import surface
from companion.vision.crop import CROP_MARGIN, CROP_SIZE

F32 = npt.NDArray[np.float32]
KINDS = ("grid", "tiles", "marker", "marker_part", "text", "texture", "coin", "mat")
_INNER = CROP_SIZE - 2 * CROP_MARGIN  # the side of the square taken for a top face
# Letters and signs for printed text; those that resemble a motif (I, A, E,
# the tentacle counts 1 to 3, stars) are left out so that the class stays "not a die".
_TEXT = "BCDFGHJKLMNOPRSTUVWXYZ0456789#+%&@<>=?"


def _colour(rng: np.random.Generator, lo: int = 30, hi: int = 240) -> npt.NDArray[np.float32]:
    hsv = np.array([[[rng.integers(0, 180), rng.integers(0, 220), rng.integers(lo, hi)]]], np.uint8)
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float32)


def _paper(rng: np.random.Generator) -> F32:
    base = rng.uniform(170, 250) if rng.random() < 0.7 else None
    img = np.empty((CROP_SIZE, CROP_SIZE, 3), np.float32)
    img[:] = base if base is not None else _colour(rng, 60, 250)
    return img


def _lines(
    img: F32,
    rng: np.random.Generator,
    period: float,
    offset: F32,
    ink: npt.NDArray[np.float32],
    width: int,
) -> None:
    """Ruled lines every `period` pixels in both directions, starting at `offset`."""
    for axis in (0, 1):
        pos = float(offset[axis]) % period - period
        while pos < CROP_SIZE + period:
            p = int(round(pos))
            if axis == 0:
                cv2.line(img, (p, -2), (p, CROP_SIZE + 2), ink.tolist(), width, cv2.LINE_AA)
            else:
                cv2.line(img, (-2, p), (CROP_SIZE + 2, p), ink.tolist(), width, cv2.LINE_AA)
            pos += period


def _grid(rng: np.random.Generator) -> F32:
    """Grid paper: the square the finder took is a cell (or a few), lines near its border."""
    img = _paper(rng)
    period = _INNER * rng.choice([1.0, 1.0, 0.5, 0.33, 1.0 / 4]) * rng.uniform(0.9, 1.1)
    ink = (
        _colour(rng, 40, 200)
        if rng.random() < 0.7
        else np.full(3, rng.uniform(20, 150), np.float32)
    )
    offset = np.asarray(CROP_MARGIN + rng.normal(0, 2.5, 2), np.float32)
    _lines(img, rng, period, offset, ink, int(rng.integers(1, 3)))
    if rng.random() < 0.4:  # heavier lines every few cells, as on engineering paper
        _lines(
            img, rng, period * int(rng.integers(2, 6)), offset, ink * 0.7, int(rng.integers(2, 4))
        )
    return img


def _tiles(rng: np.random.Generator) -> F32:
    """A tiled mat or floor: a tile (plain or mottled) framed by grout."""
    grout = _colour(rng, 20, 230)
    img = np.empty((CROP_SIZE, CROP_SIZE, 3), np.float32)
    img[:] = grout
    period = _INNER * rng.uniform(0.9, 1.25)
    gap = rng.uniform(1.5, 6)
    off = CROP_MARGIN + rng.normal(0, 3, 2)
    tile = _colour(rng)
    for i in range(-2, 3):
        for j in range(-2, 3):
            x0, y0 = off[0] + i * period + gap / 2, off[1] + j * period + gap / 2
            shade = tile * rng.uniform(0.9, 1.1) if rng.random() < 0.5 else tile
            cv2.rectangle(
                img,
                (int(x0), int(y0)),
                (int(x0 + period - gap), int(y0 + period - gap)),
                shade.tolist(),
                -1,
            )
    if rng.random() < 0.5:
        img += (
            rng.normal(0, rng.uniform(2, 10), (CROP_SIZE // 8, CROP_SIZE // 8, 1))
            .astype(np.float32)
            .repeat(8, 0)
            .repeat(8, 1)
        )
    return img


def _marker_image(rng: np.random.Generator, side: int) -> F32:
    """A printed fiducial (ArUco-like): black border, a grid of 4x4 to 6x6 bits, white quiet
    zone."""
    n = int(rng.integers(4, 7))
    grid = np.zeros((n + 4, n + 4), np.float32)
    grid[0, :] = grid[-1, :] = grid[:, 0] = grid[:, -1] = 1  # quiet zone
    grid[2:-2, 2:-2] = rng.integers(0, 2, (n, n))
    return np.asarray(cv2.resize(grid, (side, side), interpolation=cv2.INTER_NEAREST), np.float32)


def _marker(rng: np.random.Generator, part: bool) -> F32:
    dark, light = rng.uniform(5, 70), rng.uniform(180, 250)
    if part:  # the finder took a square inside a bigger marker
        big = _marker_image(rng, int(_INNER * rng.uniform(1.8, 4)))
        x, y = (int(rng.integers(0, max(big.shape[0] - CROP_SIZE, 1))) for _ in range(2))
        m = np.ones((CROP_SIZE, CROP_SIZE), np.float32)
        win = big[y : y + CROP_SIZE, x : x + CROP_SIZE]
        m[: win.shape[0], : win.shape[1]] = win
    else:  # the whole marker, its black square taken for a top face
        n_side = int(_INNER * rng.uniform(1.05, 1.35))
        whole = _marker_image(rng, n_side)
        m = np.ones((CROP_SIZE, CROP_SIZE), np.float32)
        o = (CROP_SIZE - n_side) // 2
        lo, hi = max(o, 0), min(o + n_side, CROP_SIZE)
        m[lo:hi, lo:hi] = whole[lo - o : hi - o, lo - o : hi - o]
    return np.repeat((dark + (light - dark) * m)[..., None], 3, axis=2)


def _text(rng: np.random.Generator) -> F32:
    img = np.ascontiguousarray(
        np.clip(_paper(rng), 0, 255).astype(np.uint8)
    )  # putText draws on 8 bits only
    ink = _colour(rng, 10, 120)
    font = int(
        rng.choice(
            [
                cv2.FONT_HERSHEY_SIMPLEX,
                cv2.FONT_HERSHEY_DUPLEX,
                cv2.FONT_HERSHEY_COMPLEX,
                cv2.FONT_HERSHEY_TRIPLEX,
                cv2.FONT_HERSHEY_PLAIN,
            ]
        )
    )
    scale = rng.uniform(0.35, 1.1)
    y = int(rng.uniform(4, 16))
    while y < CROP_SIZE + 10:
        text = "".join(rng.choice(list(_TEXT + "     "), int(rng.integers(3, 12))))
        cv2.putText(
            img, text, (int(rng.uniform(-20, 8)), y), font, scale, ink.tolist(), 1, cv2.LINE_AA
        )
        y += int(scale * 30 * rng.uniform(0.8, 1.4)) + 2
    return img.astype(np.float32)


def _texture(rng: np.random.Generator) -> F32:
    kind = str(rng.choice(("felt", "wood", "cloth", "paper")))
    return surface(rng, CROP_SIZE, CROP_SIZE, float(_INNER), kind)


def _coin(rng: np.random.Generator) -> F32:
    img = surface(
        rng, CROP_SIZE, CROP_SIZE, float(_INNER), str(rng.choice(("felt", "wood", "paper")))
    )
    metal = np.asarray(
        rng.choice([(60, 140, 200), (170, 170, 175), (50, 100, 160)]), np.float32
    ) * rng.uniform(0.7, 1.2)
    r = int(_INNER / 2 * rng.uniform(0.8, 1.1))
    c = (CROP_SIZE // 2 + int(rng.normal(0, 2)), CROP_SIZE // 2 + int(rng.normal(0, 2)))
    cv2.circle(img, c, r, metal.tolist(), -1, cv2.LINE_AA)
    cv2.circle(img, c, r - 3, (metal * 0.8).tolist(), 1, cv2.LINE_AA)
    if rng.random() < 0.6:  # a face or a number embossed, faint
        cv2.circle(
            img,
            (c[0] + int(rng.normal(0, 4)), c[1]),
            int(r * 0.4),
            (metal * 0.85).tolist(),
            2,
            cv2.LINE_AA,
        )
    return img


def _mat(rng: np.random.Generator) -> F32:
    return surface(rng, CROP_SIZE, CROP_SIZE, float(_INNER) * rng.uniform(0.4, 1.0), "mat")


def non_die_crop(rng: np.random.Generator, kind: str | None = None) -> npt.NDArray[np.uint8]:
    """One 64x64 BGR crop of something that is not a die, lit and imaged like a frame."""
    kind = kind or str(rng.choice(KINDS))
    if kind in ("marker", "marker_part"):
        img = _marker(rng, kind == "marker_part")
    else:
        draw: dict[str, Callable[[np.random.Generator], F32]] = {
            "grid": _grid,
            "tiles": _tiles,
            "texture": _texture,
            "coin": _coin,
            "mat": _mat,
            "text": _text,
        }
        img = draw[kind](rng)
    if rng.random() < 0.5:  # seen at a slant: a slightly wrong quadrilateral warped to the square
        src = np.array([[0, 0], [CROP_SIZE, 0], [CROP_SIZE, CROP_SIZE], [0, CROP_SIZE]], np.float32)
        dst = np.asarray(src + rng.normal(0, 2.5, (4, 2)), np.float32)
        img = np.asarray(
            cv2.warpPerspective(
                img,
                cv2.getPerspectiveTransform(src, dst),
                (CROP_SIZE, CROP_SIZE),
                borderMode=cv2.BORDER_REFLECT,
            ),
            np.float32,
        )
    # light: a gradient, a colour cast, noise, softness
    yy, xx = np.mgrid[0:CROP_SIZE, 0:CROP_SIZE].astype(np.float32) / CROP_SIZE
    a = rng.uniform(0, 2 * math.pi)
    light = 1 + rng.uniform(0, 0.35) * ((xx - 0.5) * math.cos(a) + (yy - 0.5) * math.sin(a))
    img = (
        img
        * light[..., None]
        * rng.uniform(0.55, 1.15)
        * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    )
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    img = img + rng.normal(0, rng.uniform(0.5, 5), img.shape).astype(np.float32)
    return np.asarray(np.clip(img, 0, 255), np.uint8)


def non_die_crops(n: int, seed: int) -> npt.NDArray[np.uint8]:
    """n crops of things that are not dice, kinds mixed evenly, reproducible from seed."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    for i in range(n):
        out[i] = non_die_crop(rng, KINDS[i % len(KINDS)])
    return out
