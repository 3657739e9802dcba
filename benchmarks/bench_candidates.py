"""Finder candidates judged by the face model (judged.py) against the finder's own choice.

    python benchmarks/bench_candidates.py [--frames 40] [--photos 235] [--split dev]
        [--floor 0.15] [--weak 64] [--most 128] [--sure-die 0.05] [--doubt 0.5]
        [--far-lo 0.5] [--further 1024] [--recut 0,1.15]
        [--sets squares,families,small,plain,photos] [--first 71000]

Reads DEVELOPMENT data only unless told: rendered frames of VALIDATION styles and
validation drawing families (seeds 71000.. or --first, 1280x960), on printed squares (grid paper,
tiles, markers: synth/squares.py) with small dice (edge 32-60 px) in every other frame,
on ordinary tables, and the real development photos of ../shared/real-dice (pip dice,
motif mode). For the report only: ``--split kept`` (the photos kept aside) and
``--sets held-out,held-out-families`` (seeds 5000.. and 95000.., never tuned on).
Each comma-separated value of the settings (judged.JudgeSettings) is one; every
setting reads the same frames, and "finder" is the path without judging (the
shipped face model drops what it is sure is no die after the finder has chosen).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from itertools import product
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks import real_dice  # noqa: E402
from companion.evaluation.scoring import Tally, outside_frame, tally_frame  # noqa: E402
from companion.synth import HELD_OUT, VALIDATION, render_frame  # noqa: E402
from companion.synth.family_sets import family_styles  # noqa: E402
from companion.synth.frame import RenderedFrame  # noqa: E402
from companion.vision.image_file import load_image  # noqa: E402
from companion.vision.judged import JudgeSettings  # noqa: E402
from companion.vision.read import Reader  # noqa: E402

_T = np.linspace(0, 2 * np.pi, 32, endpoint=False)
RING = real_dice.MATCH_PX * np.stack([np.cos(_T), np.sin(_T)], axis=1)
Frame = tuple[np.ndarray, list[np.ndarray], list[str] | None, list[bool] | None]


def rendered(kind: str, n: int, first: int = 71_000) -> Iterator[Frame]:
    styles = family_styles("validation", 100, 71) if kind == "families" else VALIDATION
    if kind == "held-out":  # docs/vision.md's held-out frames: for reporting only
        styles, first = HELD_OUT, 5000
    elif kind == "held-out-families":  # bench_not_die.py's: for reporting only
        styles, first = family_styles("held_out", 100, 95), 95_000
    for seed in range(first, first + n):
        kw: dict[str, object] = {}
        if kind in ("squares", "families"):
            kw["surface_kind"] = "squares"
        if kind in ("squares", "families", "small") and seed % 2 == 0:
            kw["edge_range"] = (32.0, 60.0)
        yield truth_of(render_frame(seed, size=(1280, 960), styles=styles, **kw))  # type: ignore[arg-type]


def truth_of(f: RenderedFrame) -> Frame:
    """A rendered frame with its dice's corners, faces and which lie half outside it."""
    h, w = f.image.shape[:2]
    return (
        f.image,
        [np.asarray(d.corners) for d in f.dice],
        [d.face for d in f.dice],
        [outside_frame(d.corners, w, h) for d in f.dice],
    )


def photos(split: str, n: int) -> Iterator[Frame]:
    for ph in real_dice.load(split=split)[:n]:
        # a true die's region: the 30 px match radius around its center (a 32-gon)
        regions = [np.asarray(c) + RING for c in ph.centers]
        yield load_image(str(ph.path)), regions, None, None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--frames", type=int, default=40, help="rendered frames of each set")
    ap.add_argument(
        "--first",
        type=int,
        default=71_000,
        help="seed of the first development frame (fresh: 173000)",
    )
    ap.add_argument("--photos", type=int, default=235)
    ap.add_argument("--split", default="dev", choices=("dev", "kept"), help="real photos")
    ap.add_argument("--sets", default="squares,families,small,plain,photos")
    ap.add_argument("--floor", default="0.15")
    ap.add_argument("--weak", default="64")
    ap.add_argument("--most", default="128")
    ap.add_argument("--sure-die", default="0.05")
    ap.add_argument("--doubt", default="0.5")
    ap.add_argument("--profile", default=None)
    ap.add_argument("--far-lo", default="0.5", help="sure finds under it x the dice dropped")
    ap.add_argument(
        "--further",
        default=str(JudgeSettings().further),
        help="input px of one look more (0: none)",
    )
    ap.add_argument("--recut", default="0", help="JudgeSettings.recut (0: never)")
    args = ap.parse_args(argv)
    reader = Reader.load(profile=args.profile)
    values = (
        args.floor,
        args.weak,
        args.most,
        args.sure_die,
        args.doubt,
        args.far_lo,
        args.further,
        args.recut,
    )
    settings = [
        JudgeSettings(
            float(f),
            int(k),
            int(m),
            float(s),
            float(d),
            far_lo=float(lo),
            further=int(fu),
            recut=float(rc),
        )
        for f, k, m, s, d, lo, fu, rc in product(*(v.split(",") for v in values))
    ]
    ways: list[tuple[str, JudgeSettings | None]] = [("finder", None)]
    ways += [(f"judged {s}", s) for s in settings]
    sources: dict[str, Callable[[], Iterator[Frame]]] = {
        "squares": lambda: rendered("squares", args.frames, args.first),
        "families": lambda: rendered("families", args.frames, args.first),
        "small": lambda: rendered("small", args.frames, args.first),
        "plain": lambda: rendered("plain", args.frames, args.first),
        "held-out": lambda: rendered("held-out", args.frames),
        "held-out-families": lambda: rendered("held-out-families", args.frames),
        "photos": lambda: photos(args.split, args.photos),
    }
    for name in args.sets.split(","):
        tallies = {w: Tally() for w, _ in ways}
        times: dict[str, list[float]] = {w: [] for w, _ in ways}
        for image, regions, faces, hidden in sources[name]():
            for w, s in ways:
                reader.judge = s
                start = time.perf_counter()
                got = reader.read(image)
                times[w].append((time.perf_counter() - start) * 1000)
                tally_frame(
                    tallies[w], [(d.x, d.y, d.face) for d in got], regions, faces, hidden=hidden
                )
        print(f"== {name}" + (f" ({args.split} photos, motif mode)" if name == "photos" else ""))
        for w, _ in ways:
            print(f"  {w}: {tallies[w].summary()}; median {np.median(times[w]):.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
