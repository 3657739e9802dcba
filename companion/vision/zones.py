"""Which zone of the mat each read die lies in, and whether a layout matches a call.

A die belongs to the first zone (layouts, then the center, then the rolling
area) that holds its center once mapped onto the mat; a die off the mat
belongs to no zone and is reported as such, never forced into one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.calibration import Calibration
from companion.vision.mat import Zone
from companion.vision.read import Reader

OFF_MAT = "off the mat"


@dataclass(frozen=True)
class PlacedDie:
    """A read die with its zone; ``kind`` is "layout", "center", "rolling" or "off"."""

    x: float
    y: float
    face: str
    confidence: float
    zone: str
    kind: str
    cult: int | None = None


def zone_at(cal: Calibration, x: float, y: float) -> Zone | None:
    """The zone holding image point (x, y), or None off the marked areas."""
    mx, my = cal.to_mat([[x, y]])[0]
    for zone in cal.zones:
        poly = np.asarray(zone.polygon, np.float32)
        if cv2.pointPolygonTest(poly, (float(mx), float(my)), False) >= 0:
            return zone
    return None


def place_dice(
    cal: Calibration, dice: Iterable[tuple[float, float, str, float]]
) -> list[PlacedDie]:
    """Assign every (x, y, face, confidence) die to a zone; none is dropped."""
    out = []
    for x, y, face, conf in dice:
        z = zone_at(cal, x, y)
        if z is None:
            out.append(PlacedDie(x, y, face, conf, OFF_MAT, "off"))
        else:
            out.append(PlacedDie(x, y, face, conf, z.name, z.kind, z.cult))
    return out


def faces_by_zone(placed: Iterable[PlacedDie]) -> dict[str, list[str]]:
    """Zone name -> faces in it (sorted), for display and for the rules."""
    out: dict[str, list[str]] = {}
    for d in placed:
        out.setdefault(d.zone, []).append(d.face)
    return {k: sorted(v) for k, v in out.items()}


@dataclass(frozen=True)
class LayoutCheck:
    """How a cult's layout on the table compares with what the rules expect there."""

    missing: list[str]  # faces expected but not seen
    unexpected: list[str]  # faces seen but not expected
    unreadable: int  # dice read as '?' in the layout

    @property
    def matches(self) -> bool:
        return not self.missing and not self.unexpected and not self.unreadable


def check_layout(placed: Iterable[PlacedDie], cult: int, expected: Sequence[str]) -> LayoutCheck:
    """Compare the faces in ``cult``'s layout zone with the faces it should hold.

    Unreadable dice are counted apart: they neither confirm nor contradict,
    so the secretary asks instead of judging.
    """
    seen = [d.face for d in placed if d.kind == "layout" and d.cult == cult]
    known = Counter(f for f in seen if f != "?")
    want = Counter(expected)
    missing = sorted((want - known).elements())
    unexpected = sorted((known - want).elements())
    unknown = len(seen) - sum(known.values())
    return LayoutCheck(missing, unexpected, unknown)


def observe(reader: Reader, frame: npt.NDArray[np.uint8], cal: Calibration) -> list[PlacedDie]:
    """Read a settled frame and put every die in its zone: what the table shows now."""
    return place_dice(cal, [(d.x, d.y, d.face, d.confidence) for d in reader.read(frame)])
