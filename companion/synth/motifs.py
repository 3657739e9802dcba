"""Ink masks of the five motifs (RULES.md C2) in several drawings.

Every function returns a float32 mask in 0..1 on an S x S canvas that stands
for one die face; the motif fills the central part of it. Drawings are named
so that styles can hold whole drawings out of training.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

Mask = npt.NDArray[np.float32]

LETTERINGS = ("simplex", "triplex", "script", "italic", "block", "outline")
TENTACLES = ("wave", "curl", "hook", "suckers")
ARRANGEMENTS = ("row", "fan")
ELDER_SIGNS = ("branch", "star_eye", "rays", "twig")

# Fraction of the face the motif's bounding box may fill.
_CONTENT = 0.64


def _fit(
    points: list[npt.NDArray[np.float64]], size: int, fill: float
) -> tuple[float, float, float]:
    """Scale and offset that centre the union of point sets in the face."""
    allp = np.concatenate(points)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    span = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-6))
    scale = fill * size / span
    mid = (lo + hi) / 2
    return scale, size / 2 - mid[0] * scale, size / 2 - mid[1] * scale


def _stroke(
    canvas: npt.NDArray[np.uint8], pts: npt.NDArray[np.float64], widths: npt.NDArray[np.float64]
) -> None:
    """A tapered stroke: consecutive segments with round caps."""
    shift = 4  # sub-pixel precision for anti-aliased drawing
    f = float(1 << shift)
    for i in range(len(pts) - 1):
        a = (int(pts[i, 0] * f), int(pts[i, 1] * f))
        b = (int(pts[i + 1, 0] * f), int(pts[i + 1, 1] * f))
        cv2.line(canvas, a, b, 255, max(int(round(widths[i])), 1), cv2.LINE_AA, shift)


def _letter_mask(size: int, lettering: str, rng: np.random.Generator) -> Mask:
    fonts = {
        "simplex": cv2.FONT_HERSHEY_SIMPLEX,
        "triplex": cv2.FONT_HERSHEY_TRIPLEX,
        "script": cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
        "italic": cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC,
        "block": cv2.FONT_HERSHEY_DUPLEX,
        "outline": cv2.FONT_HERSHEY_DUPLEX,
    }
    font = fonts[lettering]
    thick = {"block": 6, "outline": 9, "simplex": 4, "triplex": 2, "script": 2}.get(lettering, 3)
    thick = max(1, thick + int(rng.integers(-1, 2)))
    big = 4 * size
    canvas = np.zeros((big, big), np.uint8)
    text = "IAA!"  # Hershey fonts have no umlaut: the dots are drawn below
    fs = 4.0
    (tw, th), _ = cv2.getTextSize(text, font, fs, thick * 4)
    x0, y0 = (big - tw) // 2, (big + th) // 2
    cv2.putText(canvas, text, (x0, y0), font, fs, 255, thick * 4, cv2.LINE_AA)
    dot_r = max(int(th * 0.11), 3)
    for prefix in ("I", "IA"):
        w0 = cv2.getTextSize(prefix, font, fs, thick * 4)[0][0]
        wa = cv2.getTextSize("A", font, fs, thick * 4)[0][0]
        cx = x0 + w0 + wa // 2 + (int(th * 0.12) if lettering == "italic" else 0)
        cy = y0 - th - int(dot_r * 1.6)
        for dx in (-wa // 4, wa // 4):
            cv2.circle(canvas, (cx + dx, cy), dot_r, 255, -1, cv2.LINE_AA)
    if lettering == "outline":
        inner = cv2.erode(canvas, np.ones((7, 7), np.uint8))
        canvas = np.asarray(cv2.subtract(canvas, inner), np.uint8)
    ys, xs = np.nonzero(canvas > 64)
    box = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    bw = int(size * _CONTENT * 1.12)
    bh = max(int(bw * box.shape[0] / box.shape[1]), 1)
    small = cv2.resize(box, (bw, bh), interpolation=cv2.INTER_AREA)
    out = np.zeros((size, size), np.uint8)
    oy, ox = (size - bh) // 2, (size - bw) // 2
    out[oy : oy + bh, ox : ox + bw] = small
    return out.astype(np.float32) / 255.0


def _tentacle_path(
    kind: str, rng: np.random.Generator
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Centre line (pointing up from the origin) and relative widths."""
    n = 60
    t = np.linspace(0.0, 1.0, n)
    phase = rng.uniform(-0.3, 0.3)
    if kind == "wave":
        curv = 5.0 * np.sin(2 * math.pi * 1.2 * t + phase)
    elif kind == "curl":
        curv = np.where(t < 0.55, 1.5 * np.sin(4 * t + phase), 4.0 + 22.0 * (t - 0.55))
    elif kind == "hook":
        curv = np.full(n, 2.6 + phase)
    else:  # suckers: a gentle S, thick
        curv = 3.5 * np.sin(2 * math.pi * 0.9 * t + phase)
    heading = -math.pi / 2 + np.cumsum(curv) / n
    step = 1.0 / n
    pts = np.cumsum(np.stack([np.cos(heading), np.sin(heading)], axis=1) * step, axis=0)
    pts = np.vstack([[0.0, 0.0], pts[:-1]])
    base, tip = (0.24, 0.03) if kind == "suckers" else (0.16, 0.025)
    return pts, base + (tip - base) * t


def _tentacle_mask(
    size: int, count: int, kind: str, arrangement: str, rng: np.random.Generator
) -> Mask:
    paths: list[npt.NDArray[np.float64]] = []
    widths: list[npt.NDArray[np.float64]] = []
    for i in range(count):
        pts, w = _tentacle_path(kind, rng)
        if arrangement == "fan" and count > 1:
            ang = (i - (count - 1) / 2) * 0.7
            c, s = math.cos(ang), math.sin(ang)
            pts = pts @ np.array([[c, s], [-s, c]])
            pts = pts + np.array([(i - (count - 1) / 2) * 0.2, 0.0])
        else:
            pts = pts + np.array([(i - (count - 1) / 2) * 0.42, 0.0])
        paths.append(pts)
        widths.append(w)
    scale, ox, oy = _fit(paths, size, _CONTENT)
    canvas = np.zeros((size, size), np.uint8)
    for pts, w in zip(paths, widths, strict=True):
        p = pts * scale + np.array([ox, oy])
        _stroke(canvas, p, w * scale * 0.62)
        if kind == "suckers":
            # Suckers are holes of body colour along one side of the arm.
            for j in range(6, len(p) - 12, 7):
                d = p[j + 1] - p[j]
                nrm = np.array([-d[1], d[0]]) / (np.linalg.norm(d) + 1e-9)
                c = p[j] + nrm * w[j] * scale * 0.12
                r = max(int(w[j] * scale * 0.16), 1)
                cv2.circle(canvas, (int(c[0]), int(c[1])), r, 0, -1, cv2.LINE_AA)
    return canvas.astype(np.float32) / 255.0


def _segments_mask(
    size: int, segs: list[tuple[tuple[float, float], tuple[float, float]]], width: float
) -> npt.NDArray[np.uint8]:
    pts = [np.array([a, b], np.float64) for a, b in segs]
    scale, ox, oy = _fit(pts, size, _CONTENT)
    canvas = np.zeros((size, size), np.uint8)
    for p in pts:
        q = p * scale + np.array([ox, oy])
        _stroke(canvas, q, np.array([width * size, width * size]))
    return canvas


def _elder_mask(size: int, kind: str, rng: np.random.Generator) -> Mask:
    segs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    jit = rng.uniform(-0.04, 0.04)
    if kind == "branch":
        # Lovecraft's sign: a stem with branches, like a twig.
        segs.append(((0.0, 0.5), (0.0, -0.5)))
        for y, ln, a in ((0.2, 0.32, 0.75), (-0.12, 0.3, 0.7), (-0.38, 0.2, 0.6)):
            for sgn in (-1, 1):
                segs.append(((0.0, y), (sgn * ln * math.sin(a + jit), y - ln * math.cos(a + jit))))
    elif kind == "twig":
        # A stem whose branches droop, with a three-pronged crown.
        segs.append(((0.0, 0.5), (0.0, -0.5)))
        for sgn in (-1, 1):
            segs.append(((0.0, -0.25), (sgn * 0.3, -0.5)))
            segs.append(((0.0, -0.05), (sgn * 0.34, 0.12 + jit)))
            segs.append(((0.0, 0.2), (sgn * 0.26, 0.38 + jit)))
    elif kind == "rays":
        # Five rays from a centre, each ending in a small fork.
        for k in range(5):
            a = -math.pi / 2 + k * 2 * math.pi / 5 + jit
            end = (0.42 * math.cos(a), 0.42 * math.sin(a))
            segs.append(((0.0, 0.0), end))
            for da in (-0.5, 0.5):
                segs.append(
                    (end, (end[0] + 0.13 * math.cos(a + da), end[1] + 0.13 * math.sin(a + da)))
                )
    else:  # star_eye: pentagram, the eye drawn afterwards
        star = [
            (
                0.5 * math.cos(-math.pi / 2 + k * 4 * math.pi / 5 + jit),
                0.5 * math.sin(-math.pi / 2 + k * 4 * math.pi / 5 + jit),
            )
            for k in range(6)
        ]
        segs.extend((star[k], star[k + 1]) for k in range(5))
    width = 0.055 if kind != "star_eye" else 0.04
    canvas = _segments_mask(size, segs, width)
    if kind == "star_eye":
        c = size // 2
        axes = (int(size * 0.1), int(size * 0.055))
        cv2.ellipse(
            canvas, (c, c + int(size * 0.02)), axes, 0, 0, 360, 255, max(size // 40, 1), cv2.LINE_AA
        )
        cv2.circle(canvas, (c, c + int(size * 0.02)), max(size // 32, 1), 255, -1, cv2.LINE_AA)
    return canvas.astype(np.float32) / 255.0


def motif_mask(
    face: str,
    size: int,
    *,
    lettering: str,
    tentacle: str,
    arrangement: str,
    elder: str,
    rng: np.random.Generator,
) -> Mask:
    """Ink mask of one motif (`I`, `1`, `2`, `3` or `E`) on a size x size face."""
    from companion.synth import families  # the newer drawing families (families.py)

    if face == "I":
        if lettering.startswith("font:"):
            return families.font_lettering(size, lettering[5:], rng)
        return _letter_mask(size, lettering, rng)
    if face in ("1", "2", "3"):
        if tentacle in TENTACLES and arrangement in ARRANGEMENTS:
            return _tentacle_mask(size, int(face), tentacle, arrangement, rng)
        return families.tentacle_mask(size, int(face), tentacle, arrangement, rng, _tentacle_path)
    if face == "E":
        if elder in families.NEW_ELDER_SIGNS:
            return families.elder_mask(size, elder, rng)
        return _elder_mask(size, elder, rng)
    raise ValueError(f"unknown face {face!r}; expected one of I, 1, 2, 3, E")
