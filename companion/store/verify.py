"""``companion verify``: a database's games (chain, count, end, seals), or the lines of a record.

What each check proves, and what it does not, is in docs/verify.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..record.replay import UnreadableRecord, replay_file
from .base import GameInfo, StoredEvent, StoreError, chain_hash, genesis_hash
from .fold import fold_partial, options_from_tags
from .keys import Key, Keys
from .sqlite import DB_ERRORS, SQLiteStore, event_mac, explain, game_seal

SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True, slots=True)
class Finding:
    ok: bool
    message: str  # one sentence per game or record
    note: bool = False  # what was checked (the key), not a verdict


def is_database(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def shown(text: str, limit: int = 60) -> str:
    """An event's text as part of a one-line sentence: a damaged event can hold line breaks and
    other control characters, or run long, and the message must stay one readable line."""
    out = "".join(
        ch
        if ch.isprintable()
        else (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        for ch in text
    )
    return out if len(out) <= limit else out[: limit - 1] + "…"


def check_chain(
    genesis: str, events: list[StoredEvent], evidence: dict[int, str | None]
) -> str | None:
    """The first event that does not fit the chain, as a sentence; None when all fit."""
    prev = genesis
    for want_seq, e in enumerate(events, start=1):
        if e.seq != want_seq:
            return f"event {want_seq} is missing (the next stored is {e.seq})"
        if e.prev_hash != prev:
            what = (
                "the game's tags or start time were changed"
                if want_seq == 1
                else f"event {want_seq - 1} was changed or removed"
            )
            return f"event {e.seq} ({shown(e.text)}) does not follow the one before it: {what}"
        if chain_hash(prev, e.canonical()) != e.hash:
            return f"event {e.seq} ({shown(e.text)}) was changed after it was stored"
        if e.evidence and evidence.get(e.seq) != e.evidence:
            return f"the evidence of event {e.seq} ({shown(e.text)}) was changed or removed"
        prev = e.hash
    return None


def check_count(info: GameInfo, events: list[StoredEvent]) -> str | None:
    """The game row keeps its event count and last hash: events cut from the end show."""
    last = events[-1] if events else None
    have, last_hash = (last.seq, last.hash) if last else (0, "")
    if have < info.events:
        return f"its last {info.events - have} of {info.events} events were deleted"
    if have != info.events or last_hash != info.last_hash:
        return (
            f"it has {have} events but {info.events} were recorded with the game: "
            "events were added or changed"
        )
    return None


def check_seals(
    store: SQLiteStore, info: GameInfo, events: list[StoredEvent], key: Key, whose: str
) -> str | None:
    """Every event and the game itself sealed by ``key``; None when all are."""
    seal = info.seal if whose == "table" else info.oseal
    if not seal:
        return (
            f"it carries no seal of the {whose} key: "
            "it was written without that key, or its seals were removed"
        )
    kid = seal.partition(":")[0]
    if kid != key.id:
        return f"it is sealed with {whose} key {kid}, not with the key checked ({key.id})"
    for e in events:
        mac = e.mac if whose == "table" else e.omac
        if mac != event_mac(key, info.id, e.hash):
            return (
                f"the seal of event {e.seq} ({shown(e.text)}) does not fit: "
                f"the event was rewritten without the {whose} key"
            )
    if seal != game_seal(key, info, store.meta_text(info.id)):
        return (
            "the game's seal does not fit: its event count, end, finished mark or settings "
            f"were changed without the {whose} key"
        )
    return None


def _digests(
    store: SQLiteStore, info: GameInfo, events: list[StoredEvent]
) -> dict[int, str | None]:
    out: dict[int, str | None] = {}
    for e in events:
        if e.evidence:
            try:
                ev = store.evidence(info.id, e.seq)
            except StoreError:
                ev = None  # damaged evidence does not fit its digest, as removed evidence does not
            out[e.seq] = ev.digest() if ev else None
    return out


def verify_game(store: SQLiteStore, info: GameInfo, keys: Keys) -> list[Finding]:
    out: list[Finding] = []
    try:
        events = store.events(info.id)
    except StoreError:
        events, damage = store.salvage_events(info.id)
        out.append(Finding(False, f"game {info.id}: {damage}"))
    fault = (
        None
        if genesis_hash(info.tags, info.created) == info.genesis
        else "the game's tags or start time were changed"
    )
    fault = fault or check_chain(info.genesis, events, _digests(store, info, events))
    if out:  # damaged: the intact events are checked as far as they go; the rest is the damage said
        if fault:
            out.append(Finding(False, f"game {info.id}: {fault}"))
        return out
    fault = fault or check_count(info, events)
    for key, whose in ((keys.table, "table"), (keys.organiser, "organiser")):
        if fault is None and key is not None:
            fault = check_seals(store, info, events, key, whose)
    ended = False
    if fault is None:
        try:
            kept, fault = fold_partial(options_from_tags(info.tags), events)
            ended = kept.game.finished
        except StoreError as exc:
            fault = str(exc)
    if fault is None and info.finished and not ended:
        fault = (
            "it is marked finished but its events stop before the game's end: events were deleted"
        )
    if fault is None and ended and not info.finished:
        fault = (
            "its events end the game but it is not marked finished: the mark was changed, "
            "or companion stopped before setting it (resuming the game sets it)"
        )
    if fault:
        out.append(Finding(False, f"game {info.id}: {fault}"))
    elif not out:
        state = "finished, ending with its end event" if info.finished else "unfinished"
        sealed = [
            w for k, w in ((keys.table, "table"), (keys.organiser, "organiser")) if k is not None
        ]
        how = f"every hash and {' and '.join(sealed)} seal fits" if sealed else "every hash fits"
        out.append(Finding(True, f"game {info.id}: {len(events)} events, {how} ({state})"))
    return out


def key_notes(keys: Keys) -> list[Finding]:
    """Which keys were checked and what that proves, one sentence each."""
    if keys.table is None and keys.organiser is None:
        return [
            Finding(
                True,
                "no key given and no table key on this machine: the hash chain shows damage and "
                "careless edits, not a rewrite by someone who recomputed the hashes "
                "(see docs/verify.md)",
                note=True,
            )
        ]
    out = []
    for key, whose in ((keys.table, "table"), (keys.organiser, "organiser")):
        if key is not None:
            out.append(
                Finding(
                    True,
                    f"checked with the {whose} key {key.id} ({key.source}): a game whose seals fit "
                    "was written by a companion holding that key, and changed by nobody without it",
                    note=True,
                )
            )
    return out


def verify_db(path: Path, keys: Keys | None = None) -> list[Finding]:
    keys = keys or Keys()
    store = SQLiteStore(path, create=False, salvage=True)
    out: list[Finding] = [Finding(False, store.damage)] if store.damage else []
    try:
        try:
            problems = [r[0] for r in store.conn.execute("PRAGMA quick_check")]
        except DB_ERRORS as exc:
            problems = [explain(exc, store.where)]
        if problems != ["ok"]:
            # quick_check speaks over several lines ("*** in database main ***\nPage 1: ..."):
            # one is said
            detail = " ".join(str(problems[0]).replace("*** in database main ***", "").split())
            out.append(Finding(False, f"{store.where} is damaged: {detail}"))
        infos, bad = store.games_checked()
        out.extend(Finding(False, b) for b in bad)
        if not infos and not bad:
            out.append(Finding(False, f"{store.where} holds no games: there is nothing to verify"))
        for info in infos:
            out.extend(verify_game(store, info, keys))
    finally:
        store.close()
    return key_notes(keys) + out


def verify_record(path: Path) -> list[Finding]:
    try:
        r = replay_file(path)
    except UnreadableRecord as exc:
        return [Finding(False, str(exc))]
    if r.error is not None:
        e = r.error
        return [Finding(False, f"{path}, line {e.line}: {e.rule}: {e.message}")]
    if not r.events:
        return [Finding(False, f"{path} holds no event of a game: there is nothing to verify")]
    return [
        Finding(
            True,
            f"{path}: every line keeps the rules (a record carries no seal: this shows it is a "
            "possible game, not that it was played)",
        )
    ]


def verify(path: str | Path, keys: Keys | None = None) -> list[Finding]:
    p = Path(path)
    if not p.exists():
        raise StoreError(f"{p}: no such file")
    if p.is_file() and p.stat().st_size == 0:
        return [Finding(False, f"{p} is empty: neither a companion database nor a game record")]
    if is_database(p):
        return verify_db(p, keys)
    found = verify_record(p)
    if not found[0].ok and "not a text file" in found[0].message:
        return [Finding(False, f"{p} is neither a companion database nor a game record")]
    return found
