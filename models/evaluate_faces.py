"""Evaluate the shipped model on the HELD_OUT styles, with and without enrolment.

Every held-out style (a whole dice set the model never saw) is enrolled from
two frames per motif, then read on ordinary frames of the same set. Writes
models/faces_eval.json, which MODEL_CARD.md quotes.

    python models/evaluate_faces.py [--model models/faces.onnx] [--test-frames 6]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faceeval import run_trial, scores  # noqa: E402

from companion.synth.styles import HELD_OUT  # noqa: E402
from companion.vision.classify import FaceClassifier  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    here = Path(__file__).resolve().parent
    ap.add_argument("--model", default=str(here / "faces.onnx"))
    ap.add_argument("--test-frames", type=int, default=6)
    ap.add_argument("--seed", type=int, default=90_000)
    ap.add_argument("--out", default=str(here / "faces_eval.json"))
    args = ap.parse_args()
    t0 = time.time()
    clf = FaceClassifier(args.model)
    cal = clf.calibration
    trials = [
        run_trial(clf, st, args.seed + i, test_frames=args.test_frames)
        for i, st in enumerate(HELD_OUT)
    ]
    labels = np.concatenate([t.labels for t in trials])
    base = np.concatenate([t.alone_probs for t in trials])
    prof = np.concatenate([t.profile_probs for t in trials])
    sure = np.concatenate([t.profile_sure for t in trials])
    per_style = {}
    for t in trials:
        b = scores(t.alone_probs, t.labels, 0.0, t.alone_sure)
        p = scores(t.profile_probs, t.labels, 0.0, t.profile_sure)
        per_style[t.style] = {
            "n": len(t.labels),
            "base_read_right": b["read_right"],
            "base_silent": b["silent"],
            "profile_read_right": p["read_right"],
            "profile_silent": p["silent"],
        }
    report = {
        "model": str(args.model),
        "held_out_styles": len(HELD_OUT),
        "dice": int(len(labels)),
        "calibration": cal.__dict__,
        "without_enrolment": scores(
            base, labels, 0.0, np.concatenate([t.alone_sure for t in trials])
        ),
        "with_enrolment": scores(prof, labels, 0.0, sure),
        "per_style": per_style,
        "seconds": round(time.time() - t0),
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    for key in ("without_enrolment", "with_enrolment"):
        r = report[key]
        assert isinstance(r, dict)
        print(
            f"{key}: read right {r['read_right']:.4f}, silent {r['silent']:.4f}, ? "
            f"{r['unknown']:.4f}, raw accuracy {r['raw_accuracy']:.4f}"
        )
        print(
            "  per class read right:",
            {f: round(v["read_right"], 4) for f, v in r["per_class"].items()},
        )
    print(f"{len(labels)} dice, {len(HELD_OUT)} held-out styles, {report['seconds']} s")


if __name__ == "__main__":
    main()
