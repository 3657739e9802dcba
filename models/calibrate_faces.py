"""Fit the temperatures and choose the `?` thresholds on validation styles.

Writes them into the ONNX file's metadata, where companion.vision.classify
reads them. Validation styles are never used for training nor for the
held-out evaluation. The thresholds keep silent errors (a wrong face not
flagged `?`) at or below TARGET on validation, half the 0.1 % allowed, as a
margin for styles that differ more.

    python models/calibrate_faces.py [--model models/faces.onnx]
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

import onnx  # noqa: E402
from faceeval import choose_threshold, fit_temperature, run_trial, scores  # noqa: E402

from companion.synth.styles import VALIDATION  # noqa: E402
from companion.vision.classify import FACES, FaceClassifier, softmax  # noqa: E402

TARGET = 0.0005


def write_metadata(path: Path, values: dict[str, str]) -> None:
    model = onnx.load(str(path))
    keep = [p for p in model.metadata_props if p.key not in values]
    del model.metadata_props[:]
    model.metadata_props.extend(keep)
    for k, v in values.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(path))


def calibrate(path: Path, *, seed: int = 20_000, trials_per_style: int = 2, quick: bool = False) -> dict[str, object]:
    t0 = time.time()
    # Provisional values so that the classifier can load the model.
    write_metadata(path, {"classes": ",".join(FACES), "temperature": "1", "threshold": "0",
                          "profile_temperature": "1", "profile_threshold": "0"})
    clf = FaceClassifier(path)
    styles = VALIDATION[:2] if quick else VALIDATION
    trials = [run_trial(clf, st, seed + 100 * i + j, test_frames=1 if quick else 4)
              for i, st in enumerate(styles) for j in range(1 if quick else trials_per_style)]
    labels = np.concatenate([t.labels for t in trials])
    base = np.concatenate([t.base_logits for t in trials])
    prof = np.concatenate([t.profile_logits for t in trials])
    temp = fit_temperature(base, labels)
    ptemp = fit_temperature(prof, labels)
    thr = choose_threshold(softmax(base / temp), labels, TARGET)
    pthr = choose_threshold(softmax(prof / ptemp), labels, TARGET)
    values = {"classes": ",".join(FACES), "temperature": f"{temp:.6g}", "threshold": f"{thr:.6g}",
              "profile_temperature": f"{ptemp:.6g}", "profile_threshold": f"{pthr:.6g}",
              "silent_target": str(TARGET)}
    write_metadata(path, values)
    report = {"metadata": values, "validation_dice": int(len(labels)), "validation_styles": len(styles),
              "base": scores(softmax(base / temp), labels, thr),
              "profile": scores(softmax(prof / ptemp), labels, pthr), "seconds": round(time.time() - t0)}
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(Path(__file__).resolve().parent / "faces.onnx"))
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    report = calibrate(Path(args.model), quick=args.quick)
    out = Path(args.model).with_suffix(".calibration.json")
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: report[k] for k in ("metadata", "validation_dice", "seconds")}))


if __name__ == "__main__":
    main()
