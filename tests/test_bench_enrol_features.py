"""benchmarks/bench_enrol_features.py: gradient histograms, and reads by the other frames."""

from __future__ import annotations

import numpy as np

from benchmarks.bench_enrol_features import BINS, hog, left_out_scores


def _stripes(vertical: bool) -> np.ndarray:
    crop = np.zeros((64, 64, 3), np.uint8)
    if vertical:
        crop[:, ::8] = 255
    else:
        crop[::8, :] = 255
    return crop


def test_gradient_histograms_are_unit_and_follow_the_stripes_direction() -> None:
    f = hog(np.stack([_stripes(True), _stripes(False)]))
    assert f.shape == (2, 5 * 5 * 4 * BINS)
    np.testing.assert_allclose(np.linalg.norm(f, axis=1), 1.0, atol=1e-5)
    per_bin = f.reshape(2, -1, BINS).sum(axis=1)
    assert per_bin[0].argmax() == 0  # vertical stripes: gradients across, at 0 degrees
    assert per_bin[1].argmax() == BINS // 2  # horizontal ones: at 90 degrees
    assert hog(np.zeros((0, 64, 64, 3), np.uint8)).shape[0] == 0


def test_a_die_is_read_only_by_the_other_frames() -> None:
    # motif 0 in frames 0 and 1, motif 1 in frames 2 and 3; die 4 (motif 0, frame 1) looks
    # exactly like die 5 of its own frame labelled 1 (a stray): not counted for it
    x = np.array([[1, 0], [1, 0.1], [0, 1], [0.1, 1], [0.6, 0.8], [0.6, 0.8]], np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    rot = np.stack([x] * 4)
    labels = np.array([0, 0, 1, 1, 0, 1])
    frames = np.array([0, 1, 2, 3, 1, 1])
    near = left_out_scores(rot, labels, frames, "nearest")
    assert near.shape == (6, 5)
    assert near[:, 2:].max() == -1.0  # motifs no frame holds
    assert near[0].argmax() == 0 and near[2].argmax() == 1
    own = x[4] @ x[5]
    assert near[4, 1] < own - 1e-3  # die 5 of its own frame is not its nearest motif-1 die
    mean = left_out_scores(rot, labels, frames, "mean")
    assert mean[0].argmax() == 0 and mean[3].argmax() == 1
