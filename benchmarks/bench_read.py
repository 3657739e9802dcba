"""Reading rendered frames end to end, after enrolment: the figures issue #4 sets.

    python benchmarks/bench_read.py [--split held-out|validation] [--frames 200]
        [--finder judged|net|classic|both] [--first 5300]
    python benchmarks/bench_read.py --split validation --sweep     # how NetSettings were chosen

Frames are `render_frame(seed, styles=...)` at 1280x960 (held-out styles: seeds
5000.., validation styles: seeds 7000..; `--first` for others), the same pixels as
bench_detect_net.py. For each frame the table's dice set(s) are enrolled the
way `vision enroll` does it: one frame per motif with 12 dice of the set, the
dice found by the same finder, `fit_profile`; then the frame is read with that
profile (and, for comparison, with the shipped model alone). ``--finder judged``
(the default since session 34) finds, cuts and reads as `vision read` and `vision
enroll` do: the learned finder's candidates judged by the face model, with the
profile when there is one (judged.py), so a find the profile knows is no die of
this table is dropped, not counted a phantom `?`; the others read a finder's
finds with the face model, as before session 34. Scores by
companion.evaluation.scoring: a die whose top face is partly outside the frame is
half hidden, and '?' is right for it (VISION.md), a wrong motif is not.
Set BENCH_CACHE=/some/dir to reuse rendered frames between runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.bench_detect_net import frames  # noqa: E402
from companion.evaluation.enrol_sim import SimulatedEnrolment  # noqa: E402
from companion.evaluation.scoring import Tally, outside_frame, tally_frame  # noqa: E402
from companion.synth import HELD_OUT  # noqa: E402
from companion.synth.frame import RenderedFrame  # noqa: E402
from companion.synth.styles import VALIDATION  # noqa: E402
from companion.vision.classify import FaceClassifier, default_enrol_model_path  # noqa: E402
from companion.vision.detect_net import NetSettings, find_dice_net  # noqa: E402
from companion.vision.finders import Finder, make_finder  # noqa: E402
from companion.vision.judged import find_and_read, judged_finder  # noqa: E402
from companion.vision.look_alone import enrolled_again  # noqa: E402

SPLITS = {"held-out": (HELD_OUT, 5000), "validation": (VALIDATION, 7000)}


def score(
    frames_: Sequence[RenderedFrame],
    finder: Finder,
    clf: FaceClassifier,
    enroller: SimulatedEnrolment | None,
    judged: bool = False,
) -> tuple[Tally, list[float]]:
    """Every frame found and read, with its table's profile when there is an ``enroller``;
    ``judged``: as `vision read` reads (find_and_read, with ``clf`` judging), not ``finder``."""
    tally = Tally()
    times = []
    for f in frames_:
        h, w = f.image.shape[:2]
        clf.profile = None  # a table's enrolment frames are found before it has a profile
        clf.profile = enroller.profile([d.style for d in f.dice]) if enroller and f.dice else None
        t0 = time.perf_counter()
        if judged:
            both = enrolled_again(clf, f.image, find_and_read(f.image, clf))
            found, reads = [d for d, _ in both], [r for _, r in both]
        else:
            found = finder(f.image)
            reads = clf.read(f.image, [d.corners for d in found]) if found else []
        times.append((time.perf_counter() - t0) * 1000)
        got = [
            (d.center[0], d.center[1], r.face if d.clean else "?")
            for d, r in zip(found, reads, strict=True)
        ]
        tally_frame(
            tally,
            got,
            [d.corners for d in f.dice],
            [d.face for d in f.dice],
            [d.corners for d in found],
            [outside_frame(d.corners, w, h) for d in f.dice],
        )
    clf.profile = None
    return tally, times


def report(name: str, t: Tally, times: list[float] | None = None) -> str:
    phantoms = t.found - t.matched - t.extra_unsure
    line = (
        f"{name}: {t.summary()}\n  found {t.found}, matched {t.matched}, wrong faces "
        f"{t.face_wrong}, "
        f"phantoms given a face {phantoms}, phantoms '?' {t.extra_unsure}"
    )
    if times:
        line += f", read median {float(np.median(times)):.1f} ms"
    return line


def sweep(fr: Sequence[RenderedFrame], clf: FaceClassifier) -> None:
    """One setting at a time around the default, scored after enrolment."""
    enroller = SimulatedEnrolment(clf, find_dice_net)
    base = NetSettings()
    grid: dict[str, Sequence[object]] = {
        "threshold": (0.5, 0.55, 0.6, 0.65),
        "low": (0.3, 0.4, 0.5),
        "min_edge": (0.0, 20.0, 28.0, 34.0),
        "border_share": (0.0, 0.02, 0.05, 0.1, 0.2),
        "weak_lo": (0.0, 0.6, 0.75, 0.85),
        "weak_hi": (1.2, 1.35, 1.6, 100.0),
        "sure_lo": (0.0, 0.5, 0.6, 0.7),
        "sure_hi": (1.4, 1.7, 2.0, 100.0),
        "drop_below": (0.0, 0.3, 0.4, 0.5),
        "promote_at": (0.85, 0.9, 0.95, 1.01),
    }
    for field, values in grid.items():
        for v in values:
            cfg = dataclasses.replace(base, **{field: v})
            t, _ = score(fr, lambda im, c=cfg: find_dice_net(im, settings=c), clf, enroller)
            phantoms = t.found - t.matched - t.extra_unsure
            print(
                f"{field}={v}: recall {t.recall:.4f} precision {t.precision:.4f} faces "
                f"{t.faces_right:.4f} "
                f"silent {t.silent_errors:.4f} ({t.face_wrong} wrong, {phantoms} phantoms) "
                f"'?' {t.face_unsure}+{t.hidden_unsure} frames {t.frames_right:.3f}",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--split", choices=tuple(SPLITS), default="held-out")
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument(
        "--finder",
        choices=("judged", "net", "classic", "both"),
        default="judged",
        help="judged: find, cut and read as `vision read` and `vision enroll` do (default); "
        "the others: that finder's finds read by the face model (as before session 34)",
    )
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument(
        "--first", type=int, default=None, help="first frame's seed (default: the split's)"
    )
    args = ap.parse_args(argv)
    styles, first = SPLITS[args.split]
    first = first if args.first is None else args.first
    fr = frames(first, args.frames, styles)
    clf = FaceClassifier()
    if args.sweep:
        sweep(fr, clf)
        return 0
    judged = args.finder == "judged"
    finder = judged_finder(clf) if judged else make_finder(args.finder)
    for f in itertools.islice(fr, 1):
        finder(f.image), clf.read(f.image, [d.corners for d in f.dice[:1]])  # warm up
    print(
        f"{args.split}: {len(fr)} frames 1280x960 (seeds {first}..{first + len(fr) - 1}), finder "
        f"{args.finder}"
    )
    t, ms = score(fr, finder, clf, None, judged)
    print(report("shipped model", t, ms), flush=True)
    enrol_clf = FaceClassifier(default_enrol_model_path())  # profiles read with the enrolment model
    # enrolment frames are cut as `vision enroll` cuts them: by the finder before any profile
    enrol_finder = judged_finder(enrol_clf) if judged else finder
    t, ms = score(fr, finder, enrol_clf, SimulatedEnrolment(enrol_clf, enrol_finder), judged)
    print(report("after enrolment", t, ms), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
