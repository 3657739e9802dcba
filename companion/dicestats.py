"""Dice statistics: the faces rolled against what a fair die gives, with a chi-square test.

A die of this game is not a d6 with equal motifs: IÄÄ! is on two of its six
faces, every other motif on one (C2). Tools that assume every face equally
likely would call fair dice biased towards IÄÄ!; the expected counts here
follow C2.

Every physical roll counts once: the roll-off rolls and the turns of the
corrected game (an illegal call and the legal call that follows it are one
roll; a voided turn is replaced by its correction).

The chi-square statistic has 4 degrees of freedom (five motifs, their counts
summing to the number of dice); its survival function then has the closed
form ``exp(-x/2) * (1 + x/2)``, so no statistics library is needed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .rules.faces import DIE_SIDES, FACES

if TYPE_CHECKING:
    from rich.table import Table

    from .record.replay import Replay

#: C2: the chance of each motif on a fair die.
EXPECTED_P: dict[str, float] = {f: DIE_SIDES.count(f) / len(DIE_SIDES) for f in FACES}
#: The rule of thumb for the chi-square approximation: every expected count at least 5.
MIN_EXPECTED = 5.0
#: Below this p-value the dice "look biased"; strict, because tables look at many groups.
ALPHA = 0.01
DF = len(FACES) - 1


def chi_square(counts: dict[str, int]) -> float:
    """Pearson's statistic of the motif counts against C2's expectation."""
    n = sum(counts.get(f, 0) for f in FACES)
    if n == 0:
        return 0.0
    return sum((counts.get(f, 0) - n * p) ** 2 / (n * p) for f, p in EXPECTED_P.items())


def p_value(x: float) -> float:
    """P(X >= x) for a chi-square variable with 4 degrees of freedom (closed form)."""
    if x <= 0:
        return 1.0
    return math.exp(-x / 2) * (1 + x / 2)


def min_rolls() -> int:
    """The fewest dice for which every expected count reaches MIN_EXPECTED (30 here)."""
    return math.ceil(MIN_EXPECTED / min(EXPECTED_P.values()))


@dataclass
class FaceStats:
    """The faces rolled in one group of rolls (a game, a table, a set of dice, everything)."""

    name: str
    counts: Counter[str] = field(default_factory=Counter)
    rolls: int = 0  # throws (one throw rolls several dice)

    def add(self, faces: Iterable[str]) -> None:
        faces = [f for f in faces if f in EXPECTED_P]
        self.counts.update(faces)
        self.rolls += 1

    def merge(self, other: FaceStats) -> None:
        self.counts.update(other.counts)
        self.rolls += other.rolls

    @property
    def dice(self) -> int:
        return sum(self.counts[f] for f in FACES)

    def expected(self, face: str) -> float:
        return self.dice * EXPECTED_P[face]

    @property
    def chi2(self) -> float:
        return chi_square(self.counts)

    @property
    def p(self) -> float:
        return p_value(self.chi2)

    @property
    def verdict(self) -> str:
        """A plain sentence: fair, too few rolls to say, or biased (and which way)."""
        n = self.dice
        if n < min_rolls():
            return f"too few rolls to say ({n} dice; at least {min_rolls()} are needed)"
        if self.p >= ALPHA:
            return f"fair: nothing unusual after {n} dice"
        face = max(
            FACES,
            key=lambda f: abs(self.counts[f] - self.expected(f)) / math.sqrt(self.expected(f)),
        )
        more = "often" if self.counts[face] > self.expected(face) else "rarely"
        return f"looks biased after {n} dice: {face} comes up too {more}"

    @property
    def short_verdict(self) -> str:
        """The verdict in a word or three, for a table cell."""
        v = self.verdict
        if v.startswith("too few"):
            return "too few rolls"
        if v.startswith("fair"):
            return "fair"
        return "biased: " + v.split(": ", 1)[1].replace("comes up too ", "too ")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rolls": self.rolls,
            "dice": self.dice,
            "counts": {f: self.counts[f] for f in FACES},
            "expected": {f: round(self.expected(f), 2) for f in FACES},
            "chi2": round(self.chi2, 4),
            "df": DF,
            "p": round(self.p, 6),
            "verdict": self.verdict,
        }


def table_text(groups: list[FaceStats]) -> str:
    """Observed/expected per motif for each group, then the test and its verdict."""
    head = f"{'':<22} {'dice':>5} " + " ".join(f"{f:>11}" for f in FACES) + f" {'chi2':>6} {'p':>6}"
    lines = [head, f"{'':<22} {'':>5} " + " ".join(f"{'seen/exp':>11}" for _ in FACES)]
    for g in groups:
        cells = " ".join(f"{g.counts[f]:>5}/{g.expected(f):<5.1f}" for f in FACES)
        lines.append(f"{g.name[:22]:<22} {g.dice:>5} {cells} {g.chi2:>6.2f} {g.p:>6.3f}")
        lines.append(f"{'':<22} {g.verdict}")
    return "\n".join(lines)


def compact_table(groups: list[FaceStats]) -> Table:
    """The end screen's table: seen/expected per motif, chi-square's p and the verdict."""
    from rich.table import Table

    t = Table(box=None, header_style="bold")
    t.add_column("rolled/expected", no_wrap=True)
    for f in FACES:
        t.add_column(f, justify="right", no_wrap=True)
    t.add_column("p", justify="right", no_wrap=True)
    t.add_column("verdict", no_wrap=True)
    for g in groups:
        t.add_row(
            g.name,
            *(f"{g.counts[f]}/{g.expected(f):.0f}" for f in FACES),
            f"{g.p:.2f}",
            g.short_verdict,
        )
    return t


# ------------------------------------------------------------ sources
@dataclass
class GameRolls:
    """The rolls of one game and the tags that group it."""

    name: str
    tags: dict[str, str]
    rolls: list[tuple[str, ...]]

    def stats(self) -> FaceStats:
        s = FaceStats(self.name)
        for r in self.rolls:
            s.add(r)
        return s


def rolls_of_events(events: Iterable[object]) -> list[tuple[str, ...]]:
    """The dice of each roll-off roll and turn (StartRoll/Turn), in order."""
    from .record.notation import StartRoll, Turn

    out: list[tuple[str, ...]] = []
    for ev in events:
        if isinstance(ev, StartRoll):
            out.append(tuple(ev.faces))
        elif isinstance(ev, Turn):
            out.append(tuple(ev.roll))
    return out


def game_from_replay(name: str, r: Replay) -> GameRolls:
    """The tags and rolls of a record replay has read."""
    return GameRolls(name, dict(r.tags), rolls_of_events(ev for _, ev in r.events))


class StatsError(Exception):
    """A source that cannot be read; one sentence."""


def is_database(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def games_from_db(path: Path) -> list[GameRolls]:
    from .store.base import StoreError
    from .store.export import load
    from .store.sqlite import SQLiteStore

    try:
        store = SQLiteStore(path, create=False, salvage=True)
    except StoreError as exc:
        raise StatsError(str(exc)) from None
    try:
        out = []
        for info in store.games():
            ex = load(store, info)
            rolls = rolls_of_events(inp.event for inp in ex.kept.inputs)
            out.append(GameRolls(f"{path.name} game {info.id}", dict(info.tags), rolls))
        return out
    finally:
        store.close()


def games_from_paths(paths: list[str]) -> tuple[list[GameRolls], list[str]]:
    """Every game of the databases and records given; sentences for those set aside."""
    from .record.replay import UnreadableRecord, decode_record, replay_text
    from .record.standings import expand

    games: list[GameRolls] = []
    aside: list[str] = []
    for p in expand(paths):
        if is_database(p):
            try:
                games.extend(games_from_db(p))
            except StatsError as exc:
                aside.append(f"{p}: {exc}")
            continue
        try:
            text = decode_record(p.read_bytes())
        except FileNotFoundError:
            aside.append(f"{p}: no such file")
            continue
        except (OSError, UnreadableRecord) as exc:
            aside.append(f"{p}: {getattr(exc, 'strerror', None) or exc}")
            continue
        r = replay_text(text)
        if r.error is not None:  # rolls of a record that breaks the rules may be made up
            aside.append(f"{p}, line {r.error.line}: {r.error.rule}: {r.error.message}")
            continue
        games.append(game_from_replay(p.name, r))  # as replay read it: one reading
    return games, aside


def per_cult(name: str, events: Iterable[object]) -> list[FaceStats]:
    """The whole game's rolls, then each cult's ("these dice hate me")."""
    from .record.notation import StartRoll, Turn

    total = FaceStats(name)
    cults: dict[str, FaceStats] = {}
    for ev in events:
        if isinstance(ev, StartRoll | Turn):
            faces = ev.faces if isinstance(ev, StartRoll) else ev.roll
            total.add(faces)
            cults.setdefault(ev.cult, FaceStats(ev.cult)).add(faces)
    return [total, *cults.values()]


def grouped(games: list[GameRolls]) -> list[FaceStats]:
    """Per game, per table (tag Table), per set of dice (tag Dice), then everything."""
    out = [g.stats() for g in games]
    for tag, what in (("Table", "table"), ("Dice", "dice set")):
        groups: dict[str, FaceStats] = {}
        for g in games:
            if tag in g.tags:
                key = g.tags[tag]
                groups.setdefault(key, FaceStats(f"{what} {key}")).merge(g.stats())
        out.extend(groups[k] for k in sorted(groups))
    if len(games) > 1:
        total = FaceStats("all games")
        for g in games:
            total.merge(g.stats())
        out.append(total)
    return out


# --------------------------------------------------------------- CLI
def run_stats(args: argparse.Namespace) -> int:
    games, aside = games_from_paths(args.sources)
    groups = grouped(games)
    if args.json:
        print(
            json.dumps(
                {
                    "groups": [g.to_json() for g in groups],
                    "set_aside": aside,
                    "expected_p": EXPECTED_P,
                    "alpha": ALPHA,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        if groups:
            print("faces rolled against a fair die (IÄÄ! on 2 faces of 6, every other motif on 1)")
            print(table_text(groups))
        for a in aside:
            print(f"set aside: {a}", file=sys.stderr)
    if not games:
        if not aside:
            print("companion stats: no games found in what was given", file=sys.stderr)
        return 2
    return 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = subparsers.add_parser(
        "stats",
        help="faces rolled against a fair die, with a chi-square test (per game, table, dice set)",
        description="Counts the motifs rolled in stored games or game records and tests them "
        "against a fair die of this game (IÄÄ! on 2 faces of 6, every other motif on 1). "
        "Exit 0 when games were counted, 2 when none could be read.",
    )
    s.add_argument(
        "sources",
        nargs="+",
        metavar="DB|RECORD",
        help="games databases, record files, or folders of records",
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=run_stats)
