"""Learned die finder against the classical one, on the same frames.

    python benchmarks/bench_detect_net.py [--frames 200] [--first 5000] [--real] [--time] [--sweep]

Held-out styles (seeds first..first+frames-1 at 1280x960): detection figures
(a match is a found center inside the true top face, scoring.py) and the
end-to-end faces with the shipped face classifier on each finder's corners
(a die with clean=False is read '?'; for a die partly outside the frame '?'
is right, VISION.md's "half hidden"). bench_read.py adds enrolment.
``--sweep`` picks the peak threshold on VALIDATION-style frames; ``--real``
scores centers on ../shared/real-dice (kept-aside and development photos
apart, a match within 30 px: benchmarks/real_dice.py);
``--time`` times both finders at 1280x960 and 2304x1296 (``--threads``);
``--against REV`` times the net finder against its code at git revision REV, in
turns on the same frames, and counts runs whose finds differ; ``--closeups N`` scores
96x96 frames of one die (issue 13 item 5). ``--foreign`` scores the finder alone on
../shared/foreign-art (frames of test/, matched as its score.py does; close-ups of
crops/): evaluation only, never for choosing anything. ``--squares N`` counts finds
on N held-out frames of printed squares (grid paper, tiles, markers) without dice.
``--families SPLIT [--judged]`` counts the dice found clean on drawing-family sets' frames,
by the plain finder or (``--judged``) as `vision read` finds motif dice.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import cast

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks import real_dice  # noqa: E402
from companion.evaluation.scoring import (  # noqa: E402
    Tally,
    match_points,
    outside_frame,
    tally_frame,
)
from companion.synth import HELD_OUT, render_frame  # noqa: E402
from companion.synth.family_sets import BENCH_SPLITS, bench_styles  # noqa: E402
from companion.synth.frame import RenderedFrame  # noqa: E402
from companion.synth.styles import VALIDATION, Style  # noqa: E402
from companion.vision.detect import find_dice  # noqa: E402
from companion.vision.detect_both import find_dice_both  # noqa: E402
from companion.vision.detect_net import find_dice_net  # noqa: E402
from companion.vision.found import FoundDie  # noqa: E402

Finder = Callable[[np.ndarray], list[FoundDie]]


def read_image(path: Path) -> np.ndarray:
    """A frame of the foreign-art set; a file OpenCV cannot read stops the benchmark."""
    import cv2

    img = cv2.imread(str(path))
    if img is None:
        raise SystemExit(f"{path} is not an image OpenCV can read")
    return img


def frames(
    first: int, n: int, styles: Sequence[Style], size: tuple[int, int] = (1280, 960)
) -> list[RenderedFrame]:
    """Rendered frames, cached under $BENCH_CACHE (if set) so repeated runs see the same pixels."""
    cache_dir = os.environ.get("BENCH_CACHE")
    key = f"{first}-{n}-{styles[0].name}-{len(styles)}-{size[0]}x{size[1]}.pkl".replace("/", "_")
    if cache_dir and (Path(cache_dir) / key).exists():
        with open(Path(cache_dir) / key, "rb") as fh:
            cached: list[RenderedFrame] = pickle.load(fh)
            return cached
    out = [render_frame(first + i, size=size, styles=styles) for i in range(n)]
    if cache_dir:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        with open(Path(cache_dir) / key, "wb") as fh:
            pickle.dump(out, fh)
    return out


def evaluate(
    finder: Finder, fr: Sequence[RenderedFrame], clf: object | None
) -> tuple[Tally, list[float]]:
    tally = Tally()
    times = []
    for f in fr:
        t0 = time.perf_counter()
        found = finder(f.image)
        times.append((time.perf_counter() - t0) * 1000)
        if clf is not None and found:
            reads = clf.read(f.image, [d.corners for d in found])  # type: ignore[attr-defined]
            faces = [r.face if d.clean else "?" for r, d in zip(reads, found, strict=True)]
        else:
            faces = ["?" if not d.clean else "x" for d in found]
        got = [(d.center[0], d.center[1], fc) for d, fc in zip(found, faces, strict=True)]
        h, w = f.image.shape[:2]
        tally_frame(
            tally,
            got,
            [d.corners for d in f.dice],
            [d.face for d in f.dice] if clf is not None else None,
            [d.corners for d in found],
            [outside_frame(d.corners, w, h) for d in f.dice],
        )
    return tally, times


def real_photos(finder: Finder, split: str) -> real_dice.Score:
    """Centers on the real photos of ``split`` (kept / dev), matched within 30 px
    (benchmarks/real_dice.py)."""
    return real_dice.score(
        real_dice.load(split=split),
        lambda img: [(d.center[0], d.center[1], d.clean) for d in finder(img)],
    )


def sweep(n: int) -> None:
    """Threshold choice on VALIDATION styles: figures per (main, low) threshold."""
    fr = frames(7000, n, VALIDATION)
    for thr in (0.4, 0.45, 0.5, 0.55, 0.6):
        for low in (0.2, 0.3, 0.4, thr):
            t, _ = evaluate(partial(find_dice_net, threshold=thr, low=low), fr, None)
            clean_phantom = t.found - t.matched - t.extra_unsure
            print(
                f"thr {thr:.2f} low {low:.3f}: recall {t.recall:.4f} precision {t.precision:.4f} "
                f"frames right {t.frames_right:.3f} phantoms given a face {clean_phantom} "
                f"phantoms '?' {t.extra_unsure}",
                flush=True,
            )


def closeups(n: int) -> None:
    """Close-ups of one die (96x96, edge 48-65 px, held-out styles): found, found clean; and with
    the die's center 40 px off the frame's center (its face partly outside), how often it is read
    clean."""
    from companion.synth.closeup import render_closeup

    for offset, what in ((0.0, "centered"), (40.0, "partly outside the frame")):
        found = clean = extra = 0
        ms = []
        for seed in range(n):
            f = render_closeup(10_000 + seed, styles=HELD_OUT, offset=offset)
            t0 = time.perf_counter()
            got = find_dice_net(f.image)
            ms.append((time.perf_counter() - t0) * 1000)
            x, y = f.dice[0].center
            near = [d for d in got if (d.center[0] - x) ** 2 + (d.center[1] - y) ** 2 <= 30**2]
            found += bool(near)
            clean += bool(near) and near[0].clean
            extra += len(got) - bool(near)
        print(
            f"close-ups, die {what}: {n} frames: die found {found / n:.4f}, found and read clean "
            f"{clean / n:.4f}, other finds {extra} (neighbours cut by the border included), "
            f"median {statistics.median(ms):.1f} ms",
            flush=True,
        )


FOREIGN = Path(__file__).resolve().parents[1].parent / "shared" / "foreign-art"


def foreign(finder: Finder, verbose: bool) -> None:
    """The finder alone on foreign-art (test/ frames, crops/ close-ups), matched as its score.py
    does."""
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("foreign_score", FOREIGN / "score.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"{FOREIGN / 'score.py'} cannot be loaded")
    score = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(score)
    for set_dir in sorted((FOREIGN / "test").iterdir()):
        truth = [
            json.loads(line)
            for line in (set_dir / "truth.jsonl").read_text().splitlines()
            if line.strip()
        ]
        n_true = n_pred = n_match = n_clean_phantom = 0
        per_frame = []
        for t in truth:
            found = finder(read_image(set_dir / t["image"]))
            preds = [{"x": d.center[0], "y": d.center[1]} for d in found]
            pairs = score.match(t["dice"], preds)
            matched = {j for _, j in pairs}
            phantoms = [d for j, d in enumerate(found) if j not in matched]
            n_true, n_pred, n_match = (
                n_true + len(t["dice"]),
                n_pred + len(preds),
                n_match + len(pairs),
            )
            n_clean_phantom += sum(d.clean for d in phantoms)
            per_frame.append((t["image"], len(t["dice"]) - len(pairs), len(phantoms)))
        print(
            f"foreign {set_dir.name}, {len(truth)} frames: recall {n_match / max(n_true, 1):.4f} "
            f"precision {n_match / max(n_pred, 1):.4f} ({n_true} dice, {n_pred} finds, {n_match} "
            "matched, "
            f"{n_pred - n_match} phantoms of which {n_clean_phantom} clean)",
            flush=True,
        )
        if verbose:
            for name, missed, extra in per_frame:
                if missed or extra:
                    print(f"  {name}: missed {missed}, phantoms {extra}")
    for set_dir in sorted((FOREIGN / "crops").iterdir()):
        paths = sorted(set_dir.glob("*/*.png"))
        found_n = clean_n = extra = 0
        for p in paths:
            img = read_image(p)
            h, w = img.shape[:2]
            got = finder(img)
            near = [
                d
                for d in got
                if np.hypot(d.center[0] - w / 2, d.center[1] - h / 2) <= 0.25 * min(h, w)
            ]
            found_n += bool(near)
            clean_n += bool(near) and near[0].clean
            extra += len(got) - bool(near)
        print(
            f"foreign close-ups {set_dir.name}, {len(paths)}: die found {found_n}, found clean "
            f"{clean_n}, "
            f"other finds {extra}",
            flush=True,
        )


def squares(n: int, finder: Finder) -> None:
    """Held-out frames (seeds 95000...) of printed squares with no dice: every find is a phantom."""
    from companion.synth.table import SQUARE_SURFACE

    finds = clean = empty = 0
    for i in range(n):
        f = render_frame(95_000 + i, n_dice=0, styles=HELD_OUT, surface_kind=SQUARE_SURFACE)
        got = finder(f.image)
        finds, clean, empty = finds + len(got), clean + sum(d.clean for d in got), empty + (not got)
    print(
        f"square tables without dice, {n} frames: {empty} with no find, {finds} finds ({clean} "
        "clean)",
        flush=True,
    )


def families(split: str, sets: int, finder: Finder) -> None:
    """Drawing-family sets (bench_families.py's): each set's enrolment frames (12 dice of one
    motif, two a motif: companion.evaluation.enrol_sim) and 4 frames of 20 dice; clean finds
    against the truth."""
    from companion.evaluation.enrol_sim import FRAMES_PER_MOTIF, enrolment_seed
    from companion.synth.frame import FACES

    styles = bench_styles(split, sets)
    n = found = phantoms = unclean = right = count = 0
    # Found clean per kind of body: the TRAIN styles the finder learnt from hold no marbled one.
    by_body: dict[str, list[int]] = {}
    for i, style in enumerate(styles):
        body = (
            "marbled" if style.body.marble else "translucent" if style.body.translucent else "plain"
        )
        tally = by_body.setdefault(body, [0, 0])
        fr = [
            render_frame(
                enrolment_seed(style.name) + 10 * j + k, n_dice=12, styles=[style], faces=[face]
            )
            for k, face in enumerate(FACES)
            for j in range(FRAMES_PER_MOTIF)
        ]
        fr += [render_frame(81_000 + i * 10 + j, n_dice=20, styles=[style]) for j in range(4)]
        for f in fr:
            got = finder(f.image)
            clean = [d for d in got if d.clean]
            pairs = match_points([d.center for d in clean], [d.corners for d in f.dice])
            n, found, count = n + len(f.dice), found + len(pairs), count + 1
            tally[0], tally[1] = tally[0] + len(pairs), tally[1] + len(f.dice)
            phantoms += len(clean) - len(pairs)
            unclean += len(got) - len(clean)
            right += len(pairs) == len(f.dice) == len(clean)
    print(
        f"{split} drawing families, {sets} sets, {count} frames (enrolment and reading), {n} dice: "
        f"found clean {found} ({100 * found / max(n, 1):.2f} %), clean phantoms {phantoms}, "
        f"unclean finds {unclean}, frames with every die found clean and nothing else "
        f"{right}/{count}",
        flush=True,
    )
    print(
        "  found clean by body: "
        + ", ".join(
            f"{k} {a}/{b} ({100 * a / max(b, 1):.2f} %)" for k, (a, b) in sorted(by_body.items())
        ),
        flush=True,
    )


def timing(n: int, threads: int, classical: bool) -> None:
    """Median and p95 of each finder, 3 runs of each of n frames of 20 dice (held-out styles)."""
    for size in ((1280, 960), (2304, 1296)):
        fr = frames(90_000, n, HELD_OUT, size)
        named: list[tuple[str, Finder]] = [
            (f"net ({threads} thread{'s' if threads > 1 else ''})", _net(threads))
        ]
        if classical:
            named.append(("classical", find_dice))
        for name, fn in named:
            fn(fr[0].image)
            ts = []
            tally = Tally()
            for f in fr:
                for _ in range(3):
                    t0 = time.perf_counter()
                    found = fn(f.image)
                    ts.append((time.perf_counter() - t0) * 1000)
                tally_frame(
                    tally,
                    [(d.center[0], d.center[1], "x" if d.clean else "?") for d in found],
                    [d.corners for d in f.dice],
                    None,
                    [d.corners for d in found],
                )
            print(
                f"{size[0]}x{size[1]} {name}: median {statistics.median(ts):.1f} ms, "
                f"p95 {float(np.percentile(ts, 95)):.1f} ms; {tally.summary()}",
                flush=True,
            )


def _net(threads: int, module: types.ModuleType | None = None) -> Finder:
    m = module or sys.modules[find_dice_net.__module__]
    sess = m.load_session(threads=threads)
    return lambda image: cast(list[FoundDie], m.find_dice_net(image, session=sess))


def _module_at(rev: str) -> types.ModuleType:
    """companion/vision/detect_net.py as it was at git revision ``rev``, loaded beside today's."""
    root = Path(__file__).resolve().parents[1]
    src = subprocess.run(
        ["git", "-C", str(root), "show", f"{rev}:companion/vision/detect_net.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    name = f"detect_net_at_{rev}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(src, f"{rev}:detect_net.py", "exec"), module.__dict__)
    return module


def against(rev: str, n: int, threads: int) -> None:
    """This finder and the one at git revision ``rev``, timed in turns on the same frames (on a
    shared machine the load changes from second to second; taking turns lets both see the same
    load), and whether their finds are the same to the bit."""
    old, new = _net(threads, _module_at(rev)), _net(threads)
    for size in ((1280, 960), (2304, 1296)):
        fr = frames(90_000, n, HELD_OUT, size)
        old(fr[0].image), new(fr[0].image)
        ts: dict[str, list[float]] = {"old": [], "new": []}
        differ = 0
        for rep in range(5):
            for f in fr:
                runs = (("old", old), ("new", new)) if rep % 2 else (("new", new), ("old", old))
                got = {}
                for name, fn in runs:
                    t0 = time.perf_counter()
                    got[name] = fn(f.image)
                    ts[name].append((time.perf_counter() - t0) * 1000)
                differ += not _same_finds(got["old"], got["new"])
        print(
            f"{size[0]}x{size[1]}, {threads} thread(s), {len(ts['new'])} runs each: "
            f"at {rev} median {statistics.median(ts['old']):.1f} ms, now "
            f"{statistics.median(ts['new']):.1f} ms; runs whose finds differ: {differ}",
            flush=True,
        )


def _same_finds(a: list[FoundDie], b: list[FoundDie]) -> bool:
    return len(a) == len(b) and all(
        (x.center, x.edge, x.clean, x.reason, x.sized, x.size_doubt)
        == (y.center, y.edge, y.clean, y.reason, y.sized, y.size_doubt)
        and np.array_equal(x.corners, y.corners)
        for x, y in zip(a, b, strict=True)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument(
        "--frames", type=int, default=0, help="frames to score (200) or, with --time, to time (10)"
    )
    ap.add_argument("--first", type=int, default=5000)
    ap.add_argument("--no-classical", action="store_true")
    ap.add_argument("--real", action="store_true")
    ap.add_argument(
        "--split", choices=("kept", "dev", "all"), default="all", help="with --real: which photos"
    )
    ap.add_argument(
        "--finders", default="", help="with --real: comma-separated finders (default all)"
    )
    ap.add_argument(
        "--verbose", action="store_true", help="with --real: list every miss and phantom"
    )
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--threads", type=int, default=2, help="with --time/--against: the net's")
    ap.add_argument(
        "--against",
        metavar="REV",
        default="",
        help="time the net finder against its detect_net.py at git revision REV, in turns",
    )
    ap.add_argument("--sweep", type=int, default=0, metavar="N")
    ap.add_argument("--closeups", type=int, default=0, metavar="N", help="N close-ups of one die")
    ap.add_argument(
        "--foreign", action="store_true", help="the finder alone on ../shared/foreign-art"
    )
    ap.add_argument(
        "--squares", type=int, default=0, metavar="N", help="N frames of printed squares, no dice"
    )
    ap.add_argument(
        "--families",
        choices=BENCH_SPLITS,
        default="",
        help="drawing-family sets' enrolment and reading frames (with --sets)",
    )
    ap.add_argument("--sets", type=int, default=24, help="with --families")
    ap.add_argument(
        "--judged",
        action="store_true",
        help="with --families: find as `vision read` does on motif dice, the finder's "
        "candidates judged by the shipped face model (judged.py), without a profile",
    )
    args = ap.parse_args(argv)
    if args.families:
        finder: Finder = find_dice_net
        if args.judged:
            from companion.vision.classify import FaceClassifier
            from companion.vision.judged import judged_finder

            finder = judged_finder(FaceClassifier())
        families(args.families, args.sets, finder)
        return 0
    if args.foreign:
        foreign(find_dice_net, args.verbose)
        return 0
    if args.squares:
        squares(args.squares, find_dice_net)
        return 0
    if args.sweep:
        sweep(args.sweep)
        return 0
    if args.closeups:
        closeups(args.closeups)
        return 0
    if args.against:
        against(args.against, args.frames or 10, args.threads)
        return 0
    if args.time:
        timing(args.frames or 10, args.threads, not args.no_classical)
        return 0
    if args.real:
        named: list[tuple[str, Finder]] = [("net", find_dice_net), ("both", find_dice_both)]
        if not args.no_classical:
            named.append(("classic", find_dice))
        for split, what in (
            ("kept", "KEPT-ASIDE photos (N % 4 == 0)"),
            ("dev", "development photos"),
        ):
            if args.split not in (split, "all"):
                continue
            for name, fn in named:
                if args.finders and name not in args.finders.split(","):
                    continue
                t0 = time.perf_counter()
                sc = real_photos(fn, split)
                ms = (time.perf_counter() - t0) * 1000 / max(sc.photos, 1)
                print(
                    f"real photos, {what}, {name}: {sc.summary()}; {ms:.1f} ms a photo", flush=True
                )
                if args.verbose:
                    for m in sc.misses:
                        print(f"  missed {m[0]} ({m[1]:.0f}, {m[2]:.0f})")
                    for ph in sc.phantoms:
                        print(
                            f"  phantom {ph[0]} ({ph[1]:.0f}, {ph[2]:.0f}) "
                            f"{'clean' if ph[3] else '?'}"
                        )
        return 0
    from companion.vision.classify import FaceClassifier

    clf = FaceClassifier()
    fr = frames(args.first, args.frames or 200, HELD_OUT)
    finders: list[tuple[str, Finder]] = [("net", find_dice_net), ("both", find_dice_both)]
    if not args.no_classical:
        finders.append(("classical", find_dice))
    for name, fn in finders:
        t, find_ms = evaluate(fn, fr, clf)
        phantoms = t.found - t.matched - t.extra_unsure
        print(
            f"{name}: {t.summary()}\n  found {t.found}, matched {t.matched}, wrong faces "
            f"{t.face_wrong}, "
            f"phantoms given a face {phantoms}, phantoms '?' {t.extra_unsure}, "
            f"median find {statistics.median(find_ms):.1f} ms",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
