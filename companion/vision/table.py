"""The table watcher: frame source, settle detection, reader and zones behind one call.

``TableWatcher`` waits for a roll to settle, reads the frame and puts every
die in its zone of the mat, and hands on one ``Seen``. The screens only ask
it for a roll or for the table as it lies (``TableCamera``); they never see a
frame source, a reader or a zone polygon.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from companion.vision.calibration import Calibration
from companion.vision.seen import (
    CameraError,
    Frame,
    FrameReader,
    ReadDie,
    Seen,
    ZoneKind,
)
from companion.vision.settle import SettleDetector, wait_for_roll
from companion.vision.sources import (
    CameraUnavailable,
    FrameSource,
    PiCameraSource,
    WebcamSource,
)
from companion.vision.zones import place_dice


class TableWatcher:
    """Looks at the table through ``source``: each settled roll, or the table as it lies.

    ``roll_kinds`` are the zones whose dice make up a roll: the rolling area
    at a real table (a die in the center is not rolled); the simulated table
    draws no center dice, so there a die on the center's square is rolled too.
    """

    def __init__(
        self,
        source: FrameSource,
        calibration: Calibration,
        reader: FrameReader,
        name: str = "",
        roll_kinds: tuple[ZoneKind, ...] = (ZoneKind.ROLLING,),
    ) -> None:
        self.source = source
        self.calibration = calibration
        self.reader = reader
        self.roll_kinds = roll_kinds
        self.cult_names: tuple[str, ...] = ()
        self.name = name or f"camera ({type(source).__name__})"
        self._stop = threading.Event()

    def set_cults(self, cults: tuple[str, ...]) -> None:
        """The cults in seating order: layout zone n belongs to the n-th."""
        self.cult_names = cults
        self.calibration = self.calibration.with_cults(len(cults))

    def look(self, frame: Frame, truth: tuple[str, ...] | None = None) -> Seen:
        """Read one frame and sort its dice into the roll and the layouts."""
        dice = place_dice(self.calibration, self.reader(frame))
        return Seen.of_dice(
            dice, self.cult_names, self.name, frame, self.calibration.paper, truth, self.roll_kinds
        )

    def read_roll(self, cult: str, n: int) -> Seen:
        """Wait for the next roll to settle, then read it (``cult`` and ``n`` are for the
        screens)."""
        detector = SettleDetector()
        # Waits in short slices so that quitting never hangs on a table nobody rolls on.
        while not self._stop.is_set():
            try:
                frame, _ = wait_for_roll(self.source, detector, timeout_s=0.5)
            except TimeoutError:
                continue
            except Exception as exc:
                raise CameraError(str(exc)) from exc
            return self.look(frame)
        raise CameraError("the camera was stopped")

    def read_table(self, lying: Mapping[str, tuple[str, ...]] | None = None) -> Seen:
        """The table as it lies now; a real camera has no use for what the rules expect."""
        try:
            frame = self.source.read()
        except Exception as exc:
            raise CameraError(str(exc)) from exc
        return self.look(frame)

    def close(self) -> None:
        self._stop.set()
        self.source.close()


def load_reader(profile: Path | str | None = None) -> FrameReader:
    """The shipped reader (finder + face model, adapted by a profile); raises when a model is
    missing."""
    from companion.vision.read import Reader

    reader = Reader.load(profile)

    def read(frame: Frame) -> Sequence[ReadDie]:
        return reader.read(frame)

    return read


def open_table_watcher(
    calibration: str | None,
    profile: str | None,
    reader: Callable[[str | None], FrameReader] = load_reader,
) -> TableWatcher:
    """Watch the table through the Pi camera (or else the first webcam); raise with a sentence
    when none works."""
    errors = []
    for make in (PiCameraSource, WebcamSource):
        src = make()
        try:
            src.open()
        except CameraUnavailable as exc:
            errors.append(str(exc))
            continue
        try:  # the camera works: now what it needs to read the table
            cal = Calibration.load(Path(calibration)) if calibration else Calibration.load()
            return TableWatcher(src, cal, reader(profile))
        except Exception:
            src.close()
            raise
    raise CameraError("; ".join(errors) or "no camera found")
