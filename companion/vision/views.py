"""The ways a second profile may see a table's dice (docs/vision.md, sessions 62-63): redrawn
as their ink (ink_view.py) or as how yellow they are (colour_view.py)."""

from __future__ import annotations

from typing import Any

from companion.vision import colour_view
from companion.vision.colour_view import ColourView
from companion.vision.ink_view import InkView

View = InkView | ColourView
INK = "ink"  # an ink view's kind (session 62's profiles wrote none)

# How enrolment and `companion doctor` name each view's read, and what it is for.
NAMES = {INK: "the dice as ink", colour_view.KIND: "the dice as yellow"}
SAYS = {
    INK: "redrawn as their ink on a plain face, the body's grain or flecks faded",
    colour_view.KIND: "redrawn as how yellow each part is (gold or brass on a body of like "
    "brightness), the grain's light and dark faded",
}


def says(view: View | None) -> str:
    """What reading a table's dice in this view does, for enrolment's and doctor's lines."""
    return SAYS[kind(view)] if view is not None else "another way"


def kind(view: View) -> str:
    return colour_view.KIND if isinstance(view, ColourView) else INK


def from_json(d: dict[str, Any]) -> View:
    """A view written by ``to_json``; one without a kind is an ink view (session 62's).

    Raises ValueError, KeyError or TypeError for a damaged one."""
    k = d.get("kind", INK)
    if k == colour_view.KIND:
        return ColourView.from_json(d)
    if k == INK:
        return InkView.from_json(d)
    raise ValueError(f"unknown view {k!r}")
