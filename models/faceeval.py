"""Shared by evaluate_faces.py (trials: reading whole styles) and calibrate_faces.py (temperature,
threshold, scores).

A *trial* plays what a table does with a set of dice the model never saw:
enrol it (one frame per motif where every die shows that motif, plus a
second frame per motif when asked), then read other, ordinary frames of the
same set. Dice positions come from the renderer's ground truth, disturbed as
an imperfect die finder would report them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.synth.crops import jitter_corners  # noqa: E402
from companion.synth.frame import FACES, render_frame  # noqa: E402
from companion.synth.styles import Style  # noqa: E402
from companion.vision.classify import READ_ROTATIONS, FaceClassifier, rotation_embeddings, softmax  # noqa: E402
from companion.vision.crop import cut_face  # noqa: E402
from companion.vision.enroll import fit_profile, model_digest  # noqa: E402

F32 = npt.NDArray[np.float32]


@dataclass
class Trial:
    style: str
    labels: npt.NDArray[np.int64]
    base_logits: F32  # network logits of the test dice
    base_emb: F32  # and their embeddings (the model alone's per-die `?` limits need them)
    alone_probs: F32  # the model alone's probabilities as reading gives them (FaceClassifier)
    alone_sure: npt.NDArray[np.bool_]  # read as a motif by the model alone (not `?`)
    profile_probs: (
        F32  # the profile's probabilities (averaged over READ_ROTATIONS views, as reading does)
    )
    profile_sure: npt.NDArray[np.bool_]  # read as a motif by the profile (not `?`)


def frame_crops(
    seed: int, style: Style, faces: list[str] | None, n_dice: int
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    frame = render_frame(seed, n_dice=n_dice, styles=[style], faces=faces)
    rng = np.random.default_rng(seed ^ 0x5EED)
    crops = [cut_face(frame.image, jitter_corners(d.corners, rng)) for d in frame.dice]
    labels = [FACES.index(d.face) for d in frame.dice]
    if not crops:
        return np.zeros((0, 64, 64, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.asarray(labels, np.int64)


def run_trial(
    clf: FaceClassifier,
    style: Style,
    seed: int,
    *,
    enrol_frames: int = 2,
    test_frames: int = 4,
    dice_per_frame: int = 20,
) -> Trial:
    """Enrol a set from enrol_frames frames per motif (VISION.md: 2), then read ordinary frames of
    it."""
    ex, ey, ef = [], [], []
    for k, face in enumerate(FACES):
        for j in range(enrol_frames):
            x, _ = frame_crops(seed * 1000 + k * 10 + j, style, [face], 12)
            ex.append(x)
            ey.append(np.full(len(x), k, np.int64))
            ef.append(np.full(len(x), k * enrol_frames + j, np.int64))
    tx, ty = [], []
    for j in range(test_frames):
        x, y = frame_crops(seed * 1000 + 500 + j, style, None, dice_per_frame)
        tx.append(x)
        ty.append(y)
    enrol_x, enrol_y = np.concatenate(ex), np.concatenate(ey)
    test_x, test_y = np.concatenate(tx), np.concatenate(ty)
    prof = fit_profile(clf, enrol_x, enrol_y, np.concatenate(ef))
    logits, emb = clf.run(test_x)
    # the model alone as reading uses it: a second look at unknown art included
    alone, alone_limit, _, _ = clf.probabilities(test_x)
    probs, unlike = prof.read(rotation_embeddings(clf, test_x, READ_ROTATIONS))
    return Trial(
        style.name,
        test_y,
        logits,
        emb,
        alone,
        alone.max(axis=1) >= alone_limit,
        probs,
        (probs.max(axis=1) >= prof.limit(probs.argmax(axis=1))) & ~unlike,
    )


def fit_temperature(logits: F32, labels: npt.NDArray[np.int64]) -> float:
    """The temperature minimising the negative log-likelihood (grid search)."""
    grid = np.exp(np.linspace(np.log(0.05), np.log(20.0), 200))
    nll = [
        float(-np.log(softmax(logits / t)[np.arange(len(labels)), labels] + 1e-12).mean())
        for t in grid
    ]
    return float(grid[int(np.argmin(nll))])


def choose_threshold(probs: F32, labels: npt.NDArray[np.int64], target: float) -> float:
    """Smallest confidence threshold keeping silent errors at or below target."""
    conf = probs.max(axis=1)
    wrong = probs.argmax(axis=1) != labels
    n = len(labels)
    for t in np.concatenate([[0.0], np.unique(conf)]):
        if float(np.sum(wrong & (conf >= t))) / n <= target:
            return float(min(t + 1e-6, 0.999999)) if t > 0 else 0.0
    return 1.0


def scores(
    probs: F32,
    labels: npt.NDArray[np.int64],
    threshold: float,
    sure: npt.NDArray[np.bool_] | None = None,
) -> dict[str, object]:
    """Read right, silent errors and `?`; ``sure`` (read as a motif) replaces the threshold if
    given."""
    conf = probs.max(axis=1)
    pred = probs.argmax(axis=1)
    shown = conf >= threshold if sure is None else sure
    right = shown & (pred == labels)
    silent = shown & (pred != labels)
    per_class = {}
    for k, f in enumerate(FACES):
        m = labels == k
        per_class[f] = {
            "n": int(m.sum()),
            "read_right": float(right[m].mean()) if m.any() else None,
            "unknown": float((~shown)[m].mean()) if m.any() else None,
            "silent": float(silent[m].mean()) if m.any() else None,
        }
    confusion = np.zeros((len(FACES), len(FACES) + 1), np.int64)  # last column: "?"
    for y, p, s in zip(labels, pred, shown, strict=True):
        confusion[y, p if s else len(FACES)] += 1
    return {
        "n": len(labels),
        "read_right": float(right.mean()),
        "silent": float(silent.mean()),
        "unknown": float((~shown).mean()),
        "raw_accuracy": float((pred == labels).mean()),
        "per_class": per_class,
        "confusion": confusion.tolist(),
    }


def digest(clf: FaceClassifier) -> str:
    return model_digest(clf.path)
