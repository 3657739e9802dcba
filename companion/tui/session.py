"""The TUI's view of a game: the durable Secretary behind one small class.

The screens talk only to ``TableSession``. It hands on the Secretary's
``TurnResult`` (whose ``Verdict`` is the engine's own); the secretary's notes
(settled disputes) are stored events like every entry.
"""

from __future__ import annotations

from ..record.notation import Turn
from ..rules import Action, Game, Options, Verdict
from ..secretary import Evidence, Secretary, SecretaryError, TurnResult


class TableSession:
    """One open game of a Secretary, as the screens use it."""

    def __init__(self, secretary: Secretary) -> None:
        self.sec = secretary

    @classmethod
    def new(
        cls, secretary: Secretary, options: Options, tags: dict[str, str] | None = None
    ) -> TableSession:
        secretary.start_game(options, tags)
        return cls(secretary)

    @property
    def game(self) -> Game:
        return self.sec.game

    @property
    def options(self) -> Options:
        return self.sec.options

    # ------------------------------------------------------------ roll-off
    def submit_start_roll(
        self, cult: str, faces: tuple[str, ...], seen: tuple[str, ...] | None = None
    ) -> str | None:
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
    def submit_turn(
        self, cult: str, roll: tuple[str, ...], action: Action, seen: tuple[str, ...] | None = None
    ) -> TurnResult:
        return self.sec.submit_turn(cult, roll, action, _evidence(seen, roll))

    @property
    def pending_forfeit(self) -> str | None:
        return self.sec.pending_forfeit

    def submit_forfeit(self, face: str) -> TurnResult:
        return self.sec.submit_forfeit(face)

    def last_turn(self) -> Turn | None:
        return self.sec.last_turn()

    def before_last_turn(self) -> Game:
        """The state in which the last accepted turn was judged (for a correction)."""
        return self.sec.before_last_turn()

    def correct_last_turn(self, roll: tuple[str, ...], action: Action) -> TurnResult:
        """A correction event replaces the last turn; the old one stays in the store
        and its text is the correction's reason, so the record shows both."""
        old = self.last_turn()
        reason = f"was {''.join(old.roll)} -> {old.action}" if old else ""
        try:
            res = self.sec.correct_last_turn(roll, action, reason)
        except SecretaryError as exc:
            return TurnResult(False, Verdict("T1", str(exc)))
        return res

    def add_note(self, text: str) -> None:
        """A comment for the record after the lines written so far (the turn it is about),
        stored as an event (raises StoreError when the database refuses it)."""
        self.sec.add_note(text)

    # --------------------------------------------------------------- record
    def record_text(self) -> str:
        """The stored record, with illegal calls and notes as comments."""
        return self.sec.record_text()


def _evidence(
    seen: tuple[str, ...] | None, keyed: tuple[str, ...] | None = None
) -> Evidence | None:
    """The camera's reading kept with the event, so a dispute can be looked at later.

    Dice the secretary changed on the map (a misread, a ``?``) are listed
    with what the camera read: the event holds the roll as keyed.
    """
    if seen is None:
        return None
    fixed = [
        {"die": i + 1, "read": r, "keyed": k}
        for i, (r, k) in enumerate(zip(seen, keyed or seen, strict=False))
        if r != k
    ]
    if keyed is not None and len(keyed) != len(seen):
        return Evidence(
            dice={
                "read": list(seen),
                "keyed": list(keyed),
                "note": "the camera saw another number of dice",
            }
        )
    return (
        Evidence(dice={"read": list(seen), "corrected": fixed})
        if fixed
        else Evidence(dice=list(seen))
    )
