"""Printed things that look like squares but are no dice: the die finder's hard negatives.

Grid and graph paper, ruled paper, squared tiles, checkerboards, printed
fiducial markers (ArUco-like) and QR-like squares, score sheets with boxes.
A foreign renderer's frames put dice on such sheets, and a finder that had
seen none of them took 60-90 empty grid squares and the markers of one frame
for dice. These sheets are drawn flat (`sheet`), then laid over a frame with
perspective, the frame's own light and blur (`lay_over`), around its dice.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

KINDS = ("grid", "graph", "ruled", "tiles", "checker", "markers", "sheet")


def _paper(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """A paper or mat colour: mostly light and unsaturated, sometimes tinted (green, blue, beige
    mats)."""
    hsv = np.array(
        [
            [
                [
                    rng.integers(0, 180),
                    rng.integers(0, 90 if rng.random() < 0.7 else 180),
                    rng.integers(120, 250),
                ]
            ]
        ],
        np.uint8,
    )
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float32)


def _ink(rng: np.random.Generator, paper: npt.NDArray[np.float32]) -> tuple[float, float, float]:
    """Line colour: darker than the paper (black, grey, or the paper's hue darkened)."""
    if rng.random() < 0.5:
        c = paper * rng.uniform(0.15, 0.7)
    else:
        c = np.full(3, rng.uniform(10, 120), np.float32)
    return float(c[0]), float(c[1]), float(c[2])


def marker(rng: np.random.Generator, size: int) -> F32:
    """A printed fiducial, gray 0..1: white margin, black border, a 3..7 cell bit grid inside."""
    cells = int(rng.integers(3, 8))
    n = cells + 2
    grid = np.zeros((n, n), np.float32)
    grid[1:-1, 1:-1] = rng.integers(0, 2, (cells, cells))
    margin = rng.uniform(0.0, 0.25)
    pad = int(round(n * margin))
    grid = np.pad(grid, pad, constant_values=1.0)
    return np.asarray(cv2.resize(grid, (size, size), interpolation=cv2.INTER_NEAREST), np.float32)


def _lines(
    img: F32,
    rng: np.random.Generator,
    pitch: float,
    width: int,
    ink: tuple[float, float, float],
    *,
    vertical: bool = True,
    major: int = 0,
) -> None:
    h, w = img.shape[:2]
    off = rng.uniform(0, pitch)
    for axis in (0, 1) if vertical else (1,):
        n = w if axis == 0 else h
        k = 0
        t = off
        while t < n:
            lw = width * (2 if major and k % major == 0 else 1)
            p0, p1 = ((int(t), 0), (int(t), h)) if axis == 0 else ((0, int(t)), (w, int(t)))
            cv2.line(img, p0, p1, ink, lw, cv2.LINE_AA)
            t += pitch
            k += 1


def sheet(
    rng: np.random.Generator, size: int, pitch: float, kind: str | None = None
) -> tuple[F32, F32]:
    """A flat printed sheet of `size` x `size` px whose squares are about `pitch` px.

    Returns the sheet (BGR float 0..255) and its coverage (1 where it is opaque,
    0 where the table shows through: markers and score sheets are pieces of
    paper, a grid or a tiled mat covers everything).
    """
    kind = kind or str(rng.choice(KINDS))
    paper = _paper(rng)
    img = np.ones((size, size, 3), np.float32) * paper
    cover = np.ones((size, size), np.float32)
    ink = _ink(rng, paper)
    width = max(1, int(round(pitch * rng.uniform(0.02, 0.1))))
    if kind == "grid":
        _lines(img, rng, pitch, width, ink)
    elif kind == "graph":  # fine lines with a major line every few
        fine = pitch / int(rng.integers(2, 6))
        mid = (np.array(ink, np.float32) + paper) / 2
        _lines(img, rng, fine, 1, (float(mid[0]), float(mid[1]), float(mid[2])))
        _lines(img, rng, pitch, width, ink)
    elif kind == "ruled":
        _lines(img, rng, pitch * rng.uniform(0.3, 1.0), width, ink, vertical=False)
        if rng.random() < 0.5:
            x = int(rng.uniform(0, size))
            cv2.line(img, (x, 0), (x, size), (60.0, 60.0, 200.0), width, cv2.LINE_AA)
    elif kind == "tiles":  # tiles of varying shade with grout between them
        n = int(math.ceil(size / pitch)) + 1
        shades = rng.uniform(0.85, 1.15, (n, n)).astype(np.float32)
        tile = cv2.resize(
            shades, (int(n * pitch), int(n * pitch)), interpolation=cv2.INTER_NEAREST
        )[:size, :size]
        img *= tile[..., None]
        _lines(img, rng, pitch, max(width, 2), ink)
    elif kind == "checker":
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        check = ((xx // pitch + yy // pitch) % 2).astype(np.float32)
        other = np.array(_ink(rng, paper), np.float32)
        img = img * (1 - check[..., None]) + other * check[..., None]
    elif kind == "markers":  # a few fiducials on the table (paper only under them)
        img = np.ones((size, size, 3), np.float32) * 255.0 * rng.uniform(0.85, 1.0)
        cover[:] = 0
        for _ in range(int(rng.integers(1, 5))):
            ms = int(pitch * rng.uniform(0.8, 4.0))
            if ms >= size:
                ms = size - 1
            x, y = (
                int(rng.uniform(-ms / 2, size - ms / 2)),
                int(rng.uniform(-ms / 2, size - ms / 2)),
            )
            m = marker(rng, ms)
            xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + ms, size), min(y + ms, size)
            if xb <= xa or yb <= ya:
                continue
            part = m[ya - y : yb - y, xa - x : xb - x]
            img[ya:yb, xa:xb] = (part * 235 + 15)[..., None]
            cover[ya:yb, xa:xb] = 1
    else:  # score sheet: a table of boxes, some with scribbles
        cover[:] = 0
        x0, y0 = int(rng.uniform(-size / 3, size / 2)), int(rng.uniform(-size / 3, size / 2))
        cols, rows = int(rng.integers(2, 9)), int(rng.integers(2, 12))
        bw, bh = pitch * rng.uniform(0.7, 1.5), pitch * rng.uniform(0.5, 1.3)
        x1, y1 = int(x0 + cols * bw), int(y0 + rows * bh)
        cover[max(y0 - 10, 0) : max(y1 + 10, 0), max(x0 - 10, 0) : max(x1 + 10, 0)] = 1
        for i in range(cols + 1):
            cv2.line(img, (int(x0 + i * bw), y0), (int(x0 + i * bw), y1), ink, width, cv2.LINE_AA)
        for j in range(rows + 1):
            cv2.line(img, (x0, int(y0 + j * bh)), (x1, int(y0 + j * bh)), ink, width, cv2.LINE_AA)
        for i in range(cols):
            for j in range(rows):
                if rng.random() < 0.4:
                    pts = np.array(
                        [
                            [
                                x0 + (i + rng.uniform(0.2, 0.8)) * bw,
                                y0 + (j + rng.uniform(0.2, 0.8)) * bh,
                            ]
                            for _ in range(4)
                        ],
                        np.int32,
                    )
                    cv2.polylines(img, [pts], False, ink, max(1, width // 2), cv2.LINE_AA)
    if kind in ("grid", "graph", "tiles", "checker") and rng.random() < 0.4:
        # mats carry fiducials and printed zones too
        for _ in range(int(rng.integers(1, 3))):
            ms = int(pitch * rng.uniform(1.0, 3.5))
            if ms >= size:
                continue
            x, y = int(rng.uniform(0, size - ms)), int(rng.uniform(0, size - ms))
            img[y : y + ms, x : x + ms] = (marker(rng, ms) * 235 + 15)[..., None]
    img += rng.normal(0, rng.uniform(1, 5), (size, size, 1)).astype(np.float32)
    return np.clip(img, 0, 255), cover


def lay_over(
    rng: np.random.Generator,
    image: npt.NDArray[np.uint8],
    keep: F32,
    pitch: float,
    kind: str | None = None,
) -> npt.NDArray[np.uint8]:
    """`image` with a printed sheet laid under its dice: seen in perspective, lit like the frame.

    `keep` (H, W, 0..1) marks the dice, which stay as they are. The sheet takes
    the frame's low-frequency light (its shading and shadows), so that a grid
    square differs from a die by its shape and content, not by being flatter.
    """
    h, w = image.shape[:2]
    size = int(max(h, w) * 1.6)
    flat, cover = sheet(rng, size, pitch, kind)
    # a homography: the sheet's middle to the image's middle, turned, tilted up to ~35 degrees
    a = rng.uniform(0, 2 * math.pi)
    src = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    ctr = np.array(
        [w / 2 + rng.uniform(-0.2, 0.2) * w, h / 2 + rng.uniform(-0.2, 0.2) * h], np.float32
    )
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    dst = (src - size / 2) @ rot.T
    dst = dst * (1 + rng.uniform(-0.15, 0.15, (4, 1))).astype(np.float32) + ctr
    hmg = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    warped = cv2.warpPerspective(
        flat,
        hmg,
        (w, h),
        flags=cv2.INTER_AREA if pitch > 6 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    cov = cv2.warpPerspective(cover, hmg, (w, h), flags=cv2.INTER_LINEAR, borderValue=0.0)
    if rng.random() < 0.5:
        warped = cv2.GaussianBlur(warped, (0, 0), rng.uniform(0.4, 1.2))
    img = image.astype(np.float32)
    gray = img.mean(axis=2)
    light = cv2.GaussianBlur(gray, (0, 0), max(h, w) / 12.0)
    light = light / max(float(np.percentile(light, 90)), 1.0)
    lit = warped * np.clip(light, 0.3, 1.3)[..., None]
    # the frame's own shadows (darker than their surroundings) stay on the sheet
    local = cv2.GaussianBlur(gray, (0, 0), 6.0)
    shadow = np.clip(local / np.maximum(cv2.GaussianBlur(gray, (0, 0), 30.0), 1.0), 0.4, 1.0)
    lit *= shadow[..., None]
    alpha = (cov * (1.0 - np.clip(keep, 0, 1)))[..., None]
    out = img * (1 - alpha) + lit * alpha
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def dice_keep(shape: tuple[int, int], corners: F32 | F64, grow: float = 1.5) -> F32:
    """Where the dice are: each top face grown `grow` times about its center, feathered.

    The top face alone misses the sides a tilted camera sees; grown 1.5 times
    it holds them with a little table around.
    """
    h, w = shape
    keep = np.zeros((h, w), np.float32)
    for quad in np.asarray(corners, np.float64).reshape(-1, 4, 2):
        c = quad.mean(axis=0)
        poly = (quad - c) * grow + c
        cv2.fillConvexPoly(keep, np.round(poly * 4).astype(np.int32), 1.0, cv2.LINE_AA, 2)
    return np.asarray(cv2.GaussianBlur(keep, (0, 0), 1.5), np.float32)


def paste_markers(
    rng: np.random.Generator,
    image: F32,
    centers: F32,
    edges: F32,
    count: int,
    size_range: tuple[float, float] = (15.0, 90.0),
) -> F32:
    """`image` (H, W, 3 float 0..255) with up to `count` printed fiducials lying flat beside its
    dice.

    A marker is the size of a die or a few times it, turned and seen a little
    in perspective, never over a die (`centers`, `edges`: the dice in this
    image). The image's local brightness lights it, so it is no brighter than
    the table it lies on.
    """
    h, w = image.shape[:2]
    out = image.copy()
    gray = image.mean(axis=2)
    light = cv2.GaussianBlur(gray, (0, 0), max(h, w) / 8.0) / max(
        float(np.percentile(gray, 95)), 1.0
    )
    ref = float(np.median(edges)) if len(edges) else float(rng.uniform(*size_range))
    for _ in range(count):
        side = float(np.clip(ref * rng.uniform(0.7, 2.5), size_range[0], size_range[1] * 2.5))
        c = np.array([rng.uniform(0, w), rng.uniform(0, h)], np.float32)
        reach = side * 0.75
        if any(
            float(np.hypot(*(c - d))) < reach + 0.8 * e for d, e in zip(centers, edges, strict=True)
        ):
            continue
        n = max(8, int(side))
        flat = marker(rng, n)
        a = rng.uniform(0, 2 * math.pi)
        sq = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float32)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
        dst = (sq * (1 + rng.uniform(-0.08, 0.08, (4, 1))).astype(np.float32)) @ rot.T * side + c
        src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
        hmg = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        ink = cv2.warpPerspective(flat, hmg, (w, h), flags=cv2.INTER_AREA, borderValue=0.0)
        inside = cv2.warpPerspective(
            np.ones((n, n), np.float32), hmg, (w, h), flags=cv2.INTER_LINEAR, borderValue=0.0
        )
        white, black = rng.uniform(200, 250), rng.uniform(5, 50)
        printed = (black + (white - black) * ink) * np.clip(light, 0.25, 1.2)
        out = out * (1 - inside[..., None]) + printed[..., None] * inside[..., None]
    return np.asarray(out, np.float32)
