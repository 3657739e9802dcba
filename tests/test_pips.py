"""Ordinary pip dice: the renderer, the pip reader and `vision read --dice d6`."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from companion.synth.camera import Camera
from companion.synth.dice import square
from companion.synth.pip_crops import JITTERED, make_pip_crops
from companion.synth.pip_frame import (
    MAX_VIEW_DEG,
    STEEP_DEG,
    STREAK_DIE,
    _motion_blur,
    _pale,
    render_pip_frame,
    streak_length,
)
from companion.synth.pips import (
    PIP_HELD_OUT,
    PIP_TRAIN,
    PIP_VALIDATION,
    Light,
    adjacent_values,
    draw_pip_die,
    pip_layout,
    pip_mask,
    pip_style,
)
from companion.vision.classify import ModelError
from companion.vision.crop import cut_face
from companion.vision.pips import (
    PIP_FACES,
    PipClassifier,
    cut_pip_faces,
    grow_corners,
    quarter_turns,
)
from companion.vision.read_cli import add_commands

MODEL = Path(__file__).resolve().parents[1] / "models" / "pips.onnx"
# Where the shipped model stands on the development photos (measured 96.6 % right of the
# dice found, 0.7 % silent: five wrong values, four of them on motion-blurred photos;
# the target 0.5 % is met on the kept-aside photos, not here).
DEV_RIGHT_FLOOR = 0.95
DEV_SILENT_CEILING = 0.01
DEV_VALUE_FLOOR = 0.85
WHITE = pip_style("white-black-round")
LIGHT = Light(azimuth=0.7, elevation=math.radians(60), ambient=0.7, glare=0.0)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion vision")
    add_commands(parser.add_subparsers(dest="command", required=True))
    return parser


def _blobs(mask: npt.NDArray[np.bool_]) -> int:
    n, _labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return int(sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 4))


@pytest.mark.parametrize("value", range(1, 7))
def test_layouts_have_as_many_pips_as_their_value(value: int) -> None:
    assert len(set(pip_layout(value))) == value
    mask = pip_mask(WHITE, value, np.random.default_rng(value))
    assert _blobs(mask > 0.5) == value


def test_layouts_reject_other_values() -> None:
    for bad in (0, 7, -1):
        with pytest.raises(ValueError):
            pip_layout(bad)


def test_sides_never_show_the_top_or_its_opposite() -> None:
    for top in range(1, 7):
        sides = adjacent_values(top)
        assert len(sides) == 4 and top not in sides and 7 - top not in sides


def test_style_splits_are_disjoint_and_named_uniquely() -> None:
    names = [s.name for s in PIP_TRAIN + PIP_VALIDATION + PIP_HELD_OUT]
    assert len(names) == len(set(names))
    assert {s.shape for s in PIP_TRAIN} == {"round", "square"}
    assert any(s.translucent for s in PIP_TRAIN) and any(s.body[0] < 100 for s in PIP_TRAIN)
    with pytest.raises(KeyError):
        pip_style("nonesuch")


def _one_die(
    value: int, tilt: float, seed: int = 0
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    """A white die drawn at the image's centre on a plain light table; its top corners."""
    w = h = 240
    cam = Camera(w, h, distance=2.0 * w, tilt_deg=tilt, tilt_dir=0.3)
    img = np.full((h, w, 3), 200.0, np.float32)
    foot = square((w / 2, h / 2), 100.0, 0.2)
    top = cam.project(np.column_stack([foot, np.full(4, 100.0)]))
    bottom = cam.project(np.column_stack([foot, np.zeros(4)]))
    draw_pip_die(img, top, bottom, value, WHITE, LIGHT, 0.2, np.random.default_rng(seed))
    return np.clip(img, 0, 255).astype(np.uint8), top


@pytest.mark.parametrize("value", range(1, 7))
def test_the_top_face_shows_its_value(value: int) -> None:
    img, top = _one_die(value, tilt=35.0, seed=value)
    face = cut_face(img, top)[8:56, 8:56]
    dark = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY) < 100
    assert _blobs(dark) == value


def test_oblique_views_show_side_pips_and_straight_views_do_not() -> None:
    for tilt, sides in ((0.0, False), (40.0, True)):
        img, top = _one_die(6, tilt)
        dark = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) < 100
        outside = dark.copy()
        cv2.fillPoly(outside, [np.round(top).astype(np.int32)], 0)  # type: ignore[arg-type]  # cv2 fills a bool mask; its stubs list only numeric dtypes
        assert bool(outside.sum() > 20) == sides, tilt


def test_frames_are_deterministic_and_truth_lies_in_the_frame() -> None:
    a = render_pip_frame(5, n_dice=6)
    b = render_pip_frame(5, n_dice=6)
    assert np.array_equal(a.image, b.image) and a.image.shape == (480, 640, 3)
    assert len(a.dice) == 6
    for d in a.dice:
        assert 0 < d.center[0] < 640 and 0 < d.center[1] < 480
        assert 1 <= d.value <= 6 and d.edge > 15
        assert cv2.pointPolygonTest(d.corners.astype(np.float32), d.center, False) > 0
    assert not np.array_equal(render_pip_frame(6, n_dice=6).image, a.image)


def test_pale_tables_are_bright_and_keep_their_grain() -> None:
    rng = np.random.default_rng(3)
    table = np.full((60, 80, 3), 60.0, np.float32)
    table[:, ::4] = 90.0  # a dark table with stripes
    pale = _pale(table, rng)
    assert pale.shape == table.shape and pale.dtype == np.float32
    assert 140 <= float(pale.mean()) <= 235 and float(pale.max()) <= 255
    # the stripes stay, in less contrast: light wood keeps its grain
    contrast = float(pale[:, 0].mean() / pale[:, 1].mean())
    assert 1.0 < contrast < 90.0 / 60.0


def test_motion_blur_streaks_a_point_along_one_line() -> None:
    img = np.zeros((81, 81, 3), np.float32)
    img[40, 40] = 1000.0
    out = _motion_blur(img, np.random.default_rng(4), unit=80.0)
    lit = np.argwhere(out[..., 0] > 1.0)
    assert np.isclose(float(out.sum()), float(img.sum()), rtol=1e-3)  # light is moved, not made
    span = float(np.ptp(lit, axis=0).max())
    assert STREAK_DIE[0] * 80 - 2 <= span <= STREAK_DIE[1] * 80 + 2  # a few tenths of a die long
    # along one line: the lit pixels' spread across the streak is small
    centered = lit - lit.mean(axis=0)
    sv = np.linalg.svd(centered.astype(np.float64), compute_uv=False)
    assert sv[1] < 0.35 * sv[0]


def test_streak_lengths_reach_the_real_photos_longest() -> None:
    """Development photos show streaks up to about 0.4 of a die: the renderer draws them,
    spread over its range, not only short ones."""
    rng = np.random.default_rng(0)
    unit = 80.0
    lengths = np.array([streak_length(rng, unit) for _ in range(4000)]) / unit
    assert lengths.min() >= 3 / unit and lengths.max() <= STREAK_DIE[1] + 1.5 / unit
    assert np.all(np.array([streak_length(rng, unit) for _ in range(50)]) % 2 == 1)
    assert np.mean(lengths > 0.3) > 0.2  # long streaks are common, not rare
    assert np.mean(lengths < 0.15) > 0.1  # short ones stay
    assert abs(float(np.median(lengths)) - float(np.mean(STREAK_DIE))) < 0.03


def test_streak_weight_can_be_uneven_along_its_line() -> None:
    img = np.zeros((121, 121, 3), np.float32)
    img[60, 60] = 1000.0
    uneven = 0
    for seed in range(12):
        out = _motion_blur(img, np.random.default_rng(seed), unit=200.0)[..., 0]
        assert np.isclose(float(out.sum()), 1000.0, rtol=1e-3)
        lit = np.argwhere(out > 0.5)
        axis = np.linalg.svd((lit - lit.mean(axis=0)).astype(np.float64))[2][0]
        t = (lit - lit.mean(axis=0)) @ axis
        w = out[lit[:, 0], lit[:, 1]]
        uneven += abs(float(w[t < 0].sum() - w[t > 0].sum())) > 0.15 * float(w.sum())
    assert 2 <= uneven <= 10  # on about half of the streaks


def _view_deg(frame_seed: int) -> float:
    """The steepest view off vertical of any die in a frame, from its top and bottom faces."""
    frame = render_pip_frame(frame_seed, n_dice=4)
    worst = 0.0
    for d in frame.dice:
        assert d.foot is not None
        # seen from theta off vertical, a die's upright edge shows sin(theta) of its length,
        # the top face's edge across the view its whole length
        rise = float(np.linalg.norm(d.corners.mean(axis=0) - d.foot.mean(axis=0)))
        across = float(np.linalg.norm(d.corners - np.roll(d.corners, 1, axis=0), axis=1).max())
        worst = max(worst, math.degrees(math.asin(min(rise / across, 1.0))))
    return worst


def test_some_frames_look_past_the_contracts_45_degrees() -> None:
    views = np.array([_view_deg(s) for s in range(60)])
    assert views.max() <= STEEP_DEG + 8
    assert np.mean(views > MAX_VIEW_DEG - 5) > 0.1  # steep views are not rare
    assert np.mean(views < 20) > 0.1  # nor are nearly vertical ones


def test_frames_and_training_crops_are_reproducible_by_seed() -> None:
    assert np.array_equal(render_pip_frame(5).image, render_pip_frame(5).image)
    a = make_pip_crops([7, 8], PIP_TRAIN, found=False)
    b = make_pip_crops([7, 8], PIP_TRAIN, found=False)
    assert np.array_equal(a.images, b.images) and np.array_equal(a.labels, b.labels)
    assert len(a.labels) > 0 and bool(np.all(a.kinds == JITTERED))


def test_frames_without_dice_have_no_truth() -> None:
    assert render_pip_frame(3, n_dice=0).dice == []


def test_crop_helpers() -> None:
    c = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    g = grow_corners(c, 1.5)
    assert np.allclose(g.mean(axis=0), c.mean(axis=0)) and np.isclose(np.ptp(g[:, 0]), 15)
    crops = np.arange(2 * 64 * 64 * 3, dtype=np.uint8).reshape(2, 64, 64, 3)
    q = quarter_turns(crops)
    assert q.shape == (8, 64, 64, 3)
    assert np.array_equal(q[3], np.rot90(crops[1], 1)) and np.array_equal(q[0], crops[0])
    assert cut_pip_faces(np.zeros((50, 50, 3), np.uint8), []).shape == (0, 64, 64, 3)


def test_missing_or_foreign_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        PipClassifier(tmp_path / "none.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot be loaded"):
        PipClassifier(junk)
    faces = Path(__file__).resolve().parents[1] / "models" / "faces.onnx"
    with pytest.raises(ModelError):  # the motif model has other classes and no pip calibration
        PipClassifier(faces)


@pytest.fixture(scope="module")
def pips() -> PipClassifier:
    if not MODEL.is_file():
        pytest.fail("models/pips.onnx is missing: rebuild it with models/train_pips.py")
    return PipClassifier(MODEL)


def test_shipped_model_reads_held_out_rendered_sets(pips: PipClassifier) -> None:
    """Sets no training or calibration saw, cut at their true corners (on 800 dice of seeds
    90000-90199 the shipped model reads 99.6 % right, 0.25 % `?`, 0.13 % wrong; the model
    before it, which had not learnt the new renderer's streaks and views, 95.4 / 2.8 / 1.9 %)."""
    right = unknown = wrong = 0
    for seed in range(40):
        frame = render_pip_frame(90_000 + seed, n_dice=4, styles=PIP_HELD_OUT)
        reads = pips.read(frame.image, [d.corners for d in frame.dice])
        for d, r in zip(frame.dice, reads, strict=True):
            right += r.face == str(d.value)
            unknown += r.face == "?"
            wrong += r.face not in ("?", str(d.value))
    n = right + unknown + wrong
    assert n >= 150
    assert right / n >= 0.98, (right, unknown, wrong)
    assert wrong / n <= 0.01, (right, unknown, wrong)


def test_reads_do_not_depend_on_quarter_turns(pips: PipClassifier) -> None:
    frame = render_pip_frame(91_000, n_dice=4, styles=PIP_VALIDATION)
    crops = cut_pip_faces(frame.image, [d.corners for d in frame.dice])
    p0 = pips.probabilities(crops)
    p1 = pips.probabilities(np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2))))
    assert np.allclose(p0, p1, atol=1e-5)
    assert np.allclose(p0.sum(axis=1), 1.0, atol=1e-5)


def test_cli_reads_pip_dice_as_vision_md_says(
    tmp_path: Path, pips: PipClassifier, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = render_pip_frame(92_000, n_dice=5, styles=PIP_HELD_OUT, tilt_deg=20.0)
    good = tmp_path / "pips.png"
    cv2.imwrite(str(good), frame.image)
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), np.full((480, 640, 3), 180, np.uint8))
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"no image")
    args = _parser().parse_args(
        ["read", str(good), str(junk), str(empty), "--dice", "d6", "--json"]
    )
    assert args.func(args) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [x["image"] for x in lines] == [str(good), str(junk), str(empty)]
    assert set(lines[1]) == {"image", "error"}
    assert lines[2]["dice"] == []
    dice = lines[0]["dice"]
    assert dice and all(d["face"] in (*PIP_FACES, "?") and 0 <= d["confidence"] <= 1 for d in dice)
    for d in dice:  # every die read is one of the frame's, and none is given a wrong value
        truth = min(
            frame.dice, key=lambda t: math.hypot(t.center[0] - d["x"], t.center[1] - d["y"])
        )
        assert math.hypot(truth.center[0] - d["x"], truth.center[1] - d["y"]) < 0.5 * truth.edge
        assert d["face"] in (str(truth.value), "?")


def test_cli_text_output_counts_pip_values(
    tmp_path: Path, pips: PipClassifier, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = render_pip_frame(92_001, n_dice=3, styles=PIP_HELD_OUT, tilt_deg=10.0)
    good = tmp_path / "pips.png"
    cv2.imwrite(str(good), frame.image)
    args = _parser().parse_args(["read", str(good), "--dice", "d6"])
    assert args.func(args) == 0  # VISION.md: "--dice d6 [--json]" prints the same JSON
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert line["image"] == str(good) and len(line["dice"]) >= 1
    args = _parser().parse_args(["read", str(good), "--dice", "d6", "--text"])
    assert args.func(args) == 0
    first = capsys.readouterr().out.splitlines()[0]
    counted = sum(
        int(part.split("x")[0]) for part in first.split("dice: ")[1].split(" (")[0].split(", ")
    )
    assert counted == int(first.split(": ")[1].split(" dice")[0])


def test_cli_refuses_a_profile_with_pip_dice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _parser().parse_args(
        ["read", str(tmp_path / "x.png"), "--dice", "d6", "--profile", str(tmp_path)]
    )
    assert args.func(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "profile" in err


def test_cli_missing_pip_model_is_one_sentence_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPANION_PIP_MODEL", str(tmp_path / "none.onnx"))
    args = _parser().parse_args(["read", str(tmp_path / "x.png"), "--dice", "d6"])
    assert args.func(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip model not found" in err


@pytest.mark.slow
def test_shipped_model_reads_the_development_photos(pips: PipClassifier) -> None:
    """Real white dice (shared/real-dice, development photos only; the kept-aside ones are
    measured in docs/vision.md). Pip values were never trained on them; these floors say
    where the shipped model stands (see models/PIPS_CARD.md), silent errors at the target."""
    from benchmarks import bench_pips
    from companion.vision.finders import make_finder
    from companion.vision.read import Reader

    if not bench_pips.REAL.is_dir():
        pytest.skip("shared/real-dice is not beside the repository")
    paths = bench_pips.photos("development")
    assert len(paths) == 235 and not any(bench_pips.is_kept_aside(p) for p in paths)
    t = bench_pips.score(Reader(pips, finder=make_finder("net")), paths)
    found = sum(t.total(k) for k in ("right", "?", "wrong"))
    assert found >= 700
    assert t.total("wrong") / found <= DEV_SILENT_CEILING, t.per_value
    assert t.total("right") / found >= DEV_RIGHT_FLOOR, t.per_value
    for v, c in t.per_value.items():  # no value is left mostly to `?`
        assert c["right"] / max(c["right"] + c["?"] + c["wrong"], 1) >= DEV_VALUE_FLOOR, (v, c)


def test_bench_refuses_a_bad_size_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import bench_pips

    for bad in ("12", "axb", "10x10", "9000x480"):
        assert bench_pips.main(["--split", "none", "--size", bad]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "--size" in err
