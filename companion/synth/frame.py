"""Whole top-down frames of dice on a table, with exact ground truth.

`render_frame` draws a random table for training, tests and benchmarks;
`render_placed` draws given faces at given places (the simulated camera of
the demo). Both are pure functions of their seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.camera import Camera, photograph
from companion.synth.dice import draw_die, face_texture, square
from companion.synth.styles import TRAIN, Style
from companion.synth.table import place_clutter, place_hard_clutter, surface
from companion.vision.geometry import mean_edge

FACES = ("I", "1", "2", "3", "E")
_FACE_P = (1 / 3, 1 / 6, 1 / 6, 1 / 6, 1 / 6)  # a fair roll (RULES.md C2)
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class DieTruth:
    """Ground truth of one die, in image pixels."""

    center: tuple[float, float]  # centre of the top face
    corners: F64  # (4, 2) top-face corners, clockwise on screen
    face: str
    style: str
    edge: float  # mean top-face edge length


@dataclass(frozen=True)
class DiePlacement:
    """Where to put a die, in table pixels (image pixels when not tilted)."""

    face: str
    center: tuple[float, float]
    edge: float = 80.0
    angle_deg: float = 0.0
    style: Style | None = None  # None: the frame's style


@dataclass
class RenderedFrame:
    image: npt.NDArray[np.uint8]  # BGR
    dice: list[DieTruth] = field(default_factory=list)


def _overlaps(poly: F64, others: list[F64]) -> bool:
    c = poly.mean(axis=0)
    r = float(np.linalg.norm(poly[0] - c))
    p32 = poly.astype(np.float32)
    for o in others:
        oc = o.mean(axis=0)
        if np.linalg.norm(oc - c) > r + float(np.linalg.norm(o[0] - oc)):
            continue
        area, _ = cv2.intersectConvexConvex(p32, o.astype(np.float32))
        if area > 0.5:
            return True
    return False


def _compose(
    rng: np.random.Generator,
    cam: Camera,
    dice: Sequence[DiePlacement],
    style: Style,
    clutter: int,
    surface_kind: str | None,
    hard: tuple[np.random.Generator, int] | None = None,
    sides: np.random.Generator | None = None,
) -> RenderedFrame:
    w, h = cam.width, cam.height
    unit = float(np.mean([d.edge for d in dice])) if dice else rng.uniform(40, 160)
    # The table region the camera sees, with a little room around it.
    corners = cam.image_to_table([[0, 0], [w, 0], [w, h], [0, h]])
    bx0, by0 = np.floor(corners.min(axis=0)).astype(int) - 8
    bx1, by1 = np.ceil(corners.max(axis=0)).astype(int) + 8
    bx0, by0 = max(bx0, -w), max(by0, -h)
    bx1, by1 = min(bx1, 2 * w), min(by1, 2 * h)
    tw, th = int(bx1 - bx0), int(by1 - by0)
    table = surface(rng, th, tw, unit, surface_kind)
    shadow = np.zeros((th, tw), np.float32)
    off = np.array([bx0, by0], np.float64)
    feet = [square(d.center, d.edge, math.radians(d.angle_deg)) for d in dice]
    place_clutter(table, shadow, rng, unit, [f - off for f in feet], clutter)
    if hard is not None:  # its own generator: frames without it keep their pixels
        place_hard_clutter(table, shadow, hard[0], unit, [f - off for f in feet], hard[1])
    la = rng.uniform(0, 2 * math.pi)
    light = (math.cos(la), math.sin(la))
    for d, foot in zip(dice, feet, strict=True):
        cast = foot - off - np.array(light) * d.edge * rng.uniform(0.15, 0.4)
        cv2.fillPoly(shadow, [np.round(cast * 8).astype(np.int32)], 0.8, cv2.LINE_AA, 3)
        cv2.fillPoly(shadow, [np.round((foot - off) * 8).astype(np.int32)], 1.0, cv2.LINE_AA, 3)
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), max(unit * 0.12, 1.0)), np.float32)
    table *= (1 - 0.55 * np.clip(shadow, 0, 1))[..., None]
    img = cam.view_table(table, (bx0, by0), (w, h))
    solids = []
    for d, foot in zip(dice, feet, strict=True):
        height = d.edge * 0.98
        top = cam.project(np.column_stack([foot, np.full(4, height)]))
        bottom = cam.project(np.column_stack([foot, np.zeros(4)]))
        solids.append((d, top, bottom))
    # Painter's order: dice that lean most in the image are farther from the
    # point under the camera, so they are drawn first.
    solids.sort(key=lambda s: -float(np.linalg.norm(s[1].mean(0) - s[2].mean(0))))
    truths = []
    for d, top, bottom in solids:
        st = d.style or style
        a = math.radians(d.angle_deg)
        # The light direction as seen from the die's own face texture.
        local_light = (
            light[0] * math.cos(a) + light[1] * math.sin(a),
            -light[0] * math.sin(a) + light[1] * math.cos(a),
        )
        tex = face_texture(st, d.face, rng, local_light)
        side_tex = None
        if sides is not None:  # its own generator: the rest of the frame keeps its pixels
            # a real die's other faces: any motif but the top's opposite is in view, so draw
            # each side from all five motifs
            side_tex = [
                face_texture(st, FACES[int(sides.integers(len(FACES)))], sides, local_light)
                for _ in range(4)
            ]
        draw_die(img, top, bottom, tex, st, light, side_tex)
        edge = mean_edge(top)
        center = cam.project([[d.center[0], d.center[1], d.edge * 0.98]])[0]
        truths.append(DieTruth((float(center[0]), float(center[1])), top, d.face, st.name, edge))
    return RenderedFrame(photograph(img, rng), truths)


def _camera(
    rng: np.random.Generator,
    size: tuple[int, int],
    tilt_deg: float | None,
    lens: tuple[float, float] = (1.0, 1.8),
) -> Camera:
    w, h = size
    tilt = (
        tilt_deg if tilt_deg is not None else (0.0 if rng.random() < 0.25 else rng.uniform(0, 25))
    )
    return Camera(
        w,
        h,
        distance=rng.uniform(*lens) * w,
        tilt_deg=tilt,
        tilt_dir=rng.uniform(0, 2 * math.pi),
    )


def render_frame(
    seed: int,
    *,
    n_dice: int | None = None,
    size: tuple[int, int] = (1280, 960),
    styles: Sequence[Style] = TRAIN,
    tilt_deg: float | None = None,
    edge_range: tuple[float, float] = (40.0, 160.0),
    clutter: bool = True,
    faces: Sequence[str] | None = None,
    hard_clutter: bool = False,
    surface_kind: str | None = None,
    side_art: bool = False,
    lens: tuple[float, float] = (1.0, 1.8),
) -> RenderedFrame:
    """A random table: 0-40 dice (or n_dice, fewer only if they cannot fit).

    Dice may touch but never overlap; one set (style) per frame, sometimes
    two. `faces`, when given, is cycled to choose the dice's faces.
    `hard_clutter` adds 1-4 die-like distractors (keyboard keys, plugs,
    coins, ...) drawn from a second generator of the same seed.
    `surface_kind` chooses the table (table.SURFACES, or "squares": printed
    grids, tiles, markers and score sheets under the dice); random if None.
    `side_art` paints the dice's visible sides with motifs, as a real die's sides are,
    from a third generator of the same seed (the frame is otherwise the same).
    `lens` is the range of the focal length in image widths (the Pi's camera module 2:
    about 0.83; a shorter focal length shows more of the dice's sides far from the centre).
    """
    rng = np.random.default_rng(seed)
    w, h = size
    n = int(rng.integers(0, 41)) if n_dice is None else n_dice
    cam = _camera(rng, size, tilt_deg, lens)
    # Cap the size so that n dice fit with room to spare.
    cap = math.sqrt(w * h / (4.0 * max(n, 1)))
    hi = max(min(edge_range[1], cap), edge_range[0])
    base = rng.uniform(edge_range[0], hi)
    main = styles[int(rng.integers(len(styles)))]
    second = styles[int(rng.integers(len(styles)))] if rng.random() < 0.15 else main
    placed: list[DiePlacement] = []
    feet: list[F64] = []
    tries = 0
    while len(placed) < n and tries < 60 * n + 50:
        tries += 1
        e_img = float(np.clip(base * rng.uniform(0.94, 1.06), edge_range[0], edge_range[1]))
        if placed and rng.random() < 0.35:
            anchor = placed[int(rng.integers(len(placed)))]
            a = math.radians(anchor.angle_deg)
            side = int(rng.integers(4)) * math.pi / 2 + a
            gap = (anchor.edge + e_img) / 2 + rng.uniform(0.5, 0.04 * e_img)
            slide = rng.uniform(-0.4, 0.4) * e_img
            c = (
                anchor.center[0] + gap * math.cos(side) - slide * math.sin(side),
                anchor.center[1] + gap * math.sin(side) + slide * math.cos(side),
            )
            angle = anchor.angle_deg + rng.normal(0, 3)
            ix, iy = cam.project([[c[0], c[1], 0.0]])[0]
            if not (e_img < ix < w - e_img and e_img < iy < h - e_img):
                continue
        else:
            ix, iy = rng.uniform(e_img, w - e_img), rng.uniform(e_img, h - e_img)
            c = tuple(cam.image_to_table([[ix, iy]])[0])
            angle = rng.uniform(0, 360)
        scale = cam.local_scale(c[0], c[1], e_img)
        edge = e_img / scale
        foot = square(c, edge, math.radians(angle))
        if _overlaps(foot, feet):
            continue
        if faces is not None:
            face = faces[len(placed) % len(faces)]
        else:
            face = FACES[int(rng.choice(len(FACES), p=_FACE_P))]
        placed.append(
            DiePlacement(
                face,
                (float(c[0]), float(c[1])),
                edge,
                angle,
                main if len(placed) % 2 == 0 else second,
            )
        )
        feet.append(foot)
    n_clutter = int(rng.integers(0, 6)) if clutter else 0
    hard = None
    if hard_clutter:
        hrng = np.random.default_rng([seed, 1])
        hard = (hrng, int(hrng.integers(1, 5)))
    sides = np.random.default_rng([seed, 2]) if side_art else None
    return _compose(rng, cam, placed, main, n_clutter, surface_kind, hard, sides)


def render_placed(
    seed: int,
    placements: Sequence[DiePlacement],
    *,
    style: Style,
    size: tuple[int, int] = (1280, 960),
    tilt_deg: float = 0.0,
    clutter: int = 0,
    surface_kind: str | None = "mat",
) -> RenderedFrame:
    """Draw the given dice where they are placed (the demo's simulated table).

    Placements are in table pixels, which are image pixels when tilt_deg is 0.
    The caller keeps dice from overlapping.
    """
    for p in placements:
        if p.face not in FACES:
            raise ValueError(f"unknown face {p.face!r}; expected one of {', '.join(FACES)}")
    rng = np.random.default_rng(seed)
    cam = Camera(
        size[0],
        size[1],
        distance=1.4 * size[0],
        tilt_deg=tilt_deg,
        tilt_dir=rng.uniform(0, 2 * math.pi),
    )
    return _compose(rng, cam, placements, style, clutter, surface_kind)
