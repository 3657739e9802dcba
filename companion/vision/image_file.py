"""Reading an image file, its size checked from the header before anything is decoded.

The one way image files are read (`vision read`, `vision enroll`, `calibrate`
and recorded frame sources): a 2.6 MB PNG can claim 30000x30000 pixels and
take 5 GB to decode, more than a Pi has. The header says the size in its
first bytes, so a frame larger than any camera gives is refused there, in one
sentence, before OpenCV allocates anything.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

#: Larger than any frame the camera gives (12 MP at 4608x2592 for the Pi camera 3),
#: small enough that decoding stays near 60 MB.
MAX_SIDE = 8192
MAX_PIXELS = 20_000_000
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Progressive JPEGs have about 10 scans (libjpeg, mozjpeg up to ~20).
MAX_JPEG_SCANS = 64
FORMATS = "PNG, JPEG or BMP"
# A damaged file gets one sentence from here; OpenCV's own warnings on stderr would add more.
cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


class ImageFileError(ValueError):
    """An image file that cannot or may not be read; the message is one sentence."""


# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic): they carry the size
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _png_size(data: bytes) -> tuple[int, int]:
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise ImageFileError("its PNG header is cut short or damaged")
    width, height = struct.unpack(">II", data[16:24])
    # Every chunk must fit in the file: OpenCV allocates what a chunk claims (1 GB for one
    # flipped length byte) before finding the file too short.
    at = 8
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        if at + 12 + length > len(data):
            break
        if data[at + 4 : at + 8] == b"IEND":
            return width, height
        at += 12 + length
    raise ImageFileError("its PNG chunks are cut short or damaged")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise ImageFileError("its JPEG header is damaged")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, or the scan before any frame header
            break
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if length < 2:
            raise ImageFileError("its JPEG header is damaged")
        if marker in _SOF:
            if i + 9 > len(data) or length < 7:
                break
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            if height == 0:
                raise ImageFileError("its JPEG header gives no height")
            return width, height
        i += 2 + length
    raise ImageFileError("its JPEG header is cut short or has no frame size")


def _bmp_size(data: bytes) -> tuple[int, int]:
    if len(data) < 26:
        raise ImageFileError("its BMP header is cut short")
    (header,) = struct.unpack("<I", data[14:18])
    if header == 12:  # the old OS/2 header: 16-bit sizes
        width, height = struct.unpack("<HH", data[18:22])
        return width, height
    width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)  # a negative height is a top-down bitmap


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height from the header of PNG, JPEG or BMP bytes; ImageFileError otherwise."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png_size(data)
    if data[:3] == b"\xff\xd8\xff":
        return _jpeg_size(data)
    if data[:2] == b"BM":
        return _bmp_size(data)
    raise ImageFileError(f"it is not an image in {FORMATS}")


def check_size(width: int, height: int) -> None:
    if width <= 0 or height <= 0:
        raise ImageFileError(f"its header gives a size of {width}x{height} pixels")
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise ImageFileError(
            f"it is {width}x{height} pixels; frames of at most {MAX_SIDE} pixels a side and "
            f"{MAX_PIXELS // 1_000_000} million pixels are read"
        )


def jpeg_scans(data: bytes) -> int:
    """The scans (SOS markers) of a JPEG's main image: segments skipped by their length, a
    scan's coded data searched for the next marker, up to the end of the image. A thumbnail
    inside APP1, or a video a phone appends after the image (Motion Photos), is not counted:
    in such bytes FF DA turns up by chance about once in 64 KiB."""
    if not data.startswith(b"\xff\xd8"):
        return 0
    i, n = 2, 0
    while i + 4 <= len(data):
        if data[i] != 0xFF:  # stray bytes between segments: skip to the next marker, as libjpeg
            i = data.find(b"\xff", i)
            if i < 0:
                break
            continue
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker == 0xD9:  # end of image
            break
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
        if marker == 0xDA:
            n += 1
            i = _scan_end(data, i)
    return n


def _scan_end(data: bytes, i: int) -> int:
    """Where the coded data of a scan starting at ``i`` ends: the next 0xFF that is no stuffed
    byte (FF 00), restart marker or fill (bytes.find: a regex over the data cost 0.9 ms a
    frame)."""
    while True:
        i = data.find(b"\xff", i)
        if i < 0 or i + 1 >= len(data):
            return len(data)
        nxt = data[i + 1]
        if nxt == 0x00 or 0xD0 <= nxt <= 0xD7 or nxt == 0xFF:
            i += 1
            continue
        return i


def decode_image(data: bytes) -> npt.NDArray[np.uint8]:
    """BGR pixels of PNG, JPEG or BMP bytes, the size checked before decoding."""
    width, height = image_size(data)
    check_size(width, height)
    # Each scan of a progressive JPEG is decoded over the whole frame: a small file of
    # thousands of scans (a "scan bomb") would take minutes.
    scans = jpeg_scans(data)
    if scans > MAX_JPEG_SCANS:
        raise ImageFileError(
            f"it is a JPEG of {scans} scans; a camera frame has at most a few dozen"
        )
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageFileError("it cannot be decoded (cut short or damaged)")
    if sorted(image.shape[:2]) != sorted(
        (width, height)
    ):  # EXIF may turn it; more is a lying header
        raise ImageFileError("its pixels do not match the size its header gives")
    return np.asarray(image, np.uint8)


def load_image(path: Path | str) -> npt.NDArray[np.uint8]:
    """Read an image file as BGR, or raise ImageFileError with one sentence naming the file."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ImageFileError(f"{p} does not exist") from None
    except IsADirectoryError:
        raise ImageFileError(f"{p} is a folder, not an image") from None
    except OSError as exc:
        raise ImageFileError(f"{p} cannot be opened ({exc.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ImageFileError(
            f"{p} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB: not a camera frame"
        )
    if not data:
        raise ImageFileError(f"{p} is empty, not an image")
    try:
        return decode_image(data)
    except ImageFileError as exc:
        raise ImageFileError(f"{p}: {exc}") from None
