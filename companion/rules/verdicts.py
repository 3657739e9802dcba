"""Verdicts: a rule id and one sentence for people (RULES.md V1)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import Action


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judgement of one action; ``legal`` lists the alternatives when it is not."""

    rule: str | None = None
    message: str = ""
    legal: tuple[Action, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.rule is None

    def __bool__(self) -> bool:
        return self.ok


OK = Verdict()


class RuleError(Exception):
    """An action or record line that breaks a rule: the engine raises its ``verdict``,
    the one type that travels on from the engine to the screen."""

    def __init__(self, rule: str, message: str, legal: tuple[Action, ...] = ()) -> None:
        super().__init__(f"{rule}: {message}")
        self.verdict = Verdict(rule, message, legal)

    @property
    def rule(self) -> str:
        return self.verdict.rule or ""

    @property
    def message(self) -> str:
        return self.verdict.message

    @property
    def legal(self) -> tuple[Action, ...]:
        return self.verdict.legal


#: One line a rule id, for help screens and error listings.
RULE_TITLES = {
    "N": "notation of the game record",
    "C1": "components: 2 to 6 cults, one set for 2–3, two for 4–6",
    "C2": "faces: I on two sides, 1, 2, 3 and E on one each",
    "C3": "a tentacle die shows 1, 2 or 3",
    "S1": "every cult takes 6 dice; the center gets 1, 2, 3 or 4",
    "S2": "one doubler stone per cult in the center",
    "S3": "the target: 150 for 2–3 cults, 100 for 4–6",
    "S4": "layouts are empty at the start of a phase",
    "ST1": "the cult with most tentacles in the roll-off starts",
    "ST2": "tied cults roll again among themselves",
    "ST3": "the start-cult stone passes to the left after a scoring",
    "T1": "turns go clockwise from the start cult, skipping ended invocations",
    "T2": "a cult rolls every die of its pool",
    "T3": "a cult must call when a placing call is legal",
    "T4": "otherwise it gives up a die of its roll",
    "T5": "a spoken call binds: every word is carried out",
    "D1": "IÄÄ! places exactly one I",
    "D2": "no other die before the layout holds an I",
    "D3": "Cthulhu! places tentacle dice of the roll",
    "D4": "Fhtagn! places one E onto an I and a tentacle die",
    "D5": "Ph'nglui! uses an E and takes one free die",
    "D6": "never both Fhtagn! and Ph'nglui!, except K8",
    "D7": "All-Fhtagn: all E, place nothing, take up to two",
    "O1": "words in ritual order, none repeated",
    "O2": "only the calls of table K",
    "F1": "free dice: the center and open cults' pools",
    "F2": "take from the center while it holds a die",
    "F3": "a taken die joins the taker's pool",
    "E1": "an E placed completes the invocation; the pool goes to the center",
    "E2": "an invocation ends when its pool is empty",
    "E3": "the last die is placed if it can be, else given up",
    "E4": "the phase ends when every invocation has ended",
    "DB1": "K11 takes a doubler stone",
    "DB2": "doubler stones return after scoring (option: keep)",
    "SC1": "value: tentacles times IÄÄ!",
    "SC2": "a doubler stone doubles it",
    "SC3": "complete adds, incomplete subtracts",
    "G1": "the game ends at ±target",
    "G2": "cults at +target win",
    "G3": "otherwise cults at −target lose",
    "G4": "G2 decides when both happen",
    "V1": "illegal calls are shown with the rule and the legal calls",
    "V2": "an illegal call is recalled (option: forfeit a die)",
}
