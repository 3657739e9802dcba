"""The corner refiner: its patches, its use of the network, and the judged finder's use of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from companion.vision.corner_refiner import (
    PATCH,
    REFINER_ENV,
    SQUARE,
    load_refiner,
    patch_of,
    refine,
)
from companion.vision.detect_net import DetectorModelError
from companion.vision.found import FoundDie
from companion.vision.geometry import mean_edge
from companion.vision.judged import JudgeSettings, _Crops, _refined, find_and_read
from tests.test_judged import FakeFinder, FakeJudge

F32 = npt.NDArray[np.float32]


def _square(cx: float, cy: float, edge: float, turn_deg: float = 0.0) -> F32:
    a = np.deg2rad(turn_deg)
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return np.asarray(unit @ rot.T * edge + (cx, cy), np.float32)


def _to_patch(h: npt.NDArray[np.float64], pts: F32) -> npt.NDArray[np.float64]:
    p = np.c_[pts, np.ones(len(pts))] @ h.T
    return np.asarray(p[:, :2] / p[:, 2:])


@pytest.mark.parametrize(
    ("edge", "turn"), [(40.0, 0.0), (50.0, 20.0), (64.0, 0.0), (90.0, 33.0), (160.0, 10.0)]
)
def test_the_cut_lies_on_the_patchs_square_whatever_the_dies_size_and_turn(
    edge: float, turn: float
) -> None:
    image = np.random.default_rng(0).integers(0, 255, (960, 1280, 3), np.uint8)
    corners = _square(600.3, 400.7, edge, turn)
    patch, to_patch = patch_of(image, corners)
    assert patch.shape == (PATCH, PATCH, 3) and patch.dtype == np.uint8
    assert np.abs(_to_patch(to_patch, corners) - SQUARE).max() < 1e-3


def test_a_large_die_is_shrunk_by_area_so_its_stripes_do_not_alias() -> None:
    # a face of 1-pixel stripes, 128 px: shrunk 4x by area it is an even grey in the patch
    image = np.zeros((960, 1280, 3), np.uint8)
    image[:, ::2] = 255
    patch, _ = patch_of(image, _square(640, 480, 128.0))
    assert float(patch.std()) < 8 and abs(float(patch.mean()) - 127.5) < 8


@pytest.mark.parametrize("centre", [(5.0, 5.0), (1275.0, 950.0), (-200.0, 300.0)])
def test_a_die_at_or_beyond_the_frames_edge_gives_a_patch(centre: tuple[float, float]) -> None:
    image = np.full((960, 1280, 3), 70, np.uint8)
    patch, _ = patch_of(image, _square(*centre, 60.0))
    assert patch.shape == (PATCH, PATCH, 3)


@dataclass
class Offsets:
    """A stand-in network: the same offsets (edges) for every corner of every patch."""

    dx: float = 0.0
    dy: float = 0.0
    runs: int = 0

    def run(self, _names: Any, feeds: dict[str, F32]) -> list[F32]:
        self.runs += 1
        x = feeds["x"]
        assert x.shape[1:] == (3, PATCH, PATCH) and x.dtype == np.float32
        out = np.zeros((len(x), 4, 2), np.float32)
        out[..., 0], out[..., 1] = self.dx, self.dy
        return [out]


def test_offsets_are_read_in_edges_of_the_cut_and_mapped_back_to_the_frame() -> None:
    image = np.full((960, 1280, 3), 90, np.uint8)
    dice = [_square(300, 300, 50.0), _square(700, 500, 130.0, 30.0)]
    same = refine(image, dice, Offsets())
    assert all(np.abs(a - b).max() < 1e-3 for a, b in zip(same, dice, strict=True))
    net = Offsets(dx=0.1)
    moved = refine(image, dice[:1], net)
    assert net.runs == 1  # a frame's dice in one batch
    assert np.allclose(moved[0] - dice[0], [[5.0, 0.0]] * 4, atol=1e-3)  # 0.1 of 50 px
    assert refine(image, [], net) == [] and net.runs == 1


def test_patches_cut_on_several_threads_are_the_same() -> None:
    image = np.random.default_rng(1).integers(0, 255, (960, 1280, 3), np.uint8)
    dice = [_square(100 + 90 * i, 200 + 40 * (i % 3), 50 + 9 * i, 7 * i) for i in range(12)]
    net = Offsets(dx=0.05, dy=-0.03)
    one, two = refine(image, dice, net, threads=1), refine(image, dice, net, threads=2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_a_missing_refiner_is_told_in_one_sentence(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv(REFINER_ENV, str(tmp_path / "none.onnx"))
    with pytest.raises(DetectorModelError, match=REFINER_ENV):
        load_refiner(1)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    monkeypatch.setenv(REFINER_ENV, str(bad))
    with pytest.raises(DetectorModelError, match="cannot be loaded"):
        load_refiner(1)


def _corner_error(cut: F32, true: F32) -> float:
    """Mean corner distance in edges, the corners matched in the order that fits best."""
    return min(
        float(np.mean(np.linalg.norm(np.roll(cut, k, axis=0) - true, axis=1))) for k in range(4)
    ) / mean_edge(true)


@pytest.mark.slow
def test_the_shipped_refiner_brings_a_finders_cut_nearer_the_true_corners() -> None:
    # cuts moved as the finder moves them, on frames of our validation styles (the network
    # was taught on training styles): session 50 measured 0.041 -> 0.025 edge on such frames
    from companion.synth import VALIDATION, render_frame

    rng = np.random.default_rng(7)
    before, after = [], []
    sess = load_refiner(2)
    for seed in range(99900, 99906):
        frame = render_frame(seed, size=(1280, 960), styles=VALIDATION)
        true = [np.asarray(d.corners, np.float32) for d in frame.dice]
        true = [t for t in true if t.min() > 10 and t[:, 0].max() < 1270 and t[:, 1].max() < 950]
        cuts = []
        for t in true:
            e = mean_edge(t)
            shift = rng.normal(0, 0.06, 2) * e
            cuts.append(np.asarray(t + shift + rng.normal(0, 0.02, (4, 2)) * e, np.float32))
        for t, c, r in zip(true, cuts, refine(frame.image, cuts, sess), strict=True):
            before.append(_corner_error(c, t))
            after.append(_corner_error(r, t))
    assert len(before) > 40
    assert np.median(after) < 0.7 * np.median(before)


@dataclass
class RedIsDie:
    """A face model for flat scenes: a crop whose centre is red is a die, blue is none."""

    not_die_threshold: float = 0.8

    def classify(self, crops: npt.NDArray[np.uint8]) -> list[Any]:
        from companion.vision.classify import FaceReading

        centre = crops[:, 24:40, 24:40].reshape(len(crops), -1, 3).mean(axis=1)
        p = np.where(centre[:, 2] > 128, 0.0, np.where(centre[:, 0] > 128, 0.99, 0.3))
        return [FaceReading("I", 1.0 - float(q), "I", bool(q >= 0.8), float(q)) for q in p]


def _die(corners: F32, clean: bool = True) -> FoundDie:
    c = np.asarray(corners, np.float32)
    return FoundDie(
        center=(float(c[:, 0].mean()), float(c[:, 1].mean())),
        corners=c,
        edge=mean_edge(c),
        clean=clean,
    )


def test_a_refined_cut_the_face_model_drops_keeps_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = np.full((480, 640, 3), 90, np.uint8)
    image[100:150, 100:150] = (0, 0, 255)  # a die
    image[100:150, 150:200] = (255, 0, 0)  # a printed mark beside it
    image[300:350, 300:350] = (0, 0, 255)  # a die with grey to its right
    monkeypatch.setattr("companion.vision.judged.load_refiner", lambda threads: Offsets(dx=1.0))
    dice = [_die(_square(124.5, 124.5, 50)), _die(_square(324.5, 324.5, 50))]
    first = RedIsDie().classify(_Crops(image, 1).of([d.corners for d in dice]))
    got, reads = _refined(_Crops(image, 1), RedIsDie(), dice, first, 1)
    assert got[0] is dice[0] and reads[0] is first[0]  # moved onto the mark: no die there
    assert got[1].center[0] == pytest.approx(374.5, abs=0.01)  # moved onto grey: taken
    assert reads[1].not_die_p == pytest.approx(0.3)  # ... and read from its new cut


def test_dice_cut_by_the_border_or_unclean_are_not_refined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = np.full((480, 640, 3), 90, np.uint8)
    net = Offsets(dx=0.2)
    monkeypatch.setattr("companion.vision.judged.load_refiner", lambda threads: net)
    dice = [_die(_square(630, 200, 40)), _die(_square(300, 200, 40), clean=False)]
    reads = RedIsDie().classify(_Crops(image, 1).of([d.corners for d in dice]))
    got, again = _refined(_Crops(image, 1), RedIsDie(), dice, reads, 1)
    assert all(a is b for a, b in zip(got, dice, strict=True)) and net.runs == 0
    assert all(a is b for a, b in zip(again, reads, strict=True))
    inside = [*dice, _die(_square(300, 300, 40))]
    got, _ = _refined(_Crops(image, 1), RedIsDie(), inside, [*reads, reads[0]], 1)
    assert net.runs == 1 and got[2].center[0] == pytest.approx(308, abs=0.01)
    assert got[0] is dice[0] and got[1] is dice[1]


def test_the_judged_finder_cuts_at_the_refined_corners_when_told() -> None:
    # a flat die of 50 px the finder decodes 62 px and 4 px off: refined, it is cut at its size
    image = np.full((960, 1280, 3), 90, np.uint8)
    image[475:525, 615:665] = (0, 0, 255)
    finder = FakeFinder([(644.0, 500.0, 62.0, 0.9)])
    (plain,) = find_and_read(image, FakeJudge(), JudgeSettings(), session=finder)
    (fine,) = find_and_read(image, FakeJudge(), JudgeSettings(refine=True), session=finder)
    assert abs(plain[0].edge - 62.0) < 1
    assert abs(fine[0].edge - 50.0) < 3 and abs(fine[0].center[0] - 639.5) < 2
