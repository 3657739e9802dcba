"""Enrolment as a table meets it: enrol a dice set the model never saw, then read it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.synth import FACES, HELD_OUT, DieTruth, Style, render_frame, style_by_name
from companion.synth.crops import jitter_corners
from companion.vision import faces_cli
from companion.vision.classify import UNKNOWN, FaceClassifier
from companion.vision.crop import cut_face
from companion.vision.enroll import EnrolmentError, Profile, enroll, fit_profile, load_reader

MODEL = Path(__file__).resolve().parents[1] / "models" / "faces.onnx"


@pytest.fixture(scope="module")
def clf() -> FaceClassifier:
    return FaceClassifier(MODEL)


class TruthFinder:
    """Stands in for the die finder: the renderer's corners, a few pixels off."""

    def __init__(self) -> None:
        self.truth: dict[bytes, list[DieTruth]] = {}
        self.rng = np.random.default_rng(0)

    def remember(self, image: np.ndarray, dice: list[DieTruth]) -> None:
        self.truth[image.tobytes()[::997]] = dice

    def __call__(self, image: np.ndarray) -> Sequence[DieTruth]:
        dice = self.truth[image.tobytes()[::997]]
        return [DieTruth(d.center, jitter_corners(d.corners, self.rng), d.face, d.style, d.edge) for d in dice]


def _write_enrolment(root: Path, style: Style, seed: int, finder: TruthFinder | None) -> None:
    for k, face in enumerate(FACES):
        (root / face).mkdir(parents=True)
        frame = render_frame(seed + k, n_dice=10, styles=[style], faces=[face], size=(800, 600))
        path = root / face / "frame-1.png"
        cv2.imwrite(str(path), frame.image)
        if finder is not None:
            finder.remember(cv2.imread(str(path)), frame.dice)


def _read_style(reader: FaceClassifier, style: Style, seeds: range) -> tuple[int, int, int]:
    """(dice, read right, silent errors) over ordinary frames of one style."""
    n = right = silent = 0
    for seed in seeds:
        frame = render_frame(seed, n_dice=16, styles=[style], size=(800, 600))
        rng = np.random.default_rng(seed)
        crops = np.stack([cut_face(frame.image, jitter_corners(d.corners, rng)) for d in frame.dice])
        for r, d in zip(reader.classify(crops), frame.dice, strict=True):
            n += 1
            right += r.face == d.face
            silent += r.face not in (UNKNOWN, d.face)
    return n, right, silent


@pytest.mark.parametrize("style_name", ["jade/navy/pulp", "black/red/gothic"])
def test_enrol_a_held_out_set_then_read_it(tmp_path: Path, style_name: str) -> None:
    style = style_by_name(style_name)
    assert style in HELD_OUT
    finder = TruthFinder()
    _write_enrolment(tmp_path / "dir", style, 500, finder)
    profile = enroll(tmp_path / "dir", tmp_path / "profile", model=MODEL, finder=finder)
    assert profile.counts == (10, 10, 10, 10, 10)
    assert (tmp_path / "profile" / "profile.npz").is_file()
    reader = load_reader(tmp_path / "profile", model=MODEL)
    n, right, silent = _read_style(reader, style, range(900, 903))
    assert right / n >= 0.98 and silent == 0, (n, right, silent)


def test_profile_round_trip_and_model_check(tmp_path: Path, clf: FaceClassifier) -> None:
    style = HELD_OUT[5]
    frame = render_frame(1, n_dice=24, styles=[style], size=(800, 600), faces=list("I123E"))
    crops = np.stack([cut_face(frame.image, d.corners) for d in frame.dice])
    labels = np.array([FACES.index(d.face) for d in frame.dice])
    prof = fit_profile(clf, crops, labels)
    prof.save(tmp_path / "p")
    back = Profile.load(tmp_path / "p", clf)
    assert np.array_equal(back.weights, prof.weights) and back.threshold == prof.threshold
    logits, emb = clf.run(crops)
    base = logits / clf.calibration.temperature
    assert np.allclose(back.probabilities(emb, base), prof.probabilities(emb, base))
    other = Profile(prof.weights, prof.bias, prof.temperature, prof.threshold, "0000", prof.counts)
    other.save(tmp_path / "q")
    with pytest.raises(EnrolmentError, match="another face model"):
        Profile.load(tmp_path / "q", clf)
    with pytest.raises(EnrolmentError, match="cannot read"):
        Profile.load(tmp_path / "missing", clf)
    meta = json.loads((tmp_path / "p" / "profile.json").read_text())
    del meta["head"]  # a profile whose head replaced the network's
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(EnrolmentError, match="older companion"):
        Profile.load(tmp_path / "p", clf)


def test_every_face_must_be_enrolled(clf: FaceClassifier) -> None:
    crops = np.zeros((4, 64, 64, 3), np.uint8)
    with pytest.raises(EnrolmentError, match="no die found for face"):
        fit_profile(clf, crops, np.array([0, 1, 2, 3]))


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion vision")
    faces_cli.add_commands(parser.add_subparsers())
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_cli_errors_are_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["enroll", str(tmp_path / "absent"), "--out", str(tmp_path / "p")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err and "Traceback" not in err
    (tmp_path / "d" / "I").mkdir(parents=True)
    assert _cli(["enroll", str(tmp_path / "d"), "--out", str(tmp_path / "p")]) == 1
    assert "holds no PNG or JPEG" in capsys.readouterr().err
    assert _cli(["enroll", str(tmp_path / "d"), "--out", str(tmp_path / "p"), "--model", str(tmp_path / "x.onnx")]) == 1
    assert "not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        _cli(["enroll", str(tmp_path / "d")])
    assert exc.value.code == 2


@pytest.mark.parametrize("finder", [None, "classic"])
def test_cli_enrols_with_the_die_finder(tmp_path: Path, capsys: pytest.CaptureFixture[str], finder: str | None) -> None:
    # None: the finder `vision read` uses by default, so the dice are cut as they will be read
    style = style_by_name("jade/white/stamp")
    _write_enrolment(tmp_path / "dir", style, 700, None)
    extra = ["--finder", finder] if finder else []
    assert _cli(["enroll", str(tmp_path / "dir"), "--out", str(tmp_path / "prof"), "--model", str(MODEL), *extra]) == 0
    assert "enrolled" in capsys.readouterr().out
    reader = load_reader(tmp_path / "prof", model=MODEL)
    n, right, silent = _read_style(reader, style, range(950, 952))
    assert right / n >= 0.95 and silent <= 1, (n, right, silent)


@pytest.mark.slow
def test_held_out_styles_after_enrolment_meet_the_bar(clf: FaceClassifier) -> None:
    """Every held-out style: enrol from one frame per motif, read two other frames."""
    n = right = silent = 0
    for i, style in enumerate(HELD_OUT):
        xs, ys = [], []
        for k, face in enumerate(FACES):
            frame = render_frame(40_000 + 10 * i + k, n_dice=10, styles=[style], faces=[face], size=(800, 600))
            rng = np.random.default_rng(i)
            xs += [cut_face(frame.image, jitter_corners(d.corners, rng)) for d in frame.dice]
            ys += [k] * len(frame.dice)
        clf.profile = fit_profile(clf, np.stack(xs), np.array(ys))
        a, b, c = _read_style(clf, style, range(60_000 + 10 * i, 60_000 + 10 * i + 2))
        n, right, silent = n + a, right + b, silent + c
    clf.profile = None
    assert right / n >= 0.995, (n, right, silent)
    assert silent / n <= 0.001, (n, right, silent)
