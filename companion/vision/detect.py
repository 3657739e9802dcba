"""Die finder: where each die lies in a frame and the corners of its top face.

Classical OpenCV, no model, in four steps:

1. The mat: its two commonest colours per window (plain, grained or checked
   mats alike), then a smooth mat colour from mat pixels only. What differs
   from it by more than a shadow would is foreground.
2. Top faces: inside each foreground blob the top face is the bright part
   (a die's sides are in its own shade, its shadow darker still); faces the
   colour of the mat are found as light squares ringed by that shade.
3. Dice: each face blob is one square, a row of touching squares (cut where a
   seam shows) or a cluster split by watershed on the distance transform.
   Round stones, pencils, cables, cards, printed markers and patches of mat
   are rejected by shape, frame and contrast tests.
4. Doubt: a die-sized blob that cannot be cut cleanly (cut by the frame
   border, not square, ragged) is kept with ``clean=False`` so the reader
   reports ``?``; nothing die-like is dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.found import FoundDie
from companion.vision.geometry import order_corners

# VISION.md: a die's edge is 40..160 px in the frame.
MIN_EDGE_PX = 40.0
MAX_EDGE_PX = 160.0
# Work at a scale where the smallest die edge is about this many pixels:
# enough to see a square, small enough to be fast.
_WORK_MIN_EDGE = 20.0
# Brightening the mat's colour by up to this factor is still the mat (light
# falloff, the lighter squares of a checked cloth).
_BRIGHT_ALLOWANCE = 1.08

FloatArray = npt.NDArray[np.float32]
ImageBGR = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class DetectorSettings:
    """Tunable thresholds; defaults follow VISION.md's frame conditions."""

    min_edge: float = MIN_EDGE_PX
    max_edge: float = MAX_EDGE_PX
    # Foreground: colour distance (BGR, 8-bit units) from the mat, at least
    # this, and at least this many robust sigmas of the mat's own variation.
    min_contrast: float = 14.0
    sigmas: float = 4.0
    # Shadows darken the mat to at least this fraction of its colour; only
    # darker things (a black die) stand out by darkness alone.
    shadow_floor: float = 0.5
    # A square fills its minimum-area rectangle; a round glass stone fills pi/4.
    min_fill: float = 0.88
    max_aspect: float = 1.45


def find_dice(image: ImageBGR, settings: DetectorSettings | None = None) -> list[FoundDie]:
    """Every die in a BGR frame, in reading order (top to bottom, left to right)."""
    s = settings or DetectorSettings()
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("find_dice expects a BGR image of shape (H, W, 3)")
    if min(image.shape[:2]) < s.min_edge:
        return []  # no die fits
    scale = min(1.0, _WORK_MIN_EDGE / s.min_edge)
    small = (
        image
        if scale == 1.0
        else np.asarray(
            cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8
        )
    )
    bright = _value(small)
    mask = _top_faces(bright, _foreground(small, s, scale), s.min_edge * scale)
    mask |= _framed_by_shade(bright, s.min_edge * scale, s.max_edge * scale)
    markers = _marker_zones(bright)
    dice = [
        _to_frame(d, scale)
        for d in _dice_in_mask(mask, small, bright, s.min_edge * scale, s.max_edge * scale, s)
        if not any(cv2.pointPolygonTest(m, d.center, False) >= 0 for m in markers)
    ]
    dice = _consistent_sizes(_one_per_place(dice))
    dice.sort(key=lambda d: (round(d.center[1] / max(d.edge, 1.0)), d.center[0]))
    return dice


def _one_per_place(dice: list[FoundDie]) -> list[FoundDie]:
    """Two candidates for the same place (the colour and the shade cues both
    found it) are one die: keep the clean one, else the larger."""
    ranked = sorted(dice, key=lambda d: (not d.clean, -d.edge))
    kept: list[FoundDie] = []
    for d in ranked:
        if all(
            np.hypot(d.center[0] - k.center[0], d.center[1] - k.center[1])
            > 0.5 * min(d.edge, k.edge)
            for k in kept
        ):
            kept.append(d)
    return kept


def _consistent_sizes(dice: list[FoundDie]) -> list[FoundDie]:
    """Drop doubtful candidates whose size no die of this table has.

    A table's dice are one size (perspective changes it by a fifth at most),
    so once a few clean dice agree, a flagged candidate far off that size is
    a card, a die's side or a patch of mat. Clean candidates are kept.
    """
    edges = [d.edge for d in dice if d.clean]
    if len(edges) < 3:
        return dice
    typical = float(np.median(edges))
    return [d for d in dice if d.clean or 0.7 * typical <= d.edge <= 1.6 * typical]


def _foreground(small: ImageBGR, s: DetectorSettings, scale: float) -> npt.NDArray[np.uint8]:
    """Binary mask (at the size of ``small``) of what stands out from the mat.

    Computed at half the working resolution: the mask only has to say where
    dice are; the faces are cut from the full working image.
    """
    h, w = small.shape[:2]
    half = np.asarray(cv2.resize(small, (w // 2, h // 2), interpolation=cv2.INTER_AREA), np.float32)
    scale /= 2
    modes = _table_modes(half, s.max_edge * scale)
    dist = _table_distance(half, modes, s.shadow_floor)
    mask = dist > s.min_contrast * 1.5
    # Second pass: the mat's colour averaged over mat pixels only, so shading
    # and gradients are followed closely, and the threshold set by its noise.
    bg = _background(half, ~mask, s.max_edge * scale * 1.5)
    dist = np.minimum(dist, _contrast(half, bg, s.shadow_floor))
    fg = (dist > _threshold(dist, ~mask, s)).astype(np.uint8) * 255
    # Ink and pips are filled first (holes smaller than half a die) so the
    # opening that follows, which removes printed lines, cables and grain
    # thinner than a third of the smallest die, does not break faces apart;
    # larger holes are filled only then, so a printed box or a cable loop
    # does not fill up into a blob.
    die = (s.min_edge * scale) ** 2
    fg = _fill_holes(fg, 0.5 * die)
    k = max(3, int(s.min_edge * scale / 3) | 1)
    fg = np.asarray(
        cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))),
        np.uint8,
    )
    fg = _fill_holes(fg)
    up = cv2.resize(fg, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.asarray((up > 127).astype(np.uint8) * 255, np.uint8)


def _value(small: ImageBGR) -> npt.NDArray[np.uint8]:
    """HSV value (max of B, G, R): brightness that does not care about hue."""
    b, g, r = cv2.split(small)
    return np.asarray(cv2.max(cv2.max(b, g), r), np.uint8)


def _framed_by_shade(
    v: npt.NDArray[np.uint8], min_edge: float, max_edge: float
) -> npt.NDArray[np.uint8]:
    """Top faces the colour of the mat (white dice on white paper): light squares
    ringed by darker pixels, namely the die's own sides, its bevel and its shadow."""
    h, w = v.shape
    f = max(2, int(max_edge / 8))
    tiny = cv2.resize(v, (max(w // f, 3), max(h // f, 3)), interpolation=cv2.INTER_AREA)
    local = cv2.resize(cv2.medianBlur(tiny, 5), (w, h), interpolation=cv2.INTER_LINEAR)
    dark = (v.astype(np.int16) < np.asarray(local, np.int16) * 0.82).astype(np.uint8) * 255
    dark = np.asarray(cv2.morphologyEx(dark, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), np.uint8)
    holes = cv2.subtract(_fill_holes(dark), dark)
    k = max(3, int(min_edge / 4) | 1)
    holes = cv2.morphologyEx(
        holes, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    n, labels, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
    out = np.zeros_like(holes)
    lo, hi = (0.6 * min_edge) ** 2, (1.2 * max_edge) ** 2
    for i in range(1, n):
        x, y, bw, bh, area = (int(c) for c in stats[i])
        if lo <= area <= hi and max(bw, bh) <= 1.6 * min(bw, bh) and area >= 0.55 * bw * bh:
            out[y : y + bh, x : x + bw][labels[y : y + bh, x : x + bw] == i] = 255
    return np.asarray(out, np.uint8)


def _top_faces(
    v: npt.NDArray[np.uint8], fg: npt.NDArray[np.uint8], min_edge: float
) -> npt.NDArray[np.uint8]:
    """The top faces inside the dice blobs: their brightest part.

    Seen from above a die's sides are in its own shade and its shadow on the
    mat is darker still, so within each blob the top faces are what is nearly
    as bright as the blob's typical top-face brightness.
    """
    out = np.zeros_like(fg)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    for i in range(1, n):
        x, y, bw, bh, area = (int(c) for c in stats[i])
        if area < 0.3 * min_edge * min_edge:
            continue
        sl = (slice(y, y + bh), slice(x, x + bw))
        inside = labels[sl] == i
        vals = v[sl][inside]
        # Sides are lit at most 3/4 as well as the top; the 60th percentile
        # is top-face body whether the ink is darker or lighter than it.
        ref = float(np.percentile(vals, 60))
        t = 0.86 * ref
        if float(np.percentile(vals, 90)) - float(np.percentile(vals, 10)) < 0.2 * ref:
            out[sl][inside] = 255  # flat blob: no sides to remove
            continue
        out[sl][inside & (v[sl] > t)] = 255
    out = _fill_holes(out)
    k = max(3, int(min_edge / 4) | 1)
    return np.asarray(
        cv2.morphologyEx(out, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))),
        np.uint8,
    )


def _table_modes(img: FloatArray, max_edge: float) -> FloatArray:
    """Per-pixel colours of the mat: the two commonest colours of each window.

    A window spans about three of the largest dice, so even in a crowd the
    mat is what is commonest there; two modes cover checks and wood grain.
    Returns (H, W, 2, 3).
    """
    h, w = img.shape[:2]
    f = 4
    tiny = np.asarray(
        cv2.resize(img, (max(w // f, 4), max(h // f, 4)), interpolation=cv2.INTER_AREA), np.float32
    )
    th, tw = tiny.shape[:2]
    q = np.clip(tiny / 12.0, 0, 31).astype(np.int32)
    codes = (q[..., 0] * 32 + q[..., 1]) * 32 + q[..., 2]
    cell = max(4, int(max_edge / f))
    ny, nx = max(1, th // cell), max(1, tw // cell)
    ys = np.linspace(0, th, ny + 1).astype(int)
    xs = np.linspace(0, tw, nx + 1).astype(int)
    grid = np.zeros((ny, nx, 2, 3), np.float32)
    for iy in range(ny):
        for ix in range(nx):
            y0, y1 = ys[max(0, iy - 1)], ys[min(ny, iy + 2)]
            x0, x1 = xs[max(0, ix - 1)], xs[min(nx, ix + 2)]
            c = codes[y0:y1, x0:x1].ravel()
            px = tiny[y0:y1, x0:x1].reshape(-1, 3)
            vals, counts = np.unique(c, return_counts=True)
            order = np.argsort(counts)[::-1]
            first = px[c == vals[order[0]]].mean(axis=0)
            grid[iy, ix, 0] = first
            grid[iy, ix, 1] = first
            if len(order) > 1 and counts[order[1]] >= 0.5 * counts[order[0]]:
                grid[iy, ix, 1] = px[c == vals[order[1]]].mean(axis=0)
    modes = np.asarray(
        cv2.resize(grid.reshape(ny, nx, 6), (w, h), interpolation=cv2.INTER_LINEAR), np.float32
    )
    return modes.reshape(h, w, 2, 3)


def _table_distance(img: FloatArray, modes: FloatArray, shadow_floor: float) -> FloatArray:
    d0 = _contrast(img, modes[:, :, 0], shadow_floor)
    d1 = _contrast(img, modes[:, :, 1], shadow_floor)
    return np.asarray(np.minimum(d0, d1), np.float32)


def _background(img: FloatArray, keep: npt.NDArray[np.bool_], cell: float) -> FloatArray:
    """Smooth mat colour: mat pixels averaged, holes filled from around them."""
    h, w = img.shape[:2]
    f = max(2, int(cell / 6))
    gw, gh = max(4, w // f), max(4, h // f)
    wgt = keep.astype(np.float32)
    num = np.asarray(
        cv2.resize(img * wgt[..., None], (gw, gh), interpolation=cv2.INTER_AREA), np.float32
    )
    den = np.asarray(cv2.resize(wgt, (gw, gh), interpolation=cv2.INTER_AREA), np.float32)
    num = np.asarray(cv2.blur(num, (3, 3)), np.float32)
    den = np.asarray(cv2.blur(den, (3, 3)), np.float32)
    for _ in range(8):  # grow into cells with no mat pixel at all
        empty = den < 0.05
        if not empty.any():
            break
        num = np.where(empty[..., None], np.asarray(cv2.blur(num, (3, 3)), np.float32), num)
        den = np.where(empty, np.asarray(cv2.blur(den, (3, 3)), np.float32), den)
    mean = (num / np.maximum(den, 1e-3)[..., None]).astype(np.float32)
    return np.asarray(cv2.resize(mean, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)


def _contrast(img: FloatArray, bg: FloatArray, shadow_floor: float) -> FloatArray:
    """How unlike the mat a pixel is, blind to shadows.

    A shadow only scales the mat's colour down, so each pixel is split into a
    multiple k of the mat colour and a remainder: the remainder (another
    hue), brightening beyond k = 1.2 (light and checks vary that much) and
    darkening past the deepest shadow (k < shadow_floor) count.
    """
    ib, ig, ir = cv2.split(img)
    bb, bgn, br = cv2.split(np.ascontiguousarray(bg))
    tt = np.maximum(bb * bb + bgn * bgn + br * br, 1.0)
    k = (ib * bb + ig * bgn + ir * br) / tt
    rb, rg, rr = ib - k * bb, ig - k * bgn, ir - k * br
    norm = np.sqrt(tt)
    bright = np.maximum(k - _BRIGHT_ALLOWANCE, 0.0) * norm
    dark = np.maximum(shadow_floor - k, 0.0) * norm
    out: FloatArray = np.sqrt(rb * rb + rg * rg + rr * rr + bright * bright + dark * dark)
    return out


def _threshold(dist: FloatArray, keep: npt.NDArray[np.bool_], s: DetectorSettings) -> float:
    sample = dist[::2, ::2][keep[::2, ::2]]
    if sample.size < 100:
        return s.min_contrast
    med = float(np.median(sample))
    mad = float(np.median(np.abs(sample - med))) * 1.4826
    return max(s.min_contrast, med + s.sigmas * mad)


def _fill_holes(
    mask: npt.NDArray[np.uint8], max_area: float | None = None
) -> npt.NDArray[np.uint8]:
    """Fill the holes of a mask (ink, pips), or only those smaller than ``max_area``."""
    if max_area is None:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        out = np.zeros_like(mask)
        cv2.drawContours(out, contours, -1, 255, thickness=cv2.FILLED)
        return out
    holes = cv2.bitwise_not(mask)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
    small = np.zeros(n, bool)
    small[1:] = stats[1:, cv2.CC_STAT_AREA] < max_area
    # A hole touching the border is the outside, never a hole.
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    small[edge] = False
    out = mask.copy()
    out[small[labels]] = 255
    return out


def _dice_in_mask(
    mask: npt.NDArray[np.uint8],
    small: ImageBGR,
    bright: npt.NDArray[np.uint8],
    min_edge: float,
    max_edge: float,
    s: DetectorSettings,
) -> list[FoundDie]:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    found: list[FoundDie] = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if area < 0.5 * min_edge * min_edge:
            continue
        pad = 2
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
        blob = (labels[y0:y1, x0:x1] == i).astype(np.uint8) * 255
        touches_border = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        vroi = bright[y0:y1, x0:x1]
        for die in _split_blob(blob, vroi, min_edge, max_edge, s, touches_border):
            c = die.corners + np.array([x0, y0], np.float32)
            if _in_printed_frame(bright, c) or _like_surroundings(small, c, s.min_contrast):
                continue
            found.append(
                FoundDie(
                    center=(die.center[0] + x0, die.center[1] + y0),
                    corners=c,
                    edge=die.edge,
                    clean=die.clean and not touches_border,
                    reason=die.reason or ("near the frame border" if touches_border else ""),
                )
            )
    return found


_ARUCO = cv2.aruco.ArucoDetector(
    cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
)


def _marker_zones(grey: npt.NDArray[np.uint8]) -> list[FloatArray]:
    """The play mat's ArUco markers with their white quiet zone: never dice."""
    h, w = grey.shape
    # Half the working size is plenty: a marker is several dice across.
    quarter = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    corners, ids, _ = _ARUCO.detectMarkers(quarter)
    if ids is None:
        return []
    out = []
    for c in corners:
        q = (np.asarray(c, np.float32).reshape(4, 2) + 0.5) * 2.0 - 0.5
        center = q.mean(axis=0)
        out.append(((q - center) * 1.6 + center).astype(np.float32))
    return out


def _in_printed_frame(bright: npt.NDArray[np.uint8], corners: FloatArray) -> bool:
    """True for a light square inside a dark frame on all four sides: a printed marker.

    A die's top face meets its own sides on at most two sides and the mat or
    its shadow elsewhere; only a printed fiducial is framed in black all round.
    """
    h, w = bright.shape
    center = corners.mean(axis=0)
    ts = np.linspace(0.15, 0.85, 8)
    grid = np.array([[a, b] for a in ts for b in ts], np.float32)
    # Bilinear map of the unit square onto the face, sampled inside only.
    c0, c1, c2, c3 = corners
    pts = (
        (1 - grid[:, :1]) * (1 - grid[:, 1:]) * c0
        + grid[:, :1] * (1 - grid[:, 1:]) * c1
        + grid[:, :1] * grid[:, 1:] * c2
        + (1 - grid[:, :1]) * grid[:, 1:] * c3
    )
    level: float | None = None
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        out = (a + b) / 2 - center
        frame = float(np.median(_sample(bright, a + (b - a) * ts[:, None] + out * 0.2, w, h)))
        if frame > 70.0:
            return False  # not black: most candidates stop here, cheaply
        if level is None:
            level = float(np.median(_sample(bright, pts, w, h)))
        beyond = float(np.median(_sample(bright, a + (b - a) * ts[:, None] + out * 0.8, w, h)))
        # The frame is black, and darker than the mat beyond it (a die on a
        # dark mat is just surrounded by dark mat).
        if frame > min(0.45 * level, 70.0) or frame > 0.7 * beyond:
            return False
    return True


def _sample(img: npt.NDArray[np.uint8], pts: FloatArray, w: int, h: int) -> npt.NDArray[np.uint8]:
    xs = np.clip(pts[:, 0].round().astype(int), 0, w - 1)
    ys = np.clip(pts[:, 1].round().astype(int), 0, h - 1)
    out: npt.NDArray[np.uint8] = img[ys, xs]
    return out


def _like_surroundings(small: ImageBGR, corners: FloatArray, min_contrast: float) -> bool:
    """True when the inside has the colour of what surrounds it: a patch of mat, not a die."""
    center = corners.mean(axis=0)
    outer = corners * 1.5 - center * 0.5
    x0, y0 = np.maximum(np.floor(outer.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(outer.max(axis=0)).astype(int) + 1
    roi = small[y0:y1, x0:x1]
    if roi.size == 0:
        return False
    off = np.array([x0, y0], np.float32)
    inner = _polygon_mask(corners * 0.7 + center * 0.3 - off, roi.shape)
    ring = _polygon_mask(outer - off, roi.shape)
    ring[_polygon_mask(corners * 1.2 - center * 0.2 - off, roi.shape) > 0] = 0
    if cv2.countNonZero(inner) == 0 or cv2.countNonZero(ring) == 0:
        return False
    a = np.array(cv2.mean(roi, mask=inner)[:3])
    b = np.array(cv2.mean(roi, mask=ring)[:3])
    return float(np.linalg.norm(a - b)) < min_contrast


def _polygon_mask(poly: FloatArray, shape: tuple[int, ...]) -> npt.NDArray[np.uint8]:
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(m, poly.round().astype(np.int32), 255)
    return m


def _split_blob(
    blob: npt.NDArray[np.uint8],
    bright: npt.NDArray[np.uint8],
    min_edge: float,
    max_edge: float,
    s: DetectorSettings,
    cut: bool = False,
) -> list[FoundDie]:
    """One blob into dice: itself if it is one square, else its squares or watershed pieces."""
    single = _as_die(blob, min_edge, max_edge, s, cut)
    if single is not None and (single.clean or cut):
        return [single]
    row = _split_row(blob, bright, min_edge, max_edge, s)
    if row:
        return row
    dist = cv2.distanceTransform(blob, cv2.DIST_L2, 5)
    peak = float(dist.max())
    if peak < 0.3 * min_edge:
        return []  # thin stuff: cable, pencil, card edge
    # Seeds: plateaus of the distance map well inside the blob, one per die.
    k = max(3, int(min_edge * 0.6) | 1)
    local_max = dist >= cv2.dilate(dist, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    seeds = (local_max & (dist > max(0.3 * min_edge, 0.5 * peak))).astype(np.uint8)
    n_seeds, markers = cv2.connectedComponents(seeds)
    if n_seeds <= 2:
        return [single] if single is not None else []
    markers = markers.astype(np.int32) + 1
    markers[(blob > 0) & (seeds == 0)] = 0
    markers[blob == 0] = 1
    ws_in = cv2.cvtColor(
        (255 - np.clip(dist * (255.0 / max(peak, 1.0)), 0, 255)).astype(np.uint8),
        cv2.COLOR_GRAY2BGR,
    )
    markers = cv2.watershed(ws_in, markers)
    out: list[FoundDie] = []
    for m in range(2, n_seeds + 1):
        piece = ((markers == m) & (blob > 0)).astype(np.uint8) * 255
        if not piece.any():
            continue
        die = _as_die(piece, min_edge, max_edge, s)
        if die is not None and not die.clean:
            out += _split_row(piece, bright, min_edge, max_edge, s) or [die]
        elif die is not None:
            out.append(die)
    return out


def _split_row(
    blob: npt.NDArray[np.uint8],
    bright: npt.NDArray[np.uint8],
    min_edge: float,
    max_edge: float,
    s: DetectorSettings,
) -> list[FoundDie]:
    """Dice side by side in a row make a k:1 rectangle with no waist; cut it in k squares.

    Only where a seam shows: touching faces meet at their darkened rims, while
    a label, a card or a laptop's edge is as bright across the cut as beside it.
    """
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return []
    cnt = max(contours, key=cv2.contourArea)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(cnt)
    if min(rw, rh) < 0.6 * min_edge or cv2.contourArea(cnt) < 0.85 * rw * rh:
        return []
    long_, short = max(rw, rh), min(rw, rh)
    k = round(long_ / short)
    if not 2 <= k <= 4 or abs(long_ / short - k) > 0.25 * k or short > 1.25 * max_edge:
        return []
    theta = np.deg2rad(angle if rw >= rh else angle + 90.0)
    axis = np.array([np.cos(theta), np.sin(theta)])
    step = long_ / k
    across = np.array([-axis[1], axis[0]])
    h, w = bright.shape
    ts = np.linspace(-0.3, 0.3, 9)[:, None] * short
    for j in range(1, k):
        cut_at = np.array([cx, cy]) + axis * (j - k / 2) * step
        line = _sample(bright, (cut_at + across * ts).astype(np.float32), w, h)
        sides = [
            _sample(bright, (cut_at + axis * d * step + across * ts).astype(np.float32), w, h)
            for d in (-0.3, 0.3)
        ]
        if float(np.median(line)) > 0.93 * min(float(np.median(v)) for v in sides):
            return []
    out = []
    for j in range(k):
        off = (j - (k - 1) / 2) * step
        c = (float(cx + axis[0] * off), float(cy + axis[1] * off))
        box = cv2.boxPoints((c, (step, short), float(np.rad2deg(theta))))
        ok = max(step, short) / min(step, short) <= s.max_aspect
        out.append(
            FoundDie(
                c, order_corners(box), float(np.sqrt(step * short)), ok, "" if ok else "not square"
            )
        )
    return out


def _as_die(
    piece: npt.NDArray[np.uint8],
    min_edge: float,
    max_edge: float,
    s: DetectorSettings,
    cut: bool = False,
) -> FoundDie | None:
    """The die this blob is, flagged if its shape is doubtful; None if no die.

    ``cut``: the blob touches the frame's border, so only part of it shows;
    it is kept (flagged) when that part could belong to a die.
    """
    contours, _ = cv2.findContours(piece, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    cnt = max(contours, key=cv2.contourArea)
    area = float(cv2.contourArea(cnt))
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(cnt)
    if rw <= 0 or rh <= 0:
        return None
    edge = float(np.sqrt(area))
    aspect = max(rw, rh) / min(rw, rh)
    # Judged on the hull, so ink notches in the mask do not count as ragged.
    fill = float(cv2.contourArea(cv2.convexHull(cnt))) / (rw * rh)
    corners = order_corners(cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float32))
    if cut:
        if min(rw, rh) < 0.3 * min_edge or max(rw, rh) < 0.6 * min_edge or fill < 0.6:
            return None
        if max(rw, rh) > 1.15 * max_edge or min(rw, rh) > max_edge:
            return None
        return FoundDie(
            (float(cx), float(cy)), corners, float(max(rw, rh)), False, "cut by the frame border"
        )
    if edge < 0.7 * min_edge or min(rw, rh) < 0.6 * min_edge:
        return None
    if aspect > 2.6 or fill < 0.6:
        return None  # a pencil, a cable loop, a card corner
    if edge > 1.6 * max_edge:
        return None  # a card, a hand, a box
    reason = ""
    if edge > 1.25 * max_edge:
        reason = "larger than a die"
    elif aspect > s.max_aspect:
        reason = "not square"
    elif fill < s.min_fill:
        reason = "round or ragged outline"
        if fill < 0.83:
            return None  # an ellipse fills pi/4 of its box: a glass stone, not a die
    return FoundDie((float(cx), float(cy)), corners, float(np.sqrt(rw * rh)), not reason, reason)


# The face masks stop short of the face's rounded, darkened rim; measured on
# rendered dice they come out this much smaller than the true top face.
_RIM_GROWTH = 1.035


def _to_frame(d: FoundDie, scale: float) -> FoundDie:
    inv = 1.0 / scale
    c = np.array(d.center, np.float32)
    grown = (d.corners - c) * _RIM_GROWTH + c
    # Pixel centres: (x + 0.5) / scale - 0.5 maps a work pixel back to the frame.
    corners = ((grown + 0.5) * inv - 0.5).astype(np.float32)
    center = ((d.center[0] + 0.5) * inv - 0.5, (d.center[1] + 0.5) * inv - 0.5)
    return FoundDie(center, corners, d.edge * inv * _RIM_GROWTH, d.clean, d.reason)
