"""One die: its top-face texture and its body drawn into a frame."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.motifs import motif_mask
from companion.synth.styles import Style

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

TEXTURE = 128  # pixels of a rendered face texture


@functools.cache
def _face_geometry(size: int, radius: float, bevel_width: float) -> tuple[F32, F32, F32, F32]:
    """Alpha of the rounded face, bevel weight and outward normal (x, y); radius and
    bevel_width in fractions of the edge (Body.radius, Body.bevel)."""
    r = radius * size
    c = (size - 1) / 2
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    qx = np.abs(xx - c) - (c - r)
    qy = np.abs(yy - c) - (c - r)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
    sdf = outside - r  # negative inside the rounded square
    alpha = np.clip(0.5 - sdf, 0, 1).astype(np.float32)
    bevel = np.clip(1 + sdf / (bevel_width * size), 0, 1).astype(np.float32)
    gy, gx = np.gradient(sdf)
    norm = np.hypot(gx, gy) + 1e-6
    return alpha, bevel, (gx / norm).astype(np.float32), (gy / norm).astype(np.float32)


def _shift(mask: F32, dx: float, dy: float) -> F32:
    m = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    return np.asarray(
        cv2.warpAffine(mask, m, (mask.shape[1], mask.shape[0]), borderValue=0), np.float32
    )


def face_texture(
    style: Style, face: str, rng: np.random.Generator, light: tuple[float, float]
) -> tuple[F32, F32]:
    """BGR (0..255 float) and alpha of a die's top face, TEXTURE pixels square."""
    s = TEXTURE
    # shapes are cached by the hundredth of an edge: a few dozen at most
    alpha, bevel, nx, ny = _face_geometry(
        s, round(style.body.radius, 2), round(style.body.bevel, 2)
    )
    art = style.art
    mask = motif_mask(
        face,
        s,
        lettering=art.lettering,
        tentacle=art.tentacle,
        arrangement=art.arrangement,
        elder=art.elder,
        rng=rng,
    )
    # Print registration differs a little from die to die.
    sc = rng.uniform(0.93, 1.05)
    aff = cv2.getRotationMatrix2D((s / 2, s / 2), rng.uniform(-4, 4), sc)
    aff[:, 2] = aff[:, 2] + rng.uniform(-0.03, 0.03, 2) * s
    mask = np.asarray(cv2.warpAffine(mask, aff, (s, s)), np.float32)
    if art.finish == "outline":  # only the contour of the motif is inked
        inner = cv2.erode(mask, np.ones((5, 5), np.uint8), iterations=int(rng.integers(1, 3)))
        mask = np.clip(mask - inner, 0, 1).astype(np.float32)
    if rng.random() < 0.3:  # worn ink
        wear = cv2.GaussianBlur(rng.random((s, s)).astype(np.float32), (0, 0), 3)
        mask *= np.clip(1.6 - 1.2 * wear / max(float(wear.max()), 1e-6), 0.7, 1.0)
    body = np.array(style.body.color, np.float32) * rng.uniform(0.92, 1.06)
    ink = np.array(style.ink, np.float32) * rng.uniform(0.9, 1.08)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (s, s)).astype(np.float32), (0, 0), 2) * 6
    color = body[None, None, :] + grain[..., None]
    if style.body.marble:  # veins of a lighter and a darker tone swirling through the body
        yy0, xx0 = np.mgrid[0:s, 0:s].astype(np.float32) / s
        warp = cv2.GaussianBlur(rng.normal(0, 1, (s, s)).astype(np.float32), (0, 0), 10) * 40
        f = rng.uniform(3, 8)
        veins = np.sin(2 * math.pi * f * (xx0 * rng.uniform(-1, 1) + yy0) + warp)
        color = color + (veins[..., None] * rng.uniform(10, 35)) * np.array(
            rng.uniform(0.6, 1.2, 3), np.float32
        )
    if style.body.pattern:
        color = color + _pattern(style.body.pattern, s, rng)
    m = mask[..., None]
    color = color * (1 - m) + ink[None, None, :] * m
    lx, ly = light
    if art.finish == "engraved":
        d = s * 0.018
        lit_wall = np.clip(_shift(mask, -lx * d, -ly * d) - mask, 0, 1)
        dark_wall = np.clip(mask - _shift(mask, lx * d, ly * d), 0, 1)
        color = color * (1 - 0.45 * dark_wall[..., None]) + 70 * lit_wall[..., None]
    elif (
        art.finish == "raised"
    ):  # the ink stands proud: lit on the light's side, a shadow on the other
        d = s * 0.02
        lit_edge = np.clip(mask - _shift(mask, lx * d, ly * d), 0, 1)
        shadow = np.clip(_shift(mask, -lx * d, -ly * d) - mask, 0, 1)
        color = color * (1 - 0.4 * shadow[..., None]) + 60 * lit_edge[..., None]
    # Bevel: edges facing the light are brighter, the others darker.
    facing = (nx * lx + ny * ly) * bevel
    color = color * (1 + 0.35 * facing[..., None]) - 18 * bevel[..., None]
    if style.body.rim_gloss > 0:  # room light caught all round the rim, most facing the lamp
        catch = bevel**2 * (0.4 + 0.6 * np.clip(nx * lx + ny * ly, 0, 1))
        color = color + (style.body.rim_gloss * 110 * catch)[..., None]
    gx, gy = rng.uniform(0.2, 0.8, 2) * s
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    gloss = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * (0.3 * s) ** 2)) * rng.uniform(0, 45)
    color = color + gloss[..., None]
    a = alpha.copy()
    if style.body.translucent:
        a = alpha * np.maximum(0.72, mask)
    return np.clip(color, 0, 255).astype(np.float32), a.astype(np.float32)


def _pattern(kind: str, s: int, rng: np.random.Generator) -> F32:
    """A body pattern added to the face's colour (BGR, about -40..40): wood grain, flecks or
    a pearly sheen."""
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s
    if kind == "wood":  # growth rings seen from the side: bands along one direction, warped
        a = rng.uniform(0, math.pi)
        warp = cv2.GaussianBlur(rng.normal(0, 1, (s, s)).astype(np.float32), (0, 0), 12) * 25
        u = xx * math.cos(a) + yy * math.sin(a)
        bands = np.sin(2 * math.pi * rng.uniform(4, 14) * u + warp) ** 3
        fibre = cv2.GaussianBlur(rng.normal(0, 1, (s, s)).astype(np.float32), (0, 0), 1) * 4
        tone = np.array(rng.uniform([0.4, 0.7, 1.0], [0.6, 0.9, 1.1]), np.float32)
        return np.asarray((bands * rng.uniform(12, 35) + fibre)[..., None] * tone, np.float32)
    if kind == "speckled":  # flecks of a darker or lighter paint
        n = int(rng.integers(40, 240))
        flecks = np.zeros((s, s), np.float32)
        pts = rng.integers(0, s, (n, 2))
        flecks[pts[:, 1], pts[:, 0]] = rng.choice([-1.0, 1.0], n) * rng.uniform(0.5, 1.0, n)
        flecks = cv2.GaussianBlur(flecks, (0, 0), rng.uniform(0.6, 1.4)) * rng.uniform(150, 400)
        return np.asarray(np.clip(flecks, -80, 80)[..., None] * np.ones(3, np.float32), np.float32)
    if kind == "pearl":  # a soft sheen whose hue drifts across the face
        phase = rng.uniform(0, 2 * math.pi, 3).astype(np.float32)
        f = rng.uniform(0.8, 2.0)
        wave = np.sin(2 * math.pi * f * (xx + 0.6 * yy)[..., None] + phase)
        return np.asarray(wave * rng.uniform(8, 22), np.float32)
    raise ValueError(f"unknown body pattern {kind!r}")


def warp_into(
    layer: F32,
    cover: F32,
    tex: F32,
    alpha: F32,
    quad: F64,
    shade: float = 1.0,
    flags: int = cv2.INTER_LINEAR,
) -> None:
    """A face texture warped onto an image quad of `layer`, darkened by `shade` (a side)."""
    s = tex.shape[0]
    src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)
    hmat = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    size = (layer.shape[1], layer.shape[0])
    wt = cv2.warpPerspective(tex, hmat, size, flags=flags)
    wa = cv2.warpPerspective(alpha, hmat, size, flags=cv2.INTER_LINEAR)
    layer[:] = layer * (1 - wa[..., None]) + wt * shade * wa[..., None]
    cover[:] = np.maximum(cover, wa)


def _ring(corners: F64, inset: float) -> F64:
    """Chamfered outline: every corner replaced by two points along its edges."""
    out = []
    for i in range(4):
        prev, cur, nxt = corners[i - 1], corners[i], corners[(i + 1) % 4]
        out.append(cur + (prev - cur) * inset)
        out.append(cur + (nxt - cur) * inset)
    return np.array(out)


def draw_die(
    img: F32,
    top: F64,
    bottom: F64,
    texture: tuple[F32, F32],
    style: Style,
    light: tuple[float, float],
    side_textures: list[tuple[F32, F32]] | None = None,
) -> None:
    """Draw a die in place: its visible sides, then its textured top face.

    `top` and `bottom` are the image corners of the top face and of the
    footprint, in the same order as the texture's corners. `side_textures`
    (four, one a side) paints the sides with art as a real die's are, shaded;
    without them the sides are plain body colour.
    """
    body = np.array(style.body.color, np.float32)
    inset = style.body.radius * 0.6
    ring_t, ring_b = _ring(top, inset), _ring(bottom, inset)
    hull = cv2.convexHull(np.vstack([ring_t, ring_b]).astype(np.float32)).reshape(-1, 2)
    x0, y0 = np.floor(hull.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + 3
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    off = np.array([x0, y0], np.float64)
    roi = img[y0:y1, x0:x1]
    layer = np.zeros_like(roi)
    cover = np.zeros(roi.shape[:2], np.float32)
    shift = 3
    f = float(1 << shift)

    def fill(poly: F64, color: npt.NDArray[np.float32]) -> None:
        pts = np.round((poly - off) * f).astype(np.int32)
        cv2.fillPoly(layer, [pts], color.tolist(), cv2.LINE_AA, shift)
        cv2.fillPoly(cover, [pts], 1.0, cv2.LINE_AA, shift)

    fill(hull.astype(np.float64), body * 0.5)
    lx, ly = light
    center = bottom.mean(axis=0)
    for i in range(4):
        j = (i + 1) % 4
        quad = np.array([bottom[i], bottom[j], top[j], top[i]])
        edge_mid = (bottom[i] + bottom[j]) / 2 - center
        n = edge_mid / (np.linalg.norm(edge_mid) + 1e-9)
        # The top face, nearer the camera, lies farther out in the image than the footprint,
        # so a side that faces the camera has its top edge inside the footprint's edge. Plain
        # sides (the training renders since the first round) are drawn on the sides facing
        # away, which the top face then mostly hides: the sides in view keep the hull's dark
        # body colour. Painted sides are drawn where they are seen.
        lean = float(np.dot((top[i] + top[j]) / 2 - (bottom[i] + bottom[j]) / 2, n))
        if (lean >= 0) if side_textures is not None else (lean <= 0):
            continue
        # a side may be lit brighter than the top (a lamp low beside the table)
        shade = min(1.5, style.body.side_shade + 0.3 * max(0.0, float(n[0] * lx + n[1] * ly)))
        quad_in = np.array(
            [
                quad[0] + (quad[1] - quad[0]) * inset,
                quad[1] + (quad[0] - quad[1]) * inset,
                quad[2] + (quad[3] - quad[2]) * inset,
                quad[3] + (quad[2] - quad[3]) * inset,
            ]
        )
        fill(quad_in, body * shade)
        if side_textures is not None:
            side, side_alpha = side_textures[i]
            warp_into(layer, cover, side, side_alpha, quad_in - off, shade, cv2.INTER_AREA)
    tex, alpha = texture
    s = tex.shape[0]
    src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)
    hmat = cv2.getPerspectiveTransform(src, (top - off).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    wt = cv2.warpPerspective(
        tex, hmat, size, flags=cv2.INTER_AREA if s > 2 * max(size) else cv2.INTER_LINEAR
    )
    wa = cv2.warpPerspective(alpha, hmat, size, flags=cv2.INTER_LINEAR)
    if style.body.translucent:
        # Light passes through: the body shows a blurred, tinted table.
        tint = np.asarray(cv2.GaussianBlur(roi, (0, 0), 3), np.float32) * (body / 255.0) * 1.2
        layer = np.asarray(layer * 0.7 + tint * 0.3 * cover[..., None], np.float32)
    layer = layer * (1 - wa[..., None]) + wt * wa[..., None]
    cover = np.maximum(cover, wa)
    if style.body.translucent:
        under = cv2.GaussianBlur(roi, (0, 0), 2) * (body / 255.0 + 0.3)
        wt_mix = wa * 0.72
        layer = layer * (1 - wt_mix[..., None] * 0.25) + under * wt_mix[..., None] * 0.25
    img[y0:y1, x0:x1] = roi * (1 - cover[..., None]) + layer * cover[..., None]


def square(center: tuple[float, float], edge: float, angle: float) -> F64:
    """Corners of a square on the table, clockwise on screen."""
    c, s = math.cos(angle), math.sin(angle)
    half = edge / 2
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return np.asarray(local @ np.array([[c, s], [-s, c]]) + np.asarray(center), np.float64)
