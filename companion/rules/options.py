"""The settings of one game: seating, sets, target and the house-rule options."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from .faces import DICE_PER_SET, STONES_PER_SET


class StartRule(StrEnum):
    SUM = "sum"  # ST1 reading: sum of tentacle values
    COUNT = "count"  # option: number of tentacle dice


class Doublers(StrEnum):
    RETURN = "return"  # DB2 reading: stones go back after scoring
    KEEP = "keep"  # option: a cult keeps its stone for the game


class IllegalCall(StrEnum):
    RECALL = "recall"  # V2 default: ask for a legal call
    FORFEIT = "forfeit"  # option: the cult gives up a die


class OptionsError(ValueError):
    """Settings that the rules do not allow; ``rule`` is the id they break."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


def sets_for(n_cults: int) -> int:
    """C1: one set for 2–3 cults, two for 4–6."""
    return 1 if n_cults <= 3 else 2


def center_dice_for(n_cults: int) -> int:
    """S1: dice the center gets at the start of every phase."""
    return {2: 1, 3: 2, 4: 3}.get(n_cults, 4)


def default_target(n_cults: int) -> int:
    """S3."""
    return 150 if n_cults <= 3 else 100


@dataclass(frozen=True, slots=True)
class Options:
    cults: tuple[str, ...]
    target: int
    sets: int
    start_rule: StartRule = StartRule.SUM
    doublers: Doublers = Doublers.RETURN
    illegal_call: IllegalCall = IllegalCall.RECALL

    @classmethod
    def make(
        cls,
        cults: tuple[str, ...] | list[str],
        *,
        target: int | None = None,
        sets: int | None = None,
        start_rule: StartRule | str = StartRule.SUM,
        doublers: Doublers | str = Doublers.RETURN,
        illegal_call: IllegalCall | str = IllegalCall.RECALL,
    ) -> Options:
        # Replay reads records in NFC (NOTATION.md is UTF-8 text, and what macOS types is
        # decomposed): names kept as typed could differ here and be one name in the record.
        cults = tuple(unicodedata.normalize("NFC", c) for c in cults)
        n = len(cults)
        if not 2 <= n <= 6:
            raise OptionsError("C1", f"the game is for 2 to 6 cults, not {n}")
        if len(set(cults)) != n:
            raise OptionsError("C1", "every cult needs a name of its own")
        want = sets_for(n)
        if sets is not None and sets != want:
            raise OptionsError(
                "C1", f"{n} cults play with {want} set{'s' if want > 1 else ''} of dice, not {sets}"
            )
        if target is not None and target <= 0:
            raise OptionsError("S3", "the target must be a positive number of power points")
        return cls(
            cults=cults,
            target=default_target(n) if target is None else target,
            sets=want,
            start_rule=StartRule(start_rule),
            doublers=Doublers(doublers),
            illegal_call=IllegalCall(illegal_call),
        )

    @property
    def dice(self) -> int:
        return DICE_PER_SET * self.sets

    @property
    def stones(self) -> int:
        """S2: one doubler stone per cult (a set holds three)."""
        return min(len(self.cults), STONES_PER_SET * self.sets)
