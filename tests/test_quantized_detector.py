"""models/quantize_models.py on the die finder: its outputs stay float.

The finder's last convolution gives one tensor of unlike maps (heat, offsets, log edge,
angle, corner residuals) that the graph cuts apart and joins again; quantized after it,
they shared one uint8 scale (session 22's int8 finder: coarse heat, corners 0.4 px worse).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

onnx = pytest.importorskip("onnx")

REPO = Path(__file__).resolve().parents[1]
DETECTOR = REPO / "models" / "dice_detector.onnx"


def test_the_nodes_after_the_finders_last_convolution_stay_float(
    quantize_models: ModuleType,
) -> None:
    float_convs = quantize_models.float_convs
    nodes = onnx.load(str(DETECTOR)).graph.node
    names = {n.name: n.op_type for n in nodes}
    kept = float_convs(DETECTOR, 1, float_tail=True)
    kinds = {names[k] for k in kept}
    assert {"Sigmoid", "Concat", "Slice"} <= kinds
    assert [names[k] for k in kept].count("Conv") == 1  # the last one only
    without = float_convs(DETECTOR, 1)
    assert {names[k] for k in without} == {"Conv"}
