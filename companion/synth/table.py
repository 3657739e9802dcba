"""Table surfaces and the clutter that lies on them, in table coordinates."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

SURFACES = ("felt", "wood", "mat", "cloth", "paper")
# Printed squares that are no dice (companion.synth.squares): opt-in, surface(kind="squares").
SQUARE_SURFACE = "squares"
CLUTTER = ("cable", "card", "pencil", "nugget")
# Things on real tables that fooled the die finder on real photos: keyboard
# keys, a plug's printed body, a cable's ferrite bead, coins, small blocks, a
# score sheet with boxes and writing. Opt-in (render_frame(hard_clutter=...)).
HARD_CLUTTER = ("keys", "plug", "bead", "coin", "block", "sheet")


def _color(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    hsv = np.array(
        [[[rng.integers(0, 180), rng.integers(0, 200), rng.integers(40, 235)]]], np.uint8
    )
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float32)


def _noise(rng: np.random.Generator, h: int, w: int, sigma: float) -> F32:
    small = rng.normal(0, 1, (max(h // 8, 2), max(w // 8, 2))).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.asarray(cv2.GaussianBlur(big, (0, 0), sigma), np.float32)


def _marker(rng: np.random.Generator, size: int) -> F32:
    """A square fiducial like a printed ArUco marker: black border, bit grid."""
    bits = rng.integers(0, 2, (4, 4)).astype(np.float32)
    grid = np.zeros((6, 6), np.float32)
    grid[1:5, 1:5] = bits
    return np.asarray(cv2.resize(grid, (size, size), interpolation=cv2.INTER_NEAREST), np.float32)


def surface(rng: np.random.Generator, h: int, w: int, unit: float, kind: str | None = None) -> F32:
    """A table texture, BGR float 0..255; `unit` is a typical die edge."""
    if kind == SQUARE_SURFACE:
        return _squares(rng, h, w, unit)
    kind = kind or str(rng.choice(SURFACES))
    base = _color(rng)
    img = np.ones((h, w, 3), np.float32) * base
    if kind == "felt":
        img += (_noise(rng, h, w, 6) * 8)[..., None] + rng.normal(0, 4, (h, w, 1)).astype(
            np.float32
        )
    elif kind == "wood":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, math.pi)
        t = xx * math.cos(a) + yy * math.sin(a)
        warp = _noise(rng, h, w, 20) * 40
        grain = np.sin((t + warp) / rng.uniform(3, 9)) * 0.5 + 0.5
        img = img * (0.8 + 0.25 * grain[..., None])
    elif kind == "cloth":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        period = rng.uniform(0.6, 2.5) * unit
        check = ((xx // period + yy // period) % 2).astype(np.float32)
        img = img * (1 - 0.15 * check[..., None]) + rng.normal(0, 3, (h, w, 1)).astype(np.float32)
    elif kind == "paper":
        img = (
            np.ones((h, w, 3), np.float32) * rng.uniform(200, 245)
            + (_noise(rng, h, w, 3) * 4)[..., None]
        )
    else:  # printed play mat: zones, lines and markers
        img += (_noise(rng, h, w, 10) * 5)[..., None]
        ink = tuple(float(v) for v in _color(rng) * 0.5)
        lw = max(int(unit * rng.uniform(0.03, 0.12)), 1)
        for _ in range(int(rng.integers(2, 8))):
            x0, y0 = int(rng.uniform(0, w)), int(rng.uniform(0, h))
            x1, y1 = x0 + int(rng.uniform(2, 8) * unit), y0 + int(rng.uniform(2, 6) * unit)
            if rng.random() < 0.5:
                cv2.rectangle(img, (x0, y0), (x1, y1), ink, lw, cv2.LINE_AA)
            else:
                cv2.circle(img, (x0, y0), int(rng.uniform(1, 4) * unit), ink, lw, cv2.LINE_AA)
        for _ in range(int(rng.integers(0, 6))):
            p0 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            p1 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            cv2.line(img, p0, p1, ink, lw, cv2.LINE_AA)
        for _ in range(int(rng.integers(0, 5))):
            ms = int(unit * rng.uniform(0.6, 1.4))
            x, y = int(rng.uniform(0, max(w - ms, 1))), int(rng.uniform(0, max(h - ms, 1)))
            m = _marker(rng, ms)
            sub = img[y : y + ms, x : x + ms]
            mm = m[: sub.shape[0], : sub.shape[1], None]
            img[y : y + ms, x : x + ms] = 20 * (1 - mm) + 235 * mm
    return img


def _squares(rng: np.random.Generator, h: int, w: int, unit: float) -> F32:
    """A table under printed squares: grid paper, tiles, markers, a score sheet (squares.sheet).

    The squares are 0.6-2 die edges: the sizes that a finder can take for dice.
    """
    from companion.synth.squares import sheet

    under = surface(rng, h, w, unit, str(rng.choice(SURFACES)))
    side = int(math.ceil(math.hypot(h, w)))
    flat, cover = sheet(rng, side, unit * float(rng.uniform(0.6, 2.0)))
    # the sheet lies at any angle to the camera
    turn = np.asarray(
        cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.uniform(0, 360)), 1.0), np.float64
    )
    turn[:, 2] -= np.array([(side - w) / 2, (side - h) / 2])
    flat_t = np.asarray(
        cv2.warpAffine(flat, turn, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
        np.float32,
    )
    cover_t = np.asarray(
        cv2.warpAffine(cover, turn, (w, h), flags=cv2.INTER_LINEAR, borderValue=0.0), np.float32
    )[..., None]
    return np.asarray(under * (1 - cover_t) + flat_t * cover_t, np.float32)


def _bezier(rng: np.random.Generator, h: int, w: int) -> F64:
    ctrl = np.column_stack([rng.uniform(-0.2, 1.2, 4) * w, rng.uniform(-0.2, 1.2, 4) * h])
    t = np.linspace(0, 1, 80)[:, None]
    return np.asarray(
        ((1 - t) ** 3) * ctrl[0]
        + 3 * ((1 - t) ** 2) * t * ctrl[1]
        + 3 * (1 - t) * t * t * ctrl[2]
        + (t**3) * ctrl[3],
        np.float64,
    )


def _poly(img: F32, pts: F64, color: tuple[float, ...]) -> None:
    cv2.fillPoly(img, [np.round(pts * 8).astype(np.int32)], color, cv2.LINE_AA, 3)


def _rect(center: F64, length: float, width: float, angle: float) -> F64:
    c, s = math.cos(angle), math.sin(angle)
    local = np.array(
        [
            [-length / 2, -width / 2],
            [length / 2, -width / 2],
            [length / 2, width / 2],
            [-length / 2, width / 2],
        ]
    )
    return np.asarray(local @ np.array([[c, s], [-s, c]]) + center, np.float64)


def _free_spot(
    rng: np.random.Generator, w: int, h: int, clearance: float, keep_out: list[F64], tries: int
) -> F64 | None:
    """A random point at least `clearance` from every footprint's centre, or None after `tries`."""
    for _try in range(tries):
        c = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        if all(np.linalg.norm(fp.mean(axis=0) - c) > clearance for fp in keep_out):
            return c
    return None


def place_clutter(
    img: F32, shadow: F32, rng: np.random.Generator, unit: float, keep_out: list[F64], count: int
) -> None:
    """Draw `count` distractors, avoiding the footprints in `keep_out` (cables excepted)."""
    h, w = img.shape[:2]
    for _ in range(count):
        kind = str(rng.choice(CLUTTER, p=[0.25, 0.2, 0.15, 0.4]))
        if kind == "cable":
            pts = _bezier(rng, h, w)
            thick = max(int(unit * rng.uniform(0.12, 0.35)), 2)
            shade = (25.0, 25.0, 28.0) if rng.random() < 0.7 else (225.0, 225.0, 225.0)
            poly = np.round(pts * 8).astype(np.int32)
            cv2.polylines(shadow, [poly + 8 * int(thick * 0.6)], False, 0.5, thick, cv2.LINE_AA, 3)
            cv2.polylines(img, [poly], False, shade, thick, cv2.LINE_AA, 3)
            cv2.polylines(
                img,
                [poly - 8 * max(thick // 4, 1)],
                False,
                tuple(min(v + 60, 255) for v in shade),
                max(thick // 4, 1),
                cv2.LINE_AA,
                3,
            )
            continue
        radius = {"card": 2.5, "pencil": 5.0, "nugget": 0.8}[kind] * unit
        c = _free_spot(rng, w, h, radius + unit * 0.8, keep_out, 20)
        if c is None:
            continue
        ang = rng.uniform(0, math.pi)
        if kind == "card":
            rect = _rect(c, unit * rng.uniform(2.0, 3.5), unit * rng.uniform(1.4, 2.4), ang)
            _poly(shadow, rect + unit * 0.08, (0.4,))
            back = tuple(float(v) for v in _color(rng))
            _poly(img, rect, back)
            inner = (rect - c) * 0.8 + c
            _poly(img, inner, tuple(float(v) * 0.7 for v in back))
        elif kind == "pencil":
            length, width = unit * rng.uniform(6, 10), unit * rng.uniform(0.3, 0.45)
            rect = _rect(c, length, width, ang)
            _poly(shadow, rect + width * 0.5, (0.5,))
            body = tuple(
                float(v)
                for v in (
                    _color(rng) if rng.random() < 0.4 else np.array([30, 200, 240], np.float32)
                )
            )
            _poly(img, rect, body)
            d = np.array([math.cos(ang), math.sin(ang)])
            tip = np.array([rect[1], rect[2], c + d * (length / 2 + width * 2)])
            _poly(img, tip, (120.0, 170.0, 215.0))
            _poly(
                img,
                np.array(
                    [
                        (tip[0] + tip[2]) / 2 + (tip[2] - tip[0]) * 0.2,
                        (tip[1] + tip[2]) / 2 + (tip[2] - tip[1]) * 0.2,
                        tip[2],
                    ]
                ),
                (50.0, 50.0, 50.0),
            )
        else:
            # Glass stone: translucent green (doubler) or orange (start cult).
            col = np.array([60, 170, 60] if rng.random() < 0.75 else [30, 130, 240], np.float32)
            axes = (int(unit * rng.uniform(0.4, 0.6)), int(unit * rng.uniform(0.32, 0.5)))
            ctr = (int(c[0]), int(c[1]))
            cv2.ellipse(
                shadow,
                (ctr[0] + axes[0] // 3, ctr[1] + axes[1] // 3),
                axes,
                math.degrees(ang),
                0,
                360,
                0.35,
                -1,
                cv2.LINE_AA,
            )
            m = np.zeros((h, w), np.float32)
            cv2.ellipse(m, ctr, axes, math.degrees(ang), 0, 360, 1.0, -1, cv2.LINE_AA)
            y0, y1 = max(ctr[1] - axes[0] - 2, 0), min(ctr[1] + axes[0] + 2, h)
            x0, x1 = max(ctr[0] - axes[0] - 2, 0), min(ctr[0] + axes[0] + 2, w)
            if y1 <= y0 or x1 <= x0:
                continue
            sub, mm = img[y0:y1, x0:x1], m[y0:y1, x0:x1, None]
            glass = sub * (col / 255.0) * 0.9 + col * 0.35
            edge = mm - cv2.erode(mm[..., 0], np.ones((5, 5), np.uint8))[..., None]
            img[y0:y1, x0:x1] = sub * (1 - mm) + (glass * (1 - 0.4 * edge)) * mm
            hl = (ctr[0] - axes[0] // 3, ctr[1] - axes[1] // 3)
            cv2.circle(img, hl, max(axes[1] // 5, 1), (250.0, 250.0, 250.0), -1, cv2.LINE_AA)


def _glyphs(
    img: F32, rng: np.random.Generator, box: F64, color: tuple[float, ...], scale: float
) -> None:
    """A few printed letters or symbols inside an axis-aligned box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = (int(v) for v in box)
    text = "".join(
        rng.choice(list("ABCDEFGHKLMNPRSTUVXZ0123456789#+<>?@%&"), int(rng.integers(1, 5)))
    )
    fs = max(scale / 45.0, 0.25)
    th = max(int(fs * 1.6), 1)
    (tw, tth), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, fs, th)
    h, w = img.shape[:2]
    # putText draws on 8-bit images only: draw a mask of the box, blend it in
    mx0, my0 = max(x0 - tw, 0), max(y0 - tth, 0)
    mx1, my1 = min(x1 + tw, w), min(y1 + tth, h)
    if mx1 <= mx0 or my1 <= my0:
        return
    mask = np.zeros((my1 - my0, mx1 - mx0), np.uint8)
    org = (int(x0 - mx0 + (x1 - x0 - tw) / 2), int(y0 - my0 + (y1 - y0 + tth) / 2))
    cv2.putText(mask, text, org, cv2.FONT_HERSHEY_SIMPLEX, fs, 255, th, cv2.LINE_AA)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    sub = img[my0:my1, mx0:mx1]
    sub[:] = sub * (1 - a) + np.asarray(color, np.float32) * a


def place_hard_clutter(
    img: F32, shadow: F32, rng: np.random.Generator, unit: float, keep_out: list[F64], count: int
) -> None:
    """Draw `count` die-like distractors (HARD_CLUTTER), avoiding the dice's footprints."""
    h, w = img.shape[:2]
    for _ in range(count):
        kind = str(rng.choice(HARD_CLUTTER, p=[0.25, 0.2, 0.15, 0.15, 0.1, 0.15]))
        radius = {"keys": 4.0, "plug": 1.2, "bead": 0.9, "coin": 0.6, "block": 1.0, "sheet": 4.0}[
            kind
        ] * unit
        c = _free_spot(rng, w, h, radius + unit * 0.8, keep_out, 30)
        if c is None:
            continue
        ang = rng.uniform(0, math.pi)
        if kind == "keys":
            # A patch of keyboard: rounded squares (keys smaller than a die) with glyphs.
            key = unit * rng.uniform(0.35, 0.8)
            pitch = key * rng.uniform(1.15, 1.35)
            base = (40.0, 40.0, 44.0) if rng.random() < 0.6 else (200.0, 200.0, 205.0)
            cap = tuple(v + (25.0 if base[0] < 100 else -150.0) for v in base)
            ink = (230.0, 230.0, 230.0) if base[0] < 100 else (40.0, 40.0, 40.0)
            nx, ny = int(rng.integers(3, 8)), int(rng.integers(2, 5))
            frame = _rect(c, pitch * (nx + 0.6), pitch * (ny + 0.6), ang)
            _poly(shadow, frame + unit * 0.05, (0.3,))
            _poly(img, frame, base if base[0] < 100 else (150.0, 150.0, 155.0))
            rot = np.array([[math.cos(ang), math.sin(ang)], [-math.sin(ang), math.cos(ang)]])
            for i in range(nx):
                for j in range(ny):
                    kc = (
                        c + np.array([(i - (nx - 1) / 2) * pitch, (j - (ny - 1) / 2) * pitch]) @ rot
                    )
                    _poly(
                        img,
                        _rect(kc, key, key, ang),
                        cap if base[0] < 100 else (235.0, 235.0, 235.0),
                    )
                    if rng.random() < 0.8:
                        _glyphs(
                            img,
                            rng,
                            np.array(
                                [kc[0] - key / 2, kc[1] - key / 2, kc[0] + key / 2, kc[1] + key / 2]
                            ),
                            ink,
                            key,
                        )
        elif kind == "plug":
            length, width = unit * rng.uniform(1.0, 1.8), unit * rng.uniform(0.5, 0.9)
            body = _rect(c, length, width, ang)
            _poly(shadow, body + width * 0.3, (0.5,))
            shade = (210.0, 210.0, 215.0) if rng.random() < 0.5 else (45.0, 45.0, 50.0)
            _poly(img, body, shade)
            d = np.array([math.cos(ang), math.sin(ang)])
            _poly(
                img,
                _rect(c + d * (length / 2 + width * 0.35), width * 0.7, width * 0.7, ang),
                (170.0, 175.0, 180.0),
            )
            ink = (60.0, 60.0, 60.0) if shade[0] > 100 else (200.0, 200.0, 200.0)
            _glyphs(
                img,
                rng,
                np.array([c[0] - width / 2, c[1] - width / 2, c[0] + width / 2, c[1] + width / 2]),
                ink,
                width,
            )
            tail = c - d * length / 2
            cv2.line(
                img,
                (int(tail[0]), int(tail[1])),
                (int(tail[0] - d[0] * 4 * unit), int(tail[1] - d[1] * 4 * unit)),
                (25.0, 25.0, 28.0),
                max(int(width * 0.35), 2),
                cv2.LINE_AA,
            )
        elif kind == "bead":
            length, width = unit * rng.uniform(0.6, 1.1), unit * rng.uniform(0.35, 0.6)
            body = _rect(c, length, width, ang)
            _poly(shadow, body + width * 0.3, (0.5,))
            _poly(img, body, (28.0, 28.0, 30.0))
            d = np.array([math.cos(ang), math.sin(ang)])
            hl = _rect(c + np.array([-d[1], d[0]]) * width * 0.2, length * 0.9, width * 0.12, ang)
            _poly(img, hl, (90.0, 90.0, 95.0))
            cv2.line(
                img,
                (int(c[0] - d[0] * 3 * unit), int(c[1] - d[1] * 3 * unit)),
                (int(c[0] + d[0] * 3 * unit), int(c[1] + d[1] * 3 * unit)),
                (25.0, 25.0, 28.0),
                max(int(width * 0.4), 2),
                cv2.LINE_AA,
            )
        elif kind == "coin":
            r = int(unit * rng.uniform(0.3, 0.55))
            ctr = (int(c[0]), int(c[1]))
            metal = (60.0, 140.0, 190.0) if rng.random() < 0.5 else (180.0, 180.0, 185.0)
            cv2.circle(shadow, (ctr[0] + r // 4, ctr[1] + r // 4), r, 0.4, -1, cv2.LINE_AA)
            cv2.circle(img, ctr, r, metal, -1, cv2.LINE_AA)
            cv2.circle(
                img,
                ctr,
                max(int(r * 0.8), 1),
                tuple(v * 0.8 for v in metal),
                max(r // 10, 1),
                cv2.LINE_AA,
            )
            _glyphs(
                img,
                rng,
                np.array([c[0] - r / 2, c[1] - r / 2, c[0] + r / 2, c[1] + r / 2]),
                tuple(v * 0.6 for v in metal),
                r,
            )
        elif kind == "block":
            # A small box or eraser seen from above: a top face and a lit side, not square.
            length, width = unit * rng.uniform(1.1, 1.8), unit * rng.uniform(0.6, 0.95)
            top = _rect(c, length, width, ang)
            col = tuple(float(v) for v in _color(rng))
            _poly(shadow, top + unit * 0.15, (0.5,))
            _poly(img, top + unit * 0.12, tuple(v * 0.6 for v in col))
            _poly(img, top, col)
        else:
            # Score sheet: paper with ruled boxes and pencil strokes.
            sw, sh = unit * rng.uniform(3, 6), unit * rng.uniform(3, 5)
            sheet = _rect(c, sw, sh, ang)
            _poly(shadow, sheet + unit * 0.03, (0.2,))
            _poly(img, sheet, (235.0, 238.0, 240.0))
            box = unit * rng.uniform(0.4, 0.9)
            rot = np.array([[math.cos(ang), math.sin(ang)], [-math.sin(ang), math.cos(ang)]])
            for i in range(int(sw // (box * 1.3))):
                for j in range(int(sh // (box * 1.3))):
                    bc = (
                        c
                        + np.array([(i + 0.6) * box * 1.3 - sw / 2, (j + 0.6) * box * 1.3 - sh / 2])
                        @ rot
                    )
                    cv2.polylines(
                        img,
                        [np.round(_rect(bc, box, box, ang) * 8).astype(np.int32)],
                        True,
                        (90.0, 90.0, 90.0),
                        1,
                        cv2.LINE_AA,
                        3,
                    )
                    if rng.random() < 0.4:
                        _glyphs(
                            img,
                            rng,
                            np.array(
                                [bc[0] - box / 2, bc[1] - box / 2, bc[0] + box / 2, bc[1] + box / 2]
                            ),
                            (60.0, 50.0, 40.0),
                            box,
                        )
