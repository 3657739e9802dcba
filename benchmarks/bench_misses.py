"""Dice the judged finder misses, and finds that are no die, on drawing-family frames.

    python benchmarks/bench_misses.py [--splits validation,hard] [--sets 150]
        [--frames-per-set 2] [--resize-most 8] [--shrunk-from-in 24]

The frames are bench_families.py's (set i's frame j of 20 dice, each set one style drawn
from the split's drawing families), read as `vision read` reads them without a profile
(judged.find_and_read). Prints, per split: whole dice in the frames and how many no find
matches (missed, each with its body: marbled or plain), finds that match no die, and how
many of those were given a motif. ``--resize-most 0`` reads as before session 26 (weak
peaks of the wrong size not cut again at the table's size), to compare. Development splits
(validation, hard) chose the rule; held_out is for reporting only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.bench_families import FIRST_SEED, whole_pairs  # noqa: E402
from benchmarks.machine import describe  # noqa: E402
from companion.evaluation.scoring import match_points, outside_frame  # noqa: E402
from companion.synth import render_frame  # noqa: E402
from companion.synth.family_sets import BENCH_SPLITS, bench_styles  # noqa: E402
from companion.vision.classify import UNKNOWN, FaceClassifier  # noqa: E402
from companion.vision.detect_net import NetSettings  # noqa: E402
from companion.vision.judged import JudgeSettings, find_and_read  # noqa: E402


def count(
    split: str, sets: int, per_set: int, cfg: JudgeSettings, net: NetSettings
) -> dict[str, int]:
    clf = FaceClassifier()
    out: Counter[str] = Counter()
    for i, style in enumerate(bench_styles(split, sets)):
        for j in range(per_set):
            f = render_frame(FIRST_SEED + 1000 + i * 10 + j, n_dice=20, styles=[style])
            got = find_and_read(f.image, clf, cfg, net)
            h, w = f.image.shape[:2]
            found = {b for _, b in whole_pairs(f, [d for d, _ in got])}
            for b, die in enumerate(f.dice):
                if outside_frame(die.corners, w, h):
                    continue
                out["whole"] += 1
                if b not in found:
                    out["missed marbled" if style.body.marble else "missed plain"] += 1
            matched = {
                a for a, _ in match_points([d.center for d, _ in got], [d.corners for d in f.dice])
            }
            for a, (d, r) in enumerate(got):
                if a not in matched:
                    out["no die"] += 1
                    out["no die, given a motif"] += int(d.clean and r.face != UNKNOWN)
            out["frames"] += 1
    return dict(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--splits", default="validation,hard")
    ap.add_argument("--sets", type=int, default=150)
    ap.add_argument("--frames-per-set", type=int, default=2)
    ap.add_argument("--resize-most", type=int, default=JudgeSettings().resize_most)
    ap.add_argument("--shrunk-from-in", type=float, default=NetSettings().shrunk_from_in)
    args = ap.parse_args(argv)
    cfg = JudgeSettings(resize_most=args.resize_most)
    net = NetSettings(shrunk_from_in=args.shrunk_from_in)
    print(f"{describe()}; {cfg}; shrunk look from {net.shrunk_from_in} input px")
    for split in args.splits.split(","):
        if split not in BENCH_SPLITS:
            ap.error(f"unknown split {split!r}: one of {', '.join(BENCH_SPLITS)}")
        t0 = time.time()
        c = count(split, args.sets, args.frames_per_set, cfg, net)
        missed = c.get("missed marbled", 0) + c.get("missed plain", 0)
        print(
            f"{split}: {c['frames']} frames, whole dice {c['whole']}, missed {missed} "
            f"(marbled {c.get('missed marbled', 0)}, plain {c.get('missed plain', 0)}), "
            f"finds of no die {c.get('no die', 0)} (given a motif "
            f"{c.get('no die, given a motif', 0)}); {time.time() - t0:.0f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
