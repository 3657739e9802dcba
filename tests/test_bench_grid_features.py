"""benchmarks/bench_grid_features.py: the grid a copy of the face model gives, and the counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.vision.classify import FaceClassifier

pytest.importorskip("onnx")

from benchmarks.bench_grid_features import LIMITS, Views, grid_model, scores  # noqa: E402

MODEL = Path(__file__).resolve().parents[1] / "models" / "faces.onnx"


def test_the_copy_gives_the_same_embedding_and_a_grid_of_cells(tmp_path: Path) -> None:
    crops = np.random.default_rng(5).integers(0, 255, (3, 64, 64, 3), dtype=np.uint8)
    views = Views(grid_model(MODEL, tmp_path / "g.onnx"))
    rot, grid = views(crops, 2)
    assert rot.shape == (2, 3, 64) and grid.shape == (2, 3, 128 * 4 * 4)
    np.testing.assert_allclose(np.linalg.norm(grid, axis=-1), 1.0, atol=1e-5)
    _, emb = FaceClassifier(MODEL, threads=1).run(crops)
    own = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    np.testing.assert_allclose(rot[0], own, atol=1e-5)  # the shipped model's, unchanged
    assert MODEL.read_bytes() != (tmp_path / "g.onnx").read_bytes()


def test_right_and_wrong_are_counted_at_each_limit() -> None:
    # three dice of motif 0, one view: the first read 0 surely (right), the second read 1 at
    # 0.45 (wrong, under every limit), the third read 1 at 0.97 (wrong, over every limit)
    w = np.eye(2, 5, dtype=np.float32) * 10
    b = np.zeros(5, np.float32)
    x = np.array([[[1.0, 0.0], [0.0, 0.12], [0.0, 0.5]]], np.float32)
    out = scores(w, b, x, np.array([0, 0, 0]))
    assert out["n"] == 3 and out["top1"] == 1
    for lim in LIMITS:
        assert out[f"right@{lim}"] == 1 and out[f"wrong@{lim}"] == 1
