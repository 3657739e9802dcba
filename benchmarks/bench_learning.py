"""Would a profile that learns from the game's confirmed rolls read better? (issue 13)

    python benchmarks/bench_learning.py [--split validation|hard|held_out] [--sets 24]
        [--play 4] [--labels secretary|truth] [--json F]

Each set of dice of a drawing-family split (bench_families.py's) is enrolled as a table
would (two frames per motif). Then ``--play`` frames of 20 dice stand for the game's first
rolls: read with that profile, and each whole die found given the motif the confirmed roll
says (``secretary``: the reader's motif where it named one, the true motif where it read
`?`, as a secretary who keys the `?` dice and misses a wrong read; ``truth``: every die's
true motif). The profile is fitted again on the enrolment dice and those, and both profiles
read bench_families' two frames of the set. Reported: right, silent (a wrong motif, not
`?`) and frames with every whole die right, for both; and how many of the learnt dice
carried a wrong motif (the reader's silent errors on the play frames).

Session 31 (docs/vision.md): the learnt profile reads more dice and lets more through wrong,
so the reader does not learn as the game goes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.bench_families import (  # noqa: E402
    FIRST_SEED,
    family_frame,
    judged_reads,
    whole_pairs,
)
from benchmarks.machine import describe  # noqa: E402
from companion.evaluation.enrol_sim import SimulatedEnrolment  # noqa: E402
from companion.evaluation.scoring import outside_frame  # noqa: E402
from companion.synth import render_frame  # noqa: E402
from companion.synth.family_sets import BENCH_SPLITS, bench_styles  # noqa: E402
from companion.synth.frame import FACES, RenderedFrame  # noqa: E402
from companion.vision.classify import UNKNOWN, FaceClassifier  # noqa: E402
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.enroll import EnrolmentError, Profile, fit_profile  # noqa: E402
from companion.vision.judged import find_and_read, judged_finder  # noqa: E402

# The play frames' seeds: away from bench_families' frames and the enrolment frames.
PLAY_SEED = FIRST_SEED + 70_000


def confirmed_dice(
    clf: FaceClassifier, f: RenderedFrame, labels: str
) -> tuple[list[np.ndarray], list[int], int]:
    """The whole dice found in a play frame, cut, with the motif the confirmed roll gives
    each, and how many of those motifs are wrong."""
    got = find_and_read(f.image, clf)
    pairs = [(a, b) for a, b in whole_pairs(f, [d for d, _ in got]) if got[a][0].clean]
    if not pairs:
        return [], [], 0
    cut = cut_faces(f.image, [got[a][0].corners for a, _ in pairs])
    motifs, wrong = [], 0
    for a, b in pairs:
        truth, read = f.dice[b].face, got[a][1].face
        motif = truth if labels == "truth" or read == UNKNOWN else read
        wrong += motif != truth
        motifs.append(FACES.index(motif))
    return list(cut), motifs, wrong


def score(clf: FaceClassifier, profile: Profile, f: RenderedFrame, tally: list[int]) -> None:
    """Read frame ``f`` with ``profile``; add dice, right, silent, frame all right, frames."""
    clf.profile = profile
    h, w = f.image.shape[:2]
    n_whole = sum(not outside_frame(d.corners, w, h) for d in f.dice)
    pairs, faces = judged_reads(clf, f)
    ok = len(pairs) == n_whole
    for a, b in pairs:
        truth, read = f.dice[b].face, faces[a]
        tally[0] += 1
        tally[1] += read == truth
        tally[2] += read not in (truth, UNKNOWN)
        ok &= read == truth
    tally[3] += int(ok)
    tally[4] += 1


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--split", default="validation", choices=BENCH_SPLITS)
    ap.add_argument("--sets", type=int, default=24)
    ap.add_argument("--play", type=int, default=4, help="play frames learnt from, a set")
    ap.add_argument("--labels", default="secretary", choices=("secretary", "truth"))
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    t0 = time.time()
    clf = FaceClassifier(None)
    enrol = SimulatedEnrolment(clf, judged_finder(clf))
    styles = bench_styles(args.split, args.sets)
    enrol.add_styles(styles)
    tallies = {"enrolled": [0] * 5, "learnt": [0] * 5}
    learnt_dice = learnt_wrong = 0
    for i, style in enumerate(styles):
        clf.profile = None
        try:
            base = enrol.profile([style.name])
        except EnrolmentError:
            continue
        crops, motifs, frames = enrol.style_crops(style.name)
        crops_l, motifs_l, frames_l = [crops], [motifs], [frames]
        clf.profile = base
        for j in range(args.play):
            f = render_frame(PLAY_SEED + i * 10 + j, n_dice=20, styles=[style])
            cut, m, wrong = confirmed_dice(clf, f, args.labels)
            if cut:
                crops_l.append(np.stack(cut))
                motifs_l.append(np.asarray(m, np.int64))
                frames_l.append(np.full(len(m), 100 + j, np.int64))
                learnt_dice, learnt_wrong = learnt_dice + len(m), learnt_wrong + wrong
        clf.profile = None
        learnt = fit_profile(
            clf, np.concatenate(crops_l), np.concatenate(motifs_l), np.concatenate(frames_l)
        )
        for j in range(2):
            f = family_frame(style, i, j)[0]
            score(clf, base, f, tallies["enrolled"])
            score(clf, learnt, f, tallies["learnt"])
    print(
        f"{args.split} drawing families, {len(styles)} sets, {args.play} play frames a set "
        f"({args.labels} motifs); {describe()}; {time.time() - t0:.0f} s"
    )
    print(f"dice learnt from play: {learnt_dice}, with a wrong motif: {learnt_wrong}")
    report: dict[str, object] = {
        "split": args.split,
        "play": args.play,
        "labels": args.labels,
        "learnt_dice": learnt_dice,
        "learnt_wrong": learnt_wrong,
    }
    for key, (n, right, silent, ok, frames) in tallies.items():
        print(
            f"{key:<9} dice {n:>5}  right {100 * right / max(n, 1):6.2f} %  silent {silent:>3}"
            f"  frames all right {ok}/{frames}"
        )
        report[key] = {"dice": n, "right": right / max(n, 1), "silent": silent, "frames": ok}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
