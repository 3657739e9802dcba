"""How textured the dice's bodies are around their motifs (body_texture.py)."""

from __future__ import annotations

import numpy as np

from companion.vision.body_texture import RING, ring_spread
from companion.vision.crop import CROP_SIZE


def _crops(n: int, grey: int = 120) -> np.ndarray:
    return np.full((n, CROP_SIZE, CROP_SIZE, 3), grey, np.uint8)


def test_a_plain_body_has_no_spread_whatever_its_motif() -> None:
    crops = _crops(3)
    assert ring_spread(crops) == 0.0
    # ink in the middle of the face (the motif) is not the body
    crops[:, 20:44, 20:44] = 0
    crops[:, 28:36, 10:54:3] = 255
    crops[:, 17:47, 30] = 0
    assert ring_spread(crops) == 0.0
    assert ring_spread(_crops(0)) == 0.0


def test_stripes_across_the_body_spread_its_grey() -> None:
    crops = _crops(5)
    crops[:, :, ::8] = 30  # dark veins across every face
    crops[:, :, 1::8] = 30
    assert ring_spread(crops) >= 80
    # the median over dice: one striped die among plain ones is not a striped table
    plain = _crops(4)
    assert ring_spread(np.concatenate([crops[:1], plain])) == 0.0


def test_the_ring_lies_between_motif_and_edge() -> None:
    ys, xs = np.nonzero(RING)
    d = np.maximum(abs(ys - 31.5), abs(xs - 31.5))
    assert d.min() >= 15 and d.max() <= 22.5
