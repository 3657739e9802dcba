"""Draw what the reader saw on a photo: each die's top face, its face or `?`, and against a truth,
the misses.

    python -m companion.evaluation.draw IMAGE... --out DIR [--finder net|both|classic] [--profile P]

writes DIR/NAME.png for each image. A read die is outlined in green with its
face and confidence, a doubtful one (`?`) in orange with the finder's reason.
When a YOLO label file (``IMAGE.txt``: class, x, y, w, h relative, as in
../shared/real-dice) or a ``truth.jsonl`` with a line for the image (as in
../shared/foreign-art) lies beside it, true centers are marked: a die
found within 30 px gets a small white dot, a missed die a red ring and
"missed", and a find near no true die is drawn in red, "no die".
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.read import UNKNOWN, DieReading

MATCH_PX = 30.0
GREEN, ORANGE, RED, WHITE = (60, 200, 60), (0, 150, 255), (40, 40, 230), (255, 255, 255)
ImageBGR = npt.NDArray[np.uint8]


def yolo_centers(label: Path, width: int, height: int) -> list[tuple[float, float]]:
    """Box centers in pixels from a YOLO label file; lines that are not five numbers are skipped."""
    out = []
    for line in label.read_text().splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        try:
            x, y = float(parts[1]), float(parts[2])
        except ValueError:
            continue
        out.append((x * width, y * height))
    return out


def jsonl_centers(truth: Path, image_name: str) -> list[tuple[float, float]] | None:
    """True centers of one image from a truth.jsonl (lines {"image", "dice": [{"x", "y"}]}), None if
    it has no line."""
    import json

    for line in truth.read_text().splitlines():
        try:
            obj = json.loads(line)
            if obj.get("image") == image_name:
                return [(float(d["x"]), float(d["y"])) for d in obj["dice"]]
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return None


def _matches(
    reads: Sequence[DieReading], truth: Sequence[tuple[float, float]]
) -> tuple[set[int], set[int]]:
    """Indices of reads and of true centers paired one to one within MATCH_PX, nearest first."""
    pairs = sorted(
        (float(np.hypot(r.x - t[0], r.y - t[1])), i, j)
        for i, r in enumerate(reads)
        for j, t in enumerate(truth)
    )
    got: set[int] = set()
    hit: set[int] = set()
    for d, i, j in pairs:
        if d <= MATCH_PX and i not in got and j not in hit:
            got.add(i)
            hit.add(j)
    return got, hit


def _label(
    img: ImageBGR, text: str, org: tuple[int, int], color: tuple[int, int, int], scale: float
) -> None:
    th = max(1, round(scale * 2))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), th + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, color, th, cv2.LINE_AA)


def draw_reads(
    image: ImageBGR,
    reads: Sequence[DieReading],
    reasons: Sequence[str] | None = None,
    truth: Sequence[tuple[float, float]] | None = None,
) -> ImageBGR:
    """A copy of ``image`` with the reads (and, given a truth, the misses and phantoms) drawn on
    it."""
    out = image.copy()
    scale = max(0.35, min(out.shape[:2]) / 1000)
    got, hit = _matches(reads, truth) if truth is not None else (set(range(len(reads))), set())
    for i, r in enumerate(reads):
        phantom = truth is not None and i not in got
        color = RED if phantom else ORANGE if r.face == UNKNOWN else GREEN
        pts = np.round(np.asarray(r.corners, np.float64) * 4).astype(np.int32)
        cv2.polylines(out, [pts], True, color, 2, cv2.LINE_AA, 2)
        text = f"{r.face} {r.confidence:.2f}" + (" no die" if phantom else "")
        top = int(np.asarray(r.corners)[:, 1].min())
        _label(out, text, (int(r.x) - 20, max(12, top - 4)), color, scale)
        if r.face == UNKNOWN and reasons is not None and reasons[i]:
            _label(
                out,
                reasons[i][:32],
                (int(r.x) - 20, int(np.asarray(r.corners)[:, 1].max()) + 14),
                color,
                scale * 0.7,
            )
    for j, (x, y) in enumerate(truth or []):
        if j in hit:
            cv2.circle(out, (round(x), round(y)), 3, WHITE, -1, cv2.LINE_AA)
        else:
            cv2.circle(out, (round(x), round(y)), round(MATCH_PX), RED, 2, cv2.LINE_AA)
            _label(out, "missed", (round(x) - 25, round(y) + round(MATCH_PX) + 14), RED, scale)
    return out


def main(argv: list[str] | None = None) -> int:
    from companion.vision.classify import ModelError
    from companion.vision.detect_net import DetectorModelError
    from companion.vision.enroll import EnrolmentError
    from companion.vision.finders import FINDERS
    from companion.vision.image_file import ImageFileError as ReadError
    from companion.vision.image_file import load_image
    from companion.vision.read import Reader

    ap = argparse.ArgumentParser(
        prog="python -m companion.evaluation.draw",
        description=" ".join(__doc__.split("\n\n")[0].split()),
    )
    ap.add_argument("images", nargs="+", metavar="IMAGE")
    ap.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for the drawn PNGs"
    )
    ap.add_argument("--finder", choices=FINDERS, default="net")
    ap.add_argument("--profile", default=None, metavar="PROFILE")
    args = ap.parse_args(argv)
    try:
        reader = Reader.load(args.profile, finder=args.finder)
        args.out.mkdir(parents=True, exist_ok=True)
    except (ModelError, EnrolmentError, DetectorModelError, OSError) as exc:
        print(f"draw: {exc}", file=sys.stderr)
        return 2
    status = 0
    for name in args.images:
        try:
            image = load_image(name)
        except ReadError as exc:
            print(f"draw: {exc}", file=sys.stderr)
            status = 1
            continue
        # exactly what `vision read` reports (with the learned finder: candidates judged)
        pairs = reader.read_with_finds(image)
        found, reads = [d for d, _ in pairs], [r for _, r in pairs]
        label, jsonl = Path(name).with_suffix(".txt"), Path(name).parent / "truth.jsonl"
        truth = (
            yolo_centers(label, image.shape[1], image.shape[0])
            if label.is_file()
            else jsonl_centers(jsonl, Path(name).name)
            if jsonl.is_file()
            else None
        )
        drawn = draw_reads(image, reads, [d.reason for d in found], truth)
        dest = args.out / (Path(name).stem + ".png")
        if not cv2.imwrite(str(dest), drawn):
            print(f"draw: cannot write {dest}", file=sys.stderr)
            return 2
        print(dest)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
