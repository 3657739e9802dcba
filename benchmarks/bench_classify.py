"""Face reading latency: 20 dice of one frame in one batch, and the model's size."""

from __future__ import annotations

import statistics
import time

import numpy as np

from companion.synth import FACES, TRAIN, render_frame
from companion.vision.classify import READ_ROTATIONS, FaceClassifier, default_enrol_model_path
from companion.vision.crop import cut_faces
from companion.vision.enroll import fit_profile

from .machine import describe

DICE = 20
REPEATS = 50


def main() -> None:
    print(f"bench_classify on {describe()}")
    clf = FaceClassifier()
    frame = render_frame(3, n_dice=DICE, styles=TRAIN)
    corners = [d.corners for d in frame.dice]
    crops = cut_faces(frame.image, corners)
    for _ in range(5):  # warm-up: first runs allocate
        clf.classify(crops)
    cut_ms, run_ms, one_ms = [], [], []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        batch = cut_faces(frame.image, corners)
        t1 = time.perf_counter()
        clf.classify(batch)
        t2 = time.perf_counter()
        clf.classify(batch[:1])
        t3 = time.perf_counter()
        cut_ms.append((t1 - t0) * 1e3)
        run_ms.append((t2 - t1) * 1e3)
        one_ms.append((t3 - t2) * 1e3)
    size_kb = clf.path.stat().st_size / 1024
    print(f"  model {clf.path.name}: {size_kb:.0f} KiB")
    print(f"  cut {len(crops)} crops: median {statistics.median(cut_ms):.2f} ms")
    print(
        f"  classify {len(crops)} crops in one batch: median {statistics.median(run_ms):.2f} ms, "
        f"p90 {float(np.percentile(run_ms, 90)):.2f} ms"
    )
    print(f"  classify 1 crop: median {statistics.median(one_ms):.2f} ms")
    # With an enrolment profile each die is embedded at READ_ROTATIONS right angles.
    enrol = FaceClassifier(default_enrol_model_path())
    every = render_frame(4, n_dice=DICE, styles=TRAIN, faces=list(FACES))  # enrols every motif
    labels = np.array([FACES.index(d.face) for d in every.dice])
    if len(set(labels.tolist())) == len(FACES):
        enrol.profile = fit_profile(
            enrol, cut_faces(every.image, [d.corners for d in every.dice]), labels
        )
        for _ in range(5):
            enrol.classify(crops)
        prof_ms = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            enrol.classify(crops)
            prof_ms.append((time.perf_counter() - t0) * 1e3)
        print(
            f"  classify {len(crops)} crops with a profile ({enrol.path.name}, {READ_ROTATIONS} "
            "views a die): median "
            f"{statistics.median(prof_ms):.2f} ms, p90 {float(np.percentile(prof_ms, 90)):.2f} ms"
        )


if __name__ == "__main__":
    main()
