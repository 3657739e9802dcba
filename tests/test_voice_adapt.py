"""The MLLR benchmark's file conversions (benchmarks.voice_adapt); no sphinxtrain needed."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from benchmarks.voice_adapt import SHIFT, mixture_weights, s3_array, transcript


def _string(s: bytes) -> bytes:
    return struct.pack("<I", len(s)) + s


def sendump(data: np.ndarray, header: tuple[bytes, ...] = (b"cluster_count 0\0",)) -> bytes:
    """A sendump as pocketsphinx writes it: title, header, sizes, bytes [stream, cw, senone]."""
    streams, codewords, senones = data.shape
    out = _string(b"BEGIN FILE FORMAT DESCRIPTION\0")
    for h in (*header, b"feature_count %d\0" % streams):
        out += _string(h)
    out += struct.pack("<I", 0) + struct.pack("<II", codewords, senones)
    return out + data.astype(np.uint8).tobytes()


def test_mixture_weights_unpack_transpose_and_normalise() -> None:
    data = np.arange(2 * 3 * 4).reshape(2, 3, 4) % 5
    w = mixture_weights(sendump(data))
    assert w.shape == (4, 2, 3)  # senone, stream, codeword: mixture_weights' order
    assert np.allclose(w.sum(axis=2), 1.0)
    # a byte b is the weight 1.0001 ** -(b << SHIFT), up to the row's normalisation
    for sen, stream, a, b in ((1, 0, 0, 2), (3, 1, 1, 2)):
        ratio = w[sen, stream, a] / w[sen, stream, b]
        expect = 1.0001 ** (-(int(data[stream, a, sen]) - int(data[stream, b, sen])) * (1 << SHIFT))
        assert ratio == pytest.approx(expect, rel=1e-6)


def test_clustered_sendump_is_refused() -> None:
    with pytest.raises(ValueError, match="clustered"):
        mixture_weights(sendump(np.zeros((1, 2, 2)), (b"cluster_count 16\0",)))


def test_s3_array_layout() -> None:
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7
    blob = s3_array(a)
    assert blob.startswith(b"s3\nversion 1.0\n")
    start = blob.index(b"endhdr\n") + len(b"endhdr\n")
    assert start % 4 == 0  # sphinxtrain reads the data from a 4-byte boundary
    magic, d1, d2, d3, n = struct.unpack_from("<iIIII", blob, start)
    assert (magic, d1, d2, d3, n) == (0x11223344, 2, 3, 4, 24)
    back = np.frombuffer(blob, dtype="<f4", offset=start + 20).reshape(2, 3, 4)
    assert np.allclose(back, a, atol=1e-6)


def test_transcript_keeps_pronunciations_and_pauses() -> None:
    words = ["<sil>", "iaa(3)", "(NULL)", "<sil>", "cthulhu", "[NOISE]", "<s>", "</s>"]
    assert transcript(words) == "<s> <sil> iaa(3) <sil> cthulhu </s>"


def test_the_shipped_model_converts() -> None:
    ps = pytest.importorskip("pocketsphinx")
    w = mixture_weights((Path(ps.get_model_path("en-us/en-us")) / "sendump").read_bytes())
    assert w.shape == (5126, 3, 128)  # the en-us PTM model: senones, streams, codewords
    assert np.allclose(w.sum(axis=2), 1.0)
