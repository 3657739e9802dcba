"""Reading WAV files into 16 kHz mono 16-bit samples, the recognizer's input."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import numpy.typing as npt

RATE = 16000

Samples = npt.NDArray[np.int16]


class AudioError(ValueError):
    """A file that is not a readable PCM WAV file."""


def read_wav(path: str | Path) -> Samples:
    """Read a PCM WAV file, mixing channels to mono and resampling to 16 kHz."""
    try:
        with wave.open(str(path), "rb") as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            raw = w.readframes(w.getnframes())
    except FileNotFoundError:
        raise AudioError(f"{path} does not exist") from None
    except IsADirectoryError:
        raise AudioError(f"{path} is a folder, not a WAV file") from None
    except (wave.Error, EOFError, OSError) as exc:
        raise AudioError(f"{path} is not a readable PCM WAV file ({exc})") from None
    if width not in (1, 2, 4):
        raise AudioError(f"{path} has {8 * width}-bit samples; 8, 16 or 32-bit PCM is needed")
    data = _to_float(raw, width).reshape(-1, channels).mean(axis=1)
    return to_int16(resample(data, rate, RATE))


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
