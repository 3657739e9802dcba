"""Train the learned die detector (CenterNet-style) and export it to ONNX.

    python models/train_detector.py render --out /tmp/detdata --workers 2 --start 0 --count 3000
    python models/train_detector.py train --data /tmp/detdata --minutes 10 --out models/dice_detector.onnx

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
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STORE_SCALE = 0.5
HARD_FROM = 2200
UNIT = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float64)  # clockwise, y down


def _render_one(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import cv2

    from companion.synth.frame import render_frame
    from companion.synth.styles import TRAIN

    rng = np.random.default_rng(seed + 1_000_000)
    size = (1280, 960) if rng.random() < 0.8 else (1600, 900)
    # Seeds from 2200 on also carry die-like clutter (keys, plugs, coins, ...)
    # as negatives; the first 2200 were rendered before it existed.
    hard = seed >= HARD_FROM and rng.random() < 0.6
    f = render_frame(seed, size=size, styles=TRAIN, hard_clutter=hard)
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
    t.add_argument("--data", type=Path, default=Path("/tmp/detdata"))
    t.add_argument("--minutes", type=float, default=10.0)
    t.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "dice_detector.onnx")
    t.add_argument("--ckpt", type=Path, default=Path("/tmp/detector.pt"))
    t.add_argument("--resume", action="store_true")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--crop", type=int, default=256)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
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
    k = min(range(4), key=lambda k: float(np.linalg.norm(np.roll(rel, -k, axis=0) - canon, axis=1).sum()))
    rel = np.roll(rel, -k, axis=0)
    res = rel @ rot - UNIT  # back to the die's own frame
    return edge, math.cos(4 * t), math.sin(4 * t), res.reshape(8)


def make_targets(h: int, w: int, corners: np.ndarray, centers: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


class Frames:
    """Stored half-scale frames, reloaded as shards appear."""

    def __init__(self, root: Path, rng: np.random.Generator, max_frames: int = 8000) -> None:
        self.root, self.rng, self.max = root, rng, max_frames
        self.loaded: set[str] = set()
        self.items: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.refresh()

    def refresh(self) -> None:
        for p in sorted(self.root.glob("shard_*.npz")):
            if p.name in self.loaded or len(self.items) >= self.max:
                continue
            with np.load(p) as z:
                n = sum(1 for k in z.files if k.startswith("img"))
                for i in range(n):
                    # stored as c * 0.5; pixel centres at integers: (c + 0.5) * 0.5 - 0.5
                    self.items.append((z[f"img{i}"], z[f"cor{i}"] - 0.25, z[f"ctr{i}"] - 0.25))
            self.loaded.add(p.name)

    def sample(self, crop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        import cv2

        rng = self.rng
        img, cor, ctr = self.items[int(rng.integers(len(self.items)))]
        # half-scale store; scale s puts a 40-160 px die at 8..88 px on the input
        s = float(np.exp(rng.uniform(math.log(0.4), math.log(1.1))))
        im = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
        cor = (cor + 0.5) * s - 0.5
        ctr = (ctr + 0.5) * s - 0.5
        h, w = im.shape[:2]
        if h < crop or w < crop:
            im = cv2.copyMakeBorder(im, 0, max(0, crop - h), 0, max(0, crop - w), cv2.BORDER_REPLICATE)
            h, w = im.shape[:2]
        # prefer crops with dice in them
        if len(ctr) and rng.random() < 0.8:
            c = ctr[int(rng.integers(len(ctr)))]
            x0 = int(np.clip(c[0] - rng.uniform(0, crop), 0, w - crop))
            y0 = int(np.clip(c[1] - rng.uniform(0, crop), 0, h - crop))
        else:
            x0, y0 = int(rng.integers(0, w - crop + 1)), int(rng.integers(0, h - crop + 1))
        im = im[y0:y0 + crop, x0:x0 + crop].copy()
        off = np.array([x0, y0], np.float32)
        cor = cor - off
        ctr = ctr - off
        # geometric: flips and 90 degree turns
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
        im = im * rng.uniform(0.6, 1.4, size=3).astype(np.float32) * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
        im = np.clip(im, 0, 255)
        if rng.random() < 0.3:
            im = 255.0 * (im / 255.0) ** rng.uniform(0.6, 1.6)
        if rng.random() < 0.2:
            k = int(rng.choice([3, 5]))
            im = cv2.GaussianBlur(im, (k, k), 0)
        if rng.random() < 0.3:
            im = im + rng.normal(0, rng.uniform(2, 10), im.shape).astype(np.float32)
        im = np.clip(im, 0, 255)
        heat, reg, mask = make_targets(crop, crop, cor, ctr)
        return im.transpose(2, 0, 1), np.concatenate([heat, reg]), mask


# ----------------------------------------------------------------------------- model


def build_model():  # type: ignore[no-untyped-def]
    import torch
    from torch import nn

    def cbr(cin: int, cout: int, s: int = 1, k: int = 3) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

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


def loss_fn(out, tgt, mask):  # type: ignore[no-untyped-def]
    import torch

    heat_logit = out[:, 0]
    gt = tgt[:, 0]
    p = torch.sigmoid(heat_logit).clamp(1e-4, 1 - 1e-4)
    pos = (gt >= 1.0).float()
    pos_l = -torch.log(p) * (1 - p) ** 2 * pos
    neg_l = -torch.log(1 - p) * p ** 2 * (1 - gt) ** 4 * (1 - pos)
    n = pos.sum().clamp(min=1.0)
    l_heat = (pos_l.sum() + neg_l.sum()) / n
    m = mask[:, None]
    reg = out[:, 1:]
    treg = tgt[:, 1:]
    d = torch.nn.functional.smooth_l1_loss(reg, treg, reduction="none", beta=0.1) * m
    l_off = d[:, 0:2].sum() / n
    l_size = d[:, 2].sum() / n
    l_rot = d[:, 3:5].sum() / n
    l_cor = d[:, 5:13].sum() / n
    return l_heat + l_off + l_size + l_rot + 2.0 * l_cor, (l_heat, l_off, l_size, l_rot, l_cor)


def export(net, path: Path) -> None:  # type: ignore[no-untyped-def]
    import onnx
    import torch

    net.eval()
    w = Exported.wrap(net).eval()
    x = torch.zeros(1, 3, 384, 512)
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(w, (x,), str(tmp), opset_version=17, dynamo=False, input_names=["image"],
                      output_names=["maps"], dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}})
    m = onnx.load(str(tmp))
    meta = {"stride": str(STRIDE), "outputs": "heat,offx,offy,logedge,cos4t,sin4t,res8", "input": "BGR 0..255 NCHW float32"}
    for k, v in meta.items():
        e = m.metadata_props.add()
        e.key, e.value = k, v
    onnx.save(m, str(path))
    tmp.unlink()


def train(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    data = Frames(args.data, rng)
    print(f"{len(data.items)} frames loaded", flush=True)
    net = build_model()
    print(f"{sum(p.numel() for p in net.parameters())} parameters", flush=True)
    step0 = 0
    if args.resume and args.ckpt.exists():
        st = torch.load(args.ckpt)
        net.load_state_dict(st["net"])
        step0 = int(st.get("step", 0))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    budget = args.minutes * 60.0
    start = time.time()
    step = 0
    hist: list[list[float]] = []
    while True:
        el = time.time() - start
        if el > budget:
            break
        frac = el / budget
        lr = args.lr * (min(1.0, (step + 1) / 100) if step0 == 0 else 1.0) * 0.5 * (1 + math.cos(math.pi * frac))
        for g in opt.param_groups:
            g["lr"] = lr
        batch = [data.sample(args.crop) for _ in range(args.batch)]
        x = torch.from_numpy(np.stack([b[0] for b in batch]))
        t = torch.from_numpy(np.stack([b[1] for b in batch]))
        mk = torch.from_numpy(np.stack([b[2] for b in batch]))
        net.train()
        out = net(x)
        loss, parts = loss_fn(out, t, mk)
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append([float(loss.detach())] + [float(p.detach()) for p in parts])
        step += 1
        if step % 25 == 0:
            h = np.mean(hist[-25:], axis=0)
            print(f"{time.strftime('%H:%M:%S')} step {step} lr {lr:.5f} loss {h[0]:.3f} heat {h[1]:.3f} off {h[2]:.3f} "
                  f"size {h[3]:.3f} rot {h[4]:.3f} cor {h[5]:.3f} frames {len(data.items)}", flush=True)
        if step % 100 == 0:
            data.refresh()
            torch.save({"net": net.state_dict(), "step": step0 + step}, args.ckpt)
    torch.save({"net": net.state_dict(), "step": step0 + step}, args.ckpt)
    export(net, args.out)
    print(f"exported {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) after {step} steps", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
