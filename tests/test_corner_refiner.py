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
    patches_of,
    refine,
)
from companion.vision.detect_net import Candidate, DetectorModelError
from companion.vision.geometry import mean_edge
from companion.vision.judged import REFINE_MOST, JudgeSettings, find_and_read, refined_peaks
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
    patches, to_patches = patches_of(image, [corners])
    assert patches.shape == (1, PATCH, PATCH, 3) and patches.dtype == np.uint8
    assert np.abs(_to_patch(to_patches[0], corners) - SQUARE).max() < 1e-3


def test_dice_of_every_size_cut_together_are_cut_as_each_alone() -> None:
    # one frame pyramid serves dice of several halvings at once
    image = np.random.default_rng(2).integers(0, 255, (960, 1280, 3), np.uint8)
    dice = [_square(150 + 160 * i, 300 + 50 * (i % 2), 40 + 30 * i, 9 * i) for i in range(7)]
    patches, to_patches = patches_of(image, dice)
    for i, d in enumerate(dice):
        alone, to_alone = patches_of(image, [d])
        assert np.array_equal(alone[0], patches[i]) and np.allclose(to_alone[0], to_patches[i])


def test_a_patch_is_near_the_patch_the_network_learnt_from() -> None:
    # training cut its patches with one exact area shrink (train_refiner.canonical_patch);
    # the reader's halvings and warp must give nearly the same pixels on a textured frame
    import importlib

    import cv2

    # by name: models/ is scripts, not the typed package
    canonical_patch = importlib.import_module("models.train_refiner").canonical_patch
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 255, (960, 1280, 3), np.uint8)
    image = np.asarray(cv2.GaussianBlur(noise, (0, 0), 2.0), np.uint8)
    for edge in (45.0, 70.0, 110.0, 150.0):
        corners = _square(640.4, 470.2, edge, 17.0)
        ours = patches_of(image, [corners])[0][0].astype(np.float64)
        theirs = canonical_patch(image, corners)[0].astype(np.float64)
        assert np.abs(ours - theirs).mean() < 4.0


def test_a_large_die_is_shrunk_by_area_so_its_stripes_do_not_alias() -> None:
    # a face of 1-pixel stripes, 128 px: shrunk 4x by area it is an even grey in the patch
    image = np.zeros((960, 1280, 3), np.uint8)
    image[:, ::2] = 255
    patch = patches_of(image, [_square(640, 480, 128.0)])[0][0]
    assert float(patch.std()) < 8 and abs(float(patch.mean()) - 127.5) < 8


@pytest.mark.parametrize("centre", [(5.0, 5.0), (1275.0, 950.0), (-200.0, 300.0)])
def test_a_die_at_or_beyond_the_frames_edge_gives_a_patch(centre: tuple[float, float]) -> None:
    image = np.full((960, 1280, 3), 70, np.uint8)
    patches, _ = patches_of(image, [_square(*centre, 60.0)])
    assert patches.shape == (1, PATCH, PATCH, 3) and np.all(patches == 70)


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
    from pathlib import Path

    from companion.synth import VALIDATION, render_frame
    from companion.vision.onnx_session import cpu_session

    rng = np.random.default_rng(7)
    before, after, floats = [], [], []
    sess = load_refiner(2)
    # the float network the shipped int8 one was quantized from (models/quantize_models.py)
    float_net = cpu_session(
        Path(__file__).resolve().parents[1] / "models" / "corner_refiner.float.onnx", 2
    )
    for seed in range(99900, 99906):
        frame = render_frame(seed, size=(1280, 960), styles=VALIDATION)
        true = [np.asarray(d.corners, np.float32) for d in frame.dice]
        true = [t for t in true if t.min() > 10 and t[:, 0].max() < 1270 and t[:, 1].max() < 950]
        cuts = []
        for t in true:
            e = mean_edge(t)
            shift = rng.normal(0, 0.06, 2) * e
            cuts.append(np.asarray(t + shift + rng.normal(0, 0.02, (4, 2)) * e, np.float32))
        refined, exact = refine(frame.image, cuts, sess), refine(frame.image, cuts, float_net)
        for t, c, r, f in zip(true, cuts, refined, exact, strict=True):
            before.append(_corner_error(c, t))
            after.append(_corner_error(r, t))
            floats.append(_corner_error(f, t))
    assert len(before) > 40
    assert np.median(after) < 0.7 * np.median(before)
    assert np.median(after) < np.median(floats) + 0.003  # 8 bits cost no accuracy


def _peak(corners: F32, score: float = 0.9) -> Candidate:
    c = np.asarray(corners, np.float32)
    return Candidate(float(c[:, 0].mean()), float(c[:, 1].mean()), mean_edge(c), c, score)


@dataclass
class Crossed(Offsets):
    """A stand-in network that crosses a cut's last two corners: no quad a face can be."""

    def run(self, _names: Any, feeds: dict[str, F32]) -> list[F32]:
        out = super().run(_names, feeds)[0]
        out[:, 2] = (SQUARE[3] - SQUARE[2]) / 32.0
        out[:, 3] = (SQUARE[2] - SQUARE[3]) / 32.0
        return [out]


def test_peaks_get_the_refined_corners_centre_and_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    image = np.full((480, 640, 3), 90, np.uint8)
    net = Offsets(dx=0.2)
    monkeypatch.setattr("companion.vision.judged.load_refiner", lambda threads: net)
    peaks = [_peak(_square(300, 200, 40)), _peak(_square(100, 300, 60, 20.0))]
    got = refined_peaks(image, peaks, 1)
    assert net.runs == 1  # all of a frame's peaks in one batch
    assert got[0].x == pytest.approx(308, abs=0.01) and got[0].y == pytest.approx(200, abs=0.01)
    assert got[0].edge == pytest.approx(40, abs=0.01) and got[0].score == peaks[0].score
    # offsets are in edges along the cut's own sides: a turned die moves along them
    along = 12.0 * np.array([np.cos(np.deg2rad(20.0)), np.sin(np.deg2rad(20.0))])
    assert np.allclose(got[1].corners - peaks[1].corners, [along] * 4, atol=0.01)


def test_peaks_cut_by_the_border_keep_the_finders_corners(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = np.full((480, 640, 3), 90, np.uint8)
    net = Offsets(dx=0.2)
    monkeypatch.setattr("companion.vision.judged.load_refiner", lambda threads: net)
    border = [_peak(_square(630, 200, 40)), _peak(_square(10, 470, 40))]
    assert refined_peaks(image, border, 1) == border and net.runs == 0
    got = refined_peaks(image, [*border, _peak(_square(300, 300, 40))], 1)
    assert got[:2] == border and got[2].x == pytest.approx(308, abs=0.01) and net.runs == 1


@pytest.mark.parametrize(
    "net", [Offsets(dx=REFINE_MOST + 0.05), Offsets(dy=-(REFINE_MOST + 0.05)), Crossed()]
)
def test_a_move_the_refiner_never_learnt_keeps_the_finders_corners(
    monkeypatch: pytest.MonkeyPatch, net: Offsets
) -> None:
    image = np.full((480, 640, 3), 90, np.uint8)
    monkeypatch.setattr("companion.vision.judged.load_refiner", lambda threads: net)
    peaks = [_peak(_square(300, 200, 40))]
    assert refined_peaks(image, peaks, 1) == peaks


def test_the_judged_finder_cuts_at_the_refined_corners() -> None:
    # a flat die of 50 px the finder decodes 62 px and 4 px off: refined, it is cut at its size
    image = np.full((960, 1280, 3), 90, np.uint8)
    image[475:525, 615:665] = (0, 0, 255)
    finder = FakeFinder([(644.0, 500.0, 62.0, 0.9)])
    (plain,) = find_and_read(image, FakeJudge(), JudgeSettings(refine=False), session=finder)
    (fine,) = find_and_read(image, FakeJudge(), session=finder)
    assert abs(plain[0].edge - 62.0) < 1
    assert abs(fine[0].edge - 50.0) < 3 and abs(fine[0].center[0] - 639.5) < 2
