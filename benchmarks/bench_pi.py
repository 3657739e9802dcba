"""Per-stage timings of one read at the Pi camera's resolution, on 1 and 2 threads.

The Pi reads 2304x1296 stills from the Camera Module 3 (the full field of
view, 2x2 binned); this splits a read into its stages so the cost on a Pi can
be estimated from a faster machine (see docs/raspberry-pi.md). "whole read" is
`vision read`'s own path: the learned finder's candidates judged by the face model
(judged.py); the three stages before it time the finder alone, the cut and the
classifier on the dice it found.
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
from companion.vision.detect import ImageBGR
from companion.vision.detect_net import find_dice_net
from companion.vision.found import FoundDie
from companion.vision.judged import JudgeSettings
from companion.vision.read import Reader

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
        f"{FRAMES} frames; the learned finder, candidates judged as `vision read` does"
    )
    frames = [
        render_frame(900 + k, n_dice=20, size=SIZE, styles=HELD_OUT).image for k in range(FRAMES)
    ]
    for threads in (1, 2):
        cv2.setNumThreads(threads)
        clf = FaceClassifier(threads=threads)

        def find(img: ImageBGR, t: int = threads) -> list[FoundDie]:
            return find_dice_net(img, threads=t)

        reader = Reader(clf, finder=find, judge=JudgeSettings(), threads=threads)
        reader.warm_up()
        reader.read(frames[0])
        stages: dict[str, list[float]] = {
            "find dice": [],
            "cut crops": [],
            "classify": [],
            "whole read": [],
        }
        for img in frames:
            corners = [d.corners for d in find(img)]
            crops = cut_faces(img, corners)
            stages["find dice"].append(_median_ms(lambda img=img: find(img)))
            stages["cut crops"].append(
                _median_ms(lambda img=img, c=corners, t=threads: cut_faces(img, c, t))
            )
            stages["classify"].append(_median_ms(lambda cr=crops, f=clf: f.classify(cr)))
            stages["whole read"].append(_median_ms(lambda img=img, r=reader: r.read(img)))
        line = ", ".join(f"{k} {statistics.median(v):.1f} ms" for k, v in stages.items())
        print(f"  {threads} thread{'s' if threads > 1 else ''}: {line}")
    cv2.setNumThreads(os.cpu_count() or 1)


if __name__ == "__main__":
    main()
