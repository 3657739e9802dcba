"""Experiment: would a profile head read our drawing families better on the network's spatial
map than on its 64-d embedding? (issue 13, seventh round; docs/vision.md, enrolment)

    python benchmarks/profile_features.py [--split validation|held_out] [--model M]

Needs the `onnx` package (the training extra), to give the face model two more outputs: the
8x8x128 map before global pooling and the 16x16x64 map before it. For each of
bench_families.py's 24 sets (the same enrolment and test frames), a head is fitted as
enrolment fits one (enroll.fit_head: normalised features, every enrolled die at its four
right angles) on: the embedding (what profiles use), the pooled 128 features under it, the
8x8 map pooled to 2x2 or 4x4 cells (where on the face the strokes lie), and the embedding
joined with the 2x2 map or with the pooled 16x16 map; each at two weight decays, read with
2 or 4 views a die. Prints the best guess's accuracy and, at confidences 0.6 / 0.8 / 0.9,
the share read right and the number of wrong reads above the limit.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks.bench_families import FIRST_SEED, family_frame  # noqa: E402
from companion.evaluation.enrol_sim import SimulatedEnrolment  # noqa: E402
from companion.synth.family_sets import family_styles  # noqa: E402
from companion.synth.frame import FACES  # noqa: E402
from companion.vision.classify import FaceClassifier, default_model_path  # noqa: E402
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.detect_net import find_dice_net  # noqa: E402
from companion.vision.enroll import fit_head, normalise  # noqa: E402

MAPS = (
    "/features/features.6/features.6.2/Relu_output_0",
    "/features/features.4/features.4.2/Relu_output_0",
)


def spatial_session(model: Path, out: Path) -> object:
    import onnx
    import onnxruntime as ort

    m = onnx.load(str(model))
    for name in MAPS:
        m.graph.output.append(
            onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None)
        )
    onnx.save(m, str(out))
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(str(out), so, providers=["CPUExecutionProvider"])


def features(sess: object, crops: np.ndarray) -> dict[str, np.ndarray]:
    """Each variant's features of every crop at its four right angles (4, N, D)."""
    out: dict[str, list[np.ndarray]] = {}
    for r in range(4):
        x = np.ascontiguousarray(np.rot90(crops, r, axes=(1, 2))).astype(np.float32)
        _, emb, m8, m16 = sess.run(None, {"crops": x})  # type: ignore[attr-defined]
        n = len(x)
        s2 = m8.reshape(n, 128, 2, 4, 2, 4).mean(axis=(3, 5)).reshape(n, -1)
        s4 = m8.reshape(n, 128, 4, 2, 4, 2).mean(axis=(3, 5)).reshape(n, -1)
        v = {
            "emb": emb,
            "gap128": m8.mean(axis=(2, 3)),
            "s2": s2,
            "s4": s4,
            "emb+s2": np.concatenate([normalise(emb), normalise(s2)], 1),
            "emb+g16": np.concatenate([normalise(emb), normalise(m16.mean(axis=(2, 3)))], 1),
        }
        for k, f in v.items():
            out.setdefault(k, []).append(f.astype(np.float32))
    return {k: np.stack(v) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--split", default="validation", choices=("validation", "held_out"))
    ap.add_argument("--model", default=None)
    ap.add_argument("--work", default="/tmp/profile_features.onnx", help="the model with its maps")
    args = ap.parse_args()
    model = Path(args.model) if args.model else default_model_path()
    sess = spatial_session(model, Path(args.work))
    clf = FaceClassifier(model)
    enrol = SimulatedEnrolment(clf, find_dice_net)
    styles = family_styles(args.split, 24, FIRST_SEED + (0 if args.split == "held_out" else 1))
    enrol.add_styles(styles)
    results: dict[tuple[str, float, int], list[tuple[np.ndarray, np.ndarray]]] = {}
    t0 = time.time()
    for i, style in enumerate(styles):
        ec, el, _ = enrol.style_crops(style.name)
        crops, truth = [], []
        for j in range(2):
            f, found, pairs = family_frame(style, i, j)
            if pairs:
                crops.append(cut_faces(f.image, [found[a].corners for a, _ in pairs]))
                truth += [FACES.index(f.dice[b].face) for _, b in pairs]
        fe, ft, tl = features(sess, ec), features(sess, np.concatenate(crops)), np.asarray(truth)
        for k in fe:
            d = fe[k].shape[-1]
            for l2 in (1e-3, 1e-2):
                w_, b_ = fit_head(fe[k].reshape(-1, d), np.tile(el, 4), l2=l2)
                for views in (2, 4):
                    x = normalise(ft[k][:views].reshape(-1, d)).reshape(views, len(tl), d)
                    z = x @ w_ + b_
                    p = np.exp(z - z.max(-1, keepdims=True))
                    results.setdefault((k, l2, views), []).append(
                        ((p / p.sum(-1, keepdims=True)).mean(0), tl)
                    )
        print(f"set {i + 1}/{len(styles)}, {len(tl)} dice, {time.time() - t0:.0f} s", flush=True)
    print(f"\n{args.split} families, {model.name}")
    print(f"{'features':<8} {'l2':>6} views  best guess |  >= 0.6 right wrong |  >= 0.8 |  >= 0.9")
    for (k, l2, views), parts in results.items():
        p = np.concatenate([a for a, _ in parts])
        t = np.concatenate([b for _, b in parts])
        best, conf = p.argmax(1), p.max(1)
        row = [f"{100 * (best == t).mean():10.2f}"]
        for th in (0.6, 0.8, 0.9):
            ok = conf >= th
            row.append(f"{100 * ((best == t) & ok).mean():6.2f} {int(((best != t) & ok).sum()):5d}")
        print(f"{k:<8} {l2:>6g} {views:>5}  " + " | ".join(row))


if __name__ == "__main__":
    main()
