"""Checks that might turn the model alone's confident wrong reads of unseen art into `?`.

    python benchmarks/bench_silent.py [--sets styles,families] [--frames 40]
        [--margins-from MODEL]

Every whole die the learned finder finds (clean) and matches on rendered 1280x960 frames
is read by the shipped model alone (one view, its per-die limits: classify.thresholds), then
by each check, each only able to add `?`:

- ``far: N views``: a die beyond known art's distance that would read a motif is looked at
  again at N right angles (2-4) and reads `?` unless every view reads the same motif and the
  views' mean probability passes its limit;
- ``far: jitter``: the same with five crops shifted by 5 % of an edge or scaled by 8 %;
- ``nearest mean``: `?` where the motif whose known-art mean lies nearest the embedding
  (squared Mahalanobis) is not the network's own read;
- ``margins``: KnownArt.margins of ``--margins-from`` (a copy of the model calibrated with
  ``models/calibrate_faces.py --margins``), applied to the shipped model's reads;
- ``look-alikes``: `?` where the die's look-alikes in its frame (the other dice whose one-view
  embedding has a cosine of at least 0.9 with its own) give its motif a mean probability
  under 0.85 (session 48's D52: tried on held-out families, not shipped; docs/vision.md).

Sets (VALIDATION art, chosen on): ``styles`` and ``families`` are bench_candidates.py's
development ``plain`` and ``families`` frames; ``cal-styles`` and ``cal-families`` the
frames models/calibrate_faces.py chooses its limits on (seeds 30000.. and 35000..);
``more-families`` 300 sets of validation families on seeds 37000.. that nothing chose a limit
on. For the report only: ``held-out`` and ``held-out-families`` (bench_candidates.py's).
Prints right / silent / `?` per set and check, and where the silent errors lie.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.bench_candidates import Frame, rendered, truth_of  # noqa: E402
from benchmarks.machine import describe  # noqa: E402
from companion.evaluation.scoring import match_points  # noqa: E402
from companion.synth import VALIDATION, render_frame  # noqa: E402
from companion.synth.family_sets import family_styles  # noqa: E402
from companion.synth.styles import Style  # noqa: E402
from companion.vision.classify import (  # noqa: E402
    FACES,
    FaceClassifier,
    normalise,
    with_rotations,
)
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.detect_net import find_dice_net  # noqa: E402

F32 = npt.NDArray[np.float32]
CALIBRATION: dict[str, tuple[Sequence[Style], int]] = {
    "cal-styles": (VALIDATION, 30_000),
    "cal-families": (family_styles("validation", 200, 30_000), 35_000),
    "more-families": (family_styles("validation", 300, 31_000), 37_000),
}
# (dx, dy, scale): shifts in edges and a scale about the centre
JITTER = (
    (0.05, 0.0, 1.0),
    (0.0, 0.05, 1.0),
    (-0.05, -0.05, 1.0),
    (0.0, 0.0, 0.92),
    (0.0, 0.0, 1.08),
)


def moved(corners: npt.ArrayLike, dx: float, dy: float, scale: float) -> npt.NDArray[np.float64]:
    c = np.asarray(corners, np.float64).reshape(4, 2)
    centre = c.mean(axis=0)
    edge = float(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)))
    return np.asarray((c - centre) * scale + centre + np.array([dx, dy]) * edge, np.float64)


@dataclass
class Dice:
    labels: npt.NDArray[np.int64]
    probs: F32  # (4 right angles, N, 5)
    emb: F32  # (N, D) as cut
    jitter: F32  # (len(JITTER), N, 5)
    frame: npt.NDArray[np.int64]  # which frame each die lies in


def frames_of(kind: str, n: int) -> Iterator[Frame]:
    """bench_candidates.py's sets, and the calibration's frames of validation art."""
    if kind not in CALIBRATION:
        yield from rendered(kind, n)
        return
    styles, first = CALIBRATION[kind]
    for seed in range(first, first + n):
        yield truth_of(render_frame(seed, size=(1280, 960), styles=styles))


def collect(clf: FaceClassifier, kind: str, frames: int) -> Dice:
    labels: list[int] = []
    frame: list[int] = []
    probs, embs, jits = [], [], []
    for k, (image, corners, faces, hidden) in enumerate(frames_of(kind, frames)):
        assert faces is not None and hidden is not None
        found = [d for d in find_dice_net(image) if d.clean]
        pairs = [
            (i, j) for i, j in match_points([d.center for d in found], corners) if not hidden[j]
        ]
        if not pairs:
            continue
        cs = [found[i].corners for i, _ in pairs]
        crops = cut_faces(image, cs)
        n = len(crops)
        logits, emb = clf.run(with_rotations(crops, 4))
        probs.append(clf.motif_probabilities(logits)[0].reshape(4, n, -1))
        embs.append(emb[:n])
        shifted = np.concatenate([cut_faces(image, [moved(c, *j) for c in cs]) for j in JITTER])
        jits.append(clf.motif_probabilities(clf.run(shifted)[0])[0].reshape(len(JITTER), n, -1))
        labels += [FACES.index(faces[j]) for _, j in pairs]
        frame += [k] * n
    return Dice(
        np.asarray(labels, np.int64),
        np.concatenate(probs, axis=1),
        np.concatenate(embs),
        np.concatenate(jits, axis=1),
        np.asarray(frame, np.int64),
    )


def unbacked(
    d: Dice, best: npt.NDArray[np.intp], sim: float = 0.9, backing: float = 0.85
) -> npt.NDArray[np.bool_]:
    """Dice whose look-alikes in their frame (one-view embeddings at a cosine of ``sim`` or
    more) give their best motif a mean probability under ``backing``."""
    unit = normalise(d.emb)
    out = np.zeros(len(best), bool)
    for f in np.unique(d.frame):
        idx = np.flatnonzero(d.frame == f)
        near = unit[idx] @ unit[idx].T >= sim
        np.fill_diagonal(near, False)
        for a, i in enumerate(idx):
            if near[a].any():
                out[i] = float(d.probs[0][idx[near[a]], best[i]].mean()) < backing
    return out


def agree(
    views: F32, best: npt.NDArray[np.intp], limit: npt.NDArray[np.float64]
) -> npt.NDArray[np.bool_]:
    """Every view reads the same motif and their mean probability of it passes the limit."""
    same = np.all(views.argmax(axis=2) == best, axis=0)
    mean = views.mean(axis=0)[np.arange(len(best)), best]
    return np.asarray(same & (mean >= limit))


def checks(
    clf: FaceClassifier, d: Dice, margins_from: FaceClassifier | None
) -> dict[str, npt.NDArray[np.bool_]]:
    """Which dice each way reads as a motif (not `?`)."""
    assert clf.known is not None
    p = d.probs[0]
    best = p.argmax(axis=1)
    limit = clf.thresholds(p, d.emb)
    shown = p.max(axis=1) >= limit
    far = clf.known.distances(d.emb, best) > clf.known.distance
    out = {"shipped (one view)": shown}
    for n in (2, 4):
        out[f"far: {n} views"] = shown & (~far | agree(d.probs[:n], best, limit))
    out["far: jitter"] = shown & (~far | agree(d.jitter, best, limit))
    out["nearest mean"] = shown & (clf.known.all_distances(d.emb).argmin(axis=1) == best)
    if margins_from is not None and margins_from.known is not None:
        out["margins"] = shown & ~margins_from.known.ambiguous(d.emb, best)
    out["look-alikes"] = shown & ~unbacked(d, best)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sets", default="styles,families")
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--model", default=None)
    ap.add_argument("--margins-from", default=None)
    args = ap.parse_args(argv)
    clf = FaceClassifier(args.model)
    if clf.known is None:
        print("the model has no known-art calibration: run models/calibrate_faces.py")
        return 2
    other = FaceClassifier(args.margins_from) if args.margins_from else None
    print(describe())
    names = {"styles": "plain", "families": "families"}
    for name in args.sets.split(","):
        d = collect(clf, names.get(name, name), args.frames)
        best = d.probs[0].argmax(axis=1)
        print(f"== {name}: {len(d.labels)} dice, {args.frames} frames")
        for way, shown in checks(clf, d, other).items():
            n = max(len(d.labels), 1)
            right = np.sum(shown & (best == d.labels))
            silent = np.sum(shown & (best != d.labels))
            wrong = shown & (best != d.labels)
            pairs = Counter(
                f"{FACES[t]}->{FACES[b]}" for t, b in zip(d.labels[wrong], best[wrong], strict=True)
            )
            print(
                f"  {way:<20} right {100 * right / n:6.2f}%  silent {100 * silent / n:5.2f}%  "
                f"? {100 * (n - right - silent) / n:6.2f}%  {dict(pairs)}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
