"""The storage interface: games, their append-only events and the evidence of rolls.

Everything the secretary accepts goes through ``GameStore``; SQLite is the one
implementation today, a central PostgreSQL server for a tournament could be
another without touching the secretary.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


class StoreError(Exception):
    """A storage fault, told in one sentence for people (``str(exc)``)."""


class Kind(StrEnum):
    START = "start"  # a roll of the start-cult roll-off (ST1, ST2)
    TURN = "turn"  # an accepted turn
    ILLEGAL = "illegal"  # an illegal call, recorded but not applied (V1)
    FORFEIT = "forfeit"  # the die given up after an illegal call (V2 option)
    CORRECT = "correct"  # voids the event ``ref`` and gives its replacement
    NOTE = "note"  # the secretary's note for the record (a settled dispute): a comment line


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the camera saw for one roll: the settled frame and the dice as read."""

    frame_jpeg: bytes | None = None
    dice: Any = None  # JSON-able

    def dice_json(self) -> str:
        return (
            ""
            if self.dice is None
            else json.dumps(self.dice, sort_keys=True, separators=(",", ":"))
        )

    def digest(self) -> str:
        """Chained with the event, so evidence cannot be swapped unnoticed."""
        h = hashlib.sha256()
        h.update(self.frame_jpeg or b"")
        h.update(b"\x00")
        h.update(self.dice_json().encode())
        return h.hexdigest()


@dataclass(frozen=True, slots=True)
class NewEvent:
    kind: Kind
    text: str  # the canonical record line (NOTATION.md) of the roll or turn; NOTE: the note
    ref: int | None = None  # CORRECT: seq of the event it voids
    note: str = ""  # ILLEGAL: "RULE message"; CORRECT: the reason
    evidence: Evidence | None = None


@dataclass(frozen=True, slots=True)
class StoredEvent:
    game_id: int
    seq: int  # 1, 2, 3, … within its game
    kind: Kind
    text: str
    ref: int | None
    note: str
    created: str  # ISO 8601, UTC
    evidence: str  # sha256 of the evidence, "" without
    prev_hash: str
    hash: str
    mac: str = ""  # "keyid:hmac" by the table key, "" when written without one
    omac: str = ""  # the same by the organiser's key

    def canonical(self) -> str:
        return canonical_text(
            self.seq, self.kind, self.text, self.ref, self.note, self.created, self.evidence
        )


@dataclass(frozen=True, slots=True)
class GameInfo:
    id: int
    created: str
    tags: dict[str, str]
    meta: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    genesis: str = ""
    events: int = 0  # the number of the last stored event, as kept with the game
    last_hash: str = ""  # the hash of that event
    seal: str = ""  # "keyid:hmac" over the above, by the table key
    oseal: str = ""  # the same by the organiser's key


def canonical_text(
    seq: int, kind: str, text: str, ref: int | None, note: str, created: str, evidence: str
) -> str:
    """The text an event's hash covers: every stored field, tab separated."""
    return "\t".join(
        (str(seq), kind, "" if ref is None else str(ref), created, evidence, note, text)
    )


def chain_hash(prev: str, canonical: str) -> str:
    return hashlib.sha256(f"{prev}\n{canonical}".encode()).hexdigest()


def genesis_hash(tags: dict[str, str], created: str) -> str:
    """The hash a game's first event chains to: its tags and creation time."""
    body = json.dumps(tags, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(f"companion game\n{created}\n{body}".encode()).hexdigest()


class GameStore(Protocol):
    """The one interface between the secretary and wherever events are kept."""

    def create_game(self, tags: dict[str, str], meta: dict[str, Any] | None = None) -> GameInfo: ...

    def append(self, game_id: int, event: NewEvent, after: int | None = None) -> StoredEvent:
        """Write one event durably; when this returns, it survives a power cut.

        ``after``: the seq of the last event the writer knows of; when the game
        has moved on since (another writer), nothing is written.
        """
        ...

    def events(self, game_id: int) -> list[StoredEvent]: ...

    def evidence(self, game_id: int, seq: int) -> Evidence | None: ...

    def game(self, game_id: int) -> GameInfo: ...

    def games(self) -> list[GameInfo]: ...

    def set_finished(self, game_id: int, finished: bool = True) -> None: ...

    def close(self) -> None: ...
