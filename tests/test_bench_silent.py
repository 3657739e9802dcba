"""benchmarks/bench_silent.py: each check can only turn a read into `?`, and says why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.bench_silent import Dice, agree, checks, moved, unbacked
from companion.vision.classify import FACES, FaceClassifier, KnownArt

MODEL = Path(__file__).resolve().parents[1] / "models" / "faces.onnx"


def test_views_must_read_the_same_motif_and_pass_the_limit_on_average() -> None:
    views = np.full((2, 3, len(FACES)), 0.01, np.float32)
    views[:, :, 3] = 0.96
    views[1, 1] = 0.01
    views[1, 1, 2] = 0.96  # the second view of die 1 reads 2
    views[1, 2, 3] = 0.80  # die 2's views average 0.88
    best = np.array([3, 3, 3])
    assert agree(views, best, np.full(3, 0.9)).tolist() == [True, False, False]


def test_a_moved_crop_is_shifted_by_edges_and_scaled_about_its_centre() -> None:
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float64)
    assert np.allclose(moved(square, 0.5, 0.0, 1.0), square + [5, 0])
    assert np.allclose(
        moved(square, 0.0, 0.0, 0.5), [[2.5, 2.5], [7.5, 2.5], [7.5, 7.5], [2.5, 7.5]]
    )


def test_checks_only_add_unknowns_and_far_dice_alone_get_a_second_look() -> None:
    clf = FaceClassifier(MODEL, threads=1)
    dim = 8
    means = np.zeros((len(FACES), dim), np.float32)
    means[np.arange(len(FACES)), np.arange(len(FACES))] = 1.0
    clf.known = KnownArt(means, np.eye(dim, dtype=np.float32) * 4.0, 0.03, 0.5)
    emb = np.zeros((3, dim), np.float32)
    emb[0, 3] = 1.0  # on the mean of 3: known art
    emb[1, 3], emb[1, 2] = 0.6, 0.4  # far, between 3 and 2
    emb[2, 3], emb[2, 7] = 0.9, 0.1  # far, clearly a 3
    probs = np.full((4, 3, len(FACES)), 0.0, np.float32)
    probs[:, :, 3] = 1.0
    probs[1:, 0, 3], probs[1:, 0, 1] = 0.0, 1.0  # known art reads 1 at other angles: no matter
    probs[1, 2, 3], probs[1, 2, 1] = 0.0, 1.0  # the far 3 reads 1 at 90 degrees
    jitter = np.repeat(probs[:1], 5, axis=0)
    d = Dice(np.array([3, 2, 3]), probs, emb, jitter, np.array([0, 0, 1]))
    other = FaceClassifier(MODEL, threads=1)
    other.known = replace(clf.known, margins=(None, None, 0.2, 0.2, None))
    got = {k: v.tolist() for k, v in checks(clf, d, other).items()}
    assert got["shipped (one view)"] == [True, True, True]
    assert got["far: 2 views"] == [True, True, False]
    assert got["far: jitter"] == [True, True, True]
    assert got["margins"] == [True, False, True]
    assert got["look-alikes"] == [True, True, True]  # no two dice of a frame alike
    for shown in got.values():  # no check shows a die the shipped read hid
        assert all(a <= b for a, b in zip(shown, got["shipped (one view)"], strict=True))


def test_look_alikes_in_one_frame_that_do_not_back_a_read_make_it_unknown() -> None:
    emb = np.zeros((4, 8), np.float32)
    emb[:, 0] = 1.0
    emb[1, 1] = 0.3  # cosine 0.96 with die 0: a look-alike
    emb[3, 1] = 1.0  # cosine 0.71: not one
    probs = np.zeros((1, 4, len(FACES)), np.float32)
    probs[0, 0, 3] = 1.0  # read 3
    probs[0, 1, 3], probs[0, 1, 2] = 0.2, 0.8  # its look-alike leans to 2
    probs[0, 2, 3] = 1.0  # alike too, but in another frame
    probs[0, 3, 2] = 1.0
    d = Dice(np.array([3, 3, 3, 2]), probs, emb, probs, np.array([0, 0, 1, 0]))
    best = probs[0].argmax(axis=1)
    # dice 0 and 1 are alike and read 3 and 2: each look-alike gives the other's motif little
    assert unbacked(d, best).tolist() == [True, True, False, False]
    # at a lower bar die 0's look-alike backs its 3 (0.2); nothing backs die 1's 2 (0.0)
    assert unbacked(d, best, backing=0.1).tolist() == [False, True, False, False]
