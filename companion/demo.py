"""The headless demo: a seeded game on the simulated table, kept by the secretary.

The seeded game (``SeededGame``) is the simulator of ``companion.record.simulate``;
resuming replays it from the seed and checks it against the stored prefix, so
a resumed game goes on exactly as the uninterrupted one would have. The
source of entries is pluggable (``Table``): the screens may route the dice
through rendered frames and the vision reader instead.
"""

from __future__ import annotations

import os
import random
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from .record.notation import StartRoll, Turn, format_event
from .record.simulate import STRATEGIES, Strategy, iter_game, new_game
from .rules.options import Options, OptionsError
from .secretary import Secretary, SecretaryError
from .store.base import Evidence, GameInfo, StoreError
from .store.paths import default_db_path

DEFAULT_SEED = 1
DEFAULT_CULTS = 3
#: The demo on screen plays these cults to this target: a short game to watch.
DEMO_CULTS = ("Anna", "Ben", "Cleo", "Dora", "Emil", "Fay")
DEMO_TARGET = 60
#: Seconds between the steps of the demo on screen.
DEMO_PACE = 0.4


@dataclass(frozen=True, slots=True)
class DemoSettings:
    """What `companion demo` on screen is asked for; None where the command line says nothing
    (the demo's defaults then hold)."""

    seed: int | None = None
    cults: int | None = None
    target: int | None = None
    pace: float | None = None
    db: Path | None = None  # None: a throw-away database

    # 0 is no seed and no pace, as on the command line before (a pace of 0 would not be seen)
    @property
    def seed_or_default(self) -> int:
        return self.seed or DEFAULT_SEED

    @property
    def pace_or_default(self) -> float:
        return self.pace or DEMO_PACE

    def options(self) -> Options:
        """Anna, Ben, Cleo… to a short target: a game to watch."""
        n = self.cults or DEFAULT_CULTS
        return Options.make(list(DEMO_CULTS[:n]), target=self.target or DEMO_TARGET)


def demo_tags(seed: int) -> dict[str, str]:
    return {
        "Event": "Demo",
        "Round": str(seed),
        "Date": datetime.now().astimezone().strftime("%Y.%m.%d"),
        "Table": "demo",
        "Secretary": "companion demo",
    }


Entry = StartRoll | Turn
#: Turns the dice on the table into the dice as read, with the evidence to keep.
Reader = Callable[[Entry], tuple[Entry, Evidence | None]]


class Table(Protocol):
    """Where the demo's entries come from, in the order they happen."""

    def entries(self) -> Iterator[Entry]: ...


def strategy_names(seed: int, cults: tuple[str, ...]) -> dict[str, str]:
    """The same mix as ``companion simulate --strategy mixed`` for this seed."""
    pick = random.Random(seed * 7919)
    names = list(STRATEGIES)
    return {c: pick.choice(names) for c in cults}


@dataclass
class SeededGame:
    """The entries of the seeded simulated game, in order (the screens' table is tui.camera)."""

    options: Options
    seed: int
    strategies: dict[str, str]

    def entries(self) -> Iterator[Entry]:
        strat: dict[str, Strategy] = {c: STRATEGIES[n] for c, n in self.strategies.items()}
        sim = new_game(self.options)
        for ev in iter_game(sim, self.seed, strat):
            if isinstance(ev, StartRoll | Turn):
                yield ev


def read_as_rolled(entry: Entry) -> tuple[Entry, Evidence | None]:
    """The simulated camera reads every die right; the dice as read are kept as evidence."""
    faces = entry.faces if isinstance(entry, StartRoll) else entry.roll
    return entry, Evidence(dice={"faces": "".join(faces), "source": "simulated"})


class DemoError(Exception):
    """A demo that cannot go on; one sentence."""


def _matches(info: GameInfo, seed: int | None, cults: int | None) -> bool:
    demo = info.meta.get("demo")
    if info.finished or not isinstance(demo, dict):
        return False
    if seed is not None and demo.get("seed") != seed:
        return False
    return cults is None or len(info.tags.get("Cults", "").split()) == cults


def _demo_info(
    sec: Secretary, seed: int | None, cults: int | None, resume: bool, db: Path | None
) -> GameInfo | None:
    """The unfinished demo game to resume, asking when a person is at the keyboard.

    Only a game that fits the ``--seed`` and ``--cults`` given is taken, so
    that "the same command with --resume" finishes the same game.
    """
    games = list(reversed(sec.store.games()))
    if resume:
        info = next((g for g in games if _matches(g, seed, cults)), None)
        if info is None:
            print(
                "companion demo: no unfinished demo game to resume; starting a new one",
                file=sys.stderr,
            )
        return info
    info = next((g for g in games if _matches(g, seed, cults)), None) or next(
        (g for g in games if _matches(g, None, None)), None
    )
    if info is None:
        return None
    if sys.stdin.isatty():
        try:
            answer = input(
                f"Game {info.id} (started {info.created[:16]}) was not finished. Resume it? [Y/n] "
            )
        except EOFError:
            answer = "n"
        return info if answer.strip().lower() in ("", "y", "yes") else None
    demo = info.meta["demo"]
    n = len(info.tags.get("Cults", "").split())
    db_opt = f" --db {db}" if db else ""
    print(
        f"companion demo: game {info.id} is unfinished; "
        f"`companion demo --headless{db_opt} --seed {demo['seed']} "
        f"--cults {n} --resume` finishes it. Starting a new game.",
        file=sys.stderr,
    )
    return None


def play(
    sec: Secretary,
    table: Table,
    reader: Reader = read_as_rolled,
    after_event: Callable[[], None] | None = None,
) -> None:
    """Feed the table's entries to the secretary, skipping those already stored."""
    done = sec.inputs
    for i, raw in enumerate(table.entries()):
        entry, evidence = reader(raw)
        if i < len(done):
            if format_event(done[i].event) != format_event(entry):
                raise DemoError(
                    f"stored event {done[i].seq} ({format_event(done[i].event)}) is not what the "
                    f"simulated table gives ({format_event(entry)}); "
                    "this game cannot be resumed by the demo"
                )
            continue
        if isinstance(entry, StartRoll):
            sec.submit_start_roll(entry.cult, entry.faces, evidence)
        else:
            res = sec.submit_turn(entry.cult, entry.roll, entry.action, evidence)
            if not res.accepted:
                raise DemoError(
                    f"the secretary refused {format_event(entry)}: {res.verdict.rule}: "
                    f"{res.verdict.message}"
                )
        if after_event is not None:
            after_event()
    if not sec.finished:
        raise DemoError("the simulated game stopped before it ended")


def run_headless(
    db: Path | None = None,
    *,
    seed: int | None = None,
    cults: int | None = None,
    resume: bool = False,
    crash_after: int | None = None,
) -> int:
    """``companion demo --headless``: the game of ``companion simulate`` kept by the secretary."""
    try:
        sec = Secretary.open(db or default_db_path())
    except StoreError as exc:
        print(f"companion demo: {exc}", file=sys.stderr)
        return 2
    try:
        info = _demo_info(sec, seed, cults, resume, db)
        if info is not None:
            sec.resume(info.id)
            seed, strategies = _demo_meta(info)
            print(
                f"companion demo: resuming game {info.id} (seed {seed}) "
                f"after {len(sec.events)} events",
                file=sys.stderr,
            )
        else:
            seed = DEFAULT_SEED if seed is None else seed
            # the game of `companion simulate --seed S --cults N`, which the tests compare with
            options = Options.make([f"Cult{i + 1}" for i in range(cults or DEFAULT_CULTS)])
            strategies = strategy_names(seed, options.cults)
            sec.start_game(
                options, demo_tags(seed), {"demo": {"seed": seed, "strategies": strategies}}
            )
        table = SeededGame(sec.options, seed, strategies)
        play(sec, table, after_event=_crash_hook(crash_after))
        sys.stdout.write(sec.record_text())
        return 0
    except (StoreError, SecretaryError, DemoError, OptionsError) as exc:
        print(f"companion demo: {getattr(exc, 'message', None) or exc}", file=sys.stderr)
        return 1
    finally:
        sec.close()


def _demo_meta(info: GameInfo) -> tuple[int, dict[str, str]]:
    """The seed and strategies the demo kept with its game."""
    try:
        demo = info.meta["demo"]
        strategies = {str(c): str(n) for c, n in demo["strategies"].items()}
        if any(n not in STRATEGIES for n in strategies.values()):
            raise ValueError
        return int(demo["seed"]), strategies
    except (KeyError, TypeError, ValueError, AttributeError):
        raise DemoError(
            f"game {info.id} does not say how the demo played it; it cannot be resumed"
        ) from None


def _crash_hook(after: int | None) -> Callable[[], None] | None:
    """Test hook: kill -9 this process after ``after`` new events were stored."""
    if after is None:
        return None
    count = 0

    def hook() -> None:
        nonlocal count
        count += 1
        if count >= after:
            os.kill(os.getpid(), signal.SIGKILL)

    return hook
