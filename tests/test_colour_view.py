"""A table's dice redrawn as how yellow they are (companion/vision/colour_view.py) and the second
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
from companion.vision.classify import FaceClassifier
from companion.vision.colour_view import ColourView
from companion.vision.enroll import EnrolmentError, Profile, fit_profile
from companion.vision.ink_view import InkView
from tests.test_enroll import _enrolment_crops
from tests.test_ink_view import Grain, _wood_crops, assert_reads_either, grained_crops

# BGR: two browns of a wood grain, and a gold as light as the lighter brown but more yellow
LIGHT, DARK, GOLD = (70, 135, 190), (35, 75, 115), (30, 150, 185)


def _gold_crops(n: int, seed: int = 0) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """Crops of a body with bold grain stripes and a gold drawing of the body's brightness;
    and where the drawing is."""
    return grained_crops(
        n, seed, (LIGHT, DARK, GOLD), Grain((6, 10), 10, (14, 24), (20, 22, 4), (12, 6, 7, 3), 3)
    )


def test_the_colour_view_draws_the_gold_and_fades_the_grain() -> None:
    crops, art = _gold_crops(6)
    seen = ColourView().apply(crops)
    assert seen.shape == crops.shape and seen.dtype == np.uint8
    assert np.array_equal(seen[..., 0], seen[..., 1])  # grey
    g = seen[..., 0].astype(float)
    face = np.zeros((64, 64), bool)
    face[10:54, 10:54] = True
    near = cv2.dilate(art.astype(np.uint8).transpose(1, 2, 0), np.ones((7, 7)))
    bare = ~near.astype(bool).transpose(2, 0, 1) & face
    assert g[art & face].mean() < 110 and g[bare].mean() > 170
    # against the drawing, the grain is strong in grey and faint in the view
    grey = crops.mean(axis=3)
    seen_grain = grey[bare].std() / abs(grey[art & face].mean() - grey[bare].mean())
    view_grain = g[bare].std() / (g[bare].mean() - g[art & face].mean())
    assert view_grain < 0.3 * seen_grain


def test_dim_light_draws_alike_and_a_colour_cast_keeps_the_gold_dark() -> None:
    crops, art = _gold_crops(4, seed=3)
    view = ColourView()
    plain = view.apply(crops)[..., 0].astype(float)
    dim = view.apply((crops.astype(np.float32) * 0.6).astype(np.uint8))[..., 0].astype(float)
    assert abs(dim[art].mean() - plain[art].mean()) < 8
    assert abs(dim[~art].mean() - plain[~art].mean()) < 8
    for cast in ((0.8, 1.0, 1.15), (1.15, 1.0, 0.85)):  # warm and cold light (BGR)
        lit = np.clip(crops.astype(np.float32) * cast, 0, 255).astype(np.uint8)
        g = view.apply(lit)[..., 0].astype(float)
        assert g[~art].mean() - g[art].mean() > 100


def test_views_are_written_and_read_back_and_damaged_ones_refused() -> None:
    wood, _ = _wood_crops(8)
    ink = InkView.fit(wood)
    assert ink is not None
    for view in (ColourView(), ink):
        back = views.from_json(json.loads(json.dumps(view.to_json())))
        assert type(back) is type(view)
        assert np.array_equal(back.apply(wood), view.apply(wood))
    # session 62's ink view: no kind
    old = views.from_json({"direction": [0.1, 0.2, -0.1], "full": 3.0})
    assert isinstance(old, InkView)
    new = views.from_json({"kind": "ink", "direction": [0.1, 0.2, -0.1], "full": 3.0})
    assert isinstance(new, InkView) and np.array_equal(new.direction, old.direction)
    for bad in (
        {"kind": "pencil"},
        {"direction": [0.1, 0.2], "full": 3.0},
    ):
        with pytest.raises(ValueError):
            views.from_json(bad)
    with pytest.raises(KeyError):
        views.from_json({"kind": "ink", "full": 3.0})
    assert ColourView().apply(wood[:0]).shape == (0, 64, 64, 3)


@pytest.fixture(scope="module")
def clf() -> FaceClassifier:
    return FaceClassifier()


def test_a_profile_read_as_yellow_is_written_read_back_and_says_so(
    tmp_path: Path, clf: FaceClassifier
) -> None:
    from companion.vision import faces_cli

    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    yellow = ColourView()
    plain = fit_profile(clf, crops, labels, frames)
    yellowed = fit_profile(clf, yellow.apply(crops), labels, frames)
    prof = dataclasses.replace(plain, ink=dataclasses.replace(yellowed, view=yellow))
    prof.save(tmp_path / "p")
    back = Profile.load(tmp_path / "p", clf)
    assert back.ink is not None and back.ink.view == yellow and back.view is None
    assert_reads_either(clf, back, crops[::3])
    said = [x for x in faces_cli.self_check_lines(prof) if "how yellow" in x]
    assert len(said) == 1 and "self-check" in said[0]
    assert "how yellow" in prof.summary() and "as their ink" not in prof.summary()
    warned = faces_cli.self_check_lines(dataclasses.replace(prof, warnings=("1 and 3 alike",)))
    assert "warning (the dice as seen): 1 and 3 alike" in warned
    assert any(x.startswith("no warning (the dice as yellow)") for x in warned)
    meta = json.loads((tmp_path / "p" / "ink" / "profile.json").read_text())
    meta["ink_view"] = {"kind": "blue"}
    (tmp_path / "p" / "ink" / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(EnrolmentError, match="cannot read the profile"):
        Profile.load(tmp_path / "p", clf)


def test_the_yellow_view_is_tried_only_where_the_ink_is_not_clearly_better(
    monkeypatch: pytest.MonkeyPatch, clf: FaceClassifier
) -> None:
    from companion.vision import enroll

    crops, labels, frames = _enrolment_crops(HELD_OUT[5], 1)
    monkeypatch.setattr(enroll, "VIEW_GAIN", 0.0)  # every set tries its views
    drawn: list[str] = []  # the views drawn, in order
    for kind, cls in (("ink", InkView), ("yellow", ColourView)):

        def spy(self: views.View, c: npt.NDArray[np.uint8], _k: str = kind, _f=cls.apply):  # type: ignore[no-untyped-def]
            drawn.append(_k)
            return _f(self, c)

        monkeypatch.setattr(cls, "apply", spy)

    def judged(better: set[str]) -> Profile:
        drawn.clear()
        monkeypatch.setattr(enroll, "_clearly_better", lambda viewed, plain: drawn[-1] in better)
        return fit_profile(clf, crops, labels, frames)

    # the ink clearly better: kept, and the yellow view never drawn
    got = judged({"ink", "yellow"})
    assert drawn == ["ink"] and got.ink is not None and isinstance(got.ink.view, InkView)
    # the ink not: the yellow is tried, and kept when clearly better
    got = judged({"yellow"})
    assert drawn == ["ink", "yellow"] and got.ink is not None
    assert got.ink.view == ColourView()
    # neither: the plain profile reads alone
    got = judged(set())
    assert drawn == ["ink", "yellow"] and got.ink is None
