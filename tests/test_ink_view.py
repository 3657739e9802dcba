"""A table's dice redrawn as ink on a plain face (companion/vision/ink_view.py) and the profile
that reads them so (enroll.fit_profile keeps the view only where its cross-check is clearly
better)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from companion.synth import HELD_OUT
from companion.vision import views
from companion.vision.classify import FaceClassifier, _either, rotation_run
from companion.vision.enroll import (
    VIEW_GAIN,
    EnrolmentError,
    Profile,
    SelfCheck,
    _clearly_better,
    fit_profile,
)
from companion.vision.ink_view import InkView
from tests.test_enroll import _enrolment_crops

LIGHT, DARK = (70, 120, 175), (35, 70, 115)  # BGR: two browns of a wood grain
GOLD = (40, 185, 225)


class Grain(NamedTuple):
    """How grained_crops draws: stripe periods [lo, hi), phases [0, hi), the drawing's origin
    [lo, hi), a line (dx, dy, width), a ring (dx, dy, radius, width), the noise's sigma."""

    periods: tuple[int, int]
    phases: int
    origin: tuple[int, int]
    line: tuple[int, int, int]
    ring: tuple[int, int, int, int]
    noise: float


def grained_crops(
    n: int,
    seed: int,
    colours: tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]],
    g: Grain,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """Crops of a body striped in two colours (each die its own grain) with a drawing of a line
    and a ring in the third colour, and where the drawing is, well inside its strokes."""
    light, dark, art_colour = colours
    rng = np.random.default_rng(seed)
    crops = np.zeros((n, 64, 64, 3), np.uint8)
    art = np.zeros((n, 64, 64), bool)
    for i in range(n):
        c = np.zeros((64, 64, 3), np.float32)
        c[:] = light
        period, phase = int(rng.integers(*g.periods)), int(rng.integers(0, g.phases))
        for y in range(64):
            if (y + phase) % period < period // 2:
                c[y] = dark
        m = np.zeros((64, 64), np.uint8)
        x0, y0 = int(rng.integers(*g.origin)), int(rng.integers(*g.origin))
        cv2.line(m, (x0, y0), (x0 + g.line[0], y0 + g.line[1]), 255, g.line[2])
        cv2.circle(m, (x0 + g.ring[0], y0 + g.ring[1]), g.ring[2], 255, g.ring[3])
        c[m > 0] = art_colour
        c += rng.normal(0, g.noise, c.shape)
        crops[i] = np.clip(c, 0, 255).astype(np.uint8)
        art[i] = cv2.erode(m, np.ones((3, 3), np.uint8)) > 0
    return crops, art


def _wood_crops(n: int, seed: int = 0) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """Crops of a grained body (stripes of two browns) with a gold drawing, and where the
    drawing is."""
    return grained_crops(
        n, seed, (LIGHT, DARK, GOLD), Grain((5, 9), 8, (16, 26), (18, 20, 3), (10, 6, 6, 2), 4)
    )


def test_the_view_fades_the_grain_and_keeps_the_drawing() -> None:
    crops, ink = _wood_crops(24)
    view = InkView.fit(crops[:16])
    assert view is not None
    seen = view.apply(crops[16:])  # dice the view was not fitted on
    assert seen.shape == crops[16:].shape and seen.dtype == np.uint8
    assert np.array_equal(seen[..., 0], seen[..., 2])  # grey
    face = np.zeros((64, 64), bool)
    face[10:54, 10:54] = True
    drawn = ink[16:] & face
    bare = (
        ~cv2.dilate(ink[16:].astype(np.uint8).transpose(1, 2, 0), np.ones((7, 7)))
        .astype(bool)
        .transpose(2, 0, 1)
        & face
    )
    g = seen[..., 0].astype(float)
    assert g[drawn].mean() < 110 and g[bare].mean() > 190
    # on the crops as seen the grain is a third as strong as the drawing; in the view, nothing
    grey = crops[16:].mean(axis=3)
    stripes_seen = np.abs(np.diff(grey, axis=1))[bare[:, 1:]].mean()
    stripes_view = np.abs(np.diff(g, axis=1))[bare[:, 1:]].mean()
    assert stripes_view < 0.3 * stripes_seen


def test_a_plain_body_with_no_drawing_has_no_view() -> None:
    flat = np.full((10, 64, 64, 3), (90, 140, 200), np.uint8)
    assert InkView.fit(flat) is None
    assert InkView.fit(flat[:1]) is None  # one die says nothing of a table
    view = InkView.fit(_wood_crops(8)[0])
    assert view is not None and view.apply(flat[:0]).shape == (0, 64, 64, 3)


def test_the_view_is_written_and_read_back_and_a_damaged_one_refused() -> None:
    view = InkView.fit(_wood_crops(8)[0])
    assert view is not None
    back = InkView.from_json(json.loads(json.dumps(view.to_json())))
    crops = _wood_crops(3, seed=5)[0]
    assert np.array_equal(back.apply(crops), view.apply(crops))
    for bad in ({"direction": [1, 2], "full": 3}, {"direction": [1, 2, 3], "full": 0}):
        with pytest.raises(ValueError):
            InkView.from_json(bad)
    with pytest.raises(KeyError):
        InkView.from_json({"full": 1})


def _check(dice: int, right: int, unsure: int) -> SelfCheck:
    return SelfCheck(dice, right, unsure, ())


def test_the_view_is_kept_only_where_its_cross_check_is_clearly_better() -> None:
    def prof(check: SelfCheck) -> Profile:
        z = np.zeros((1, 5), np.float32)
        return Profile(z.T, z[0], z, 0.5, -1.0, "", (1,) * 5, check)

    plain = prof(_check(100, 80, 20))
    gain = int(100 * VIEW_GAIN)
    assert _clearly_better(prof(_check(100, 80 + gain, 20 - gain)), plain)
    assert _clearly_better(prof(_check(100, 80 + gain, 19 - gain)), plain)  # one more wrong
    assert not _clearly_better(prof(_check(100, 79 + gain, 21 - gain)), plain)  # not enough
    assert not _clearly_better(prof(_check(100, 95, 3)), plain)  # two more wrong
    assert not _clearly_better(prof(_check(0, 0, 0)), plain)
    assert not _clearly_better(dataclasses.replace(plain, check=None), plain)


@pytest.fixture(scope="module")
def clf() -> FaceClassifier:
    return FaceClassifier()


def test_a_table_the_network_reads_well_has_no_second_read(clf: FaceClassifier) -> None:
    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    prof = fit_profile(clf, crops, labels, frames)
    assert prof.ink is None and prof.view is None


Reads = tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
]


def _reads(best: list[int], conf: list[float], limit: float = 0.8) -> Reads:
    n = len(best)
    probs = np.full((n, 5), 0.0, np.float32)
    for i, (k, c) in enumerate(zip(best, conf, strict=True)):
        probs[i] = (1 - c) / 4
        probs[i, k] = c
    return (
        probs,
        np.full(n, limit),
        np.zeros(n, bool),
        np.zeros(n, np.float32),
        np.zeros(n, bool),
    )


def test_a_die_one_read_reads_and_the_other_doubts_takes_the_read() -> None:
    #              both sure  plain only  ink only  plain sure,  both sure,  neither
    #              agree                            ink guesses  two motifs  sure
    #                                               another
    plain = _reads([1, 2, 3, 4, 0, 0], [0.9, 0.9, 0.5, 0.95, 0.9, 0.5])
    inked = _reads([1, 2, 3, 0, 1, 0], [0.9, 0.5, 0.9, 0.4, 0.9, 0.5])
    probs, limit, unlike, _, drop = _either(plain, inked)
    shown = probs.max(axis=1) >= limit
    assert shown.tolist() == [True, True, True, True, False, False]
    assert probs.argmax(axis=1)[:4].tolist() == [1, 2, 3, 4]
    assert np.array_equal(probs[2], inked[0][2])  # the die the ink read decided: its read
    assert np.array_equal(probs[1], plain[0][1]) and not unlike.any() and not drop.any()
    assert plain[1][4] == 0.8  # the plain read is not changed in place
    # a die the plain read drops as no die stays dropped, whatever the ink read says
    dropped = _reads([1, 2, 3, 4, 0, 0], [0.9, 0.9, 0.5, 0.95, 0.9, 0.5])
    dropped[4][2] = True
    out = _either(dropped, inked)
    assert out[4].tolist() == dropped[4].tolist() and not out[0][2].max() >= out[1][2]
    # a die far from every motif, or no die, in the ink read is no read of the ink's
    for part in (2, 4):
        odd = _reads([1, 2, 3, 0, 1, 0], [0.9, 0.5, 0.9, 0.4, 0.9, 0.5])
        odd[part][2] = True
        out = _either(_reads([1, 2, 3, 4, 0, 0], [0.9, 0.9, 0.5, 0.95, 0.9, 0.5]), odd)
        assert not out[0][2].max() >= out[1][2]


def _with_ink(
    clf: FaceClassifier,
) -> tuple[Profile, InkView, npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    view = InkView.fit(crops)
    assert view is not None
    plain = fit_profile(clf, crops, labels, frames)
    inked = fit_profile(clf, view.apply(crops), labels, frames)
    return (
        dataclasses.replace(plain, ink=dataclasses.replace(inked, view=view)),
        view,
        crops,
        labels,
        frames,
    )


def test_enrolment_keeps_the_ink_read_where_its_cross_check_is_clearly_better(
    clf: FaceClassifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.vision import enroll

    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    seen: list[tuple[float, float]] = []

    def better(viewed: Profile, plain: Profile) -> bool:
        assert viewed.check is not None and plain.check is not None
        seen.append((viewed.check.accuracy, plain.check.accuracy))
        return True

    # this set reads itself too well for a second read to be tried at all ...
    monkeypatch.setattr(enroll, "_clearly_better", better)
    assert fit_profile(clf, crops, labels, frames).ink is None and not seen
    # ... unless its self-check had room for one to be clearly better: the ink is tried first
    # and, clearly better, kept (test_colour_view: the yellow view is tried only after it)
    monkeypatch.setattr(enroll, "VIEW_GAIN", 0.0)
    prof = fit_profile(clf, crops, labels, frames)
    assert len(seen) == 1 and prof.view is None
    assert prof.ink is not None and isinstance(prof.ink.view, InkView) and prof.ink.ink is None
    assert prof.ink.check is not None and prof.ink.check.dice > 0
    assert prof.ink.check.accuracy == seen[0][0]
    assert views.NAMES[views.kind(prof.ink.view)]


def assert_reads_either(clf: FaceClassifier, prof: Profile, test: npt.NDArray[np.uint8]) -> None:
    """A profile with a second read reads the crops as classify._either of its plain read and
    its second profile's read of the redrawn crops (with the doubt of the dice as seen)."""
    assert prof.ink is not None and prof.ink.view is not None
    try:
        clf.profile = prof
        both = clf.probabilities(test)
        clf.profile = dataclasses.replace(prof, ink=None)
        plain = clf._probabilities(test)
        clf.profile = prof.ink
        logits = clf.run(test)[0]
        seen = prof.ink.view.apply(test)
        second = clf._profile_read(prof.ink, seen, logits, rotation_run(clf, seen, 2)[1])
    finally:
        clf.profile = None
    want = _either(plain, second)
    assert np.allclose(both[0], want[0]) and np.array_equal(both[1], want[1])


def test_a_profile_with_an_ink_read_is_written_read_back_and_reads_both(
    tmp_path: Path, clf: FaceClassifier
) -> None:
    prof, view, _, _, _ = _with_ink(clf)
    assert prof.ink is not None
    prof.save(tmp_path / "p")
    back = Profile.load(tmp_path / "p", clf)
    assert back.ink is not None and isinstance(back.ink.view, InkView) and back.view is None
    assert np.array_equal(back.ink.view.direction, view.direction)
    assert np.array_equal(back.ink.weights, prof.ink.weights)
    assert_reads_either(clf, back, _enrolment_crops(HELD_OUT[5], 7)[0])
    # enrolled again into the same folder without an ink read: the old one is gone
    dataclasses.replace(prof, ink=None).save(tmp_path / "p")
    assert Profile.load(tmp_path / "p", clf).ink is None
    prof.save(tmp_path / "p")
    meta = json.loads((tmp_path / "p" / "ink" / "profile.json").read_text())
    meta["ink_view"] = {"direction": [1.0, "x", 2.0], "full": 1.0}
    (tmp_path / "p" / "ink" / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(EnrolmentError, match="cannot read the profile"):
        Profile.load(tmp_path / "p", clf)


def test_enrolment_and_doctor_say_when_the_dice_are_also_read_as_ink(
    clf: FaceClassifier,
) -> None:
    from companion.vision import faces_cli

    prof, _, _, _, _ = _with_ink(clf)
    plain = dataclasses.replace(prof, ink=None)
    said = [line for line in faces_cli.self_check_lines(prof) if "as their ink" in line]
    assert len(said) == 1 and "grain" in said[0] and "self-check" in said[0]
    assert not any("as their ink" in line for line in faces_cli.self_check_lines(plain))
    assert "as their ink" in prof.summary() and "as their ink" not in plain.summary()
    # each warning says which read it is of, when there are two
    lines = faces_cli.self_check_lines(
        dataclasses.replace(prof, warnings=("motifs 1 and 3 look alike",))
    )
    assert "warning (the dice as seen): motifs 1 and 3 look alike" in lines
    assert any(line.startswith("no warning (the dice as ink)") for line in lines)
    assert not any(line.startswith("warning (") for line in faces_cli.self_check_lines(plain))
