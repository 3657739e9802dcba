"""More drawing families for the five motifs (sets of dice drawn from them: family_sets.py).

The eight artworks of styles.py share six letterings, four tentacle drawings,
two arrangements and four Elder Signs: a model trained on them learns those
drawings, not the motifs. Here every motif gets many independent families
(lettering from 56 typefaces of 27 type families, tentacles drawn and
arranged in many ways with their count kept, many Elder Signs; printed,
engraved, raised, outlined; any body colour, plain or marbled). Families are
split as wholes (`FAMILY_SPLITS`): training never sees a validation or
held-out family, so figures on them measure art nobody taught the model.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.glyphs import letterings

Mask = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

# New drawings (the old ones of motifs.py stay where they are).
NEW_TENTACLES = (
    "taper",
    "spiral",
    "zigzag",
    "beads",
    "hollow",
    "dotted",
    "leaf",
    "lash",
    "dashed",
    "ringed",
)
NEW_ARRANGEMENTS = ("radial", "splay", "stagger", "diagonal", "hang", "steps", "cluster")
NEW_ELDER_SIGNS = (
    "star_solid",
    "star_cut",
    "star_ring",
    "asterisk",
    "pentagon_eye",
    "trident",
    "star_outline",
    "branch_curved",
    "claw",
    "anchor",
)
_CONTENT = 0.64

# Whole families per split. Typefaces are split by type family.
FAMILY_SPLITS: dict[str, dict[str, tuple[str, ...]]] = {
    "validation": {
        "type": ("noto-serif", "cantarell", "roboto", "p052", "nimbus-mono"),
        "tentacle": ("zigzag", "lash"),
        "arrangement": ("splay",),
        "elder": ("asterisk", "star_outline"),
    },
    "held_out": {
        "type": ("liberation-serif", "lato", "comic-neue", "c059", "bookman", "open-sans"),
        "tentacle": ("beads", "dotted"),
        "arrangement": ("stagger",),
        "elder": ("star_cut", "trident"),
    },
    # A second development split, drawn in session 20 after three candidates
    # read the validation families with no more silent errors and the held-out
    # ones with more: drawings as confusable as the held-out ones (arms in
    # pieces, uneven spacing, a sign with prongs), none of them a held-out
    # drawing. Its lettering is the validation typefaces' (no type family left).
    "hard": {
        "type": (),
        "tentacle": ("dashed", "ringed"),
        "arrangement": ("steps", "cluster"),
        "elder": ("claw", "anchor"),
    },
}


def _split_of(kind: str, name: str) -> str:
    for split, fams in FAMILY_SPLITS.items():
        if name in fams[kind]:
            return split
    return "train"


def typefaces(split: str) -> tuple[str, ...]:
    """Typeface names whose type family belongs to a split."""
    return tuple(
        n for n, lt in sorted(letterings().items()) if _split_of("type", lt.family) == split
    )


def drawings(kind: str, split: str, old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """The drawings of one kind in a split; the old ones are training drawings."""
    return (
        tuple(n for n in old + new if _split_of(kind, n) == split)
        if split != "train"
        else old + tuple(n for n in new if _split_of(kind, n) == "train")
    )


# ---------------------------------------------------------------- lettering
def font_lettering(size: int, name: str, rng: np.random.Generator) -> Mask:
    """A typeface's "IÄÄ!" centred on the face, a little wider or narrower each time."""
    glyph = letterings()[name].mask
    bw = int(size * _CONTENT * rng.uniform(1.0, 1.18))
    aspect = glyph.shape[0] / glyph.shape[1] * rng.uniform(0.85, 1.2)
    bh = min(max(int(bw * aspect), 1), int(size * 0.8))
    small = cv2.resize(glyph, (bw, bh), interpolation=cv2.INTER_AREA)
    out = np.zeros((size, size), np.uint8)
    oy, ox = (size - bh) // 2, (size - bw) // 2
    out[oy : oy + bh, ox : ox + bw] = small
    return out.astype(np.float32) / 255.0


# ---------------------------------------------------------------- tentacles
def _path(kind: str, rng: np.random.Generator) -> tuple[F64, F64]:
    """Centre line of one new tentacle drawing, from its base upward, and its widths."""
    n = 64
    t = np.linspace(0.0, 1.0, n)
    ph = rng.uniform(-0.4, 0.4)
    amp = rng.uniform(0.8, 1.2)
    if kind == "taper":
        curv = np.full(n, 0.6 * ph)
    elif kind == "spiral":
        curv = np.where(t < 0.5, 0.8 * ph, amp * (6.0 + 40.0 * (t - 0.5)))
    elif kind == "zigzag":
        curv = amp * 9.0 * np.sign(np.sin(2 * math.pi * 2.5 * t + ph))
    elif kind == "lash":
        curv = amp * 7.0 * np.sin(2 * math.pi * 1.8 * t + ph)
    elif kind == "leaf":
        curv = amp * 2.0 * np.sin(2 * math.pi * 0.6 * t + ph)
    else:  # beads, hollow, dotted, dashed, ringed: an S of varying depth
        curv = amp * 4.0 * np.sin(2 * math.pi * rng.uniform(0.7, 1.3) * t + ph)
    heading = -math.pi / 2 + np.cumsum(curv) / n
    pts = np.cumsum(np.stack([np.cos(heading), np.sin(heading)], axis=1) / n, axis=0)
    pts = np.vstack([[0.0, 0.0], pts[:-1]])
    base, tip = {
        "leaf": (0.14, 0.02),
        "lash": (0.1, 0.03),
        "hollow": (0.22, 0.05),
        "beads": (0.2, 0.06),
        "dotted": (0.2, 0.04),
        "dashed": (0.18, 0.05),
        "ringed": (0.22, 0.06),
    }.get(kind, (0.17, 0.02))
    w = base + (tip - base) * t
    if kind == "leaf":  # widest in the middle
        w = w * (0.6 + 1.2 * np.sin(math.pi * np.clip(t * 1.1, 0, 1)))
    return pts, w


def _place(count: int, arrangement: str, paths: list[F64], rng: np.random.Generator) -> list[F64]:
    """Move each tentacle to its place; they never cross, so each can be counted."""
    out = []
    for i, pts in enumerate(paths):
        k = i - (count - 1) / 2
        if arrangement == "radial":  # from the centre outward, evenly spread
            ang = 2 * math.pi * i / max(count, 1) + (math.pi / 2 if count == 2 else 0.0)
            c, s = math.cos(ang), math.sin(ang)
            p = pts @ np.array([[c, s], [-s, c]]) + np.array(
                [0.12 * math.sin(ang), -0.12 * math.cos(ang)]
            )
            p = p if count > 1 else pts
        elif arrangement == "splay":  # from one base, spreading like fingers
            ang = k * 0.55
            c, s = math.cos(ang), math.sin(ang)
            p = pts @ np.array([[c, s], [-s, c]]) + np.array([k * 0.12, 0.0])
        elif arrangement == "stagger":  # side by side at different heights
            p = pts + np.array([k * 0.5, (0.25 if i % 2 else 0.0)])
        elif arrangement == "steps":  # side by side, each a step higher than the last
            p = pts + np.array([k * 0.55, -i * 0.2])
        elif arrangement == "cluster":  # uneven gaps: the first two close, the rest apart
            xs = {1: (0.0,), 2: (-0.17, 0.17), 3: (-0.5, -0.16, 0.5)}[count]
            p = pts + np.array([xs[i], 0.0])
        elif arrangement == "diagonal":  # parallel, leaning
            ang = 0.5
            c, s = math.cos(ang), math.sin(ang)
            p = pts @ np.array([[c, s], [-s, c]]) + np.array([k * 0.5, k * 0.1])
        else:  # hang: from a top line, pointing down, mirrored left/right
            p = pts * np.array([1.0 if i % 2 else -1.0, -1.0]) + np.array([k * 0.5, 0.0])
        out.append(p)
    return out


def _draw_tentacle(canvas: npt.NDArray[np.uint8], p: F64, w: F64, kind: str) -> None:
    shift = 4
    f = float(1 << shift)

    def line(a: F64, b: F64, width: float, value: int) -> None:
        cv2.line(
            canvas,
            (int(a[0] * f), int(a[1] * f)),
            (int(b[0] * f), int(b[1] * f)),
            value,
            max(int(round(width)), 1),
            cv2.LINE_AA,
            shift,
        )

    if kind == "beads":  # a chain of discs shrinking to the tip
        for j in range(0, len(p), 5):
            cv2.circle(
                canvas,
                (int(p[j, 0] * f), int(p[j, 1] * f)),
                max(int(w[j] * 0.5 * f), int(f)),
                255,
                -1,
                cv2.LINE_AA,
                shift,
            )
        return
    if kind == "dashed":  # the arm in pieces, with gaps between them
        for j in range(len(p) - 1):
            if (j // 6) % 2 == 0:
                line(p[j], p[j + 1], w[j], 255)
        return
    for j in range(len(p) - 1):
        line(p[j], p[j + 1], w[j], 255)
    if kind == "ringed":  # dark bands across the arm
        for j in range(6, len(p) - 6, 8):
            d = p[j + 1] - p[j]
            n = np.array([-d[1], d[0]]) / max(float(np.hypot(d[0], d[1])), 1e-9)
            line(p[j] - n * w[j] * 0.7, p[j] + n * w[j] * 0.7, max(w[j] * 0.22, 1.0), 0)
    elif kind == "hollow":  # only the outline of the arm
        for j in range(len(p) - 1):
            line(p[j], p[j + 1], max(w[j] - 5.0, 1.0), 0)
    elif kind == "dotted":  # dark dots down the middle of the arm
        for j in range(4, len(p) - 8, 6):
            cv2.circle(
                canvas,
                (int(p[j, 0] * f), int(p[j, 1] * f)),
                max(int(w[j] * 0.22 * f), int(f)),
                0,
                -1,
                cv2.LINE_AA,
                shift,
            )


def tentacle_mask(
    size: int,
    count: int,
    kind: str,
    arrangement: str,
    rng: np.random.Generator,
    old_path: Callable[[str, np.random.Generator], tuple[F64, F64]],
) -> Mask:
    """`count` tentacles of a drawing (old or new), in an arrangement (old or new).

    The count must stay readable: arms drawn so that one hides most of another
    (two arms on one line read as one to anyone) are drawn again, up to
    COUNTABLE_TRIES times, keeping the most countable drawing.
    """
    best: tuple[float, Mask] | None = None
    for _ in range(COUNTABLE_TRIES):
        shown, mask = _tentacles_once(size, count, kind, arrangement, rng, old_path)
        if best is None or shown > best[0]:
            best = (shown, mask)
        if shown >= OWN_INK:
            break
    assert best is not None
    return best[1]


# Each arm keeps at least this share of its ink clear of the other arms.
OWN_INK = 0.65
COUNTABLE_TRIES = 30


def _tentacles_once(
    size: int,
    count: int,
    kind: str,
    arrangement: str,
    rng: np.random.Generator,
    old_path: Callable[[str, np.random.Generator], tuple[F64, F64]],
) -> tuple[float, Mask]:
    """One drawing of the arms, and the least share of its own ink any arm keeps in view."""
    paths, widths = [], []
    for _ in range(count):
        pts, w = old_path(kind, rng) if kind not in NEW_TENTACLES else _path(kind, rng)
        paths.append(pts)
        widths.append(w)
    if arrangement in NEW_ARRANGEMENTS:
        placed = _place(count, arrangement, paths, rng)
    else:  # the old row and fan
        placed = []
        for i, pts in enumerate(paths):
            k = i - (count - 1) / 2
            if arrangement == "fan" and count > 1:
                c, s = math.cos(k * 0.7), math.sin(k * 0.7)
                placed.append(pts @ np.array([[c, s], [-s, c]]) + np.array([k * 0.2, 0.0]))
            else:
                placed.append(pts + np.array([k * 0.42, 0.0]))
    allp = np.concatenate(placed)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    span = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-6))
    scale = _CONTENT * size * rng.uniform(0.92, 1.05) / span
    mid = (lo + hi) / 2
    off = np.array([size / 2 - mid[0] * scale, size / 2 - mid[1] * scale])
    canvas = np.zeros((size, size), np.uint8)
    arms = []
    for p, w in zip(placed, widths, strict=True):
        _draw_tentacle(canvas, p * scale + off, w * scale * 0.62, kind)
        arm = np.zeros((size, size), np.uint8)
        _draw_tentacle(arm, p * scale + off, w * scale * 0.62, kind)
        arms.append(arm > 127)
    return _least_own_ink(arms), canvas.astype(np.float32) / 255.0


def _least_own_ink(arms: list[npt.NDArray[np.bool_]]) -> float:
    """The smallest share of an arm's ink that no other arm covers or touches (1 pixel)."""
    if len(arms) < 2:
        return 1.0
    near = [cv2.dilate(a.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0 for a in arms]
    least = 1.0
    for i, arm in enumerate(arms):
        others = np.logical_or.reduce([n for j, n in enumerate(near) if j != i])
        ink = int(arm.sum())
        if ink:
            least = min(least, float((arm & ~others).sum()) / ink)
    return least


# ---------------------------------------------------------------- Elder Signs
def _star(r_out: float, r_in: float, rot: float) -> npt.NDArray[np.float64]:
    pts = []
    for k in range(10):
        r = r_out if k % 2 == 0 else r_in
        a = -math.pi / 2 + rot + k * math.pi / 5
        pts.append((r * math.cos(a), r * math.sin(a)))
    return np.array(pts)


def elder_mask(size: int, kind: str, rng: np.random.Generator) -> Mask:
    """A new Elder Sign drawing, centred, filling about the motif's share of the face."""
    s = size
    canvas = np.zeros((s, s), np.uint8)
    c = np.array([s / 2, s / 2])
    r = _CONTENT * s / 2 * rng.uniform(0.95, 1.08)
    rot = rng.uniform(-0.08, 0.08)
    th = max(int(s * rng.uniform(0.035, 0.06)), 1)

    def poly(p: F64, fill: bool, value: int = 255, thick: int = th) -> None:
        q = np.round((p * r + c) * 16).astype(np.int32)
        if fill:
            cv2.fillPoly(canvas, [q], value, cv2.LINE_AA, 4)
        else:
            cv2.polylines(canvas, [q], True, value, thick, cv2.LINE_AA, 4)

    def strokes(segs: list[tuple[tuple[float, float], tuple[float, float]]]) -> None:
        for sa, sb in segs:
            pa, pb = c + r * np.array(sa), c + r * np.array(sb)
            cv2.line(
                canvas, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), 255, th, cv2.LINE_AA
            )

    if kind in ("star_solid", "star_cut", "star_ring", "star_outline"):
        inner = rng.uniform(0.38, 0.5)
        star = _star(
            1.0 if kind != "star_ring" else 0.82,
            inner * (1.0 if kind != "star_ring" else 0.82),
            rot,
        )
        poly(star, kind != "star_outline")
        if kind == "star_cut":  # a flame or an eye cut out of the solid star
            flame = np.array(
                [
                    (0, -0.32),
                    (0.13, -0.05),
                    (0.16, 0.12),
                    (0.0, 0.26),
                    (-0.16, 0.12),
                    (-0.13, -0.05),
                ]
            )
            poly(flame * rng.uniform(0.8, 1.1), True, 0)
        if kind == "star_ring":
            cv2.circle(canvas, (int(c[0]), int(c[1])), int(r), 255, th, cv2.LINE_AA)
        if kind == "star_outline":
            cv2.circle(canvas, (int(c[0]), int(c[1])), max(int(r * 0.12), 2), 255, -1, cv2.LINE_AA)
    elif kind == "asterisk":  # five arms from the centre, each with a knob
        for k in range(5):
            a = -math.pi / 2 + rot + k * 2 * math.pi / 5
            e = c + r * np.array([math.cos(a), math.sin(a)])
            cv2.line(canvas, (int(c[0]), int(c[1])), (int(e[0]), int(e[1])), 255, th, cv2.LINE_AA)
            cv2.circle(canvas, (int(e[0]), int(e[1])), max(int(th * 1.1), 2), 255, -1, cv2.LINE_AA)
    elif kind == "pentagon_eye":  # a pentagon holding an eye
        pent = np.array(
            [
                (
                    math.cos(-math.pi / 2 + rot + k * 2 * math.pi / 5),
                    math.sin(-math.pi / 2 + rot + k * 2 * math.pi / 5),
                )
                for k in range(5)
            ]
        )
        poly(pent, False)
        cv2.ellipse(
            canvas,
            (int(c[0]), int(c[1])),
            (int(r * 0.42), int(r * 0.22)),
            0,
            0,
            360,
            255,
            th,
            cv2.LINE_AA,
        )
        cv2.circle(canvas, (int(c[0]), int(c[1])), max(int(r * 0.12), 2), 255, -1, cv2.LINE_AA)
    elif kind == "trident":  # a stem ending in three prongs, and a cross bar
        segs = [
            ((0, 1), (0, -0.6)),
            ((-0.5, -0.2), (0.5, -0.2)),
            ((-0.5, -0.2), (-0.5, -0.9)),
            ((0.5, -0.2), (0.5, -0.9)),
            ((0, -0.6), (0, -1.0)),
            ((-0.3, 0.55), (0.3, 0.55)),
        ]
        strokes(segs)
    elif kind == "claw":  # three hooked prongs rising from a disc, on a short stem
        cv2.circle(canvas, (int(c[0]), int(c[1] + 0.45 * r)), max(int(0.2 * r), 2), 255, -1)
        t = np.linspace(0.0, 1.0, 16)
        for sgn in (-1.0, 0.0, 1.0):
            hook = np.stack(
                [
                    sgn * 0.55 * t**0.7 + 0.18 * t**3 * (1.0 if sgn >= 0 else -1.0),
                    0.45 - 1.4 * t + 0.25 * t**3,
                ],
                axis=1,
            )
            q = np.round((hook * r + c) * 16).astype(np.int32)
            cv2.polylines(canvas, [q], False, 255, th, cv2.LINE_AA, 4)
        strokes([((0.0, 0.45), (0.0, 1.0))])
    elif kind == "anchor":  # a ring, a stem with a cross bar, and an arc with barbs
        top = c + r * np.array([0.0, -0.8])
        cv2.circle(canvas, (int(top[0]), int(top[1])), max(int(0.16 * r), 2), 255, th, cv2.LINE_AA)
        segs = [
            ((0, -0.64), (0, 0.9)),
            ((-0.4, -0.42), (0.4, -0.42)),
            ((-0.7, 0.35), (-0.85, 0.2)),
            ((-0.7, 0.35), (-0.52, 0.28)),
            ((0.7, 0.35), (0.85, 0.2)),
            ((0.7, 0.35), (0.52, 0.28)),
        ]
        strokes(segs)
        sweep = np.linspace(0.0, math.pi, 20)
        arc = np.stack([0.7 * np.cos(sweep), 0.35 + 0.55 * np.sin(sweep)], axis=1)
        q = np.round((arc * r + c) * 16).astype(np.int32)
        cv2.polylines(canvas, [q], False, 255, th, cv2.LINE_AA, 4)
    else:  # branch_curved: Lovecraft's sign, its branches bent like a plant
        stem = np.stack([np.zeros(20), np.linspace(1, -1, 20)], axis=1)
        cv2.polylines(
            canvas, [np.round((stem * r + c) * 16).astype(np.int32)], False, 255, th, cv2.LINE_AA, 4
        )
        for y0 in (0.45, 0.0, -0.45):
            for sgn in (-1, 1):
                t = np.linspace(0, 1, 12)
                br = np.stack([sgn * 0.55 * t, y0 - 0.5 * t**0.6], axis=1)
                cv2.polylines(
                    canvas,
                    [np.round((br * r + c) * 16).astype(np.int32)],
                    False,
                    255,
                    th,
                    cv2.LINE_AA,
                    4,
                )
    return canvas.astype(np.float32) / 255.0
