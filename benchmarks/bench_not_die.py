"""What the face model's "not a die" class drops from a reading: phantoms, and never a real die?

    python benchmarks/bench_not_die.py [--model models/faces.onnx] [--frames 40] [--json F]

The learned finder finds dice on three kinds of frames; every find is cut and
read by the face model (motif mode; `--dice d6` never drops anything). A find
that matches a true die and is flagged not-a-die is a real die lost; one that
matches none and is flagged is a phantom removed. Frames:

- held-out styles and held-out drawing families of our renderer, 1280x960
  (seeds 95000.., used for nothing else; truth from the renderer);
- the jade frames of ../shared/foreign-art/test (truth.jsonl; measured only,
  never tuned on);
- the real photos of ../shared/real-dice (pip dice: another art again; truth
  the labelled boxes, matched within 30 px).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from benchmarks import real_dice  # noqa: E402
from companion.evaluation.scoring import match_points  # noqa: E402
from companion.synth import HELD_OUT, render_frame  # noqa: E402
from companion.synth.family_sets import family_styles  # noqa: E402
from companion.vision.classify import FaceClassifier, default_model_path  # noqa: E402
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.detect_net import find_dice_net  # noqa: E402
from companion.vision.image_file import load_image  # noqa: E402

JADE = Path(__file__).resolve().parents[2] / "shared" / "foreign-art" / "test" / "jade"


class Count:
    def __init__(self) -> None:
        self.dice = self.dice_dropped = self.phantoms = self.phantoms_dropped = self.frames = 0

    def add(self, flagged: np.ndarray, matched: set[int]) -> None:
        self.frames += 1
        for i, f in enumerate(flagged):
            if i in matched:
                self.dice += 1
                self.dice_dropped += int(f)
            else:
                self.phantoms += 1
                self.phantoms_dropped += int(f)

    def to_json(self) -> dict[str, int]:
        return dict(vars(self))

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.frames} frames; real dice found {self.dice}, dropped as not a die "
            f"{self.dice_dropped}; "
            f"finds matching no die {self.phantoms}, dropped {self.phantoms_dropped}"
        )


def flags(
    clf: FaceClassifier, image: np.ndarray
) -> tuple[list[tuple[float, float]], list[np.ndarray], np.ndarray]:
    found = find_dice_net(image)
    if not found:
        return [], [], np.zeros(0, bool)
    probs = clf.motif_probabilities(clf.run(cut_faces(image, [d.corners for d in found]))[0])[1]
    return [d.center for d in found], [d.corners for d in found], probs >= clf.not_die_threshold


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default=str(default_model_path()))
    ap.add_argument("--frames", type=int, default=40, help="rendered frames of each kind")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    clf = FaceClassifier(args.model, threads=1)
    if not clf.knows_non_dice:
        print(f"{args.model} has no not-a-die class: it drops nothing")
        return 1
    print(f"not_die_threshold {clf.not_die_threshold:.4f}")
    out: dict[str, dict[str, int]] = {}
    for name, styles in (
        ("held-out styles", HELD_OUT),
        ("held-out families", family_styles("held_out", 100, 95)),
    ):
        c = Count()
        for seed in range(95_000, 95_000 + args.frames):
            f = render_frame(seed, size=(1280, 960), styles=styles)
            centers, _, fl = flags(clf, f.image)
            c.add(fl, {i for i, _ in match_points(centers, [d.corners for d in f.dice])})
        out[name] = c.to_json()
        print(c.line(name), flush=True)
    if (JADE / "truth.jsonl").is_file():
        c = Count()
        for line in (JADE / "truth.jsonl").read_text().splitlines():
            t = json.loads(line)
            centers, _, fl = flags(clf, load_image(str(JADE / t["image"])))
            truth = np.array([[d["x"], d["y"]] for d in t["dice"]], np.float64).reshape(-1, 2)
            radius = min((d["edge"] for d in t["dice"]), default=0.0) / 2
            c.add(fl, {i for i, _ in real_dice.match(centers, truth, radius)})
        out["jade"] = c.to_json()
        print(c.line("jade (foreign art, test/)"), flush=True)
    photos = real_dice.load()
    if photos:
        c = Count()
        for p in photos:
            centers, _, fl = flags(clf, load_image(str(p.path)))
            c.add(fl, {i for i, _ in real_dice.match(centers, p.centers)})
        out["real photos"] = c.to_json()
        print(c.line("real photos (pip dice)"), flush=True)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"model": args.model, "threshold": clf.not_die_threshold, **out}, indent=1)
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
