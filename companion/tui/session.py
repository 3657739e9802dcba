"""The TUI's view of a game: the durable Secretary behind one small class.

The screens talk only to ``TableSession``. It turns the Secretary's results
into what the screens show (``TurnOutcome``) and keeps the secretary's
settled disputes, which the event store has no kind for yet, as comment
lines of the history.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..record.notation import Turn
from ..rules import Action, Game, Options, PhaseResult, RuleError
from ..secretary import Evidence, Secretary, SecretaryError, TurnResult
from ..store.base import Kind
from ..store.fold import StoredGame


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """What became of one submitted turn."""

    cult: str
    roll: tuple[str, ...]
    action: Action
    error: RuleError | None = None
    scored: PhaseResult | None = None  # the phase this turn ended, if it did
    must_forfeit: bool = False  # V2 forfeit option: the cult now gives up a die

    @property
    def legal(self) -> bool:
        return self.error is None


def _outcome(cult: str, roll: tuple[str, ...], action: Action, res: TurnResult) -> TurnOutcome:
    err = None
    if not res.accepted:
        v = res.verdict
        err = RuleError(v.rule or "V2", v.message, v.legal)
    return TurnOutcome(cult, roll, action, err, res.phase_result, res.must_forfeit)


class TableSession:
    """One open game of a Secretary, as the screens use it."""

    def __init__(self, secretary: Secretary) -> None:
        self.sec = secretary
        self.notes: list[tuple[int, str]] = []  # (record lines before the note, the note)
        self.last: TurnOutcome | None = None

    @classmethod
    def new(cls, secretary: Secretary, options: Options, tags: dict[str, str] | None = None) -> TableSession:
        secretary.start_game(options, tags)
        return cls(secretary)

    @property
    def game(self) -> Game:
        return self.sec.game

    @property
    def options(self) -> Options:
        return self.sec.options

    # ------------------------------------------------------------ roll-off
    def submit_start_roll(self, cult: str, faces: tuple[str, ...], seen: tuple[str, ...] | None = None) -> str | None:
        """ST1/ST2 (raises RuleError); the start cult once the roll-off is decided."""
        return self.sec.submit_start_roll(cult, faces, _evidence(seen, faces))

    def rolloff_to_roll(self) -> tuple[str, ...]:
        """The cults that still roll in the current round of the roll-off."""
        g = self.game
        if g.start_cult is not None:
            return ()
        ro = g.rolloff
        if ro is None:
            return g.cults
        return tuple(c for c in g.cults if c in ro.contenders and c not in ro.current)

    # ---------------------------------------------------------------- turns
    def submit_turn(self, cult: str, roll: tuple[str, ...], action: Action,
                    seen: tuple[str, ...] | None = None) -> TurnOutcome:
        res = self.sec.submit_turn(cult, roll, action, _evidence(seen, roll))
        self.last = _outcome(cult, roll, action, res)
        return self.last

    @property
    def pending_forfeit(self) -> str | None:
        return self.sec.pending_forfeit

    def submit_forfeit(self, cult: str, roll: tuple[str, ...], face: str) -> TurnOutcome:
        from ..rules import GiveUp

        self.last = _outcome(cult, roll, GiveUp(face), self.sec.submit_forfeit(face))
        return self.last

    def last_turn(self) -> Turn | None:
        inputs = self.sec.inputs
        if inputs and inputs[-1].kind in (Kind.TURN, Kind.CORRECT) and isinstance(inputs[-1].event, Turn):
            return inputs[-1].event
        return None

    def before_last_turn(self) -> Game:
        """The state in which the last accepted turn was judged (for a correction)."""
        inputs = self.sec.inputs
        if self.last_turn() is None:
            raise SecretaryError("there is no accepted turn to correct")
        before = StoredGame(self.options)
        for inp in inputs[:-1]:
            before.apply(inp.seq, inp.kind, inp.event)
        return before.game

    def correct_last_turn(self, roll: tuple[str, ...], action: Action) -> TurnOutcome:
        """A correction event replaces the last turn; the old one stays in the store
        and its text is the correction's reason, so the record shows both."""
        old = self.last_turn()
        cult = old.cult if old else ""
        reason = f"was {''.join(old.roll)} -> {old.action}" if old else ""
        try:
            res = self.sec.correct_last_turn(roll, action, reason)
        except SecretaryError as exc:
            return TurnOutcome(cult, roll, action, RuleError("T1", str(exc)))
        self.last = _outcome(cult, roll, action, res)
        return self.last

    def add_note(self, text: str) -> None:
        """A comment for the record, placed after the lines written so far (the turn it is about)."""
        self.notes.append((len(self.sec.record_text().splitlines()), text))

    # --------------------------------------------------------------- record
    def record_text(self) -> str:
        """The stored record with the secretary's notes of this sitting as comments, each in its place."""
        text = self.sec.record_text()
        if not self.notes:
            return text
        lines = text.splitlines()
        for at, note in sorted(self.notes, key=lambda n: n[0], reverse=True):
            lines.insert(min(at, len(lines)), f"# {note}")
        return "\n".join(lines) + "\n"


def _evidence(seen: tuple[str, ...] | None, keyed: tuple[str, ...] | None = None) -> Evidence | None:
    """The camera's reading kept with the event, so a dispute can be looked at later.

    Dice the secretary changed on the map (a misread, a ``?``) are listed
    with what the camera read: the event holds the roll as keyed.
    """
    if seen is None:
        return None
    fixed = [{"die": i + 1, "read": r, "keyed": k}
             for i, (r, k) in enumerate(zip(seen, keyed or seen, strict=False)) if r != k]
    if keyed is not None and len(keyed) != len(seen):
        return Evidence(dice={"read": list(seen), "keyed": list(keyed), "note": "the camera saw another number of dice"})
    return Evidence(dice={"read": list(seen), "corrected": fixed}) if fixed else Evidence(dice=list(seen))
