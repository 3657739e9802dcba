"""Dice of other makes: the same art on bodies of another shape, colour, pattern and light.

The corner refiner's renders (models/train_refiner.py, session 58) and the face model's
other-make crops (models/train_faces.py --other-make-frames, session 59) draw them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from companion.synth.styles import Body, Style


def varied_bodies(
    styles: Sequence[Style], rng: np.random.Generator, lit: bool = False
) -> list[Style]:
    """The same art on dice of another make: corners from near-sharp to well rounded, bevels
    narrow to wide, bodies of any colour, grained like wood, flecked, pearly or marbled, sides
    in view from as dark as ours to nearly as bright as the top; ``lit``, up to brighter
    than the top, and most rims glossy (otherhand's dice, session 59).
    Session 58: on otherhand's art the refined cut's scale was off by -6 to +3 % set by set,
    and fed the true corners the refiner moved them 0.036 edge (0.014 on ours)."""
    radius, bevel = float(rng.uniform(0.03, 0.24)), float(rng.uniform(0.03, 0.16))
    pattern = str(rng.choice(["", "", "wood", "speckled", "pearl"]))
    marble = bool(rng.random() < 0.15)
    c: npt.NDArray[np.generic] | None = None
    if pattern == "wood" and rng.random() < 0.7:  # browns, pale to dark
        c = rng.uniform([30, 70, 110], [110, 160, 220])
    elif rng.random() < 0.5:
        c = rng.integers(10, 246, 3)
    color = None if c is None else (int(c[0]), int(c[1]), int(c[2]))
    # drawn last, so the draws above are session 58's first data's
    side_shade = float(rng.uniform(0.45, 0.95))
    rim_gloss = 0.0
    if lit:  # session 59: sides up to brighter than the top, rims that catch the light
        side_shade = float(rng.uniform(0.45, 1.2))
        rim_gloss = float(rng.uniform(0.2, 1.4)) if rng.random() < 0.7 else 0.0
    out = []
    for st in styles:
        b: Body = st.body
        body = replace(
            b,
            radius=radius,
            bevel=bevel,
            pattern=pattern,
            marble=b.marble or marble,
            color=color or b.color,
            side_shade=side_shade,
            rim_gloss=rim_gloss,
        )
        out.append(replace(st, body=body))
    return out
