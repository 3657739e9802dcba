"""The secretary: judges every entry on the rules engine and keeps it durably.

The API the screens build on::

    sec = Secretary.open(db_path)                 # or Secretary(store)
    gid = sec.start_game(Options.make(["Anna", "Ben"]), {"Table": "7"})
    sec.resume(gid)                               # after a crash: exact state
    sec.submit_start_roll("Anna", tuple("I23E1I"))  # -> start cult once decided
    res = sec.submit_turn("Anna", roll, action)   # -> TurnResult
    sec.submit_forfeit("I")                       # V2 forfeit, after an illegal call
    sec.correct_last_turn(roll, action, "misread a die")
    sec.add_note("dispute after Anna's turn …")    # a comment of the record, stored
    sec.record_text()                             # NOTATION.md record

Order of work for every entry: judge on the engine, write to the store
(durable), then apply to the game. An entry that cannot be stored leaves the
game unchanged; an illegal call is stored as such (V1) and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .fileperm import write_private
from .record.notation import NAME_RE, StartRoll, Turn, format_event, parse_line
from .record.tags import tags_for
from .rules.actions import Action, GiveUp
from .rules.game import Game, PhaseResult
from .rules.options import IllegalCall, Options
from .rules.verdicts import OK, RuleError, Verdict
from .store.base import Evidence, GameInfo, GameStore, Kind, NewEvent, StoredEvent, StoreError
from .store.fold import Input, StoredGame, fold, options_from_tags

_TAG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# Faults in these stages are misreads or entry slips (who, how many dice, game
# over), not calls: they are refused without being recorded as illegal calls.
_ENTRY_RULES = frozenset({"N", "T1", "T2", "G1", "ST1", "ST2"})


class SecretaryError(Exception):
    """An entry the secretary cannot take (no game, nothing to correct …); one sentence."""


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What became of one entry.

    ``accepted``: stored and applied. ``recorded``: stored (an accepted turn,
    or an illegal call kept for the record). ``verdict`` holds the rule broken
    and the legal alternatives when not accepted. ``must_forfeit``: under the
    forfeit option the cult must now give up a die (``submit_forfeit``).
    ``phase_result``: the scoring, when this turn ended a phase.
    """

    accepted: bool
    verdict: Verdict
    seq: int | None = None
    recorded: bool = False
    must_forfeit: bool = False
    phase_result: PhaseResult | None = None

    @property
    def rule(self) -> str | None:
        return self.verdict.rule


class Secretary:
    """Holds one game, its store and its id; every change goes through the store."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self._info: GameInfo | None = None
        self._folder: StoredGame | None = None
        self._events: list[StoredEvent] = []
        self._repairs_said = 0
        self._rescued: str | None = None

    @classmethod
    def open(cls, path: str | Path) -> Secretary:
        """The secretary on the database at ``path``, sealing with this machine's keys
        (store/keys.py) and watching that the file stays the one it writes."""
        from .store.keys import default_keys
        from .store.watch import WatchedStore

        return cls(WatchedStore(path, keys=default_keys()))

    def close(self) -> None:
        self.store.close()

    # --------------------------------------------------------------- games
    def start_game(
        self,
        options: Options,
        tags: dict[str, str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> int:
        """A new game in the store; ``tags`` are the record's free tags (Event, Table, …)."""
        _check_names(options, tags or {})
        info = self.store.create_game(tags_for(options, tags), meta)
        self._info = info
        self._folder = StoredGame(options)
        self._events = []
        return info.id

    def resume(self, game_id: int) -> None:
        """Rebuild the game by replaying its stored events through the rules."""
        info = self.store.game(game_id)
        events = self.store.events(game_id)
        folder = fold(options_from_tags(info.tags), events)
        self._info, self._folder, self._events = info, folder, events
        self._sync_finished()  # a crash may have come between the last event and the flag

    def unfinished_game(self) -> GameInfo | None:
        """The most recent game of the store that has not ended, if any."""
        for info in reversed(self.store.games()):
            if not info.finished:
                return info
        return None

    # ------------------------------------------------------------- entries
    def submit_start_roll(
        self, cult: str, faces: Sequence[str], evidence: Evidence | None = None
    ) -> str | None:
        """One roll of the roll-off (ST1, ST2); the start cult once decided.

        A roll the rules refuse raises ``RuleError`` and is not stored.
        """
        f = self._need()
        ev = StartRoll(cult, tuple(faces))
        _check_notation(ev)
        f.judge(Kind.START, ev)
        stored = self._write(NewEvent(Kind.START, format_event(ev), evidence=evidence))
        f.apply(stored.seq, Kind.START, ev)
        return f.game.start_cult

    def submit_turn(
        self, cult: str, roll: Sequence[str], action: Action, evidence: Evidence | None = None
    ) -> TurnResult:
        """Judge a turn; store and apply it when legal, store it as an illegal call when not (V1).

        Entry slips (wrong cult, wrong number of dice, a game that has ended,
        faces that do not exist) are refused without being stored.
        """
        f = self._need()
        turn = Turn(cult, tuple(roll), action)
        try:
            _check_notation(turn)
        except RuleError as exc:
            return TurnResult(False, exc.verdict)
        if f.pending_forfeit is not None:
            p = f.pending_forfeit
            return TurnResult(
                False,
                Verdict("V2", f"{p.cult} must first give up a die after its illegal call"),
                must_forfeit=True,
            )
        try:
            f.judge(Kind.TURN, turn)
        except RuleError as exc:
            if exc.rule in _ENTRY_RULES:
                return TurnResult(False, exc.verdict)
            stored = self._write(
                NewEvent(
                    Kind.ILLEGAL,
                    format_event(turn),
                    note=f"{exc.rule} {exc.message}",
                    evidence=evidence,
                )
            )
            f.note_illegal(turn, exc.rule, exc.message)
            return TurnResult(
                False,
                exc.verdict,
                stored.seq,
                recorded=True,
                must_forfeit=f.pending_forfeit is not None,
            )
        stored = self._write(NewEvent(Kind.TURN, format_event(turn), evidence=evidence))
        return self._applied(stored, Kind.TURN, turn)

    def submit_forfeit(self, face: str, evidence: Evidence | None = None) -> TurnResult:
        """V2 forfeit option: the cult of the last illegal call gives up ``face`` of that roll."""
        f = self._need()
        p = f.pending_forfeit
        if p is None:
            raise SecretaryError(
                "no cult owes a die: forfeits follow an illegal call under the forfeit option"
            )
        turn = Turn(p.cult, p.roll, GiveUp(face))
        try:
            _check_notation(turn)
            f.judge(Kind.FORFEIT, turn)
        except RuleError as exc:
            return TurnResult(False, exc.verdict, must_forfeit=True)
        stored = self._write(NewEvent(Kind.FORFEIT, format_event(turn), evidence=evidence))
        return self._applied(stored, Kind.FORFEIT, turn)

    def correct_last_turn(
        self,
        roll: Sequence[str],
        action: Action,
        reason: str = "",
        evidence: Evidence | None = None,
    ) -> TurnResult:
        """Void the last accepted turn and play ``action`` on ``roll`` in its place.

        The voided turn stays in the store; the replacement must be legal in
        the state before the voided turn, by the same cult.
        """
        f = self._need()
        before, cult, last_seq = self._before_last_turn()
        turn = Turn(cult, tuple(roll), action)
        try:
            _check_notation(turn)
            before.judge(Kind.TURN, turn)
        except RuleError as exc:
            return TurnResult(False, exc.verdict)
        note = " ".join(reason.split())  # one line
        stored = self._write(
            NewEvent(Kind.CORRECT, format_event(turn), ref=last_seq, note=note, evidence=evidence)
        )
        self._folder = fold(f.options, self._events)
        after = self._folder.game
        res = after.results[-1] if len(after.results) > len(before.game.results) else None
        self._sync_finished()
        return TurnResult(True, OK, stored.seq, recorded=True, phase_result=res)

    def add_note(self, text: str) -> StoredEvent:
        """Keep the secretary's note (a settled dispute) as an event: a comment of the record
        after the lines so far, which survives a power cut like every entry."""
        f = self._need()
        line = " ".join(text.split())  # one comment line
        if not line:
            raise SecretaryError("a note needs some words")
        stored = self._write(NewEvent(Kind.NOTE, line))
        f.note(line)
        return stored

    def legal_corrections(self, roll: Sequence[str]) -> tuple[Action, ...]:
        """The legal replacements, on ``roll``, of the last accepted turn."""
        before, cult, _ = self._before_last_turn()
        return before.game.legal_actions(tuple(roll), cult)

    def before_last_turn(self) -> Game:
        """The state in which the last accepted turn was judged (what a correction is judged in)."""
        return self._before_last_turn()[0].game

    def last_turn(self) -> Turn | None:
        """The last accepted turn, if the last entry was one."""
        inputs = self._need().inputs
        last = inputs[-1] if inputs else None
        return (
            last.event
            if last is not None and last.kind is Kind.TURN and isinstance(last.event, Turn)
            else None
        )

    def _before_last_turn(self) -> tuple[StoredGame, str, int]:
        """The game just before the last accepted turn, its cult and its event."""
        f = self._need()
        last = f.inputs[-1] if f.inputs else None
        turn = self.last_turn()
        if last is None or turn is None:
            raise SecretaryError("there is no accepted turn to correct")
        if f.pending_forfeit is not None:
            raise SecretaryError(
                f"{f.pending_forfeit.cult} must first give up a die after its illegal call"
            )
        before = StoredGame(f.options)
        for inp in f.inputs[:-1]:
            before.apply(inp.seq, inp.kind, inp.event)
        return before, turn.cult, last.seq

    # ------------------------------------------------------------ reading
    @property
    def game(self) -> Game:
        """The live game; read it, never change it (entries go through ``submit_*``)."""
        return self._need().game

    @property
    def game_id(self) -> int | None:
        return self._info.id if self._info else None

    @property
    def tags(self) -> dict[str, str]:
        return dict(self._info.tags) if self._info else {}

    @property
    def options(self) -> Options:
        return self._need().options

    @property
    def events(self) -> list[StoredEvent]:
        """Every stored event of the game, illegal calls and voided turns included."""
        return list(self._events)

    @property
    def to_move(self) -> str | None:
        return self._need().game.to_move

    @property
    def finished(self) -> bool:
        return self._need().game.finished

    @property
    def pending_forfeit(self) -> str | None:
        """The cult that owes a die after an illegal call (forfeit option), if any."""
        p = self._need().pending_forfeit
        return p.cult if p else None

    @property
    def inputs(self) -> list[Input]:
        """The accepted start rolls, turns and forfeits, corrections applied, in order."""
        return list(self._need().inputs)

    @property
    def illegal_calls(self) -> list[StoredEvent]:
        return [e for e in self._events if e.kind is Kind.ILLEGAL]

    def legal_actions(self, roll: Sequence[str], cult: str | None = None) -> tuple[Action, ...]:
        return self._need().game.legal_actions(tuple(roll), cult)

    def record_text(self, comments: bool = True) -> str:
        """The NOTATION.md record of the accepted events (illegal calls and notes as comments)."""
        f = self._need()
        assert self._info is not None
        return f.text(self._info.tags, comments)

    # ------------------------------------------------------------ helpers
    def _need(self) -> StoredGame:
        if self._folder is None:
            raise SecretaryError("no game is open: start a new game or resume one")
        return self._folder

    def _write(self, event: NewEvent) -> StoredEvent:
        assert self._info is not None
        last = self._events[-1].seq if self._events else 0
        try:
            stored = self.store.append(self._info.id, event, after=last)
        except StoreError as exc:
            detached = getattr(self.store, "detached", None)
            if detached:  # the file is gone: what was accepted is saved elsewhere, and said
                raise StoreError(self._rescue(detached)) from None
            raise StoreError(str(exc)) from None
        self._events.append(stored)
        return stored

    # ------------------------------------------------------- the database
    def store_news(self) -> list[str]:
        """Sentences the screen must show about the database, each once: a lost write-ahead
        log repaired, or the database file lost (the accepted events are then saved to a
        record file beside it, and no further entry is accepted)."""
        check = getattr(self.store, "after_write", None)  # a watched store looks at its files
        if check is None:
            return []
        check()
        repaired: list[str] = getattr(self.store, "repaired", [])
        out = list(repaired[self._repairs_said :])
        self._repairs_said = len(repaired)
        detached = getattr(self.store, "detached", None)
        if detached and self._rescued is None:
            out.append(self._rescue(detached))
        return out

    def _rescue(self, problem: str) -> str:
        """Save the accepted events as a record where the database was (or in the working
        folder)."""
        if self._rescued is not None:
            return self._rescued
        where = Path(getattr(self.store, "path", "companion.db"))
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        text = self.record_text() if self._folder is not None and self._info is not None else ""
        saved = None
        for folder in (where.parent, Path.cwd()):
            target = folder / f"{where.name}.rescued-{stamp}.txt"
            try:
                write_private(target, text)
            except OSError:
                continue
            saved = target
            break
        n = len(self._events)
        if saved is None:
            self._rescued = (
                f"{problem}; the {n} events accepted could not be saved anywhere: write them down"
            )
        elif text:
            self._rescued = (
                f"{problem}; the {n} events accepted are saved in {saved}: restart companion "
                "to play on in a new database"
            )
        else:
            self._rescued = f"{problem}; no game was open: restart companion"
        return self._rescued

    def _applied(self, stored: StoredEvent, kind: Kind, turn: Turn) -> TurnResult:
        f = self._need()
        res = f.apply(stored.seq, kind, turn)
        self._sync_finished()
        return TurnResult(True, OK, stored.seq, recorded=True, phase_result=res)

    def _sync_finished(self) -> None:
        """The store's finished flag follows the game, also when a correction reopens it."""
        done = self._need().game.finished
        if self._info is not None and self._info.finished != done:
            self.store.set_finished(self._info.id, done)
            self._info = self.store.game(self._info.id)


def _check_names(options: Options, tags: dict[str, str]) -> None:
    """Cult names and tags must be writable in a record (NOTATION.md)."""
    for cult in options.cults:
        if not NAME_RE.match(cult) or cult.lower() == "center":
            raise SecretaryError(
                f"'{cult}' cannot be a cult name: one word of letters, digits, _ or -"
            )
    for name, value in tags.items():
        if not _TAG_NAME.match(name):
            raise SecretaryError(
                f"'{name}' cannot be a tag name: a letter, then letters, digits or _"
            )
        if '"' in value or "\n" in value or "\r" in value:
            raise SecretaryError(f"the tag {name} cannot hold quotes or line breaks")


def _check_notation(ev: StartRoll | Turn) -> None:
    """Only what the record can say is stored: the line must read back as the same entry."""
    line = format_event(ev)
    if parse_line(line) != ev:
        raise RuleError("N", f"'{line}' cannot be written in a game record")


__all__ = [
    "Evidence",
    "IllegalCall",
    "Input",
    "Secretary",
    "SecretaryError",
    "StoreError",
    "TurnResult",
]
