"""Ordinary pip dice (VISION.md "Ordinary dice"): styles, face textures, and a die in 3-D.

A pip die is drawn face by face: the top face and every side face the camera
sees, each a texture (body, pips, rounded corners, bevel, glare) warped onto
the face's projected quadrilateral and shaded by its angle to the light.
Side faces carry their own pips, as on a real die seen obliquely, so a reader
learns to read the top face, not every pip in view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.dice import warp_into

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
BGR = tuple[int, int, int]

VALUES = (1, 2, 3, 4, 5, 6)
TEXTURE = 96  # pixels of a rendered face texture

# Pip centres of each value on a face of half-width 1, before the style's spread.
_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}


def pip_layout(value: int) -> tuple[tuple[float, float], ...]:
    """Pip centres of a face showing ``value`` (half-width 1 coordinates)."""
    if value not in _LAYOUTS:
        raise ValueError(f"a d6 face shows 1 to 6 pips, not {value!r}")
    return _LAYOUTS[value]


def adjacent_values(top: int) -> tuple[int, ...]:
    """The four values around the top face: opposite faces add up to 7."""
    return tuple(v for v in VALUES if v not in (top, 7 - top))


@dataclass(frozen=True)
class PipStyle:
    """One manufactured set of pip dice."""

    name: str
    body: BGR
    pip: BGR
    shape: str = "round"  # "round" or "square"
    translucent: bool = False
    pip_size: float = 0.17  # pip diameter, fraction of the edge
    spread: float = 0.27  # distance of the outer pips from the centre, fraction of the edge
    rounding: float = 0.18  # corner radius, fraction of the edge
    one_pip: float = 1.0  # the single pip of a 1 is often larger
    one_color: BGR | None = None  # ... and sometimes red


def _s(name: str, body: BGR, pip: BGR, **kw: object) -> PipStyle:
    return PipStyle(name, body, pip, **kw)  # type: ignore[arg-type]


# Split by whole set, as the motif styles are: training never sees VALIDATION
# (where the '?' threshold is chosen) nor HELD_OUT (measured only).
PIP_TRAIN = (
    _s("white-black-round", (232, 236, 238), (30, 28, 28)),
    _s(
        "white-black-small",
        (240, 240, 240),
        (20, 20, 20),
        pip_size=0.13,
        spread=0.25,
        rounding=0.24,
    ),
    _s("white-black-big1", (228, 234, 236), (25, 25, 25), one_pip=1.8, rounding=0.22),
    _s("white-red1", (236, 238, 240), (30, 30, 30), one_pip=1.6, one_color=(40, 30, 190)),
    _s("ivory-black", (190, 222, 236), (35, 35, 40), pip_size=0.16, rounding=0.2),
    _s("cream-brown", (170, 210, 228), (30, 50, 80), rounding=0.15),
    _s("white-square", (236, 236, 236), (25, 25, 25), shape="square", pip_size=0.15),
    _s("red-white", (40, 40, 185), (235, 235, 235)),
    _s("blue-white", (150, 80, 30), (240, 240, 240), pip_size=0.15),
    _s("black-white", (32, 30, 30), (235, 235, 235), rounding=0.2),
    _s("green-white-square", (60, 130, 40), (235, 240, 235), shape="square"),
    _s("yellow-black", (40, 200, 230), (30, 30, 30), pip_size=0.15),
    _s("amber-black", (40, 150, 230), (30, 30, 30), translucent=True),
    _s("clear-black", (215, 215, 210), (25, 25, 25), translucent=True, rounding=0.1),
    _s("purple-white", (120, 40, 100), (235, 235, 235), rounding=0.14),
    _s("grey-black-wide", (170, 170, 165), (25, 25, 25), spread=0.31, pip_size=0.14),
    _s(
        "white-black-bigpips",
        (238, 240, 240),
        (30, 30, 30),
        pip_size=0.21,
        spread=0.26,
        rounding=0.3,
    ),
    _s(
        "ivory-black-soft", (200, 228, 238), (35, 30, 30), pip_size=0.19, spread=0.25, rounding=0.32
    ),
)
PIP_VALIDATION = (
    _s("bone-black", (205, 228, 235), (30, 30, 35), pip_size=0.15, spread=0.26, rounding=0.26),
    _s("white-navy", (238, 238, 240), (90, 30, 20), one_pip=1.4),
    _s("orange-black", (30, 110, 230), (30, 30, 30), rounding=0.16),
    _s("teal-white-square", (140, 140, 30), (235, 235, 235), shape="square", pip_size=0.14),
    _s("smoke-white", (120, 115, 110), (240, 240, 240), translucent=True),
    _s("pink-black", (170, 140, 230), (30, 30, 30), pip_size=0.18),
)
PIP_HELD_OUT = (
    _s(
        "white-black-tight",
        (236, 236, 236),
        (28, 28, 28),
        spread=0.22,
        pip_size=0.14,
        rounding=0.28,
    ),
    _s("white-red-square", (234, 236, 238), (40, 30, 180), shape="square"),
    _s("maroon-gold", (40, 30, 120), (60, 170, 215)),
    _s("ruby-white", (50, 30, 170), (235, 235, 235), translucent=True),
)
PIP_STYLES = PIP_TRAIN + PIP_VALIDATION + PIP_HELD_OUT


def pip_style(name: str) -> PipStyle:
    for s in PIP_STYLES:
        if s.name == name:
            return s
    raise KeyError(f"no pip dice style named {name!r}")


def _rounded_alpha(size: int, radius: float) -> tuple[F32, F32]:
    """Alpha of a rounded square face and its bevel weight (1 at the edge, 0 inside)."""
    r = max(radius * size, 1.0)
    c = (size - 1) / 2
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    qx = np.abs(xx - c) - (c - r)
    qy = np.abs(yy - c) - (c - r)
    sdf = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0) - r
    alpha = np.clip(0.5 - sdf, 0, 1).astype(np.float32)
    bevel = np.clip(1 + sdf / (0.12 * size), 0, 1).astype(np.float32)
    return alpha, bevel


def pip_mask(style: PipStyle, value: int, rng: np.random.Generator, size: int = TEXTURE) -> F32:
    """0..1 mask of the pips of a face showing ``value``, at a random quarter turn."""
    mask = np.zeros((size, size), np.float32)
    # Sets differ in pip size and spacing more than any list of styles covers:
    # each die varies around its set's values (larger pips, closer together, too).
    spread = style.spread * rng.uniform(0.85, 1.08)
    d = min(style.pip_size * rng.uniform(0.85, 1.45), 0.9 * spread) * (
        style.one_pip if value == 1 else 1.0
    )
    shift = 8
    f = float(1 << shift)
    for px, py in pip_layout(value):
        cx = (0.5 + px * spread) * size + rng.normal(0, 0.004 * size)
        cy = (0.5 + py * spread) * size + rng.normal(0, 0.004 * size)
        r = d * size / 2
        if style.shape == "square":
            pts = np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]])
            cv2.fillPoly(mask, [np.round(pts * f).astype(np.int32)], 1.0, cv2.LINE_AA, shift)
        else:
            cv2.circle(
                mask, (round(cx * f), round(cy * f)), round(r * f), 1.0, -1, cv2.LINE_AA, shift
            )
    return np.ascontiguousarray(np.rot90(mask, int(rng.integers(4))))


def face_texture(
    style: PipStyle,
    value: int,
    rng: np.random.Generator,
    shade: float,
    light_xy: tuple[float, float],
    glare: float,
) -> tuple[F32, F32]:
    """BGR (0..255 float) and alpha of one face, lit: ``shade`` scales the whole face,
    ``light_xy`` is the light's direction in the face's own axes (for the bevel and the
    pips' hollows), ``glare`` the strength of a specular highlight (0 none)."""
    s = TEXTURE
    alpha, bevel = _rounded_alpha(s, min(style.rounding * rng.uniform(0.85, 1.6), 0.36))
    mask = pip_mask(style, value, rng, s)
    body = np.array(style.body, np.float32) * rng.uniform(0.94, 1.05)
    pip = np.array(style.one_color if (value == 1 and style.one_color) else style.pip, np.float32)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (s, s)).astype(np.float32), (0, 0), 2) * 3
    color = body[None, None, :] + grain[..., None]
    # Pips are hollows: the wall away from the light is lit, the near one in shade.
    lx, ly = light_xy
    dd = s * 0.012
    m = np.asarray(cv2.GaussianBlur(mask, (0, 0), 0.6), np.float32)
    wall = m - cv2.warpAffine(m, np.array([[1, 0, lx * dd], [0, 1, ly * dd]], np.float32), (s, s))
    color = color * (1 - m[..., None]) + pip[None, None, :] * m[..., None]
    color = (
        color * (1 - 0.25 * np.clip(-wall, 0, 1)[..., None]) + 40 * np.clip(wall, 0, 1)[..., None]
    )
    # Rounded edges fall away from the light: darker toward the rim.
    color = color * (1 - 0.22 * bevel[..., None])
    color = color * shade
    if glare > 0:
        gx, gy = rng.uniform(0.15, 0.85, 2) * s
        w = rng.uniform(0.08, 0.35) * s
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * w * w)) * glare
        color = color + spot[..., None] * (1 - 0.3 * m[..., None])
    return np.clip(color, 0, 255).astype(np.float32), alpha


@dataclass(frozen=True)
class Light:
    """A light far away: azimuth and elevation (radians), ambient share, glare strength."""

    azimuth: float
    elevation: float
    ambient: float
    glare: float

    @property
    def direction(self) -> F64:
        a, e = self.azimuth, self.elevation
        return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])

    def shade(self, normal: F64) -> float:
        """Brightness of a face with this outward normal, 1 for a face toward the light."""
        return self.ambient + (1 - self.ambient) * max(0.0, float(np.dot(normal, self.direction)))


def random_light(rng: np.random.Generator) -> Light:
    glare = 0.0 if rng.random() < 0.55 else float(rng.uniform(15, 110))
    return Light(
        rng.uniform(0, 2 * math.pi),
        rng.uniform(math.radians(25), math.radians(85)),
        rng.uniform(0.45, 0.85),
        glare,
    )


def draw_pip_die(
    img: F32,
    top: F64,
    bottom: F64,
    value: int,
    style: PipStyle,
    light: Light,
    angle: float,
    rng: np.random.Generator,
) -> None:
    """Draw a pip die in place: its visible side faces with their pips, then the top face.

    ``top`` and ``bottom`` are the image corners of the top face and of the footprint
    (same order, clockwise on the table); ``angle`` is the die's rotation on the table,
    which turns the light into each face's own axes.
    """
    ring = np.vstack([top, bottom])
    hull = cv2.convexHull(ring.astype(np.float32)).reshape(-1, 2)
    h, w = img.shape[:2]
    x0, y0 = (np.floor(hull.min(axis=0)).astype(int) - 2).tolist()
    x1, y1 = (np.ceil(hull.max(axis=0)).astype(int) + 3).tolist()
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    off = np.array([x0, y0], np.float64)
    roi = img[y0:y1, x0:x1]
    layer = np.zeros_like(roi)
    cover = np.zeros(roi.shape[:2], np.float32)
    body = np.array(style.body, np.float32)
    # The body between the rounded faces: a shaded silhouette, shrunk at its corners.
    center = ring.mean(axis=0)
    sil = (hull - center) * 0.97 + center
    mask = np.zeros(roi.shape[:2], np.float32)
    cv2.fillPoly(mask, [np.round((sil - off) * 8).astype(np.int32)], 1.0, cv2.LINE_AA, 3)
    layer += body * (light.ambient * 0.9) * mask[..., None]
    cover = np.maximum(cover, mask)
    sides = list(adjacent_values(value))
    rng.shuffle(sides)
    ca, sa = math.cos(angle), math.sin(angle)
    foot_c = bottom.mean(axis=0)
    for i in range(4):
        j = (i + 1) % 4
        mid_b = (bottom[i] + bottom[j]) / 2
        mid_t = (top[i] + top[j]) / 2
        n_img = mid_b - foot_c
        n_img = n_img / (np.linalg.norm(n_img) + 1e-9)
        # Seen when it faces the camera: tops lean away from the point under the
        # camera, so a seen side's top edge lies inside its footprint edge.
        if float(np.dot(mid_t - mid_b, n_img)) >= -0.5:
            continue
        # The face's outward normal on the table: corner order is clockwise, so
        # side i faces the direction of the edge i->j turned by -90 degrees.
        ex, ey = _SIDE_NORMALS[i]
        normal = np.array([ex * ca - ey * sa, ex * sa + ey * ca, 0.0])
        tex, alpha = face_texture(style, sides[i], rng, light.shade(normal), (0.0, -1.0), 0.0)
        quad = np.array([top[i], top[j], bottom[j], bottom[i]]) - off
        warp_into(layer, cover, tex, alpha, quad)
    d = light.direction
    local = (d[0] * ca + d[1] * sa, -d[0] * sa + d[1] * ca)
    norm = math.hypot(*local) + 1e-9
    tex, alpha = face_texture(
        style,
        value,
        rng,
        light.shade(np.array([0.0, 0.0, 1.0])),
        (local[0] / norm, local[1] / norm),
        light.glare,
    )
    warp_into(layer, cover, tex, alpha, top - off)
    if style.translucent:
        # Light passes through: the table shows, blurred and tinted, under the body.
        under = np.asarray(cv2.GaussianBlur(roi, (0, 0), 3), np.float32) * (body / 255.0 + 0.25)
        layer = np.asarray(layer * 0.7 + under * 0.3, np.float32)
    img[y0:y1, x0:x1] = roi * (1 - cover[..., None]) + layer * cover[..., None]


# Outward normals (in the die's own table axes) of the side faces under the
# edges top[0]->top[1], top[1]->top[2], ... of a square from `dice.square`.
_SIDE_NORMALS = ((0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0))
