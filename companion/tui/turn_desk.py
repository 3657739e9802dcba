"""Entering what a turn settled into the durable session, and saying what became of it.

``TurnDesk`` hands a turn, a correction, a forfeit or a note to the ``TableSession``, rewrites
the record file, and words the outcome: the verdict line, and the status sentence the screen
shows next. A database that refuses an entry is said at once (a notification and the status
line), and nothing was accepted. The screen keeps the turn's flow: it moves the stage on from
the ``TurnResult`` it is handed back.
"""

from __future__ import annotations

from collections.abc import Callable

from ..rules import Action, Game
from ..secretary import TurnResult
from ..store.base import StoreError
from .describe import rule_sentence
from .host import Host
from .turn_lines import VerdictLine

Notify = Callable[[str], None]


class TurnDesk:
    def __init__(self, host: Host, verdict: VerdictLine, notify: Notify) -> None:
        self.host = host
        self.verdict = verdict
        self.notify = notify  # a refusal of the database, said so it cannot be missed
        self.status = ""  # what the status line says after the last entry

    def turn(
        self,
        cult: str,
        roll: tuple[str, ...],
        action: Action,
        before: Game,
        *,
        seen: tuple[str, ...] | None = None,
        correcting: bool = False,
    ) -> TurnResult | None:
        """A turn (or the correction of the last one) judged in ``before``; None when the
        database refused it."""
        session = self.host.session
        try:
            if correcting:
                outcome = session.correct_last_turn(roll, action)
            else:
                outcome = session.submit_turn(cult, roll, action, seen)
        except StoreError as exc:
            self._refused(exc)
            return None
        self.host.save_record()
        if outcome.accepted:
            self.verdict.legal(cult, action, before)
        else:
            self.verdict.illegal(cult, outcome.verdict, action)
            self.status = (
                f"house rule: {cult} forfeits a die for the illegal call (V2): key its face"
                if outcome.must_forfeit
                else f"{cult} must make a legal call (V2)"
            )
        return outcome

    def forfeit(self, cult: str, face: str) -> TurnResult | None:
        """V2 forfeit option: ``cult`` gives up ``face`` after its illegal call; None when the
        database refused it. A face the roll does not hold is said and not accepted."""
        try:
            outcome = self.host.session.submit_forfeit(face)
        except StoreError as exc:
            self._refused(exc)
            return None
        self.host.save_record()
        if outcome.accepted:
            self.verdict.forfeited(cult, face)
        else:
            self.status = (
                f"{outcome.rule}: {rule_sentence(outcome.verdict)}; key a face of the roll"
            )
        return outcome

    def note(self, text: str) -> bool:
        """The secretary's note for the record (a settled dispute); False when refused."""
        try:
            self.host.session.add_note(text)
        except StoreError as exc:
            self._refused(exc)
            return False
        self.host.save_record()
        return True

    def _refused(self, exc: StoreError) -> None:
        self.notify(str(exc))
        self.status = f"NOT STORED: {exc}"
