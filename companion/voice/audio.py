"""Reading WAV files into 16 kHz mono 16-bit samples, the recognizer's input."""

from __future__ import annotations

import struct
import wave
from pathlib import Path

import numpy as np
import numpy.typing as npt

RATE = 16000

Samples = npt.NDArray[np.int16]


class AudioError(ValueError):
    """A file that is not a readable PCM WAV file."""


#: What a spoken call can be: checked from the header, before any sample is read,
#: so a file claiming 1 Hz or an hour takes neither minutes nor gigabytes.
MIN_RATE, MAX_RATE = 8000, 192000
MAX_CHANNELS = 8
MAX_SECONDS = 30.0


def read_wav(path: str | Path) -> Samples:
    """Read a PCM WAV file, mixing channels to mono and resampling to 16 kHz."""
    try:
        with wave.open(str(path), "rb") as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            check_header(path, channels, width, rate, w.getnframes())
            raw = w.readframes(w.getnframes())
    except FileNotFoundError:
        raise AudioError(f"{path} does not exist") from None
    except IsADirectoryError:
        raise AudioError(f"{path} is a folder, not a WAV file") from None
    except (wave.Error, EOFError, OSError, struct.error) as exc:
        raise AudioError(
            f"{path} is not a readable PCM WAV file ({str(exc) or 'it is cut short'})"
        ) from None
    frame = width * channels
    raw = raw[
        : len(raw) - len(raw) % frame
    ]  # a file cut inside its last frame: that frame is dropped
    data = _to_float(raw, width).reshape(-1, channels).mean(axis=1)
    return to_int16(resample(data, rate, RATE))


def check_header(path: str | Path, channels: int, width: int, rate: int, frames: int) -> None:
    """One sentence for a header outside what a spoken call can be (AudioError)."""
    if width not in (1, 2, 4):
        raise AudioError(f"{path} has {8 * width}-bit samples; 8, 16 or 32-bit PCM is needed")
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


def _to_float(raw: bytes, width: int) -> npt.NDArray[np.float64]:
    """PCM bytes to floats on the 16-bit scale; 8-bit WAV is unsigned."""
    usable = len(raw) - len(raw) % width
    if width == 1:
        return (np.frombuffer(raw[:usable], np.uint8).astype(np.float64) - 128.0) * 256.0
    if width == 2:
        return np.frombuffer(raw[:usable], "<i2").astype(np.float64)
    return np.frombuffer(raw[:usable], "<i4").astype(np.float64) / 65536.0


def resample(x: npt.NDArray[np.float64], rate: int, target: int) -> npt.NDArray[np.float64]:
    """Band-limited resampling in the frequency domain (utterances are short)."""
    if rate == target or x.size == 0:
        return x
    n_out = max(1, round(x.size * target / rate))
    spec = np.fft.rfft(x)
    keep = np.zeros(n_out // 2 + 1, dtype=complex)
    k = min(spec.size, keep.size)
    keep[:k] = spec[:k]  # dropping bins above the new Nyquist is the anti-alias filter
    return np.fft.irfft(keep, n_out) * (n_out / x.size)


def to_int16(x: npt.NDArray[np.float64]) -> Samples:
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)
