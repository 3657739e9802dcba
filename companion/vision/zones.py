"""Which zone of the mat each read die lies in.

A die belongs to the first zone (layouts, then the center, then the rolling
area) that holds its center once mapped onto the mat; a die off the mat
belongs to no zone and is reported as such, never forced into one.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from companion.vision.calibration import Calibration
from companion.vision.mat import Zone
from companion.vision.read import Reader
from companion.vision.seen import OFF_MAT, Frame, ReadDie, SeenDie, TableZone, ZoneKind


def zone_at(cal: Calibration, x: float, y: float) -> Zone | None:
    """The zone holding image point (x, y), or None off the marked areas."""
    mx, my = cal.to_mat([[x, y]])[0]
    return _zone_at_mat(cal, float(mx), float(my))


def _zone_at_mat(cal: Calibration, mx: float, my: float) -> Zone | None:
    for zone in cal.zones:
        poly = np.asarray(zone.polygon, np.float32)
        if cv2.pointPolygonTest(poly, (mx, my), False) >= 0:
            return zone
    return None


def place_dice(cal: Calibration, dice: Iterable[ReadDie]) -> list[SeenDie]:
    """Put every read die on the mat and in its zone; none is dropped."""
    read = list(dice)
    where = cal.to_mat([[d.x, d.y] for d in read]) if read else np.zeros((0, 2))
    out = []
    for d, (mx, my) in zip(read, where, strict=True):
        z = _zone_at_mat(cal, float(mx), float(my))
        zone = OFF_MAT if z is None else TableZone(ZoneKind(z.kind), z.cult)
        out.append(SeenDie(float(mx), float(my), d.face, d.confidence, zone, d.x, d.y))
    return out


def faces_by_zone(placed: Iterable[SeenDie]) -> dict[str, list[str]]:
    """Zone name -> faces in it (sorted), for display and for the rules."""
    out: dict[str, list[str]] = {}
    for d in placed:
        out.setdefault(d.zone.name, []).append(d.face)
    return {k: sorted(v) for k, v in out.items()}


def observe(reader: Reader, frame: Frame, cal: Calibration) -> list[SeenDie]:
    """Read a settled frame and put every die in its zone: what the table shows now."""
    return place_dice(cal, reader.read(frame))
