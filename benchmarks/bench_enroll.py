"""How long `companion vision enroll` takes: finding the dice, embedding them, fitting and checking.

    python benchmarks/bench_enroll.py [DIR] [--runs 3]

DIR holds folders I, 1, 2, 3, E of frames (default: ../shared/foreign-art/enroll/jade,
10 frames of 1280x960). Loading the models is counted apart from enrolling.
Prints the median wall and CPU seconds of the whole enrolment and of its parts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.machine import describe  # noqa: E402
from companion.vision.classify import FaceClassifier  # noqa: E402
from companion.vision.enroll import collect, fit_profile  # noqa: E402
from companion.vision.finders import DEFAULT_FINDER, make_finder  # noqa: E402

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "foreign-art" / "enroll" / "jade"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    t0 = time.perf_counter()
    clf = FaceClassifier()
    finder = make_finder(DEFAULT_FINDER)
    load = time.perf_counter() - t0
    walls, cpus, finds, fits = [], [], [], []
    for _ in range(args.runs):
        w0, c0 = time.perf_counter(), time.process_time()
        found = collect(args.dir, finder)
        w1 = time.perf_counter()
        profile = fit_profile(clf, found.crops, found.labels, found.frames)
        with tempfile.TemporaryDirectory() as tmp:
            profile.save(tmp)
        w2 = time.perf_counter()
        walls.append(w2 - w0)
        cpus.append(time.process_time() - c0)
        finds.append(w1 - w0)
        fits.append(w2 - w1)
    n = sum(found.frames_per_face.values())
    print(f"enrolment of {args.dir}: {n} frames, {len(found.labels)} dice; {describe()}")
    print(f"  models loaded in {load:.2f} s (once)")
    print(
        f"  enrolment {statistics.median(walls):.2f} s median wall, {statistics.median(cpus):.2f} "
        "s CPU "
        f"(finding and cutting {statistics.median(finds):.2f} s, embedding, fitting and self-check "
        f"{statistics.median(fits):.2f} s), {args.runs} runs"
    )


if __name__ == "__main__":
    main()
