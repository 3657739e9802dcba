"""The sentences and the help screen, without a terminal."""

from __future__ import annotations

import re

from textual.binding import Binding

from companion.rules import CallAction, Game, GiveUp, Options, PhaseResult, Working, parse_call
from companion.tui.app import CompanionApp
from companion.tui.describe import (
    consequences,
    end_sentence,
    legal_calls_text,
    result_rows,
    take_text,
    working_text,
)
from companion.tui.screens.info import KEYS, EndScreen
from companion.tui.screens.modals import DisputeScreen, ScoringScreen
from companion.tui.screens.phase import PhaseScreen
from companion.tui.screens.rolloff import RollOffScreen
from companion.tui.screens.setup import SetupScreen

SHOWN = {"question_mark": "?", "plus": "+", "escape": "esc"}


def test_every_binding_is_on_the_help_screen() -> None:
    listed = {tok for _, keys, _ in KEYS for tok in re.split(r"[\s/,]+", keys) if tok}
    for owner in (
        CompanionApp,
        PhaseScreen,
        RollOffScreen,
        SetupScreen,
        ScoringScreen,
        DisputeScreen,
        EndScreen,
    ):
        for b in owner.BINDINGS:
            assert isinstance(b, Binding)
            assert SHOWN.get(b.key, b.key) in listed, (
                f"{owner.__name__}: {b.key} is not on the help screen"
            )


def test_working_shows_factors_and_sign() -> None:
    assert working_text(Working(6, 2, True, True)) == "+(6 × 2 × 2) = +24"
    assert working_text(Working(5, 1, False, False)) == "-(5 × 1) = -5"
    assert working_text(Working(0, 3, False, True)) == "0 × 3 = 0"
    r = PhaseResult(
        1,
        "Anna",
        {"Anna": Working(3, 1, True, True), "Ben": Working(2, 1, False, False)},
        ("Anna",),
        ("Anna",),
    )
    assert result_rows(r, {"Anna": 6, "Ben": -2}) == [
        ("Anna", "complete", "+(3 × 1 × 2) = +6", "+6"),
        ("Ben", "not complete", "-(2 × 1) = -2", "-2"),
    ]


def test_consequences_of_a_legal_call() -> None:
    g = Game(Options.make(["Anna", "Ben"]))
    g.roll_start("Anna", tuple("333333"))
    g.roll_start("Ben", tuple("111111"))
    k11 = CallAction(parse_call("IÄÄ! Cthulhu! Fhtagn!"), tuple("I3E"))
    assert consequences(g, "Anna", k11) == (
        "place I3E into Anna's layout; invocation complete; 3 pool dice to the center (E1); "
        "takes a doubler stone (DB1)"
    )
    k3 = CallAction(parse_call("IÄÄ! Ph'nglui!"), ("I",), ("center",))
    assert consequences(g, "Anna", k3) == "place I into Anna's layout; take a die from the center"
    assert consequences(g, "Anna", GiveUp("E")) == "give up E to the center"
    k8 = CallAction(parse_call("Ph'nglui! Fhtagn!"), (), ("center", "Ben"))
    assert take_text(k8.take) == "take a die from the center and a die from Ben's pool"
    assert (
        take_text(("center", "center")) == "take 2 dice from the center"
    )  # not "take center, center"
    k11_all = CallAction(parse_call("IÄÄ! Cthulhu! Fhtagn!"), tuple("I333E3"))
    g.pools["Anna"] = 6
    text = consequences(g, "Anna", k11_all)
    assert "0 pool dice" not in text and "no pool dice are left for the center (E1)" in text


def test_legal_calls_and_end_sentences() -> None:
    g = Game(Options.make(["Anna", "Ben"], target=10))
    legal = g.legal_actions(tuple("I12EEE"), "Anna")
    assert legal_calls_text(legal) == (
        "K1 IÄÄ!; K2 IÄÄ! Cthulhu!; K3 IÄÄ! Ph'nglui!; "
        "K10 IÄÄ! Cthulhu! Ph'nglui!; K11 IÄÄ! Cthulhu! Fhtagn!"
    )
    assert legal_calls_text(g.legal_actions(tuple("123E"), "Anna")) == "none"
    assert legal_calls_text(g.legal_actions(tuple("123EEE"), "Anna")) == "give up 1 or 2 or 3 or E"
    g.totals = {"Anna": 12, "Ben": -10}
    assert end_sentence(g) == "G4: Anna reached +10 and Ben fell to -10; G2 decides"
    g.totals = {"Anna": 3, "Ben": -10}
    assert end_sentence(g) == "G3: Ben fell to -10 power points"
