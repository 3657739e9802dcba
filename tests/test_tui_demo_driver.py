"""The demo's driver answers each stage of a turn with the messages a person's keys lead to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message

from companion.rules import Game, Options
from companion.tui.demo_driver import DemoDriver, TurnView
from companion.tui.messages import ActionChosen, CallAnnounced, RollKeyed
from companion.tui.players import DemoPlayers
from companion.tui.turn_lines import Stage


class Recorder:
    def __init__(self) -> None:
        self.steps: list[tuple[Callable[[], None], float]] = []
        self.posted: list[Message] = []

    def schedule(self, step: Callable[[], None], factor: float = 1.0) -> None:
        self.steps.append((step, factor))

    def post(self, message: Message) -> bool:
        self.posted.append(message)
        return True

    def run_next(self) -> None:
        step, _ = self.steps.pop(0)
        step()


def _driver(rec: Recorder, app: Any = None) -> DemoDriver:
    return DemoDriver(
        DemoPlayers(("Anna", "Ben"), 3, mistake_rate=0.0), rec.schedule, rec.post, app
    )


def test_the_demo_keys_only_the_dice_the_camera_could_not_read() -> None:
    rec = Recorder()
    g = Game(Options.make(["Anna", "Ben"]))
    driver = _driver(rec)
    driver.at(Stage.ROLL, TurnView(g, "Anna", tuple("I?3?EI"), 6, tuple("I2E1EI")))
    assert [f for _, f in rec.steps] == [1.0] and not rec.posted  # at the demo's pace, not at once
    rec.run_next()
    [keyed] = rec.posted  # what the camera read stays, even where it differs from the truth
    assert (
        isinstance(keyed, RollKeyed)
        and keyed.faces == tuple("I231EI")
        and "could not read" in keyed.note
    )
    # a miscount: the whole roll is keyed; a complete roll or one without truth needs no hands
    assert DemoDriver.keyed(TurnView(g, "Anna", (), 6, tuple("I23EEI"))) == tuple("I23EEI")
    driver.at(Stage.ROLL, TurnView(g, "Anna", tuple("I23EEI"), 6, tuple("I23EEI")))
    driver.at(Stage.ROLL, TurnView(g, "Anna", tuple("I?3EEI"), 6, None))
    driver.at(Stage.WAIT, TurnView(g, "Anna", (), 6, None))
    assert rec.steps == []


def test_a_cult_speaks_its_call_then_makes_it_and_calls_slower_after_a_verdict() -> None:
    rec = Recorder()
    g = Game(Options.make(["Anna", "Ben"]))
    driver = _driver(rec)
    turn = TurnView(g, "Anna", tuple("I23EEI"), 6, None)
    driver.at(Stage.CALL, turn)
    rec.run_next()
    [spoken] = rec.posted
    assert isinstance(spoken, CallAnnounced) and spoken.action in g.legal_actions(
        turn.keyed, "Anna"
    )
    rec.run_next()
    assert isinstance(rec.posted[1], ActionChosen) and rec.posted[1].action == spoken.action
    driver.at(Stage.CALL, TurnView(g, "Anna", tuple("I23EEI"), 6, None, recall=True))
    driver.at(Stage.DISPUTE, turn)
    driver.at(Stage.SCORING, turn)
    assert [f for _, f in rec.steps] == [2.0, 3.0, 4.0]


def test_stages_that_still_hold_the_roll() -> None:
    assert {s for s in Stage if s.keying} == {Stage.ROLL, Stage.CALL, Stage.GIVE_UP, Stage.FORFEIT}
    word: str = "call"  # typed str: mypy holds a StrEnum member and a str literal apart
    assert word == Stage.CALL  # the stage reads as its word in logs and tests
