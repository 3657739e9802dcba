"""Schema versions of the SQLite store (PRAGMA user_version) and their migrations."""

from __future__ import annotations

import sqlite3

from .base import StoreError

#: MIGRATIONS[n] brings a database from version n to version n + 1.
MIGRATIONS: tuple[str, ...] = (
    # 1: games and their hash-chained events
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        created TEXT NOT NULL,
        tags TEXT NOT NULL,
        meta TEXT NOT NULL DEFAULT '{}',
        finished INTEGER NOT NULL DEFAULT 0,
        genesis TEXT NOT NULL
    );
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        ref INTEGER,
        note TEXT NOT NULL DEFAULT '',
        created TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        UNIQUE (game_id, seq)
    );
    """,
    # 2: the evidence of a roll (settled frame, dice as read), chained by digest
    """
    ALTER TABLE events ADD COLUMN evidence TEXT NOT NULL DEFAULT '';
    CREATE TABLE evidence (
        game_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        frame BLOB,
        dice TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (game_id, seq)
    );
    """,
    # 3: what verify needs beyond the chain: each game's event count and last hash (events
    # deleted from the end show), and seals (HMAC, "keyid:hex") by keys kept outside the file
    """
    ALTER TABLE games ADD COLUMN n_events INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN last_hash TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN seal TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN oseal TEXT NOT NULL DEFAULT '';
    ALTER TABLE events ADD COLUMN mac TEXT NOT NULL DEFAULT '';
    ALTER TABLE events ADD COLUMN omac TEXT NOT NULL DEFAULT '';
    UPDATE games SET
        n_events = COALESCE((SELECT MAX(seq) FROM events e WHERE e.game_id = games.id), 0),
        last_hash = COALESCE((SELECT hash FROM events e WHERE e.game_id = games.id
                              ORDER BY seq DESC LIMIT 1), '');
    """,
    # 4: notes of the secretary (a settled dispute) are events of their own kind. A companion
    # that reads up to schema 3 would take a note for a damaged event; from here the database
    # itself refuses a kind this schema does not know, so every new kind comes with a migration
    """
    CREATE TRIGGER events_known_kind BEFORE INSERT ON events
    WHEN NEW.kind NOT IN ('start', 'turn', 'illegal', 'forfeit', 'correct', 'note')
    BEGIN
        SELECT RAISE(ABORT, 'an event of an unknown kind');
    END;
    """,
)
VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, where: str) -> None:
    """Bring the database up to VERSION, each step in its own transaction."""
    have = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if have > VERSION:
        raise StoreError(
            f"{where} was written by a newer companion (schema {have}, this one reads up to "
            f"{VERSION}); update companion to open it"
        )
    for n in range(have, VERSION):
        # executescript commits first; the explicit BEGIN makes each step atomic
        conn.executescript(
            f"BEGIN IMMEDIATE;\n{MIGRATIONS[n]}\nPRAGMA user_version = {n + 1};\nCOMMIT;"
        )
