"""Reading a frame: find every die, cut its top face, read its motif.

A die the finder could not cut out cleanly, or streaked beyond slight motion
blur (blur.py), is still read (so its confidence says something) but reported
as ``?``: doubt is shown, never hidden. A find
the face model is sure holds no die at all (a grid square or a printed marker
the finder mistook for a die; classify.NOT_A_DIE) is left out of the reading.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
import numpy.typing as npt

from companion.vision.blur import blurred
from companion.vision.crop import CROP_SIZE, cut_faces
from companion.vision.detect import DetectorSettings
from companion.vision.detect_net import find_dice_net, weigh_sizes_again
from companion.vision.finders import DEFAULT_FINDER, Finder, make_finder
from companion.vision.found import FoundDie
from companion.vision.image_file import ImageFileError as ReadError  # an image that cannot be read
from companion.vision.image_file import load_image
from companion.vision.judged import Judge, JudgeSettings, find_and_read
from companion.vision.look_alone import enrolled_again

UNKNOWN = "?"


class _Reading(Protocol):
    @property
    def face(self) -> str: ...
    @property
    def confidence(self) -> float: ...


class FaceReader(Protocol):
    """What the reader needs of the face classifier (companion.vision.classify)."""

    def read(
        self, image_bgr: npt.NDArray[np.uint8], corners: list[npt.NDArray[np.float32]]
    ) -> list[Any]: ...
    def classify(self, crops: npt.NDArray[np.uint8]) -> list[Any]: ...


@dataclass(frozen=True)
class DieReading:
    """One die as VISION.md reports it, plus the top-face corners it was read from."""

    x: float
    y: float
    face: str
    confidence: float
    corners: npt.NDArray[np.float32]

    def to_json(self) -> dict[str, Any]:
        return {
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "face": self.face,
            "confidence": round(self.confidence, 3),
        }


class Reader:
    """Finder and face classifier together; build once, then read frame after frame."""

    def __init__(
        self,
        classifier: FaceReader,
        settings: DetectorSettings | None = None,
        finder: Finder | None = None,
        judge: JudgeSettings | None = None,
        threads: int = 2,
        blur_gate: bool = False,
    ) -> None:
        """``judge``: find with the learned finder's candidates judged by the face model
        (judged.py) instead of ``finder``, its network on ``threads``; only for a face model
        that knows non-dice. ``blur_gate``: a die smeared beyond slight motion blur reads `?`
        (blur.py; off by default, as JudgeSettings.blur_gate, the judge's own)."""
        self.threads = threads
        self.blur_gate = blur_gate
        self.classifier = classifier
        self.settings = settings
        self.finder = finder or make_finder("classic", settings)
        self.judge = judge if getattr(classifier, "knows_non_dice", False) else None

    @classmethod
    def load(
        cls,
        profile: Path | str | None = None,
        model: Path | str | None = None,
        finder: str = DEFAULT_FINDER,
    ) -> Reader:
        """The shipped model (or ``model``), adapted by an enrolment profile if given.

        Raises companion.vision.classify.ModelError, enroll.EnrolmentError or
        detect_net.DetectorModelError.
        """
        from companion.vision.enroll import load_reader

        # the learned finder's candidates are judged by a face model that knows non-dice
        judge = JudgeSettings() if finder == "net" else None
        clf = load_reader(profile, model)
        if judge is not None and getattr(clf, "knows_non_dice", False):
            # judged reads look with their own network (warm_up loads it); the plain one
            # (read_found's) is loaded only if it is asked for: 2.4 MB less
            plain: Finder = find_dice_net
        else:
            plain = make_finder(finder)
        reader = cls(clf, finder=plain, judge=judge)
        reader.warm_up()
        return reader

    def warm_up(self) -> None:
        """Run the face model once so its one-off setup is counted as loading, not reading.
        (The rest of a read sets itself up on the first frame with dice: ``read_images`` reads
        its first image once untimed.) The judged finder's network and the corner refiner are
        loaded here too, so a missing one is told before the first frame
        (detect_net.DetectorModelError)."""
        self.classifier.classify(np.zeros((1, CROP_SIZE, CROP_SIZE, 3), np.uint8))
        if self.judge is not None:
            from companion.vision.detect_net import judged_detector_path, load_session

            load_session(judged_detector_path(), threads=self.threads)
            if self.judge.refine:
                from companion.vision.corner_refiner import load_refiner

                load_refiner(self.threads)

    def read(self, image_bgr: npt.NDArray[np.uint8]) -> list[DieReading]:
        return [r for _, r in self.read_with_finds(image_bgr)]

    def read_with_finds(
        self, image_bgr: npt.NDArray[np.uint8]
    ) -> list[tuple[FoundDie, DieReading]]:
        """Each die read, with the find it was read from (its reason for a `?`): what
        ``read`` reports, for tools that draw or explain a reading."""
        if self.judge is not None:
            # a face model that knows non-dice is a Judge (classify.FaceClassifier)
            found = find_and_read(
                image_bgr, cast(Judge, self.classifier), self.judge, threads=self.threads
            )
            return [(die, _reading(die, r)) for die, r in self._again(image_bgr, found)]
        return self._read_found(image_bgr, self.finder(image_bgr))

    def read_found(
        self, image_bgr: npt.NDArray[np.uint8], found: list[FoundDie]
    ) -> list[DieReading]:
        """The dice of ``found`` read (the finder's own choice, never judged)."""
        return [r for _, r in self._read_found(image_bgr, found)]

    def _read_found(
        self, image_bgr: npt.NDArray[np.uint8], found: list[FoundDie]
    ) -> list[tuple[FoundDie, DieReading]]:
        if not found:
            return []
        faces = self.classifier.read(image_bgr, [d.corners for d in found])
        # pip readings have no `not_die`: --dice d6 drops nothing
        kept = [
            (die, r)
            for die, r in zip(found, faces, strict=True)
            if not getattr(r, "not_die", False)
        ]
        if len(kept) < len(found):
            # the finds set aside no longer count toward the size of this table's dice
            dice = weigh_sizes_again([die for die, _ in kept])
            kept = [(die, r) for die, (_, r) in zip(dice, kept, strict=True)]
        if kept and self.blur_gate:
            crops = cut_faces(image_bgr, [die.corners for die, _ in kept], self.threads)
            streaked = blurred(crops)
            kept = [
                (replace(die, clean=False, reason="blurred") if blur and die.clean else die, r)
                for (die, r), blur in zip(kept, streaked, strict=True)
            ]
        return [(die, _reading(die, r)) for die, r in self._again(image_bgr, kept)]

    def _again(
        self, image_bgr: npt.NDArray[np.uint8], found: list[tuple[FoundDie, Any]]
    ) -> list[tuple[FoundDie, Any]]:
        """With an enrolment profile, the dice it reads `?` cut again (other_cuts.py)."""
        return enrolled_again(self.classifier, image_bgr, found, self.threads)


def _reading(die: FoundDie, r: _Reading) -> DieReading:
    face = str(r.face) if die.clean else UNKNOWN
    return DieReading(die.center[0], die.center[1], face, float(r.confidence), die.corners)


@dataclass(frozen=True)
class ImageResult:
    """The outcome for one image of `vision read`: dice and time, or an error."""

    image: str
    ms: float = 0.0
    dice: tuple[DieReading, ...] = ()
    error: str | None = None

    def to_json(self) -> str:
        if self.error is not None:
            return json.dumps({"image": self.image, "error": self.error}, ensure_ascii=False)
        return json.dumps(
            {
                "image": self.image,
                "ms": round(self.ms, 2),
                "dice": [d.to_json() for d in self.dice],
            },
            ensure_ascii=False,
        )

    def to_text(self) -> str:
        if self.error is not None:
            return f"{self.image}: error: {self.error}"
        if not self.dice:
            return f"{self.image}: no dice ({self.ms:.1f} ms)"
        counts: dict[str, int] = {}
        for d in self.dice:
            counts[d.face] = counts.get(d.face, 0) + 1
        order = ["I", "1", "2", "3", "4", "5", "6", "E", UNKNOWN]  # motifs and pip values
        summary = ", ".join(f"{counts[f]}x {f}" for f in order if f in counts)
        lines = [f"{self.image}: {len(self.dice)} dice: {summary} ({self.ms:.1f} ms)"]
        lines += [f"  ({d.x:7.1f}, {d.y:7.1f})  {d.face}  {d.confidence:.3f}" for d in self.dice]
        return "\n".join(lines)


def read_images(reader: Reader, paths: Iterable[str]) -> Iterator[ImageResult]:
    """Read each image in turn; a bad image gives an error result, and the rest go on."""
    warm = False
    for path in paths:
        try:
            image = load_image(path)
        except ReadError as exc:
            # the result names the image already: "big.png: error: it is 30000x30000 pixels; ..."
            yield ImageResult(path, error=str(exc).removeprefix(f"{path}: "))
            continue
        if not warm:
            # VISION.md: `ms` excludes loading. The finder's network and a read's buffers are
            # set up on the first frame with dice (~20 ms more here), so the first image is
            # read once untimed; its reading is the same.
            reader.read(image)
            warm = True
        start = time.perf_counter()
        dice = reader.read(image)
        ms = (time.perf_counter() - start) * 1000.0
        yield ImageResult(path, ms, tuple(dice))
