"""Standings across tables from game records; records that break a rule are set aside."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..rules.game import Game
from ..rules.options import Doublers
from .replay import UnreadableRecord, replay_file


@dataclass
class CultStats:
    cult: str
    games: int = 0
    wins: int = 0
    points: int = 0
    phases: int = 0
    completed: int = 0
    failed: int = 0
    doublers: int = 0
    unfinished: int = 0  # games counted whose end is not in the record

    @property
    def average(self) -> float:
        return self.points / self.phases if self.phases else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "average_per_phase": round(self.average, 2)}


@dataclass(frozen=True, slots=True)
class SetAside:
    file: str
    line: int | None
    rule: str | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}, line {self.line}" if self.line else self.file
        rule = f"{self.rule}: " if self.rule else ""
        return f"{where}: {rule}{self.reason}"


def expand(paths: list[str]) -> list[Path]:
    """Files as given; a folder stands for the records in it (*.txt, *.pgn-like *.rec)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.iterdir() if q.suffix in (".txt", ".rec", ".record")))
        else:
            out.append(p)
    return out


def add_game(table: dict[str, CultStats], g: Game) -> None:
    held_before: set[str] = set()
    for r in g.results:
        for c in g.cults:
            s = table.setdefault(c, CultStats(c))
            s.phases += 1
            s.points += r.scores[c]
            if c in r.complete:
                s.completed += 1
            else:
                s.failed += 1
        # with 'keep' a stone held from an earlier phase was not taken again
        for c in r.doublers:
            if g.options.doublers is Doublers.RETURN or c not in held_before:
                table[c].doublers += 1
        held_before = set(r.doublers)
    for c in g.cults:
        s = table.setdefault(c, CultStats(c))
        s.games += 1
        s.wins += c in g.winners
        s.unfinished += not g.finished


def standings(paths: list[str]) -> tuple[list[CultStats], list[SetAside], int]:
    """Stats per cult name (best first), the records set aside, the records counted."""
    table: dict[str, CultStats] = {}
    aside: list[SetAside] = []
    counted = 0
    for p in expand(paths):
        try:
            r = replay_file(p)
        except UnreadableRecord as exc:
            reason = str(exc).removeprefix(f"{p}: ").removeprefix(f"{p} ")  # the path is said once
            aside.append(SetAside(str(p), None, None, reason))
            continue
        if r.error is not None:
            aside.append(SetAside(str(p), r.error.line, r.error.rule, r.error.message))
            continue
        if r.game is None:
            aside.append(SetAside(str(p), None, None, "the record holds no game"))
            continue
        add_game(table, r.game)
        counted += 1
    ranked = sorted(table.values(), key=lambda s: (-s.wins, -s.points, s.cult))
    return ranked, aside, counted


def standings_text(ranked: list[CultStats], aside: list[SetAside], counted: int) -> str:
    head = (
        f"{'cult':<16} {'games':>5} {'wins':>4} {'points':>7} {'avg/phase':>9} "
        f"{'completed':>9} {'failed':>6} {'doublers':>8}"
    )
    lines = [f"standings over {counted} record{'s' if counted != 1 else ''}", head]
    for s in ranked:
        lines.append(
            f"{s.cult:<16} {s.games:>5} {s.wins:>4} {s.points:>+7d} {s.average:>9.2f} "
            f"{s.completed:>9} {s.failed:>6} {s.doublers:>8}"
        )
    unfinished = sum(1 for s in ranked if s.unfinished)
    if unfinished:
        lines.append("some records hold unfinished games: their points count, their wins do not")
    if aside:
        lines.append(f"set aside ({len(aside)}):")
        lines.extend(f"  {a}" for a in aside)
    return "\n".join(lines)
