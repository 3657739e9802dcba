"""Screens shown over the phase: a choice of calls, scoring, a dispute."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...rules import Action, CallAction, PhaseResult
from ...vision.seen import Seen
from ..describe import FACE_KEYS, action_text, result_rows, tentacles_in
from ..host import host_of


class ChoiceScreen(ModalScreen[Action | None]):
    """Pick one of the legal actions for this roll (or the ways to carry out a call).

    With ``typed`` the secretary may type the dice placed (``i 1 2 3 e``):
    the first way that places exactly those dice is highlighted and Enter
    takes it; the list stays for picking with the arrow keys.
    """

    BINDINGS = [Binding("escape", "cancel", "back")]

    def __init__(self, title: str, actions: list[Action], typed: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.actions = actions
        self.typed = typed
        self.keyed: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            if self.typed:
                yield Static(self._typed_text(), id="typed")
            yield OptionList(
                *[Option(action_text(a), id=str(i)) for i, a in enumerate(self.actions)]
            )
            yield Static(
                "type the dice placed, or up/down choose · enter take it · esc back"
                if self.typed
                else "up/down choose · enter take it · esc back",
                classes="hint",
            )

    def _typed_text(self) -> Text:
        if not self.keyed:
            return Text("placed: type them (i 1 2 3 e), backspace to undo", style="dim")
        want = sorted(self.keyed, key="I123E".index)
        found = self.match()
        tail = "" if found is not None else " · no way places these dice"
        return Text.assemble(("placed: ", "bold"), (" ".join(want), "bold cyan"), (tail, "red"))

    def match(self) -> int | None:
        """The first way that places exactly the typed dice."""
        want = sorted(self.keyed)
        for i, a in enumerate(self.actions):
            if isinstance(a, CallAction) and sorted(a.place) == want:
                return i
        return None

    def on_key(self, event: events.Key) -> None:
        if not self.typed:
            return
        if event.key in FACE_KEYS:
            self.keyed.append(FACE_KEYS[event.key])
        elif event.key == "backspace" and self.keyed:
            self.keyed.pop()
        else:
            return
        event.stop()
        found = self.match()
        if found is not None:
            self.query_one(OptionList).highlighted = found
        self.query_one("#typed", Static).update(self._typed_text())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.actions[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)


def largest_first(ways: list[CallAction]) -> list[CallAction]:
    """Ways to carry out a call, the most dice placed first, then the most tentacles."""
    return sorted(
        ways,
        key=lambda a: (
            -len(a.place),
            -tentacles_in(a.place),
            "".join(sorted(a.place, key="I123E".index)),
            a.take,
        ),
    )


def scoring_table(result: PhaseResult, totals: dict[str, int]) -> Table:
    t = Table(box=None, expand=True, header_style="bold")
    t.add_column("cult", no_wrap=True)
    t.add_column("invocation")
    t.add_column("tentacles × IÄÄ! × doubler", no_wrap=True)
    t.add_column("total", justify="right")
    for cult, state, working, total in result_rows(result, totals):
        t.add_row(
            cult, Text(state, style="green" if state == "complete" else "red"), working, total
        )
    return t


class ScoringScreen(ModalScreen[None]):
    """SC1–SC3: every cult's value with its working, then the totals."""

    BINDINGS = [
        Binding("enter", "close", "continue"),
        Binding("escape", "close", "continue", show=False),
    ]

    def __init__(
        self, result: PhaseResult, totals: dict[str, int], game_over: bool = False
    ) -> None:
        super().__init__()
        self.result = result
        self.totals = dict(totals)
        self.game_over = game_over

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                f"Scoring of phase {self.result.number} (start cult {self.result.start})",
                classes="dialog-title",
            )
            yield Static(scoring_table(self.result, self.totals))
            yield Static(
                "complete adds, not complete subtracts (SC3); a doubler stone doubles (SC2)",
                classes="hint",
            )
            yield Static(
                "enter: the end of the game" if self.game_over else "enter: next phase",
                classes="hint",
            )

    def action_close(self) -> None:
        self.dismiss(None)


class DisputeScreen(ModalScreen[str]):
    """The camera disagrees with the rules about a layout: the secretary settles it.

    The frame the camera read can be written out, annotated, for the players
    to look at on a phone or a laptop (``e``).
    """

    BINDINGS = [
        Binding("a", "settle('accept')", "rules stand"),
        Binding("r", "settle('reread')", "read again"),
        Binding("x", "settle('correct')", "correct the turn"),
        Binding("e", "evidence", "frame as JPEG"),
    ]

    def __init__(
        self, cult: str, expected: tuple[str, ...], seen: tuple[str, ...], look: Seen | None = None
    ) -> None:
        super().__init__()
        self.cult, self.expected, self.seen = cult, expected, seen
        self.look = look

    def compose(self) -> ComposeResult:
        exp = " ".join(self.expected) or "nothing"
        saw = " ".join(self.seen) or "nothing"
        with Vertical(classes="dialog dispute"):
            yield Static(f"Dispute: {self.cult}'s layout", classes="dialog-title")
            yield Static(
                f"the rules say it holds:  {exp}\nthe camera sees:         {saw}\n"
                f"{difference_text(self.expected, self.seen)}"
            )
            yield Static(
                "a  the rules stand: put the dice right on the table\n"
                "r  read the table again\n"
                "x  the call was keyed wrong: correct the last turn\n"
                "e  write the camera's frame, annotated, as a JPEG",
                classes="hint",
            )
            yield Static("", id="evidence", classes="hint")

    def action_settle(self, how: str) -> None:
        self.dismiss(how)

    def action_evidence(self) -> None:
        app = host_of(self.app)
        said = app.export_evidence(self.look, f"dispute over {self.cult}'s layout")
        self.query_one("#evidence", Static).update(said)


def difference_text(expected: tuple[str, ...], seen: tuple[str, ...]) -> str:
    """What the camera misses and what it sees in excess, in words."""
    from collections import Counter

    want, got = Counter(expected), Counter(f for f in seen if f != "?")
    missing = sorted((want - got).elements(), key="I123E".index)
    extra = sorted((got - want).elements(), key="I123E".index)
    unread = seen.count("?")
    parts = []
    if missing:
        parts.append(f"not seen: {' '.join(missing)}")
    if extra:
        parts.append(f"not placed by the call: {' '.join(extra)}")
    if unread:
        parts.append(f"{unread} unreadable")
    return "; ".join(parts) or "the same dice"
