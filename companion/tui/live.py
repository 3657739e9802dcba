"""The real camera at the table: frame source, settle detection and the reader."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from .camera import CameraError, ImageReader, Seen, seen_from_placed
from .vision_reader import load_reader


class LiveCamera:
    """Waits for each roll to settle, reads it and sorts the dice into zones."""

    def __init__(self, source: object, calibration: object, reader: ImageReader, cults: int = 6) -> None:
        from ..vision.calibration import Calibration
        from ..vision.sources import FrameSource

        assert isinstance(calibration, Calibration)
        self.source: FrameSource = source  # type: ignore[assignment]
        self.calibration = calibration
        self.reader = reader
        self.cult_names: tuple[str, ...] = ()
        self.name = f"camera ({type(source).__name__})"
        self._stop = threading.Event()

    def set_cults(self, cults: tuple[str, ...]) -> None:
        from ..vision.calibration import Calibration

        self.cult_names = cults
        cal = self.calibration
        assert isinstance(cal, Calibration)
        self.calibration = cal.with_cults(len(cults))

    def _seen(self, frame: object) -> Seen:
        from ..vision.zones import place_dice

        placed = place_dice(self.calibration, self.reader(frame))  # type: ignore[arg-type]
        return seen_from_placed(placed, self.calibration, self.cult_names, self.name, frame,
                                roll_kinds=("rolling",))

    def read_roll(self, cult: str, n: int) -> Seen:
        from ..vision.settle import SettleDetector, wait_for_roll

        detector = SettleDetector()
        # Waits in short slices so that quitting never hangs on a table nobody rolls on.
        while not self._stop.is_set():
            try:
                frame, _ = wait_for_roll(self.source, detector, timeout_s=0.5)
            except TimeoutError:
                continue
            except Exception as exc:
                raise CameraError(str(exc)) from exc
            return self._seen(frame)
        raise CameraError("the camera was stopped")

    def read_table(self, lying: Mapping[str, tuple[str, ...]] | None = None) -> Seen:
        try:
            frame = self.source.read()
        except Exception as exc:
            raise CameraError(str(exc)) from exc
        return self._seen(frame)

    def close(self) -> None:
        self._stop.set()
        self.source.close()


def open_live_camera(calibration: str | None, profile: str | None) -> LiveCamera:
    """Open the Pi camera (or else the first webcam); raise with a sentence when none works."""
    from ..vision.calibration import Calibration
    from ..vision.sources import CameraUnavailable, PiCameraSource, WebcamSource

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
            return LiveCamera(src, cal, load_reader(profile))
        except Exception:
            src.close()
            raise
    raise CameraError("; ".join(errors) or "no camera found")

