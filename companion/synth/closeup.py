"""Close-ups: small frames holding one die (VISION.md: a frame like any other).

A close-up is cut from a rendered table around one die, so that touching
neighbours show in part at its border, as when a camera is held close to a
few dice. Used by tests and benchmarks of the die finder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from companion.synth.frame import DieTruth, RenderedFrame, render_frame
from companion.synth.styles import TRAIN, Style


def render_closeup(
    seed: int,
    *,
    size: int = 96,
    edge: tuple[float, float] = (48.0, 65.0),
    offset: float = 0.0,
    styles: Sequence[Style] = TRAIN,
) -> RenderedFrame:
    """A size x size frame whose central die has an edge in ``edge`` (pixels).

    The die's center lies ``offset`` pixels from the frame's center (in a
    random direction): with offset near size / 2 its face is partly outside
    the frame. ``dice`` holds every die whose center is inside the frame, the
    chosen one first.
    """
    rng = np.random.default_rng([seed, 96])
    for attempt in range(50):
        e = float(rng.uniform(*edge))
        # A small table whose dice already have the wanted size: cheap to draw.
        f = render_frame(
            seed * 50 + attempt,
            n_dice=7,
            size=(3 * size, 3 * size),
            styles=styles,
            edge_range=(e, e),
            tilt_deg=float(rng.uniform(0, 15)),
        )
        h, w = f.image.shape[:2]
        a = float(rng.uniform(0, 2 * np.pi))
        shift = np.array([np.cos(a), np.sin(a)]) * offset
        order = sorted(f.dice, key=lambda d: np.hypot(d.center[0] - w / 2, d.center[1] - h / 2))
        for d in order:
            if not edge[0] * 0.93 <= d.edge <= edge[1] * 1.07:
                continue  # perspective grew or shrank it out of range
            x0 = int(round(d.center[0] - size / 2 + shift[0]))
            y0 = int(round(d.center[1] - size / 2 + shift[1]))
            if 0 <= x0 <= w - size and 0 <= y0 <= h - size:
                return _cut(f, d, x0, y0, size)
    raise RuntimeError(f"no close-up fits for seed {seed}")


def _cut(f: RenderedFrame, chosen: DieTruth, x0: int, y0: int, size: int) -> RenderedFrame:
    off = np.array([x0, y0], np.float64)

    def moved(d: DieTruth) -> DieTruth:
        return replace(d, center=(d.center[0] - x0, d.center[1] - y0), corners=d.corners - off)

    inside = [
        moved(d)
        for d in f.dice
        if d is not chosen and 0 <= d.center[0] - x0 < size and 0 <= d.center[1] - y0 < size
    ]
    image = np.ascontiguousarray(f.image[y0 : y0 + size, x0 : x0 + size])
    return RenderedFrame(image, [moved(chosen), *inside])
