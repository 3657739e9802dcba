"""Sets of dice drawn from one split's families (families.py) and the old drawings (motifs.py).

Families are split as wholes (families.FAMILY_SPLITS): training never sees a
validation or held-out family, so figures on them measure art nobody taught the model.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from companion.synth.families import (
    NEW_ARRANGEMENTS,
    NEW_ELDER_SIGNS,
    NEW_TENTACLES,
    drawings,
    typefaces,
)
from companion.synth.motifs import ARRANGEMENTS, ELDER_SIGNS, LETTERINGS, TENTACLES
from companion.synth.styles import Art, Body, Style


def _luma(bgr: npt.NDArray[np.float64]) -> float:
    return float(0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2])


def _colour(rng: np.random.Generator) -> npt.NDArray[np.float64]:
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(0, 255), rng.uniform(25, 250)]]], np.uint8)
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float64)


# The benchmarks' family sets: split SPLIT's come from seed BENCH_SEED + its place here.
BENCH_SPLITS = ("held_out", "validation", "hard")
BENCH_SEED = 80_000


def bench_styles(split: str, n: int) -> tuple[Style, ...]:
    """The n family sets of a split that bench_families and bench_detect_net read."""
    return family_styles(split, n, BENCH_SEED + BENCH_SPLITS.index(split))


def family_styles(split: str, n: int, seed: int) -> tuple[Style, ...]:
    """n sets of dice whose drawings all come from one split's families.

    Any body colour, plain, marbled or translucent; an ink that a person can
    tell from the body (the renderer's own rule: a motif must be visible).
    """
    rng = np.random.default_rng(seed)
    # A split without type families of its own (the "hard" one) letters with validation's.
    faces = tuple(f"font:{t}" for t in typefaces(split) or typefaces("validation")) + (
        LETTERINGS if split == "train" else ()
    )
    tents = drawings("tentacle", split, TENTACLES, NEW_TENTACLES)
    arrs = drawings("arrangement", split, ARRANGEMENTS, NEW_ARRANGEMENTS)
    elders = drawings("elder", split, ELDER_SIGNS, NEW_ELDER_SIGNS)
    out = []
    for i in range(n):
        body = _colour(rng)
        for _ in range(100):
            ink = (
                _colour(rng)
                if rng.random() < 0.7
                else np.array(
                    [(60, 170, 215), (185, 185, 180), (25, 25, 25), (245, 245, 245)][
                        int(rng.integers(4))
                    ],
                    np.float64,
                )
            )
            if abs(_luma(ink) - _luma(body)) >= 60:
                break
        else:
            ink = np.array((245, 245, 245) if _luma(body) < 128 else (25, 25, 25), np.float64)
        finish = ("printed", "engraved", "raised", "outline")[
            int(rng.choice(4, p=[0.35, 0.25, 0.3, 0.1]))
        ]
        art = Art(
            f"{split}{i}",
            str(rng.choice(faces)),
            str(rng.choice(tents)),
            str(rng.choice(arrs)),
            str(rng.choice(elders)),
            finish,
        )
        bc = tuple(int(v) for v in body)
        kind = rng.random()
        out.append(
            Style(
                Body(
                    f"body{i}",
                    (bc[0], bc[1], bc[2]),
                    translucent=kind < 0.12,
                    marble=0.12 <= kind < 0.45,
                ),
                (int(ink[0]), int(ink[1]), int(ink[2])),
                f"ink{i}",
                art,
            )
        )
    return tuple(out)
