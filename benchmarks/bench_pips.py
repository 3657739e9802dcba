"""Pip dice on real photos: `vision read --dice d6` scored on ../shared/real-dice, and timed.

    python benchmarks/bench_pips.py [--split development|kept-aside|both] [--finder net]
                                    [--failures DIR] [--list] [--limit N] [--rendered N]
                                    [--size 1280x960] [--model PATH]

The photos were never trained on (the pip model learns from renderings
only). Photos whose number N (`dice_N.jpg`, `two_N.jpg`, ...) is divisible
by 4 are KEPT ASIDE: they choose nothing and are reported on their own
(`--split kept-aside`); the others are the development set. A die is matched
when a read center lies within 30 px of its labelled center (the center of
the YOLO box around its top face's pips; class = pips - 1), one to one,
nearest first. Printed per value 1..6: right / `?` / wrong / missed; then
pip values over every labelled die and over the dice found; phantoms (reads
matching no die) and phantoms given a value; timings (median and p95 of a
read, finder and pip model apart), and the machine.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.machine import describe  # noqa: E402
from companion.vision.finders import make_finder  # noqa: E402
from companion.vision.pips import PIP_FACES, PipClassifier  # noqa: E402
from companion.vision.read import UNKNOWN, Reader, load_image  # noqa: E402

REAL = Path(os.environ.get("REAL_DICE", str(REPO.parent / "shared" / "real-dice")))
MATCH_PX = 30.0


def photo_number(path: Path) -> int:
    m = re.search(r"_(\d+)$", path.stem)
    if m is None:
        raise ValueError(f"{path.name} has no photo number")
    return int(m.group(1))


def is_kept_aside(path: Path) -> bool:
    return photo_number(path) % 4 == 0


def photos(split: str, root: Path = REAL) -> list[Path]:
    """The labelled photos of a split, in a fixed order."""
    allp = sorted(p for p in root.glob("*.jpg") if p.with_suffix(".txt").is_file())
    if split == "kept-aside":
        return [p for p in allp if is_kept_aside(p)]
    if split == "development":
        return [p for p in allp if not is_kept_aside(p)]
    return allp


def truth(path: Path, width: int, height: int) -> list[tuple[float, float, int]]:
    """(x, y, pips) of every labelled die, in pixels."""
    out = []
    for line in path.with_suffix(".txt").read_text().splitlines():
        parts = line.split()
        if len(parts) == 5:
            out.append((float(parts[1]) * width, float(parts[2]) * height, int(parts[0]) + 1))
    return out


def match(
    reads: list[tuple[float, float]], dice: list[tuple[float, float, int]], px: float = MATCH_PX
) -> list[tuple[int, int]]:
    """One-to-one (read, die) pairs within px, nearest first."""
    cands = sorted(
        (float(np.hypot(r[0] - d[0], r[1] - d[1])), i, j)
        for i, r in enumerate(reads)
        for j, d in enumerate(dice)
    )
    used_r: set[int] = set()
    used_d: set[int] = set()
    pairs = []
    for dist, i, j in cands:
        if dist <= px and i not in used_r and j not in used_d:
            used_r.add(i)
            used_d.add(j)
            pairs.append((i, j))
    return pairs


@dataclass
class Tally:
    per_value: dict[int, dict[str, int]] = field(
        default_factory=lambda: {
            v: {"right": 0, "?": 0, "wrong": 0, "missed": 0} for v in range(1, 7)
        }
    )
    phantoms: int = 0
    phantoms_valued: int = 0
    photos: int = 0
    photos_all_right: int = 0
    read_ms: list[float] = field(default_factory=list)
    finder_ms: list[float] = field(default_factory=list)
    failures: list[tuple[str, int, str, float, float]] = field(default_factory=list)
    size: str = "640x480"

    def total(self, key: str) -> int:
        return sum(c[key] for c in self.per_value.values())


def score(reader: Reader, paths: list[Path], failures: Path | None = None) -> Tally:
    t = Tally()
    for path in paths:
        image = load_image(path)
        h, w = image.shape[:2]
        start = time.perf_counter()
        found = reader.finder(image)
        mid = time.perf_counter()
        reads = reader.read_found(image, found)
        end = time.perf_counter()
        t.read_ms.append((end - start) * 1000)
        t.finder_ms.append((mid - start) * 1000)
        dice = truth(path, w, h)
        pairs = match([(r.x, r.y) for r in reads], dice)
        matched_d = {j: i for i, j in pairs}
        ok = len(pairs) == len(reads) == len(dice)
        for j, (_x, _y, v) in enumerate(dice):
            if j not in matched_d:
                t.per_value[v]["missed"] += 1
                continue
            face = reads[matched_d[j]].face
            key = "right" if face == str(v) else "?" if face == UNKNOWN else "wrong"
            t.per_value[v][key] += 1
            ok = ok and key == "right"
            if key != "right":
                t.failures.append(
                    (path.name, v, face, reads[matched_d[j]].x, reads[matched_d[j]].y)
                )
        matched_r = {i for i, _ in pairs}
        for i, r in enumerate(reads):
            if i not in matched_r:
                t.phantoms += 1
                t.phantoms_valued += r.face != UNKNOWN
                t.failures.append((path.name, 0, r.face, r.x, r.y))
        t.photos += 1
        t.photos_all_right += ok
        if failures is not None and not ok:
            _draw(image, reads, dice, failures / f"{path.stem}.png")
            wrong = [reads[i] for i, j in pairs if reads[i].face != str(dice[j][2])]
            wrong += [r for i, r in enumerate(reads) if i not in matched_r]
            if wrong:
                _crops(image, wrong, failures / f"{path.stem}_crops.png")
    return t


def _draw(image: np.ndarray, reads: list, dice: list[tuple[float, float, int]], out: Path) -> None:
    import cv2

    img = image.copy()
    for x, y, v in dice:
        cv2.circle(img, (round(x), round(y)), round(MATCH_PX), (0, 200, 0), 1)
        cv2.putText(
            img,
            str(v),
            (round(x) - 30, round(y) - 22),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5,
            (0, 160, 0),
            1,
        )
    for r in reads:
        cv2.polylines(img, [np.round(r.corners).astype(np.int32)], True, (0, 0, 255), 1)
        cv2.putText(
            img,
            f"{r.face} {r.confidence:.2f}",
            (round(r.x) + 8, round(r.y) - 8),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5,
            (0, 0, 255),
            1,
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), img)


def _crops(image: np.ndarray, reads: list, out: Path) -> None:
    """What the pip model saw for each failed read: its crop, twice as large, labelled."""
    import cv2

    from companion.vision.pips import cut_pip_faces

    tiles = []
    for r, crop in zip(reads, cut_pip_faces(image, [r.corners for r in reads]), strict=True):
        tile = cv2.resize(crop, (128, 128), interpolation=cv2.INTER_NEAREST)
        cv2.putText(
            tile,
            f"{r.face} {r.confidence:.2f}",
            (3, 14),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            (0, 0, 255),
            1,
        )
        tiles.append(tile)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), np.hstack(tiles))


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def report(name: str, t: Tally) -> str:
    lines = [
        f"{name}: {t.photos} photos, "
        f"{t.total('right') + t.total('?') + t.total('wrong') + t.total('missed')} dice"
    ]
    lines.append("  value  right    ?  wrong  missed")
    for v, c in t.per_value.items():
        lines.append(f"  {v:>5}  {c['right']:>5}  {c['?']:>3}  {c['wrong']:>5}  {c['missed']:>6}")
    n = sum(t.total(k) for k in ("right", "?", "wrong", "missed"))
    found = n - t.total("missed")
    lines.append(
        f"  all dice: right {_pct(t.total('right'), n)}, ? {_pct(t.total('?'), n)}, "
        f"silent errors {_pct(t.total('wrong'), n)}, missed {_pct(t.total('missed'), n)}"
    )
    lines.append(
        f"  dice found: right {_pct(t.total('right'), found)}, ? {_pct(t.total('?'), found)}, "
        f"silent errors {_pct(t.total('wrong'), found)}"
    )
    reads = found + t.phantoms
    lines.append(
        f"  die centers: recall {_pct(found, n)}, precision {_pct(found, reads)}; "
        f"phantoms {t.phantoms} ({t.phantoms_valued} given a value); "
        f"photos all right {t.photos_all_right}/{t.photos}"
    )
    if t.read_ms:
        p95 = float(np.percentile(t.read_ms, 95))
        lines.append(
            f"  read {statistics.median(t.read_ms):.1f} ms median, {p95:.1f} ms p95 "
            f"(finder {statistics.median(t.finder_ms):.1f} ms median), {t.size}, loading and "
            "decoding excluded"
        )
    return "\n".join(lines)


def score_rendered(reader: Reader, seeds: range, size: tuple[int, int] = (640, 480)) -> Tally:
    """The same figures on rendered frames of the PIP_HELD_OUT sets (never trained on nor calibrated
    on), of the given size."""
    from companion.synth.pip_frame import render_pip_frame
    from companion.synth.pips import PIP_HELD_OUT

    t = Tally(size=f"{size[0]}x{size[1]}")
    for seed in seeds:
        frame = render_pip_frame(seed, styles=PIP_HELD_OUT, n_dice=1 + seed % 8, size=size)
        start = time.perf_counter()
        found = reader.finder(frame.image)
        mid = time.perf_counter()
        reads = reader.read_found(frame.image, found)
        t.read_ms.append((time.perf_counter() - start) * 1000)
        t.finder_ms.append((mid - start) * 1000)
        dice = [(d.center[0], d.center[1], d.value) for d in frame.dice]
        # rendered dice can be 110 px: match within half the die's edge there
        px = 0.5 * float(np.median([d.edge for d in frame.dice])) if frame.dice else MATCH_PX
        pairs = match([(r.x, r.y) for r in reads], dice, px)
        got = {j: reads[i].face for i, j in pairs}
        for j, (_x, _y, v) in enumerate(dice):
            face = got.get(j)
            key = (
                "missed"
                if face is None
                else "right"
                if face == str(v)
                else "?"
                if face == UNKNOWN
                else "wrong"
            )
            t.per_value[v][key] += 1
        t.phantoms += len(reads) - len(pairs)
        t.phantoms_valued += sum(
            1 for i, r in enumerate(reads) if i not in {a for a, _ in pairs} and r.face != UNKNOWN
        )
        t.photos += 1
        t.photos_all_right += len(pairs) == len(reads) == len(dice) and all(
            got[j] == str(v) for j, (_x, _y, v) in enumerate(dice)
        )
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--split", choices=("development", "kept-aside", "both", "none"), default="development"
    )
    ap.add_argument("--finder", default="net", choices=("net", "both", "classic"))
    ap.add_argument("--model", default=None, help="pip model (default: the shipped one)")
    ap.add_argument(
        "--failures",
        type=Path,
        default=None,
        help=(
            "draw the photos with a failure here, and the crops the pip model misread "
            "(NAME_crops.png)"
        ),
    )
    ap.add_argument("--list", action="store_true", help="list every failure")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument(
        "--rendered",
        type=int,
        default=0,
        metavar="N",
        help="also N rendered 640x480 frames of the held-out pip sets (seeds 80000...)",
    )
    ap.add_argument(
        "--size",
        default="640x480",
        help="WxH of the rendered frames (1280x960 times a read at the camera's size)",
    )
    args = ap.parse_args(argv)
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        if len(size) != 2 or min(size) < 64 or max(size) > 4096:
            raise ValueError
    except ValueError:
        print(
            f"bench_pips: --size must be WxH, 64 to 4096 each, not {args.size!r}", file=sys.stderr
        )
        return 2
    if not REAL.is_dir():
        print(f"bench_pips: no real photos at {REAL} (set REAL_DICE)", file=sys.stderr)
        return 2
    reader = Reader(PipClassifier(args.model, threads=2), finder=make_finder(args.finder))
    reader.warm_up()
    reader.read(load_image(photos("development")[0]))  # the finder's own first-run setup
    print(
        f"pip dice, `vision read --dice d6 --finder {args.finder}`, model "
        f"{reader.classifier.path.name}; "
        f"classes {','.join(PIP_FACES)}; match within {MATCH_PX:.0f} px",
        flush=True,
    )
    splits = {"both": ["development", "kept-aside"], "none": []}.get(args.split, [args.split])
    for split in splits:
        paths = photos(split)[: args.limit]
        fail_dir = args.failures / split if args.failures is not None else None
        t = score(reader, paths, fail_dir)
        print(report(f"{split} photos", t), flush=True)
        if args.list:
            for f in t.failures:
                print(
                    f"    {f[0]}: truth {f[1] or 'none'}, read {f[2]} at ({f[3]:.0f}, {f[4]:.0f})"
                )
    if args.rendered:
        print(
            report(
                f"rendered held-out sets, {args.rendered} frames {size[0]}x{size[1]}",
                score_rendered(reader, range(80_000, 80_000 + args.rendered), (size[0], size[1])),
            )
        )
    print(f"machine: {describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
