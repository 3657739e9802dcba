"""What else than the face model's embedding tells an enrolled set's motifs apart.

    python benchmarks/bench_enrol_features.py SETS_DIR... [--json F]

Each SETS_DIR is an otherhand folder (``python -m benchmarks.otherhand.make_sets``), whose
``enroll/<set>/`` holds folders I, 1, 2, 3, E of frames. Every
set's enrolment dice are collected and embedded as `vision enroll` does (its model, the judged
finder, clean dice), then each frame is left out in turn and its dice read by what the other
frames taught. Reported per set and on average, the share of dice whose best guess is right
(no limit, no `?`):

- ``emb mean``: the nearest motif mean of the shipped embedding, four right angles averaged;
- ``hog 1-nn``: gradient histograms (:func:`hog`) of the die, the nearest enrolled die at any
  right angle;
- ``head``: the profile's head as `vision enroll` cross-checks it (enroll._cross_check);
- ``head + hog``: the head's probabilities times a softmax of each motif's nearest-die
  similarity (temperature ``--temperature``);
- ``head + pixels``: the head and the enrolled dice's pixels read as one, as a profile reads
  (pixel_templates.fuse on the same cross-check), and ``+ hog`` that times the gradients'
  softmax;
- ``self-check``, for comparison: the share `vision enroll`'s own cross-check reads right and
  sure (its limits, its pixels; a `?` counts as not right).

A set counts as *warned* when `vision enroll` warns about it (two motifs alike, a stray die in
a folder, a motif of one frame). Session 48 measured it on otherhand development seeds 28-36
(docs/vision.md); nothing here is read by `vision read`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.machine import describe  # noqa: E402
from companion.vision.classify import (  # noqa: E402
    FACES,
    FaceClassifier,
    default_enrol_model_path,
    rotation_embeddings,
    softmax,
    with_rotations,
)
from companion.vision.enroll import _cross_check, collect, fit_profile  # noqa: E402
from companion.vision.judged import judged_finder  # noqa: E402
from companion.vision.pixel_templates import PixelTemplates, fuse  # noqa: E402

F32 = npt.NDArray[np.float32]
CELL = 8  # pixels a histogram cell
BINS = 9  # unsigned gradient directions, 20 degrees each
INNER = slice(8, 56)  # the face inside a 64-pixel crop's margin


def hog(crops: npt.NDArray[np.uint8]) -> F32:
    """Histograms of oriented gradients (N, D) at unit length: a crop's inner 48x48 pixels in
    cells of CELL, BINS directions weighted by the gradient's size, each 2x2 block of cells
    normalised (Dalal and Triggs' layout, in numpy: this OpenCV build has no objdetect)."""
    if not len(crops):
        return np.zeros((0, 0), np.float32)
    gray = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for c in crops]).astype(np.float32)
    g = gray[:, INNER, INNER]
    gx = np.zeros_like(g)
    gy = np.zeros_like(g)
    gx[:, :, 1:-1] = g[:, :, 2:] - g[:, :, :-2]
    gy[:, 1:-1, :] = g[:, 2:, :] - g[:, :-2, :]
    mag = np.hypot(gx, gy)
    ang = np.degrees(np.arctan2(gy, gx)) % 180.0
    b = np.minimum((ang / (180.0 / BINS)).astype(np.int64), BINS - 1)
    n, side = len(g), g.shape[1] // CELL
    onehot = np.zeros((*g.shape, BINS), np.float32)
    np.put_along_axis(onehot, b[..., None], mag[..., None], axis=-1)
    cells = onehot.reshape(n, side, CELL, side, CELL, BINS).sum(axis=(2, 4))
    blocks = np.concatenate(
        [cells[:, :-1, :-1], cells[:, :-1, 1:], cells[:, 1:, :-1], cells[:, 1:, 1:]], axis=-1
    )
    blocks /= np.linalg.norm(blocks, axis=-1, keepdims=True) + 1e-6
    f = blocks.reshape(n, -1)
    return np.asarray(f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-6), np.float32)


def left_out_scores(
    rot: F32, labels: npt.NDArray[np.int64], frames: npt.NDArray[np.int64], how: str
) -> F32:
    """Each die's motif scores (N, 5) from the other frames' dice: ``mean``, the cosine to
    each motif's mean (views averaged); ``nearest``, to each motif's nearest die at any right
    angle (-1 for a motif no other frame holds). ``rot``: (4, N, D) unit features."""
    out = np.full((len(labels), len(FACES)), -1.0, np.float32)
    for f in np.unique(frames):
        te = frames == f
        x = rot[:, ~te].reshape(-1, rot.shape[2])
        y = np.tile(labels[~te], len(rot))
        for k in range(len(FACES)):
            if not np.any(y == k):
                continue
            if how == "mean":
                m = x[y == k].mean(axis=0)
                m /= np.linalg.norm(m) + 1e-6
                out[te, k] = np.mean([rot[r, te] @ m for r in range(len(rot))], axis=0)
            else:
                out[te, k] = (rot[0, te] @ x[y == k].T).max(axis=1)
    return out


def measure(clf: FaceClassifier, folder: Path, temperature: float) -> dict[str, float]:
    e = collect(folder, judged_finder(clf))
    emb = rotation_embeddings(clf, e.crops, 4)
    grads = hog(with_rotations(e.crops, 4)).reshape(4, len(e.crops), -1)
    by_mean = left_out_scores(emb, e.labels, e.frames, "mean")
    by_hog = left_out_scores(grads, e.labels, e.frames, "nearest")
    cross = _cross_check(emb, e.labels, e.frames)
    ck = cross.checked
    fused = np.log(cross.probs + 1e-9) + np.log(softmax(by_hog / temperature) + 1e-9)
    _, pixel_cross = PixelTemplates.fit_checked(e.crops, e.labels, e.frames, len(FACES))
    with_pixels = fuse(cross.probs, pixel_cross)
    all_three = np.log(with_pixels + 1e-9) + np.log(softmax(by_hog / temperature) + 1e-9)
    profile = fit_profile(clf, e.crops, e.labels, e.frames)
    check = profile.check
    return {
        "dice": float(len(e.labels)),
        "warned": float(bool(profile.warnings)),
        "self-check": float(check.right / max(check.dice, 1)) if check else float("nan"),
        "emb mean": float(np.mean(by_mean.argmax(axis=1) == e.labels)),
        "hog 1-nn": float(np.mean(by_hog.argmax(axis=1) == e.labels)),
        "head": float(np.mean(cross.probs[ck].argmax(axis=1) == e.labels[ck])),
        "head + hog": float(np.mean(fused[ck].argmax(axis=1) == e.labels[ck])),
        "head + pixels": float(np.mean(with_pixels[ck].argmax(axis=1) == e.labels[ck])),
        "+ hog": float(np.mean(all_three[ck].argmax(axis=1) == e.labels[ck])),
    }


WAYS = ("self-check", "emb mean", "hog 1-nn", "head", "head + hog", "head + pixels", "+ hog")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("dirs", nargs="+", help="otherhand folders holding enroll/<set>/")
    ap.add_argument("--temperature", type=float, default=0.05)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    clf = FaceClassifier(default_enrol_model_path())  # as `vision enroll` does
    print(describe())
    rows: dict[str, dict[str, float]] = {}
    for d in args.dirs:
        for folder in sorted((Path(d) / "enroll").iterdir()):
            r = rows[folder.name] = measure(clf, folder, args.temperature)
            mark = "warned" if r["warned"] else ""
            print(
                f"{folder.name:<10} {int(r['dice']):>4} dice {mark:<7} "
                + "  ".join(f"{w} {r[w]:.3f}" for w in WAYS),
                flush=True,
            )
    for name, keep in (("all", None), ("warned", 1.0), ("not warned", 0.0)):
        sel = [r for r in rows.values() if keep is None or r["warned"] == keep]
        if sel:
            print(
                f"mean, {name} ({len(sel)} sets): "
                + "  ".join(f"{w} {np.mean([r[w] for r in sel]):.3f}" for w in WAYS)
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
