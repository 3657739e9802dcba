"""Reading WAV files (companion/voice/audio.py): the formats recorders write, and what is
refused; each test fails for one wrong way of reading them."""

from __future__ import annotations

import os
import struct
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from companion.voice.audio import RATE, AudioError, _to_float, read_wav

GUID_TAIL = bytes.fromhex("000000001000800000aa00389b71")


def _chunk(kind: bytes, body: bytes, claim: int | None = None) -> bytes:
    size = len(body) if claim is None else claim
    return kind + struct.pack("<I", size) + body + b"\0" * (len(body) % 2)


def _wav(*chunks: bytes) -> bytes:
    body = b"WAVE" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _fmt(
    code: int, ch: int, rate: int, bits: int, sub: int | None = None, tail: bytes = GUID_TAIL
) -> bytes:
    """A fmt chunk's body; with ``sub``, WAVE_FORMAT_EXTENSIBLE naming that format."""
    block = ch * bits // 8
    head = struct.pack("<HHIIHH", code, ch, rate, rate * block, block, bits)
    if sub is None:
        return head
    # cbSize, valid bits, channel mask, then the SubFormat GUID
    return head + struct.pack("<HHIH", 22, bits, 0, sub) + tail


def _read(tmp_path: Path, data: bytes) -> npt.NDArray[np.int16]:
    f = tmp_path / "a.wav"
    f.write_bytes(data)
    return read_wav(f)


def test_24bit_sign_and_scale_exactly() -> None:
    raw = b"".join(v.to_bytes(3, "little", signed=True) for v in (-(2**23), 2**23 - 1, -256, 256))
    assert list(_to_float(raw, 3)) == [-32768.0, (2**23 - 1) / 256, -1.0, 1.0]


def test_extensible_with_another_guid_is_refused(tmp_path: Path) -> None:
    bad = _fmt(0xFFFE, 1, 16000, 16, sub=1, tail=b"\x11" * 14)
    with pytest.raises(AudioError, match="extensible"):
        _read(tmp_path, _wav(_chunk(b"fmt ", bad), _chunk(b"data", b"\0" * 64)))


def test_chunks_before_fmt_and_an_odd_fmt_are_skipped(tmp_path: Path) -> None:
    s = np.full(1600, 1000, "<i2").tobytes()
    junk = _chunk(b"JUNK", b"abc")  # odd size, padded
    fmt = _chunk(b"fmt ", _fmt(1, 1, 16000, 16) + b"x")  # 17 bytes, padded
    assert (_read(tmp_path, _wav(junk, fmt, _chunk(b"data", s))) == 1000).all()


def test_the_first_fmt_chunk_counts(tmp_path: Path) -> None:
    s = np.full(1600, 1000, "<i2").tobytes()
    two = _wav(
        _chunk(b"fmt ", _fmt(1, 1, 16000, 16)),
        _chunk(b"fmt ", _fmt(3, 1, 16000, 32)),
        _chunk(b"data", s),
    )
    assert (_read(tmp_path, two) == 1000).all()


def test_too_many_chunks_are_refused(tmp_path: Path) -> None:
    many = [_chunk(b"JUNK", b"")] * 100
    with pytest.raises(AudioError, match="64 chunks"):
        _read(
            tmp_path,
            _wav(_chunk(b"fmt ", _fmt(1, 1, 16000, 16)), *many, _chunk(b"data", b"\0" * 4)),
        )


def test_a_stereo_24bit_file_shorter_than_its_claim_ends_at_its_last_whole_frame(
    tmp_path: Path,
) -> None:
    s = (b"\0\0\x40" + b"\0\0\xc0") * 100 + b"\1" * 4  # 100 frames and 4 bytes of the next
    x = _read(
        tmp_path, _wav(_chunk(b"fmt ", _fmt(1, 2, 16000, 24)), _chunk(b"data", s, claim=6000))
    )
    assert x.shape == (100,) and (x == 0).all()


@pytest.mark.parametrize(("seconds", "refused"), [(29, False), (31, True)])
def test_a_stereo_length_counts_frames_not_samples(
    tmp_path: Path, seconds: int, refused: bool
) -> None:
    data = _chunk(b"data", b"\0" * 64, claim=16000 * 4 * seconds)
    wav = _wav(_chunk(b"fmt ", _fmt(1, 2, 16000, 16)), data)
    if refused:
        with pytest.raises(AudioError, match="31 s"):
            _read(tmp_path, wav)
    else:
        _read(tmp_path, wav)


def test_float_is_clipped_before_channels_are_mixed(tmp_path: Path) -> None:
    s = np.array([[2.0, -0.5]] * 1600, "<f4").tobytes()
    x = _read(tmp_path, _wav(_chunk(b"fmt ", _fmt(3, 2, 16000, 32)), _chunk(b"data", s)))
    assert (x == 8192).all()


def test_8bit_float_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match="8-bit float"):
        _read(tmp_path, _wav(_chunk(b"fmt ", _fmt(3, 1, 16000, 8)), _chunk(b"data", b"\0" * 64)))


def test_a_signalling_nan_is_silence_without_a_warning(
    tmp_path: Path, recwarn: pytest.WarningsRecorder
) -> None:
    s = struct.pack("<I", 0x7F800001) * 1600
    x = _read(tmp_path, _wav(_chunk(b"fmt ", _fmt(3, 1, 16000, 32)), _chunk(b"data", s)))
    assert (x == 0).all() and not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


_TONE = 0.25 * np.sin(2 * np.pi * 440 * np.arange(48000) / 48000)  # full scale ±1


def _pcm24(x: npt.NDArray[np.float64]) -> bytes:
    v = np.round(x * 2**23).astype("<i4")
    return v.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()


def _peak_hz(x: npt.NDArray[np.int16]) -> float:
    spec = np.abs(np.fft.rfft(x.astype(np.float64)))
    return float(np.argmax(spec) * RATE / x.size)


@pytest.mark.parametrize(
    ("fmt", "samples", "extra"),
    [
        (_fmt(1, 1, 48000, 24), _pcm24(_TONE), b""),
        (_fmt(3, 1, 48000, 32), _TONE.astype("<f4").tobytes(), b""),
        (_fmt(3, 1, 48000, 64), _TONE.astype("<f8").tobytes(), b""),
        (_fmt(0xFFFE, 1, 48000, 24, sub=1), _pcm24(_TONE), b""),
        (_fmt(0xFFFE, 1, 48000, 32, sub=3), _TONE.astype("<f4").tobytes(), b""),
        (  # a LIST chunk of odd size, and a fact chunk, before the samples
            _fmt(1, 1, 48000, 16),
            np.round(_TONE * 32767).astype("<i2").tobytes(),
            _chunk(b"LIST", b"INFOx") + _chunk(b"fact", struct.pack("<I", 48000)),
        ),
    ],
    ids=["24-bit", "float32", "float64", "extensible 24-bit", "extensible float", "LIST"],
)
def test_wavs_recorders_write_are_read(
    tmp_path: Path, fmt: bytes, samples: bytes, extra: bytes
) -> None:
    """A quarter of full scale is a quarter of the 16-bit range, at the same pitch."""
    x = _read(tmp_path, _wav(_chunk(b"fmt ", fmt), extra, _chunk(b"data", samples)))
    assert x.dtype == np.int16 and abs(x.size - RATE) <= 1
    assert abs(_peak_hz(x) - 440) < 2
    assert 0.24 * 32768 < np.abs(x).max() < 0.26 * 32768


def test_float_wav_out_of_range_or_not_a_number_is_clipped(tmp_path: Path) -> None:
    x = np.array([0.5, 2.0, -3.0, np.nan, np.inf, -np.inf] * 1000, "<f4")
    y = _read(tmp_path, _wav(_chunk(b"fmt ", _fmt(3, 1, 16000, 32)), _chunk(b"data", x.tobytes())))
    assert list(y[:6]) == [16384, 32767, -32768, 0, 0, 0]


def test_a_wav_read_from_a_pipe_skips_its_other_chunks(tmp_path: Path) -> None:
    """``companion voice hear /dev/stdin``: chunks before the samples are read past, not
    sought past."""
    s = np.full(1600, 1000, "<i2").tobytes()
    wav = _wav(
        _chunk(b"fmt ", _fmt(1, 1, 16000, 16)), _chunk(b"LIST", b"INFO" * 9), _chunk(b"data", s)
    )
    fifo = tmp_path / "pipe.wav"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(wav,))
    writer.start()
    try:
        assert (read_wav(fifo) == 1000).all()
    finally:
        writer.join(timeout=10)


@pytest.mark.parametrize("claim", [0xFFFFFFFF, 0x7FFFF000])
def test_a_wav_written_to_a_pipe_runs_to_its_end(tmp_path: Path, claim: int) -> None:
    """sox and arecord writing to a pipe cannot fill in the data size: the samples are
    what the file holds, and still at most 30 s of them."""
    fmt = _chunk(b"fmt ", _fmt(1, 1, 16000, 16))
    s = np.full(1600, 1000, "<i2").tobytes()
    x = _read(tmp_path, _wav(fmt, _chunk(b"data", s, claim=claim)))
    assert x.shape == (1600,) and (x == 1000).all()
    long = np.zeros(16000 * 31, "<i2").tobytes()
    with pytest.raises(AudioError, match="more than 30 s"):
        _read(tmp_path, _wav(fmt, _chunk(b"data", long, claim=claim)))


def test_fast_lengths_have_only_small_prime_factors() -> None:
    from companion.voice.audio import fast_length

    def smooth(n: int) -> bool:
        for q in (2, 3, 5, 7):
            while n % q == 0:
                n //= q
        return n == 1

    for n in (*range(1, 400), 44101, 479_999, 5_759_990, 5_760_001):
        f = fast_length(n)
        assert f >= n and smooth(f), n
        assert not any(smooth(k) for k in range(n, min(f, n + 5000))), n  # the smallest


@pytest.mark.parametrize("n", [44101, 44100 * 3 + 7, 88211])  # a large prime factor each
def test_resampling_a_length_of_large_prime_factors_keeps_pitch_level_and_length(n: int) -> None:
    from companion.voice.audio import resample

    t = np.arange(n) / 44100
    y = resample(0.5 * np.sin(2 * np.pi * 440 * t), 44100, RATE)
    assert y.size == round(n * RATE / 44100)
    spec = np.abs(np.fft.rfft(y))
    assert abs(np.argmax(spec) * RATE / y.size - 440) < 2
    middle = y[y.size // 10 : -y.size // 10]  # the ends see the padding's silence
    assert 0.49 < np.abs(middle).max() < 0.51
