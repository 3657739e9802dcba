"""Train the learned die detector (CenterNet-style) and export it to ONNX.

    python models/train_detector.py render --out /tmp/detdata --workers 2 --start 0 --count 3000
    python models/train_detector.py train --data /tmp/detdata --minutes 10 \\
        --out models/dice_detector.onnx

Frames come from the renderer (companion.synth, TRAIN styles only), rendered at
1280x960 and stored at half scale in shards; training takes random rescaled
crops of them. Heads, all at stride 4 of the network input:
  heat    1  center heatmap (sigmoid, penalty-reduced focal loss)
  off     2  sub-cell offset of the center
  size    1  log of the die's edge in input pixels
  rot     2  (cos 4t, sin 4t) of the top face rotation t (90 degree symmetry)
  corner  8  corner residuals: corners rotated by -t, divided by the edge, minus
             the unit square's corners (what tilt does to the square)
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STORE_SCALE = 0.5
HARD_FROM = 2200
PIPS_FROM = 3500
# Seeds from SQUARES_FROM on: most tables are printed squares (grid paper,
# tiles, checkerboards, fiducial markers, score sheets: companion.synth.squares)
SQUARES_FROM = 9000
# Seeds from FAMILIES_FROM on: dice of sets drawn from the training drawing families
# (companion.synth.family_sets: any body colour, plain, marbled or translucent). The
# TRAIN styles hold no marbled body, and the finder missed a marbled die in ten
# (session 20: 392 of 435 found on single-set frames of the "hard" family split).
FAMILIES_FROM = 20000
# Seeds from FAMILY_SQUARES_FROM on: the same sets, most of them on printed squares: marbled
# dice on a checked cloth or grid paper went unfound at every input size (session 39: 20 of 29
# wood-grained dice of 100 px on a checkerboard, development frames).
FAMILY_SQUARES_FROM = 24000
# Seeds from SIDES_FROM on: the same family frames with the dice's sides painted, as a real
# die's are, and the lens as wide as the Pi's (focal length 0.7-1.8 image widths; the sides
# show most far from the centre). The finder had taken a painted side for a die of its own.
SIDES_FROM = 28000
UNIT = np.array(
    [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float64
)  # clockwise, y down


def pip_mask(face: str, size: int, *, rng: np.random.Generator, **_: object) -> np.ndarray:
    """Ink mask of an ordinary die's top face (1-6 round or square pips), for the finder only.

    Stands in for companion.synth's motif art in some training frames so that
    the finder also learns pip dice (VISION.md "Ordinary dice"); their values
    do not matter here, so one is drawn at random whatever ``face`` says.
    """
    import cv2

    value = int(rng.integers(1, 7))
    spots = {
        1: [(1, 1)],
        2: [(0, 0), (2, 2)],
        3: [(0, 0), (1, 1), (2, 2)],
        4: [(0, 0), (0, 2), (2, 0), (2, 2)],
        5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
        6: [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)],
    }[value]
    m = np.zeros((size, size), np.float32)
    step = size * rng.uniform(0.24, 0.3)
    r = size * rng.uniform(0.06, 0.1) * (1.5 if value == 1 and rng.random() < 0.5 else 1.0)
    square_pips = rng.random() < 0.2
    for i, j in spots:
        cx, cy = size / 2 + (j - 1) * step, size / 2 + (i - 1) * step
        if square_pips:
            cv2.rectangle(
                m, (int(cx - r), int(cy - r)), (int(cx + r), int(cy + r)), 1.0, -1, cv2.LINE_AA
            )
        else:
            cv2.circle(
                m,
                (int(round(cx * 8)), int(round(cy * 8))),
                int(round(r * 8)),
                1.0,
                -1,
                cv2.LINE_AA,
                3,
            )
    return m


def _render_one(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import cv2

    import companion.synth.dice as synth_dice
    from companion.synth.family_sets import family_styles
    from companion.synth.frame import render_frame
    from companion.synth.motifs import motif_mask
    from companion.synth.styles import TRAIN

    rng = np.random.default_rng(seed + 1_000_000)
    styles = TRAIN
    if seed >= FAMILIES_FROM:  # one to three training-family sets a frame
        styles = family_styles("train", int(rng.integers(1, 4)), seed)
    size = (1280, 960) if rng.random() < 0.8 else (1600, 900)
    # Seeds from 2200 on also carry die-like clutter (keys, plugs, coins, ...)
    # as negatives; the first 2200 were rendered before it existed.
    hard = seed >= HARD_FROM and rng.random() < 0.6
    # Seeds from PIPS_FROM on: some frames hold ordinary pip dice seen up to 45
    # degrees off vertical (VISION.md "Ordinary dice"), which the finder must find too.
    pips = seed >= PIPS_FROM and rng.random() < 0.35
    tilt = float(rng.uniform(0, 45)) if pips else None
    squares = "squares" if seed >= SQUARES_FROM and rng.random() < 0.8 else None
    if seed >= FAMILIES_FROM:  # printed squares under a third of them, not most ...
        on_squares = 0.7 if FAMILY_SQUARES_FROM <= seed < SIDES_FROM else 0.3  # ... there
        squares = "squares" if rng.random() < on_squares else None
    sides = seed >= SIDES_FROM
    synth_dice.motif_mask = pip_mask if pips else motif_mask  # type: ignore[assignment]
    try:
        f = render_frame(
            seed,
            size=size,
            styles=styles,
            hard_clutter=hard,
            tilt_deg=tilt,
            surface_kind=squares,
            side_art=sides,
            lens=(0.7, 1.8) if sides else (1.0, 1.8),
        )
    finally:
        synth_dice.motif_mask = motif_mask
    img = cv2.resize(f.image, None, fx=STORE_SCALE, fy=STORE_SCALE, interpolation=cv2.INTER_AREA)
    corners = np.array([d.corners for d in f.dice], np.float32).reshape(-1, 4, 2) * STORE_SCALE
    centers = np.array([d.center for d in f.dice], np.float32).reshape(-1, 2) * STORE_SCALE
    return img, corners, centers


def render(out: Path, start: int, count: int, workers: int, shard: int = 50) -> None:
    import multiprocessing as mp

    out.mkdir(parents=True, exist_ok=True)
    with mp.Pool(workers) as pool:
        for s0 in range(start, start + count, shard):
            path = out / f"shard_{s0:07d}.npz"
            if path.exists():
                continue
            res = pool.map(_render_one, range(s0, min(s0 + shard, start + count)))
            arrays: dict[str, np.ndarray] = {}
            for i, (img, c, ctr) in enumerate(res):
                arrays[f"img{i}"] = img
                arrays[f"cor{i}"] = c
                arrays[f"ctr{i}"] = ctr
            tmp = out / f".tmp_{s0}.npz"
            np.savez(tmp, **arrays)
            os.replace(tmp, path)
            print(f"{time.strftime('%H:%M:%S')} wrote {path.name}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("--out", type=Path, default=Path("/tmp/detdata"))
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--count", type=int, default=3000)
    r.add_argument("--workers", type=int, default=2)
    t = sub.add_parser("train")
    t.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=[Path("/tmp/detdata")],
        help="folders of rendered shards, sampled together",
    )
    t.add_argument("--minutes", type=float, default=10.0)
    t.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "dice_detector.onnx"
    )
    t.add_argument("--ckpt", type=Path, default=Path("/tmp/detector.pt"))
    t.add_argument("--resume", action="store_true")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--crop", type=int, default=256)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument(
        "--real-share",
        type=float,
        default=0.0,
        help="share of samples from the development photos of shared/real-dice",
    )
    t.add_argument(
        "--hard", type=Path, default=None, help="phantoms on development photos to show more often"
    )
    t.add_argument(
        "--hard-share", type=float, default=0.3, help="share of real samples around a hard negative"
    )
    t.add_argument(
        "--near", type=float, default=0.8, help="share of rendered crops that hold a die"
    )
    t.add_argument(
        "--markers", type=float, default=0.0, help="share of rendered crops given printed fiducials"
    )
    t.add_argument(
        "--closeup-every", type=int, default=0, help="every N-th batch: 96x96 one-die frames"
    )
    t.add_argument(
        "--freeze-bn", action="store_true", help="keep BatchNorm statistics fixed (fine-tuning)"
    )
    t.add_argument(
        "--export-every", type=float, default=0.0, help="also export every so many minutes"
    )
    t.add_argument(
        "--distill",
        type=Path,
        default=None,
        help="checkpoint of a teacher (from-onnx of the shipped model) whose offset, edge, "
        "rotation and corners the student keeps wherever either sees a die",
    )
    t.add_argument(
        "--distill-cells",
        choices=("either", "teacher"),
        default="either",
        help="hold the regression where either network sees a die or the truth puts one "
        "(either), or only where the teacher sees one (teacher: small dice it misses learn "
        "their size from the truth alone)",
    )
    t.add_argument(
        "--distill-weight", type=float, default=2.0, help="weight of the teacher's regression term"
    )
    f = sub.add_parser(
        "from-onnx", help="a checkpoint holding an exported model's weights, to fine-tune it"
    )
    f.add_argument(
        "--onnx", type=Path, default=Path(__file__).resolve().parent / "dice_detector.onnx"
    )
    f.add_argument("--ckpt", type=Path, default=Path("/tmp/detector.pt"))
    args = ap.parse_args(argv)
    if args.cmd == "from-onnx":
        from_onnx(args.onnx, args.ckpt)
        return 0
    if args.cmd == "render":
        render(args.out, args.start, args.count, args.workers)
        return 0
    return train(args)


# ----------------------------------------------------------------------------- targets

STRIDE = 4
N_OUT = 14  # heat, off x/y, log edge, cos/sin 4t, 8 corner residuals


def clockwise(c: np.ndarray) -> np.ndarray:
    """(4, 2) corners clockwise on screen (y down), any start."""
    ctr = c.mean(axis=0)
    ang = np.arctan2(c[:, 1] - ctr[1], c[:, 0] - ctr[0])
    return c[np.argsort(ang)]


def encode_die(corners: np.ndarray, center: np.ndarray) -> tuple[float, float, float, np.ndarray]:
    """(edge, cos 4t, sin 4t, residuals (8,)) of one die's corners, in one pixel scale."""
    c = clockwise(corners.astype(np.float64))
    sides = np.roll(c, -1, axis=0) - c
    edge = float(np.linalg.norm(sides, axis=1).mean())
    z = np.exp(4j * np.arctan2(sides[:, 1], sides[:, 0])).sum()
    t = float(np.angle(z)) / 4.0
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    canon = UNIT @ rot.T  # unit square rotated by t, clockwise
    rel = (c - center) / max(edge, 1e-6)
    k = min(
        range(4),
        key=lambda k: float(np.linalg.norm(np.roll(rel, -k, axis=0) - canon, axis=1).sum()),
    )
    rel = np.roll(rel, -k, axis=0)
    res = rel @ rot - UNIT  # back to the die's own frame
    return edge, math.cos(4 * t), math.sin(4 * t), res.reshape(8)


def make_targets(
    h: int, w: int, corners: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heatmap (1, h/4, w/4), regression targets (13, h/4, w/4), mask (h/4, w/4)."""
    gh, gw = h // STRIDE, w // STRIDE
    heat = np.zeros((gh, gw), np.float32)
    reg = np.zeros((13, gh, gw), np.float32)
    mask = np.zeros((gh, gw), np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for cor, ctr in zip(corners, centers, strict=True):
        if not (0 <= ctr[0] < w and 0 <= ctr[1] < h):
            continue
        edge, cs, sn, res = encode_die(cor, ctr)
        if edge < 4:
            continue
        g = ctr / STRIDE
        ix, iy = int(g[0]), int(g[1])
        sigma = max(0.6, 0.15 * edge / STRIDE)
        gauss = np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma * sigma))
        np.maximum(heat, gauss, out=heat)
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = [g[0] - ix, g[1] - iy, math.log(edge), cs, sn, *res]
        mask[iy, ix] = 1.0
    return heat[None], reg, mask


# ----------------------------------------------------------------------------- data


def _augment(
    rng: np.random.Generator, im: np.ndarray, cor: np.ndarray, ctr: np.ndarray, crop: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flips, 90 degree turns and photometric changes of a crop x crop uint8 image and its dice."""
    import cv2

    if rng.random() < 0.5:
        im = im[:, ::-1]
        cor = cor.copy()
        cor[..., 0] = crop - 1 - cor[..., 0]
        ctr = ctr.copy()
        ctr[..., 0] = crop - 1 - ctr[..., 0]
    if rng.random() < 0.5:
        im = im.transpose(1, 0, 2)
        cor = cor[..., ::-1].copy()
        ctr = ctr[..., ::-1].copy()
    im = np.ascontiguousarray(im).astype(np.float32)
    # photometric: channel shuffle, gray, gain/offset, gamma, blur, noise
    if rng.random() < 0.5:
        im = im[..., rng.permutation(3)]
    if rng.random() < 0.15:
        im = np.repeat(im.mean(axis=2, keepdims=True), 3, axis=2)
    im = im * rng.uniform(0.6, 1.4, size=3).astype(np.float32) * rng.uniform(
        0.7, 1.3
    ) + rng.uniform(-30, 30)
    im = np.clip(im, 0, 255)
    if rng.random() < 0.3:
        im = 255.0 * (im / 255.0) ** rng.uniform(0.6, 1.6)
    if rng.random() < 0.2:
        k = int(rng.choice([3, 5]))
        im = cv2.GaussianBlur(im, (k, k), 0)
    if rng.random() < 0.3:
        im = im + rng.normal(0, rng.uniform(2, 10), im.shape).astype(np.float32)
    return np.clip(im, 0, 255), cor, ctr


def _window(
    rng: np.random.Generator, im: np.ndarray, ctr: np.ndarray, crop: int, near: float = 0.8
) -> tuple[int, int]:
    """Top-left of a crop x crop window of im, holding a die with probability ``near``."""
    h, w = im.shape[:2]
    if len(ctr) and rng.random() < near:
        c = ctr[int(rng.integers(len(ctr)))]
        return (
            int(np.clip(c[0] - rng.uniform(0, crop), 0, w - crop)),
            int(np.clip(c[1] - rng.uniform(0, crop), 0, h - crop)),
        )
    return int(rng.integers(0, w - crop + 1)), int(rng.integers(0, h - crop + 1))


def _rescale(
    img: np.ndarray, cor: np.ndarray, ctr: np.ndarray, s: float, crop: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import cv2

    im = cv2.resize(
        img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    )
    h, w = im.shape[:2]
    if h < crop or w < crop:
        im = cv2.copyMakeBorder(im, 0, max(0, crop - h), 0, max(0, crop - w), cv2.BORDER_REPLICATE)
    return im, (cor + 0.5) * s - 0.5, (ctr + 0.5) * s - 0.5


def _closeup(
    rng: np.random.Generator,
    img: np.ndarray,
    cor: np.ndarray,
    ctr: np.ndarray,
    edges: np.ndarray,
    crop: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A crop x crop close-up of one die whose edge is 46-68 px (foreign-art's close-ups: 48-65 in
    96).

    Its neighbours show in part at the border; now and then the die itself is
    off center or partly outside (then the reader must say '?', not guess).
    """
    if not len(ctr):
        return None
    k = int(rng.integers(len(ctr)))
    s = rng.uniform(46, 68) / max(float(edges[k]), 1.0) * crop / 96
    im, cor, ctr = _rescale(img, cor, ctr, s, crop)
    h, w = im.shape[:2]
    jitter = crop * (0.35 if rng.random() < 0.15 else 0.07)
    x0 = int(round(ctr[k, 0] - crop / 2 + rng.uniform(-jitter, jitter)))
    y0 = int(round(ctr[k, 1] - crop / 2 + rng.uniform(-jitter, jitter)))
    if not (0 <= x0 <= w - crop and 0 <= y0 <= h - crop):
        return None
    off = np.array([x0, y0], np.float32)
    return im[y0 : y0 + crop, x0 : x0 + crop], cor - off, ctr - off


Sample = tuple[np.ndarray, np.ndarray, np.ndarray, float]


class Frames:
    """Stored half-scale frames, reloaded as shards appear."""

    def __init__(self, roots: list[Path], rng: np.random.Generator, max_frames: int = 8000) -> None:
        self.roots, self.rng, self.max = roots, rng, max_frames
        self.near = 0.8  # share of crops that hold a die; the others show clutter and table
        self.markers = 0.0  # share of crops given printed fiducials (companion.synth.squares)
        self.loaded: set[str] = set()
        self.items: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.by_root: dict[Path, list[int]] = {}  # each folder is sampled as often as the others
        self.refresh()

    def refresh(self) -> None:
        for p in sorted(q for root in self.roots for q in root.glob("shard_*.npz")):
            if str(p) in self.loaded or len(self.items) >= self.max:
                continue
            with np.load(p) as z:
                n = sum(1 for k in z.files if k.startswith("img"))
                for i in range(n):
                    # stored as c * 0.5; pixel centres at integers: (c + 0.5) * 0.5 - 0.5
                    self.by_root.setdefault(p.parent, []).append(len(self.items))
                    self.items.append((z[f"img{i}"], z[f"cor{i}"] - 0.25, z[f"ctr{i}"] - 0.25))
            self.loaded.add(str(p))

    def sample(self, crop: int, closeup: bool = False) -> Sample:
        rng = self.rng
        while True:
            group = list(self.by_root.values())[int(rng.integers(len(self.by_root)))]
            img, cor, ctr = self.items[group[int(rng.integers(len(group)))]]
            if closeup:
                edges = np.array([encode_die(c, m)[0] for c, m in zip(cor, ctr, strict=True)])
                got = _closeup(rng, img, cor, ctr, edges, crop)
                if got is None:
                    continue
                im, cor, ctr = got
                break
            # half-scale store; scale s puts a 40-160 px die at 8..88 px on the input
            s = float(np.exp(rng.uniform(math.log(0.4), math.log(1.1))))
            im, cor, ctr = _rescale(img, cor, ctr, s, crop)
            x0, y0 = _window(rng, im, ctr, crop, near=self.near)
            im = im[y0 : y0 + crop, x0 : x0 + crop]
            off = np.array([x0, y0], np.float32)
            cor, ctr = cor - off, ctr - off
            break
        if self.markers > 0 and rng.random() < self.markers:
            # printed fiducials beside the dice: square, die-sized, and no dice
            from companion.synth.squares import paste_markers

            edges = np.array(
                [encode_die(c, m)[0] for c, m in zip(cor, ctr, strict=True)], np.float32
            )
            im = paste_markers(
                rng,
                im.astype(np.float32),
                ctr.reshape(-1, 2),
                edges,
                int(rng.integers(1, 4)),
                (8.0, 88.0) if crop > 96 else (30.0, 70.0),
            )
        im, cor, ctr = _augment(rng, im, cor, ctr, crop)
        heat, reg, mask = make_targets(crop, crop, cor, ctr)
        return im.transpose(2, 0, 1), np.concatenate([heat, reg]), mask, 1.0


class RealPhotos:
    """The development photos of shared/real-dice (never the kept-aside ones,
    benchmarks/real_dice.py).

    Their labels give the top face's center only, roughly: they teach the
    heatmap; the offset, edge, rotation and corner heads learn from renderings
    alone (weight 0 here). A die's edge, needed for the heatmap's
    spread and the close-ups' scale, is guessed from the photo's largest pip
    box (a six's pips span about 0.7 of the face).
    """

    def __init__(
        self, rng: np.random.Generator, hard: Path | None = None, hard_share: float = 0.0
    ) -> None:
        import cv2

        from benchmarks import real_dice

        self.rng = rng
        self.items: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        # Hard negatives: where a model took something for a die on these photos
        # (lines "  phantom NAME.jpg (x, y) ..." of
        # bench_detect_net.py --real --split dev --verbose).
        self.hard: list[tuple[int, float, float]] = []
        self.hard_share = hard_share
        names: dict[str, int] = {}
        for ph in real_dice.load(split="dev"):
            if real_dice.kept_aside(ph.path):
                raise AssertionError(f"{ph.path.name} is kept aside")
            names[ph.path.name] = len(self.items)
            img = cv2.imread(str(ph.path))
            if img is None:
                continue
            edge = max(float(ph.boxes.max()) / 0.7, 24.0) if len(ph.boxes) else 40.0
            ctr = ph.centers.astype(np.float32)
            cor = np.stack([ctr + np.array(u, np.float32) * edge for u in UNIT], axis=1).astype(
                np.float32
            )
            self.items.append((img, cor, ctr, np.full(len(ctr), edge, np.float32)))
        if hard is not None:
            for line in hard.read_text().splitlines():
                m = re.match(r"\s*phantom (\S+) \((\d+), (\d+)\)", line)
                if m and m.group(1) in names:
                    self.hard.append((names[m.group(1)], float(m.group(2)), float(m.group(3))))

    def sample(self, crop: int, closeup: bool = False) -> Sample:
        rng = self.rng
        while True:
            img, cor, ctr, edges = self.items[int(rng.integers(len(self.items)))]
            if closeup:
                got = _closeup(rng, img, cor, ctr, edges, crop)
                if got is None:
                    continue
                im, cor, ctr = got
                break
            # the photos' dice are 25-80 px; on the input 0.5-1.6 times that
            s = float(np.exp(rng.uniform(math.log(0.5), math.log(1.6))))
            if self.hard and rng.random() < self.hard_share:
                k, hx, hy = self.hard[int(rng.integers(len(self.hard)))]
                img, cor, ctr, edges = self.items[k]
                im, cor, ctr = _rescale(img, cor, ctr, s, crop)
                x0, y0 = _window(
                    rng,
                    im,
                    np.array([[(hx + 0.5) * s - 0.5, (hy + 0.5) * s - 0.5]]),
                    crop,
                    near=1.0,
                )
            else:
                im, cor, ctr = _rescale(img, cor, ctr, s, crop)
                x0, y0 = _window(rng, im, ctr, crop, near=0.7)
            im = im[y0 : y0 + crop, x0 : x0 + crop]
            off = np.array([x0, y0], np.float32)
            cor, ctr = cor - off, ctr - off
            break
        im, cor, ctr = _augment(rng, im, cor, ctr, crop)
        heat, reg, mask = make_targets(crop, crop, cor, ctr)
        return im.transpose(2, 0, 1), np.concatenate([heat, reg]), mask, 0.0


# ----------------------------------------------------------------------------- model


def build_model():  # type: ignore[no-untyped-def]
    import torch
    from torch import nn

    def cbr(cin: int, cout: int, s: int = 1, k: int = 3) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, k, s, k // 2, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    class Res(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.a = cbr(c, c)
            self.b = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))

        def forward(self, x):  # type: ignore[no-untyped-def]
            return torch.relu(x + self.b(self.a(x)))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.s4 = nn.Sequential(cbr(3, 16, 2), cbr(16, 32, 2), Res(32))
            self.s8 = nn.Sequential(cbr(32, 48, 2), Res(48))
            self.s16 = nn.Sequential(cbr(48, 64, 2), Res(64))
            self.s32 = nn.Sequential(cbr(64, 64, 2), Res(64))
            self.l16 = nn.Conv2d(64, 64, 1)
            self.l8 = nn.Conv2d(64, 48, 1)
            self.l4 = nn.Conv2d(48, 32, 1)
            self.m16 = cbr(64, 64)
            self.m8 = cbr(48, 48)
            self.m4 = cbr(32, 32)
            self.head = nn.Sequential(cbr(32, 48), nn.Conv2d(48, N_OUT, 1))
            self.head[-1].bias.data[0] = -2.19  # prior 0.1

        def forward(self, x):  # type: ignore[no-untyped-def]
            x = x * (1.0 / 255.0) - 0.5
            c4 = self.s4(x)
            c8 = self.s8(c4)
            c16 = self.s16(c8)
            c32 = self.s32(c16)
            up = nn.functional.interpolate
            p16 = self.m16(c16 + up(self.l16(c32), size=c16.shape[2:], mode="nearest"))
            p8 = self.m8(c8 + up(self.l8(p16), size=c8.shape[2:], mode="nearest"))
            p4 = self.m4(c4 + up(self.l4(p8), size=c4.shape[2:], mode="nearest"))
            return self.head(p4)

    return Net()


class Exported:  # wraps the net for export: sigmoid on the heatmap
    @staticmethod
    def wrap(net):  # type: ignore[no-untyped-def]
        import torch
        from torch import nn

        class W(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, x):  # type: ignore[no-untyped-def]
                y = self.net(x)
                return torch.cat([torch.sigmoid(y[:, :1]), y[:, 1:]], dim=1)

        return W()


def loss_fn(out, tgt, mask, regw=None):  # type: ignore[no-untyped-def]
    import torch

    heat_logit = out[:, 0]
    gt = tgt[:, 0]
    p = torch.sigmoid(heat_logit).clamp(1e-4, 1 - 1e-4)
    pos = (gt >= 1.0).float()
    pos_l = -torch.log(p) * (1 - p) ** 2 * pos
    neg_l = -torch.log(1 - p) * p**2 * (1 - gt) ** 4 * (1 - pos)
    n = pos.sum().clamp(min=1.0)
    l_heat = (pos_l.sum() + neg_l.sum()) / n
    m = mask[:, None]
    reg = out[:, 1:]
    treg = tgt[:, 1:]
    d = torch.nn.functional.smooth_l1_loss(reg, treg, reduction="none", beta=0.1) * m
    # Real photos label a center only, and only roughly (the middle of the pips'
    # box): they teach the heatmap; the sub-cell offset, edge, rotation and
    # corners learn from renderings alone, whose truth is exact.
    w = regw[:, None, None, None] if regw is not None else 1.0
    dw = d * w
    n2 = (pos.sum(dim=(1, 2)) * (regw if regw is not None else 1.0)).sum().clamp(min=1.0)
    l_off = dw[:, 0:2].sum() / n2
    l_size = dw[:, 2].sum() / n2
    l_rot = dw[:, 3:5].sum() / n2
    l_cor = dw[:, 5:13].sum() / n2
    return l_heat + l_off + l_size + l_rot + 2.0 * l_cor, (l_heat, l_off, l_size, l_rot, l_cor)


def distill_loss(out, teacher_out, mask, seen: float = 0.3, cells: str = "either"):  # type: ignore[no-untyped-def]
    """The student's regression channels against the teacher's, where either sees a die
    (``cells="either"``), or only where the teacher does (``"teacher"``).

    A fine-tuning aimed at the heatmap (what is a die) also moves the shared
    regression outputs: the session-8 squares candidate cut faces 0.16 px
    worse (corner error 2.30 -> 2.46 px) and its profile read more dice `?`.
    Holding offset, edge, rotation and corners to the shipped model's, at every
    cell where the teacher's or the student's heat passes ``seen`` or the truth
    puts a die, leaves the heatmap free and keeps the cuts.

    Session 41: where the truth puts a die the teacher does not see (small dice on printed
    squares), its edge means nothing: decoded over true edge, median 1.7 at 14-18 input pixels,
    2.1 under 14. Held to it, the fine-tuned finder decoded such dice too big (session 39's F2);
    ``"teacher"`` leaves those cells to the truth.
    """
    import torch

    t_heat = torch.sigmoid(teacher_out[:, 0]).detach()
    if cells == "teacher":
        where = (t_heat >= seen).float()[:, None]
    else:
        heat = torch.maximum(torch.sigmoid(out[:, 0]).detach(), t_heat)
        where = ((heat >= seen) | (mask > 0)).float()[:, None]
    d = torch.nn.functional.smooth_l1_loss(
        out[:, 1:], teacher_out[:, 1:], reduction="none", beta=0.1
    )
    return (d * where).sum() / where.sum().clamp(min=1.0)


def export(net, path: Path) -> None:  # type: ignore[no-untyped-def]
    import onnx
    import torch

    net.eval()
    w = Exported.wrap(net).eval()
    x = torch.zeros(1, 3, 384, 512)
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(
        w,
        (x,),
        str(tmp),
        opset_version=17,
        dynamo=False,
        input_names=["image"],
        output_names=["maps"],
        dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}},
    )
    m = onnx.load(str(tmp))
    meta = {
        "stride": str(STRIDE),
        "outputs": "heat,offx,offy,logedge,cos4t,sin4t,res8",
        "input": "BGR 0..255 NCHW float32",
    }
    for k, v in meta.items():
        e = m.metadata_props.add()
        e.key, e.value = k, v
    onnx.save(m, str(path))
    tmp.unlink()


def from_onnx(onnx_path: Path, ckpt: Path) -> None:
    """A training checkpoint holding the weights of an exported model (to fine-tune the shipped
    one).

    The export folded each BatchNorm into the convolution before it: the
    folded kernel and bias go into the convolution and a BatchNorm that passes
    its input through unchanged (mean 0, variance 1 - eps, weight 1), so the
    rebuilt net computes what the ONNX model computes.
    """
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    m = onnx.load(str(onnx_path))
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    convs = [
        (n.input[1], n.input[2] if len(n.input) > 2 else None)
        for n in m.graph.node
        if n.op_type == "Conv"
    ]
    net = build_model()
    # Convolutions of the graph in execution order, against the net's in the same order.
    order: list[nn.Conv2d] = []
    net.eval()
    hooks = [
        mod.register_forward_hook(lambda mod, i, o: order.append(mod))
        for mod in net.modules()
        if isinstance(mod, nn.Conv2d)
    ]
    with torch.no_grad():
        net(torch.zeros(1, 3, 64, 64))
    for h in hooks:
        h.remove()
    if len(order) != len(convs):
        raise SystemExit(f"{onnx_path}: {len(convs)} convolutions, the net has {len(order)}")
    bn_after = {
        mod[0]: mod[1]
        for mod in net.modules()
        if isinstance(mod, nn.Sequential)
        and len(mod) >= 2
        and isinstance(mod[0], nn.Conv2d)
        and isinstance(mod[1], nn.BatchNorm2d)
    }
    with torch.no_grad():
        for conv, (wname, bname) in zip(order, convs, strict=True):
            conv.weight.copy_(torch.from_numpy(inits[wname].copy()))
            bias = (
                torch.from_numpy(inits[bname].copy()) if bname else torch.zeros(conv.out_channels)
            )
            if conv.bias is not None:
                conv.bias.copy_(bias)
                continue
            bn = bn_after[conv]
            bn.weight.fill_(1.0)
            bn.bias.copy_(bias)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
    torch.save({"net": net.state_dict(), "step": 1}, ckpt)


def train(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    data = Frames(args.data, rng)
    data.near = args.near
    data.markers = args.markers
    real = RealPhotos(rng, args.hard, args.hard_share) if args.real_share > 0 else None
    print(
        f"{len(data.items)} frames loaded, {len(real.items) if real else 0} real photos, "
        f"{len(real.hard) if real else 0} hard negatives",
        flush=True,
    )
    net = build_model()
    print(f"{sum(p.numel() for p in net.parameters())} parameters", flush=True)
    step0 = 0
    if args.resume and args.ckpt.exists():
        st = torch.load(args.ckpt)
        net.load_state_dict(st["net"])
        step0 = int(st.get("step", 0))
    teacher = None
    if args.distill is not None:
        teacher = build_model()
        teacher.load_state_dict(torch.load(args.distill)["net"])
        teacher.eval()
        for par in teacher.parameters():
            par.requires_grad_(False)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    budget = args.minutes * 60.0
    start = time.time()
    last_export = start
    step = 0
    hist: list[list[float]] = []
    while True:
        el = time.time() - start
        if el > budget:
            break
        frac = el / budget
        lr = (
            args.lr
            * (min(1.0, (step + 1) / 100) if step0 == 0 else 1.0)
            * 0.5
            * (1 + math.cos(math.pi * frac))
        )
        for g in opt.param_groups:
            g["lr"] = lr
        # every `closeup_every`-th batch: 96 x 96 frames holding one die (VISION.md: a frame like
        # any other)
        closeup = args.closeup_every > 0 and step % args.closeup_every == args.closeup_every - 1
        crop, n = (96, args.batch * 2) if closeup else (args.crop, args.batch)
        batch = [
            (real if real is not None and rng.random() < args.real_share else data).sample(
                crop, closeup
            )
            for _ in range(n)
        ]
        x = torch.from_numpy(np.stack([b[0] for b in batch]))
        t = torch.from_numpy(np.stack([b[1] for b in batch]))
        mk = torch.from_numpy(np.stack([b[2] for b in batch]))
        rw = torch.tensor([b[3] for b in batch], dtype=torch.float32)
        net.train()
        if (
            args.freeze_bn
        ):  # fine-tuning an exported model: its BatchNorms are folded, keep them fixed
            for mod in net.modules():
                if isinstance(mod, torch.nn.BatchNorm2d):
                    mod.eval()
        out = net(x)
        loss, parts = loss_fn(out, t, mk, rw)
        if teacher is not None:
            with torch.no_grad():
                tout = teacher(x)
            dl = distill_loss(out, tout, mk, cells=args.distill_cells)
            loss = loss + args.distill_weight * dl
            parts = (*parts, dl)
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append([float(loss.detach())] + [float(p.detach()) for p in parts])
        step += 1
        if step % 25 == 0:
            h = np.mean(hist[-25:], axis=0)
            print(
                f"{time.strftime('%H:%M:%S')} step {step} lr {lr:.5f} loss {h[0]:.3f} heat "
                f"{h[1]:.3f} off {h[2]:.3f} "
                f"size {h[3]:.3f} rot {h[4]:.3f} cor {h[5]:.3f} frames {len(data.items)}"
                + (f" teacher {h[6]:.3f}" if teacher is not None else ""),
                flush=True,
            )
        if step % 100 == 0:
            data.refresh()
            torch.save({"net": net.state_dict(), "step": step0 + step}, args.ckpt)
        if args.export_every and time.time() - last_export > args.export_every * 60:
            # a usable model on disk while a long run goes on
            last_export = time.time()
            export(net, args.out.with_suffix(f".step{step0 + step}.onnx"))
    torch.save({"net": net.state_dict(), "step": step0 + step}, args.ckpt)
    export(net, args.out)
    print(
        f"exported {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) after {step} steps",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
