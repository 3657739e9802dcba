"""The model alone's two `?` limits: a low one for the art it was taught, its own for the rest."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.vision.classify import FACES, FaceClassifier, KnownArt, ModelError, normalise

MODEL = Path(__file__).resolve().parents[1] / "models" / "faces.onnx"


def _known(dim: int = 8, distance: float = 2.0, threshold: float = 0.5) -> KnownArt:
    means = np.zeros((len(FACES), dim), np.float32)
    means[np.arange(len(FACES)), np.arange(len(FACES))] = 1.0  # motif k lies along axis k
    return KnownArt(means, np.eye(dim, dtype=np.float32) * 4.0, distance, threshold)


def test_distances_are_mahalanobis_to_the_best_motifs_mean() -> None:
    k = _known()
    emb = np.zeros((3, 8), np.float32)
    emb[0, 0] = 5.0  # exactly on motif I's mean once normalised
    emb[1, :2] = (1.0, 1.0)  # between I and 1
    emb[2, 6] = 2.0  # along an axis no motif uses
    best = np.array([0, 0, 4])
    d = k.distances(emb, best)
    z = normalise(emb) - k.means[best]
    assert np.allclose(d, 4.0 * (z**2).sum(axis=1), atol=1e-5)
    assert d[0] == pytest.approx(0.0, abs=1e-5) and d[1] < d[2]


def test_known_art_survives_its_json() -> None:
    k = _known(distance=3.25, threshold=0.7)
    back = KnownArt.from_json(k.to_json())
    assert np.allclose(back.means, k.means) and np.allclose(back.precision, k.precision)
    assert (back.distance, back.threshold) == (3.25, 0.7)
    with pytest.raises(ValueError):
        KnownArt.from_json('{"means": [[0, 1]], "precision": [[1]], "distance": 1, "threshold": 1}')


def test_only_dice_near_known_art_get_the_low_limit() -> None:
    clf = FaceClassifier(MODEL, threads=1)
    probs = np.full((2, len(FACES)), 0.05, np.float32)
    probs[:, 3] = 0.8  # both read 3 at 0.8
    emb = np.zeros((2, 8), np.float32)
    emb[0, 3] = 1.0  # on the mean of 3: known art
    emb[1, 7] = 1.0  # far from every mean
    clf.known = _known(distance=2.0, threshold=0.6)
    own = clf.calibration.threshold
    assert np.allclose(clf.thresholds(probs, emb), [min(0.6, own), own])
    clf.known = None  # a model calibrated before known art: one limit for all
    assert np.allclose(clf.thresholds(probs, emb), [own, own])


def test_a_damaged_known_art_calibration_is_named(tmp_path: Path) -> None:
    sys.path.insert(0, str(MODEL.parent))
    from calibrate_faces import write_metadata

    other = tmp_path / "m.onnx"
    shutil.copy(MODEL, other)
    write_metadata(other, {"known_art": '{"means": [[1]]}'})
    with pytest.raises(ModelError, match="damaged known_art"):
        FaceClassifier(other)
