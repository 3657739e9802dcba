"""Time `vision read` (find + classify, decoding and model loading excluded) on rendered frames.

    python benchmarks/bench_vision.py [--frames 30] [--dice 20]
    python benchmarks/bench_vision.py --enrolled 8 --per-style 12

Prints the median and 95th percentile per frame size, and the detection
figures on the same frames (held-out styles) so speed is never bought with
misses unnoticed. ``--enrolled N`` instead measures accuracy after enrolment:
for N held-out styles it enrols that style (one frame per motif, dice found
by the finder, as `vision enroll` does) and reads ``--per-style`` frames.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from companion.synth import HELD_OUT, render_frame  # noqa: E402
from companion.vision.detect import find_dice  # noqa: E402
from companion.vision.scoring import Tally, tally_frame  # noqa: E402

SIZES = ((1280, 960), (2304, 1296))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--dice", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3, help="timed reads per frame")
    ap.add_argument("--enrolled", type=int, default=0, metavar="N",
                    help="measure accuracy after enrolment on N held-out styles instead")
    ap.add_argument("--per-style", type=int, default=12)
    args = ap.parse_args(argv)
    if args.enrolled:
        return enrolled_accuracy(args.enrolled, args.per_style)
    try:
        from companion.vision.read import Reader

        reader: Reader | None = Reader.load()
        what = "find + classify"
    except Exception as exc:  # no model yet: time the finder alone, and say so
        print(f"face model unavailable ({exc}); timing the die finder alone")
        reader = None
        what = "find only"
    for size in SIZES:
        times: list[float] = []
        tally = Tally()
        for seed in range(args.frames):
            frame = render_frame(90_000 + seed, n_dice=args.dice, size=size, styles=HELD_OUT)
            for _ in range(args.repeat):
                start = time.perf_counter()
                if reader is not None:
                    got = [(d.x, d.y, d.face) for d in reader.read(frame.image)]
                else:
                    got = [(d.center[0], d.center[1], "?" if not d.clean else "x")
                           for d in find_dice(frame.image)]
                times.append((time.perf_counter() - start) * 1000)
            faces = [d.face for d in frame.dice] if reader is not None else None
            tally_frame(tally, got, [d.corners for d in frame.dice], faces)
        t = np.asarray(times)
        print(f"{size[0]}x{size[1]}, {args.dice} dice, {what}: median {np.median(t):.1f} ms, "
              f"p95 {np.percentile(t, 95):.1f} ms over {len(t)} reads")
        print(f"  {tally.summary()}")
    return 0


def enrolled_accuracy(n_styles: int, per_style: int) -> int:
    """End-to-end figures on held-out styles, with and without each style's enrolment."""
    from companion.synth.frame import FACES
    from companion.vision.classify import FaceClassifier
    from companion.vision.crop import cut_faces
    from companion.vision.enroll import fit_profile
    from companion.vision.read import Reader

    clf = FaceClassifier()
    reader = Reader(clf)
    rng = np.random.default_rng(7)
    styles = [HELD_OUT[i] for i in rng.choice(len(HELD_OUT), n_styles, replace=False)]
    base, enrolled = Tally(), Tally()
    for si, style in enumerate(styles):
        crops: list[np.ndarray] = []
        labels: list[int] = []
        for k, face in enumerate(FACES):
            frame = render_frame(70_000 + si * 10 + k, n_dice=12, styles=[style], faces=[face])
            found = [d for d in find_dice(frame.image) if d.clean]
            cut = cut_faces(frame.image, [d.corners for d in found])
            crops.extend(cut)
            labels.extend([k] * len(cut))
        profile = fit_profile(clf, np.stack(crops), np.asarray(labels))
        for j in range(per_style):
            frame = render_frame(80_000 + si * 100 + j, styles=[style])
            regions = [d.corners for d in frame.dice]
            faces = [d.face for d in frame.dice]
            clf.profile = None
            tally_frame(base, [(d.x, d.y, d.face) for d in reader.read(frame.image)], regions, faces)
            clf.profile = profile
            tally_frame(enrolled, [(d.x, d.y, d.face) for d in reader.read(frame.image)], regions, faces)
        print(f"{style.name}: enrolled so far: {enrolled.summary()}", flush=True)
    for name, t in (("shipped model", base), ("after enrolment", enrolled)):
        phantoms = t.found - t.matched - t.extra_unsure
        print(f"{name}: {t.summary()}\n  wrong faces {t.face_wrong}, phantom dice given a motif "
              f"{phantoms}, phantom dice read '?' {t.extra_unsure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
