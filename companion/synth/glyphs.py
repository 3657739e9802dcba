"""Rasterised "IÄÄ!" lettering in many typefaces (made by models/make_glyphs.py).

Committed as a small array file so that the renderer needs no font or font
library; each typeface belongs to a family, and families are split between
training, validation and held-out art as wholes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

TEXT = "IÄÄ!"
GLYPH_FILE = "companion/synth/glyphs.npz"


@dataclass(frozen=True)
class Lettering:
    name: str  # the typeface (font file stem)
    family: str
    mask: npt.NDArray[np.uint8]  # 8-bit ink, cropped to the lettering


@functools.cache
def letterings() -> dict[str, Lettering]:
    """Every rasterised typeface by name."""
    path = Path(__file__).with_name(Path(GLYPH_FILE).name)
    with np.load(path) as z:
        masks, widths = z["masks"], z["widths"]
        names, families = [str(n) for n in z["names"]], [str(f) for f in z["families"]]
    return {
        n: Lettering(n, f, np.ascontiguousarray(masks[i, :, : int(widths[i])]))
        for i, (n, f) in enumerate(zip(names, families, strict=True))
    }
