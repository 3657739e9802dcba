"""Train the dice-face classifier on rendered crops and export models/faces.float.onnx.

Rebuilds the shipped network from its seed on a CPU (torch 2.13.0, the `train`
extra). Runtime code never imports torch: it reads the ONNX file. The model
`vision read` ships, models/faces.onnx, is this network in 8-bit integers
(models/quantize_models.py, then calibrate_faces.py on it; models/MODEL_CARD.md).

    python models/train_faces.py --seed 1            # the shipped model
    python models/train_faces.py --quick --out /tmp/f.onnx   # a smoke run

Steps: render crops of the TRAIN styles (training) and of the VALIDATION
styles (calibration), train, export, then fit the temperature and choose the
`?` thresholds on the validation styles (models/calibrate_faces.py), which
training never sees. HELD_OUT styles are left for evaluate_faces.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from companion.synth.crops import NOT_DIE, CropSet, make_crops  # noqa: E402
from companion.synth.family_sets import family_styles  # noqa: E402
from companion.synth.frame import FACES  # noqa: E402
from companion.synth.nondie import non_die_crops  # noqa: E402
from companion.synth.styles import TRAIN, Style  # noqa: E402
from companion.vision.crop import CROP_SIZE  # noqa: E402

EMBED = 64
CLASSES = len(FACES) + 1  # the five motifs and "not a die" (NOT_DIE)
UNKNOWN_ART = (
    -1
)  # label of a die whose motif no class names (a plain pip die): uniform over the motifs


def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


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
        self.head = nn.Linear(EMBED, CLASSES)
        # Motif directions on the unit sphere (training only): a cosine-margin
        # term pulls each die's normalised embedding to its motif's, so that
        # enrolment's nearest-prototype reading has clusters to work with.
        self.prototypes = nn.Parameter(torch.randn(CLASSES, EMBED) * 0.1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.permute(0, 3, 1, 2)
        # Each crop is normalised on its own: light, exposure and colour cast
        # vary from frame to frame.
        mean = x.mean(dim=(2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True) + 4.0
        x = (x - mean) / std
        emb = self.embed(torch.flatten(self.features(x), 1))
        return self.head(torch.relu(emb)), emb


def rotate(batch: torch.Tensor, ks: torch.Tensor) -> torch.Tensor:
    """Each crop of (N, H, W, C) turned by its own number of right angles."""
    out = batch.clone()
    for k in range(1, 4):
        sel = ks == k
        if bool(sel.any()):
            out[sel] = torch.rot90(batch[sel], k, dims=(1, 2))
    return out


def augment(batch: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Right-angle rotations (each crop its own), channel shuffles, inversions, contrast, blur."""
    n = batch.shape[0]
    batch = rotate(batch.float(), torch.randint(0, 4, (n,), generator=gen))
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
    batch = torch.where(soft, _box_mean(batch, 1), batch)
    batch = restyle(batch, gen, RESTYLE)
    return (batch - 128) * gain + 128


def _curve(x: torch.Tensor, knots: torch.Tensor) -> torch.Tensor:
    """x (N, H, W, C) in 0..255 through each crop's and channel's piecewise-linear curve.

    knots (N, C, K): the curve's values at K evenly spaced inputs 0..255.
    """
    n, h, w, c = x.shape
    k = knots.shape[2]
    t = (x.clamp(0, 255) / 255 * (k - 1)).permute(0, 3, 1, 2).reshape(n, c, h * w)
    i = t.floor().clamp(max=k - 2)
    f = t - i
    lo = torch.gather(knots, 2, i.long())
    hi = torch.gather(knots, 2, i.long() + 1)
    return (lo + (hi - lo) * f).reshape(n, c, h, w).permute(0, 2, 3, 1)


def _textures(n: int, size: int, gen: torch.Generator) -> torch.Tensor:
    """(N, size, size, 1) fields in 0..1: smooth noise, stripes or marble veins (stripes bent
    by the noise), one kind per crop, at random scale and angle."""
    coarse = torch.rand(n, 1, 4 + int(torch.randint(0, 5, (1,), generator=gen)), 6, generator=gen)
    noise = nn.functional.interpolate(coarse, size=(size, size), mode="bicubic").clamp(0, 1)
    noise = noise.permute(0, 2, 3, 1)
    yy, xx = torch.meshgrid(torch.arange(size).float(), torch.arange(size).float(), indexing="ij")
    theta = torch.rand(n, 1, 1, 1, generator=gen) * math.pi
    freq = (1.5 + 6 * torch.rand(n, 1, 1, 1, generator=gen)) * 2 * math.pi / size
    phase = torch.rand(n, 1, 1, 1, generator=gen) * 2 * math.pi
    along = xx[None, :, :, None] * torch.cos(theta) + yy[None, :, :, None] * torch.sin(theta)
    stripes = 0.5 + 0.5 * torch.sin(freq * along + phase)
    bend = 2 + 6 * torch.rand(n, 1, 1, 1, generator=gen)
    marble = (0.5 + 0.5 * torch.sin(freq * along + phase + bend * noise)) ** 3
    kind = torch.randint(0, 3, (n, 1, 1, 1), generator=gen)
    return torch.where(kind == 0, noise, torch.where(kind == 1, stripes, marble))


def _box_mean(x: torch.Tensor, r: int) -> torch.Tensor:
    """Each pixel's mean over its (2r+1)^2 window clipped at the borders, x (N, H, W, C).

    A (2r+1)x1 then a 1x(2r+1) mean of a contiguous copy: the same mean of the clipped rectangle,
    and far cheaper than one square pool of the permuted view.
    """
    k = 2 * r + 1
    y = x.permute(0, 3, 1, 2).contiguous()
    y = nn.functional.avg_pool2d(y, (k, 1), 1, (r, 0), count_include_pad=False)
    y = nn.functional.avg_pool2d(y, (1, k), 1, (0, r), count_include_pad=False)
    return y.permute(0, 2, 3, 1)


def restyle(batch: torch.Tensor, gen: torch.Generator, share: float) -> torch.Tensor:
    """Change a share of crops' appearance and keep every stroke's shape.

    Networks that generalise to art they never saw read shape, not colour or texture
    (Geirhos et al., Stylized-ImageNet). Each chosen crop gets some of: a random colour
    curve per channel (mostly monotone, sometimes not), a noise, striped or marbled texture
    multiplied or blended over the whole crop, posterisation, sharpening, local contrast.
    """
    n, size = batch.shape[0], batch.shape[1]
    if share <= 0 or n == 0:
        return batch

    def pick(p: float) -> torch.Tensor:
        return (torch.rand(n, 1, 1, 1, generator=gen) < share) & (
            torch.rand(n, 1, 1, 1, generator=gen) < p
        )

    chosen = pick(1.0)
    out = batch
    knots = torch.rand(n, 3, 6, generator=gen) * 255
    down = torch.rand(n, 3, 1, generator=gen) < 0.5
    mono = torch.where(down, knots.sort(dim=2, descending=True)[0], knots.sort(dim=2)[0])
    wild = torch.rand(n, 1, 1, generator=gen) < 0.15  # a non-monotone curve now and then
    curve = (torch.rand(n, 1, 1, 1, generator=gen) < 0.5) & chosen
    out = torch.where(curve, _curve(out, torch.where(wild, knots, mono)), out)
    tex = _textures(n, size, gen)
    tint = 0.6 + 0.4 * torch.rand(n, 1, 1, 3, generator=gen)
    strength = 0.2 + 0.3 * torch.rand(n, 1, 1, 1, generator=gen)
    multiplied = out * (1 - strength + strength * tex * tint)
    colour = torch.rand(n, 1, 1, 3, generator=gen) * 255
    alpha = 0.08 + 0.17 * torch.rand(n, 1, 1, 1, generator=gen)
    blended = out * (1 - alpha * tex) + alpha * tex * colour
    textured = torch.where(torch.rand(n, 1, 1, 1, generator=gen) < 0.6, multiplied, blended)
    out = torch.where((torch.rand(n, 1, 1, 1, generator=gen) < 0.5) & chosen, textured, out)
    levels = torch.randint(3, 9, (n, 1, 1, 1), generator=gen).float()
    poster = torch.floor(out.clamp(0, 255) / 256 * levels) / (levels - 1) * 255
    out = torch.where((torch.rand(n, 1, 1, 1, generator=gen) < 0.2) & chosen, poster, out)
    amount = 0.5 + torch.rand(n, 1, 1, 1, generator=gen)
    sharpen = ((torch.rand(n, 1, 1, 1, generator=gen) < 0.25) & chosen).flatten()
    contrast = ((torch.rand(n, 1, 1, 1, generator=gen) < 0.25) & chosen).flatten()
    # The neighbourhood means only of the crops that use them (an eighth each), each taken of
    # the crop before sharpening: pooling every crop took most of a training step.
    before, out = out, out.clone()
    if bool(sharpen.any()):
        near = _box_mean(before[sharpen], 1)
        out[sharpen] = before[sharpen] + amount[sharpen] * (before[sharpen] - near)
    if bool(contrast.any()):
        wide = _box_mean(before[contrast], 7)
        out[contrast] = out[contrast] + 0.8 * amount[contrast] * (out[contrast] - wide)
    return out.clamp(0, 255)


def _join(a: CropSet, b: CropSet) -> CropSet:
    return CropSet(
        np.concatenate([a.images, b.images]),
        np.concatenate([a.labels, b.labels]),
        a.styles + b.styles,
        np.concatenate([a.frames, b.frames]),
    )


def loss_terms(
    model: FaceNet, logits: torch.Tensor, emb: torch.Tensor, labels: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy of the head plus a cosine-margin term on the embedding (CosFace, s=16, m=0.25).

    When the batch is two views of the same crops (first half, second half turned by
    other right angles), a third term pulls each crop's two normalised embeddings
    together, so that a profile can embed one view of a die instead of four.
    """
    known = labels != UNKNOWN_ART
    ce = nn.functional.cross_entropy(logits[known], labels[known])
    cos = (
        nn.functional.normalize(emb[known], dim=1)
        @ nn.functional.normalize(model.prototypes, dim=1).T
    )
    margin = 0.25 * nn.functional.one_hot(labels[known], CLASSES).float()
    total = ce + nn.functional.cross_entropy(16.0 * (cos - margin), labels[known])
    if not bool(known.all()):
        # A die of art no class names is a die all the same: its probability
        # spreads over the five motifs (so it reads `?`), none on "not a die".
        logp = nn.functional.log_softmax(logits[~known], dim=1)
        total = total - logp[:, : len(FACES)].mean(dim=1).mean() * (~known).float().mean()
    half = len(labels) // 2
    if half and len(labels) == 2 * half and bool((labels[:half] == labels[half:]).all()):
        e = nn.functional.normalize(emb, dim=1)
        total = total + ROTATION_WEIGHT * (1 - (e[:half] * e[half:]).sum(dim=1)).mean() * 10
    return total


ROTATION_WEIGHT = 1.0


def episodic_loss(emb: torch.Tensor, labels: torch.Tensor, groups: torch.Tensor) -> torch.Tensor:
    """Each die read by the other dice of its own set, as a profile reads a table (--episodic).

    ``emb`` and ``labels`` are two views of the same crops stacked (first half, second half);
    ``groups`` names each crop's set (one per crop, -1: not in an episode). A crop's motif
    prototypes are the mean normalised embeddings of the other crops of its set (both views of
    itself left out), and it is scored by cosine to them with the CosFace scale and margin of
    ``loss_terms``: the embedding learns to tell motifs apart within a drawing, where a
    profile reads, instead of only near the motifs' global directions.
    """
    n = len(groups)
    g = torch.cat([groups, groups])
    crop = torch.arange(n).repeat(2)
    sel = (g >= 0) & (labels >= 0) & (labels < len(FACES))  # motif crops of an episode
    if int(sel.sum()) < 4:
        return emb.sum() * 0.0
    e = nn.functional.normalize(emb[sel], dim=1)
    y, g, crop = labels[sel], g[sel], crop[sel]
    support = (g[:, None] == g[None, :]) & (crop[:, None] != crop[None, :])
    onehot = nn.functional.one_hot(y, len(FACES)).float()
    weight = support.float()[:, :, None] * onehot[None, :, :]  # query, support, motif
    counts = weight.sum(dim=1)  # query, motif
    protos = torch.einsum("qsk,sd->qkd", weight, e) / counts.clamp(min=1.0)[:, :, None]
    cos = (e[:, None, :] * nn.functional.normalize(protos, dim=2)).sum(dim=2)
    present = counts > 0
    usable = present[torch.arange(len(y)), y] & (present.sum(dim=1) >= 2)
    if not bool(usable.any()):
        return emb.sum() * 0.0
    margin = 0.25 * onehot
    logits = (16.0 * (cos - margin)).masked_fill(~present, -1e4)
    return nn.functional.cross_entropy(logits[usable], y[usable])


#: Weight of the episodic term (--episodic; 0: the shipped recipe) and the episode's shape:
#: EPISODE_SETS sets of EPISODE_DICE motif crops each take that many places of every batch.
EPISODIC = 0.0
EPISODE_SETS = 3
EPISODE_DICE = 12


def episode_groups(styles: list[str], labels: np.ndarray) -> list[np.ndarray]:
    """Crop indices of every set with enough motif crops of at least two motifs for episodes."""
    names, inv = np.unique(np.asarray(styles, dtype=str), return_inverse=True)
    motif = (labels >= 0) & (labels < len(FACES))
    out = []
    for k in range(len(names)):
        idx = np.flatnonzero((inv == k) & motif)
        if len(idx) >= EPISODE_DICE and len(np.unique(labels[idx])) >= 2:
            out.append(idx)
    return out


def episode_batch(
    idx: torch.Tensor, groups: list[np.ndarray], gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """``idx`` followed by EPISODE_DICE crops of each of EPISODE_SETS sets drawn from ``groups``,
    and each crop's episode (-1: not in one)."""
    member = torch.full((len(idx),), -1, dtype=torch.long)
    if not groups:
        return idx, member
    picked = torch.randperm(len(groups), generator=gen)[:EPISODE_SETS].tolist()
    parts, members = [idx], [member]
    for j, k in enumerate(picked):
        grp = groups[k]
        take = torch.randperm(len(grp), generator=gen)[:EPISODE_DICE].numpy()
        parts.append(torch.from_numpy(grp[take]))
        members.append(torch.full((len(take),), j, dtype=torch.long))
    return torch.cat(parts), torch.cat(members)


#: Share of crops whose appearance `restyle` changes (--restyle; 0: the shipped recipe). Both
#: views of a crop are restyled independently, so the two-view term above also pulls two
#: differently styled views of one die together.
RESTYLE = 0.0


#: Share of motif crops made into art no motif names (--unknown-mix; 0: the shipped recipe):
#: one part of the face from a die of another motif, so that drawings mixing the marks of
#: two motifs read `?` instead of whichever motif their larger part resembles.
UNKNOWN_MIX = 0.0


def mix_unknown(
    x: torch.Tensor, y: torch.Tensor, gen: torch.Generator, share: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """A ``share`` of the motif crops gets a band (a third to a half of the face, from a random
    side) from a crop of another motif in the batch, and the label of art no class names."""
    if share <= 0:
        return x, y
    n = len(y)
    motif = y < len(FACES)
    partner = torch.randint(0, n, (n,), generator=gen)
    pick = (torch.rand(n, generator=gen) < share) & motif & motif[partner] & (y != y[partner])
    idx = torch.nonzero(pick).flatten().tolist()
    if not idx:
        return x, y
    src, x, y = x, x.clone(), y.clone()  # bands come from the crops as they were
    size = x.shape[1]
    for i in idx:
        width = int(size * (0.35 + 0.15 * float(torch.rand(1, generator=gen))))
        other = torch.rot90(src[int(partner[i])], int(torch.randint(0, 4, (1,), generator=gen)))
        side = int(torch.randint(0, 4, (1,), generator=gen))
        band = [slice(None), slice(None)]
        band[side % 2] = slice(0, width) if side < 2 else slice(size - width, size)
        x[i][tuple(band)] = other[tuple(band)]
        y[i] = UNKNOWN_ART
    return x, y


def step_batch(
    x: torch.Tensor, y: torch.Tensor, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Two augmented views of each crop (different rotations, colours, contrast), stacked."""
    x, y = mix_unknown(x, y, gen, UNKNOWN_MIX)
    return torch.cat([augment(x, gen), augment(x, gen)]), torch.cat([y, y])


def load_onnx(model: FaceNet, path: Path) -> None:
    """Start from an exported model: its convolutions carry their BatchNorm folded in.

    Each BatchNorm becomes the identity with the folded bias as its shift; they are
    then kept in eval mode while training (frozen_bn) so that they stay so.
    """
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    blocks = [m for m in model.features if isinstance(m, nn.Sequential)]
    if len(convs) != len(blocks):
        raise SystemExit(f"{path} is not a FaceNet export")
    with torch.no_grad():
        for node, block in zip(convs, blocks, strict=True):
            conv, bn = block[0], block[1]
            conv.weight.copy_(init[node.input[1]])
            bn.weight.fill_(1.0)
            bn.bias.copy_(init[node.input[2]])
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for name in ("embed.weight", "embed.bias", "head.weight", "head.bias"):
            dict(model.named_parameters())[name].copy_(init[name])


def frozen_bn(model: FaceNet) -> None:
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def freeze_blocks(model: FaceNet, n: int) -> None:
    """Fix the first ``n`` convolution blocks: a fine-tune then moves only the later layers,
    and the low-level filters every known style is read through stay as they were."""
    blocks = [m for m in model.features if isinstance(m, nn.Sequential)]
    if not 0 <= n <= len(blocks):
        raise SystemExit(f"--freeze {n}: the network has {len(blocks)} convolution blocks")
    for block in blocks[:n]:
        for prm in block.parameters():
            prm.requires_grad_(False)


DISTILL_T = 2.0


def distill_loss(
    logits: torch.Tensor,
    emb: torch.Tensor,
    t_logits: torch.Tensor,
    t_emb: torch.Tensor,
    keep: torch.Tensor,
) -> torch.Tensor:
    """Learning without forgetting: on the crops ``keep`` marks, the student's softened
    probabilities (KL at DISTILL_T) and normalised embedding (cosine, weighted as the rotation
    term is) are held to the starting network's, so that a fine-tune for new dice moves the
    reads of the dice already read well as little as it can."""
    if not bool(keep.any()):
        return logits.new_zeros(())
    t = DISTILL_T
    kl = nn.functional.kl_div(
        nn.functional.log_softmax(logits[keep] / t, dim=1),
        nn.functional.log_softmax(t_logits[keep] / t, dim=1),
        log_target=True,
        reduction="batchmean",
    )
    cos = (
        nn.functional.normalize(emb[keep], dim=1) * nn.functional.normalize(t_emb[keep], dim=1)
    ).sum(dim=1)
    return kl * t * t + 10 * (1 - cos).mean()


def family_crops(seeds: np.ndarray, fam: Sequence[Style], args: argparse.Namespace) -> CropSet:
    """Crops of family sets' frames: three quarters at 640x480, the rest at the camera's size."""
    pd, bg, w, n = args.per_die, args.background, args.workers, len(seeds)
    return _join(
        make_crops(seeds[: n * 3 // 4], fam, per_die=pd, workers=w, background=bg),
        make_crops(
            seeds[n * 3 // 4 :], fam, per_die=pd, workers=w, size=(1280, 960), background=bg
        ),
    )


def render_crops(args: argparse.Namespace) -> tuple[CropSet, CropSet]:
    """The training crops and the validation-family crops the run is watched on."""
    rng = np.random.default_rng(args.seed)
    train_seeds = rng.integers(0, 2**31, args.train_frames)
    val_seeds = rng.integers(0, 2**31, args.val_frames)
    pd, bg = args.per_die, args.background
    tr = make_crops(train_seeds, TRAIN, per_die=pd, workers=args.workers, background=bg)
    if args.big_frames:
        # Frames of the size the camera gives: dice drawn with more pixels,
        # then shrunk by cut_face, as on the table.
        big_seeds = rng.integers(0, 2**31, args.big_frames)
        big = make_crops(
            big_seeds, TRAIN, per_die=pd, workers=args.workers, size=(1280, 960), background=bg
        )
        tr = _join(tr, big)
    if args.family_frames:
        # Sets drawn from the training drawing families (families.py): the
        # validation and held-out families are never seen here.
        fam = family_styles("train", args.family_styles, args.seed)
        tr = _join(tr, family_crops(rng.integers(0, 2**31, args.family_frames), fam, args))
    if args.pip_frames:
        # Plain pip dice (PIP_TRAIN styles): dice whose art no motif class names.
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from refit_not_die import pip_dice

        from companion.synth.pips import PIP_TRAIN

        pd_crops = pip_dice(int(rng.integers(0, 2**31)), args.pip_frames, PIP_TRAIN)
        tr = _join(
            tr,
            CropSet(
                pd_crops,
                np.full(len(pd_crops), UNKNOWN_ART, np.int64),
                ["pip"] * len(pd_crops),
                np.full(len(pd_crops), -1, np.int64),
            ),
        )
    if args.non_die:
        # Things a fooled finder hands over: grid cells, tiles, markers, text, textures, coins.
        nd = non_die_crops(args.non_die, args.seed + 99)
        tr = _join(
            tr,
            CropSet(
                nd,
                np.full(len(nd), NOT_DIE, np.int64),
                ["non-die"] * len(nd),
                np.full(len(nd), -1, np.int64),
            ),
        )
    va = make_crops(
        val_seeds,
        family_styles("validation", 200, args.seed + 1),
        per_die=1,
        workers=args.workers,
        background=1,
    )
    return tr, va


def extra_family_crops(args: argparse.Namespace) -> CropSet:
    """Crops of another split's drawing families (``--extra-families``), lettered with the
    training typefaces only, so that the validation typefaces stay unseen; cached apart from
    the base crops (their key does not change)."""
    values = [args.seed, args.extra_families, args.extra_family_frames]
    path = Path(args.cache) / f"faces-extra-{_render_key(values)}.npz" if args.cache else None
    if path is not None and path.exists():
        (out,) = _load_sets(path, ("ex",))
        return out
    n = args.extra_family_frames
    # The split's drawings, each set lettered as a training-family set of the same number is.
    fam = tuple(
        dataclasses.replace(st, art=dataclasses.replace(st.art, lettering=lt.art.lettering))
        for st, lt in zip(
            family_styles(args.extra_families, max(1, n // 2), args.seed + 7),
            family_styles("train", max(1, n // 2), args.seed + 8),
            strict=True,
        )
    )
    out = family_crops(np.random.default_rng(args.seed + 7).integers(0, 2**31, n), fam, args)
    if path is not None:
        _save_sets(path, {"ex": out})
    return out


def other_make_crops(args: argparse.Namespace) -> CropSet:
    """Crops of training-family sets on dice of other makes (synth/makes.py, lit: wood
    grain, flecks, pearl, marble, any colour and shape, bright sides, glossy rims): on
    otherhand's art the profile loses most dice on wood and dark marble, whose grain and veins
    compete with the motif (docs/vision.md, session 59). Cached apart from the base crops."""
    values = [args.seed, "other-makes", args.other_make_frames]
    path = Path(args.cache) / f"faces-makes-{_render_key(values)}.npz" if args.cache else None
    if path is not None and path.exists():
        (out,) = _load_sets(path, ("om",))
        return out
    from companion.synth.makes import varied_bodies

    n = args.other_make_frames
    rng = np.random.default_rng(args.seed + 11)
    fam = tuple(
        varied_bodies([st], rng, lit=True)[0]
        for st in family_styles("train", max(1, n // 2), args.seed + 11)
    )
    out = family_crops(rng.integers(0, 2**31, n), fam, args)
    if path is not None:
        _save_sets(path, {"om": out})
    return out


#: The arguments that decide which crops are rendered (the cache's key).
RENDER_ARGS = (
    "seed",
    "train_frames",
    "big_frames",
    "val_frames",
    "family_frames",
    "family_styles",
    "per_die",
    "background",
    "non_die",
    "pip_frames",
)


def _render_key(values: Any) -> str:
    """A cache key of rendering arguments and the renderer's source (a changed renderer renders
    again)."""
    import hashlib

    key = hashlib.sha256(json.dumps(values).encode())
    for src in sorted((REPO / "companion" / "synth").glob("*.py")):
        key.update(src.read_bytes())
    return key.hexdigest()[:16]


def crop_cache(args: argparse.Namespace) -> Path:
    """Where a run's rendered crops are kept: keyed by the rendering arguments and the
    renderer's source."""
    key = _render_key({k: getattr(args, k) for k in RENDER_ARGS})
    return Path(args.cache) / f"faces-crops-{key}.npz"


def _save_sets(path: Path, sets: dict[str, CropSet]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part.npz")  # a run stopped while writing leaves no half cache
    arrays = {}
    for name, cs in sets.items():
        arrays[f"{name}_images"] = cs.images
        arrays[f"{name}_labels"] = cs.labels
        arrays[f"{name}_styles"] = np.asarray(cs.styles, dtype=str)
        arrays[f"{name}_frames"] = cs.frames
    np.savez(part, **arrays)
    part.replace(path)


def _load_sets(path: Path, names: Sequence[str]) -> list[CropSet]:
    with np.load(path) as z:
        return [
            CropSet(
                z[f"{n}_images"],
                z[f"{n}_labels"],
                [str(x) for x in z[f"{n}_styles"]],
                z[f"{n}_frames"],
            )
            for n in names
        ]


def save_crops(path: Path, tr: CropSet, va: CropSet) -> None:
    _save_sets(path, {"tr": tr, "va": va})


def load_crops(path: Path) -> tuple[CropSet, CropSet]:
    tr, va = _load_sets(path, ("tr", "va"))
    return tr, va


def train(args: argparse.Namespace) -> None:
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    cache = crop_cache(args) if args.cache else None
    if cache is not None and cache.exists():
        tr, va = load_crops(cache)
        print(f"crops from {cache}", flush=True)
    else:
        tr, va = render_crops(args)
        if cache is not None:
            save_crops(cache, tr, va)
    if args.extra_family_frames:
        tr = _join(tr, extra_family_crops(args))
    base_count = len(tr.labels)  # crops before other makes': the ones --distill holds
    if args.other_make_frames:
        tr = _join(tr, other_make_crops(args))
    render_seconds = time.time() - t0
    print(
        f"data: {len(tr.labels)} train crops, {len(va.labels)} validation crops, "
        f"{render_seconds:.0f} s",
        flush=True,
    )
    print(
        "classes in training:",
        np.bincount(tr.labels[tr.labels >= 0], minlength=CLASSES).tolist(),
        "dice of unknown art:",
        int(np.sum(tr.labels == UNKNOWN_ART)),
        flush=True,
    )
    xtr = torch.from_numpy(tr.images)  # uint8: a float copy of 100k crops would take 5 GB
    ytr = torch.from_numpy(tr.labels)
    xva = torch.from_numpy(va.images.astype(np.float32))
    yva = torch.from_numpy(va.labels)
    model = FaceNet()
    if args.init:
        load_onnx(model, Path(args.init))
        with torch.no_grad():  # the motif directions from the model's own embedding of its crops
            model.eval()
            sample = torch.randperm(len(ytr), generator=torch.Generator().manual_seed(args.seed))[
                :4000
            ]
            emb = torch.cat(
                [model(xtr[sample[i : i + 500]].float())[1] for i in range(0, len(sample), 500)]
            )
            lab = ytr[sample]
            for k in range(CLASSES):
                if bool((lab == k).any()):
                    model.prototypes[k] = nn.functional.normalize(emb[lab == k], dim=1).mean(dim=0)
    teacher: FaceNet | None = None
    if args.distill:
        assert args.init  # main() asks for it
        teacher = FaceNet()
        load_onnx(teacher, Path(args.init))
        teacher.eval()
        for prm in teacher.parameters():
            prm.requires_grad_(False)
    if args.freeze:
        freeze_blocks(model, args.freeze)
    # With --episodic, every batch gives EPISODE_SETS * EPISODE_DICE of its places to episodes.
    groups = episode_groups(tr.styles, tr.labels) if EPISODIC else []
    episode = EPISODE_SETS * EPISODE_DICE if groups else 0
    stride = args.batch // 2 - episode
    if stride <= 0:
        raise SystemExit(f"--batch {args.batch} leaves no room beside {episode} episode crops")
    if EPISODIC:
        print(f"episodes from {len(groups)} sets, {episode} crops a batch", flush=True)
    if args.budget:
        # A time budget: measure the speed of a few steps, then fix the schedule to fit.
        probe = FaceNet()
        popt = torch.optim.AdamW(probe.parameters(), lr=1e-3)
        tp = time.time()
        for i in range(10):
            idx = torch.randint(
                0, len(ytr), (args.batch // 2,), generator=torch.Generator().manual_seed(i)
            )
            bx, by = step_batch(xtr[idx], ytr[idx], torch.Generator().manual_seed(i))
            if teacher is not None:  # a distilled step also runs the teacher
                with torch.no_grad():
                    teacher(bx)
            lg, em = probe(bx)
            lo = loss_terms(probe, lg, em, by)
            popt.zero_grad()
            lo.backward()
            popt.step()
        per_step = (time.time() - tp) / 10
        steps = max(int(args.budget / (per_step * 1.05)), 50)
        print(
            f"budget {args.budget} s: {per_step * 1000:.0f} ms a step, {steps} steps "
            f"({steps * args.batch / 2 / len(ytr):.1f} epochs)",
            flush=True,
        )
    else:
        steps = args.epochs * math.ceil(len(ytr) / stride)
    opt = torch.optim.AdamW(
        [prm for prm in model.parameters() if prm.requires_grad], lr=args.lr, weight_decay=5e-4
    )
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=args.lr, total_steps=steps, pct_start=args.pct_start
    )
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(args.seed)
    del loss_fn
    done = 0
    epoch = 0
    last_save = time.time()
    family_accuracy: list[float] = []
    while done < steps:
        model.train()
        if args.init:
            frozen_bn(model)
        order = torch.randperm(len(ytr), generator=gen)
        total = 0.0
        seen = 0
        for i in range(0, len(order), stride):
            if done >= steps:
                break
            idx = order[i : i + stride]
            idx, member = episode_batch(idx, groups if episode else [], gen)
            bx, by = step_batch(xtr[idx], ytr[idx], gen)
            logits, emb = model(bx)
            loss = loss_terms(model, logits, emb, by)
            if teacher is not None:
                with torch.no_grad():
                    t_logits, t_emb = teacher(bx)
                keep = (idx < base_count).repeat(2)  # step_batch stacks two views
                loss = loss + args.distill * distill_loss(logits, emb, t_logits, t_emb, keep)
            if episode:
                loss = loss + EPISODIC * episodic_loss(emb, by, member)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            done += 1
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
            if time.time() - last_save > 600:  # a model exists whatever happens next
                export(model, Path(args.out).with_suffix(".ckpt.onnx"))
                model.train()
                if args.init:
                    frozen_bn(model)
                last_save = time.time()
        epoch += 1
        model.eval()
        with torch.no_grad():
            pred = torch.cat(
                [model(xva[i : i + 512])[0].argmax(1) for i in range(0, len(yva), 512)]
            )
        acc = float((pred == yva).float().mean())
        family_accuracy.append(round(acc, 4))
        die = yva != NOT_DIE
        dropped = float((pred[die] == NOT_DIE).float().mean())
        caught = (
            float((pred[~die] == NOT_DIE).float().mean()) if bool((~die).any()) else float("nan")
        )
        print(
            f"epoch {epoch}, step {done}/{steps}: loss {total / max(seen, 1):.4f}, "
            f"validation-family accuracy {acc:.4f}, "
            f"dice called not-a-die {dropped:.4f}, table squares caught {caught:.4f}, "
            f"{time.time() - t0:.0f} s",
            flush=True,
        )
        export(
            model, Path(args.out).with_suffix(".ckpt.onnx")
        )  # a model exists whatever happens next
        if args.keep_epochs:  # the best epoch may not be the last; choose it on validation later
            export(model, Path(args.out).with_suffix(f".epoch{epoch}.onnx"))
    export(model, Path(args.out))
    train_seconds = round(time.time() - t0)
    info: dict[str, object] = {
        "seed": args.seed,
        "train_frames": args.train_frames,
        "big_frames": args.big_frames,
        "val_frames": args.val_frames,
        "train_crops": len(ytr),
        "val_crops": len(yva),
        "epochs": args.epochs,
        "train_seconds": train_seconds,
        "torch": torch.__version__,
        "train_styles": len(TRAIN),
        "family_frames": args.family_frames,
        "family_styles": args.family_styles,
        "budget": args.budget,
        "steps": steps,
        "per_die": args.per_die,
        "background": args.background,
        "non_die": args.non_die,
        "rotation_weight": ROTATION_WEIGHT,
        "restyle": args.restyle,
        "unknown_mix": args.unknown_mix,
        "episodic": EPISODIC,
        "episode": [EPISODE_SETS, EPISODE_DICE],
        "pip_frames": args.pip_frames,
        "other_make_frames": args.other_make_frames,
        "init": args.init,
        "distill": args.distill,
        "freeze": args.freeze,
        "render_seconds": round(render_seconds),
        "validation_family_accuracy_per_epoch": family_accuracy,
    }
    if not args.no_calibrate:
        # Temperature and thresholds come from the validation styles.
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from calibrate_faces import calibrate

        report = calibrate(Path(args.out), quick=args.quick)
        Path(args.out).with_suffix(".calibration.json").write_text(
            json.dumps(report, indent=1) + "\n"
        )
        info["calibration_seconds"] = report["seconds"]
    # Written with or without calibration: a run's recipe and figures are never lost.
    Path(args.out).with_suffix(".train.json").write_text(json.dumps(info, indent=1))
    print(json.dumps(info), flush=True)


def export(model: FaceNet, out: Path) -> None:
    model.eval()
    dummy = torch.zeros(2, CROP_SIZE, CROP_SIZE, 3)
    torch.onnx.export(
        model,
        (dummy,),
        str(out),
        dynamo=False,
        opset_version=17,
        input_names=["crops"],
        output_names=["logits", "embedding"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train-frames", type=int, default=2500, help="640x480 training frames")
    ap.add_argument("--big-frames", type=int, default=1000, help="1280x960 training frames")
    ap.add_argument(
        "--val-frames", type=int, default=300, help="frames of validation families to watch the run"
    )
    ap.add_argument(
        "--family-frames",
        type=int,
        default=2000,
        help="frames of training-family sets (3/4 at 640x480)",
    )
    ap.add_argument(
        "--family-styles",
        type=int,
        default=800,
        help="random sets drawn from the training families",
    )
    ap.add_argument(
        "--budget", type=float, default=0, help="seconds of training; sets the number of steps"
    )
    ap.add_argument("--per-die", type=int, default=1, help="jittered crops cut of each die")
    ap.add_argument(
        "--background", type=int, default=1, help="squares of bare table cut from each frame"
    )
    ap.add_argument(
        "--non-die", type=int, default=12000, help="drawn crops of things that are not dice"
    )
    ap.add_argument(
        "--pip-frames", type=int, default=0, help="frames of plain pip dice, dice of unknown art"
    )
    ap.add_argument(
        "--extra-families",
        default="hard",
        help="a development split whose drawing families --extra-family-frames draws from",
    )
    ap.add_argument(
        "--extra-family-frames",
        type=int,
        default=0,
        help="frames of that split's family sets, lettered with training typefaces; 0: none",
    )
    ap.add_argument(
        "--other-make-frames",
        type=int,
        default=0,
        help="frames of training-family sets on dice of other makes (wood, marble, ...); 0: none",
    )
    ap.add_argument("--init", default=None, help="start from this exported model (fine-tuning)")
    ap.add_argument(
        "--distill",
        type=float,
        default=0.0,
        help="with --init: weight of the term holding the reads of all crops but other makes' "
        "to the starting model's; 0: off",
    )
    ap.add_argument(
        "--freeze", type=int, default=0, help="with --init: convolution blocks kept fixed"
    )
    ap.add_argument("--pct-start", type=float, default=0.15, help="share of the steps the LR rises")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--out",
        default=str(REPO / "models" / "faces.float.onnx"),
        help="the float network; models/faces.onnx is made from it by quantize_models.py",
    )
    ap.add_argument(
        "--restyle",
        type=float,
        default=0.0,
        help="share of crops whose colours and texture are changed (restyle); 0: off",
    )
    ap.add_argument(
        "--unknown-mix",
        type=float,
        default=0.0,
        help="share of motif crops mixed with another motif's and labelled unknown art; 0: off",
    )
    ap.add_argument(
        "--episodic",
        type=float,
        default=0.0,
        help="weight of the term reading each die by the other dice of its set; 0: off",
    )
    ap.add_argument(
        "--cache",
        nargs="?",
        const=str(Path.home() / ".cache" / "companion"),
        default=None,
        help="keep rendered crops in this folder (default ~/.cache/companion) and reuse them",
    )
    ap.add_argument(
        "--keep-epochs",
        action="store_true",
        help="also export every epoch's model as OUT.epochN.onnx (the checkpoint is overwritten)",
    )
    ap.add_argument("--quick", action="store_true", help="a tiny run: 1 epoch on a few frames")
    ap.add_argument(
        "--no-calibrate", action="store_true", help="export only; run calibrate_faces.py later"
    )
    args = ap.parse_args()
    if (args.distill or args.freeze) and not args.init:
        ap.error("--distill and --freeze fine-tune a model: give it with --init")
    if args.quick:
        args.train_frames, args.big_frames, args.val_frames, args.epochs, args.family_frames = (
            12,
            2,
            4,
            1,
            8,
        )
        args.non_die = 40
    global RESTYLE, UNKNOWN_MIX, EPISODIC
    RESTYLE = args.restyle
    EPISODIC = args.episodic
    UNKNOWN_MIX = args.unknown_mix
    train(args)


if __name__ == "__main__":
    main()
