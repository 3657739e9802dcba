"""Read ordinary pip dice (VISION.md "Ordinary dice"): the number of pips on the top face.

Its own small ONNX model (models/pips.onnx, see models/PIPS_CARD.md), trained on
rendered pip dice only. Each die is cut at the finder's corners, which frame
its top face: grown further, the crop takes in the side faces and their pips,
which on real photos turned twos into threes. Training cuts dice both there
and around their true top face, jittered and up to 1.3x wider (a finder's
corners often take in part of a tilted die's sides). Each crop is then read
at four quarter turns whose probabilities
are averaged: a pip face reads the same at any quarter turn, so what changes
between turns is the network's own noise. Below the threshold chosen on
rendered sets training never saw, a die is `?`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.paths import shipped_model
from companion.vision.classify import FaceReading, open_classifier, softmax
from companion.vision.crop import CROP_SIZE, cut_face

PIP_FACES = ("1", "2", "3", "4", "5", "6")
UNKNOWN = "?"
MODEL_ENV = "COMPANION_PIP_MODEL"
#: The finder's corners are grown by this factor about their centre before the cut.
GROW = 1.0
F32 = npt.NDArray[np.float32]


def default_pip_model_path() -> Path:
    """COMPANION_PIP_MODEL if set, else models/pips.onnx of this checkout."""
    return shipped_model(MODEL_ENV, "pips.onnx")


def grow_corners(corners: npt.ArrayLike, factor: float = GROW) -> npt.NDArray[np.float32]:
    c = np.asarray(corners, np.float32).reshape(4, 2)
    center = c.mean(axis=0)
    return np.asarray((c - center) * factor + center, np.float32)


def cut_pip_faces(
    image_bgr: npt.NDArray[np.uint8], corners: Sequence[npt.ArrayLike]
) -> npt.NDArray[np.uint8]:
    """The crops the pip model reads: (N, 64, 64, 3) uint8 BGR."""
    if len(corners) == 0:
        return np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    return np.stack([cut_face(image_bgr, grow_corners(c)) for c in corners])


def quarter_turns(crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """(4N, ...) batch: every crop at 0, 90, 180 and 270 degrees, turn by turn."""
    return np.ascontiguousarray(np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)]))


class PipClassifier:
    """The pip model, loaded once; same interface as classify.FaceClassifier."""

    def __init__(self, path: str | Path | None = None, *, threads: int = 2) -> None:
        self.path = Path(path) if path is not None else default_pip_model_path()
        self._session, meta = open_classifier(
            self.path,
            "pip",
            PIP_FACES,
            env=MODEL_ENV,
            script="models/train_pips.py",
            threads=threads,
        )
        self.temperature = float(meta["temperature"])
        self.threshold = float(meta["threshold"])
        self._input = self._session.get_inputs()[0].name

    def logits(self, crops: npt.NDArray[np.uint8]) -> F32:
        """Raw logits (N, 6) of a batch of crops, one turn only."""
        if crops.ndim != 4 or crops.shape[1:] != (CROP_SIZE, CROP_SIZE, 3):
            raise ValueError(f"crops must have shape (N, {CROP_SIZE}, {CROP_SIZE}, 3)")
        if len(crops) == 0:
            return np.zeros((0, len(PIP_FACES)), np.float32)
        out = self._session.run(None, {self._input: crops.astype(np.float32)})[0]
        return np.asarray(out, np.float32)

    def probabilities(self, crops: npt.NDArray[np.uint8]) -> F32:
        """Calibrated probabilities (N, 6), averaged over the four quarter turns."""
        n = len(crops)
        if n == 0:
            return np.zeros((0, len(PIP_FACES)), np.float32)
        p = softmax(self.logits(quarter_turns(crops)) / self.temperature)
        return np.asarray(p.reshape(4, n, -1).mean(axis=0), np.float32)

    def classify(self, crops: npt.NDArray[np.uint8]) -> list[FaceReading]:
        probs = self.probabilities(crops)
        out = []
        for row in probs:
            k = int(row.argmax())
            conf = float(row[k])
            out.append(
                FaceReading(PIP_FACES[k] if conf >= self.threshold else UNKNOWN, conf, PIP_FACES[k])
            )
        return out

    def read(
        self, image_bgr: npt.NDArray[np.uint8], corners: Sequence[npt.ArrayLike]
    ) -> list[FaceReading]:
        """Read every die of a frame given the finder's corners of each."""
        return self.classify(cut_pip_faces(image_bgr, corners))
