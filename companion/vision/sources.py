"""Frame sources: the Pi camera, a webcam, recorded images (the simulated table is synth.simtable).

Every source gives BGR uint8 frames through the same small interface. A
camera that is missing or lost raises :class:`CameraUnavailable` with a
sentence for the user; :class:`Reconnecting` wraps any source to retry.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

Frame = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
PREVIEW_WIDTH = 320  # motion is judged on frames this wide


class FrameSourceError(Exception):
    """A frame source cannot deliver; the message is one sentence for the user."""


class CameraUnavailable(FrameSourceError):
    """The camera is missing, busy or was lost; retrying may help."""


class EndOfFrames(FrameSourceError):
    """A recorded source has no more frames."""


@runtime_checkable
class FrameSource(Protocol):
    def open(self) -> None: ...
    def read(self) -> Frame:
        """The next full-resolution BGR frame."""
        ...

    def read_preview(self) -> npt.NDArray[np.uint8]:
        """A small grey frame for motion detection, cheaper than :meth:`read`."""
        ...

    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
        /,
    ) -> None: ...


class SourceBase(ABC):
    """Context manager plumbing and a default preview shared by the sources."""

    @abstractmethod
    def open(self) -> None: ...

    @abstractmethod
    def read(self) -> Frame: ...

    @abstractmethod
    def close(self) -> None: ...

    def read_preview(self) -> npt.NDArray[np.uint8]:
        return preview_of(self.read())

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def preview_of(frame: Frame) -> npt.NDArray[np.uint8]:
    """Grey, PREVIEW_WIDTH wide: enough to see dice move, cheap to compare."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h, w = grey.shape[:2]
    if w <= PREVIEW_WIDTH:
        return np.asarray(grey, np.uint8)
    size = (PREVIEW_WIDTH, max(1, round(h * PREVIEW_WIDTH / w)))
    return np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.uint8)


class PiCameraSource(SourceBase):
    """The Raspberry Pi camera through picamera2.

    Two streams: ``main`` at full resolution for reading dice and ``lores``
    for motion. After ``settle_s`` of automatic exposure, gain and white
    balance, those are frozen so every frame of a game is lit the same.
    """

    def __init__(
        self,
        size: tuple[int, int] = (2304, 1296),
        lores: tuple[int, int] = (320, 180),
        camera_num: int = 0,
        settle_s: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.size, self.lores, self.camera_num = size, lores, camera_num
        self.settle_s, self._sleep = settle_s, sleep
        self._cam: Any = None
        self.controls: dict[str, Any] = {}

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # only on the Pi
        except ImportError as exc:
            raise CameraUnavailable(
                "picamera2 is not installed: install python3-picamera2 with apt and make the "
                "venv with --system-site-packages"
            ) from exc
        try:
            cam = Picamera2(self.camera_num)
            config = cam.create_still_configuration(
                main={"size": self.size, "format": "RGB888"},  # [B, G, R] bytes: OpenCV order
                lores={"size": self.lores, "format": "YUV420"},
                buffer_count=2,
            )
            cam.configure(config)
            cam.start()
        except (RuntimeError, IndexError, OSError) as exc:
            raise CameraUnavailable(
                f"no Pi camera answers ({exc}); check its ribbon cable and that no other "
                "program uses it"
            ) from exc
        self._cam = cam
        self._sleep(self.settle_s)
        self._freeze_automatics()

    def _freeze_automatics(self) -> None:
        md = self._capture(lambda req: req.get_metadata())
        fixed: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in md:
                fixed[key] = md[key]
        self._cam.set_controls(fixed)
        self.controls = fixed

    def _capture(self, take: Callable[[Any], Any]) -> Any:
        if self._cam is None:
            raise CameraUnavailable("the Pi camera is not open")
        try:
            request = self._cam.capture_request()
        except (RuntimeError, OSError, TimeoutError) as exc:
            raise CameraUnavailable(f"the Pi camera stopped sending frames ({exc})") from exc
        try:
            return take(request)
        finally:
            request.release()

    def read(self) -> Frame:
        return np.asarray(self._capture(lambda req: req.make_array("main")), np.uint8)

    def read_preview(self) -> npt.NDArray[np.uint8]:
        yuv = np.asarray(self._capture(lambda req: req.make_array("lores")), np.uint8)
        w, h = self.lores
        return np.ascontiguousarray(yuv[:h, :w])  # the Y plane is the grey image

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.close()
            finally:
                self._cam = None


class WebcamSource(SourceBase):
    """A USB webcam through OpenCV, with automatic exposure left to the camera."""

    def __init__(self, index: int = 0, size: tuple[int, int] | None = (1280, 960)) -> None:
        self.index, self.size = index, size
        self._cap: cv2.VideoCapture | None = None

    def open(self) -> None:
        cap = cv2.VideoCapture(self.index)
        if not cap.isOpened():
            cap.release()
            raise CameraUnavailable(
                f"webcam {self.index} does not answer; check that it is plugged in and free"
            )
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap

    def read(self) -> Frame:
        if self._cap is None:
            raise CameraUnavailable("the webcam is not open")
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraUnavailable(f"webcam {self.index} stopped sending frames")
        return np.asarray(frame, np.uint8)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class ImageFilesSource(SourceBase):
    """Frames from image files, or every image of a folder in name order (a replay)."""

    def __init__(self, paths: Sequence[Path | str] | Path | str, loop: bool = False) -> None:
        self._given = (
            [Path(p) for p in paths] if not isinstance(paths, str | Path) else [Path(paths)]
        )
        self.loop = loop
        self._files: list[Path] = []
        self._next = 0

    def open(self) -> None:
        files: list[Path] = []
        for p in self._given:
            if p.is_dir():
                files += sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            elif p.exists():
                files.append(p)
            else:
                raise FrameSourceError(f"{p} does not exist")
        if not files:
            raise FrameSourceError("no image files to replay")
        self._files, self._next = files, 0

    @property
    def current(self) -> Path | None:
        """The file of the frame last read."""
        return self._files[self._next - 1] if self._next else None

    def read(self) -> Frame:
        if not self._files:
            raise FrameSourceError("the image source is not open")
        if self._next >= len(self._files):
            if not self.loop:
                raise EndOfFrames("all recorded frames have been read")
            self._next = 0
        path = self._files[self._next]
        self._next += 1
        from companion.vision.image_file import ImageFileError, load_image

        try:
            return load_image(path)
        except ImageFileError as exc:
            raise FrameSourceError(str(exc)) from None

    def close(self) -> None:
        self._files, self._next = [], 0


class Reconnecting(SourceBase):
    """Retries a source that lost its camera: close, wait, open again, read again."""

    def __init__(
        self,
        source: FrameSource,
        attempts: int = 5,
        delay_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Callable[[CameraUnavailable, int], None] | None = None,
    ) -> None:
        self.source, self.attempts, self.delay_s = source, attempts, delay_s
        self._sleep, self.on_retry = sleep, on_retry

    def _retry(self, action: Callable[[], Frame]) -> Frame:
        for attempt in range(1, self.attempts + 1):
            try:
                return action()
            except CameraUnavailable as exc:
                if attempt == self.attempts:
                    raise
                if self.on_retry is not None:
                    self.on_retry(exc, attempt)
                self.source.close()
                self._sleep(self.delay_s)
                try:
                    self.source.open()
                except CameraUnavailable:
                    continue
        raise AssertionError("unreachable")  # the loop returns or raises

    def open(self) -> None:
        for attempt in range(1, self.attempts + 1):
            try:
                self.source.open()
                return
            except CameraUnavailable as exc:
                if attempt == self.attempts:
                    raise
                if self.on_retry is not None:
                    self.on_retry(exc, attempt)
                self._sleep(self.delay_s)

    def read(self) -> Frame:
        return self._retry(self.source.read)

    def read_preview(self) -> npt.NDArray[np.uint8]:
        return self._retry(self.source.read_preview)

    def close(self) -> None:
        self.source.close()


def frames(source: FrameSource) -> Iterator[Frame]:
    """Iterate a source until a recording ends."""
    while True:
        try:
            yield source.read()
        except EndOfFrames:
            return
