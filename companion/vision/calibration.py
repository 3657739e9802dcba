"""Calibration: where the play mat lies in the camera's frame, and whether the frame is good.

The four ArUco markers at the mat's corners give a homography from image
pixels to mat millimetres. The same frame is checked for what makes dice
unreadable (focus, exposure, dice too small, a camera looking too obliquely)
and every problem comes back as a plain sentence telling the user what to fix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.fileperm import private_dir, write_private
from companion.paths import shipped_file
from companion.vision.detect import MIN_EDGE_PX
from companion.vision.mat import (
    ARUCO_DICT,
    MARKER_IDS,
    PAPER_MM,
    MatGeometry,
    Zone,
    draw_mat,
    mat_geometry,
)

FloatArray = npt.NDArray[np.float64]
DEFAULT_PATH = shipped_file("calibration", "default.json")


def user_calibration_path() -> Path:
    """Where `companion calibrate` saves, and where the companion looks first."""
    from companion.paths import calibration_path

    return calibration_path()


_CORNER_NAMES = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
# Frame checks. Focus is the variance of the Laplacian over the markers'
# black-and-white squares, which are equally sharp on every printed mat.
# The variance is normalised by the markers' contrast, so a dim frame is not
# mistaken for a blurred one.
MIN_FOCUS = 250.0
MAX_CLIPPED = 0.05
MIN_PAPER_GREY = 60.0  # the brightest tenth of the mat: quiet zones and lines
MAX_SCALE_RATIO = 1.6  # near side vs far side of the mat: about 25 degrees of tilt


class CalibrationError(Exception):
    """The frame cannot be calibrated at all (too few markers); the message says why."""


@dataclass(frozen=True)
class Calibration:
    """Image-to-mat mapping for one camera position, plus the game's zones."""

    image_size: tuple[int, int]  # (width, height) of the frames it applies to
    homography: FloatArray  # 3x3, image pixels -> mat millimetres
    paper: str = "A3"
    cults: int = 4
    die_mm: float = 16.0

    @property
    def geometry(self) -> MatGeometry:
        return mat_geometry(self.paper)

    @property
    def zones(self) -> list[Zone]:
        return self.geometry.zones(self.cults)

    def with_cults(self, cults: int) -> Calibration:
        self.geometry.zones(cults)  # validates
        return Calibration(self.image_size, self.homography, self.paper, cults, self.die_mm)

    def to_mat(self, points_px: npt.ArrayLike) -> FloatArray:
        return _apply(self.homography, points_px)

    def to_image(self, points_mm: npt.ArrayLike) -> FloatArray:
        return _apply(np.asarray(np.linalg.inv(self.homography), np.float64), points_mm)

    def px_per_mm(self, point_mm: tuple[float, float]) -> float:
        """Local scale of the frame at a point of the mat (geometric mean of the axes)."""
        x, y = point_mm
        p = self.to_image([[x, y], [x + 1.0, y], [x, y + 1.0]])
        jac = np.stack([p[1] - p[0], p[2] - p[0]])
        return float(np.sqrt(abs(np.linalg.det(jac))))

    def die_edge_px(self) -> tuple[float, float]:
        """Smallest and largest expected die edge in pixels over the mat."""
        w, h = self.geometry.size_mm
        scales = [
            self.px_per_mm((x, y)) for x in np.linspace(0, w, 5) for y in np.linspace(0, h, 5)
        ]
        return min(scales) * self.die_mm, max(scales) * self.die_mm

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "paper": self.paper,
            "cults": self.cults,
            "die_mm": self.die_mm,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        try:
            h = np.asarray(data["homography"], np.float64)
            if h.shape != (3, 3):
                raise ValueError("homography is not 3x3")
            w, ht = (int(v) for v in data["image_size"])
            return cls(
                (w, ht),
                h,
                str(data.get("paper", "A3")),
                int(data.get("cults", 4)),
                float(data.get("die_mm", 16.0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"the calibration file is damaged ({exc})") from exc

    def save(self, path: Path) -> None:
        private_dir(path.parent)
        write_private(path, json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path = DEFAULT_PATH) -> Calibration:
        try:
            data = json.loads(Path(path).read_text())
        except OSError as exc:
            raise CalibrationError(f"cannot read the calibration {path}: {exc.strerror}") from exc
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"the calibration {path} is not JSON ({exc.msg})") from exc
        return cls.from_json(data)


def load_calibration(path: Path | None = None) -> Calibration:
    """The given calibration, else the user's, else the shipped default."""
    if path is not None:
        return Calibration.load(path)
    user = user_calibration_path()
    return Calibration.load(user if user.is_file() else DEFAULT_PATH)


def nominal_calibration(
    image_size: tuple[int, int], paper: str = "A3", cults: int = 4, fill: float = 0.94
) -> Calibration:
    """A camera straight above the mat's center, the mat filling ``fill`` of the frame."""
    w, h = image_size
    mw, mh = PAPER_MM[paper]
    s = fill * min(w / mw, h / mh)  # px per mm
    ox, oy = (w - mw * s) / 2, (h - mh * s) / 2
    to_img = np.array([[s, 0, ox], [0, s, oy], [0, 0, 1]], np.float64)
    return Calibration((w, h), np.asarray(np.linalg.inv(to_img), np.float64), paper, cults)


def find_markers(image_bgr: npt.NDArray[np.uint8]) -> dict[int, npt.NDArray[np.float32]]:
    """The mat's corner markers seen in a frame: id -> (4, 2) corners."""
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, npt.NDArray[np.float32]] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in MARKER_IDS:
            found[int(i)] = np.asarray(c, np.float32).reshape(4, 2)
    return found


@dataclass
class CalibrationReport:
    """The outcome of calibrating one frame: the calibration if possible, and what to fix."""

    calibration: Calibration | None
    problems: list[str] = field(default_factory=list)
    measures: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.calibration is not None and not self.problems


def calibrate(
    image_bgr: npt.NDArray[np.uint8], *, paper: str = "A3", cults: int = 4, die_mm: float = 16.0
) -> CalibrationReport:
    """Find the mat in a frame, compute its homography and check the frame."""
    if paper not in PAPER_MM:
        raise CalibrationError(f"unknown paper size {paper!r}; use A3 or A2")
    geom = mat_geometry(paper)
    geom.zones(cults)
    markers = find_markers(image_bgr)
    missing = [_CORNER_NAMES[i] for i in MARKER_IDS if i not in markers]
    report = CalibrationReport(None)
    if len(markers) < 3:
        where = ", ".join(missing)
        raise CalibrationError(
            f"only {len(markers)} of the 4 mat markers are visible (missing: {where}); "
            "put the whole mat in view, lit evenly, and try again"
        )
    if missing:
        report.problems.append(
            f"the {', '.join(missing)} marker is not visible: move the camera or the mat so "
            "all four corners are in view"
        )
    src = np.concatenate([markers[i] for i in sorted(markers)])
    dst = np.concatenate([geom.marker_corners_mm(i) for i in sorted(markers)])
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        raise CalibrationError("the markers do not give a usable view of the mat; try again")
    h, w = image_bgr.shape[:2]
    cal = Calibration((w, h), np.asarray(hom, np.float64), paper, cults, die_mm)
    report.calibration = cal
    _check_frame(image_bgr, cal, markers, report)
    return report


def _check_frame(
    image_bgr: npt.NDArray[np.uint8],
    cal: Calibration,
    markers: dict[int, npt.NDArray[np.float32]],
    report: CalibrationReport,
) -> None:
    grey = np.asarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY), np.uint8)
    focus = _focus(grey, markers)
    report.measures["focus"] = focus
    if focus < MIN_FOCUS:
        report.problems.append(
            "the picture is blurred: focus the camera on the mat (or hold it still)"
        )
    mat_mask = np.zeros_like(grey)
    w, h = cal.geometry.size_mm
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    outline = cal.to_image(corners).round().astype(np.int32)
    cv2.fillConvexPoly(mat_mask, outline, 255)
    on_mat = grey[mat_mask > 0]
    if on_mat.size:
        clipped = float(np.mean(on_mat >= 254))
        paper_grey = float(np.percentile(on_mat, 90))
        report.measures["clipped"] = clipped
        report.measures["paper_grey"] = paper_grey
        if clipped > MAX_CLIPPED:
            report.problems.append(
                f"{clipped:.0%} of the mat is washed out: lower the exposure or dim the light"
            )
        if paper_grey < MIN_PAPER_GREY:
            report.problems.append("the mat is too dark: add light or raise the exposure")
    lo, hi = cal.die_edge_px()
    report.measures["die_edge_px_min"] = lo
    report.measures["die_edge_px_max"] = hi
    if lo < MIN_EDGE_PX:
        report.problems.append(
            f"dice look too small ({lo:.0f} px per edge, at least {MIN_EDGE_PX:.0f} needed): "
            "move the camera closer or use a higher resolution"
        )
    if hi / max(lo, 1e-6) > MAX_SCALE_RATIO:
        report.problems.append(
            "the camera looks at the mat too much from the side: point it more straight down"
        )


def _focus(grey: npt.NDArray[np.uint8], markers: dict[int, npt.NDArray[np.float32]]) -> float:
    values = []
    for c in markers.values():
        x0, y0 = np.floor(c.min(axis=0)).astype(int)
        x1, y1 = np.ceil(c.max(axis=0)).astype(int)
        roi = grey[max(0, y0) : y1, max(0, x0) : x1]
        if roi.size >= 64:
            lo, hi = np.percentile(roi, (5, 95))
            gain = 255.0 / max(float(hi - lo), 10.0)
            values.append(float(cv2.Laplacian(roi, cv2.CV_64F).var()) * gain * gain)
    return float(np.median(values)) if values else 0.0


def _apply(m: FloatArray, points: npt.ArrayLike) -> FloatArray:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    q = np.hstack([p, np.ones((len(p), 1))]) @ m.T
    out: FloatArray = q[:, :2] / q[:, 2:3]
    return out


def draw_mat_view(
    cal: Calibration, *, cults_only: bool = True, paper: float = 235.0
) -> npt.NDArray[np.uint8]:
    """The mat as this camera would see it (a flat render; the table around it is grey)."""
    w, h = cal.image_size
    s = max(cal.px_per_mm((0.0, 0.0)), cal.px_per_mm(cal.geometry.size_mm)) * 1.2
    art = draw_mat(cal.geometry, s, cults=cal.cults if cults_only else None)
    art = (art.astype(np.float32) * (paper / 255.0)).astype(np.uint8)
    mm_to_art = np.diag([s, s, 1.0])
    warp = np.linalg.inv(cal.homography) @ np.linalg.inv(mm_to_art)
    out = cv2.warpPerspective(
        art,
        warp,
        (w, h),
        flags=cv2.INTER_AREA,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(96, 104, 110),
    )
    return np.asarray(out, np.uint8)
