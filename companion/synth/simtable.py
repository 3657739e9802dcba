"""The simulated table: dice the game asks for, drawn onto the play mat's zones.

``SimulatedTable`` is the frame source that shows it (vision.sources holds the real ones).

Dice are laid out on a loose grid inside their zone (so they never overlap),
with positions that stay put while a zone's contents stay the same, and drawn
by the synth renderer as a camera straight above the mat would see them.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.camera import Camera, photograph
from companion.synth.dice import draw_die, face_texture, square
from companion.synth.styles import TRAIN, Style
from companion.vision.calibration import Calibration, draw_mat_view, nominal_calibration
from companion.vision.mat import Polygon
from companion.vision.sources import Frame, FrameSourceError, SourceBase

Truth = tuple[str, float, float, str]  # zone, x, y, face


def _seed(*parts: object) -> int:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "little")


#: Grid pitches tried in turn, in die edges: loose first, then packed for long layouts.
_PITCHES = (1.6, 1.35, 1.15)


def _slots(
    rect: tuple[float, float, float, float],
    n: int,
    die_mm: float,
    rng: np.random.Generator,
    taken: Sequence[Polygon],
) -> list[tuple[float, float, float]]:
    """n points (mm) in a zone rectangle, clear of ``taken``, each with the largest
    rotation (radians) a die may take there without touching its neighbours."""
    x0, y0, x1, y1 = rect
    margin = die_mm * 0.8
    room = 0
    for k in _PITCHES:
        pitch = die_mm * k
        cols = max(1, int((x1 - x0 - die_mm * 0.4) // pitch))
        rows = max(1, int((y1 - y0 - die_mm * 0.4) // pitch))
        ox = x0 + (x1 - x0 - cols * pitch) / 2 + pitch / 2
        oy = y0 + (y1 - y0 - rows * pitch) / 2 + pitch / 2
        cells = [
            (c, r)
            for r in range(rows)
            for c in range(cols)
            if not any(_near(ox + c * pitch, oy + r * pitch, poly, margin) for poly in taken)
        ]
        room = len(cells)
        if n <= room:
            break
    else:
        raise ValueError(f"{n} dice do not fit in a zone with room for {room}")
    picked = rng.permutation(len(cells))[:n]
    jitter = max(0.0, (pitch - die_mm * 1.45) / 2)
    # a die turned by a has a width of edge * (cos a + sin a) = edge * sqrt(2) sin(a + pi/4)
    max_turn = math.pi / 4 if k >= 1.45 else math.asin(min(1.0, k / math.sqrt(2))) - math.pi / 4
    return [
        (
            ox + cells[i][0] * pitch + rng.uniform(-jitter, jitter),
            oy + cells[i][1] * pitch + rng.uniform(-jitter, jitter),
            max_turn,
        )
        for i in picked
    ]


def _near(x: float, y: float, poly: Polygon, margin: float) -> bool:
    """Whether (x, y) lies inside the polygon or within ``margin`` of it."""
    pts = np.asarray(poly, np.float32)
    return bool(cv2.pointPolygonTest(pts, (x, y), True) > -margin)


def draw_table(
    mat_view: npt.NDArray[np.uint8],
    cal: Calibration,
    contents: Mapping[str, Sequence[str]],
    *,
    seed: int = 0,
    frame_no: int = 0,
    style: Style | None = None,
) -> tuple[npt.NDArray[np.uint8], list[Truth]]:
    """The mat with the given faces in the given zones, and where each die was drawn."""
    zones = {z.name: z for z in cal.zones}
    unknown = sorted(set(contents) - set(zones))
    if unknown:
        raise ValueError(f"no zone named {', '.join(unknown)} on this mat")
    st = style or TRAIN[_seed(seed, "style") % len(TRAIN)]
    w, h = cal.image_size
    cam = Camera(w, h, distance=1.4 * w, tilt_deg=0.0, tilt_dir=0.0)
    img = mat_view.astype(np.float32)
    frame_rng = np.random.default_rng(_seed(seed, frame_no))
    la = frame_rng.uniform(0, 2 * math.pi)
    light = (math.cos(la), math.sin(la))
    shadow = np.zeros((h, w), np.float32)
    dice: list[tuple[str, str, npt.NDArray[np.float64], float]] = []
    order = [z.name for z in cal.zones]  # most specific first
    for name, faces in contents.items():
        if not faces:
            continue
        zone = zones[name]
        taken = [zones[o].polygon for o in order[: order.index(name)]]
        xs = [p[0] for p in zone.polygon]
        ys = [p[1] for p in zone.polygon]
        rng = np.random.default_rng(_seed(seed, name, tuple(faces)))
        for face, (mx, my, turn) in zip(
            faces,
            _slots((min(xs), min(ys), max(xs), max(ys)), len(faces), cal.die_mm, rng, taken),
            strict=True,
        ):
            cx, cy = cal.to_image([[mx, my]])[0]
            edge = cal.die_mm * cal.px_per_mm((mx, my))
            foot = square((float(cx), float(cy)), edge, rng.uniform(-turn, turn))
            dice.append((name, face, foot, edge))
            cast = foot - np.array(light) * edge * 0.25
            cv2.fillPoly(shadow, [np.round(cast * 8).astype(np.int32)], 0.8, cv2.LINE_AA, 3)
    if dice:
        shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), cal.die_mm * 0.2), np.float32)
        img *= (1 - 0.45 * np.clip(shadow, 0, 1))[..., None]
    truth: list[Truth] = []
    for name, face, foot, edge in dice:
        top = cam.project(np.column_stack([foot, np.full(4, edge)]))
        bottom = cam.project(np.column_stack([foot, np.zeros(4)]))
        tex = face_texture(st, face, frame_rng, light)
        draw_die(img, top, bottom, tex, st, light)
        c = top.mean(axis=0)
        truth.append((name, float(c[0]), float(c[1]), face))
    return photograph(img, frame_rng), truth


# What the simulated table shows: zone name ("cult 1", "center", "rolling area")
# -> faces of the dice lying there.
TableContents = Mapping[str, Sequence[str]]


class SimulatedTable(SourceBase):
    """The play mat seen by a virtual camera, with the dice the game asks for.

    ``contents`` is called for every frame and returns the faces to show per
    zone (the TUI demo feeds it from the rules engine); dice are scattered
    inside their zone's rectangle on the mat and drawn by the synth renderer.
    """

    def __init__(
        self,
        contents: Callable[[], TableContents],
        calibration: Any = None,
        seed: int = 0,
        style: Any = None,
    ) -> None:
        self.calibration: Calibration = calibration or nominal_calibration((1280, 960))
        self.contents, self.seed, self.style = contents, seed, style
        self._frame_no = 0
        self._mat: Frame | None = None
        self.last_truth: list[Truth] = []

    def open(self) -> None:
        self._mat = draw_mat_view(self.calibration)
        self._frame_no = 0

    def read(self) -> Frame:
        if self._mat is None:
            raise FrameSourceError("the simulated table is not open")
        frame, truth = draw_table(
            self._mat,
            self.calibration,
            self.contents(),
            seed=self.seed,
            frame_no=self._frame_no,
            style=self.style,
        )
        self._frame_no += 1
        self.last_truth = truth
        return frame

    def close(self) -> None:
        self._mat = None
