"""The ways a second profile may see a table's dice (docs/vision.md, sessions 62-63): redrawn
as their ink (ink_view.py) or as their thin strokes (line_view.py)."""

from __future__ import annotations

from typing import Any

from companion.vision import line_view
from companion.vision.ink_view import InkView
from companion.vision.line_view import LineView

View = InkView | LineView
INK = "ink"  # an ink view's kind (session 62's profiles wrote none)

# How enrolment and `companion doctor` name each view's read, and what it is for.
NAMES = {INK: "the dice as ink", line_view.KIND: "the dice as strokes"}
SAYS = {
    INK: "redrawn as their ink on a plain face, the body's grain or flecks faded",
    line_view.KIND: "redrawn as their thin strokes on a plain face, wider grain and light faded",
}


def kind(view: View) -> str:
    return line_view.KIND if isinstance(view, LineView) else INK


def from_json(d: dict[str, Any]) -> View:
    """A view written by ``to_json``; one without a kind is an ink view (session 62's).

    Raises ValueError, KeyError or TypeError for a damaged one."""
    k = d.get("kind", INK)
    if k == line_view.KIND:
        return LineView.from_json(d)
    if k == INK:
        return InkView.from_json(d)
    raise ValueError(f"unknown view {k!r}")
