"""Average the weights of two face models of one graph (WiSE-FT: a network and its fine-tune).

    python models/average_faces.py models/faces.onnx FINE_TUNED.onnx --share 0.5 --out OUT.onnx
    python models/calibrate_faces.py --model OUT.onnx --frames 150

Every floating-point initializer becomes (1 - share) x the first model's plus share x the
second's; the graph, its metadata and every other initializer are the first model's, and
the two graphs must match node for node. The result must be calibrated again before it is
read with (MODEL_CARD.md, "ninth round"). Needs the `onnx` package (a training tool, not a
runtime dependency).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("first")
    ap.add_argument("second")
    ap.add_argument("--share", type=float, default=0.5, help="the second model's share")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    import onnx  # deferred: a training tool
    from onnx import numpy_helper

    a, b = onnx.load(args.first), onnx.load(args.second)
    if [n.op_type for n in a.graph.node] != [n.op_type for n in b.graph.node]:
        print("the two models are not the same graph", file=sys.stderr)
        return 1
    theirs = {t.name: numpy_helper.to_array(t) for t in b.graph.initializer}
    mixed = 0
    for t in a.graph.initializer:
        mine, other = numpy_helper.to_array(t), theirs.get(t.name)
        if other is None or other.shape != mine.shape:
            print(f"initializer {t.name} differs in shape or is missing", file=sys.stderr)
            return 1
        if mine.dtype.kind == "f":
            blend = (1.0 - args.share) * mine + args.share * other
            t.CopyFrom(numpy_helper.from_array(blend.astype(mine.dtype), t.name))
            mixed += 1
        elif not np.array_equal(mine, other):
            print(f"initializer {t.name} is not a weight and differs", file=sys.stderr)
            return 1
    onnx.save(a, args.out)
    print(f"{mixed} weights averaged ({args.share:g} of {args.second}) into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
