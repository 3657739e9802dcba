"""Reading after enrolment, end to end: the whole frame, phantoms and missed dice included.

    python benchmarks/bench_enrolled.py [--split validation|held_out] [--sets 24]
        [--frames-per-set 8] [--gap 0.15,off] [--json F] [--further 1024]
        [--first-seed 90000] [--style-seed 80001] [--dies rows.jsonl]
        [--streak] [--blur-gate on|off] [--enrol-jitter 1.5 --jitter-seed 1]

bench_families.py reads only the dice the finder found cleanly; this reads
every frame as `companion vision read --profile` does (the learned finder's
candidates judged by the profile's reading), so a printed marker or a grid
square the finder takes for a die counts against precision, as it does for
foreign-art's score.py. Each set of dice (a drawing-family style of
companion.synth.families, VALIDATION unless told) is enrolled as a table
would (two frames per motif, companion.evaluation.enrol_sim), then read on
frames of 3-29 dice: every other frame on printed squares (grid paper,
tiles, markers, score sheets), every other pair with small dice (edge 32-60
px). `--gap` sets enroll.FOREIGN_GAP (a find that far below the profile's
distance limit, and that the shipped model gives some chance of being no
die, is dropped as no die of this table); "off" reads every such find `?`,
as before. The held-out split is for reporting only. `--streak` smears
each frame after rendering along a line of synth.streak.STREAKS[k] of its
median die edge (k counts the frames, 0 to 0.45 of an edge; at a random
angle): the blur gate's measure (`--blur-gate on|off`, JudgeSettings.blur_gate;
off unless told). With `--dies`, each row holds its frame's streak.
`--enrol-jitter J` moves each corner of every enrolment die by up to J pixels (uniform,
seeded by `--jitter-seed`) before it is cut: how much the figures move with nothing but the
profile's enrolment cuts, the noise a rule's gates must stand above (docs/vision.md, session
40: 1.5 px took the shipped reader's silent errors on one fresh set from 3 to 5 and 6).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.machine import describe  # noqa: E402
from companion.evaluation.enrol_sim import Finder, SimulatedEnrolment  # noqa: E402
from companion.evaluation.scoring import Tally, match_points, outside_frame, tally_frame  # noqa: E402
from companion.synth import render_frame  # noqa: E402
from companion.synth.family_sets import family_styles  # noqa: E402
from companion.synth.frame import RenderedFrame  # noqa: E402
from companion.synth.streak import STREAKS, streaked  # noqa: E402
from companion.synth.styles import Style  # noqa: E402
from companion.vision import enroll  # noqa: E402
from companion.vision.found import FoundDie  # noqa: E402
from companion.vision.judged import JudgeSettings, judged_finder  # noqa: E402
from companion.vision.read import DieReading, Reader  # noqa: E402

FIRST_SEED = 90_000  # away from bench_families.py's reading frames (81_000..)


def jittered(finder: Finder, jitter: float, seed: int) -> Finder:
    """``finder`` with each die's corners moved by up to ``jitter`` pixels along each axis
    (uniform; one generator for the whole run, so a run is reproduced by its seed)."""
    rng = np.random.default_rng(seed)

    def find(image: np.ndarray) -> list[FoundDie]:
        return [
            replace(
                d, corners=(d.corners + rng.uniform(-jitter, jitter, (4, 2))).astype(np.float32)
            )
            for d in finder(image)
        ]

    return find


def reading_frame(i: int, j: int, style: Style, first: int = FIRST_SEED) -> RenderedFrame:
    """Set i's reading frame j."""
    kw: dict[str, object] = {}
    if j % 2 == 0:
        kw["surface_kind"] = "squares"
    if j % 4 < 2:
        kw["edge_range"] = (32.0, 60.0)
    n = int(np.random.default_rng(i * 10 + j).integers(3, 30))
    return render_frame(first + i * 10 + j, n_dice=n, styles=[style], **kw)  # type: ignore[arg-type, list-item]


def read_sets(
    reader: Reader,
    enrol: SimulatedEnrolment,
    styles: Sequence[Style],
    frames_per_set: int,
    first: int,
    gaps: list[str],
    tallies: dict[str, Tally],
    times: dict[str, list[float]],
    dies: list[dict[str, object]] | None = None,
    streak: bool = False,
) -> None:
    """Enrol each set, read its frames once per gap, and add them to the tallies (and, with
    ``dies``, one row a true die: its edge, face and what each gap read, to compare two runs
    die by die)."""
    clf = reader.classifier
    for i, style in enumerate(styles):
        clf.profile = None  # type: ignore[attr-defined]  # enrolment finds before any profile
        clf.profile = enrol.profile([style.name])  # type: ignore[attr-defined]
        for j in range(frames_per_set):
            f = reading_frame(i, j, style, first)
            share = 0.0
            if streak:
                f, share = streaked_frame(f, i * frames_per_set + j, first)
            h, w = f.image.shape[:2]
            regions = [np.asarray(d.corners) for d in f.dice]
            hidden = [outside_frame(d.corners, w, h) for d in f.dice]
            for g in gaps:
                enroll.FOREIGN_GAP = 1e9 if g == "off" else float(g)
                start = time.perf_counter()
                got = reader.read(f.image)
                times[g].append((time.perf_counter() - start) * 1000)
                tally_frame(
                    tallies[g],
                    [(d.x, d.y, d.face) for d in got],
                    regions,
                    [d.face for d in f.dice],
                    hidden=hidden,
                )
                if dies is not None:
                    dies += [
                        dict(r, streak=share) for r in die_rows(i, j, f, got, regions, hidden, g)
                    ]
    clf.profile = None  # type: ignore[attr-defined]


def mean_edge(corners: np.ndarray) -> float:
    """The mean side of a die's top face (4, 2), in frame pixels."""
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))


def streaked_frame(f: RenderedFrame, k: int, first: int) -> tuple[RenderedFrame, float]:
    """Frame k smeared along STREAKS[k % len(STREAKS)] of its median die edge, at an angle
    drawn from its number; and that share."""
    share = STREAKS[k % len(STREAKS)]
    edges = [mean_edge(np.asarray(d.corners, np.float64)) for d in f.dice]
    unit = float(np.median(edges)) if edges else 60.0
    angle = float(np.random.default_rng(first + 7 * k).uniform(0.0, 180.0))
    return replace(f, image=streaked(f.image, share * unit, angle)), share


def die_rows(
    i: int,
    j: int,
    f: RenderedFrame,
    got: Sequence[DieReading],
    regions: list[np.ndarray],
    hidden: list[bool],
    gap: str,
) -> list[dict[str, object]]:
    """One row a true die of set i's frame j: its mean edge, face and the face read (None: not
    found) with its confidence."""
    read = {k: got[m] for m, k in match_points([(d.x, d.y) for d in got], regions)}
    rows: list[dict[str, object]] = []
    for k, (d, q) in enumerate(zip(f.dice, regions, strict=True)):
        r = read.get(k)
        edge = mean_edge(q)
        rows.append(
            {
                "set": i,
                "frame": j,
                "die": k,
                "gap": gap,
                "edge": round(edge, 1),
                "face": d.face,
                "hidden": hidden[k],
                "read": None if r is None else r.face,
                "confidence": None if r is None else round(r.confidence, 3),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--split", default="validation", choices=("validation", "held_out"))
    ap.add_argument("--sets", type=int, default=24)
    ap.add_argument("--frames-per-set", type=int, default=8)
    ap.add_argument("--gap", default=f"{enroll.FOREIGN_GAP},off")
    ap.add_argument("--json", default=None)
    ap.add_argument("--dies", default=None, help="write one JSON row a true die to this file")
    ap.add_argument("--first-seed", type=int, default=FIRST_SEED, help="fresh frames: 190000")
    ap.add_argument("--style-seed", type=int, default=None, help="fresh sets: 180001")
    ap.add_argument(
        "--further",
        type=int,
        default=JudgeSettings().further,
        help="JudgeSettings.further (0: none)",
    )
    ap.add_argument("--streak", action="store_true", help="smear each frame (synth.streak)")
    ap.add_argument(
        "--blur-gate",
        default="on" if JudgeSettings().blur_gate else "off",
        choices=("on", "off"),
        help="JudgeSettings.blur_gate",
    )
    ap.add_argument(
        "--enrol-jitter", type=float, default=0.0, help="px each enrolment corner moves at most"
    )
    ap.add_argument("--jitter-seed", type=int, default=1)
    args = ap.parse_args(argv)
    t0 = time.time()
    reader = Reader.load(finder="net")
    reader.judge = judge = JudgeSettings(further=args.further, blur_gate=args.blur_gate == "on")
    clf = reader.classifier
    # the enrolment frames found as `vision enroll` finds them (judged by the face model)
    finder: Finder = judged_finder(clf, judge)  # type: ignore[arg-type]
    if args.enrol_jitter > 0:
        finder = jittered(finder, args.enrol_jitter, args.jitter_seed)
    enrol = SimulatedEnrolment(clf, finder)  # type: ignore[arg-type]
    style_seed = 80_000 + (0 if args.split == "held_out" else 1)
    styles = family_styles(args.split, args.sets, args.style_seed or style_seed)
    enrol.add_styles(styles)
    gaps = args.gap.split(",")
    tallies = {g: Tally() for g in gaps}
    times: dict[str, list[float]] = {g: [] for g in gaps}
    shipped_gap = enroll.FOREIGN_GAP
    dies: list[dict[str, object]] | None = [] if args.dies else None
    try:
        read_sets(
            reader,
            enrol,
            styles,
            args.frames_per_set,
            args.first_seed,
            gaps,
            tallies,
            times,
            dies,
            args.streak,
        )
    finally:
        enroll.FOREIGN_GAP = shipped_gap

    print(
        f"{args.split} drawing families after enrolment, {len(styles)} sets x "
        f"{args.frames_per_set} frames{', streaked' if args.streak else ''}; "
        f"blur gate {args.blur_gate}; {describe()}; {time.time() - t0:.0f} s"
    )
    report: dict[str, object] = {"split": args.split, "sets": len(styles)}
    for g in gaps:
        t = tallies[g]
        phantoms = t.found - t.matched
        print(
            f"  gap {g}: {t.summary()}; phantoms {phantoms} ({t.extra_unsure} read ?); "
            f"median {np.median(times[g]):.1f} ms"
        )
        report[g] = {
            "recall": t.recall,
            "precision": t.precision,
            "faces_right": t.faces_right,
            "silent_errors": t.silent_errors,
            "unsure": t.face_unsure,
            "phantoms": phantoms,
            "frames_all_right": t.frames_right,
            "dice": t.true_dice,
            "frames": t.frames,
        }
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    if args.dies and dies is not None:
        Path(args.dies).write_text("".join(json.dumps(r) + "\n" for r in dies))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
