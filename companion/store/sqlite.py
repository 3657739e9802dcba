"""The SQLite store: one database per table, many games, one append-only event log."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .base import (
    Evidence,
    GameInfo,
    Kind,
    NewEvent,
    StoredEvent,
    StoreError,
    canonical_text,
    chain_hash,
    genesis_hash,
)
from .schema import VERSION, migrate

_EVENT_COLS = "game_id, seq, kind, text, ref, note, created, evidence, prev_hash, hash"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def explain(exc: sqlite3.Error, where: str) -> str:
    """One sentence for people out of an SQLite error."""
    msg = str(exc).lower()
    if "full" in msg:
        return f"the disk holding {where} is full: the last entry was not stored; free some space and enter it again"
    if "not a database" in msg:
        return f"{where} is not a companion database, or its first page is damaged"
    if "malformed" in msg or "corrupt" in msg:
        return f"{where} is damaged; `companion export` can still print the events before the damage"
    if "locked" in msg or "busy" in msg:
        return f"{where} is busy with another writer; try again in a moment"
    if "unable to open" in msg or "readonly" in msg or "read-only" in msg:
        return f"{where} cannot be opened for writing; check the path and its permissions"
    return f"{where} could not be used: {exc}"


def _event(row: tuple[Any, ...]) -> StoredEvent:
    game_id, seq, kind, text, ref, note, created, evidence, prev_hash, hash_ = row
    return StoredEvent(int(game_id), int(seq), Kind(kind), str(text), ref, str(note), str(created),
                       str(evidence), str(prev_hash), str(hash_))


class SQLiteStore:
    """``GameStore`` on one SQLite file in WAL mode.

    synchronous=FULL: in WAL mode NORMAL survives a killed process but may
    lose the last commits on a power cut; a secretary must survive both, and
    one fsync per event is cheap next to a roll of the dice.
    """

    def __init__(self, path: str | Path, *, create: bool = True, salvage: bool = False) -> None:
        """Open (and, with ``create``, make) the database.

        ``salvage``: a reader's open; a damaged file is then opened read-only
        so that the events before the damage can still be read, and
        ``damage`` says what is wrong.
        """
        self.path = Path(path)
        self.where = str(self.path)
        self.damage: str | None = None
        if not self.path.exists():
            if not create:
                raise StoreError(f"{self.where}: no such database")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot make the folder for {self.where}: {exc.strerror}") from None
        elif self.path.is_dir():
            raise StoreError(f"{self.where} is a folder, not a database")
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        except sqlite3.Error as exc:
            raise StoreError(explain(exc, self.where)) from None
        try:
            self.conn.execute("PRAGMA busy_timeout = 10000")
            version = self._check_ours()
            if create or version < VERSION:  # a reader leaves a current database untouched
                mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"{self.where} cannot be switched to write-ahead logging ({mode})")
            self.conn.execute("PRAGMA synchronous = FULL")
            migrate(self.conn, self.where)
        except sqlite3.Error as exc:
            self.conn.close()
            sentence = explain(exc, self.where)
            if not (salvage and "damaged" in sentence):
                raise StoreError(sentence) from None
            self._open_damaged(sentence)
        except StoreError:
            self.conn.close()
            raise

    def _open_damaged(self, sentence: str) -> None:
        """Read-only, never locking or writing the damaged file; pages past a cut are skipped."""
        uri = self.path.resolve().as_uri() + "?mode=ro&immutable=1"
        try:
            self.conn = sqlite3.connect(uri, uri=True, isolation_level=None)
            # lets SQLite open a file shorter than its header says (a cut-off copy)
            self.conn.execute("PRAGMA writable_schema = ON")
            self.conn.execute("PRAGMA query_only = ON")
            self.conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            raise StoreError(explain(exc, self.where)) from None
        self.damage = sentence

    def _check_ours(self) -> int:
        version = int(self.conn.execute("PRAGMA user_version").fetchone()[0])
        if version == 0:
            names = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
            if names:
                raise StoreError(f"{self.where} is an SQLite database, but not a companion one")
        if version > VERSION:
            migrate(self.conn, self.where)  # says, in one sentence, that it is from the future
        return version

    # ------------------------------------------------------------- helpers
    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:  # SQLite may have rolled back already (a full disk)
                    with suppress(sqlite3.Error):
                        self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.conn.in_transaction:
                with suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
            raise StoreError(explain(exc, self.where)) from None

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self.conn.execute(sql, args))
        except sqlite3.Error as exc:
            raise StoreError(explain(exc, self.where)) from None

    # ----------------------------------------------------------------- API
    def create_game(self, tags: dict[str, str], meta: dict[str, Any] | None = None) -> GameInfo:
        created = utc_now()
        genesis = genesis_hash(tags, created)
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO games (created, tags, meta, genesis) VALUES (?, ?, ?, ?)",
                (created, json.dumps(tags, ensure_ascii=False), json.dumps(meta or {}), genesis),
            )
            gid = cur.lastrowid
        assert gid is not None
        return GameInfo(gid, created, dict(tags), dict(meta or {}), False, genesis, 0)

    def append(self, game_id: int, event: NewEvent, after: int | None = None) -> StoredEvent:
        if self.damage:
            raise StoreError(self.damage)
        created = utc_now()
        ev = event.evidence
        digest = ev.digest() if ev is not None else ""
        with self._tx() as c:
            last = c.execute(
                "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
            ).fetchone()
            if last is None:
                g = c.execute("SELECT genesis FROM games WHERE id = ?", (game_id,)).fetchone()
                if g is None:
                    raise StoreError(f"{self.where} holds no game {game_id}")
                seq, prev = 1, str(g[0])
            else:
                seq, prev = int(last[0]) + 1, str(last[1])
            if after is not None and seq != after + 1:
                # the writer judged this event on a game that has moved on since
                raise StoreError(f"another secretary has written to game {game_id} since it was opened; "
                                 "resume the game to see its events")
            canon = canonical_text(seq, event.kind, event.text, event.ref, event.note, created, digest)
            stored = StoredEvent(game_id, seq, event.kind, event.text, event.ref, event.note, created,
                                 digest, prev, chain_hash(prev, canon))
            c.execute(
                f"INSERT INTO events ({_EVENT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, stored.kind.value, stored.text, stored.ref, stored.note, created,
                 digest, prev, stored.hash),
            )
            if ev is not None:
                c.execute("INSERT INTO evidence (game_id, seq, frame, dice) VALUES (?, ?, ?, ?)",
                          (game_id, seq, ev.frame_jpeg, ev.dice_json()))
        return stored

    def events(self, game_id: int) -> list[StoredEvent]:
        rows = self._read(f"SELECT {_EVENT_COLS} FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        return [_event(r) for r in rows]

    def salvage_events(self, game_id: int) -> tuple[list[StoredEvent], str | None]:
        """The events of a game readable before any damage, and a sentence about the damage.

        Only the unbroken run from the first event counts: a game cannot be
        replayed across a hole.
        """
        rows: dict[int, StoredEvent] = {}
        last_id = 0
        try:
            # rowid order walks the table itself, not the index, page after page
            for row in self.conn.execute(f"SELECT id, {_EVENT_COLS} FROM events ORDER BY id"):
                last_id = int(row[0])
                if row[1] == game_id:
                    e = _event(row[1:])
                    rows[e.seq] = e
            return [rows[s] for s in sorted(rows)], None
        except sqlite3.Error as exc:
            problem = explain(exc, self.where)
        # past the damage, seek rowid by rowid: pages further on may still be whole
        misses, rid = 0, last_id + 1
        while misses < 512:
            try:
                row = self.conn.execute(f"SELECT id, {_EVENT_COLS} FROM events WHERE id = ?", (rid,)).fetchone()
            except sqlite3.Error:
                row = None
            misses = misses + 1 if row is None else 0
            if row is not None and row[1] == game_id:
                e = _event(row[1:])
                rows[e.seq] = e
            rid += 1
        out: list[StoredEvent] = []
        while len(out) + 1 in rows:
            out.append(rows[len(out) + 1])
        return out, f"{problem} ({len(out)} events of game {game_id} are intact)"

    def evidence(self, game_id: int, seq: int) -> Evidence | None:
        rows = self._read("SELECT frame, dice FROM evidence WHERE game_id = ? AND seq = ?", (game_id, seq))
        if not rows:
            return None
        frame, dice = rows[0]
        return Evidence(bytes(frame) if frame is not None else None, json.loads(dice) if dice else None)

    def _info(self, row: tuple[Any, ...]) -> GameInfo:
        gid, created, tags, meta, finished, genesis, n = row
        return GameInfo(int(gid), str(created), json.loads(tags), json.loads(meta), bool(finished),
                        str(genesis), int(n or 0))

    _GAME_SQL = (
        "SELECT g.id, g.created, g.tags, g.meta, g.finished, g.genesis,"
        " (SELECT MAX(seq) FROM events e WHERE e.game_id = g.id) FROM games g"
    )

    def game(self, game_id: int) -> GameInfo:
        rows = self._read(self._GAME_SQL + " WHERE g.id = ?", (game_id,))
        if not rows:
            raise StoreError(f"{self.where} holds no game {game_id}")
        return self._info(rows[0])

    def games(self) -> list[GameInfo]:
        if self.damage is None:
            return [self._info(r) for r in self._read(self._GAME_SQL + " ORDER BY g.id")]
        # a damaged file: the games readable in table order, without counting events via the index
        out: list[GameInfo] = []
        with suppress(sqlite3.Error):
            for row in self.conn.execute(
                "SELECT id, created, tags, meta, finished, genesis, 0 FROM games ORDER BY id"
            ):
                out.append(self._info(row))
        return out

    def set_finished(self, game_id: int, finished: bool = True) -> None:
        with self._tx() as c:
            c.execute("UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
