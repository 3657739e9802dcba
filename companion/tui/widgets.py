"""The phase board: one row per cult, the center and the stones.

Drawn as a Rich table inside a Static so it renders the same on an 80×24
terminal, the Pi's 16-colour console and in SVG snapshots. Only ASCII and
Latin-1 are used for markers: the Linux console font has few glyphs.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ..rules import Game
from ..rules.faces import faces_text
from .describe import tentacles_in


def _faces(faces: list[str] | tuple[str, ...]) -> str:
    return " ".join(faces_text(faces)) if faces else "-"


def invocation_state(g: Game, cult: str) -> str:
    if cult in g.complete:
        return "complete"
    return "open" if g.open.get(cult, False) else "ended"


def board_table(g: Game) -> Table:
    t = Table(expand=True, box=None, pad_edge=False, show_edge=False, header_style="bold")
    t.add_column(" ", width=2, no_wrap=True)
    t.add_column("cult", no_wrap=True, ratio=2)
    t.add_column("pool", justify="right", width=4)
    t.add_column("layout", ratio=3, no_wrap=True)
    t.add_column("value", justify="right", width=6)
    t.add_column("invocation", width=10)
    t.add_column("stones", width=9, no_wrap=True)
    t.add_column("points", justify="right", width=6)
    for cult in g.cults:
        lay = g.layouts[cult]
        value = tentacles_in(lay) * lay.count("I") * (2 if cult in g.held else 1)
        stones = " ".join(
            s
            for s in ("start" if cult == g.start_cult else "", "x2" if cult in g.held else "")
            if s
        )
        state = invocation_state(g, cult)
        style = {"complete": "green", "ended": "dim", "open": ""}[state]
        mark = Text(">", style="bold yellow") if cult == g.to_move and not g.finished else Text(" ")
        t.add_row(
            mark,
            Text(cult, style="bold" if cult == g.to_move else ""),
            str(g.pools[cult]),
            _faces(lay),
            str(value),
            Text(state, style=style),
            stones or "-",
            f"{g.totals[cult]:+d}",
        )
    return t


def center_line(g: Game) -> Text:
    held = ", ".join(c for c in g.cults if c in g.held) or "none"
    return Text.assemble(
        ("center", "bold"),
        f" {g.center} {'die' if g.center == 1 else 'dice'} · ",
        ("doubler stones", "bold"),
        f" {g.stones_center} in center, held: {held} · ",
        ("target", "bold"),
        f" ±{g.options.target}",
    )


class Board(Static):
    """The state of the running phase; call ``show(game)`` after every change."""

    def show(self, g: Game) -> None:
        self.update(board_table(g))
