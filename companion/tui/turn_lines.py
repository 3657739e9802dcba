"""The stages of a turn, and the phase screen's lines that only show what they are told.

The screen keeps the turn's flow (its ``Stage``); the title, the verdict and the status are
told what to show and word it themselves. The lines that are edited own their state: the
roll (roll_editor.py) and the call (call_editor.py).
"""

from __future__ import annotations

from enum import StrEnum

from rich.text import Text
from textual.widgets import Static

from ..rules import Action, Game, Verdict
from .describe import action_text, consequences, legal_calls_text, rule_sentence


class Stage(StrEnum):
    """Where a turn stands on the phase screen."""

    WAIT = "wait"  # the camera reads the roll, or the layout after a call
    ROLL = "roll"  # the secretary keys or completes the roll
    CALL = "call"  # the words of the call, or a choice from the legal calls
    GIVE_UP = "give up"  # g was pressed: the face of the die given up comes next
    FORFEIT = "forfeit"  # V2 forfeit option: the face of the die forfeited comes next
    DISPUTE = "dispute"  # the camera disagrees with the rules about a layout
    SCORING = "scoring"  # the turn ended the phase: the scoring is shown
    DONE = "done"  # the verdict stands until the next turn begins
    OVER = "over"  # the game has ended

    @property
    def keying(self) -> bool:
        """The roll is still the turn's (not yet gone to the layout, the center or the pool)."""
        return self in (Stage.ROLL, Stage.CALL, Stage.GIVE_UP, Stage.FORFEIT)


class TitleLine(Static):
    def show(self, g: Game, who: str | None, correcting: bool, demo: str | None) -> None:
        """``demo`` is the demo's pace ("", "PAUSED", "fast"), None outside the demo."""
        title = f"Phase {g.phase}  ·  start cult {g.phase_start}  ·  "
        title += f"{who}'s turn" if not g.finished else "game over"
        if correcting:
            title += "  ·  CORRECTING the last turn"
        if demo is not None:
            title += "  ·  demo" + (f" {demo}" if demo else "")
        self.update(Text(title, style="bold"))


class VerdictLine(Static):
    """The last verdict, which stays until the next one."""

    def illegal(self, cult: str, verdict: Verdict, action: Action) -> None:
        self.update(
            Text.assemble(
                f"{cult}: ",
                ("ILLEGAL", "bold red"),
                " ",
                (f"{verdict.rule}", "bold"),
                f" · {action_text(action)}\n",
                f"{rule_sentence(verdict)}.\n",
                ("legal: ", "bold"),
                legal_calls_text(verdict.legal),
            )
        )

    def legal(self, cult: str, action: Action, before: Game) -> None:
        """``before`` is the state the action was judged in: its consequences are worked out
        there."""
        self.update(
            Text.assemble(
                f"{cult}: ",
                ("LEGAL", "bold green"),
                " ",
                (action_text(action), "bold"),
                "\n",
                consequences(before, cult, action),
            )
        )

    def forfeited(self, cult: str, face: str) -> None:
        self.update(
            Text.assemble(
                f"{cult}: ", ("FORFEIT", "bold yellow"), f" gives up {face} to the center (V2)"
            )
        )


class StatusLine(Static):
    def show(self, status: str) -> None:
        self.update(Text(status, style="italic"))
