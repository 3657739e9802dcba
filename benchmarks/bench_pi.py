"""Per-stage timings of one read at the Pi camera's resolution, on 1 and 2 threads.

The Pi reads 2304x1296 stills from the Camera Module 3 (the full field of
view, 2x2 binned); this splits a read into its stages so the cost on a Pi can
be estimated from a faster machine (see docs/raspberry-pi.md).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

import cv2

from companion.synth.frame import render_frame
from companion.synth.styles import HELD_OUT
from companion.vision.classify import FaceClassifier
from companion.vision.crop import cut_faces
from companion.vision.detect import find_dice

from .machine import describe

SIZE = (2304, 1296)
FRAMES = 8
REPEATS = 5


def _median_ms(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    print(
        f"bench_pi on {describe()}; frames {SIZE[0]}x{SIZE[1]}, 20 dice, median of {REPEATS} x "
        f"{FRAMES} frames"
    )
    frames = [
        render_frame(900 + k, n_dice=20, size=SIZE, styles=HELD_OUT).image for k in range(FRAMES)
    ]
    for threads in (1, 2):
        cv2.setNumThreads(threads)
        clf = FaceClassifier(threads=threads)
        clf.classify(cut_faces(frames[0], [d.corners for d in find_dice(frames[0])]))  # warm up
        stages: dict[str, list[float]] = {
            "find dice": [],
            "cut crops": [],
            "classify": [],
            "total": [],
        }
        for img in frames:
            found = find_dice(img)
            corners = [d.corners for d in found]
            crops = cut_faces(img, corners)
            stages["find dice"].append(_median_ms(lambda img=img: find_dice(img)))
            stages["cut crops"].append(_median_ms(lambda img=img, c=corners: cut_faces(img, c)))
            stages["classify"].append(_median_ms(lambda cr=crops, f=clf: f.classify(cr)))
            stages["total"].append(
                _median_ms(
                    lambda img=img, f=clf: f.classify(
                        cut_faces(img, [d.corners for d in find_dice(img)])
                    )
                )
            )
        line = ", ".join(f"{k} {statistics.median(v):.1f} ms" for k, v in stages.items())
        print(f"  {threads} thread{'s' if threads > 1 else ''}: {line}")
    cv2.setNumThreads(os.cpu_count() or 1)


if __name__ == "__main__":
    main()
