"""The evidence of a read as an annotated JPEG, to settle a dispute on a phone or a laptop.

The frame the camera read is drawn over with every die it found: a box with
the motif it read (green), ``?`` for a die it could not read (red), and a
header saying whose layout the rules expect to hold what.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..vision.seen import UNKNOWN, Seen

GREEN = (60, 200, 60)
RED = (40, 40, 230)
WHITE = (255, 255, 255)


class NoEvidence(Exception):
    """There is no frame to export (manual mode, or a camera that gives none); one sentence."""


def annotate(seen: Seen, header: str = "") -> npt.NDArray[np.uint8]:
    """A copy of the frame with every read die boxed and labelled with its motif."""
    import cv2

    if seen.frame is None:
        raise NoEvidence("there is no camera frame to export: the dice were keyed in or not drawn")
    img = np.array(seen.frame, dtype=np.uint8, copy=True)
    if img.ndim != 3:
        raise NoEvidence("the camera frame is not a colour image")
    h, w = img.shape[:2]
    half = max(12, round(min(w, h) / 60))  # about half a die on the nominal calibration
    scale = max(0.6, half / 18)
    thick = max(2, round(half / 8))
    for n, d in enumerate(seen.dice, start=1):
        colour = RED if d.face == UNKNOWN else GREEN
        x, y = round(d.px), round(d.py)
        cv2.rectangle(img, (x - half, y - half), (x + half, y + half), colour, thick)
        label = f"{d.face} {n}"
        org = (x - half, max(0, y - half - 6))
        cv2.putText(
            img, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 2, cv2.LINE_AA
        )
        cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    if header:
        band = round(40 * scale)
        cv2.rectangle(img, (0, 0), (w, band), (0, 0, 0), -1)
        cv2.putText(
            img,
            header,
            (10, round(band * 0.7)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            WHITE,
            thick,
            cv2.LINE_AA,
        )
    return img


def export_jpeg(seen: Seen, folder: Path, stem: str, header: str = "", quality: int = 85) -> Path:
    """Write the annotated frame as ``folder/stem-TIME.jpg``; the path written."""
    import cv2

    img = annotate(seen, header)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise NoEvidence("the frame could not be encoded as a JPEG")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}-{datetime.now().strftime('%Y%m%d-%H%M%S')}.jpg"
    path.write_bytes(data.tobytes())
    return path
