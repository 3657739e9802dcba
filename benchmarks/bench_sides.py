"""Dice whose sides carry art, seen through a lens as wide as the Pi's: how the reader reads them.

    python benchmarks/bench_sides.py [--frames 60] [--first 99500] [--lens 0.8,1.25]
        [--plain]

A real die carries a motif on every face; our training renders painted none
(render_frame's ``side_art``, session 49). Rendered 1280x960 frames of the VALIDATION
styles with painted sides and a focal length drawn from ``--lens`` (image widths; the Pi's
camera module 2 is about 0.83, our training renders 1.0-1.8) are read as `vision read` reads
motif dice without a profile (judged finder, shipped face model), and each find is matched
to the renderer's truth:

- right / `?` / wrong / missed, over the whole dice in the frame;
- phantoms: finds that match no die, and how many of them were given a motif (a painted side
  taken for a die of its own is the commonest);
- the cut's corner error over the die's edge (median and 90th percentile).

``--plain`` reads the same frames with plain sides as well, for the difference. Development
frames: seeds 99500-99559 (session 49's check); 99600.. were its gate.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from companion.evaluation import scoring  # noqa: E402
from companion.evaluation.scoring import match_points, outside_frame  # noqa: E402
from companion.synth import VALIDATION, render_frame  # noqa: E402
from companion.vision.classify import FaceClassifier  # noqa: E402
from companion.vision.geometry import mean_edge  # noqa: E402
from companion.vision.judged import find_and_read  # noqa: E402


def corner_error(cut: npt.ArrayLike, true: npt.ArrayLike) -> float:
    """scoring.corner_error (corners clockwise, best over the starting corner) over the true
    top face's mean edge."""
    return scoring.corner_error(cut, true) / mean_edge(np.asarray(true, np.float64))


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    errors: list[float] = field(default_factory=list)

    def line(self, name: str) -> str:
        c = self.counts
        dice = c["right"] + c["?"] + c["wrong"] + c["missed"]
        e = np.percentile(self.errors, [50, 90]) if self.errors else [float("nan")] * 2
        return (
            f"{name:8} dice {dice:5}  right {100 * c['right'] / max(dice, 1):6.2f} %  "
            f"? {c['?']:4}  wrong {c['wrong']:3}  missed {c['missed']:3}  "
            f"phantoms {c['phantom']:3} (given a motif {c['phantom read']:3})  "
            f"corner error / edge: median {e[0]:.3f}, p90 {e[1]:.3f}"
        )


def read_frames(
    clf: FaceClassifier, seeds: range, side_art: bool, lens: tuple[float, float]
) -> Tally:
    t = Tally()
    for seed in seeds:
        f = render_frame(seed, size=(1280, 960), styles=VALIDATION, side_art=side_art, lens=lens)
        got = find_and_read(f.image, clf)
        h, w = f.image.shape[:2]
        pairs = match_points([d.center for d, _ in got], [d.corners for d in f.dice])
        matched = {b for _, b in pairs}
        finds = {a for a, _ in pairs}
        for a, b in pairs:
            if outside_frame(f.dice[b].corners, w, h):
                continue
            die, reading = got[a]
            face = reading.face if die.clean else "?"
            t.counts["?" if face == "?" else "right" if face == f.dice[b].face else "wrong"] += 1
            t.errors.append(corner_error(die.corners, f.dice[b].corners))
        t.counts["missed"] += sum(
            1
            for b, die in enumerate(f.dice)
            if b not in matched and not outside_frame(die.corners, w, h)
        )
        for a, (die, reading) in enumerate(got):
            if a not in finds:
                t.counts["phantom"] += 1
                t.counts["phantom read"] += int(die.clean and reading.face != "?")
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--first", type=int, default=99500)
    ap.add_argument("--lens", default="0.8,1.25", help="focal length range, image widths")
    ap.add_argument("--plain", action="store_true", help="the same frames with plain sides too")
    args = ap.parse_args(argv)
    lo, hi = (float(v) for v in args.lens.split(","))
    clf = FaceClassifier()
    seeds = range(args.first, args.first + args.frames)
    print(f"{args.frames} frames from seed {args.first}, lens {lo}-{hi} image widths")
    if args.plain:
        print(read_frames(clf, seeds, False, (lo, hi)).line("plain"))
    print(read_frames(clf, seeds, True, (lo, hi)).line("painted"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
