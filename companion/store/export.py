"""Exports of stored games: records (NOTATION.md), and JSON/CSV for play-logging apps."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fileperm import private_dir, write_private
from .base import GameInfo, StoredEvent, StoreError
from .fold import StoredGame, fold_partial, options_from_tags
from .sqlite import SQLiteStore

GAME_NAME = "IÄÄ! Cthulhu! Fhtagn!"


@dataclass
class Exported:
    info: GameInfo
    kept: StoredGame  # the game as its stored events rebuild it
    problem: str | None  # damage found while reading; what came before is kept
    events: list[StoredEvent]  # the stored events read (the intact run of a damaged game)

    @property
    def record(self) -> str:
        return self.kept.text(self.info.tags)


def select(store: SQLiteStore, which: str) -> list[GameInfo]:
    """``all``, ``last`` or a game id."""
    games = store.games_checked()[0]  # a game whose row is damaged is told by the caller
    if which == "all":
        return games
    if not games:
        raise StoreError(f"{store.where} holds no games yet")
    if which == "last":
        return [games[-1]]
    if not re.fullmatch(r"[0-9]{1,18}", which, re.ASCII):
        raise StoreError(f"--game takes a game number, 'last' or 'all', not '{which}'")
    found = [g for g in games if g.id == int(which)]
    if not found:
        raise StoreError(f"{store.where} holds no game {which}")
    return found


def load(store: SQLiteStore, info: GameInfo) -> Exported:
    """The game folded from its events; a damaged store yields the intact part."""
    problem: str | None = None
    try:
        events = store.events(info.id)
    except StoreError:
        events, problem = store.salvage_events(info.id)
    kept, fault = fold_partial(options_from_tags(info.tags), events)
    return Exported(info, kept, problem or fault, events)


def summary(ex: Exported) -> dict[str, Any]:
    """One game in the shape play-logging apps import: players, scores, winner, start player."""
    g = ex.kept.game
    tags = ex.info.tags
    date = tags.get("Date", "").replace(".", "-") or ex.info.created[:10]
    start = g.results[0].start if g.results else (g.phase_start or g.start_cult)
    phases = [{"number": r.number, "start": r.start, "scores": r.scores} for r in g.results]
    players = [
        {
            "name": c,
            "seat": i + 1,
            "score": g.totals[c],
            "winner": c in g.winners,
            "start_player": c == start,
            "phase_scores": [r.scores[c] for r in g.results],
        }
        for i, c in enumerate(g.cults)
    ]
    return {
        "id": ex.info.id,
        "game": GAME_NAME,
        "date": date,
        "event": tags.get("Event"),
        "table": tags.get("Table"),
        "cults": list(g.cults),
        "start_cult": start,
        "target": g.options.target,
        "finished": g.finished,
        "phases": phases,
        "totals": dict(g.totals),
        "winners": list(g.winners),
        "losers": list(g.losers),
        "players": players,
        "illegal_calls": ex.kept.illegal_calls,
        "problem": ex.problem,
    }


def write_evidence(store: SQLiteStore, ex: Exported, folder: Path) -> int:
    """The kept frame (.jpg) and dice as read (.json) of every event that has them."""
    private_dir(folder)  # frames show the table and its players
    n = 0
    for e in ex.events:
        ev = store.evidence(ex.info.id, e.seq)
        if ev is None:
            continue
        stem = folder / f"game{ex.info.id}-event{e.seq}"
        if ev.frame_jpeg is not None:
            write_private(stem.with_suffix(".jpg"), ev.frame_jpeg)
        meta = {
            "game": ex.info.id,
            "event": e.seq,
            "kind": e.kind.value,
            "line": e.text,
            "dice": ev.dice,
            "digest": ev.digest(),
            "chained": ev.digest() == e.evidence,
        }
        write_private(stem.with_suffix(".json"), json.dumps(meta, ensure_ascii=False, indent=2))
        n += 1
    return n


CSV_COLUMNS = (
    "game_id",
    "date",
    "event",
    "table",
    "game",
    "seat",
    "player",
    "start_player",
    "score",
    "winner",
    "finished",
    "phase_scores",
)


def to_csv(summaries: list[dict[str, Any]]) -> str:
    """One row per player per game; phase scores joined by ';'."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for s in summaries:
        for p in s["players"]:
            w.writerow(
                (
                    s["id"],
                    s["date"],
                    s["event"] or "",
                    s["table"] or "",
                    s["game"],
                    p["seat"],
                    p["name"],
                    int(p["start_player"]),
                    p["score"],
                    int(p["winner"]),
                    int(s["finished"]),
                    ";".join(str(n) for n in p["phase_scores"]),
                )
            )
    return out.getvalue()
