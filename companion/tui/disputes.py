"""After a call that places dice, the camera checks the cult's layout; a dispute is settled.

``Disputes`` owns the turn that waits for the check and the dispute it may open. It
looks at what the camera saw (``TableSeen``) and tells the screen by messages: the layout
agrees (``LayoutAgreed``), the camera is to look again (``ReadAgain``), or the secretary
settled the dispute (``DisputeSettled``, with the note for the record). The screen keeps the
turn's flow; the note is stored by the screen through the session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.app import App
from textual.message import Message

from ..secretary import TurnResult
from ..vision.seen import Seen
from .messages import TableSeen
from .screens.modals import DisputeScreen, difference_text

Post = Callable[[Message], object]

ORDER = "I123E?"


class LayoutAgreed(Message):
    """The camera sees the layout the call made: the turn goes on."""

    def __init__(self, outcome: TurnResult, seen: Seen) -> None:
        super().__init__()
        self.outcome = outcome
        self.seen = seen


class ReadAgain(Message):
    """The secretary asked the camera to look at the layout again."""

    def __init__(self, cult: str, expected: tuple[str, ...]) -> None:
        super().__init__()
        self.cult = cult
        self.expected = expected


class DisputeSettled(Message):
    """The secretary settled a dispute: the rules stand, or the turn is to be corrected."""

    def __init__(self, outcome: TurnResult, note: str, correct: bool) -> None:
        super().__init__()
        self.outcome = outcome
        self.note = note  # for the record, after the turn it is about
        self.correct = correct


@dataclass(frozen=True, slots=True)
class Dispute:
    """What a dispute is about: the layout the rules have and the one the camera saw."""

    cult: str
    phase: int
    expected: tuple[str, ...]  # as the call placed them
    seen: tuple[str, ...]  # as the camera saw them, in face order

    def note(self, how: str, demo: bool) -> str:
        """The note for the record of how it was settled (``correct`` or the rules stand)."""
        exp = "".join(self.expected) or "-"
        saw = "".join(self.seen) or "-"
        what = (
            f"dispute after {self.cult}'s turn in phase {self.phase}: "
            f"the camera saw {saw} in {self.cult}'s layout where the rules have {exp} "
            f"({difference_text(self.expected, self.seen)})"
        )
        if how == "correct":
            return f"{what}; the turn is corrected"
        why = " (the simulated camera misses dice packed close in a long layout)" if demo else ""
        return f"{what}; the rules stand: the dice on the table were put right{why}"


class Disputes:
    """The turn waiting for its layout check, and the dispute window when the camera disagrees."""

    def __init__(self, app: App[Any], post: Post, demo: bool) -> None:
        self.app = app
        self.post = post
        self.demo = demo
        self.pending: TurnResult | None = None  # a legal turn waiting for the layout check

    def expect(self, outcome: TurnResult) -> None:
        """``outcome`` waits until the camera has seen its layout."""
        self.pending = outcome

    def seen(self, msg: TableSeen, cult: str, phase: int) -> bool:
        """The camera's look after ``cult``'s call; True when a dispute window opened."""
        outcome = self.pending
        if outcome is None or msg.cult != cult:
            return False
        if msg.seen.layout_check(msg.cult, msg.expected).matches:
            self.pending = None
            self.post(LayoutAgreed(outcome, msg.seen))
            return False
        seen = tuple(sorted(msg.seen.layouts.get(msg.cult, ()), key=ORDER.index))
        dispute = Dispute(msg.cult, phase, msg.expected, seen)
        want = tuple(sorted(msg.expected, key=ORDER.index))
        window = DisputeScreen(msg.cult, want, seen, msg.seen)
        self.app.push_screen(window, partial(self._settled, dispute))
        return True

    def _settled(self, dispute: Dispute, how: str | None) -> None:
        outcome = self.pending
        if outcome is None:
            return
        if how == "reread":
            self.post(ReadAgain(dispute.cult, dispute.expected))
            return
        self.pending = None
        self.post(
            DisputeSettled(outcome, dispute.note(how or "accept", self.demo), how == "correct")
        )
