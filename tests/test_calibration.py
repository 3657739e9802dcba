"""Play mat, calibration checks, zones, and the `calibrate` command."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from companion.vision.calibration import (
    DEFAULT_PATH,
    Calibration,
    CalibrationError,
    calibrate,
    draw_mat_view,
    find_markers,
    nominal_calibration,
)
from companion.vision.mat import SLOTS_FOR_CULTS, mat_geometry, write_pdf
from companion.vision.read_cli import add_commands
from companion.vision.seen import CENTER, OFF_MAT, TableZone, check_layout
from companion.vision.zones import faces_by_zone, place_dice, zone_at

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Read:
    """One die as a reader reports it (vision.seen.ReadDie)."""

    x: float
    y: float
    face: str
    confidence: float


def _tilted_view(angle: float = 12.0) -> tuple[npt.NDArray[np.uint8], Calibration]:
    """The mat seen by a slightly rotated, perspective camera, and the true mapping."""
    nominal = nominal_calibration((1600, 1200), fill=0.85)
    img = draw_mat_view(nominal)
    c = np.array([[0, 0], [1600, 0], [1600, 1200], [0, 1200]], np.float32)
    d = c + np.array([[30, 10], [-10, 40], [-40, -20], [20, -5]], np.float32)
    persp = cv2.getPerspectiveTransform(c, d)
    rot = np.vstack([cv2.getRotationMatrix2D((800, 600), angle, 1.0), [0, 0, 1]])
    warp = rot @ persp
    view = cv2.warpPerspective(img, warp, (1600, 1200), borderValue=(96, 104, 110))
    truth = Calibration((1600, 1200), nominal.homography @ np.linalg.inv(warp))
    return np.asarray(view, np.uint8), truth


def test_markers_and_homography_of_a_tilted_view() -> None:
    view, truth = _tilted_view()
    assert sorted(find_markers(view)) == [0, 1, 2, 3]
    report = calibrate(view)
    assert report.ok, report.problems
    assert report.calibration is not None
    pts = np.array([[200, 200], [640, 480], [1100, 800]], np.float64)
    err = np.abs(report.calibration.to_mat(pts) - truth.to_mat(pts)).max()
    assert err < 1.0  # millimetres on the mat


def test_blur_darkness_and_small_dice_are_explained() -> None:
    view, _ = _tilted_view()
    blurred = calibrate(np.asarray(cv2.GaussianBlur(view, (0, 0), 3.5), np.uint8))
    assert any("blurred" in p for p in blurred.problems)
    dark = calibrate((view * 0.2).astype(np.uint8))
    assert any("too dark" in p for p in dark.problems)
    small = np.asarray(cv2.resize(view, (800, 600), interpolation=cv2.INTER_AREA), np.uint8)
    report = calibrate(small)
    assert any("too small" in p and "closer" in p for p in report.problems)


def test_hidden_marker_is_named_and_too_few_markers_fail() -> None:
    view, _ = _tilted_view(0.0)
    markers = find_markers(view)
    hidden = view.copy()
    x0, y0 = markers[1].min(axis=0).astype(int) - 5
    x1, y1 = markers[1].max(axis=0).astype(int) + 5
    hidden[y0:y1, x0:x1] = 230
    report = calibrate(hidden)
    assert report.calibration is not None
    assert any("top-right" in p for p in report.problems)
    x0, y0 = markers[0].min(axis=0).astype(int) - 5
    x1, y1 = markers[0].max(axis=0).astype(int) + 5
    hidden[y0:y1, x0:x1] = 230
    with pytest.raises(CalibrationError, match="2 of the 4"):
        calibrate(hidden)


def test_json_round_trip_and_damaged_file(tmp_path: Path) -> None:
    cal = nominal_calibration((2304, 1296), paper="A2", cults=5)
    path = tmp_path / "cal.json"
    cal.save(path)
    back = Calibration.load(path)
    assert back.image_size == (2304, 1296) and back.paper == "A2" and back.cults == 5
    assert np.allclose(back.homography, cal.homography)
    path.write_text('{"image_size": [1, 2]}')
    with pytest.raises(CalibrationError, match="damaged"):
        Calibration.load(path)
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")


def test_shipped_default_calibration_loads_and_fits_dice() -> None:
    cal = Calibration.load(DEFAULT_PATH)
    lo, _ = cal.die_edge_px()
    assert lo >= 40


@pytest.mark.parametrize("cults", sorted(SLOTS_FOR_CULTS))
def test_zones_for_every_game_size(cults: int) -> None:
    cal = nominal_calibration((1280, 960), cults=cults)
    zones = cal.zones
    layouts = [z for z in zones if z.kind == "layout"]
    assert [z.cult for z in layouts] == list(range(1, cults + 1))
    for z in zones:
        x0, y0 = np.min(z.polygon, axis=0)
        x1, y1 = np.max(z.polygon, axis=0)
        # The rolling area's middle is the center zone: test it near a corner.
        mx, my = (x0 + 15, y0 + 15) if z.kind == "rolling" else ((x0 + x1) / 2, (y0 + y1) / 2)
        cx, cy = cal.to_image([[mx, my]])[0]
        assert zone_at(cal, cx, cy) == z
    # Layout zones never overlap each other.
    for a in layouts:
        for b in layouts:
            if a is not b:
                pa, pb = np.asarray(a.polygon, np.float32), np.asarray(b.polygon, np.float32)
                area, _ = cv2.intersectConvexConvex(pa, pb)
                assert area < 1e-3


def test_place_dice_and_check_layout() -> None:
    cal = nominal_calibration((1280, 960), cults=2)
    seat1 = next(z for z in cal.zones if z.cult == 1)
    x0, y0 = np.min(seat1.polygon, axis=0)
    x1, y1 = np.max(seat1.polygon, axis=0)
    in1 = cal.to_image([[x0 + 20, (y0 + y1) / 2], [x0 + 50, (y0 + y1) / 2], [x0 + 80, y0 + 20]])
    center = cal.to_image([[210, 148.5]])[0]
    dice = [
        Read(float(p[0]), float(p[1]), f, 0.99) for p, f in zip(in1, ["I", "2", "?"], strict=True)
    ]
    dice += [Read(float(center[0]), float(center[1]), "E", 0.9), Read(3.0, 3.0, "1", 0.9)]
    placed = place_dice(cal, dice)
    assert [p.zone for p in placed] == [TableZone.layout(1)] * 3 + [CENTER, OFF_MAT]
    assert (placed[0].px, placed[0].py) == (dice[0].x, dice[0].y)
    assert (
        abs(placed[0].x - (x0 + 20)) < 0.5 and abs(placed[0].y - (y0 + y1) / 2) < 0.5
    )  # on the mat, mm
    assert faces_by_zone(placed)["cult 1"] == ["2", "?", "I"]
    in_seat1 = [d.face for d in placed if d.zone == TableZone.layout(1)]
    check = check_layout(in_seat1, ["I", "2"])
    assert check.missing == [] and check.unexpected == [] and check.unreadable == 1
    assert not check.matches
    wrong = check_layout(in_seat1, ["I", "3"])
    assert wrong.missing == ["3"] and wrong.unexpected == ["2"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion")
    add_commands(parser.add_subparsers(dest="command", required=True))
    return parser


def test_calibrate_command_saves_and_explains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    view, _ = _tilted_view()
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), view)
    out = tmp_path / "cal.json"
    args = _parser().parse_args(
        ["calibrate", "--frame", str(frame), "--cults", "3", "--out", str(out)]
    )
    assert args.func(args) == 0
    assert json.loads(out.read_text())["cults"] == 3
    assert "saved" in capsys.readouterr().out
    blurred = tmp_path / "blurred.png"
    cv2.imwrite(str(blurred), cv2.GaussianBlur(view, (0, 0), 4))
    out2 = tmp_path / "cal2.json"
    args = _parser().parse_args(["calibrate", "--frame", str(blurred), "--out", str(out2)])
    assert args.func(args) == 1
    captured = capsys.readouterr()
    assert "blurred" in captured.out and not out2.exists()
    args = _parser().parse_args(["calibrate", "--frame", str(tmp_path / "nope.png")])
    assert args.func(args) == 1
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err


def test_mat_files_pdf_and_png(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            str(REPO / "calibration" / "make_mat.py"),
            "--png-dpi",
            "60",
            "--pdf-dpi",
            "40",
            "--out",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    for paper in ("a3", "a2"):
        png = cv2.imread(str(tmp_path / f"mat-{paper}.png"))
        assert png is not None
        assert sorted(find_markers(np.asarray(png, np.uint8))) == [0, 1, 2, 3]
        pdf = (tmp_path / f"mat-{paper}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
        assert b"/MediaBox [0 0 1190.55 841.89]" in pdf if paper == "a3" else b"1683.78" in pdf


def test_pdf_xref_offsets_point_at_objects(tmp_path: Path) -> None:
    path = tmp_path / "m.pdf"
    write_pdf(path, np.full((20, 30, 3), 255, np.uint8), mat_geometry("A3").size_mm)
    data = path.read_bytes()
    xref = int(data.rsplit(b"startxref\n", 1)[1].split()[0])
    rows = data[xref:].split(b"\n")[3:8]
    for i, row in enumerate(rows, start=1):
        off = int(row.split()[0])
        assert data[off:].startswith(f"{i} 0 obj".encode())


def test_committed_mats_exist() -> None:
    for name in ("mat-a3.png", "mat-a3.pdf", "mat-a2.png", "mat-a2.pdf", "default.json"):
        assert (REPO / "calibration" / name).is_file()
