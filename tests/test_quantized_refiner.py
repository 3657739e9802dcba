"""models/quantize_models.py refiner: the corner refiner in 8-bit integers places corners as
the float network does (models/REFINER_CARD.md, session 52); the shipped file is its product."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from companion.synth import TRAIN, VALIDATION, render_frame
from companion.vision.corner_refiner import patches_of
from companion.vision.onnx_session import cpu_session

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FLOAT = REPO / "models" / "corner_refiner.float.onnx"
SHIPPED = REPO / "models" / "corner_refiner.onnx"


def _patches(first: int, frames: int, styles: object) -> np.ndarray:
    out = []
    for seed in range(first, first + frames):
        frame = render_frame(seed, size=(1280, 960), styles=styles)  # type: ignore[arg-type]
        inside = [
            d.corners
            for d in frame.dice
            if np.min(d.corners) > 2
            and np.max(np.asarray(d.corners)[:, 0]) < 1277
            and np.max(np.asarray(d.corners)[:, 1]) < 957
        ]
        out.append(patches_of(frame.image, inside)[0])
    return np.concatenate(out)


def _offsets(model: Path, patches: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32)
    return np.asarray(cpu_session(model, 1).run(None, {"x": x})[0]).reshape(-1, 4, 2)


@pytest.fixture(scope="module")
def int8_refiner(tmp_path_factory: pytest.TempPathFactory, quantize_models: ModuleType) -> Path:
    tmp = tmp_path_factory.mktemp("refiner")
    # a shard as train_refiner.py render writes them, of training-style patches
    np.savez(tmp / "shard_0000000.npz", x=_patches(61_000, 6, TRAIN))
    out = tmp / "refiner.int8.onnx"
    quantize_models.quantize(FLOAT, out, quantize_models.refiner_inputs(tmp), first_float=1)
    return out


@pytest.mark.slow
def test_the_int8_refiner_places_corners_as_the_float_one(int8_refiner: Path) -> None:
    patches = _patches(81_000, 3, VALIDATION)  # validation styles, never the calibration's
    a, b = _offsets(FLOAT, patches), _offsets(int8_refiner, patches)
    assert len(patches) >= 30
    # offsets in edges: the finder's cuts lie about 0.04 edge off, the refined ones 0.02
    assert float(np.median(np.abs(a - b))) < 0.005 and float(np.abs(a - b).max()) < 0.05


def test_the_shipped_refiner_is_the_float_network_in_seven_bit_integers() -> None:
    model = onnx.load(str(SHIPPED))
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["quantized_from"] == FLOAT.name
    convs = [w for w in (numpy_helper.to_array(t) for t in model.graph.initializer) if w.ndim == 4]
    # six convolutions: the first float, the others int8 with 7-bit weights
    assert sum(w.dtype == np.int8 for w in convs) == 5
    assert sum(w.dtype == np.float32 for w in convs) == 1
    assert all(int(np.abs(w.astype(np.int16)).max()) <= 64 for w in convs if w.dtype == np.int8)
    assert [n.op_type for n in model.graph.node].count("Gemm") == 2
