"""Refit the face model's "not a die" output so that dice of art it never saw stay dice.

Trained on our five motifs and on non-dice (grid cells, markers, bare table),
the network learns "no motif of ours" as much as "no die": a plain pip die
(white cube, black dots) read in motif mode came out "not a die" at 1.00, and
the reader would have dropped it. This refits only the last layer's sixth row
(weights and bias of the not-a-die logit; the five motif rows and everything
below stay) by logistic regression on the network's own features:

- dice: crops of the TRAIN styles and of sets drawn from the TRAIN drawing
  families, and rendered pip dice of PIP_TRAIN styles (a die of art the
  motif classes never name, and must not be dropped);
- not dice: drawn non-die crops (synth/nondie.py) and bare-table squares of
  the same frames.

Validation and held-out styles, families and pip styles are never used here,
nor any photograph; calibrate_faces.py then chooses `not_die_threshold` on
validation renders, rendered pip dice of PIP_VALIDATION styles included.

    python models/refit_not_die.py --model models/faces.onnx [--frames 300]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

from companion.synth.crops import NOT_DIE, jitter_corners, make_crops  # noqa: E402
from companion.synth.family_sets import family_styles  # noqa: E402
from companion.synth.nondie import non_die_crops  # noqa: E402
from companion.synth.pip_frame import render_pip_frame  # noqa: E402
from companion.synth.pips import PIP_TRAIN, PipStyle  # noqa: E402
from companion.synth.styles import TRAIN  # noqa: E402
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.onnx_session import cpu_session  # noqa: E402

F64 = npt.NDArray[np.float64]
FIRST_SEED = 610_000  # seeds of this script's frames, used for nothing else


def pip_dice(first: int, n_frames: int, styles: tuple[PipStyle, ...]) -> npt.NDArray[np.uint8]:
    """Crops of rendered pip dice, cut as the face model sees dice (cut_faces at a finder-like
    corner error)."""
    rng = np.random.default_rng(first)
    out = []
    for seed in range(first, first + n_frames):
        size = (1280, 960) if seed % 3 == 0 else (640, 480)
        f = render_pip_frame(seed, styles=styles, size=size)
        if f.dice:
            out.append(cut_faces(f.image, [jitter_corners(d.corners, rng) for d in f.dice]))
    return np.concatenate(out)


def features(session: object, crops: npt.NDArray[np.uint8]) -> tuple[F64, F64]:
    """ReLU of the embedding (the head's input) and the logits, in batches."""
    feats, logits = [], []
    for i in range(0, len(crops), 256):
        lg, emb = session.run(None, {"crops": crops[i : i + 256].astype(np.float32)})  # type: ignore[attr-defined]
        feats.append(np.maximum(emb, 0.0))
        logits.append(lg)
    return np.concatenate(feats).astype(np.float64), np.concatenate(logits).astype(np.float64)


def fit_row(
    h: F64,
    motif_logits: F64,
    is_not_die: npt.NDArray[np.bool_],
    w0: F64,
    b0: float,
    *,
    l2: float = 1e-3,
    steps: int = 600,
) -> tuple[F64, float]:
    """The not-a-die row: P(not a die) = sigmoid(w.h + b - logsumexp(motif logits)), classes
    weighted equally."""
    lse = np.log(
        np.exp(motif_logits - motif_logits.max(axis=1, keepdims=True)).sum(axis=1)
    ) + motif_logits.max(axis=1)
    y = is_not_die.astype(np.float64)
    cw = np.where(is_not_die, 0.5 / max(y.sum(), 1), 0.5 / max((1 - y).sum(), 1))
    w, b = w0.copy(), float(b0)
    m = [np.zeros_like(w), 0.0]
    v = [np.zeros_like(w), 0.0]
    lr, b1, b2 = 0.05, 0.9, 0.999
    for t in range(1, steps + 1):
        z = h @ w + b - lse
        p = 1 / (1 + np.exp(-np.clip(z, -50, 50)))
        g = (p - y) * cw
        grads = [h.T @ g + l2 * (w - w0), float(g.sum())]
        for i, grad in enumerate(grads):
            m[i] = b1 * m[i] + (1 - b1) * grad
            v[i] = b2 * v[i] + (1 - b2) * grad * grad
            step = lr * (m[i] / (1 - b1**t)) / (np.sqrt(v[i] / (1 - b2**t)) + 1e-8)
            if i == 0:
                w = w - step
            else:
                b = b - float(step)
    return w, b


def refit(path: Path, frames: int, seed: int = FIRST_SEED) -> dict[str, object]:
    t0 = time.time()
    rng = np.random.default_rng(seed)
    fam = family_styles("train", 400, seed)
    dice = make_crops(rng.integers(0, 2**31, frames), TRAIN, background=1, size=(1280, 960))
    fdice = make_crops(rng.integers(0, 2**31, frames), fam, background=1)
    pips = pip_dice(seed, frames, PIP_TRAIN)
    drawn = non_die_crops(3000, seed + 1)
    crops = np.concatenate([dice.images, fdice.images, pips, drawn])
    not_die = np.concatenate(
        [
            dice.labels == NOT_DIE,
            fdice.labels == NOT_DIE,
            np.zeros(len(pips), bool),
            np.ones(len(drawn), bool),
        ]
    )
    model = onnx.load(str(path))
    init = {i.name: i for i in model.graph.initializer}
    weight = numpy_helper.to_array(init["head.weight"]).astype(np.float64)
    bias = numpy_helper.to_array(init["head.bias"]).astype(np.float64)
    if weight.shape[0] != 6:
        raise SystemExit(f"{path} has no not-a-die output")
    h, logits = features(cpu_session(path, 1), crops)
    k = NOT_DIE
    before = logits[:, k] - np.log(np.exp(logits[:, :k]).sum(axis=1))
    w, b = fit_row(h, logits[:, :k], not_die, weight[k], float(bias[k]))
    after = h @ w + b - np.log(np.exp(logits[:, :k]).sum(axis=1))
    weight[k], bias[k] = w, b
    init["head.weight"].CopyFrom(numpy_helper.from_array(weight.astype(np.float32), "head.weight"))
    init["head.bias"].CopyFrom(numpy_helper.from_array(bias.astype(np.float32), "head.bias"))
    onnx.save(model, str(path))
    is_pip = np.zeros(len(crops), bool)
    is_pip[
        len(dice.images) + len(fdice.images) : len(dice.images) + len(fdice.images) + len(pips)
    ] = True

    def share(z: F64, sel: npt.NDArray[np.bool_]) -> float:
        return float(np.mean(z[sel] > 0)) if sel.any() else float("nan")

    return {
        "crops": int(len(crops)),
        "pip_dice": int(is_pip.sum()),
        "not_dice": int(not_die.sum()),
        "before": {
            "pip_dice_called_not_die": share(before, is_pip),
            "dice_called_not_die": share(before, ~not_die & ~is_pip),
            "not_dice_caught": share(before, not_die),
        },
        "after": {
            "pip_dice_called_not_die": share(after, is_pip),
            "dice_called_not_die": share(after, ~not_die & ~is_pip),
            "not_dice_caught": share(after, not_die),
        },
        "seconds": round(time.time() - t0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default=str(Path(__file__).resolve().parent / "faces.onnx"))
    ap.add_argument("--frames", type=int, default=300, help="frames of each kind")
    args = ap.parse_args()
    print(json.dumps(refit(Path(args.model), args.frames)))


if __name__ == "__main__":
    main()
