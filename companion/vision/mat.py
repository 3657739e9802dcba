"""The printable play mat: corner markers, six layout slots, the center, the rolling area.

All geometry is in millimetres on the mat, origin at its top-left corner, x to
the right, y down (as printed and as seen by a camera above the table with
the mat's top edge at the top of the frame). One mat serves 2 to 6 cults:
the six layout slots are numbered clockwise and a game with fewer cults uses
the spread-out subset of :data:`SLOTS_FOR_CULTS`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

ARUCO_DICT = cv2.aruco.DICT_4X4_50
# Marker ids at the mat's corners: top-left, top-right, bottom-right, bottom-left.
MARKER_IDS = (0, 1, 2, 3)
PAPER_MM = {"A3": (420.0, 297.0), "A2": (594.0, 420.0)}
# Slots used by n cults, in seating order, chosen so cults sit spread around the mat.
SLOTS_FOR_CULTS = {
    2: (1, 4),
    3: (1, 3, 5),
    4: (1, 2, 4, 5),
    5: (1, 2, 3, 4, 5),
    6: (1, 2, 3, 4, 5, 6),
}

Polygon = list[tuple[float, float]]


@dataclass(frozen=True)
class Zone:
    """A named region of the mat; ``kind`` is "layout", "center" or "rolling"."""

    name: str
    kind: str
    polygon: Polygon
    cult: int | None = None  # seat 1..n for layout zones


@dataclass(frozen=True)
class MatGeometry:
    paper: str
    size_mm: tuple[float, float]
    marker_mm: float
    margin_mm: float

    def marker_corners_mm(self, marker_id: int) -> npt.NDArray[np.float32]:
        """The four corners (TL, TR, BR, BL, as ArUco reports them) of one marker."""
        w, h = self.size_mm
        m, s = self.margin_mm, self.marker_mm
        origins = {0: (m, m), 1: (w - m - s, m), 2: (w - m - s, h - m - s), 3: (m, h - m - s)}
        x, y = origins[marker_id]
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float32)

    def slot_rects(self) -> dict[int, tuple[float, float, float, float]]:
        """Layout slots 1..6 as (x0, y0, x1, y1), clockwise from the bottom left."""
        w, h = self.size_mm
        band = self.margin_mm + self.marker_mm  # clear of the corner markers
        depth = 0.15 * h  # room for a row of dice and a hand putting them down
        along_x = 0.33 * w
        along_y = 0.42 * h
        gap = (w - 2 * band - 2 * along_x) / 3
        xs = (band + gap, band + 2 * gap + along_x)
        e = self.margin_mm
        yc = (h - along_y) / 2
        return {
            1: (xs[0], h - e - depth, xs[0] + along_x, h - e),
            2: (e, yc, e + depth, yc + along_y),
            3: (xs[0], e, xs[0] + along_x, e + depth),
            4: (xs[1], e, xs[1] + along_x, e + depth),
            5: (w - e - depth, yc, w - e, yc + along_y),
            6: (xs[1], h - e - depth, xs[1] + along_x, h - e),
        }

    def center_rect(self) -> tuple[float, float, float, float]:
        w, h = self.size_mm
        cw, ch = 0.22 * w, 0.22 * h
        return ((w - cw) / 2, (h - ch) / 2, (w + cw) / 2, (h + ch) / 2)

    def rolling_rect(self) -> tuple[float, float, float, float]:
        """Everything inside the ring of slots (the center is carved out by priority)."""
        w, h = self.size_mm
        e = self.margin_mm
        depth = 0.15 * h
        return (e + depth, e + depth, w - e - depth, h - e - depth)

    def zones(self, cults: int) -> list[Zone]:
        """Zones for a game of ``cults`` cults, most specific first."""
        if cults not in SLOTS_FOR_CULTS:
            raise ValueError(f"a game has 2 to 6 cults, not {cults}")
        rects = self.slot_rects()
        out = [
            Zone(f"cult {seat}", "layout", _rect_poly(rects[slot]), seat)
            for seat, slot in enumerate(SLOTS_FOR_CULTS[cults], start=1)
        ]
        out.append(Zone("center", "center", _rect_poly(self.center_rect())))
        out.append(Zone("rolling area", "rolling", _rect_poly(self.rolling_rect())))
        return out


def mat_geometry(paper: str = "A3") -> MatGeometry:
    if paper not in PAPER_MM:
        raise ValueError(f"unknown paper size {paper!r}; use one of {', '.join(PAPER_MM)}")
    w, h = PAPER_MM[paper]
    k = w / PAPER_MM["A3"][0]
    return MatGeometry(paper, (w, h), marker_mm=40.0 * k, margin_mm=10.0 * k)


def _rect_poly(r: tuple[float, float, float, float]) -> Polygon:
    x0, y0, x1, y1 = r
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


# The mat is mid grey, not white: white dice stand out by being brighter,
# black dice by being darker, coloured dice by their hue, and a shadow on grey
# stays grey. Markers keep a white quiet zone so ArUco finds them.
GROUND = (140, 140, 140)
LINES = (205, 205, 205)


def draw_mat(
    geom: MatGeometry, px_per_mm: float, *, cults: int | None = None
) -> npt.NDArray[np.uint8]:
    """The mat as a BGR image: grey ground, black markers on white, light zone outlines.

    ``cults`` draws only that game's slots (for the simulated table); None
    draws all six, numbered, as printed.
    """
    w, h = geom.size_mm
    img = np.full((round(h * px_per_mm), round(w * px_per_mm), 3), GROUND, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    side = round(geom.marker_mm * px_per_mm)
    quiet = round(geom.marker_mm * 0.18 * px_per_mm)
    for mid in MARKER_IDS:
        tile = cv2.aruco.generateImageMarker(dictionary, mid, side)
        x, y = (geom.marker_corners_mm(mid)[0] * px_per_mm).round().astype(int)
        img[max(0, y - quiet) : y + side + quiet, max(0, x - quiet) : x + side + quiet] = 255
        img[y : y + side, x : x + side] = cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR)
    line = LINES
    thick = max(1, round(0.6 * px_per_mm))
    font_scale = 0.25 * px_per_mm

    def rect(r: tuple[float, float, float, float], label: str) -> None:
        p0 = (round(r[0] * px_per_mm), round(r[1] * px_per_mm))
        p1 = (round(r[2] * px_per_mm), round(r[3] * px_per_mm))
        cv2.rectangle(img, p0, p1, line, thick, cv2.LINE_AA)
        org = (p0[0] + round(3 * px_per_mm), p0[1] + round(8 * px_per_mm))
        cv2.putText(
            img,
            label,
            org,
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            line,
            max(1, thick // 2),
            cv2.LINE_AA,
        )

    rect(geom.rolling_rect(), "rolling area")
    rect(geom.center_rect(), "center")
    slots = geom.slot_rects()
    if cults is None:
        for slot, r in slots.items():
            rect(r, f"seat {slot}")
        legend = "seats: 2 cults 1,4 / 3 cults 1,3,5 / 4 cults 1,2,4,5 / 5 cults 1-5 / 6 cults 1-6"
        x0, _, _, y1 = geom.rolling_rect()
        org = (round((x0 + 3) * px_per_mm), round((y1 - 4) * px_per_mm))
        cv2.putText(
            img,
            legend,
            org,
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale * 0.8,
            line,
            max(1, thick // 2),
            cv2.LINE_AA,
        )
    else:
        for seat, slot in enumerate(SLOTS_FOR_CULTS[cults], start=1):
            rect(slots[slot], f"cult {seat}")
    return img


def write_pdf(path: Path, image_bgr: npt.NDArray[np.uint8], size_mm: tuple[float, float]) -> None:
    """A one-page PDF holding the image at the paper's exact size (lossless Flate)."""
    h, w = image_bgr.shape[:2]
    rgb = np.ascontiguousarray(image_bgr[..., ::-1])
    data = zlib.compress(rgb.tobytes(), 9)
    pw, ph = (v / 25.4 * 72.0 for v in size_mm)
    content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode()
        + data
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    path.write_bytes(bytes(out))
