"""The SQLite store: one database per table, many games, one append-only event log."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..fileperm import private_dir
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
from .keys import Key, Keys
from .schema import VERSION, migrate

#: What SQLite raises on a damaged file: its own errors, and a UnicodeDecodeError when the
#: message it builds quotes damaged bytes (a broken schema) or a text column is not UTF-8.
DB_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, UnicodeDecodeError)

_EVENT_COLS = "game_id, seq, kind, text, ref, note, created, evidence, prev_hash, hash, mac, omac"
_GAME_COLS = "id, created, tags, meta, finished, genesis, n_events, last_hash, seal, oseal"


def _columns(version: int) -> tuple[str, str]:
    """What to select of events and games in a file of ``version`` (a damaged file is never
    migrated)."""
    ev, games = _EVENT_COLS, _GAME_COLS
    if version < 3:
        ev = ev.replace("mac, omac", "'' AS mac, '' AS omac")
        games = games.replace("n_events, last_hash, seal, oseal", "0, '', '', ''")
    if version < 2:
        ev = ev.replace("evidence,", "'' AS evidence,")
    return ev, games


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def explain(exc: Exception, where: str) -> str:
    """One sentence for people out of an SQLite error."""
    if isinstance(exc, UnicodeDecodeError):  # damaged bytes where SQLite expected UTF-8 text
        return (
            f"{where} is damaged; `companion export` can still print the events before the damage"
        )
    msg = str(exc).lower()
    if "full" in msg:
        return (
            f"the disk holding {where} is full: the last entry was not stored; "
            "free some space and enter it again"
        )
    if "not a database" in msg:
        return f"{where} is not a companion database, or its first page is damaged"
    if "malformed" in msg or "corrupt" in msg:
        return (
            f"{where} is damaged; `companion export` can still print the events before the damage"
        )
    if "locked" in msg or "busy" in msg:
        return f"{where} is busy with another writer; try again in a moment"
    if "unable to open" in msg or "readonly" in msg or "read-only" in msg:
        return f"{where} cannot be opened for writing; check the path and its permissions"
    return f"{where} could not be used: {exc}"


class DamagedRow(StoreError):
    """A row whose columns are not what companion wrote (a flipped byte, an edit)."""


def _int(value: Any, what: str) -> int:
    if type(value) is not int:  # SQLite keeps text that is no number as text, 1.5 as REAL
        raise DamagedRow(f"{what} is not a whole number")
    return value


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise DamagedRow(f"{what} is not text")
    return value


def _event(row: tuple[Any, ...]) -> StoredEvent:
    game_id, seq, kind, text, ref, note, created, evidence, prev_hash, hash_, mac, omac = row
    gid = _int(game_id, "the game number of an event")
    where = f"an event of game {gid}"
    n = _int(seq, f"the number (seq) of {where}")
    where = f"event {n} of game {gid}"
    try:
        k = Kind(kind)
    except ValueError:
        raise DamagedRow(f"the kind of {where} is damaged") from None
    if ref is not None:
        ref = _int(ref, f"the event that {where} corrects")
    return StoredEvent(
        gid,
        n,
        k,
        _str(text, f"the line of {where}"),
        ref,
        _str(note, f"the note of {where}"),
        _str(created, f"the time of {where}"),
        _str(evidence, f"the evidence digest of {where}"),
        _str(prev_hash, f"the previous hash of {where}"),
        _str(hash_, f"the hash of {where}"),
        _str(mac, f"the table seal of {where}"),
        _str(omac, f"the organiser seal of {where}"),
    )


def _json_object(text: Any, what: str) -> dict[str, Any]:
    try:
        value = json.loads(_str(text, what))
    except (ValueError, RecursionError):
        raise DamagedRow(f"{what} cannot be read: damaged, not JSON") from None
    if not isinstance(value, dict):
        raise DamagedRow(f"{what} cannot be read: damaged, not a JSON object")
    return value


def event_mac(key: Key, game_id: int, hash_: str) -> str:
    """An event's seal: its hash chains every event before it and the game's tags."""
    body = f"companion event\n{game_id}\n{hash_}"
    return f"{key.id}:{key.mac(body)}"


def game_seal(key: Key, info: GameInfo, meta_text: str) -> str:
    """A game's seal: its settings, how many events it has, its last hash and whether it ended."""
    body = (
        f"companion game\n{info.id}\n{info.genesis}\n{info.events}\n{info.last_hash}\n"
        f"{int(info.finished)}\n{meta_text}"
    )
    return f"{key.id}:{key.mac(body)}"


def _tighten(path: Path) -> None:
    """A database made by an older companion (0644) becomes the writer's alone, with its -wal
    and -shm."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with suppress(OSError):  # not ours to change: it stays as it is
            if p.stat().st_mode & 0o077:
                p.chmod(0o600)


class SQLiteStore:
    """``GameStore`` on one SQLite file in WAL mode.

    synchronous=FULL: in WAL mode NORMAL survives a killed process but may
    lose the last commits on a power cut; a secretary must survive both, and
    one fsync per event is cheap next to a roll of the dice.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        salvage: bool = False,
        keys: Keys | None = None,
    ) -> None:
        """Open (and, with ``create``, make) the database.

        ``salvage``: a reader's open; a damaged file is then opened read-only
        so that the events before the damage can still be read, and
        ``damage`` says what is wrong.
        """
        self.path = Path(path)
        self.where = str(self.path)
        self.damage: str | None = None
        self.keys = keys or Keys()
        self._ecols, game_cols = _columns(VERSION)
        self._gsql = f"SELECT {game_cols} FROM games"
        if not self.path.exists():
            if not create:
                raise StoreError(f"{self.where}: no such database")
            try:
                private_dir(self.path.parent)
                # games are private to the table: 0600, and SQLite gives -wal and -shm the same mode
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                pass  # made by another writer in the meantime
            except OSError as exc:
                raise StoreError(f"cannot make {self.where}: {exc.strerror}") from None
        elif self.path.is_dir():
            raise StoreError(f"{self.where} is a folder, not a database")
        elif create:
            _tighten(self.path)
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        except DB_ERRORS as exc:
            raise StoreError(explain(exc, self.where)) from None
        try:
            self.conn.execute("PRAGMA busy_timeout = 10000")
            version = self._check_ours()
            if create or version < VERSION:  # a reader leaves a current database untouched
                mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(
                        f"{self.where} cannot be switched to write-ahead logging ({mode})"
                    )
            self.conn.execute("PRAGMA synchronous = FULL")
            migrate(self.conn, self.where)
        except DB_ERRORS as exc:
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
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        except DB_ERRORS as exc:
            raise StoreError(explain(exc, self.where)) from None
        self._ecols, game_cols = _columns(version if type(version) is int else VERSION)
        self._gsql = f"SELECT {game_cols} FROM games"
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
                    with suppress(*DB_ERRORS):
                        self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except DB_ERRORS as exc:
            if self.conn.in_transaction:
                with suppress(*DB_ERRORS):
                    self.conn.execute("ROLLBACK")
            raise StoreError(explain(exc, self.where)) from None

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return list(self.conn.execute(sql, args))
        except DB_ERRORS as exc:
            raise StoreError(explain(exc, self.where)) from None

    # ----------------------------------------------------------------- API
    def create_game(self, tags: dict[str, str], meta: dict[str, Any] | None = None) -> GameInfo:
        self.check_file()
        created = utc_now()
        genesis = genesis_hash(tags, created)
        meta_text = json.dumps(meta or {})
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO games (created, tags, meta, genesis) VALUES (?, ?, ?, ?)",
                (created, json.dumps(tags, ensure_ascii=False), meta_text, genesis),
            )
            gid = cur.lastrowid
            assert gid is not None
            info = self._seal(
                c,
                GameInfo(gid, created, dict(tags), dict(meta or {}), False, genesis, 0),
                meta_text,
            )
        self.after_write()
        return info

    def _seal(self, c: sqlite3.Connection, info: GameInfo, meta_text: str) -> GameInfo:
        """Write the game's count, last hash and seals (in the caller's transaction)."""
        t, o = self.keys.table, self.keys.organiser
        seal = game_seal(t, info, meta_text) if t else ""
        oseal = game_seal(o, info, meta_text) if o else ""
        c.execute(
            "UPDATE games SET n_events = ?, last_hash = ?, finished = ?, seal = ?, oseal = ? "
            "WHERE id = ?",
            (info.events, info.last_hash, int(info.finished), seal, oseal, info.id),
        )
        return replace(info, seal=seal, oseal=oseal)

    def append(self, game_id: int, event: NewEvent, after: int | None = None) -> StoredEvent:
        if self.damage:
            raise StoreError(self.damage)
        self.check_file()
        created = utc_now()
        ev = event.evidence
        digest = ev.digest() if ev is not None else ""
        with self._tx() as c:
            info = self._game_in(c, game_id)
            last = c.execute(
                "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                (game_id,),
            ).fetchone()
            if last is None:
                seq, prev = 1, info.genesis
            else:
                seq, prev = (
                    _int(last[0], f"the number of the last event of game {game_id}") + 1,
                    str(last[1]),
                )
            if after is not None and seq != after + 1:
                # the writer judged this event on a game that has moved on since
                raise StoreError(
                    f"another secretary has written to game {game_id} since it was opened; "
                    "resume the game to see its events"
                )
            canon = canonical_text(
                seq, event.kind, event.text, event.ref, event.note, created, digest
            )
            hash_ = chain_hash(prev, canon)
            t, o = self.keys.table, self.keys.organiser
            stored = StoredEvent(
                game_id,
                seq,
                event.kind,
                event.text,
                event.ref,
                event.note,
                created,
                digest,
                prev,
                hash_,
                event_mac(t, game_id, hash_) if t else "",
                event_mac(o, game_id, hash_) if o else "",
            )
            c.execute(
                f"INSERT INTO events ({_EVENT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    seq,
                    stored.kind.value,
                    stored.text,
                    stored.ref,
                    stored.note,
                    created,
                    digest,
                    prev,
                    stored.hash,
                    stored.mac,
                    stored.omac,
                ),
            )
            if ev is not None:
                c.execute(
                    "INSERT INTO evidence (game_id, seq, frame, dice) VALUES (?, ?, ?, ?)",
                    (game_id, seq, ev.frame_jpeg, ev.dice_json()),
                )
            self._seal(c, replace(info, events=seq, last_hash=hash_), self._meta_text(c, game_id))
        self.after_write()
        return stored

    def _game_in(self, c: sqlite3.Connection, game_id: int) -> GameInfo:
        row = c.execute(self._gsql + " WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.where} holds no game {game_id}")
        return self._info(row)

    @staticmethod
    def _meta_text(c: sqlite3.Connection, game_id: int) -> str:
        row = c.execute("SELECT meta FROM games WHERE id = ?", (game_id,)).fetchone()
        return str(row[0]) if row else "{}"

    def meta_text(self, game_id: int) -> str:
        """The game's meta as stored (what its seal covers)."""
        rows = self._read("SELECT meta FROM games WHERE id = ?", (game_id,))
        return str(rows[0][0]) if rows else ""

    def check_file(self) -> None:
        """Before a write: raise StoreError when the file is no longer ours (``watch.py``); a
        plain store checks nothing."""

    def after_write(self) -> None:
        """After a write: note (never raise) that the file is no longer ours (``watch.py``)."""

    def events(self, game_id: int) -> list[StoredEvent]:
        rows = self._read(
            f"SELECT {self._ecols} FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [_event(r) for r in rows]

    def salvage_events(self, game_id: int) -> tuple[list[StoredEvent], str | None]:
        """The events of a game readable before any damage, and a sentence about the damage.

        Only the unbroken run from the first event counts: a game cannot be
        replayed across a hole. A row whose columns are damaged is such a hole.
        """
        rows: dict[int, StoredEvent] = {}
        bad: list[str] = []

        def take(row: tuple[Any, ...]) -> None:
            if row[1] != game_id:
                return
            try:
                e = _event(row[1:])
            except DamagedRow as exc:
                bad.append(str(exc))
                return
            rows[e.seq] = e

        last_id = 0
        problem: str | None = None
        try:
            # rowid order walks the table itself, not the index, page after page
            for row in self.conn.execute(f"SELECT id, {self._ecols} FROM events ORDER BY id"):
                last_id = row[0] if type(row[0]) is int else last_id
                take(row)
        except DB_ERRORS as exc:
            problem = explain(exc, self.where)
        if problem is not None:
            # past the damage, seek rowid by rowid: pages further on may still be whole
            misses, rid = 0, last_id + 1
            while misses < 512:
                try:
                    row = self.conn.execute(
                        f"SELECT id, {self._ecols} FROM events WHERE id = ?", (rid,)
                    ).fetchone()
                except DB_ERRORS:
                    row = None
                misses = misses + 1 if row is None else 0
                if row is not None:
                    take(row)
                rid += 1
        out: list[StoredEvent] = []
        while len(out) + 1 in rows:
            out.append(rows[len(out) + 1])
        if problem is None and not bad:
            return out, None
        problem = problem or f"{self.where} is damaged: {bad[0]}"
        return out, f"{problem} ({len(out)} events of game {game_id} are intact)"

    def evidence(self, game_id: int, seq: int) -> Evidence | None:
        rows = self._read(
            "SELECT frame, dice FROM evidence WHERE game_id = ? AND seq = ?", (game_id, seq)
        )
        if not rows:
            return None
        frame, dice = rows[0]
        if frame is not None and not isinstance(frame, bytes):
            raise DamagedRow(f"the kept frame of event {seq} of game {game_id} is damaged")
        what = f"the dice as read of event {seq} of game {game_id}"
        try:
            seen = json.loads(_str(dice, what)) if dice else None
        except (ValueError, RecursionError):
            raise DamagedRow(f"{what} are damaged (not JSON)") from None
        return Evidence(frame, seen)

    def _info(self, row: tuple[Any, ...]) -> GameInfo:
        gid, created, tags, meta, finished, genesis, n, last_hash, seal, oseal = row
        g = _int(gid, "a game number")
        tag_map = _json_object(tags, f"the tags of game {g}")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in tag_map.items()):
            raise DamagedRow(f"the tags of game {g} cannot be read: damaged, not names and text")
        if finished not in (0, 1):
            raise DamagedRow(f"the finished mark of game {g} is damaged")
        return GameInfo(
            g,
            _str(created, f"the start time of game {g}"),
            tag_map,
            _json_object(meta, f"the settings (meta) of game {g}"),
            bool(finished),
            _str(genesis, f"the first hash of game {g}"),
            _int(n, f"the event count of game {g}"),
            _str(last_hash, f"the last hash of game {g}"),
            _str(seal, f"the seal of game {g}"),
            _str(oseal, f"the organiser seal of game {g}"),
        )

    def game(self, game_id: int) -> GameInfo:
        rows = self._read(self._gsql + " WHERE id = ?", (game_id,))
        if not rows:
            raise StoreError(f"{self.where} holds no game {game_id}")
        return self._info(rows[0])

    def games(self) -> list[GameInfo]:
        """Every game; a damaged row raises DamagedRow (``games_checked`` reads past it)."""
        infos, bad = self.games_checked()
        if bad:
            raise DamagedRow(f"{self.where} is damaged: {bad[0]}")
        return infos

    def games_checked(self) -> tuple[list[GameInfo], list[str]]:
        """The games whose rows read well, and a sentence for each that does not."""
        out: list[GameInfo] = []
        bad: list[str] = []
        try:
            for row in self.conn.execute(self._gsql + " ORDER BY id"):
                try:
                    out.append(self._info(row))
                except DamagedRow as exc:
                    bad.append(str(exc))
        except DB_ERRORS as exc:
            if self.damage is None:
                raise StoreError(explain(exc, self.where)) from None
            # a damaged file: the games readable in table order are what there is
        return out, bad

    def set_finished(self, game_id: int, finished: bool = True) -> None:
        self.check_file()
        with self._tx() as c:
            info = self._game_in(c, game_id)
            self._seal(c, replace(info, finished=finished), self._meta_text(c, game_id))
        self.after_write()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
