"""The model alone's two `?` limits: a low one for the art it was taught, its own for the rest."""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

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


def _between(a: int, b: int, t: float, dim: int = 8) -> np.ndarray:
    """An embedding a share t of the way from motif a's mean to motif b's (see _known)."""
    e = np.zeros(dim, np.float32)
    e[a], e[b] = 1.0 - t, t
    return e


def test_ratios_are_near_zero_on_a_mean_and_one_between_two() -> None:
    k = _known()
    emb = np.stack([_between(3, 2, 0.0), _between(3, 2, 0.5), _between(3, 2, 0.3)])
    r = k.ratios(emb, np.array([3, 3, 3]))
    assert r[0] == pytest.approx(0.0, abs=1e-5)
    assert r[1] == pytest.approx(1.0, abs=1e-3)
    assert 0.0 < r[2] < r[1]
    d = k.all_distances(emb)
    assert d.shape == (3, len(FACES))
    assert np.allclose(d[:, 3], k.distances(emb, np.array([3, 3, 3])), atol=1e-5)


def test_only_far_dice_between_two_motifs_are_ambiguous() -> None:
    # distance 0.03: a die a share t >= 0.1 of the way to another mean lies beyond it (its
    # distance is 4 x (2 - 2 cos) >= 0.049 once normalised), one on a mean within it
    k = replace(_known(distance=0.03), margins=(None, None, 0.2, 0.2, None))
    emb = np.stack(
        [
            _between(3, 2, 0.0),  # on the mean of 3: known art
            _between(3, 2, 0.4),  # far, nearly as near 2 as 3: ambiguous
            _between(3, 2, 0.1),  # far but clearly a 3
            _between(4, 3, 0.4),  # far and between E and 3, but E has no margin
        ]
    )
    best = np.array([3, 3, 3, 4])
    assert k.distances(emb, best)[0] <= 0.03 < k.distances(emb, best)[1:].min()
    assert k.ratios(emb, best)[2] < 0.2 < k.ratios(emb, best)[1]
    assert k.ambiguous(emb, best).tolist() == [False, True, False, False]
    assert not replace(k, margins=None).ambiguous(emb, best).any()
    # within a wider distance the same die is known art, which keeps its own limit
    assert not replace(k, distance=2.0).ambiguous(emb, best).any()


def test_margins_survive_the_json_and_older_calibrations_have_none() -> None:
    k = replace(_known(), margins=(None, None, 0.125, 0.0, None))
    assert KnownArt.from_json(k.to_json()).margins == (None, None, 0.125, 0.0, None)
    assert KnownArt.from_json(_known().to_json()).margins is None
    assert "margins" not in _known().to_json()
    with pytest.raises(ValueError, match="one value"):
        KnownArt.from_json(
            _known().to_json().replace('"distance"', '"margins":[0.1,0.2],"distance"')
        )


def test_an_ambiguous_die_of_unknown_art_reads_unknown_however_sure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clf = FaceClassifier(MODEL, threads=1)
    width = len(FACES) + clf.knows_non_dice
    logits = np.zeros((3, width), np.float32)
    logits[:, 3] = 40.0  # every die reads 3 at a confidence of ~1
    emb = np.stack([_between(3, 2, 0.0), _between(3, 2, 0.4), _between(3, 2, 0.1)])

    def run(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # every view of a die, at any right angle, reads as its first (a second look agrees)
        k = np.arange(len(crops)) % len(logits)
        return logits[k], emb[k]

    monkeypatch.setattr(clf, "run", run)
    crops = np.zeros((3, 64, 64, 3), np.uint8)
    clf.known = replace(_known(distance=0.03, threshold=0.6), margins=(None, None, 0.2, 0.2, None))
    reads = clf.classify(crops)
    assert [r.face for r in reads] == ["3", "?", "3"]
    assert reads[1].best == "3" and reads[1].confidence > 0.99
    assert np.isinf(clf.thresholds(*_probs_emb(clf, logits, emb))[1])
    clf.known = replace(clf.known, margins=None)  # without margins the same die reads 3
    assert [r.face for r in clf.classify(crops)] == ["3", "3", "3"]


def _probs_emb(clf: FaceClassifier, logits: np.ndarray, emb: np.ndarray) -> tuple[Any, Any]:
    return clf.motif_probabilities(logits)[0], emb


def test_calibration_margins_keep_no_silent_error_and_as_many_right_reads_as_they_can() -> None:
    sys.path.insert(0, str(MODEL.parent))
    from calibrate_faces import ReadDice, margins

    clf = FaceClassifier(MODEL, threads=1)
    clf.known = _known(distance=0.03, threshold=0.6)
    width = len(FACES) + clf.knows_non_dice
    # all read 3 surely, the first on its mean (known art), the others beyond the distance and
    # ever nearer the mean of 2
    shares = [0.0, 0.15, 0.2, 0.3, 0.38]
    emb = np.stack([_between(3, 2, t) for t in shares])
    logits = np.zeros((len(shares), width), np.float32)
    logits[:, 3] = 40.0
    labels = np.array([3, 3, 3, 2, 3])  # the die at ratio .3 is a 2 read 3
    ratio = clf.known.ratios(emb, np.full(len(shares), 3))
    fam = ReadDice(labels, logits, emb, [("x",)] * len(shares), np.zeros((0, width), np.float32))
    chosen, report = margins(clf, fam)
    assert chosen[:3] == (None, None, None) and chosen[4] is None
    assert chosen[3] == pytest.approx(float(ratio[2]), rel=1e-5)  # the right read just below
    assert report["silent_errors_turned_unknown"] == 1
    assert report["right_reads_turned_unknown"] == 1  # the 3 nearer 2 than the wrong die
    clf.known = replace(clf.known, margins=chosen)
    p = clf.motif_probabilities(logits)[0]
    shown = p.max(axis=1) >= clf.thresholds(p, emb)
    assert shown.tolist() == [True, True, True, False, False]


def _scripted(
    clf: FaceClassifier, monkeypatch: pytest.MonkeyPatch, first: np.ndarray, emb: np.ndarray
) -> tuple[list[np.ndarray], list[int]]:
    """The network gives ``first`` and ``emb`` for the crops as cut; each later batch (the
    second look) gets the logits pushed onto the first list returned, in turn; the second
    records the size of every batch."""
    later: list[np.ndarray] = []
    sizes: list[int] = []

    def run(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sizes.append(len(crops))
        if len(sizes) == 1:
            return first, emb
        return later.pop(0), np.zeros((len(crops), emb.shape[1]), np.float32)

    monkeypatch.setattr(clf, "run", run)
    return later, sizes


def test_unknown_art_is_looked_at_again_and_reads_unknown_unless_every_view_agrees(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clf = FaceClassifier(MODEL, threads=1)
    width = len(FACES) + clf.knows_non_dice
    clf.known = _known(distance=0.03, threshold=0.6)
    # dice 0 known art, 1-3 far; all read 3 surely at first sight, die 3 not surely (0.9)
    first = np.zeros((4, width), np.float32)
    first[:, 3] = 40.0
    first[3, 3], first[3, 2] = 3.0, 0.0
    emb = np.stack([_between(3, 2, t) for t in (0.0, 0.1, 0.1, 0.1)])
    later, sizes = _scripted(clf, monkeypatch, first, emb)
    again = np.zeros((3 * 2, width), np.float32)  # 3 more right angles of the 2 far sure dice
    again[:, 3] = 40.0
    again[2, 3], again[2, 1] = 0.0, 40.0  # die 1's view at 180 degrees reads 1
    later.append(again)
    reads = clf.classify(np.zeros((4, 64, 64, 3), np.uint8))
    assert [r.face for r in reads] == ["3", "?", "3", "?"]
    # one look at all four, then one batch for the two far dice one view reads surely
    assert sizes == [4, 6]
    assert reads[1].best == "3" and reads[1].confidence < 0.8  # the views' mean: ~3/4


def test_known_art_alone_is_read_from_one_view(monkeypatch: pytest.MonkeyPatch) -> None:
    clf = FaceClassifier(MODEL, threads=1)
    width = len(FACES) + clf.knows_non_dice
    clf.known = _known(distance=0.03, threshold=0.6)
    first = np.zeros((2, width), np.float32)
    first[:, 3] = 40.0
    _, sizes = _scripted(clf, monkeypatch, first, np.stack([_between(3, 2, 0.0)] * 2))
    assert [r.face for r in clf.classify(np.zeros((2, 64, 64, 3), np.uint8))] == ["3", "3"]
    assert sizes == [2]
