"""Train the pip-value classifier on rendered pip dice and export models/pips.onnx.

Rebuilds the shipped model from its seed on a CPU (torch 2.13.0, the `train`
extra). Runtime code never imports torch: it reads the ONNX file.

    python models/train_pips.py --seed 1 --threads 1        # the shipped model
    python models/train_pips.py --quick --out /tmp/p.onnx   # a smoke run
    python models/train_pips.py --seed 2 --cache new.npz --render-only  # render crops only
    python models/train_pips.py --cache old.npz --cache new.npz --init models/pips.onnx \
        --budget 2700                                       # fine-tune within 45 minutes

Learns from RENDERED dice only (companion/synth/pips.py, PIP_TRAIN sets):
never from photos. The temperature and the `?` threshold are chosen on
rendered dice of the PIP_VALIDATION sets, which training never sees, cut at
the corners the die finder gives (what `vision read --dice d6` reads), read
at four quarter turns as the reader does.
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
sys.path.insert(0, str(REPO / "models"))

import onnx  # noqa: E402
import torch  # noqa: E402
from calibrate_pips import TARGET, calibrate  # noqa: E402
from torch import nn  # noqa: E402

from companion.synth.pip_crops import FOUND, PipCropSet, make_pip_crops  # noqa: E402
from companion.synth.pips import PIP_TRAIN, PIP_VALIDATION  # noqa: E402
from companion.vision.crop import CROP_SIZE  # noqa: E402
from companion.vision.pips import PIP_FACES  # noqa: E402


def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


class PipNet(nn.Module):
    """Input (N, 64, 64, 3) BGR float 0..255; output logits (N, 6)."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv(3, 24, 2),  # 32x32: a pip is still 2-4 pixels here
            conv(24, 32),
            nn.MaxPool2d(2),  # 16x16
            conv(32, 64),
            conv(64, 64),
            nn.MaxPool2d(2),  # 8x8
            conv(64, 128),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Sequential(
            nn.Linear(128, 64), nn.ReLU(inplace=True), nn.Linear(64, len(PIP_FACES))
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.permute(0, 3, 1, 2)
        # Each crop normalised on its own: light, exposure and cast vary.
        mean = x.mean(dim=(2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True) + 4.0
        return self.head(torch.flatten(self.features((x - mean) / std), 1))


def augment(batch: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Quarter turns, mirrors (a pip face reads the same), colour, contrast, blur."""
    n = batch.shape[0]
    batch = torch.rot90(batch, int(torch.randint(0, 4, (1,), generator=gen)), dims=(1, 2))
    if bool(torch.rand(1, generator=gen) < 0.5):
        batch = torch.flip(batch, dims=(2,))
    perm = torch.randperm(3, generator=gen)
    shuffle = torch.rand(n, 1, 1, 1, generator=gen) < 0.5
    batch = torch.where(shuffle, batch[..., perm], batch)
    gray = torch.rand(n, 1, 1, 1, generator=gen) < 0.2
    batch = torch.where(gray, batch.mean(dim=3, keepdim=True).expand_as(batch), batch)
    gain = 0.6 + 0.7 * torch.rand(n, 1, 1, 1, generator=gen)
    soft = torch.rand(n, 1, 1, 1, generator=gen) < 0.2
    nchw = batch.permute(0, 3, 1, 2)
    blurred = torch.nn.functional.avg_pool2d(nchw, 3, 1, 1, count_include_pad=False).permute(
        0, 2, 3, 1
    )
    batch = torch.where(soft, blurred, batch)
    noise = torch.randn(batch.shape, generator=gen) * (6 * torch.rand(n, 1, 1, 1, generator=gen))
    return (batch - 128) * gain + 128 + noise


def _chunked(
    seeds: np.ndarray, styles: tuple, jittered: bool, workers: int, what: str
) -> PipCropSet:
    """make_pip_crops in chunks of 200 frames, saying how far it got."""
    parts = []
    for i in range(0, len(seeds), 200):
        parts.append(make_pip_crops(seeds[i : i + 200], styles, workers=workers, jittered=jittered))
        print(f"  {what}: {min(i + 200, len(seeds))}/{len(seeds)} frames", flush=True)
    return PipCropSet(
        *(
            np.concatenate([getattr(p, f) for p in parts])
            for f in ("images", "labels", "kinds", "frames")
        )
    )


def _load(path: Path) -> tuple[PipCropSet, PipCropSet]:
    z = np.load(path)
    return (
        PipCropSet(z["xi"], z["xl"], z["xk"], z["xf"]),
        PipCropSet(z["vi"], z["vl"], z["vk"], z["vf"]),
    )


def _join(parts: list[PipCropSet]) -> PipCropSet:
    fields = ("images", "labels", "kinds", "frames")
    return PipCropSet(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields))


def crops(args: argparse.Namespace, rng: np.random.Generator) -> tuple[PipCropSet, PipCropSet]:
    """Every --cache file that exists is read; the first that does not is rendered from
    this seed and written; with no missing file nothing is rendered."""
    caches = [Path(c) for c in args.cache or []]
    loaded = [_load(c) for c in caches if c.is_file()]
    missing = [c for c in caches if not c.is_file()]
    if loaded and not missing:
        return _join([t for t, _ in loaded]), _join([v for _, v in loaded])
    train_seeds = rng.integers(0, 2**31, args.train_frames)
    val_seeds = rng.integers(0, 2**31, args.val_frames)
    tr = _chunked(train_seeds, PIP_TRAIN, True, args.workers, "training frames")
    va = _chunked(val_seeds, PIP_VALIDATION, False, args.workers, "validation frames")
    if missing:
        np.savez(
            missing[0],
            xi=tr.images,
            xl=tr.labels,
            xk=tr.kinds,
            xf=tr.frames,
            vi=va.images,
            vl=va.labels,
            vk=va.kinds,
            vf=va.frames,
        )
    return _join([tr] + [t for t, _ in loaded]), _join([va] + [v for _, v in loaded])


def from_onnx(path: Path) -> PipNet:
    """A PipNet holding an exported model's weights, to fine-tune it.

    The export folded each BatchNorm into its convolution: the conv takes the folded
    weight, and its BatchNorm becomes the identity plus the folded bias (running mean 0,
    variance 1 - eps). Fine-tuning keeps these BatchNorms in eval mode (frozen statistics),
    so the network starts exactly as exported.
    """
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    conv_nodes = [n for n in graph.node if n.op_type == "Conv"]
    gemm_nodes = [n for n in graph.node if n.op_type == "Gemm"]
    model = PipNet()
    convs = [m for m in model.features.modules() if isinstance(m, nn.Conv2d)]
    bns = [m for m in model.features.modules() if isinstance(m, nn.BatchNorm2d)]
    lins = [m for m in model.head if isinstance(m, nn.Linear)]
    if len(conv_nodes) != len(convs) or len(gemm_nodes) != len(lins):
        raise ValueError(f"{path} is not a PipNet with its BatchNorms folded")
    with torch.no_grad():
        for c, b, node in zip(convs, bns, conv_nodes, strict=True):
            c.weight.copy_(torch.from_numpy(inits[node.input[1]].copy()))
            b.weight.fill_(1.0)
            b.bias.copy_(torch.from_numpy(inits[node.input[2]].copy()))
            b.running_mean.zero_()
            b.running_var.fill_(1.0 - b.eps)
        for lin, node in zip(lins, gemm_nodes, strict=True):
            trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
            w = inits[node.input[1]]
            lin.weight.copy_(torch.from_numpy((w if trans_b else w.T).copy()))
            lin.bias.copy_(torch.from_numpy(inits[node.input[2]].copy()))
    return model


def _freeze_batchnorm(model: PipNet) -> None:
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def predict(model: PipNet, images: np.ndarray) -> np.ndarray:
    """Logits (4, N, 6): every crop at its four quarter turns, as the reader reads it."""
    model.eval()
    out = []
    with torch.no_grad():
        x = torch.from_numpy(images.astype(np.float32))
        for k in range(4):
            xr = torch.rot90(x, k, dims=(1, 2))
            out.append(torch.cat([model(xr[i : i + 512]) for i in range(0, len(xr), 512)]).numpy())
    return np.stack(out)


def train(args: argparse.Namespace) -> None:
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    tr, va = crops(args, np.random.default_rng(args.seed))
    render_s = round(time.time() - t0)
    print(
        f"data: {len(tr.labels)} train crops ({int((tr.kinds == FOUND).sum())} cut by the finder), "
        f"{len(va.labels)} validation crops, {render_s} s",
        flush=True,
    )
    if args.render_only:
        return
    xtr = torch.from_numpy(tr.images)  # uint8: a float copy of 30k crops is 1.5 GB
    ytr = torch.from_numpy(tr.labels)
    model = from_onnx(Path(args.init)) if args.init else PipNet()
    steps = args.epochs * math.ceil(len(ytr) / args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.02)
    gen = torch.Generator().manual_seed(args.seed)
    t_train, step, stopped = time.time(), 0, False
    for epoch in range(args.epochs):
        model.train()
        if args.init:
            _freeze_batchnorm(model)
        order = torch.randperm(len(ytr), generator=gen)
        total, seen = 0.0, 0
        for i in range(0, len(order), args.batch):
            # one cycle (15 % warm-up, cosine down) over the steps, or over the time
            # budget when one is set: the run ends annealed however fast the machine is
            done = (time.time() - t_train) / args.budget if args.budget else step / max(steps, 1)
            if done >= 1.0:
                stopped = True
                break
            warm = 0.15
            frac = (
                done / warm
                if done < warm
                else 0.5 * (1 + math.cos(math.pi * (done - warm) / (1 - warm)))
            )
            for g in opt.param_groups:
                g["lr"] = args.lr * max(frac, 0.01)
            idx = order[i : i + args.batch]
            loss = loss_fn(model(augment(xtr[idx].float(), gen)), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
        acc = (
            float((predict(model, va.images).mean(axis=0).argmax(1) == va.labels).mean())
            if len(va.labels)
            else 0.0
        )
        print(
            f"epoch {epoch + 1}/{args.epochs}: loss {total / max(seen, 1):.4f} over {seen} "
            f"crops, validation-set accuracy {acc:.4f}, {time.time() - t0:.0f} s",
            flush=True,
        )
        torch.save(model.state_dict(), Path(args.out).with_suffix(".pt"))  # a checkpoint
        if stopped:
            break
    report = calibrate(predict(model, va.images), va.labels)
    temp, thr = report["temperature"], report["threshold"]
    export(
        model,
        Path(args.out),
        {
            "classes": ",".join(PIP_FACES),
            "temperature": f"{temp:.6g}",
            "threshold": f"{thr:.6g}",
            "silent_target": str(TARGET),
        },
    )
    info = {
        "seed": args.seed,
        # frames that gave crops (with caches, not --train-frames)
        "train_frames": int(len(np.unique(tr.frames))),
        "val_frames": int(len(np.unique(va.frames))),
        "train_crops": len(ytr),
        "train_found": int((tr.kinds == FOUND).sum()),
        "epochs": args.epochs,
        "steps": step,
        "budget": args.budget,
        "init": Path(args.init).name if args.init else None,
        "caches": [Path(c).name for c in args.cache or []],
        "lr": args.lr,
        "seconds": round(time.time() - t0),
        "render_seconds": render_s,
        "torch": torch.__version__,
        "train_sets": [s.name for s in PIP_TRAIN],
        "validation_sets": [s.name for s in PIP_VALIDATION],
        "calibration": report,
    }
    Path(args.out).with_suffix(".train.json").write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps(report), flush=True)


def export(model: PipNet, out: Path, meta: dict[str, str]) -> None:
    model.eval()
    dummy = torch.zeros(2, CROP_SIZE, CROP_SIZE, 3)
    torch.onnx.export(
        model,
        (dummy,),
        str(out),
        dynamo=False,
        opset_version=17,
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
    )
    m = onnx.load(str(out))
    for k, v in meta.items():
        m.metadata_props.add(key=k, value=v)
    onnx.save(m, str(out))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--train-frames", type=int, default=2000, help="640x480 frames of PIP_TRAIN sets"
    )
    ap.add_argument(
        "--val-frames", type=int, default=500, help="640x480 frames of PIP_VALIDATION sets"
    )
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--cache",
        action="append",
        help=(
            "npz file keeping rendered crops between runs (repeatable: the files that exist "
            "are read and joined, the first missing one is rendered from --seed)"
        ),
    )
    ap.add_argument("--render-only", action="store_true", help="render the cache and stop")
    ap.add_argument("--init", default=None, help="fine-tune this exported model (ONNX)")
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds of training: the learning rate anneals over this time, not over epochs",
    )
    ap.add_argument("--out", default=str(REPO / "models" / "pips.onnx"))
    ap.add_argument("--quick", action="store_true", help="a tiny run: 1 epoch on a few frames")
    args = ap.parse_args()
    if args.quick:
        args.train_frames, args.val_frames, args.epochs = 12, 6, 1
    train(args)


if __name__ == "__main__":
    main()
