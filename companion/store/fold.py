"""Game state as a fold over stored events: the one way state is rebuilt, through record/.

Corrections are applied here: a CORRECT event replaces the event it voids,
so the game and the record are those of the corrected game, while the store
keeps both. Illegal calls change nothing but are kept for the record's
comments and the forfeit option (V2); the secretary's notes are comments only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..record.notation import StartRoll, Turn, parse_line
from ..record.recorded import RecordedGame
from ..record.tags import options_from_tags as _options_from_tags
from ..rules.game import PhaseResult
from ..rules.options import Options, OptionsError
from ..rules.verdicts import RuleError
from .base import Kind, StoredEvent, StoreError


def options_from_tags(tags: dict[str, str]) -> Options:
    """The options of a stored game; settings that are not valid are a damaged store."""
    try:
        return _options_from_tags(tags)
    except OptionsError as exc:
        raise StoreError(f"the stored game settings are not valid: {exc}") from None


def parse_turn(text: str) -> Turn:
    item = parse_line(text)
    if not isinstance(item, Turn):
        raise RuleError("N", f"'{text}' is not a turn")
    return item


def parse_start(text: str) -> StartRoll:
    item = parse_line(text)
    if not isinstance(item, StartRoll):
        raise RuleError("N", f"'{text}' is not a roll-off line")
    return item


@dataclass(frozen=True, slots=True)
class Input:
    """An event that moves the game: a start roll, a turn or a forfeit."""

    seq: int  # the stored event that gave it (a correction's own seq)
    kind: Kind  # START, TURN or FORFEIT
    event: StartRoll | Turn


class StoredGame(RecordedGame):
    """A recorded game that also knows which stored event gave each of its inputs."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.inputs: list[Input] = []

    def judge(self, kind: Kind, ev: StartRoll | Turn) -> None:
        """Raise RuleError when ``ev`` may not be applied now; changes nothing."""
        self.check(ev, forfeit=kind is Kind.FORFEIT)

    def apply(
        self, seq: int, kind: Kind, ev: StartRoll | Turn, comment: str = ""
    ) -> PhaseResult | None:
        """Enter an input already judged legal; the phase result when it ended one."""
        self.inputs.append(Input(seq, kind, ev))
        return self.enter(ev, comment, forfeit=kind is Kind.FORFEIT)


def effective(events: list[StoredEvent]) -> list[StoredEvent]:
    """The stored events with every voided one replaced by its correction."""
    out: list[StoredEvent] = []
    for e in events:
        if e.kind is Kind.CORRECT:
            idx = next((i for i in range(len(out) - 1, -1, -1) if out[i].seq == e.ref), None)
            if idx is None or out[idx].kind not in (Kind.TURN, Kind.CORRECT):
                raise StoreError(
                    f"event {e.seq} corrects event {e.ref}, which is not a turn before it"
                )
            out[idx] = e
        else:
            out.append(e)
    return out


def fold(options: Options, events: list[StoredEvent]) -> StoredGame:
    """Replay stored events through the rules; a stored event that breaks a rule is a damaged
    store."""
    f, fault = fold_partial(options, events)
    if fault is not None:
        raise StoreError(f"{fault}; the database was damaged or changed outside companion")
    return f


def fold_partial(options: Options, events: list[StoredEvent]) -> tuple[StoredGame, str | None]:
    """Like ``fold``, but stops at the first bad event and says which, keeping what came before."""
    f = StoredGame(options)
    try:
        eff = effective(events)
    except StoreError as exc:
        return f, str(exc)
    for e in eff:
        try:
            if e.kind is Kind.NOTE:
                f.note(e.text)
                continue
            if e.kind is Kind.ILLEGAL:
                rule, _, message = e.note.partition(" ")
                f.note_illegal(parse_turn(e.text), rule, message)
                continue
            if e.kind is Kind.START:
                ev: StartRoll | Turn = parse_start(e.text)
                kind = Kind.START
            else:
                ev = parse_turn(e.text)
                kind = (
                    Kind.FORFEIT if e.kind is Kind.FORFEIT else Kind.TURN
                )  # corrections replace turns
            f.judge(kind, ev)
            comment = ""
            if e.kind is Kind.CORRECT:
                comment = f"corrected: {e.note}" if e.note else "corrected"
            f.apply(e.seq, kind, ev, comment)
        except RuleError as exc:
            return f, f"stored event {e.seq} ({e.text}) breaks rule {exc.rule}: {exc.message}"
    return f, None
