"""The corner refiner's training geometry (models/train_refiner.py): patches, targets and
quarter turns agree with one another (numpy and OpenCV only; training itself needs torch)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tests.scripts import load_script


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_script("train_refiner")


def _frame() -> np.ndarray:
    rng = np.random.default_rng(3)
    return rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)


@pytest.mark.parametrize("edge", [20.0, 32.0, 90.0])
def test_the_cut_lands_on_the_square_and_the_truth_maps_back(ref: ModuleType, edge: float) -> None:
    c = np.array(
        [[200, 150], [200 + edge, 155], [195 + edge, 150 + edge], [198, 148 + edge]], np.float64
    )
    patch, to_patch = ref.canonical_patch(_frame(), c)
    assert patch.shape == (64, 64, 3)
    assert np.allclose(ref.map_points(to_patch, c), ref.SQUARE, atol=1e-3)
    true = c + np.array([[3, -2], [1, 2], [-2, 1], [0, 3]], np.float64)
    y = ref.targets(to_patch, np.roll(true, 2, 0))  # any starting corner
    back = ref.map_points(np.linalg.inv(to_patch), ref.SQUARE + y * ref.EDGE)
    assert np.allclose(back, true, atol=1e-3)


def test_a_die_at_the_frames_edge_still_gives_a_patch(ref: ModuleType) -> None:
    c = np.array([[2, 3], [42, 3], [42, 43], [2, 43]], np.float64)
    patch, to_patch = ref.canonical_patch(_frame(), c)
    assert patch.shape == (64, 64, 3)
    assert np.allclose(ref.map_points(to_patch, c), ref.SQUARE, atol=1e-3)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_quarter_turn_turns_patch_and_targets_together(ref: ModuleType, k: int) -> None:
    # a dot of its own brightness at each true corner, found again where the turned targets say
    y = np.random.default_rng(k).normal(0, 0.1, (1, 4, 2)).astype(np.float32)
    x = np.zeros((1, 64, 64, 3), np.uint8)
    for i, (u, v) in enumerate(ref.SQUARE + y[0] * ref.EDGE):
        x[0, round(v), round(u), 0] = 50 * (i + 1)
    xt, yt = ref.turned(x, y, k)
    seen = [int(xt[0, round(v), round(u), 0]) for u, v in ref.SQUARE + yt[0] * ref.EDGE]
    assert seen == [50 * ((i - k) % 4 + 1) for i in range(4)]


def test_jittered_cuts_lie_about_as_far_as_the_finders(ref: ModuleType) -> None:
    true = np.array([[0, 0], [50, 0], [50, 50], [0, 50]], np.float64) + 100
    rng = np.random.default_rng(0)
    errs = [np.mean(np.linalg.norm(ref.jitter(true, rng) - true, axis=1)) / 50 for _ in range(2000)]
    assert 0.04 < float(np.median(errs)) < 0.12  # the finder: 0.04 (ours) - 0.065 (otherhand)


def test_rendered_cuts_hold_their_true_corners(ref: ModuleType) -> None:
    xs, ys = ref._render_one(60001)
    assert xs and len(xs) == len(ys)
    assert all(x.shape == (64, 64, 3) and y.shape == (4, 2) for x, y in zip(xs, ys, strict=True))
    # a cut moved a little from the truth: offsets of a tenth of an edge, rarely over half
    assert 0.02 < float(np.mean(np.abs(np.asarray(ys)))) < 0.3
    assert float(np.abs(np.asarray(ys)).max()) < 0.8


def test_varied_bodies_keep_the_art_and_change_the_make(ref: ModuleType) -> None:
    from companion.synth.makes import varied_bodies
    from companion.synth.styles import TRAIN

    styles = list(TRAIN[:3])
    shapes = set()
    for seed in range(40):
        out = varied_bodies(styles, np.random.default_rng(seed))
        assert [s.art for s in out] == [s.art for s in styles]
        assert len({(s.body.radius, s.body.bevel, s.body.pattern) for s in out}) == 1  # one make
        b = out[0].body
        assert 0.03 <= b.radius <= 0.24 and 0.03 <= b.bevel <= 0.16
        assert b.pattern in ("", "wood", "speckled", "pearl")
        assert 0.45 <= b.side_shade <= 0.95 and b.rim_gloss == 0.0
        shapes.add(b.pattern)
    assert shapes == {"", "wood", "speckled", "pearl"}
    # lit: the same makes, sides up to brighter than the top, most rims glossy
    lit = [varied_bodies(styles, np.random.default_rng(s), lit=True)[0].body for s in range(60)]
    assert all(0.45 <= b.side_shade <= 1.2 and 0.0 <= b.rim_gloss <= 1.4 for b in lit)
    assert any(b.side_shade > 1.0 for b in lit)
    assert 0.5 < np.mean([b.rim_gloss > 0 for b in lit]) < 0.9
    xs, ys = ref._render_one(60001, vary=1.0)  # renders of another make cut as the others
    assert xs and len(xs) == len(ys) and 0.02 < float(np.mean(np.abs(np.asarray(ys)))) < 0.3


def test_a_refiner_exported_by_train_loads_back_as_the_same_function(
    ref: ModuleType, tmp_path: Path
) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    torch.manual_seed(0)
    net = ref.build_model()
    net.train()
    net(torch.rand(8, 3, 64, 64) * 255)  # batch norms take statistics of their own
    net.eval()
    path = tmp_path / "r.onnx"
    torch.onnx.export(
        net, (torch.zeros(1, 3, 64, 64),), str(path), input_names=["x"], opset_version=17,
        dynamic_axes={"x": {0: "n"}}, dynamo=False,
    )  # fmt: skip
    again = ref.build_model()
    ref.load_float_onnx(again, path)
    again.train()
    ref.frozen_norms(again)  # as fine-tuning runs it: the batch's statistics are not used
    x = np.random.default_rng(1).uniform(0, 255, (3, 3, 64, 64)).astype(np.float32)
    want = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    with torch.no_grad():
        got = again(torch.from_numpy(x)).numpy()
    assert np.allclose(got, want, atol=1e-5)
