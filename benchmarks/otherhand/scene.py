"""A table with dice on it: the mat, the light, where dice lie, and the camera's own faults."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .art import F64, U8, Arr, Rng
from .dice import (
    Camera,
    Die,
    SetStyle,
    draw_body,
    draw_top,
    make_camera,
    orient,
    rot_z,
    smooth_noise,
)

FAIR = ("I", "I", "1", "2", "3", "E")  # a fair roll: IÄÄ! on two faces (RULES.md C2)
TABLES = ("felt", "wood", "cloth", "paper", "dark", "printed")


# ---------------------------------------------------------------- the table
def _table_texture(rng: Rng, h: int, w: int, ppm: float) -> tuple[Arr, str]:
    """A table texture in world-aligned pixels (ppm pixels per millimetre)."""
    kind = str(rng.choice(TABLES))
    hue = rng.random()

    def hsv(hh: float, s: float, v: float) -> Arr:
        px = np.array([[[round(hh * 179) % 180, round(s * 255), round(v * 255)]]], np.uint8)
        return np.asarray(cv2.cvtColor(px, cv2.COLOR_HSV2RGB)[0, 0] / 255.0, np.float32)

    def low(cells_per_m: float) -> Arr:
        cells = max(2, int(max(h, w) / ppm / 1000 * cells_per_m))
        return smooth_noise(rng, h, w, min(cells, 60))

    if kind == "felt":
        base = hsv(hue, rng.uniform(0.3, 0.9), rng.uniform(0.25, 0.7))
        img = (
            base * (1 + 0.06 * low(20) + rng.normal(0, 0.05, (h, w)).astype(np.float32))[..., None]
        )
        img = cv2.GaussianBlur(img, (0, 0), 0.8)
    elif kind == "wood":
        base = hsv(rng.uniform(0.04, 0.1), rng.uniform(0.4, 0.8), rng.uniform(0.3, 0.75))
        yy = np.arange(h, dtype=np.float32)[:, None] / ppm
        xx = np.arange(w, dtype=np.float32)[None, :] / ppm
        ang = rng.uniform(0, math.pi)
        along = xx * math.cos(ang) + yy * math.sin(ang)
        across = -xx * math.sin(ang) + yy * math.cos(ang)
        pw = rng.uniform(80, 160)  # plank width, mm
        plank = np.floor(across / pw)
        grain = np.sin(across * rng.uniform(1.0, 2.5) + 3 * low(8) + plank * 1.7 + 0.002 * along)
        tone = 1 + 0.12 * grain + 0.08 * np.sin(plank * 12.9898) + 0.04 * low(30)
        img = base * tone[..., None]
        img[(across % pw) < 0.6] *= 0.55
    elif kind == "cloth":
        base = hsv(hue, rng.uniform(0.2, 0.7), rng.uniform(0.4, 0.9))
        p = rng.uniform(0.8, 1.6) * ppm
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        weave = np.sin(xx * 2 * math.pi / p) * np.sin(yy * 2 * math.pi / p)
        img = base * (1 + 0.06 * weave + 0.05 * low(15))[..., None]
        if rng.random() < 0.4:  # gingham stripes
            q = rng.uniform(8, 20) * ppm
            band = ((xx // q) % 2 + (yy // q) % 2)[..., None]
            img = img * (1 - 0.18 * band)
    elif kind == "paper":
        base = hsv(rng.uniform(0.08, 0.15), rng.uniform(0.0, 0.15), rng.uniform(0.82, 0.97))
        img = (
            base * (1 + 0.03 * low(25) + rng.normal(0, 0.02, (h, w)).astype(np.float32))[..., None]
        )
        if rng.random() < 0.4:  # ruled lines
            yy = np.arange(h)[:, None] / ppm
            line = (np.abs(yy % 8.0 - 4.0) < 0.12).astype(np.float32)
            img = img * (1 - 0.25 * line[..., None] * np.array([1, 0.6, 0.2], np.float32))
    elif kind == "dark":
        base = hsv(hue, rng.uniform(0.0, 0.5), rng.uniform(0.05, 0.18))
        img = (
            base * (1 + 0.15 * low(20) + rng.normal(0, 0.08, (h, w)).astype(np.float32))[..., None]
        )
    else:
        img = _printed_mat(rng, h, w, ppm, hsv(hue, rng.uniform(0.2, 0.8), rng.uniform(0.3, 0.9)))
    return np.clip(img, 0, 1).astype(np.float32), kind


def _printed_mat(rng: Rng, h: int, w: int, ppm: float, base: Arr) -> Arr:
    img = np.ones((h, w, 3), np.float32) * base
    ink = tuple(
        float(v) for v in (base * 0.35 if base.mean() > 0.45 else np.minimum(base * 2 + 0.3, 1))
    )
    th = max(1, round(0.6 * ppm))
    grid = rng.uniform(18, 40) * ppm
    if rng.random() < 0.7:
        for x in np.arange(rng.uniform(0, grid), w, grid):
            cv2.line(img, (round(x), 0), (round(x), h), ink, th)
        for y in np.arange(rng.uniform(0, grid), h, grid):
            cv2.line(img, (0, round(y)), (w, round(y)), ink, th)
    for _ in range(int(rng.integers(5, 25))):  # markers: rings, crosses, squares with codes
        c = (int(rng.integers(w)), int(rng.integers(h)))
        r = int(rng.uniform(4, 25) * ppm)
        kind = int(rng.integers(4))
        if kind == 0:
            cv2.circle(img, c, r, ink, th * 2)
        elif kind == 1:
            cv2.line(img, (c[0] - r, c[1]), (c[0] + r, c[1]), ink, th * 2)
            cv2.line(img, (c[0], c[1] - r), (c[0], c[1] + r), ink, th * 2)
        elif kind == 2:
            cv2.rectangle(img, (c[0] - r, c[1] - r), (c[0] + r, c[1] + r), ink, -1)
            cell = max(1, r // 3)
            for i in range(3):
                for j in range(3):
                    if rng.random() < 0.5:
                        p = (c[0] - r + cell // 2 + i * cell, c[1] - r + cell // 2 + j * cell)
                        cv2.rectangle(
                            img,
                            p,
                            (p[0] + cell - 1, p[1] + cell - 1),
                            tuple(float(v) for v in base),
                            -1,
                        )
        else:
            cv2.ellipse(img, c, (r * 3, r * 2), float(rng.uniform(0, 180)), 0, 360, ink, th)
    return img


def make_table(rng: Rng, cam: Camera) -> tuple[Arr, str]:
    """The table seen by the camera, with the texture laid on the plane z = 0 in perspective."""
    corners = np.array([[0, 0], [cam.w, 0], [cam.w, cam.h], [0, cam.h]], np.float64)
    ground = cam.to_plane(corners, 0.0)[:, :2]
    lo, hi = ground.min(0) - 5, ground.max(0) + 5
    ppm = cam.K[0, 0] / abs(cam.C[2])
    ppm = min(ppm, 2400 / max(hi - lo))
    tw, th = int((hi - lo)[0] * ppm) + 2, int((hi - lo)[1] * ppm) + 2
    tex, kind = _table_texture(rng, th, tw, ppm)
    A = np.array([[1 / ppm, 0, lo[0]], [0, 1 / ppm, lo[1]], [0, 0, 1]])
    P = cam.K @ np.column_stack([cam.R[:, 0], cam.R[:, 1], -cam.R @ cam.C])
    H = P @ A
    img = cv2.warpPerspective(
        tex, H, (cam.w, cam.h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    return np.asarray(img, np.float32), kind


# ---------------------------------------------------------------- where dice lie
def _overlaps(a: F64, b: F64) -> bool:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return bool(area > 0.3)


@dataclass
class Placed:
    die: Die
    quad: F64
    centre: F64
    edge: float


def measure(cam: Camera, die: Die, s: float) -> Placed:
    i = die.top_index()
    c4 = die.face_corners(i, s)[0]
    quad = cam.project(c4)
    centre = cam.project(c4.mean(0, keepdims=True))[0]
    edge = float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, 0), axis=1)))
    return Placed(die, quad, centre, edge)


def place_dice(
    rng: Rng, cam: Camera, style: SetStyle, motifs: list[str], allow_partial: bool
) -> list[Placed]:
    """Lay dice on the table: no stacking, some touching, top faces 40-160 px."""
    s = style.size_mm
    out: list[Placed] = []
    partial_left = 1 if allow_partial and rng.random() < 0.35 else 0
    for motif in motifs:
        for _ in range(300):
            rot = orient(rng, style, motif)
            seed = int(rng.integers(2**31))
            if out and rng.random() < 0.3:  # touching a die already there
                nb = out[int(rng.integers(len(out)))].die
                a = nb.yaw + int(rng.integers(4)) * math.pi / 2 + rng.normal(0, 0.05)
                dist = (
                    s
                    + rng.uniform(0.0, 0.5)
                    + (rng.uniform(0, 0.3) * s if rng.random() < 0.3 else 0)
                )
                yaw = nb.yaw + (
                    rng.normal(0, 0.06) if rng.random() < 0.7 else rng.uniform(0, math.pi / 2)
                )
                X, Y = nb.X + dist * math.cos(a), nb.Y + dist * math.sin(a)
            else:
                margin = 0.0 if partial_left else 0.08
                uv = rng.uniform(margin, 1 - margin, 2) * [cam.w, cam.h]
                X, Y = cam.to_plane(uv[None, :], s)[0, :2]
                yaw = rng.uniform(0, 2 * math.pi)
            die = Die(float(X), float(Y), float(yaw), rot, motif, seed)
            p = measure(cam, die, s)
            if not 40 <= p.edge <= 160:
                continue
            inside = np.all((p.quad >= 1) & (p.quad <= [cam.w - 2, cam.h - 2]))
            if not inside:
                # partly outside: allowed once, only with most of the top face in view
                lo = min(p.centre[0], p.centre[1], cam.w - 1 - p.centre[0], cam.h - 1 - p.centre[1])
                if not (partial_left and lo >= 0.25 * p.edge):
                    continue
                partial_left = 0
            fp = die.footprint(s)
            if any(_overlaps(fp, q.die.footprint(s)) for q in out):
                continue
            out.append(p)
            break
    return out


# ---------------------------------------------------------------- light and shadow
def make_light(rng: Rng) -> F64:
    el = math.radians(rng.uniform(35, 80))
    az = rng.uniform(0, 2 * math.pi)
    return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


def draw_shadows(
    frame: Arr, cam: Camera, placed: list[Placed], s: float, light: F64, rng: Rng
) -> None:
    if not placed:
        return
    soft = np.zeros(frame.shape[:2], np.float32)
    contact = np.zeros(frame.shape[:2], np.float32)
    for p in placed:
        d = p.die
        cube = (
            np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (0, 2)], np.float64)
            * s
            / 2
        )
        world = cube @ rot_z(d.yaw).T + [d.X, d.Y, 0]
        world = np.column_stack(
            [world[:, :2] - light[:2] * (world[:, 2:3] / light[2]), np.zeros(len(world))]
        )
        img = cam.project(world).astype(np.float32)
        cv2.fillConvexPoly(soft, cv2.convexHull(img).astype(np.int32), 1.0, cv2.LINE_AA)
        fp = np.column_stack([d.footprint(s * 1.06), np.zeros(4)])
        cv2.fillConvexPoly(contact, cam.project(fp).astype(np.int32), 1.0, cv2.LINE_AA)
    edge = float(np.mean([p.edge for p in placed]))
    soft = np.asarray(cv2.GaussianBlur(soft, (0, 0), 0.12 * edge + 1), np.float32)
    contact = np.asarray(cv2.GaussianBlur(contact, (0, 0), 0.05 * edge + 0.8), np.float32)
    k = rng.uniform(0.25, 0.55)
    frame *= (1 - np.clip(k * soft + 0.35 * contact, 0, 0.85))[..., None]


# ---------------------------------------------------------------- the camera's faults
def camera_effects(rng: Rng, img: Arr, strength: float = 1.0) -> U8:
    """Uneven light, colour cast, motion blur and sensor noise; returns 8-bit BGR."""
    h, w = img.shape[:2]
    light = 1 + strength * rng.uniform(0.05, 0.25) * smooth_noise(rng, h, w, 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w * w / 4 + h * h / 4)
    light *= 1 - strength * rng.uniform(0, 0.3) * r2
    cast = rng.uniform(0.85, 1.15) * rng.uniform(0.88, 1.12, 3)  # exposure and colour cast
    img = np.asarray(img * light[..., None] * cast.astype(np.float32), np.float32)
    if rng.random() < 0.25 * strength:
        n = int(rng.integers(3, 7))
        k = np.zeros((n, n), np.float32)
        a = rng.uniform(0, math.pi)
        c = (n - 1) / 2
        cv2.line(
            k,
            (round(c - c * math.cos(a)), round(c - c * math.sin(a))),
            (round(c + c * math.cos(a)), round(c + c * math.sin(a))),
            1.0,
            1,
        )
        img = np.asarray(cv2.filter2D(img, -1, k / k.sum()), np.float32)
    elif rng.random() < 0.3 * strength:
        img = np.asarray(
            cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 0.9) * strength), np.float32
        )
    img = img + rng.normal(0, rng.uniform(0.004, 0.025) * strength, img.shape).astype(np.float32)
    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    return np.asarray(cv2.cvtColor(out, cv2.COLOR_RGB2BGR), np.uint8)


# ---------------------------------------------------------------- a whole frame
def render(
    rng: Rng,
    style: SetStyle,
    motifs: list[str],
    size: tuple[int, int],
    edge_px: float,
    allow_partial: bool,
) -> tuple[U8, list[Placed], dict[str, Any]]:
    w, h = size
    s = style.size_mm
    cam = make_camera(rng, w, h, edge_px, s)
    frame, table = make_table(rng, cam)
    placed = place_dice(rng, cam, style, motifs, allow_partial)
    light = make_light(rng)
    draw_shadows(frame, cam, placed, s, light, rng)
    order = sorted(
        placed, key=lambda p: -float(cam.depth(np.array([[p.die.X, p.die.Y, s / 2]]))[0])
    )
    for p in order:  # sides first, far to near, then every top (tops never hide each other)
        draw_body(frame, cam, p.die, style, light)
    for p in order:
        draw_top(frame, cam, p.die, style, light)
    img = camera_effects(rng, frame)
    tilt = math.degrees(math.acos(min(1.0, abs(float(cam.R[2, 2])))))
    meta: dict[str, Any] = {
        "table": table,
        "tilt": round(tilt, 1),
        "focal": round(float(cam.K[0, 0]), 1),
    }
    return img, placed, meta


def render_crop(rng: Rng, style: SetStyle, motif: str) -> U8:
    """A 96x96 close-up: one die centred, edge about 48-65 px, perhaps touching neighbours."""
    s = style.size_mm
    for _ in range(50):
        cam = make_camera(rng, 96, 96, rng.uniform(50, 63), s)
        die = Die(
            0.0,
            0.0,
            float(rng.uniform(0, 2 * math.pi)),
            orient(rng, style, motif),
            motif,
            int(rng.integers(2**31)),
        )
        p = measure(cam, die, s)
        if 48 <= p.edge <= 65:
            break
    placed = [p]
    for _ in range(int(rng.integers(1, 3)) if rng.random() < 0.35 else 0):
        a = die.yaw + int(rng.integers(4)) * math.pi / 2
        d = s + rng.uniform(0, 0.5)
        m = str(rng.choice(FAIR))
        yaw = die.yaw + float(rng.normal(0, 0.08))
        nb = Die(
            d * math.cos(a),
            d * math.sin(a),
            yaw,
            orient(rng, style, m),
            m,
            int(rng.integers(2**31)),
        )
        if not any(_overlaps(nb.footprint(s), q.die.footprint(s)) for q in placed):
            placed.append(measure(cam, nb, s))
    frame, _ = make_table(rng, cam)
    light = make_light(rng)
    draw_shadows(frame, cam, placed, s, light, rng)
    for q in placed:
        draw_body(frame, cam, q.die, style, light)
    for q in placed:
        draw_top(frame, cam, q.die, style, light)
    img = camera_effects(rng, frame, 0.5)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 96))])
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8) if ok else img
