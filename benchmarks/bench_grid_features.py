"""A profile's head on the face model's last features kept as a grid, against its head on the
embedding, at true corners and at the finder's cuts (issue 13, session 55).

    python benchmarks/bench_grid_features.py SETS_DIR... [--json F]

Each SETS_DIR is an otherhand folder (``python -m benchmarks.otherhand.make_sets``). For every
set, the enrolment dice are collected as `vision enroll` collects them (the judged finder,
clean dice, four right angles each), and the test dice are cut twice: at their true corners
(``truth.jsonl``) and where the judged finder puts them, matched to the truth by centre as
``../shared/foreign-art/score.py`` matches. Two heads are fitted as a profile fits its own
(``enroll.fit_head``), on all of the set's enrolment dice:

- ``emb``: on the normalised 64-number embedding (what a profile reads);
- ``grid``: on the last convolution's ReLU map pooled 2x2 into 128 x 4 x 4 cells (the tensor
  the network's global pool reads, made an output of a copy of the model in a temporary
  folder), square roots, normalised; L2 penalty ``--grid-l2`` (the features outnumber the
  dice, so it sets how sure the head gets).

Each test die is read with READ_ROTATIONS views, as a profile reads. Reported per set and in
all: the share whose best guess is right (no limit), and the dice right and wrong at a
confidence of at least 0.6, 0.8 and 0.9. Nothing here is read by `vision read`: it measures
whether the grid's gain at true corners survives real cuts (session 55: mostly not;
docs/vision.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared" / "foreign-art"))

from benchmarks.machine import describe  # noqa: E402
from companion.vision.classify import (  # noqa: E402
    FACES,
    READ_ROTATIONS,
    FaceClassifier,
    default_enrol_model_path,
    normalise,
    softmax,
    with_rotations,
)
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.enroll import Finder, collect, fit_head  # noqa: E402
from companion.vision.image_file import load_image  # noqa: E402
from companion.vision.judged import judged_finder  # noqa: E402

F32 = npt.NDArray[np.float32]
LIMITS = (0.6, 0.8, 0.9)
BATCH = 256


def grid_model(src: Path, out: Path) -> Path:
    """A copy of the face model that also gives its last features pooled 2x2 (``grid``)."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(src))
    pools = [n for n in model.graph.node if n.op_type == "GlobalAveragePool"]
    if len(pools) != 1:
        raise SystemExit(f"{src}: expected one global average pool, found {len(pools)}")
    model.graph.node.append(
        helper.make_node(
            "AveragePool", [pools[0].input[0]], ["grid"], kernel_shape=[2, 2], strides=[2, 2]
        )
    )
    model.graph.output.append(
        helper.make_tensor_value_info("grid", TensorProto.FLOAT, ["n", None, None, None])
    )
    onnx.save(model, str(out))
    return out


class Views:
    """The embedding and the grid of crops at right angles: (R, N, D) each, normalised."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort

        self.session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def __call__(self, crops: npt.NDArray[np.uint8], rotations: int) -> tuple[F32, F32]:
        x = with_rotations(crops, rotations)
        embs, grids = [], []
        for i in range(0, len(x), BATCH):
            _, emb, grid = self.session.run(None, {self.input: x[i : i + BATCH].astype(np.float32)})
            embs.append(emb)
            grids.append(np.sqrt(np.maximum(grid, 0.0)).reshape(len(emb), -1))
        n = len(crops)
        return (
            normalise(np.concatenate(embs).reshape(rotations, n, -1)),
            normalise(np.concatenate(grids).reshape(rotations, n, -1)),
        )


def test_dice(
    folder: Path, finder: Finder
) -> tuple[
    npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.int64]
]:
    """Test crops at true corners and their motifs; crops where the finder cut and theirs."""
    from score import match  # ../shared/foreign-art/score.py: the contract's matching

    true_x: list[npt.NDArray[np.uint8]] = []
    cut_x: list[npt.NDArray[np.uint8]] = []
    true_y: list[int] = []
    cut_y: list[int] = []
    for line in (folder / "truth.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        t = json.loads(line)
        image = load_image(folder / t["image"])
        true_x.extend(cut_faces(image, [np.asarray(d["quad"], np.float32) for d in t["dice"]]))
        true_y.extend(FACES.index(d["face"]) for d in t["dice"])
        found = finder(image)
        centres = [np.asarray(f.corners, np.float64).reshape(4, 2).mean(axis=0) for f in found]
        cuts = cut_faces(image, [f.corners for f in found])
        pred = [{"x": float(c[0]), "y": float(c[1])} for c in centres]
        for i, j in match(t["dice"], pred):
            cut_x.append(cuts[j])
            cut_y.append(FACES.index(t["dice"][i]["face"]))
    return np.stack(true_x), np.asarray(true_y), np.stack(cut_x), np.asarray(cut_y)


def scores(w: F32, b: F32, x: F32, y: npt.NDArray[np.int64]) -> dict[str, float]:
    z = x @ w + b
    p = softmax(z.reshape(-1, z.shape[-1])).reshape(z.shape).mean(axis=0)
    best, conf = p.argmax(axis=1), p.max(axis=1)
    ok = best == y
    out = {"n": float(len(y)), "top1": float(ok.sum())}
    for lim in LIMITS:
        out[f"right@{lim}"] = float((ok & (conf >= lim)).sum())
        out[f"wrong@{lim}"] = float((~ok & (conf >= lim)).sum())
    return out


def measure(views: Views, finder: Finder, enrol: Path, test: Path, l2: float) -> dict[str, object]:
    e = collect(enrol, finder)
    rot, grid = views(e.crops, 4)
    labels = np.tile(e.labels, 4)
    heads = {
        "emb": fit_head(rot.reshape(-1, rot.shape[-1]), labels),
        "grid": fit_head(grid.reshape(-1, grid.shape[-1]), labels, l2=l2),
    }
    true_x, true_y, cut_x, cut_y = test_dice(test, finder)
    out: dict[str, object] = {"enrolled": len(e.labels)}
    for cut, (x, y) in (("true", (true_x, true_y)), ("finder", (cut_x, cut_y))):
        t_rot, t_grid = views(x, READ_ROTATIONS)
        for name, feats in (("emb", t_rot), ("grid", t_grid)):
            out[f"{name} {cut}"] = scores(*heads[name], feats, y)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="otherhand folders (enroll/, test/)")
    ap.add_argument("--grid-l2", type=float, default=1e-4, help="the grid head's L2 penalty")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    clf = FaceClassifier(default_enrol_model_path())
    finder = judged_finder(clf)
    per: dict[str, dict[str, object]] = {}
    total: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        views = Views(grid_model(clf.path, Path(tmp) / "grid.onnx"))
        for d in args.dirs:
            for s in sorted(p.name for p in (d / "test").iterdir() if p.is_dir()):
                r = measure(views, finder, d / "enroll" / s, d / "test" / s, args.grid_l2)
                per[s] = r
                cells = []
                for key, v in r.items():
                    if isinstance(v, dict):
                        acc = total.setdefault(key, {})
                        for k, n in v.items():
                            acc[k] = acc.get(k, 0.0) + n
                        cells.append(f"{key} {v['top1'] / v['n']:.3f}")
                print(s, " ".join(cells), flush=True)
    print(f"machine: {describe()}; {len(per)} sets")
    for key, acc in total.items():
        n = acc["n"]
        lims = " ".join(
            f"@{lim}: {acc[f'right@{lim}'] / n:.4f} right, {int(acc[f'wrong@{lim}'])} wrong"
            for lim in LIMITS
        )
        print(f"{key:12s} top-1 {acc['top1'] / n:.4f} of {int(n)}; {lims}")
    if args.json:
        args.json.write_text(json.dumps({"sets": per, "total": total}, indent=1) + "\n")


if __name__ == "__main__":
    main()
