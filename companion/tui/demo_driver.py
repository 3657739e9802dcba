"""The demo's hands: at each stage of a turn, what the secretary and the cults would do.

The phase and roll-off screens tell the driver where a turn stands; the
driver answers at the demo's pace (the app's ``schedule``) with the messages
a person's keys lead to: the dice the camera could not read (``RollKeyed``),
the call a cult speaks (``CallAnnounced``) and the action it makes
(``ActionChosen``). A dispute is settled by letting the rules stand and a
scoring is closed, as the secretary would with a key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from textual.app import App
from textual.message import Message

from ..rules import Game
from ..vision.seen import UNKNOWN
from .messages import ActionChosen, CallAnnounced, RollKeyed
from .players import DemoPlayers
from .screens.modals import DisputeScreen, ScoringScreen
from .turn_lines import Stage

Schedule = Callable[[Callable[[], None], float], None]
Post = Callable[[Message], object]


@dataclass(frozen=True)
class TurnView:
    """What the driver needs to know of the turn on the screen."""

    game: Game  # the state the roll is judged in
    cult: str
    keyed: tuple[str, ...]  # the roll as keyed so far (``?`` for a die not read)
    size: int
    truth: tuple[str, ...] | None  # what was rolled, known on the simulated table
    recall: bool = False  # the cult calls again after an illegal call (V2)


class DemoDriver:
    def __init__(
        self, players: DemoPlayers, schedule: Schedule, post: Post, app: App[object]
    ) -> None:
        self.players = players
        self.schedule = schedule
        self.post = post
        self.app = app

    def at(self, stage: Stage, turn: TurnView) -> None:
        """The turn has reached ``stage``: the step a person would take next, at the demo's pace."""
        if stage is Stage.ROLL and turn.truth is not None and not self._complete(turn):
            self.schedule(
                partial(
                    self._send,
                    RollKeyed(
                        self.keyed(turn), "the secretary keyed the dice the camera could not read"
                    ),
                ),
                1.0,
            )
        elif stage is Stage.CALL:
            self.schedule(partial(self._announce, turn), 2.0 if turn.recall else 1.0)
        elif stage is Stage.DISPUTE:
            self.schedule(self._let_the_rules_stand, 3.0)
        elif stage is Stage.SCORING:
            self.schedule(self._close_scoring, 4.0)

    def _send(self, message: Message) -> None:
        self.post(message)

    @staticmethod
    def _complete(turn: TurnView) -> bool:
        return len(turn.keyed) == turn.size and UNKNOWN not in turn.keyed

    @staticmethod
    def keyed(turn: TurnView) -> tuple[str, ...]:
        """The roll with what the camera could not read keyed from what was rolled."""
        truth = turn.truth or ()
        if len(turn.keyed) != len(truth):
            return truth
        return tuple(t if f == UNKNOWN else f for f, t in zip(turn.keyed, truth, strict=True))

    def _announce(self, turn: TurnView) -> None:
        action = self.players.choose(turn.game, turn.cult, turn.keyed)
        self.post(CallAnnounced(action))
        self.schedule(partial(self._send, ActionChosen(action)), 1.0)

    def _let_the_rules_stand(self) -> None:
        screen = self.app.screen
        if isinstance(screen, DisputeScreen):
            screen.dismiss("accept")

    def _close_scoring(self) -> None:
        screen = self.app.screen
        if isinstance(screen, ScoringScreen):
            screen.dismiss(None)
