"""models/quantize_models.py: the float network in 8-bit integers reads as the float one does.

models/faces.onnx is made this way since session 23 (models/MODEL_CARD.md, "int8, session
23"); these tests keep the recipe working, and check the shipped file is its product.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from companion.synth import VALIDATION, render_frame
from companion.vision.classify import FaceClassifier
from companion.vision.crop import cut_faces

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FLOAT = REPO / "models" / "faces.float.onnx"
SHIPPED = REPO / "models" / "faces.onnx"


def _crops(frames: int, first: int) -> np.ndarray:
    out = []
    for k in range(frames):
        frame = render_frame(first + k, styles=VALIDATION)
        out.append(cut_faces(frame.image, [d.corners for d in frame.dice]))
    return np.concatenate(out)


@pytest.fixture(scope="module")
def int8_model(tmp_path_factory: pytest.TempPathFactory, quantize_models: ModuleType) -> Path:
    out = tmp_path_factory.mktemp("int8") / "faces.int8.onnx"
    # the recipe as session 22 tried it, on fewer calibration frames
    quantize_models.quantize(FLOAT, out, quantize_models.face_inputs(6), first_float=1)
    return out


def test_int8_model_carries_the_float_models_calibration(int8_model: Path) -> None:
    meta = {p.key: p.value for p in onnx.load(str(int8_model)).metadata_props}
    source = {p.key: p.value for p in onnx.load(str(FLOAT)).metadata_props}
    for key in ("classes", "temperature", "threshold", "not_die_threshold", "known_art"):
        assert meta[key] == source[key], key
    assert meta["quantized_from"] == FLOAT.name


def test_int8_weights_are_seven_bit_and_the_embedding_float(int8_model: Path) -> None:
    """x86 CPUs without VNNI multiply u8 activations by s8 weights in pairs summed into 16
    bits, which full 8-bit weights can saturate: under qemu-x86_64 -cpu Haswell such a
    model's logits were 1.9 off this VNNI machine's, where 7-bit weights gave the same bits
    on both."""
    model = onnx.load(str(int8_model))
    arrays = [numpy_helper.to_array(t) for t in model.graph.initializer]
    weights = [w for w in arrays if w.dtype == np.int8 and w.ndim == 4]  # the convolutions'
    assert len(weights) >= 4
    assert all(int(np.abs(w.astype(np.int16)).max()) <= 64 for w in weights)
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("Gemm") == 2 and ops.count("QuantizeLinear") >= 4


def test_int8_model_reads_and_embeds_as_the_float_one(int8_model: Path) -> None:
    """Validation-style crops (never the calibration renders): the same motif, the `?`
    decisions within hundredths, and the embedding a profile reads all but unchanged."""
    crops = _crops(3, 81_000)
    a, b = FaceClassifier(FLOAT, threads=1), FaceClassifier(int8_model, threads=1)
    la, ea = a.run(crops)
    lb, eb = b.run(crops)
    pa, _ = a.motif_probabilities(la)
    pb, _ = b.motif_probabilities(lb)
    assert len(crops) >= 40
    assert np.array_equal(pa.argmax(axis=1), pb.argmax(axis=1))
    assert float(np.abs(pa - pb).max()) < 0.05
    cos = np.sum(ea * eb, axis=1) / np.linalg.norm(ea, axis=1) / np.linalg.norm(eb, axis=1)
    assert float(cos.min()) > 0.999


def test_the_shipped_model_is_the_float_network_in_seven_bit_integers() -> None:
    """models/faces.onnx: int8 convolutions (7-bit weights) but the first, float Gemms, and
    limits of its own (calibrate_faces.py run on it, not the float network's)."""
    model = onnx.load(str(SHIPPED))
    meta = {p.key: p.value for p in model.metadata_props}
    source = {p.key: p.value for p in onnx.load(str(FLOAT)).metadata_props}
    assert meta["quantized_from"] in ("faces.onnx", FLOAT.name)  # the float file's old name
    assert meta["temperature"] != source["temperature"]
    weights = [
        w
        for w in (numpy_helper.to_array(t) for t in model.graph.initializer)
        if w.dtype == np.int8 and w.ndim == 4
    ]
    assert len(weights) == 4  # five convolutions, the first float
    assert all(int(np.abs(w.astype(np.int16)).max()) <= 64 for w in weights)
    assert [n.op_type for n in model.graph.node].count("Gemm") == 2
