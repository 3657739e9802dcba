"""``companion verify``: the hash chain of a database, or the lines of a record."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..record.replay import UnreadableRecord, replay_file
from .base import StoredEvent, StoreError, chain_hash, genesis_hash
from .fold import fold_partial, options_from_tags
from .sqlite import SQLiteStore, explain

SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True, slots=True)
class Finding:
    ok: bool
    message: str  # one sentence per game or record


def is_database(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def check_chain(genesis: str, events: list[StoredEvent], evidence: dict[int, str]) -> str | None:
    """The first event that does not fit the chain, as a sentence; None when all fit."""
    prev = genesis
    for want_seq, e in enumerate(events, start=1):
        if e.seq != want_seq:
            return f"event {want_seq} is missing (the next stored is {e.seq})"
        if e.prev_hash != prev:
            what = "the game's tags or start time were changed" if want_seq == 1 else f"event {want_seq - 1} was changed or removed"
            return f"event {e.seq} ({e.text}) does not follow the one before it: {what}"
        if chain_hash(prev, e.canonical()) != e.hash:
            return f"event {e.seq} ({e.text}) was changed after it was stored"
        if e.evidence and evidence.get(e.seq) != e.evidence:
            return f"the evidence of event {e.seq} ({e.text}) was changed or removed"
        prev = e.hash
    return None


def verify_db(path: Path) -> list[Finding]:
    store = SQLiteStore(path, create=False, salvage=True)
    out: list[Finding] = [Finding(False, store.damage)] if store.damage else []
    try:
        try:
            problems = [r[0] for r in store.conn.execute("PRAGMA quick_check")]
        except sqlite3.Error as exc:
            problems = [explain(exc, store.where)]
        if problems != ["ok"]:
            out.append(Finding(False, f"{store.where} is damaged: {problems[0]}"))
        for info in store.games():
            try:
                events = store.events(info.id)
            except StoreError:
                events, damage = store.salvage_events(info.id)
                out.append(Finding(False, f"game {info.id}: {damage}"))
            digests = {}
            for e in events:
                if e.evidence:
                    ev = store.evidence(info.id, e.seq)
                    digests[e.seq] = ev.digest() if ev else ""
            genesis = genesis_hash(info.tags, info.created)
            fault = None if genesis == info.genesis else "the game's tags or start time were changed"
            fault = fault or check_chain(info.genesis, events, digests)
            if fault is None:
                _, rule_fault = fold_partial(options_from_tags(info.tags), events)
                fault = rule_fault
            if fault:
                out.append(Finding(False, f"game {info.id}: {fault}"))
            else:
                state = "finished" if info.finished else "unfinished"
                out.append(Finding(True, f"game {info.id}: {len(events)} events, every hash fits ({state})"))
    finally:
        store.close()
    return out


def verify_record(path: Path) -> list[Finding]:
    try:
        r = replay_file(path)
    except UnreadableRecord as exc:
        return [Finding(False, str(exc))]
    if r.error is not None:
        e = r.error
        return [Finding(False, f"{path}, line {e.line}: {e.rule}: {e.message}")]
    return [Finding(True, f"{path}: every line keeps the rules")]


def verify(path: str | Path) -> list[Finding]:
    p = Path(path)
    if not p.exists():
        raise StoreError(f"{p}: no such file")
    if is_database(p):
        return verify_db(p)
    found = verify_record(p)
    if not found[0].ok and "not a text file" in found[0].message:
        return [Finding(False, f"{p} is neither a companion database nor a game record")]
    return found
