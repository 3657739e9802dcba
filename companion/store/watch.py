"""The secretary's store, watching that its database stays the file it writes.

SQLite keeps writing to a database file or write-ahead log that was deleted
or replaced under it: every event then goes to a file nobody will ever open
again, and is lost at the next restart. Before and after every write this
store compares the files with those it opened (device and inode); when they
differ it refuses the next write with one sentence, so the secretary can say
so before another call is accepted.

A removed write-ahead log is repaired: the open connection still holds it,
so a checkpoint copies its events into the database file, and a new log is
started; the game goes on with nothing lost.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import suppress
from pathlib import Path

from .base import StoreError
from .keys import Keys
from .sqlite import DB_ERRORS, SQLiteStore, explain


class StoreDetached(StoreError):
    """The database file is no longer the one this store writes."""


def _ident(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class WatchedStore(SQLiteStore):
    def __init__(self, path: str | Path, *, keys: Keys | None = None) -> None:
        super().__init__(path, keys=keys)
        self.wal_path = Path(f"{self.path}-wal")
        self._db_id = _ident(self.path)
        self._wal_id = _ident(self.wal_path)
        self.detached: str | None = None  # the sentence, once the file is no longer ours
        self.repaired: list[str] = []  # sentences of repairs done, for the screen

    def problem(self) -> str | None:
        """A sentence when the database is no longer the file this store writes, else None."""
        if self.detached:
            return self.detached
        db = _ident(self.path)
        if db is None:
            return f"the database {self.where} was deleted or moved away while the game was on"
        if db != self._db_id:
            return f"the database {self.where} was replaced by another file while the game was on"
        wal = _ident(self.wal_path)
        if self._wal_id is None:
            self._wal_id = wal  # SQLite makes the log at the first write
        elif wal != self._wal_id:
            return (
                f"the write-ahead log {self.wal_path} "
                f"was {'deleted' if wal is None else 'replaced'}"
            )
        return None

    def check_file(self) -> None:
        """Raise StoreDetached when the file is no longer ours (after repairing a lost log)."""
        problem = self.problem()
        if problem is None:
            return
        if (
            not self.detached
            and problem.startswith("the write-ahead log")
            and self._repair_wal(problem)
        ):
            return
        self.detached = problem
        raise StoreDetached(f"{problem}: nothing more can be stored in it")

    def after_write(self) -> None:
        """The write is done and cannot be taken back: repair a lost log, or note the loss."""
        with suppress(
            StoreDetached
        ):  # self.detached holds it; the secretary says it and saves what was accepted
            self.check_file()

    def _repair_wal(self, problem: str) -> bool:
        """Copy the open log's events into the database file, then start a new log."""
        try:
            busy, _, _ = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy:
                return False
            self.conn.close()
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
            self.conn.execute("PRAGMA busy_timeout = 10000")
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.execute("BEGIN IMMEDIATE")  # makes the new log now, to watch it
            self.conn.execute("COMMIT")
        except DB_ERRORS as exc:
            self.detached = (
                f"{problem}, and the events in it could not be saved ({explain(exc, self.where)})"
            )
            return False
        self._wal_id = _ident(self.wal_path)
        self.repaired.append(
            f"{problem}; its events were copied into {self.where} and a new log was started"
        )
        return True
