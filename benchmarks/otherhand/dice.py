"""A die in perspective: a rounded cube with six printed faces, seen by a pinhole camera.

Coordinates: the table is the plane z = 0 in millimetres, z points up. Image
coordinates put the centre of pixel (i, j) at (i, j).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from .art import F64, FACES, TEX, Arr, Rng, make_artwork

# canonical cube faces: outward normal and the direction the art's "up" points
NORMALS = np.array(
    [[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], np.float64
)
UPS = np.array([[0, 1, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 0, 1]], np.float64)


def _rotations() -> list[F64]:
    """The 24 proper rotations of a cube (signed permutation matrices, det +1)."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for r, (c, s) in enumerate(zip(perm, signs, strict=True)):
                m[r, c] = s
            if np.linalg.det(m) > 0:
                out.append(m)
    return out


ROTS = _rotations()


def rot_z(a: float) -> F64:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


@dataclass
class Camera:
    K: F64
    R: F64  # world -> camera
    C: F64  # camera centre in the world
    w: int
    h: int

    def project(self, X: F64) -> F64:
        pc = (X - self.C) @ self.R.T
        uv = pc @ self.K.T
        return np.asarray(uv[:, :2] / uv[:, 2:3], dtype=np.float64)

    def depth(self, X: F64) -> F64:
        return np.asarray(((X - self.C) @ self.R.T)[:, 2], dtype=np.float64)

    def to_plane(self, uv: F64, z: float) -> F64:
        """World points at height z seen at image points uv."""
        rays = np.hstack([uv, np.ones((len(uv), 1))]) @ np.linalg.inv(self.K).T @ self.R
        t = (z - self.C[2]) / rays[:, 2]
        return np.asarray(self.C + rays * t[:, None], dtype=np.float64)


def make_camera(
    rng: Rng, w: int, h: int, edge_px: float, size_mm: float, tilt_max: float = 25.0
) -> Camera:
    """A camera tilted up to tilt_max degrees, at the distance that gives dice of about edge_px."""
    f = rng.uniform(0.8, 1.25) * w
    tilt = math.radians(rng.uniform(0, tilt_max) if rng.random() < 0.7 else rng.uniform(0, 4))
    az = rng.uniform(0, 2 * math.pi)
    d = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), -math.cos(tilt)])
    ref = np.array([1.0, 0.0, 0.0]) if abs(d[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(d, ref)
    x /= np.linalg.norm(x)
    y = np.cross(d, x)
    roll = rng.uniform(0, 2 * math.pi)
    xr = math.cos(roll) * x + math.sin(roll) * y
    yr = np.cross(d, xr)
    R = np.stack([xr, yr, d])
    dist = f * size_mm / edge_px
    C = np.array([0.0, 0.0, size_mm]) - dist * d
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)
    return Camera(K, R, C, w, h)


# ---------------------------------------------------------------- the set's body and finish
@dataclass
class Finish:
    kind: str  # ink, engraved, embossed, gold, silver, outline
    ink: F64  # colour of printed ink or of paint in recesses


@dataclass
class SetStyle:
    name: str
    masks: dict[str, Arr]
    art_desc: dict[str, str]
    body: Arr  # 2*TEX square RGB texture, cut per face
    body_desc: str
    body_mean: F64
    finish: Finish
    round_frac: float  # corner and edge rounding, as a fraction of the edge
    gloss: float
    size_mm: float
    net: list[str]  # motif on each canonical face
    turns: list[int]  # quarter turns of each face's art
    trans: float = 0.0  # how translucent the body looks
    geo: dict[int, tuple[Arr, Arr, Arr, Arr]] = field(default_factory=dict)


def smooth_noise(rng: Rng, h: int, w: int, cells: int) -> Arr:
    g = rng.standard_normal((cells + 1, cells + 1)).astype(np.float32)
    return np.asarray(cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def turbulence(rng: Rng, n: int, base: int = 3, octaves: int = 4) -> Arr:
    out = np.zeros((n, n), np.float32)
    for o in range(octaves):
        out += smooth_noise(rng, n, n, base * 2**o) / 2**o
    return out


def _hsv(h: float, s: float, v: float) -> F64:
    px = np.array([[[round(h * 179) % 180, round(s * 255), round(v * 255)]]], np.uint8)
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_HSV2RGB)[0, 0] / 255.0, np.float64)


BODIES = ("solid", "marbled", "speckled", "pearl", "translucent", "wood")


def _body(rng: Rng, kind: str | None = None) -> tuple[Arr, str, float]:
    """A body texture; returns it, a description and how translucent it looks."""
    n = 2 * TEX
    kind = str(rng.choice(BODIES)) if kind is None else kind
    hue = rng.random()
    dark = rng.random() < 0.45
    c1 = _hsv(
        hue, rng.uniform(0.2, 0.9), rng.uniform(0.12, 0.35) if dark else rng.uniform(0.55, 0.95)
    )
    img = np.ones((n, n, 3), np.float32) * c1.astype(np.float32)
    trans = 0.0
    if kind == "marbled":
        far = _hsv(
            hue + rng.uniform(-0.15, 0.15),
            rng.uniform(0.0, 0.6),
            rng.uniform(0.6, 1.0) if dark else rng.uniform(0.1, 0.5),
        )
        c2 = c1 + (far - c1) * rng.uniform(0.3, 0.55)  # veins stay calmer than the art
        xx = np.linspace(0, 1, n, dtype=np.float32)[None, :] * np.ones((n, 1), np.float32)
        v = np.sin((xx * rng.uniform(3, 7) + 1.2 * turbulence(rng, n)) * math.pi)
        t = np.clip(1 - np.abs(v) * rng.uniform(2, 5), 0, 1)[..., None]
        img = np.asarray(img * (1 - t) + c2.astype(np.float32) * t, np.float32)
    elif kind == "speckled":
        for _ in range(2):
            cs = _hsv(rng.random(), rng.uniform(0, 0.8), rng.uniform(0.0, 1.0))
            m = np.zeros((n, n), np.uint8)
            for _ in range(int(rng.integers(150, 500))):
                cv2.circle(
                    m,
                    (int(rng.integers(n)), int(rng.integers(n))),
                    int(rng.integers(1, 4)),
                    255,
                    -1,
                )
            t = (m.astype(np.float32) / 255)[..., None]
            img = np.asarray(img * (1 - t) + cs.astype(np.float32) * t, np.float32)
    elif kind == "pearl":
        sheen = turbulence(rng, n, 2, 2)[..., None]
        c2 = _hsv(hue + 0.12, 0.3, 0.95)
        img = img + (c2.astype(np.float32) - img) * np.clip(0.25 + 0.2 * sheen, 0, 0.6)
    elif kind == "translucent":
        trans = float(rng.uniform(0.3, 0.6))
        img = img * (1 + 0.08 * turbulence(rng, n, 2, 2)[..., None])
    elif kind == "wood":
        c1 = _hsv(rng.uniform(0.05, 0.1), rng.uniform(0.4, 0.75), rng.uniform(0.35, 0.8))
        c2 = c1 * 0.6
        yy = np.linspace(0, 1, n, dtype=np.float32)[:, None] * np.ones((1, n), np.float32)
        ring = 0.5 + 0.5 * np.sin(
            (yy * rng.uniform(12, 25) + 0.6 * turbulence(rng, n, 2, 3)) * 2 * math.pi
        )
        t = (ring**3)[..., None]
        img = np.asarray(c1.astype(np.float32) * (1 - t) + c2.astype(np.float32) * t, np.float32)
    img = img + rng.normal(0, 0.012, img.shape).astype(np.float32)
    return np.clip(img, 0, 1).astype(np.float32), f"{'dark ' if dark else ''}{kind}", trans


FINISHES = ("ink", "ink", "engraved", "embossed", "gold", "silver", "outline")


def _finish(rng: Rng, body_mean: F64, kind: str | None = None) -> Finish:
    kind = str(rng.choice(FINISHES)) if kind is None else kind
    lum = float(body_mean @ [0.3, 0.59, 0.11])
    if kind == "gold":
        ink = np.array([0.93, 0.75, 0.3])
    elif kind == "silver":
        ink = np.array([0.85, 0.86, 0.9])
    elif kind == "engraved":  # recesses filled with paint or left dark
        ink = _hsv(rng.random(), rng.uniform(0, 0.5), 0.95) if lum < 0.45 else body_mean * 0.25
    else:
        ink = _hsv(
            rng.random(),
            rng.uniform(0, 0.9),
            rng.uniform(0.85, 1.0) if lum < 0.5 else rng.uniform(0.0, 0.25),
        )
    if kind in ("gold", "silver") and lum > 0.55:  # metallic paint on a pale body gets a dark rim
        kind = kind + "+rim"
    return Finish(kind, ink)


def make_style(rng: Rng, name: str, plan: dict[str, str] | None = None) -> SetStyle:
    plan = plan or {}
    masks, art_desc = make_artwork(rng, plan)
    body, body_desc, trans = _body(rng, plan.get("body"))
    mean = np.asarray(body.reshape(-1, 3).mean(0), np.float64)
    fin = _finish(rng, mean, plan.get("finish"))
    net = ["I", "I", "1", "2", "3", "E"]
    order = rng.permutation(6)
    style = SetStyle(
        name=name,
        masks=masks,
        art_desc=art_desc,
        body=body,
        body_desc=body_desc + (f" (translucent {trans:.1f})" if trans else ""),
        body_mean=mean,
        finish=fin,
        round_frac=float(rng.uniform(0.08, 0.2)),
        gloss=float(rng.uniform(0.1, 0.7) + (0.3 if trans else 0)),
        size_mm=float(rng.uniform(14, 20)),
        net=[net[i] for i in order],
        turns=[int(t) for t in rng.integers(0, 4, 6)],
        trans=trans,
    )
    return style


def _geometry(style: SetStyle, res: int) -> tuple[Arr, Arr, Arr, Arr]:
    """Per texel of a face: alpha of the rounded square, bevel angle and outward direction."""
    if res in style.geo:
        return style.geo[res]
    h = res / 2
    rc = style.round_frac * res
    c = (np.arange(res, dtype=np.float32) + 0.5) - h
    px, py = np.meshgrid(c, c)
    qx, qy = np.abs(px) - (h - rc), np.abs(py) - (h - rc)
    sd = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0) - rc
    alpha = np.clip(0.5 - sd / 1.2, 0, 1).astype(np.float32)
    bevel = np.clip(1 + sd / (1.2 * rc), 0, 1).astype(np.float32)  # 1 at the rim, 0 inside
    gy, gx = np.gradient(sd)
    nn = np.maximum(np.hypot(gx, gy), 1e-6)
    out = (alpha, bevel, (gx / nn).astype(np.float32), (gy / nn).astype(np.float32))
    style.geo[res] = out
    return out


# ---------------------------------------------------------------- one die
@dataclass
class Die:
    X: float
    Y: float
    yaw: float
    rot: F64  # cube orientation before the yaw
    motif: str
    seed: int  # per-die print variation, wear and body cut

    def R(self) -> F64:
        return np.asarray(rot_z(self.yaw) @ self.rot, np.float64)

    def face_corners(self, i: int, s: float) -> tuple[F64, F64, F64, F64]:
        """World corners (TL, TR, BR, BL of the art) of face i, and its normal, up, right."""
        R = self.R()
        n, u = R @ NORMALS[i], R @ UPS[i]
        r = np.cross(u, n)
        c = np.array([self.X, self.Y, s / 2]) + n * s / 2
        h = s / 2
        corners = np.array(
            [c - r * h + u * h, c + r * h + u * h, c + r * h - u * h, c - r * h - u * h]
        )
        return corners, n, u, r

    def top_index(self) -> int:
        return int(np.argmax((self.R() @ NORMALS.T)[2]))

    def top_quad(self, cam: Camera, s: float) -> F64:
        return cam.project(self.face_corners(self.top_index(), s)[0])

    def footprint(self, s: float) -> F64:
        R = rot_z(self.yaw)[:2, :2]
        sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * s / 2
        return np.asarray(sq @ R.T + [self.X, self.Y], np.float64)


def orient(rng: Rng, style: SetStyle, motif: str) -> F64:
    """A cube orientation that puts a face with `motif` on top."""
    faces = [i for i, m in enumerate(style.net) if m == motif]
    i = int(rng.choice(faces))
    ok = [R for R in ROTS if (R @ NORMALS[i])[2] > 0.5]
    return ok[int(rng.integers(len(ok)))]


def face_rgba(
    style: SetStyle, die: Die, i: int, n: F64, u: F64, r: F64, light: F64, res: int, top: bool
) -> Arr:
    """The face texture as seen under the light: body, art with its finish, bevel shading."""
    rng = np.random.default_rng([die.seed, i])
    alpha, bevel, gx, gy = _geometry(style, res)
    big = style.body
    off = rng.integers(0, big.shape[0] - TEX, 2)
    body = big[off[0] : off[0] + TEX, off[1] : off[1] + TEX]
    body = np.rot90(body, int(rng.integers(4)))
    mask = np.rot90(style.masks[style.net[i]], style.turns[i])
    # print variation: a fraction of a pixel of offset, ink weight, a little wear
    mask = np.roll(mask, (int(rng.integers(-2, 3)), int(rng.integers(-2, 3))), (0, 1))
    mask = np.clip(mask ** rng.uniform(0.8, 1.25), 0, 1)
    if rng.random() < 0.3:
        wear = smooth_noise(rng, TEX, TEX, 12)
        mask = mask * np.clip(1.6 + wear, 0.4, 1.0)
    col = _apply_finish(style, body, mask.astype(np.float32), light, n, u, r)
    if res != TEX:
        col = np.asarray(cv2.resize(col, (res, res), interpolation=cv2.INTER_AREA), np.float32)
    # rounded edges: the rim's normal turns outwards, so it takes the light differently
    ang = bevel * 1.35
    outward = gx[..., None] * r - gy[..., None] * u
    normal = np.cos(ang)[..., None] * n + np.sin(ang)[..., None] * outward
    lam = np.clip(normal @ light, 0, 1).astype(np.float32)
    amb = 0.42
    shade = amb + (1 - amb) * lam
    shade *= 1 - 0.12 * bevel
    out = col * shade[..., None]
    if style.trans:  # light scattered inside a translucent body glows through the middle
        out = out * (1 - 0.25 * style.trans) + style.trans * 0.3 * col * (1 - bevel)[..., None]
    if top and style.gloss > 0:  # a soft highlight where the light glints
        cx, cy = rng.uniform(0.2, 0.8, 2) * res
        sig = rng.uniform(0.08, 0.25) * res
        c = np.arange(res, dtype=np.float32)
        g = np.exp(-((c[None, :] - cx) ** 2 + (c[:, None] - cy) ** 2) / (2 * sig * sig))
        out = out + (style.gloss * rng.uniform(0.15, 0.45) * g)[..., None]
    return np.dstack([np.clip(out, 0, 1), alpha]).astype(np.float32)


def _apply_finish(style: SetStyle, body: Arr, mask: Arr, light: F64, n: F64, u: F64, r: F64) -> Arr:
    f = style.finish
    m = mask[..., None]
    ink = f.ink.astype(np.float32)
    # light direction in texture axes, for relief shading
    lx, ly = float(light @ r), float(-(light @ u))
    if f.kind == "outline":
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15))  # bold enough for small dice
        edge = np.clip(mask - cv2.erode(mask, k), 0, 1)[..., None]
        return np.asarray(body * (1 - edge) + ink * edge, np.float32)
    if f.kind == "ink":
        return np.asarray(body * (1 - m) + ink * m, np.float32)
    soft = cv2.GaussianBlur(mask, (0, 0), 2.0)
    dx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3)
    dy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)
    relief = (dx * lx + dy * ly) * 1.6
    if f.kind == "engraved":  # recessed: the wall facing the light is lit, the other in shadow
        out = body * (1 - m) + ink * m
        out = out * (1 + np.clip(relief, -0.6, 0.6))[..., None]
        return np.asarray(out, np.float32)
    if f.kind == "embossed":  # raised in body colour, seen by its relief and a lighter top
        top = np.clip(body * 1.35 + 0.1, 0, 1)
        out = body * (1 - m) + top * m
        out = out * (1 - np.clip(relief, -0.7, 0.7))[..., None]
        return np.asarray(out, np.float32)
    # metallic paint: streaky sheen, a thin dark rim on pale bodies
    yy = np.linspace(0, 1, mask.shape[0], dtype=np.float32)[:, None]
    xx = np.linspace(0, 1, mask.shape[1], dtype=np.float32)[None, :]
    sheen = 0.75 + 0.35 * np.sin((xx * 1.3 + yy) * 7.0 + 3 * lx)
    metal = np.clip(ink * sheen[..., None], 0, 1)
    out = body * (1 - m) + metal * m
    if f.kind.endswith("+rim"):
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
        rim = np.clip(cv2.dilate(mask, k) - mask, 0, 1)[..., None]
        out = out * (1 - 0.7 * rim)
    out = out * (1 - 0.5 * np.clip(relief, -0.5, 0.5))[..., None]
    return np.asarray(out, np.float32)


FACE_NAMES = FACES  # re-exported for callers that label crops


def warp_face(frame: Arr, tex: Arr, quad: F64) -> None:
    """Paint a face texture onto the frame inside the image quad (in place)."""
    h, w = frame.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    res = tex.shape[0]
    src = np.array(
        [[-0.5, -0.5], [res - 0.5, -0.5], [res - 0.5, res - 0.5], [-0.5, res - 0.5]], np.float32
    )
    dst = (quad - [x0, y0]).astype(np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(
        tex, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0)
    )
    a = warped[..., 3:4]
    roi = frame[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + warped[..., :3] * a


def texture_res(edge_px: float) -> int:
    """Pre-shrink textures for small dice so that warping does not alias the art."""
    return TEX if edge_px > 100 else TEX // 2 if edge_px > 50 else TEX // 4


def draw_body(frame: Arr, cam: Camera, die: Die, style: SetStyle, light: F64) -> None:
    """Sides of the die and the filled, rounded silhouette behind them."""
    s = style.size_mm
    R = die.R()
    corners = np.array(list(itertools.product((-1, 1), repeat=3)), np.float64) * s / 2
    pts = cam.project(corners @ R.T + [die.X, die.Y, s / 2])
    tq = die.top_quad(cam, s)
    edge = float(np.mean(np.linalg.norm(tq - np.roll(tq, -1, 0), axis=1)))
    hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    rad = max(1.0, style.round_frac * edge * 0.8)
    cen = hull.mean(0)
    inner = cen + (hull - cen) * max(0.2, 1 - rad / max(edge * 0.6, 1))
    x0, y0 = np.floor(hull.min(0)).astype(int) - 3
    x1, y1 = np.ceil(hull.max(0)).astype(int) + 4
    H, W = frame.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 > x0 and y1 > y0:
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(
            m, np.round((inner - [x0, y0]) * 4).astype(np.int32), 255, cv2.LINE_AA, 2
        )
        k = 2 * round(rad) + 1
        m = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        a = (cv2.GaussianBlur(m, (3, 3), 0.7).astype(np.float32) / 255)[..., None]
        fill = (style.body_mean * 0.5).astype(np.float32)
        roi = frame[y0:y1, x0:x1]
        roi[:] = roi * (1 - a) + fill * a
    res = texture_res(edge)
    top = die.top_index()
    for i in range(6):
        if i == top:
            continue
        c4, n, u, r = die.face_corners(i, s)
        if n @ (cam.C - c4.mean(0)) <= 0:
            continue
        warp_face(frame, face_rgba(style, die, i, n, u, r, light, res, False), cam.project(c4))


def draw_top(frame: Arr, cam: Camera, die: Die, style: SetStyle, light: F64) -> F64:
    s = style.size_mm
    i = die.top_index()
    c4, n, u, r = die.face_corners(i, s)
    quad = cam.project(c4)
    edge = float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, 0), axis=1)))
    warp_face(frame, face_rgba(style, die, i, n, u, r, light, texture_res(edge), True), quad)
    return quad


__all__ = ["Camera", "Die", "SetStyle", "make_camera", "make_style", "orient", "npt"]
