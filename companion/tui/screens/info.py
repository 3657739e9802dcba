"""Screens to read: help (every key), history (the record so far), end of game."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from ...dicestats import FaceStats, compact_table
from ...rules import Game
from ..describe import end_sentence
from ..host import host_of

#: Every key of the secretary, by screen; the help screen shows them all.
KEYS: list[tuple[str, str, str]] = [
    ("setup", "tab / shift+tab", "move between fields"),
    ("setup", "enter / ctrl+s", "start the game"),
    ("roll", "i 1 2 3 e", "key a die: IÄÄ!, 1, 2, 3 tentacles, Elder Sign (fills a ? first)"),
    ("roll", "backspace", "remove the last die keyed (or make the picked die ?)"),
    ("roll", "left / right", "pick a die of the roll on the table map, then key its motif"),
    ("roll", "esc", "drop the pick"),
    ("roll", "enter", "the roll is complete"),
    (
        "call",
        "esc",
        "back to the roll, to fix a die before the call (backspace too, before any word)",
    ),
    ("call", "i c f p", "the words IÄÄ! Cthulhu! Fhtagn! Ph'nglui!, in the order spoken"),
    ("call", "backspace", "remove the last word"),
    ("call", "enter", "judge the call (then choose the dice if there is a choice)"),
    ("call", "l", "choose from the legal calls for this roll"),
    ("call", "g then a face", "give up a die of that face (T4)"),
    ("call", "v", "push-to-talk on/off when play runs with --voice"),
    ("call", "1 / 2", "take the first or second guess of a spoken call that was not heard surely"),
    ("forfeit", "i 1 2 3 e", "the die the cult gives up after an illegal call (V2 forfeit rule)"),
    (
        "choice",
        "up / down, enter",
        "pick a way to carry out the call, or a legal call; esc goes back",
    ),
    ("phase", "x", "correct the last turn (a new event in the history)"),
    ("phase", "h / f2", "history: the game record so far"),
    ("phase", "m", "show or hide the table map"),
    ("phase", "w", "write the camera's last frame, annotated, as a JPEG (evidence)"),
    ("phase", "? / f1", "this help"),
    ("phase", "ctrl+q", "quit (the record is kept)"),
    ("scoring", "enter / esc", "go on to the next phase"),
    (
        "dispute",
        "a r x e",
        "rules stand / read again / correct the turn / export the frame as a JPEG",
    ),
    ("end", "h", "the whole record; ctrl+q quits"),
    ("demo", "space", "pause or go on"),
    ("demo", "s", "one step while paused"),
    ("demo", "+", "run fast or at a watchable pace"),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("question_mark", "close", show=False),
        Binding("q", "close", show=False),
    ]

    def compose(self) -> ComposeResult:
        t = Table(box=None, expand=True, header_style="bold")
        t.add_column("where", no_wrap=True)
        t.add_column("key", no_wrap=True)
        t.add_column("does")
        for where, key, does in KEYS:
            t.add_row(where, key, does)
        with Vertical(classes="dialog"):
            yield Static("Keys", classes="dialog-title")
            with VerticalScroll():
                yield Static(t)
            yield Static("up/down scroll · esc close", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


class HistoryScreen(ModalScreen[None]):
    """The record so far, in NOTATION.md form, newest line at the bottom."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("h", "close", show=False),
        Binding("q", "close", show=False),
    ]

    def __init__(self, record: str) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog history"):
            yield Static("History (game record)", classes="dialog-title")
            with VerticalScroll(id="record"):
                yield Static(self.record, markup=False)
            yield Static("up/down scroll · esc close", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#record", VerticalScroll).scroll_end(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)


class EndScreen(Screen[None]):
    """G1–G4: winners and losers, with the totals."""

    BINDINGS = [Binding("h", "history", "history"), Binding("ctrl+q", "app.quit", "quit")]

    def __init__(
        self, game: Game, record_path: str | None, dice: list[FaceStats] | None = None
    ) -> None:
        super().__init__()
        self.game = game
        self.record_path = record_path
        self.dice = dice or []  # the game's dice statistics, whole game first

    def compose(self) -> ComposeResult:
        g = self.game
        t = Table(box=None, header_style="bold")
        t.add_column("cult")
        t.add_column("points", justify="right")
        t.add_column("")
        for c in sorted(g.cults, key=lambda c: -g.totals[c]):
            t.add_row(c, f"{g.totals[c]:+d}", "wins" if c in g.winners else "loses")
        with Vertical(classes="panel end"):
            yield Static("The game has ended", classes="dialog-title")
            yield Static(
                f"winners: {', '.join(g.winners)}\nlosers:  {', '.join(g.losers) or 'none'}",
                id="winners",
            )
            yield Static(end_sentence(g) + f" after {len(g.results)} phases.")
            yield Static(t)
            if self.dice:
                yield Static(compact_table(self.dice), id="dice")
                yield Static(
                    f"the dice: {self.dice[0].verdict} (a fair die shows IÄÄ! on 2 faces of 6, "
                    "every other motif on 1; chi-square test)",
                    classes="hint",
                )
            if self.record_path:
                yield Static(f"record saved to {self.record_path}", classes="hint")
        yield Footer()

    def action_history(self) -> None:
        app = host_of(self.app)
        self.app.push_screen(HistoryScreen(app.record_text()))
