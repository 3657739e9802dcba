"""Sample camera frames, so that `calibrate` and `vision read` can be tried without hardware.

    .venv/bin/python calibration/make_samples.py      # from the repository root

Drawn by the project's own renderer (the simulated table of the demo): an A3
mat seen straight from above at 1280×960, once empty (for `companion
calibrate --frame`) and once with a game of three cults on it (for
`companion vision read`). `table-3cults.json` holds what was drawn where.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

HERE = Path(__file__).resolve().parent / "samples"
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from companion.synth.simtable import SimulatedTable  # noqa: E402

CONTENTS = {
    "rolling area": list("I23E1I"),
    "cult 1": list("I33E"),
    "cult 2": list("I12"),
    "cult 3": list("E"),
}
QUALITY = 88


def shoot(
    contents: dict[str, list[str]], name: str, seed: int
) -> list[tuple[str, float, float, str]]:
    table = SimulatedTable(lambda: contents, seed=seed)
    table.calibration = table.calibration.with_cults(3)
    table.open()
    try:
        frame = table.read()
    finally:
        table.close()
    cv2.imwrite(str(HERE / name), frame, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    return table.last_truth


def main() -> int:
    HERE.mkdir(exist_ok=True)
    shoot({}, "empty-mat.jpg", seed=3)
    truth = shoot(CONTENTS, "table-3cults.jpg", seed=3)
    dice = [{"zone": z, "x": round(x, 1), "y": round(y, 1), "face": f} for z, x, y, f in truth]
    (HERE / "table-3cults.json").write_text(
        json.dumps({"cults": 3, "dice": dice}, indent=1) + "\n", encoding="utf-8"
    )
    for p in sorted(HERE.iterdir()):
        print(p.relative_to(ROOT), p.stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
