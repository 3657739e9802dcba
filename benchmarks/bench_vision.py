"""Time `vision read` (find + classify, decoding and model loading excluded) on rendered frames.

    python benchmarks/bench_vision.py [--frames 30] [--dice 20] [--profile P] [--threads 2]
                                      [--unjudged | --compare | --against-model F]

Prints the median and 95th percentile per frame size, and the detection
figures on the same frames (held-out styles) so speed is never bought with
misses unnoticed. Accuracy after enrolment is benchmarks/bench_read.py's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.machine import describe  # noqa: E402
from companion.evaluation.scoring import Tally, tally_frame  # noqa: E402
from companion.synth import HELD_OUT, render_frame  # noqa: E402
from companion.vision.detect import find_dice  # noqa: E402
from companion.vision.judged import JudgeSettings  # noqa: E402

SIZES = ((1280, 960), (2304, 1296))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--dice", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3, help="timed reads per frame")
    ap.add_argument(
        "--profile",
        default=None,
        help="read with this enrolment profile (its faces are another set's)",
    )
    ap.add_argument("--threads", type=int, default=2, help="threads of each network")
    ap.add_argument(
        "--unjudged",
        action="store_true",
        help="the finder's own choice, candidates not judged by the face model (judged.py)",
    )
    ap.add_argument(
        "--compare",
        action="store_true",
        help="time judged and unjudged reads in turn on the same frames (a loaded machine's "
        "load then weighs on both alike)",
    )
    ap.add_argument(
        "--against-model",
        default=None,
        metavar="F",
        help="time the shipped face model and the face model F in turns, in one process, on "
        "the same frames (e.g. models/faces.float.onnx: a loaded machine then weighs on both)",
    )
    args = ap.parse_args(argv)
    if args.against_model and (args.profile or args.compare):
        ap.error("--against-model times two face models without a profile, judged or not")
    other: Reader | None = None
    try:
        from companion.vision.detect_net import find_dice_net
        from companion.vision.enroll import load_reader
        from companion.vision.read import Reader

        loaded = Reader(
            load_reader(args.profile, threads=args.threads),
            finder=lambda image: find_dice_net(image, threads=args.threads),
            judge=None if args.unjudged else JudgeSettings(),
            threads=args.threads,
        )
        loaded.warm_up()
        reader: Reader | None = loaded
        if args.against_model:
            other = Reader(
                load_reader(args.profile, args.against_model, threads=args.threads),
                finder=lambda image: find_dice_net(image, threads=args.threads),
                judge=None if args.unjudged else JudgeSettings(),
                threads=args.threads,
            )
            other.warm_up()
        what = (
            "find + classify"
            + (" with a profile" if args.profile else "")
            + (", unjudged" if args.unjudged else "")
            + f", {args.threads} thread{'s' if args.threads > 1 else ''}"
        )
    except Exception as exc:  # no model yet: time the finder alone, and say so
        print(f"face model unavailable ({exc}); timing the die finder alone")
        reader = None
        what = "find only"
    ways: list[tuple[str, JudgeSettings | None]] = [
        ("", None if args.unjudged else JudgeSettings())
    ]
    if args.compare and reader is not None:
        ways = [(", judged", JudgeSettings()), (", unjudged", None)]
    if other is not None:
        ways = [(", shipped face model", ways[0][1]), (f", {args.against_model}", ways[0][1])]
    for size in SIZES:
        times: dict[str, list[float]] = {w: [] for w, _ in ways}
        tally = {w: Tally() for w, _ in ways}
        for seed in range(args.frames):
            frame = render_frame(90_000 + seed, n_dice=args.dice, size=size, styles=HELD_OUT)
            faces = [d.face for d in frame.dice] if reader is not None else None
            # in turn, and each first as often: the first read of a frame finds its pixels cold
            n = len(ways)
            turns = [ways[(seed + r + k) % n] for r in range(args.repeat) for k in range(n)]
            last: dict[str, list[tuple[float, float, str]]] = {}
            for w, judge in turns:
                start = time.perf_counter()
                if reader is not None:
                    r = other if other is not None and w == ways[1][0] else reader
                    r.judge = judge
                    got = [(d.x, d.y, d.face) for d in r.read(frame.image)]
                else:
                    got = [
                        (d.center[0], d.center[1], "?" if not d.clean else "x")
                        for d in find_dice(frame.image)
                    ]
                times[w].append((time.perf_counter() - start) * 1000)
                last[w] = got
            for w, got in last.items():
                tally_frame(tally[w], got, [d.corners for d in frame.dice], faces)
        for w, _ in ways:
            t = np.asarray(times[w])
            print(
                f"{size[0]}x{size[1]}, {args.dice} dice, {what}{w}: median {np.median(t):.1f} ms, "
                f"p95 {np.percentile(t, 95):.1f} ms over {len(t)} reads"
            )
            print(f"  {tally[w].summary()}")
        if other is not None:
            paired = np.asarray(times[ways[1][0]]) - np.asarray(times[ways[0][0]])
            print(
                f"  {args.against_model} minus the shipped model, read by read: median "
                f"{np.median(paired):+.1f} ms"
            )
    print(f"machine: {describe()}, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
