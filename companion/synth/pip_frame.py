"""Frames of ordinary pip dice on a table, with exact ground truth.

Like `frame.render_frame`, but the camera may look from up to 45 degrees off
vertical (VISION.md "Ordinary dice"), the dice are pip dice of
`pips.PIP_STYLES`, and the light has a direction, so faces, shadows and glare
follow it. Pure function of its seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.camera import Camera, photograph
from companion.synth.dice import square
from companion.synth.frame import _overlaps
from companion.synth.pips import PIP_TRAIN, VALUES, PipStyle, draw_pip_die, random_light
from companion.synth.table import place_clutter, surface
from companion.vision.geometry import mean_edge

F64 = npt.NDArray[np.float64]
MAX_VIEW_DEG = 45.0
# On STEEP_P of the frames the camera looks a little past the contract's 45 degrees, so
# that the steepest views the reader must read (twos and threes with a side face's pips
# in line with their diagonal) lie inside what it learnt, not at its edge.
STEEP_P, STEEP_DEG = 0.25, 52.0
# Development photos showed streaks up to about 0.4 of a die (a hand or camera moving
# while the dice settle); earlier renders drew at most 0.25, on a quarter of the frames.
STREAK_P = 0.4
STREAK_DIE = (0.06, 0.45)


@dataclass(frozen=True)
class PipTruth:
    center: tuple[float, float]  # centre of the top face, image pixels
    corners: F64  # (4, 2) top-face corners, clockwise on screen
    value: int
    style: str
    edge: float  # mean top-face edge, image pixels
    foot: F64 | None = None  # (4, 2) image corners of the die's footprint on the table


@dataclass
class PipFrame:
    image: npt.NDArray[np.uint8]  # BGR
    dice: list[PipTruth] = field(default_factory=list)


def render_pip_frame(
    seed: int,
    *,
    n_dice: int | None = None,
    size: tuple[int, int] = (640, 480),
    styles: Sequence[PipStyle] = PIP_TRAIN,
    tilt_deg: float | None = None,
    edge_range: tuple[float, float] = (30.0, 110.0),
    clutter: bool = True,
    surface_kind: str | None = None,
) -> PipFrame:
    """A random table of 0-12 pip dice (or n_dice, fewer only if they cannot fit)."""
    rng = np.random.default_rng(seed)
    w, h = size
    n = int(rng.integers(0, 13)) if n_dice is None else n_dice
    dist = rng.uniform(1.2, 2.5) * w
    # A die's view off vertical is the camera's tilt plus up to half the field
    # of view: keep it about MAX_VIEW_DEG at most, at the frame's middle.
    half_fov = math.degrees(math.atan(0.5 * math.hypot(w, h) / dist))
    if tilt_deg is not None:
        tilt = tilt_deg
    else:
        pick = rng.random()
        usual = MAX_VIEW_DEG - 0.5 * half_fov
        tilt = (
            0.0
            if pick < 0.1
            else rng.uniform(0.6 * usual, STEEP_DEG - 0.5 * half_fov)
            if pick < 0.1 + STEEP_P
            else rng.uniform(0, usual)
        )
    cam = Camera(w, h, distance=dist, tilt_deg=tilt, tilt_dir=rng.uniform(0, 2 * math.pi))
    cap = math.sqrt(w * h / (5.0 * max(n, 1)))
    base = rng.uniform(edge_range[0], max(min(edge_range[1], cap), edge_range[0]))
    style = styles[int(rng.integers(len(styles)))]
    second = styles[int(rng.integers(len(styles)))] if rng.random() < 0.2 else style
    feet: list[F64] = []
    placed: list[tuple[tuple[float, float], float, float, int, PipStyle]] = []
    tries = 0
    while len(placed) < n and tries < 60 * n + 50:
        tries += 1
        e_img = float(base * rng.uniform(0.94, 1.06))
        ix, iy = (
            rng.uniform(1.2 * e_img, w - 1.2 * e_img),
            rng.uniform(1.2 * e_img, h - 1.2 * e_img),
        )
        c = tuple(float(v) for v in cam.image_to_table([[ix, iy]])[0])
        edge = e_img / cam.local_scale(c[0], c[1], e_img)
        angle = float(rng.uniform(0, 2 * math.pi))
        foot = square((c[0], c[1]), edge * 1.15, angle)  # room for the rounded body and shadow
        if _overlaps(foot, feet):
            continue
        feet.append(foot)
        value = int(rng.choice(VALUES))
        placed.append(((c[0], c[1]), edge, angle, value, style if len(placed) % 2 == 0 else second))
    unit = float(np.mean([p[1] for p in placed])) if placed else base
    corners = cam.image_to_table([[0, 0], [w, 0], [w, h], [0, h]])
    bx0, by0 = (np.floor(corners.min(axis=0)).astype(int) - 8).tolist()
    bx1, by1 = (np.ceil(corners.max(axis=0)).astype(int) + 8).tolist()
    bx0, by0, bx1, by1 = max(bx0, -w), max(by0, -h), min(bx1, 2 * w), min(by1, 2 * h)
    tw, th = bx1 - bx0, by1 - by0
    kind = surface_kind or str(rng.choice(["wood", "wood", "felt", "mat", "cloth", "paper"]))
    table = surface(rng, th, tw, unit, kind)
    if rng.random() < 0.3:
        table = _pale(table, rng)
    off = np.array([bx0, by0], np.float64)
    shadow = np.zeros((th, tw), np.float32)
    if clutter:
        place_clutter(table, shadow, rng, unit, [f - off for f in feet], int(rng.integers(0, 3)))
    light = random_light(rng)
    ld = light.direction
    # A die's shadow falls away from the light, longer when the light is low.
    reach = min(1.0 / math.tan(light.elevation), 2.0)
    for c, edge, angle, _v, _s in placed:
        foot = square(c, edge * 0.95, angle) - off
        cast = foot - np.array([ld[0], ld[1]]) / (math.hypot(ld[0], ld[1]) + 1e-9) * edge * reach
        hull = cv2.convexHull(np.vstack([foot, cast]).astype(np.float32)).reshape(-1, 2)
        cv2.fillPoly(shadow, [np.round(hull * 8).astype(np.int32)], 0.7, cv2.LINE_AA, 3)
    shadow = np.asarray(
        cv2.GaussianBlur(shadow, (0, 0), max(unit * rng.uniform(0.08, 0.25), 1.0)), np.float32
    )
    table *= (1 - (1 - light.ambient) * np.clip(shadow, 0, 1))[..., None]
    img = cam.view_table(table, (bx0, by0), (w, h))
    solids = []
    for c, edge, angle, value, st in placed:
        foot = square(c, edge, angle)
        top = cam.project(np.column_stack([foot, np.full(4, edge)]))
        bottom = cam.project(np.column_stack([foot, np.zeros(4)]))
        solids.append((top, bottom, angle, value, st, cam.project([[c[0], c[1], edge]])[0]))
    solids.sort(key=lambda s: -float(np.linalg.norm(s[0].mean(0) - s[1].mean(0))))
    truths = []
    for top, bottom, angle, value, st, center in solids:
        draw_pip_die(img, top, bottom, value, st, light, angle, rng)
        e = mean_edge(top)
        truths.append(
            PipTruth((float(center[0]), float(center[1])), top, value, st.name, e, bottom)
        )
    if rng.random() < STREAK_P:
        img = _motion_blur(img, rng, unit)
    return PipFrame(photograph(img, rng), truths)


def _pale(table: npt.NDArray[np.float32], rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """The table made pale (light wood, beige, white): white dice on it show little contrast."""
    tint = np.array([rng.uniform(0.72, 0.95), rng.uniform(0.85, 1.0), 1.0], np.float32)
    level = rng.uniform(150, 230)
    mean = table.reshape(-1, 3).mean(axis=0) + 1e-3
    keep = rng.uniform(0.2, 0.6)  # how much of the texture's own contrast stays
    out = level * tint * (1 - keep + keep * table / mean)
    return np.asarray(np.clip(out, 0, 255), np.float32)


def streak_length(rng: np.random.Generator, unit: float) -> int:
    """Pixels of a motion streak on dice of ``unit`` px: odd, at least 3 (photograph's own
    blur is 3-7 px)."""
    return max(3, int(round(unit * rng.uniform(*STREAK_DIE))) | 1)


def _motion_blur(
    img: npt.NDArray[np.float32], rng: np.random.Generator, unit: float
) -> npt.NDArray[np.float32]:
    """A hand-held or moving camera: a streak up to about 0.45 of a die long, its weight
    uneven along it on half of the frames (a move that starts or stops during the exposure)."""
    n = streak_length(rng, unit)
    kernel = np.zeros((n, n), np.float32)
    profile = np.ones(n, np.float32)
    if rng.random() < 0.5:
        ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
        profile = 1.0 - rng.uniform(0.3, 0.8) * (ramp if rng.random() < 0.5 else ramp[::-1])
    kernel[n // 2, :] = profile
    rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
    kernel = np.asarray(cv2.warpAffine(kernel, rot, (n, n)), np.float32)
    return np.asarray(cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6)), np.float32)
