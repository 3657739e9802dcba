"""Train the dice-face classifier on rendered crops and export models/faces.onnx.

Rebuilds the shipped model from its seed on a CPU (torch 2.13.0, the `train`
extra). Runtime code never imports torch: it reads the ONNX file.

    python models/train_faces.py --seed 1            # the shipped model
    python models/train_faces.py --quick --out /tmp/f.onnx   # a smoke run

Steps: render crops of the TRAIN styles (training) and of the VALIDATION
styles (calibration), train, export, then fit the temperature and choose the
`?` thresholds on the validation styles (models/calibrate_faces.py), which
training never sees. HELD_OUT styles are left for evaluate_faces.py.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from companion.synth.crops import CropSet, make_crops  # noqa: E402
from companion.synth.frame import FACES  # noqa: E402
from companion.synth.styles import TRAIN, VALIDATION  # noqa: E402
from companion.vision.crop import CROP_SIZE  # noqa: E402

EMBED = 64


def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class FaceNet(nn.Module):
    """Input (N, 64, 64, 3) BGR float 0..255; outputs logits and an embedding."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv(3, 24, 2),  # 32x32
            conv(24, 32),
            nn.MaxPool2d(2),  # 16x16
            conv(32, 64),
            conv(64, 64),
            nn.MaxPool2d(2),  # 8x8
            conv(64, 128),
            nn.AdaptiveAvgPool2d(1),
        )
        self.embed = nn.Linear(128, EMBED)
        self.head = nn.Linear(EMBED, len(FACES))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.permute(0, 3, 1, 2)
        # Each crop is normalised on its own: light, exposure and colour cast
        # vary from frame to frame.
        mean = x.mean(dim=(2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True) + 4.0
        x = (x - mean) / std
        emb = self.embed(torch.flatten(self.features(x), 1))
        return self.head(torch.relu(emb)), emb


def augment(batch: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Right-angle rotations, channel shuffles, inversions, contrast, blur."""
    n = batch.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=gen))
    batch = torch.rot90(batch, k, dims=(1, 2))
    perm = torch.randperm(3, generator=gen)
    shuffle = torch.rand(n, 1, 1, 1, generator=gen) < 0.5
    batch = torch.where(shuffle, batch[..., perm], batch)
    invert = torch.rand(n, 1, 1, 1, generator=gen) < 0.15
    batch = torch.where(invert, 255.0 - batch, batch)
    gray = torch.rand(n, 1, 1, 1, generator=gen) < 0.15
    batch = torch.where(gray, batch.mean(dim=3, keepdim=True).expand_as(batch), batch)
    gain = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    # Some crops softened further: a die slightly out of focus or still rolling.
    soft = torch.rand(n, 1, 1, 1, generator=gen) < 0.15
    nchw = batch.permute(0, 3, 1, 2)
    blurred = torch.nn.functional.avg_pool2d(nchw, 3, 1, 1, count_include_pad=False).permute(0, 2, 3, 1)
    batch = torch.where(soft, blurred, batch)
    return (batch - 128) * gain + 128


def train(args: argparse.Namespace) -> None:
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    train_seeds = rng.integers(0, 2**31, args.train_frames)
    val_seeds = rng.integers(0, 2**31, args.val_frames)
    tr = make_crops(train_seeds, TRAIN, per_die=2, workers=args.workers)
    if args.big_frames:
        # Frames of the size the camera gives: dice drawn with more pixels,
        # then shrunk by cut_face, as on the table.
        big_seeds = rng.integers(0, 2**31, args.big_frames)
        big = make_crops(big_seeds, TRAIN, per_die=2, workers=args.workers, size=(1280, 960))
        tr = CropSet(np.concatenate([tr.images, big.images]), np.concatenate([tr.labels, big.labels]),
                     tr.styles + big.styles, np.concatenate([tr.frames, big.frames]))
    va = make_crops(val_seeds, VALIDATION, per_die=1, workers=args.workers)
    print(f"data: {len(tr.labels)} train crops, {len(va.labels)} validation crops, {time.time() - t0:.0f} s", flush=True)
    xtr = torch.from_numpy(tr.images.astype(np.float32))
    ytr = torch.from_numpy(tr.labels)
    xva = torch.from_numpy(va.images.astype(np.float32))
    yva = torch.from_numpy(va.labels)
    model = FaceNet()
    steps = args.epochs * math.ceil(len(ytr) / args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(ytr), generator=gen)
        total = 0.0
        for i in range(0, len(order), args.batch):
            idx = order[i : i + args.batch]
            logits, _ = model(augment(xtr[idx], gen))
            loss = loss_fn(logits, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(xva[i : i + 512])[0].argmax(1) for i in range(0, len(yva), 512)])
        acc = float((pred == yva).float().mean())
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / len(ytr):.4f}, validation-style accuracy {acc:.4f}, {time.time() - t0:.0f} s", flush=True)
    export(model, Path(args.out))
    train_seconds = round(time.time() - t0)
    # Temperature and thresholds come from the validation styles.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from calibrate_faces import calibrate

    report = calibrate(Path(args.out), quick=args.quick)
    Path(args.out).with_suffix(".calibration.json").write_text(json.dumps(report, indent=1) + "\n")
    info = {
        "seed": args.seed, "train_frames": args.train_frames, "big_frames": args.big_frames, "val_frames": args.val_frames,
        "train_crops": len(ytr), "val_crops": len(yva), "epochs": args.epochs,
        "train_seconds": train_seconds, "calibration_seconds": report["seconds"], "torch": torch.__version__,
        "train_styles": len(TRAIN), "validation_styles": len(VALIDATION),
    }
    Path(args.out).with_suffix(".train.json").write_text(json.dumps(info, indent=1))
    print(json.dumps(info), flush=True)


def export(model: FaceNet, out: Path) -> None:
    model.eval()
    dummy = torch.zeros(2, CROP_SIZE, CROP_SIZE, 3)
    torch.onnx.export(
        model, (dummy,), str(out), dynamo=False, opset_version=17,
        input_names=["crops"], output_names=["logits", "embedding"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train-frames", type=int, default=2500, help="640x480 training frames")
    ap.add_argument("--big-frames", type=int, default=1000, help="1280x960 training frames")
    ap.add_argument("--val-frames", type=int, default=300)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(REPO / "models" / "faces.onnx"))
    ap.add_argument("--quick", action="store_true", help="a tiny run: 1 epoch on a few frames")
    args = ap.parse_args()
    if args.quick:
        args.train_frames, args.big_frames, args.val_frames, args.epochs = 12, 2, 4, 1
    train(args)


if __name__ == "__main__":
    main()
