"""Reading WAV files into 16 kHz mono 16-bit samples, the recognizer's input."""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

RATE = 16000

Samples = npt.NDArray[np.int16]


class AudioError(ValueError):
    """A file that is not a readable WAV file (PCM or float)."""


#: What a spoken call can be: checked from the header, before any sample is read,
#: so a file claiming 1 Hz or an hour takes neither minutes nor gigabytes.
MIN_RATE, MAX_RATE = 8000, 192000
MAX_CHANNELS = 8
MAX_SECONDS = 30.0

# WAV format codes: integer PCM, IEEE float, and WAVE_FORMAT_EXTENSIBLE (which
# names PCM or float by a GUID: recorders write it for 24-bit or many channels).
PCM, FLOAT, EXTENSIBLE = 1, 3, 0xFFFE
# The GUID of an extensible format, after its first two bytes (the format code).
_GUID_TAIL = bytes.fromhex("000000001000800000aa00389b71")
# The data sizes a writer puts in a header it cannot go back to (sox and arecord
# writing to a pipe): the samples run to the end of the file.
STREAMED = (0xFFFFFFFF, 0x7FFFF000)
# Chunks before the samples (LIST, fact, bext, …) are skipped; this many at most.
MAX_CHUNKS = 64


def read_wav(path: str | Path) -> Samples:
    """Read a WAV file (8, 16, 24 or 32-bit PCM, 32 or 64-bit float, plain or
    extensible), mixing channels to mono and resampling to 16 kHz."""
    try:
        with open(path, "rb") as f:
            code, channels, width, rate, size = _header(f, path)
            frame = width * channels
            if size in STREAMED:  # written to a pipe: its length is where it ends
                check_header(path, channels, width, rate, 0, code)
                most = int(MAX_SECONDS * rate)
                data = _read_mono(f, most + 1, channels, width, code)
                if data.size > most:
                    raise AudioError(
                        f"{path} lasts more than {MAX_SECONDS:.0f} s; a spoken call is read "
                        f"from at most {MAX_SECONDS:.0f} s of sound"
                    )
            else:
                check_header(path, channels, width, rate, size // max(1, frame), code)
                data = _read_mono(f, size // frame, channels, width, code)
    except FileNotFoundError:
        raise AudioError(f"{path} does not exist") from None
    except IsADirectoryError:
        raise AudioError(f"{path} is a folder, not a WAV file") from None
    except (OSError, struct.error) as exc:
        raise _unreadable(path, str(exc) or "it is cut short") from None
    return to_int16(resample(data, rate, RATE))


#: Frames read and mixed to mono at a time: the memory of a read is its mono
#: float64 result (at most 30 s x 192 kHz x 8 B = 46 MB) plus one block.
BLOCK = 1 << 15


def _read_mono(
    f: BinaryIO, frames: int, channels: int, width: int, code: int
) -> npt.NDArray[np.float64]:
    """Up to ``frames`` frames, mixed to mono block by block; a frame cut short by the
    end of the file is dropped."""
    frame = width * channels
    out = np.empty(frames)
    done = 0
    while done < frames:
        want = min(BLOCK, frames - done)
        raw = f.read(want * frame)
        n = len(raw) // frame
        out[done : done + n] = (
            _to_float(raw[: n * frame], width, code).reshape(-1, channels).mean(axis=1)
        )
        done += n
        if n < want:
            break
    return out[:done]


def _unreadable(path: str | Path, why: str) -> AudioError:
    return AudioError(f"{path} is not a readable PCM WAV file ({why})")


def _header(f: BinaryIO, path: str | Path) -> tuple[int, int, int, int, int]:
    """Format code, channels, bytes a sample, rate and the data's size in bytes, with the
    file positioned at the first sample."""
    head = f.read(12)
    if len(head) < 12:
        raise _unreadable(path, "it is cut short")
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        raise _unreadable(path, "it does not start with RIFF … WAVE")
    fmt: tuple[int, int, int, int] | None = None
    for _ in range(MAX_CHUNKS):
        chunk = f.read(8)
        if len(chunk) < 8:
            raise _unreadable(path, "it is cut short" if fmt else "it has no fmt chunk")
        kind, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
        if kind == b"data":
            if fmt is None:
                raise _unreadable(path, "its samples come before their format")
            code, channels, width, rate = fmt
            return code, channels, width, rate, size
        if kind == b"fmt " and fmt is None:
            if not 16 <= size <= 1024:
                raise _unreadable(path, f"a fmt chunk of {size} bytes")
            body = f.read(size + size % 2)
            if len(body) < size:
                raise _unreadable(path, "it is cut short")
            code, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
            if code == EXTENSIBLE:
                if size < 40 or body[26:40] != _GUID_TAIL:
                    raise _unreadable(path, "an extensible format it does not name")
                code = struct.unpack("<H", body[24:26])[0]
            if code not in (PCM, FLOAT):
                raise AudioError(
                    f"{path} holds compressed or unknown audio (WAV format {code}); "
                    "PCM or float samples are needed"
                )
            fmt = (code, channels, (bits + 7) // 8, rate)
        else:
            _skip(f, size + size % 2, path)  # padded to an even size
    raise _unreadable(path, f"no samples within its first {MAX_CHUNKS} chunks")


def _skip(f: BinaryIO, n: int, path: str | Path) -> None:
    """Past a chunk: by seeking, or on a pipe by reading at most 1 MiB."""
    if f.seekable():
        f.seek(n, os.SEEK_CUR)
    elif n > 1 << 20:
        raise _unreadable(path, f"a chunk of {n} bytes before its samples, read from a pipe")
    else:
        f.read(n)


def check_header(
    path: str | Path, channels: int, width: int, rate: int, frames: int, code: int = PCM
) -> None:
    """One sentence for a header outside what a spoken call can be (AudioError)."""
    if width not in ((4, 8) if code == FLOAT else (1, 2, 3, 4)):
        raise AudioError(
            f"{path} has {8 * width}-bit {'float' if code == FLOAT else 'PCM'} samples; "
            "8, 16, 24 or 32-bit PCM or 32 or 64-bit float is needed"
        )
    if not 1 <= channels <= MAX_CHANNELS:
        raise AudioError(f"{path} has {channels} channels; 1 to {MAX_CHANNELS} are read")
    if not MIN_RATE <= rate <= MAX_RATE:
        raise AudioError(
            f"{path} has a sample rate of {rate} Hz; {MIN_RATE} to {MAX_RATE} Hz are read"
        )
    if frames > MAX_SECONDS * rate:
        raise AudioError(
            f"{path} lasts {frames / rate:.0f} s; a spoken call is read from at most "
            f"{MAX_SECONDS:.0f} s of sound"
        )


def _to_float(raw: bytes, width: int, code: int = PCM) -> npt.NDArray[np.float64]:
    """Sample bytes to floats on the 16-bit scale; 8-bit WAV is unsigned, float WAV is
    full scale at ±1 (anything not finite is silence)."""
    usable = len(raw) - len(raw) % width
    if code == FLOAT:
        with np.errstate(invalid="ignore"):  # a signalling NaN is silence, not a warning
            x = np.frombuffer(raw[:usable], "<f4" if width == 4 else "<f8").astype(np.float64)
        np.nan_to_num(x, copy=False, nan=0.0, posinf=0.0, neginf=0.0)
        np.clip(x, -1.0, 1.0, out=x)
        x *= 32768.0
        return x
    if width == 1:
        return (np.frombuffer(raw[:usable], np.uint8).astype(np.float64) - 128.0) * 256.0
    if width == 2:
        return np.frombuffer(raw[:usable], "<i2").astype(np.float64)
    if width == 3:  # little-endian 24-bit: widened to 32 bits by a zero low byte
        b = np.frombuffer(raw[:usable], np.uint8).reshape(-1, 3)
        wide = np.zeros((b.shape[0], 4), np.uint8)
        wide[:, 1:] = b
        return wide.view("<i4").ravel().astype(np.float64) / 65536.0
    return np.frombuffer(raw[:usable], "<i4").astype(np.float64) / 65536.0


def fast_length(n: int) -> int:
    """The smallest length >= n whose only prime factors are 2, 3, 5 and 7: an FFT of
    any other length (a large prime factor) falls back to Bluestein's algorithm, which
    took 750 MB and seconds for 30 s at 192 kHz."""
    best = 1 << max(0, (n - 1).bit_length())
    p7 = 1
    while p7 < best:
        p5 = p7
        while p5 < best:
            p3 = p5
            while p3 < best:
                p2 = p3 << max(0, (max(n, 1) - 1) // p3).bit_length()  # first p3·2^k >= n
                best = min(best, p2)
                p3 *= 3
            p5 *= 5
        p7 *= 7
    return best


def resample(x: npt.NDArray[np.float64], rate: int, target: int) -> npt.NDArray[np.float64]:
    """Band-limited resampling in the frequency domain (utterances are short), over the
    samples padded with silence to a fast FFT length."""
    if rate == target or x.size == 0:
        return x
    n_out = max(1, round(x.size * target / rate))
    m = fast_length(x.size)
    m_out = max(1, round(m * target / rate))
    spec = np.fft.rfft(x, m)
    keep = np.zeros(m_out // 2 + 1, dtype=complex)
    k = min(spec.size, keep.size)
    keep[:k] = spec[:k]  # dropping bins above the new Nyquist is the anti-alias filter
    return np.fft.irfft(keep, m_out)[:n_out] * (m_out / m)


def to_int16(x: npt.NDArray[np.float64]) -> Samples:
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)
