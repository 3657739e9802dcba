"""Enrolment as a table meets it: enrol a dice set the model never saw, then read it."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from companion.synth import FACES, HELD_OUT, DieTruth, Style, render_frame, style_by_name
from companion.synth.crops import jitter_corners
from companion.vision import faces_cli
from companion.vision.classify import (
    READ_ROTATIONS,
    UNKNOWN,
    FaceClassifier,
    rotation_embeddings,
)
from companion.vision.crop import cut_face
from companion.vision.enroll import (
    DOUBT_FLOOR,
    HEAD_KIND,
    EnrolmentError,
    Profile,
    enroll,
    fit_profile,
    load_reader,
)

MODEL = Path(__file__).resolve().parents[1] / "models" / "faces.onnx"


@pytest.fixture(scope="module")
def clf() -> FaceClassifier:
    return FaceClassifier(MODEL)


class TruthFinder:
    """Stands in for the die finder: the renderer's corners, a few pixels off."""

    def __init__(self) -> None:
        self.truth: dict[bytes, list[DieTruth]] = {}
        self.rng = np.random.default_rng(0)

    def remember(self, image: npt.NDArray[np.generic], dice: list[DieTruth]) -> None:
        self.truth[image.tobytes()[::997]] = dice

    def __call__(self, image: npt.NDArray[np.uint8]) -> Sequence[DieTruth]:
        dice = self.truth[image.tobytes()[::997]]
        return [
            DieTruth(d.center, jitter_corners(d.corners, self.rng), d.face, d.style, d.edge)
            for d in dice
        ]


def _write_enrolment(root: Path, style: Style, seed: int, finder: TruthFinder | None) -> None:
    """Two frames per motif of 10 dice each, as VISION.md asks of a table."""
    for k, face in enumerate(FACES):
        (root / face).mkdir(parents=True)
        for j in range(2):
            frame = render_frame(
                seed + 10 * j + k, n_dice=10, styles=[style], faces=[face], size=(800, 600)
            )
            path = root / face / f"frame-{j}.png"
            cv2.imwrite(str(path), frame.image)
            if finder is not None:
                written = cv2.imread(str(path))
                assert written is not None
                finder.remember(written, frame.dice)


def _read_style(reader: FaceClassifier, style: Style, seeds: range) -> tuple[int, int, int]:
    """(dice, read right, silent errors) over ordinary frames of one style."""
    n = right = silent = 0
    for seed in seeds:
        frame = render_frame(seed, n_dice=16, styles=[style], size=(800, 600))
        rng = np.random.default_rng(seed)
        crops = np.stack(
            [cut_face(frame.image, jitter_corners(d.corners, rng)) for d in frame.dice]
        )
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
    assert profile.counts == (20, 20, 20, 20, 20)
    assert profile.check is not None and profile.check.dice == 100
    assert (tmp_path / "profile" / "profile.npz").is_file()
    reader = load_reader(tmp_path / "profile", model=MODEL)
    n, right, silent = _read_style(reader, style, range(900, 903))
    # 0.97: a profile now reads two views of each die, not four (READ_ROTATIONS); on
    # black/red/gothic that leaves one die of 48 `?` (four views: 48 of 48), no silent error.
    assert right / n >= 0.97 and silent == 0, (n, right, silent)


def _enrolment_crops(
    style: Style, seed: int, frames: int = 2, n_dice: int = 8
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Crops, motifs and frame numbers of `frames` frames per motif of one set."""
    xs, ys, fs = [], [], []
    rng = np.random.default_rng(seed)
    for k, face in enumerate(FACES):
        for j in range(frames):
            frame = render_frame(
                seed + 10 * j + k, n_dice=n_dice, styles=[style], faces=[face], size=(800, 600)
            )
            xs += [cut_face(frame.image, jitter_corners(d.corners, rng)) for d in frame.dice]
            ys += [k] * len(frame.dice)
            fs += [k * frames + j] * len(frame.dice)
    return np.stack(xs), np.array(ys), np.array(fs)


def test_profile_round_trip_and_model_check(tmp_path: Path, clf: FaceClassifier) -> None:
    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    prof = fit_profile(clf, crops, labels, frames)
    assert prof.check is not None and prof.check.dice == sum(
        prof.counts
    )  # every die kept was checked
    prof.save(tmp_path / "p")
    back = Profile.load(tmp_path / "p", clf)
    assert np.array_equal(back.weights, prof.weights) and back.threshold == prof.threshold
    assert len(back.limits) == len(FACES) and back.limits == prof.limits
    assert back.doubt == prof.doubt >= DOUBT_FLOOR
    assert max(prof.limits) <= prof.threshold  # no motif read less surely than one limit would
    assert (
        back.check == prof.check and back.warnings == prof.warnings and back.counts == prof.counts
    )
    rot = rotation_embeddings(clf, crops)
    assert np.allclose(back.read(rot)[0], prof.read(rot)[0])
    other = dataclasses.replace(prof, model="0000")
    other.save(tmp_path / "q")
    with pytest.raises(EnrolmentError, match="another face model"):
        Profile.load(tmp_path / "q", clf)
    with pytest.raises(EnrolmentError, match="cannot read"):
        Profile.load(tmp_path / "missing", clf)
    meta = json.loads((tmp_path / "p" / "profile.json").read_text())
    meta["head"] = "correction"  # the previous kind: a correction added to the network's logits
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(EnrolmentError, match="older companion; enrol again$"):
        Profile.load(tmp_path / "p", clf)
    meta["head"] = HEAD_KIND
    meta["limits"] = None  # a profile from before per-motif limits: one limit for every motif
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    del meta["doubt"]  # and before the doubt: the floor
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    old = Profile.load(tmp_path / "p", clf)
    assert old.limits == () and np.all(old.limit(np.arange(5)) == prof.threshold)
    assert old.doubt == DOUBT_FLOOR
    for bad in (-0.1, 1.5, float("nan")):
        meta["doubt"] = bad
        (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
        with pytest.raises(EnrolmentError, match="damaged"):
            Profile.load(tmp_path / "p", clf)
    del meta["doubt"]
    del meta["head"]  # the first kind: a head that replaced the network's
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(EnrolmentError, match="older companion"):
        Profile.load(tmp_path / "p", clf)


def test_a_profile_overrules_the_shipped_model(clf: FaceClassifier) -> None:
    """A table whose 1 looks like everyone else's E: the profile reads what the table enrolled."""
    style = style_by_name("white/black/pulp")
    crops, labels, frames = _enrolment_crops(style, 3)
    swapped = labels.copy()
    swapped[labels == 1], swapped[labels == 4] = 4, 1  # E dice enrolled as 1, and 1 dice as E
    clf.profile = fit_profile(clf, crops, swapped, frames)
    test, truth, _ = _enrolment_crops(style, 300, frames=1)
    reads = [r.face for r in clf.classify(test)]
    clf.profile = None
    alone = [r.face for r in clf.classify(test)]
    want = {"1": "E", "E": "1"}
    expected = [want.get(FACES[t], FACES[t]) for t in truth]
    assert sum(a == FACES[t] for a, t in zip(alone, truth, strict=True)) >= 0.9 * len(
        truth
    )  # the model alone
    assert sum(r == e for r, e in zip(reads, expected, strict=True)) >= 0.95 * len(truth), (
        reads,
        expected,
    )
    assert not any(r not in (e, UNKNOWN) for r, e in zip(reads, expected, strict=True))


def test_self_check_finds_a_wrong_folder_and_things_that_are_not_dice(clf: FaceClassifier) -> None:
    style = style_by_name("black/red/gothic")
    crops, labels, frames = _enrolment_crops(style, 5)
    # Folder 2's second frame holds dice showing 3, and folder E's frames two blank cards.
    wrong = (labels == 2) & (frames == 2 * 2 + 1)
    threes = np.flatnonzero(labels == 3)[: int(wrong.sum())]
    crops = crops.copy()
    crops[wrong] = crops[threes]
    blank = np.full((2, 64, 64, 3), 200, np.uint8)
    crops = np.concatenate([crops, blank])
    labels = np.concatenate([labels, [4, 4]])
    frames = np.concatenate([frames, [8, 9]])
    prof = fit_profile(clf, crops, labels, frames)
    text = " ".join(prof.warnings)
    assert "motifs 2 and 3 look alike" in text or "frames of 2 hold" in text, prof.warnings
    assert "frames of E hold 2 dice" in text, prof.warnings
    assert prof.counts[4] == int(np.sum(labels == 4)) - 2
    lines = faces_cli.self_check_lines(prof)
    assert any(line.startswith("warning:") for line in lines)
    clean = fit_profile(clf, *_enrolment_crops(style, 5))
    assert not clean.warnings and clean.check is not None and clean.check.accuracy >= 0.9, (
        clean.warnings
    )


def test_a_motif_with_one_frame_is_not_checked_and_says_so(clf: FaceClassifier) -> None:
    crops, labels, frames = _enrolment_crops(HELD_OUT[1], 7)
    frames = np.where(labels == 0, 0, frames)  # all of I in one frame
    prof = fit_profile(clf, crops, labels, frames)
    assert prof.check is not None and prof.check.unchecked == ("I",)
    assert prof.check.dice == int(np.sum(labels != 0))
    assert any("motif I has a single frame" in w for w in prof.warnings)


def test_threshold_rule() -> None:
    from companion.vision.enroll import MIN_THRESHOLD, _threshold

    assert _threshold(np.array([], np.float32), 150) == MIN_THRESHOLD
    # One wrong read in 150 may pass; the second-most confident wrong read sets the limit.
    assert _threshold(np.array([0.97, 0.8, 0.7], np.float32), 150) == pytest.approx(0.805)
    assert _threshold(np.array([0.97, 0.8, 0.7], np.float32), 50) == pytest.approx(0.975)
    assert _threshold(np.array([0.9999], np.float32), 10) == 0.995


def test_a_limit_is_raised_only_for_the_motifs_a_wrong_read_mixed_up() -> None:
    from companion.vision.enroll import MIN_THRESHOLD, _limits, _threshold

    # 150 dice checked (one may pass wrong): three 3s read 2, one I read E.
    conf = np.array([0.95, 0.8, 0.7, 0.75, 0.9], np.float32)
    pred = np.array([2, 2, 2, 4, 0])
    labels = np.array([3, 3, 3, 0, 0])
    wrong = np.array([True, True, True, True, False])
    limits = _limits(conf, pred, labels, wrong, 150)
    # the 0.95 may pass (1 % of 150); the 0.8 sets 2 and 3, the 0.75 sets I and E; 1 is free
    assert limits.tolist() == pytest.approx([0.755, MIN_THRESHOLD, 0.805, 0.805, 0.755])
    assert float(limits.max()) == pytest.approx(_threshold(conf[wrong], 150))
    # with 50 dice none may pass: the 0.95 sets 2 and 3
    assert _limits(conf, pred, labels, wrong, 50).tolist() == pytest.approx(
        [0.755, MIN_THRESHOLD, 0.955, 0.955, 0.755]
    )
    none = _limits(conf, pred, labels, np.zeros(5, bool), 150)
    assert none.tolist() == pytest.approx([MIN_THRESHOLD] * 5)


def test_reading_applies_the_limit_of_the_motif_read(clf: FaceClassifier) -> None:
    style = style_by_name("jade/navy/pulp")
    prof = fit_profile(clf, *_enrolment_crops(style, 11))
    test, truth, _ = _enrolment_crops(style, 77, frames=1)
    probs, unlike = prof.read(rotation_embeddings(clf, test, READ_ROTATIONS))
    best, conf = probs.argmax(axis=1), probs.max(axis=1)
    # the dice read 1 must pass the strictest limit; every other motif passes at any confidence
    # (the head alone: no pixel rescue, tested in test_pixel_templates.py)
    strict = tuple(0.0 if k != 1 else 0.999999 for k in range(len(FACES)))
    clf.profile = dataclasses.replace(prof, limits=strict, pixels=None)
    reads = clf.classify(test)
    clf.profile = None
    for r, b, c, u in zip(reads, best, conf, unlike, strict=True):
        want = FACES[b] if not u and (b != 1 or c >= 0.999999) else UNKNOWN
        assert r.face == want, (r, b, c)
    assert any(r.face == UNKNOWN and r.best == "1" for r in reads)
    assert sum(r.face not in (UNKNOWN,) for r in reads) >= 0.5 * len(truth)


def test_dice_unlike_every_motif_read_unknown(clf: FaceClassifier) -> None:
    style = style_by_name("jade/navy/pulp")
    clf.profile = fit_profile(clf, *_enrolment_crops(style, 11))
    rng = np.random.default_rng(0)
    things = np.concatenate(
        [
            np.full((1, 64, 64, 3), 128, np.uint8),
            rng.integers(0, 255, (3, 64, 64, 3), dtype=np.uint8),
        ]
    )
    reads = clf.classify(things)
    clf.profile = None
    assert all(r.face == UNKNOWN for r in reads), reads


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
    assert "has no folder 1, 2, 3, E" in capsys.readouterr().err
    for face in FACES[1:]:
        (tmp_path / "d" / face).mkdir()
    assert _cli(["enroll", str(tmp_path / "d"), "--out", str(tmp_path / "p")]) == 1
    assert "holds no PNG or JPEG" in capsys.readouterr().err
    for face in FACES[1:]:
        (tmp_path / "d" / face).rmdir()
    assert (
        _cli(
            [
                "enroll",
                str(tmp_path / "d"),
                "--out",
                str(tmp_path / "p"),
                "--model",
                str(tmp_path / "x.onnx"),
            ]
        )
        == 1
    )
    assert "not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        _cli(["enroll", str(tmp_path / "d")])
    assert exc.value.code == 2


@pytest.mark.parametrize("finder", [None, "classic"])
def test_cli_enrols_with_the_die_finder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], finder: str | None
) -> None:
    # None: the finder `vision read` uses by default, so the dice are cut as they will be read
    style = style_by_name("jade/white/stamp")
    _write_enrolment(tmp_path / "dir", style, 700, None)
    extra = ["--finder", finder] if finder else []
    assert (
        _cli(
            [
                "enroll",
                str(tmp_path / "dir"),
                "--out",
                str(tmp_path / "prof"),
                "--model",
                str(MODEL),
                *extra,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "enrolled" in out and "self-check" in out and "I: 20 dice learnt" in out
    assert "below its motif's confidence limit (I 0." in out
    assert "chance or more of being no die reads ?" in out
    reader = load_reader(tmp_path / "prof", model=MODEL)
    n, right, silent = _read_style(reader, style, range(950, 952))
    assert right / n >= 0.95 and silent <= 1, (n, right, silent)


@pytest.mark.slow
def test_held_out_styles_after_enrolment_meet_the_bar(clf: FaceClassifier) -> None:
    """Every held-out style: enrol from one frame per motif, read two other frames."""
    n = right = silent = 0
    for i, style in enumerate(HELD_OUT):
        clf.profile = fit_profile(clf, *_enrolment_crops(style, 40_000 + 100 * i, n_dice=10))
        a, b, c = _read_style(clf, style, range(60_000 + 10 * i, 60_000 + 10 * i + 2))
        n, right, silent = n + a, right + b, silent + c
    clf.profile = None
    assert right / n >= 0.995, (n, right, silent)
    assert silent / n <= 0.001, (n, right, silent)


def test_one_view_of_a_die_reads_as_four_do(clf: FaceClassifier) -> None:
    # The embedding is trained to be the same at every right angle, so a profile
    # read can embed fewer views of each die (READ_ROTATIONS) than four.
    from companion.vision.classify import with_rotations

    crops, labels, frames = _enrolment_crops(HELD_OUT[9], 2)
    prof = fit_profile(clf, crops, labels, frames)
    test, truth, _ = _enrolment_crops(HELD_OUT[9], 4321, frames=1)
    four = rotation_embeddings(clf, test)
    one = rotation_embeddings(clf, test, 1)
    assert one.shape == (1, len(test), four.shape[-1])
    assert np.array_equal(with_rotations(test, 1), test) and 1 <= READ_ROTATIONS <= 4
    # views of a die at other right angles point the same way
    cos = np.sum(four[0] * four[1:], axis=-1)
    assert float(np.median(cos)) >= 0.95, float(np.median(cos))
    p1, p4 = prof.read(one)[0], prof.read(four)[0]
    assert np.mean(p1.argmax(axis=1) == p4.argmax(axis=1)) >= 0.98
    assert np.mean(p1.argmax(axis=1) == truth) >= 0.97


def test_far_from_every_motif_is_foreign_and_unlike_is_not() -> None:
    protos = np.eye(5, 8, dtype=np.float32)
    prof = Profile(
        np.zeros((8, 5), np.float32), np.zeros(5, np.float32), protos, 0.6, 0.8, "", (1,) * 5
    )
    like = protos[0]
    unlike = np.float32(0.7) * protos[0] + np.float32(np.sqrt(1 - 0.49)) * np.eye(8)[7]
    far = np.float32(0.6) * protos[0] + np.float32(0.8) * np.eye(8)[7]  # 0.6 < 0.8 - GAP
    nothing = np.eye(8, dtype=np.float32)[6]
    rot = np.stack([like, unlike, far, nothing]).astype(np.float32)[None]
    assert prof.foreign(rot).tolist() == [False, False, True, True]
    assert prof.read(rot)[1].tolist() == [False, True, True, True]  # all but the first: `?`
    no_limit = dataclasses.replace(prof, min_similarity=-1.0)
    assert not no_limit.foreign(rot).any()


def test_a_find_unlike_the_table_is_dropped_only_where_the_model_doubts_it(
    clf: FaceClassifier,
) -> None:
    from companion.synth.nondie import non_die_crops

    style = style_by_name("jade/navy/pulp")
    prof = fit_profile(clf, *_enrolment_crops(style, 11))
    assert DOUBT_FLOOR <= prof.doubt < clf.not_die_threshold
    dice, _, _ = _enrolment_crops(style, 77, frames=1)
    other, _, _ = _enrolment_crops(style_by_name("white/black/pulp"), 78, frames=1)
    things = non_die_crops(40, 779)
    # dice seen through a grid or a marker: crops the model is unsure hold a die
    blends = [(a * dice + (1 - a) * things.astype(np.float32)) for a in (0.4, 0.5, 0.6)]
    crops = np.concatenate([dice, other, things, *(b.astype(np.uint8) for b in blends)])
    clf.profile = prof
    as_enrolled = clf.classify(crops)
    # a profile that finds everything far from its motifs: only the model's doubt decides
    clf.profile = dataclasses.replace(prof, min_similarity=2.0)
    everything_far = clf.classify(crops)
    clf.profile = None
    alone = clf.classify(crops)
    assert not any(r.not_die for r in as_enrolled[: len(dice) + len(other)])
    for a, r, e in zip(alone, everything_far, as_enrolled, strict=True):
        doubted = a.not_die_p >= prof.doubt
        assert r.not_die == (a.not_die or doubted), (a, r)
        # a find the model doubts is a die reads `?`, however sure the profile's head is
        assert e.face == UNKNOWN or not doubted, (a, e)
    assert any(r.not_die and not a.not_die for a, r in zip(alone, everything_far, strict=True))
    assert any(not r.not_die for r in everything_far)  # dice the model is sure of stay


def test_a_damaged_profile_is_one_sentence(tmp_path: Path, clf: FaceClassifier) -> None:
    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    good = tmp_path / "good"
    fit_profile(clf, crops, labels, frames).save(good)
    npz, meta = (good / "profile.npz").read_bytes(), (good / "profile.json").read_text()

    def damaged(name: str, data: bytes | str) -> Path:
        d = tmp_path / f"bad{len(list(tmp_path.iterdir()))}"
        d.mkdir()
        (d / "profile.npz").write_bytes(npz)
        (d / "profile.json").write_text(meta)
        target = d / name
        target.write_bytes(data) if isinstance(data, bytes) else target.write_text(data)
        return d

    m = json.loads(meta)
    cases = [
        damaged("profile.npz", npz[:1500]),  # cut short
        damaged("profile.npz", b""),
        damaged("profile.npz", bytes(range(256)) * 8),
        damaged("profile.json", "[1, 2]"),
        damaged("profile.json", json.dumps({k: v for k, v in m.items() if k != "classes"})),
        damaged("profile.json", json.dumps({**m, "classes": None})),
        damaged("profile.json", json.dumps({**m, "classes": 5})),
    ]
    for folder in cases:
        with pytest.raises(EnrolmentError) as err:
            Profile.load(folder, clf)
        assert str(folder) in str(err.value) and "\n" not in str(err.value)
    # numbers that are no numbers would print a confidence no JSON can carry
    with np.load(good / "profile.npz") as z:
        arrays = {k: z[k].copy() for k in z.files}
    arrays["weights"][0, 0] = np.nan
    nan = tmp_path / "nan"
    nan.mkdir()
    np.savez(nan / "profile.npz", **arrays)
    (nan / "profile.json").write_text(meta)
    with pytest.raises(EnrolmentError, match="damaged"):
        Profile.load(nan, clf)


def test_enrolment_folders_that_cannot_be_read_are_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "frames.jpg"
    afile.write_bytes(b"x")
    assert _cli(["enroll", str(afile), "--out", str(tmp_path / "p")]) == 1
    assert "is a file" in capsys.readouterr().err
    for face in FACES[:-1]:
        (tmp_path / "d" / face).mkdir(parents=True)
    (tmp_path / "d" / "I" / "one.jpg").write_bytes(b"x")
    assert _cli(["enroll", str(tmp_path / "d"), "--out", str(tmp_path / "p")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no folder E" in err
    (tmp_path / "d" / "E").mkdir()
    real = Path.iterdir

    def refuse(self: Path) -> Any:
        if self.name == "I":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "iterdir", refuse)
    assert _cli(["enroll", str(tmp_path / "d"), "--out", str(tmp_path / "p")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Permission denied" in err and "Traceback" not in err


def _marbled_enrolment(root: Path) -> None:
    """One frame per motif of a validation drawing family's marbled set (12 dice each, 1280x960,
    bench_families' enrolment seeds) whose `1` frame the plain learned finder finds no die in."""
    from companion.evaluation.enrol_sim import enrolment_seed
    from companion.synth.family_sets import bench_styles

    style = bench_styles("validation", 1)[0]
    assert style.body.marble
    for k, face in enumerate(FACES):
        (root / face).mkdir(parents=True)
        frame = render_frame(
            enrolment_seed(style.name) + k, n_dice=12, styles=[style], faces=[face]
        )
        cv2.imwrite(str(root / face / "frame-0.png"), frame.image)


@pytest.mark.slow
def test_enrolment_finds_the_dice_as_reading_does(tmp_path: Path) -> None:
    # `vision read` judges the learned finder's weak peaks with the face model; enrolment cut
    # only the plain finder's dice, and lost whole frames of marbled dice (session 21)
    from companion.vision.finders import make_finder

    _marbled_enrolment(tmp_path / "dir")
    with pytest.raises(EnrolmentError, match="1"):
        enroll(tmp_path / "dir", tmp_path / "plain", model=MODEL, finder=make_finder("net"))
    profile = enroll(tmp_path / "dir", tmp_path / "prof", model=MODEL)
    assert min(profile.counts) > 0, profile.counts  # 6 of the 12 `1` dice (session 21)
    assert _cli(["enroll", str(tmp_path / "dir"), "--out", str(tmp_path / "cli")]) == 0
    assert Profile.load(tmp_path / "cli").counts == profile.counts


def test_enrolment_output_cut_short_by_a_pipe_keeps_the_profile(
    tmp_path: Path, shared_dir: Path
) -> None:
    # `companion vision enroll DIR --out P | head -1`: the reader of our output goes away
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "vision", "enroll"]
        + [str(shared_dir / "foreign-art" / "enroll" / "jade"), "--out", str(tmp_path / "p")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert first.startswith(b"enrolled ") and "Traceback" not in err
    assert (tmp_path / "p" / "profile.json").is_file()
