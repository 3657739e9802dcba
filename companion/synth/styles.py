"""Named dice styles, and which of them training may see.

A style is one manufactured set: body colour and finish, ink, and the
artwork of its five motifs. Styles are split by whole style so that the
classifier is always judged on sets it never saw (HELD_OUT), and its
confidence threshold is chosen on a third group (VALIDATION).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class Body:
    name: str
    color: BGR
    translucent: bool = False
    marble: bool = False
    # The die's shape: corner rounding and bevel width as fractions of the edge. Real dice
    # range from near-sharp to well rounded; the named styles keep one shape (the corner
    # refiner's renders vary it, models/train_refiner.py).
    radius: float = 0.13
    bevel: float = 0.09
    # A body pattern beside marble: "wood" (grain), "speckled" (flecks), "pearl" (a sheen).
    pattern: str = ""
    # How bright a side in view is against the top face, facing away from the light (one lit
    # side adds 0.3): room light from all round makes the sides nearly as bright as the top.
    side_shade: float = 0.45
    # A glossy rounded rim: the top face's edge catches the light (most on the side facing it)
    # instead of darkening into the bevel; 0 is a matte rim, 1 a bright one.
    rim_gloss: float = 0.0


@dataclass(frozen=True)
class Art:
    """The drawings of one set's motifs and how they are applied."""

    name: str
    lettering: str
    tentacle: str
    arrangement: str
    elder: str
    finish: str  # "printed", "engraved", "raised" or "outline"


@dataclass(frozen=True)
class Style:
    body: Body
    ink: BGR
    ink_name: str
    art: Art

    @property
    def name(self) -> str:
        return f"{self.body.name}/{self.ink_name}/{self.art.name}"


BODIES = (
    Body("white", (236, 238, 240)),
    Body("ivory", (196, 226, 238)),
    Body("black", (34, 32, 30)),
    Body("red", (40, 40, 190)),
    Body("green", (60, 120, 30)),
    Body("blue", (150, 80, 30)),
    Body("purple", (120, 40, 100)),
    Body("amber", (40, 150, 230), translucent=True),
    Body("smoke", (150, 140, 130), translucent=True),
    Body("jade", (120, 170, 60), translucent=True),
)

# Inks that read well on each body; a set's ink is one of these.
INKS: dict[str, BGR] = {
    "black": (25, 25, 25),
    "white": (245, 245, 245),
    "gold": (60, 170, 215),
    "red": (35, 30, 170),
    "navy": (90, 30, 20),
    "silver": (185, 185, 180),
}
_INK_FOR_BODY = {
    "white": ("black", "red", "navy"),
    "ivory": ("black", "red", "navy"),
    "black": ("white", "gold", "red"),
    "red": ("white", "gold", "black"),
    "green": ("white", "gold", "black"),
    "blue": ("white", "gold", "silver"),
    "purple": ("white", "gold", "silver"),
    "amber": ("black", "navy", "red"),
    "smoke": ("black", "white", "red"),
    "jade": ("white", "black", "navy"),
}

ARTS = (
    Art("classic", "simplex", "wave", "row", "branch", "printed"),
    Art("gothic", "triplex", "curl", "fan", "star_eye", "engraved"),
    Art("pulp", "script", "hook", "row", "rays", "printed"),
    Art("deep", "italic", "suckers", "fan", "twig", "engraved"),
    Art("stamp", "block", "curl", "row", "branch", "printed"),
    Art("inlay", "outline", "wave", "fan", "rays", "engraved"),
    Art("carved", "block", "suckers", "row", "star_eye", "engraved"),
    Art("sketch", "italic", "hook", "fan", "twig", "printed"),
)


def _all_styles() -> tuple[Style, ...]:
    out = []
    for body, art in itertools.product(BODIES, ARTS):
        for ink_name in _INK_FOR_BODY[body.name]:
            out.append(Style(body, INKS[ink_name], ink_name, art))
    return tuple(out)


ALL_STYLES = _all_styles()

# Whole body/artwork combinations never shown to training. Each body colour
# and each drawing still occurs in training with other partners, except the
# jade body, which is held out entirely.
_HELD_OUT_PAIRS = {
    ("white", "pulp"),
    ("black", "gothic"),
    ("red", "deep"),
    ("blue", "stamp"),
    ("ivory", "sketch"),
    ("amber", "inlay"),
    ("purple", "carved"),
    ("green", "classic"),
}
_VALIDATION_PAIRS = {
    ("white", "carved"),
    ("black", "sketch"),
    ("red", "classic"),
    ("blue", "pulp"),
    ("ivory", "inlay"),
    ("smoke", "gothic"),
    ("purple", "deep"),
    ("green", "stamp"),
}


def _split(style: Style) -> str:
    pair = (style.body.name, style.art.name)
    if style.body.name == "jade" or pair in _HELD_OUT_PAIRS:
        return "held_out"
    if pair in _VALIDATION_PAIRS:
        return "validation"
    return "train"


TRAIN = tuple(s for s in ALL_STYLES if _split(s) == "train")
VALIDATION = tuple(s for s in ALL_STYLES if _split(s) == "validation")
HELD_OUT = tuple(s for s in ALL_STYLES if _split(s) == "held_out")


def style_by_name(name: str) -> Style:
    for s in ALL_STYLES:
        if s.name == name:
            return s
    raise KeyError(f"no dice style named {name!r}")
