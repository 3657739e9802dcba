"""The five motifs of one dice set, each drawn once as an ink mask (RULES.md C2).

A set is one product: every die carries the same drawing of a motif, so the
drawings are made once per set here, and dice.py only adds print variation.
Masks are drawn in binary at 4x the texture size and area-averaged down, which
gives smooth edges without anti-aliased overdraw seams.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Arr = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]
Rng = np.random.Generator

FACES = ("I", "1", "2", "3", "E")
TEX = 256  # side of a face texture in texels
S = 1024  # drawing canvas side (4x supersampled)


# ---------------------------------------------------------------- drawing helpers
def _ip(p: F64) -> npt.NDArray[np.int32]:
    return np.round(p).astype(np.int32).reshape(-1, 1, 2)


def _disc(img: U8, c: tuple[float, float], r: float, v: int = 255) -> None:
    cv2.circle(img, (round(c[0]), round(c[1])), max(1, round(r)), v, -1, cv2.LINE_8)


def _ring(img: U8, c: tuple[float, float], r: float, th: float, v: int = 255) -> None:
    cv2.circle(img, (round(c[0]), round(c[1])), max(1, round(r)), v, max(1, round(th)))


def _seg(img: U8, p: tuple[float, float], q: tuple[float, float], th: float, v: int = 255) -> None:
    cv2.line(img, (round(p[0]), round(p[1])), (round(q[0]), round(q[1])), v, max(1, round(th)))


def _poly(img: U8, pts: F64, v: int = 255) -> None:
    cv2.fillPoly(img, [_ip(pts)], v, cv2.LINE_8)


def _fit(canvas: U8, rng: Rng, box: float, wide: float | None = None, sy: float = 1.0) -> Arr:
    """Crop the ink, scale it into the face (only down-scaling unless `wide`), centre it."""
    ys, xs = np.nonzero(canvas)
    if len(xs) == 0:
        return np.zeros((TEX, TEX), np.float32)
    crop = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = crop.shape
    if wide is not None:  # lettering: fixed width, optional condensing/stretching
        k = wide * S / w
        kx, ky = k, k * sy
        if h * ky > box * S:
            kx, ky = kx * box * S / (h * ky), box * S / h
    else:
        k = min(1.0, box * S / max(h, w))
        kx = ky = k
    nw, nh = max(1, round(w * kx)), max(1, round(h * ky))
    crop = np.asarray(cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA), np.uint8)
    out = np.zeros((S, S), np.uint8)
    x0 = (S - nw) // 2
    y0 = (S - nh) // 2 + round(rng.uniform(-0.02, 0.02) * S)
    out[y0 : y0 + nh, x0 : x0 + nw] = crop
    small = cv2.resize(out, (TEX, TEX), interpolation=cv2.INTER_AREA)
    return (small.astype(np.float32) / 255.0).astype(np.float32)


# ---------------------------------------------------------------- IÄÄ!
HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
)
UMLAUTS = ("dots", "dots", "rings", "ticks", "bar", "diamonds", "squares")
BANGS = ("font", "font", "wedge", "drop", "none")


@dataclass(frozen=True)
class Apex:
    x: float  # x of the top of an A
    top: float  # y of the top of an A
    width: float  # width of the A


def _umlaut(img: U8, a: Apex, cap: float, pen: float, style: str) -> None:
    """Draw the two umlaut marks of an Ä above its apex."""
    size = max(0.06 * cap, 0.55 * pen)
    half = max(
        min(0.16 * a.width, 0.12 * cap), 0.8 * pen + size * (1.5 if style == "rings" else 1.0)
    )
    cy = a.top - 0.14 * cap - size
    for sx in (-half, half):
        c = (a.x + sx, cy)
        if style == "dots":
            _disc(img, c, size)
        elif style == "rings":
            _ring(img, c, size * 1.2, max(2.0, 0.4 * pen))
        elif style == "ticks":
            _seg(img, (c[0], cy - 1.6 * size), (c[0], cy + 0.8 * size), max(2.0, 0.8 * pen))
        elif style == "diamonds":
            d = 1.2 * size
            pts = np.array([[c[0], cy - d], [c[0] + d, cy], [c[0], cy + d], [c[0] - d, cy]])
            _poly(img, pts)
        elif style == "squares":
            d = size
            _poly(
                img,
                np.array(
                    [[c[0] - d, cy - d], [c[0] + d, cy - d], [c[0] + d, cy + d], [c[0] - d, cy + d]]
                ),
            )
    if style == "bar":
        _seg(img, (a.x - 1.3 * half, cy), (a.x + 1.3 * half, cy), max(2.0, 0.8 * pen))


def _bang(img: U8, x: float, base: float, cap: float, pen: float, style: str) -> None:
    """A stylised '!' to the right of x, standing on the baseline."""
    gap = 0.18 * cap
    cx = x + gap + pen
    dot = max(0.55 * pen, 0.06 * cap)
    if style == "wedge":
        w = max(1.8 * pen, 0.12 * cap)
        _poly(
            img,
            np.array([[cx - w / 2, base - cap], [cx + w / 2, base - cap], [cx, base - 0.3 * cap]]),
        )
    else:  # drop: a thin tear from the top down
        w = max(1.4 * pen, 0.1 * cap)
        _disc(img, (cx, base - cap + w / 2), w / 2)
        _poly(
            img,
            np.array(
                [
                    [cx - w / 2, base - cap + w / 2],
                    [cx + w / 2, base - cap + w / 2],
                    [cx, base - 0.3 * cap],
                ]
            ),
        )
    _disc(img, (cx, base - dot), dot)


def _glyph_apex(with_a: U8, without: U8) -> Apex:
    glyph = (with_a > 0) & ~(without > 0)
    ys, xs = np.nonzero(glyph)
    top = float(ys.min())
    band = ys < top + 0.15 * (ys.max() - top)
    return Apex(float(xs[band].mean()), top, float(xs.max() - xs.min()))


def _word_hershey(rng: Rng, font: int | None = None) -> tuple[U8, str]:
    font = int(rng.choice(HERSHEY)) if font is None else font
    italic = rng.random() < 0.35
    flags = font | (cv2.FONT_ITALIC if italic else 0)
    scale = 9.0 if font in (cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL) else 6.0
    (_, cap), _ = cv2.getTextSize("I", flags, scale, 1)
    pen = cap * rng.uniform(0.06, 0.17)
    bold = int(rng.integers(2, 4)) if rng.random() < 0.35 else 1
    if bold > 1:  # over-stroking thickens; keep the pen light so letters stay apart
        pen = min(pen, cap * 0.08)
    bang = str(rng.choice(BANGS))
    uml = str(rng.choice(UMLAUTS))
    org = (200, 900)
    size = (2600, 1300)

    def draw(txt: str) -> U8:
        c = np.zeros((size[1], size[0]), np.uint8)
        for k in range(bold):  # bold by over-stroking, shifted sideways
            o = (org[0] + round(k * pen * 0.45), org[1])
            cv2.putText(c, txt, o, flags, scale, 255, max(1, round(pen)), cv2.LINE_8)
        return c

    word = "IAA!" if bang == "font" else "IAA"
    img = draw(word)
    apexes = [_glyph_apex(draw("IA"), draw("I")), _glyph_apex(draw("IAA"), draw("IA"))]
    for a in apexes:
        _umlaut(img, a, cap, pen, uml)
    if bang in ("wedge", "drop"):
        xs = np.nonzero(draw("IAA"))[1]
        _bang(img, float(xs.max()), org[1], cap, pen, bang)
    names = {v: k for k, v in vars(cv2).items() if k.startswith("FONT_HERSHEY")}
    desc = f"{names.get(font, font)}{' italic' if italic else ''}{' bold' if bold > 1 else ''}"
    return img, f"{desc}, umlaut {uml}, ! {bang}"


def _word_strokes(rng: Rng) -> tuple[U8, str]:
    """Hand-stroked capitals: I, two A's and '!' as pen strokes."""
    cap = 600.0
    pen = cap * rng.uniform(0.08, 0.16)
    slant = rng.uniform(-0.05, 0.28)
    aw = cap * rng.uniform(0.6, 0.85)
    gap = cap * rng.uniform(0.14, 0.26) + pen
    serif = rng.random() < 0.5
    atype = str(rng.choice(["pointed", "flat", "arched"]))
    bar_h = rng.uniform(0.36, 0.48)  # crossbar height above the baseline
    bang = str(rng.choice(["stroke", "stroke", "wedge", "none"]))
    uml = str(rng.choice(UMLAUTS))
    base = 1000.0
    img = np.zeros((1300, 2800), np.uint8)

    def P(x: float, y: float) -> tuple[float, float]:  # slant about the baseline
        return (x + slant * (base - y), y)

    def path(pts: list[tuple[float, float]]) -> None:
        for p, q in zip(pts[:-1], pts[1:], strict=False):
            _seg(img, P(*p), P(*q), pen)

    x = 300.0
    path([(x, base), (x, base - cap)])
    if serif:
        s = 0.18 * cap
        path([(x - s, base), (x + s, base)])
        path([(x - s, base - cap), (x + s, base - cap)])
        x += s
    x += gap
    apexes = []
    for _ in range(2):
        l, r, m = x, x + aw, x + aw / 2
        yb = base - bar_h * cap
        xl = l + (m - l) * bar_h
        xr = r - (r - m) * bar_h
        if atype == "pointed":
            path([(l, base), (m, base - cap), (r, base)])
        elif atype == "flat":
            t = 0.18 * aw
            path([(l, base), (m - t, base - cap), (m + t, base - cap), (r, base)])
        else:  # arched: straight legs and a round top
            ang = np.linspace(math.pi, 0, 24)
            rad = aw / 2
            arc = [(m + rad * math.cos(a), base - cap + rad - rad * math.sin(a)) for a in ang]
            path([(l, base), *arc, (r, base)])
            xl, xr = l, r
        path([(xl, yb), (xr, yb)])
        ax, ay = P(m, base - cap)
        apexes.append(Apex(ax, ay - pen / 2, aw))
        x = r + gap
    for a in apexes:
        _umlaut(img, a, cap, pen, uml)
    if bang == "stroke":
        x -= gap * 0.5
        path([(x, base - cap), (x, base - 0.32 * cap)])
        _disc(img, P(x, base - pen * 0.6), pen * 0.7)
    elif bang == "wedge":
        _bang(img, x - gap, base, cap, pen, "wedge")
    return img, f"hand strokes {atype} A{' serif' if serif else ''}, umlaut {uml}, ! {bang}"


LETTERINGS = (*(str(f) for f in HERSHEY), "strokes", "strokes", "strokes")


def lettering(rng: Rng, kind: str | None = None) -> tuple[Arr, str]:
    kind = str(rng.choice(LETTERINGS)) if kind is None else kind
    img, desc = _word_strokes(rng) if kind == "strokes" else _word_hershey(rng, int(kind))
    wide = rng.uniform(0.58, 0.82)
    sy = float(np.exp(rng.uniform(-0.2, 0.3)))  # condensed (taller) or stretched (wider)
    return _fit(img, rng, 0.5, wide=wide, sy=sy), desc


# ---------------------------------------------------------------- tentacles
ARM_STYLES = ("taper", "suckers", "spiral", "blocky", "outlined", "rings", "rope")
LAYOUTS = ("side", "fan", "hang", "radial", "side")


@dataclass
class ArmDesign:
    style: str
    width: float  # base width as a fraction of the arm length
    tip: float  # tip width as a fraction of the base width
    wig: tuple[float, float, float]  # sideways offsets of the Bezier controls
    curl: float  # signed turns of a curled tip, 0 for none
    alternate: bool  # mirror every other arm


def _bezier(p: F64, n: int) -> F64:
    t = np.linspace(0.0, 1.0, n)[:, None]
    return np.asarray(
        (1 - t) ** 3 * p[0] + 3 * (1 - t) ** 2 * t * p[1] + 3 * (1 - t) * t**2 * p[2] + t**3 * p[3],
        dtype=np.float64,
    )


def _centre_line(d: ArmDesign, L: float, damp: float) -> F64:
    """Arm centre line from (0,0) upwards (-y), length about L."""
    a1, a2, a3 = (w * damp for w in d.wig)
    if d.style == "blocky":
        return np.array(
            [[0, 0], [a1 * L, -0.35 * L], [a2 * L, -0.68 * L], [a3 * L, -L]], np.float64
        )
    reach = 0.8 if d.curl else 1.0
    ctrl = np.array([[0, 0], [a1 * L, -0.33 * L], [a2 * L, -0.66 * L], [a3 * L, -reach * L]])
    pts = _bezier(ctrl, 60)
    if d.curl:
        seg = pts[-1] - pts[-2]
        th = math.atan2(seg[1], seg[0])
        n = 60
        total = abs(d.curl) * 2 * math.pi
        ds = 0.45 * L / n
        tail = []
        p = pts[-1].copy()
        for i in range(n):
            k = total / (n * ds) * (0.4 + 1.2 * i / n)
            th += math.copysign(k * ds, d.curl) * damp**0.3
            p = p + ds * np.array([math.cos(th), math.sin(th)])
            tail.append(p.copy())
        pts = np.vstack([pts, np.array(tail)])
    return pts


def _draw_arm(img: U8, d: ArmDesign, pts: F64, L: float) -> None:
    seglen = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seglen)])
    t = s / max(s[-1], 1e-6)
    w0 = d.width * max(L, 0.55 * S)  # short (radial) arms keep a readable width
    if d.style == "blocky":
        for i in range(len(pts) - 1):  # straight blocks, narrowing step by step
            w = w0 * (1 - 0.25 * i)
            dirv = (pts[i + 1] - pts[i]) / max(seglen[i], 1e-6)
            nrm = np.array([-dirv[1], dirv[0]])
            a, b = pts[i] - dirv * w / 2, pts[i + 1] + dirv * w / 2
            _poly(
                img, np.array([a + nrm * w / 2, b + nrm * w / 2, b - nrm * w / 2, a - nrm * w / 2])
            )
        return
    if d.style == "rope":
        w = np.full_like(t, 0.8 * w0)
    else:
        w = w0 * ((1 - t) ** 0.9 * (1 - d.tip) + d.tip)
    tang = np.gradient(pts, axis=0)
    tang /= np.maximum(np.linalg.norm(tang, axis=1, keepdims=True), 1e-9)
    nrm = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
    left, right = pts + nrm * w[:, None] / 2, pts - nrm * w[:, None] / 2
    for i in range(len(pts) - 1):
        _poly(img, np.array([left[i], left[i + 1], right[i + 1], right[i]]))
        _disc(img, (pts[i][0], pts[i][1]), w[i] / 2)
    _disc(
        img,
        (pts[-1][0], pts[-1][1]),
        (0.5 if d.style == "rope" else 0.5) * w[-1] * (1.6 if d.style == "rope" else 1),
    )
    if d.style == "suckers":  # a row of round suckers cut out along one side
        n_s = 7
        for k in range(n_s):
            i = int((0.12 + 0.62 * k / (n_s - 1)) * (len(pts) - 1))
            c = pts[i] + nrm[i] * w[i] * 0.12
            _disc(img, (c[0], c[1]), 0.2 * w[i], 0)
    elif d.style == "rings":  # bands cut across the arm
        for tt in np.arange(0.14, 0.8, 0.11):
            i = int(tt * (len(pts) - 1))
            _seg(img, tuple(left[i] + nrm[i] * 4), tuple(right[i] - nrm[i] * 4), 0.022 * L, 0)


def arm_design(rng: Rng, style: str | None = None) -> ArmDesign:
    style = str(rng.choice(ARM_STYLES)) if style is None else style
    w = rng.uniform(0.15, 0.24)
    curl = 0.0
    if style == "spiral" or (style in ("taper", "suckers", "rings") and rng.random() < 0.55):
        curl = float(rng.choice([-1, 1]) * rng.uniform(0.9, 1.5))
    amp = rng.uniform(0.12, 0.3) * (0.45 if style == "blocky" else 1.0)
    wig = (
        float(rng.uniform(-1, 1) * amp),
        float(rng.uniform(-1, 1) * amp * 1.4),
        float(rng.uniform(-1, 1) * amp),
    )
    return ArmDesign(
        style, float(w), float(rng.uniform(0.12, 0.3)), wig, curl, bool(rng.random() < 0.4)
    )


def _rot(pts: F64, ang: float, at: F64) -> F64:
    c, s = math.cos(ang), math.sin(ang)
    return np.asarray(pts @ np.array([[c, s], [-s, c]]) + at, dtype=np.float64)


def _arms(
    n: int, d: ArmDesign, layout: str, lean: float, damp: float, spread: float
) -> tuple[list[U8], U8, F64 | None]:
    """Arms of one face, each in its own canvas, plus the shared base (mound or disc)."""
    C = 2 * S  # generous canvas, cropped later by _fit
    base = np.zeros((C, C), np.uint8)
    hub: F64 | None = None
    L = 0.62 * S
    offs = [i - (n - 1) / 2 for i in range(n)]
    placements: list[tuple[F64, float]] = []
    if layout in ("side", "hang"):
        sp = ((d.width + 0.1 + abs(d.wig[1]) * damp) * L + 0.08 * S) * spread
        y = C / 2 + 0.35 * S
        flip = math.pi if layout == "hang" else 0.0
        for o in offs:
            placements.append((np.array([C / 2 + o * sp, y if not flip else C - y]), flip + lean))
    elif layout == "fan":
        hub = np.array([C / 2, C / 2 + 0.4 * S])
        g = math.radians(34 + 40 * d.width) * spread
        for o in offs:
            ang = o * g
            placements.append((hub + 0.05 * S * np.array([math.sin(ang), -math.cos(ang)]), ang))
        cv2.ellipse(
            base,
            (round(hub[0]), round(hub[1])),
            (round(0.2 * S), round(0.08 * S)),
            0,
            180,
            360,
            255,
            -1,
        )
    else:  # radial: arms leave a central disc
        hub = np.array([C / 2, C / 2])
        L = 0.42 * S / spread
        r = 0.1 * S
        for o in offs:
            ang = o * math.radians(120 if n == 3 else 90)
            placements.append((hub + r * 0.8 * np.array([math.sin(ang), -math.cos(ang)]), ang))
        _disc(base, (hub[0], hub[1]), r)
    arms = []
    for k, (at, ang) in enumerate(placements):
        pts = _centre_line(d, L, damp)
        if d.alternate and k % 2 == 1:
            pts[:, 0] *= -1
        img = np.zeros((C, C), np.uint8)
        _draw_arm(img, d, _rot(pts, ang, at), L)
        arms.append(img)
    return arms, base, hub


def _separate(arms: list[U8], hub: F64 | None) -> bool:
    """True when no two arms come closer than a clear gap (near the shared base excepted)."""
    k = int(0.08 * S) | 1
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    grown = [cv2.dilate(a, ker) > 0 for a in arms]
    keep = np.ones_like(grown[0])
    if hub is not None:
        yy, xx = np.ogrid[: keep.shape[0], : keep.shape[1]]
        keep = (xx - hub[0]) ** 2 + (yy - hub[1]) ** 2 > (0.2 * S) ** 2
    for i in range(len(arms)):
        for j in range(i + 1, len(arms)):
            if np.any(grown[i] & (arms[j] > 0) & keep):
                return False
    return True


def tentacle_faces(
    rng: Rng, style: str | None = None, layout: str | None = None
) -> tuple[dict[str, Arr], str]:
    d = arm_design(rng, style)
    layout = str(rng.choice(LAYOUTS)) if layout is None else layout
    lean = math.radians(rng.uniform(-18, 18)) if layout in ("side", "hang") else 0.0
    box = rng.uniform(0.66, 0.8)
    out: dict[str, Arr] = {}
    for n in (1, 2, 3):
        for k in range(12):  # calm the curves, spread the arms, until each stands clear
            arms, base, hub = _arms(n, d, layout, lean, 0.8**k, 1 + 0.12 * k)
            if _separate(arms, hub):
                break
        img = base
        for a in arms:
            img = np.maximum(img, a)
        if d.style == "outlined":
            k = int(0.035 * S) | 1
            ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            img = np.asarray(img - cv2.erode(img, ker), np.uint8)
        out[str(n)] = _fit(img, rng, box)
    curl = f", curled tips {d.curl:+.1f}" if d.curl else ""
    return out, f"{d.style} arms{curl}, {layout}"


# ---------------------------------------------------------------- Elder Sign
SIGNS = ("star_eye", "star_flame", "star_ring", "pentagram", "branch", "star_rays")


def _star(c: F64, R: float, r: float, rot: float = 0.0) -> F64:
    ang = rot - math.pi / 2 + np.arange(10) * math.pi / 5
    rad = np.where(np.arange(10) % 2 == 0, R, r)
    return np.stack([c[0] + rad * np.cos(ang), c[1] + rad * np.sin(ang)], axis=1)


def _eye(img: U8, c: F64, w: float, pupil: bool, v: int) -> None:
    x = np.linspace(-w, w, 40)
    h = 0.45 * w * (1 - (x / w) ** 2)
    pts = np.vstack(
        [np.stack([c[0] + x, c[1] - h], 1), np.stack([c[0] + x[::-1], c[1] + h[::-1]], 1)]
    )
    _poly(img, pts, v)
    if pupil:
        _disc(img, (c[0], c[1]), 0.3 * w, 255 - v)


def elder_sign(rng: Rng, kind: str | None = None) -> tuple[Arr, str]:
    kind = str(rng.choice(SIGNS)) if kind is None else kind
    C = 2 * S
    img = np.zeros((C, C), np.uint8)
    c = np.array([C / 2, C / 2])
    R = 0.42 * S
    pen = R * rng.uniform(0.06, 0.1)
    filled = rng.random() < 0.6
    if kind == "star_eye":
        star = _star(c, R, R * rng.uniform(0.42, 0.5))
        if filled:
            _poly(img, star)
            _eye(img, c + [0, 0.04 * R], 0.32 * R, True, 0)
        else:
            cv2.polylines(img, [_ip(star)], True, 255, round(pen))
            _eye(img, c + [0, 0.04 * R], 0.26 * R, True, 255)
    elif kind == "star_flame":
        _poly(img, _star(c, R, R * 0.5))
        f = np.array([c[0], c[1] + 0.12 * R])
        _disc(img, (f[0], f[1]), 0.13 * R, 0)
        tip = c + np.array([0.04 * R, -0.3 * R])
        _poly(img, np.array([f + [-0.13 * R, 0], tip, f + [0.13 * R, 0]]), 0)
    elif kind == "star_ring":
        _ring(img, (c[0], c[1]), R, pen)
        star = _star(c, 0.8 * R, 0.8 * R * 0.45, rng.uniform(-0.1, 0.1))
        if filled:
            _poly(img, star)
        else:
            cv2.polylines(img, [_ip(star)], True, 255, round(pen))
            _disc(img, (c[0], c[1]), 1.3 * pen)
    elif kind == "pentagram":
        pts = _star(c, R, R)[::2]
        for i in range(5):
            _seg(img, tuple(pts[i]), tuple(pts[(i + 2) % 5]), pen * 1.2)
        if filled:
            _ring(img, (c[0], c[1]), 1.08 * R, pen * 0.8)
    elif kind == "branch":  # Lovecraft's sign: a stem with five twigs
        top, bot = c + [0, -R], c + [0, R]
        _seg(img, tuple(bot), tuple(c + [0, -0.35 * R]), pen * 1.4)
        spread = rng.uniform(0.45, 0.7)
        for k, ang in enumerate((-2, -1, 0, 1, 2)):
            a = ang * spread * 0.6
            start = c + [0, -0.35 * R + abs(ang) * 0.25 * R]
            ln = R * (0.75 if k == 2 else 0.7 - 0.08 * abs(ang))
            end = start + ln * np.array([math.sin(a), -math.cos(a)])
            _seg(img, tuple(start), tuple(end), pen * 1.1)
        del top
    else:  # star with rays
        _poly(img, _star(c, 0.62 * R, 0.62 * R * 0.45))
        for k in range(10):
            a = -math.pi / 2 + (k + 0.5) * math.pi / 5
            u = np.array([math.cos(a), math.sin(a)])
            _seg(img, tuple(c + 0.62 * R * u), tuple(c + R * u), pen * 0.7)
    box = rng.uniform(0.66, 0.8)
    return _fit(img, rng, box), f"{kind}{' filled' if filled else ' open'}"


def make_artwork(rng: Rng, plan: dict[str, str]) -> tuple[dict[str, Arr], dict[str, str]]:
    """One set's five drawings (masks in 0..1, TEX x TEX) and a word on each.

    `plan` may fix some choices (letter, arm, layout, sign) so that the sets of one
    batch differ from each other; the rest is drawn at random."""
    masks: dict[str, Arr] = {}
    desc: dict[str, str] = {}
    masks["I"], desc["I"] = lettering(rng, plan.get("letter"))
    tent, desc["123"] = tentacle_faces(rng, plan.get("arm"), plan.get("layout"))
    masks.update(tent)
    masks["E"], desc["E"] = elder_sign(rng, plan.get("sign"))
    return masks, desc
