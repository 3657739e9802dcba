"""A table's dice redrawn as their thin strokes (companion/vision/line_view.py) and the second
profile that reads them so or as ink (companion/vision/views.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from companion.synth import HELD_OUT
from companion.vision import views
from companion.vision.classify import FaceClassifier, _either, rotation_run
from companion.vision.enroll import EnrolmentError, Profile, fit_profile
from companion.vision.ink_view import InkView
from companion.vision.line_view import LineView
from tests.test_enroll import _enrolment_crops
from tests.test_ink_view import _wood_crops

BROWN, DARK = (60, 95, 140), (40, 65, 100)


def _embossed_crops(n: int, seed: int = 0) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """Crops of a body with wide grain bands (12 px) and a drawing of thin strokes (2 px) in the
    body's own colour, lit: a light edge beside a dark one; and where the strokes are."""
    rng = np.random.default_rng(seed)
    crops = np.zeros((n, 64, 64, 3), np.uint8)
    strokes = np.zeros((n, 64, 64), bool)
    for i in range(n):
        c = np.zeros((64, 64, 3), np.float32)
        c[:] = BROWN
        phase = int(rng.integers(0, 24))
        for y in range(64):
            if (y + phase) % 24 < 12:
                c[y] = DARK
        m = np.zeros((64, 64), np.uint8)
        x0, y0 = int(rng.integers(14, 24)), int(rng.integers(14, 24))
        cv2.line(m, (x0, y0), (x0 + 20, y0 + 22), 255, 1)
        cv2.circle(m, (x0 + 12, y0 + 6), 7, 255, 1)
        lit = m > 0
        shade = np.roll(lit, 1, axis=1) & ~lit
        c[lit] += 45.0
        c[shade] -= 35.0
        c += rng.normal(0, 3, c.shape)
        crops[i] = np.clip(c, 0, 255).astype(np.uint8)
        strokes[i] = lit
    return crops, strokes


def test_the_line_view_keeps_thin_strokes_and_fades_wide_grain() -> None:
    crops, strokes = _embossed_crops(6)
    seen = LineView().apply(crops)
    assert seen.shape == crops.shape and seen.dtype == np.uint8
    assert np.array_equal(seen[..., 0], seen[..., 1])  # grey
    g = seen[..., 0].astype(float)
    face = np.zeros((64, 64), bool)
    face[10:54, 10:54] = True
    near = cv2.dilate(strokes.astype(np.uint8).transpose(1, 2, 0), np.ones((7, 7)))
    bare = ~near.astype(bool).transpose(2, 0, 1) & face
    assert g[strokes & face].mean() < 130 and g[bare].mean() > 200
    # against the strokes, the grain's bands are strong on the crops as seen, faint in the view
    grey = crops.mean(axis=3)
    seen_grain = grey[bare].std() / abs(grey[strokes & face].mean() - grey[bare].mean())
    view_grain = g[bare].std() / (g[bare].mean() - g[strokes & face].mean())
    assert view_grain < 0.3 * seen_grain


def test_a_dim_die_and_a_bright_one_draw_alike() -> None:
    crops, strokes = _embossed_crops(4, seed=3)
    dim = (crops.astype(np.float32) * 0.45).astype(np.uint8)
    line = LineView()
    a, b = line.apply(dim)[..., 0].astype(float), line.apply(crops)[..., 0].astype(float)
    assert abs(a[strokes].mean() - b[strokes].mean()) < 8  # strokes as dark, dim or bright
    assert abs(a[~strokes].mean() - b[~strokes].mean()) < 8


def test_views_are_written_and_read_back_and_damaged_ones_refused() -> None:
    wood, _ = _wood_crops(8)
    ink = InkView.fit(wood)
    assert ink is not None
    for view in (LineView(), LineView(7), ink):
        back = views.from_json(json.loads(json.dumps(view.to_json())))
        assert type(back) is type(view)
        assert np.array_equal(back.apply(wood), view.apply(wood))
    # session 62's ink view: no kind
    old = views.from_json({"direction": [0.1, 0.2, -0.1], "full": 3.0})
    assert isinstance(old, InkView)
    new = views.from_json({"kind": "ink", "direction": [0.1, 0.2, -0.1], "full": 3.0})
    assert isinstance(new, InkView) and np.array_equal(new.direction, old.direction)
    for bad in (
        {"kind": "lines", "stroke": 2},
        {"kind": "lines", "stroke": 5.0},
        {"kind": "lines", "stroke": True},
        {"kind": "pencil"},
        {"direction": [0.1, 0.2], "full": 3.0},
    ):
        with pytest.raises(ValueError):
            views.from_json(bad)
    with pytest.raises(KeyError):
        views.from_json({"kind": "lines"})
    assert LineView().apply(wood[:0]).shape == (0, 64, 64, 3)


@pytest.fixture(scope="module")
def clf() -> FaceClassifier:
    return FaceClassifier()


def test_a_profile_read_as_strokes_is_written_read_back_and_says_so(
    tmp_path: Path, clf: FaceClassifier
) -> None:
    from companion.vision import faces_cli

    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    line = LineView()
    plain = fit_profile(clf, crops, labels, frames)
    stroked = fit_profile(clf, line.apply(crops), labels, frames)
    prof = dataclasses.replace(plain, ink=dataclasses.replace(stroked, view=line))
    prof.save(tmp_path / "p")
    back = Profile.load(tmp_path / "p", clf)
    assert back.ink is not None and back.ink.view == line and back.view is None
    test = crops[::3]
    try:
        clf.profile = back
        both = clf.probabilities(test)
        clf.profile = dataclasses.replace(back, ink=None)
        alone = clf._probabilities(test)
        logits = clf.run(test)[0]
        seen = line.apply(test)
        lines = clf._profile_read(back.ink, seen, logits, rotation_run(clf, seen, 2)[1])
    finally:
        clf.profile = None
    want = _either(alone, lines)
    assert np.allclose(both[0], want[0]) and np.array_equal(both[1], want[1])
    said = [x for x in faces_cli.self_check_lines(prof) if "thin strokes" in x]
    assert len(said) == 1 and "self-check" in said[0]
    assert "thin strokes" in prof.summary() and "as their ink" not in prof.summary()
    warned = faces_cli.self_check_lines(dataclasses.replace(prof, warnings=("1 and 3 alike",)))
    assert "warning (the dice as seen): 1 and 3 alike" in warned
    assert any(x.startswith("no warning (the dice as strokes)") for x in warned)
    meta = json.loads((tmp_path / "p" / "ink" / "profile.json").read_text())
    meta["ink_view"] = {"kind": "lines", "stroke": 99}
    (tmp_path / "p" / "ink" / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(EnrolmentError, match="cannot read the profile"):
        Profile.load(tmp_path / "p", clf)
