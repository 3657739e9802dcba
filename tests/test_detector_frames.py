"""The detector's training frames: from FAMILIES_FROM on they hold dice of training-family
sets (marbled and any colour, which the TRAIN styles lack), never of a validation, held-out
or hard family; the earlier seeds render as they always did."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import companion.synth.frame as synth_frame
from companion.synth.families import FAMILY_SPLITS
from companion.synth.styles import TRAIN
from tests.scripts import load_script


def _script() -> ModuleType:
    return load_script("train_detector")


def _styles_of(seed: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    seen: list[tuple[Any, ...]] = []
    real = synth_frame.render_frame

    def spy(*args: Any, **kw: Any) -> Any:
        seen.append(tuple(kw["styles"]))
        return real(*args, **{**kw, "size": (320, 240)})

    monkeypatch.setattr(synth_frame, "render_frame", spy)
    img, corners, centers = _script()._render_one(seed)
    assert img.shape[2] == 3 and len(corners) == len(centers)
    return seen[0]


def test_family_frames_hold_training_family_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    mod = _script()
    held = {
        name
        for split in ("validation", "held_out", "hard")
        for kind in ("tentacle", "arrangement", "elder")
        for name in FAMILY_SPLITS[split][kind]
    }
    marbled = 0
    for seed in range(mod.FAMILIES_FROM, mod.FAMILIES_FROM + 8):
        styles = _styles_of(seed, monkeypatch)
        assert 1 <= len(styles) <= 3
        for s in styles:
            assert s.art.name.startswith("train")
            assert not {s.art.tentacle, s.art.arrangement, s.art.elder} & held
            marbled += s.body.marble
    assert marbled >= 1  # what the TRAIN styles never show
    assert not any(s.body.marble for s in TRAIN)


def test_earlier_seeds_keep_the_train_styles(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _styles_of(3500, monkeypatch) == tuple(TRAIN)


def test_family_frames_lie_on_printed_squares_more_often_from_their_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Session 39: marbled dice on a checked cloth went unfound, so the seeds from
    # FAMILY_SQUARES_FROM on put most family frames on printed squares; the seeds before keep
    # the frames they always drew (a third on squares).
    surfaces: list[object] = []

    class Done(Exception):
        pass

    def fake_render(*_: object, surface_kind: object = None, **__: object) -> None:
        surfaces.append(surface_kind)
        raise Done

    monkeypatch.setattr(synth_frame, "render_frame", fake_render)
    mod = _script()
    share = {}
    for first in (mod.FAMILIES_FROM, mod.FAMILY_SQUARES_FROM):
        surfaces.clear()
        for seed in range(first, first + 200):
            with pytest.raises(Done):
                mod._render_one(seed)
        share[first] = sum(s == "squares" for s in surfaces) / len(surfaces)
    assert 0.2 < share[mod.FAMILIES_FROM] < 0.4, share
    assert 0.6 < share[mod.FAMILY_SQUARES_FROM] < 0.8, share
