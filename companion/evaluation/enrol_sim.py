"""Enrolment as a table does it, on rendered dice: for calibration and benchmarks.

For each set of dice (a renderer style), two 1280x960 frames per motif with
12 dice all showing it (VISION.md: 2 frames per motif), the dice found by the
same finder the reader uses and cut out, exactly as `companion vision enroll`
does with a table's own frames; a profile is fitted, and checks itself by
leaving one frame out at a time, per combination of sets that share a frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from companion.synth import Style, render_frame, style_by_name
from companion.synth.frame import FACES
from companion.vision.classify import FaceClassifier
from companion.vision.crop import cut_faces
from companion.vision.enroll import Profile, fit_profile
from companion.vision.found import FoundDie

Finder = Callable[[npt.NDArray[np.uint8]], Sequence[FoundDie]]
FRAMES_PER_MOTIF = 2


def enrolment_seed(style_name: str) -> int:
    """The seed of a style's enrolment frames: fixed per style, away from any benchmark's seeds."""
    return 60_000 + 10 * sum(ord(c) * (i + 1) for i, c in enumerate(style_name)) % 100_000


class SimulatedEnrolment:
    """One profile per set of dice styles, enrolled as a table would (cached)."""

    def __init__(self, clf: FaceClassifier, finder: Finder) -> None:
        self.clf, self.finder = clf, finder
        self.crops: dict[
            str, tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]
        ] = {}
        self.profiles: dict[tuple[str, ...], Profile] = {}
        self.styles: dict[str, Style] = {}

    def add_styles(self, styles: Sequence[Style]) -> None:
        """Sets not in styles.py (families.py draws them), known by their name."""
        self.styles.update((s.name, s) for s in styles)

    def style_crops(
        self, name: str
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Crops, motifs and frame numbers of one set's enrolment frames."""
        if name not in self.crops:
            style = self.styles.get(name) or style_by_name(name)
            seed0 = enrolment_seed(name)
            crops, labels, frames = [], [], []
            for k, face in enumerate(FACES):
                for j in range(FRAMES_PER_MOTIF):
                    f = render_frame(seed0 + 10 * j + k, n_dice=12, styles=[style], faces=[face])
                    found = [d for d in self.finder(f.image) if d.clean]
                    cut = cut_faces(f.image, [d.corners for d in found])
                    crops.append(cut)
                    labels.extend([k] * len(cut))
                    frames.extend([FRAMES_PER_MOTIF * k + j] * len(cut))
            self.crops[name] = (
                np.concatenate(crops),
                np.asarray(labels, np.int64),
                np.asarray(frames, np.int64),
            )
        return self.crops[name]

    def profile(self, names: Sequence[str]) -> Profile:
        key = tuple(sorted(set(names)))
        if key not in self.profiles:
            parts = [self.style_crops(n) for n in key]
            # Frames of different sets are different frames.
            frames = np.concatenate([p[2] + 1000 * i for i, p in enumerate(parts)])
            self.profiles[key] = fit_profile(
                self.clf,
                np.concatenate([p[0] for p in parts]),
                np.concatenate([p[1] for p in parts]),
                frames,
            )
        return self.profiles[key]
