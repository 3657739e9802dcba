"""A pinhole camera above the table, and the photographic defects of a frame.

Table coordinates are pixels on the table plane, chosen to coincide with
image pixels when the camera looks straight down; Z is height above the
table in the same unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    distance: float  # camera height above the table, table pixels
    tilt_deg: float  # angle between the optical axis and the vertical
    tilt_dir: float  # azimuth of the tilt axis, radians

    def _rotation(self) -> F64:
        t = math.radians(self.tilt_deg)
        ax = np.array([math.cos(self.tilt_dir), math.sin(self.tilt_dir), 0.0])
        k = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
        return np.asarray(np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k), np.float64)

    def project(self, points: npt.ArrayLike) -> F64:
        """Image pixels of (N, 3) table points (X, Y, Z)."""
        p = np.asarray(points, np.float64).reshape(-1, 3).copy()
        cx, cy = self.width / 2, self.height / 2
        p[:, 0] -= cx
        p[:, 1] -= cy
        q = p @ self._rotation().T
        # Focal length equals the distance, so the table's scale is 1 at the
        # image centre whatever the height.
        depth = self.distance - q[:, 2]
        u = cx + self.distance * q[:, 0] / depth
        v = cy + self.distance * q[:, 1] / depth
        return np.stack([u, v], axis=1)

    def view_table(
        self, table: npt.NDArray[np.float32], origin: tuple[float, float], size: tuple[int, int]
    ) -> npt.NDArray[np.float32]:
        """A table texture whose pixel (0, 0) lies at ``origin`` on the table, as this camera
        sees it in a frame of ``size`` (w, h); the table runs on past the texture's edges."""
        shift = np.array([[1, 0, origin[0]], [0, 1, origin[1]], [0, 0, 1]], np.float64)
        return np.asarray(
            cv2.warpPerspective(
                table,
                self.table_to_image() @ shift,
                size,
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REFLECT,
            ),
            np.float32,
        )

    def table_to_image(self) -> F64:
        """Homography from the table plane (Z = 0) to the image."""
        src = np.array(
            [[0, 0], [self.width, 0], [self.width, self.height], [0, self.height]], np.float64
        )
        dst = self.project(np.column_stack([src, np.zeros(4)]))
        return np.asarray(
            cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)), np.float64
        )

    def image_to_table(self, xy: npt.ArrayLike) -> F64:
        pts = np.asarray(xy, np.float64).reshape(-1, 1, 2)
        inv = np.linalg.inv(self.table_to_image())
        return np.asarray(cv2.perspectiveTransform(pts, inv), np.float64).reshape(-1, 2)

    def local_scale(self, x: float, y: float, z: float = 0.0) -> float:
        """Image pixels per table pixel around a table point."""
        p = self.project([[x - 0.5, y, z], [x + 0.5, y, z], [x, y - 0.5, z], [x, y + 0.5, z]])
        a, b = p[1] - p[0], p[3] - p[2]
        return float(math.sqrt(abs(a[0] * b[1] - a[1] * b[0])))


def light_field(rng: np.random.Generator, width: int, height: int) -> npt.NDArray[np.float32]:
    """Smooth multiplicative light: a gradient plus a soft spot."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    grad = (np.cos(a) * (xx / width - 0.5) + np.sin(a) * (yy / height - 0.5)) * rng.uniform(
        0.0, 0.6
    )
    sx, sy = rng.uniform(0, width), rng.uniform(0, height)
    r = rng.uniform(0.4, 1.2) * max(width, height)
    spot = np.exp(-((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * r * r)) * rng.uniform(0.0, 0.35)
    return np.asarray(rng.uniform(0.75, 1.1) + grad + spot, np.float32)


def photograph(img: npt.NDArray[np.float32], rng: np.random.Generator) -> U8:
    """Light, colour cast, blur, sensor noise and JPEG on a float BGR frame."""
    h, w = img.shape[:2]
    out: npt.NDArray[np.float32] = img * light_field(rng, w, h)[..., None]
    out = out * rng.uniform(0.85, 1.15, size=3).astype(np.float32)
    if rng.random() < 0.5:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.3)), np.float32)
    if rng.random() < 0.3:
        n = int(rng.integers(3, 8))
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = np.asarray(cv2.warpAffine(kernel, rot, (n, n)), np.float32)
        out = np.asarray(cv2.filter2D(out, -1, kernel / max(float(kernel.sum()), 1e-6)), np.float32)
    out = out + rng.normal(0.0, rng.uniform(0.5, 7.0), size=out.shape).astype(np.float32)
    u8 = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
        if ok:
            u8 = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return u8
