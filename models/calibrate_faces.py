"""Fit the temperatures and choose the `?` thresholds on validation styles.

Writes them into the ONNX file's metadata, where companion.vision.classify
reads them. They are fitted on what the reader really sees: rendered
1280x960 frames of VALIDATION styles (seeds 30000..; never used for
training, for choosing the finder's settings nor for the held-out figures),
every die found and cut by the learned finder, half-hidden dice left out.
The thresholds are the lowest that keep silent errors (a wrong face not
flagged `?`) at or below TARGET there: 0.01 %, a tenth of the 0.1 % allowed.
For the profile, each frame's dice sets are enrolled as a table does it
(companion.vision.enrol_sim) and the frame is read with that profile.

    python models/calibrate_faces.py [--model models/faces.onnx] [--frames 600]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy.typing as npt  # noqa: E402
import onnx  # noqa: E402
from faceeval import choose_threshold, fit_temperature, scores  # noqa: E402

from companion.synth import render_frame  # noqa: E402
from companion.synth.styles import VALIDATION  # noqa: E402
from companion.vision.classify import FACES, FaceClassifier, softmax  # noqa: E402
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.detect_net import find_dice_net  # noqa: E402
from companion.vision.enrol_sim import SimulatedEnrolment  # noqa: E402
from companion.vision.scoring import match_points, outside_frame  # noqa: E402

TARGET = 0.0001
FIRST_SEED = 30_000


def write_metadata(path: Path, values: dict[str, str]) -> None:
    model = onnx.load(str(path))
    keep = [p for p in model.metadata_props if p.key not in values]
    del model.metadata_props[:]
    model.metadata_props.extend(keep)
    for k, v in values.items():
        model.metadata_props.add(key=k, value=v)
    onnx.save(model, str(path))


@dataclass
class ReadDice:
    labels: npt.NDArray[np.int64]
    logits: npt.NDArray[np.float32]
    embeddings: npt.NDArray[np.float32]
    sets: list[tuple[str, ...]]  # the dice sets of each die's frame


def read_frames(clf: FaceClassifier, n_frames: int, first: int = FIRST_SEED) -> ReadDice:
    """Every whole die the finder finds and matches in n rendered validation frames."""
    labels: list[int] = []
    logits, embs = [], []
    sets: list[tuple[str, ...]] = []
    for seed in range(first, first + n_frames):
        f = render_frame(seed, size=(1280, 960), styles=VALIDATION)
        h, w = f.image.shape[:2]
        found = [d for d in find_dice_net(f.image) if d.clean]
        pairs = match_points([d.center for d in found], [d.corners for d in f.dice])
        keep = [(i, j) for i, j in pairs if not outside_frame(f.dice[j].corners, w, h)]
        if not keep:
            continue
        lg, emb = clf.run(cut_faces(f.image, [found[i].corners for i, _ in keep]))
        logits.append(lg)
        embs.append(emb)
        labels.extend(FACES.index(f.dice[j].face) for _, j in keep)
        key = tuple(sorted({d.style for d in f.dice}))
        sets.extend([key] * len(keep))
    return ReadDice(np.asarray(labels, np.int64), np.concatenate(logits), np.concatenate(embs), sets)


def calibrate(path: Path, *, frames: int = 600, quick: bool = False) -> dict[str, object]:
    t0 = time.time()
    # Provisional values so that the classifier can load the model.
    write_metadata(path, {"classes": ",".join(FACES), "temperature": "1", "threshold": "0",
                          "profile_temperature": "1", "profile_threshold": "0"})
    dice = read_frames(FaceClassifier(path), 6 if quick else frames)
    temp = fit_temperature(dice.logits, dice.labels)
    thr = choose_threshold(softmax(dice.logits / temp), dice.labels, TARGET)
    # A profile corrects the calibrated logits: enrol once the base temperature is known.
    write_metadata(path, {"temperature": f"{temp:.6g}"})
    clf = FaceClassifier(path)
    enrol = SimulatedEnrolment(clf, find_dice_net)
    base = dice.logits / temp
    prof = np.empty_like(base)
    for key in sorted(set(dice.sets)):
        rows = np.array([k == key for k in dice.sets])
        prof[rows] = enrol.profile(key).logits(dice.embeddings[rows], base[rows])
    ptemp = fit_temperature(prof, dice.labels)
    pthr = choose_threshold(softmax(prof / ptemp), dice.labels, TARGET)
    values = {"classes": ",".join(FACES), "temperature": f"{temp:.6g}", "threshold": f"{thr:.6g}",
              "profile_temperature": f"{ptemp:.6g}", "profile_threshold": f"{pthr:.6g}",
              "silent_target": str(TARGET)}
    write_metadata(path, values)
    report = {"metadata": values, "validation_dice": int(len(dice.labels)), "validation_frames": 6 if quick else frames,
              "first_seed": FIRST_SEED, "validation_sets": len(set(dice.sets)),
              "base": scores(softmax(dice.logits / temp), dice.labels, thr),
              "profile": scores(softmax(prof / ptemp), dice.labels, pthr), "seconds": round(time.time() - t0)}
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(Path(__file__).resolve().parent / "faces.onnx"))
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    report = calibrate(Path(args.model), frames=args.frames, quick=args.quick)
    out = Path(args.model).with_suffix(".calibration.json")
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: report[k] for k in ("metadata", "validation_dice", "seconds")}))


if __name__ == "__main__":
    main()
