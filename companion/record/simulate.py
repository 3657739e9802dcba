"""Seeded games with simple strategies: the simulated table for tests,
benchmarks and the demo. The dice are rolled here, never in the rules."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..rules.actions import Action, CallAction, GiveUp
from ..rules.calls import shape_of
from ..rules.faces import DIE_SIDES, tentacle_value
from ..rules.game import Game
from ..rules.options import Options
from .notation import Event, StartRoll, Turn
from .recorded import RecordedGame
from .tags import tags_for
from .writer import write_record

Strategy = Callable[[Game, str, tuple[str, ...], tuple[Action, ...], random.Random], Action]
#: Enough for any real game; a game still running then is cut cleanly.
MAX_PHASES = 500


def roll_dice(rng: random.Random, n: int) -> tuple[str, ...]:
    """C2: a fair roll of n dice."""
    return tuple(rng.choice(DIE_SIDES) for _ in range(n))


def random_legal(
    g: Game, cult: str, roll: tuple[str, ...], legal: tuple[Action, ...], rng: random.Random
) -> Action:
    return rng.choice(legal)


def _value_after(g: Game, cult: str, a: CallAction) -> int:
    lay = list(g.layouts[cult]) + list(a.place)
    return sum(tentacle_value(f) for f in lay) * lay.count("I")


def greedy(
    g: Game, cult: str, roll: tuple[str, ...], legal: tuple[Action, ...], rng: random.Random
) -> Action:
    """Build the biggest value, complete only when it is worth it."""

    def score(a: Action) -> tuple[float, float]:
        if isinstance(a, GiveUp):
            return (-1.0, -tentacle_value(a.face) - (5 if a.face == "I" else 0))
        s = shape_of(a.call)
        v = _value_after(g, cult, a)
        if s.fhtagn:
            return (v * 1.5 if v >= 12 or g.pools[cult] <= 3 else v * 0.5, rng.random())
        return (v + 2 * len(a.take) + rng.random(), rng.random())

    return max(legal, key=score)


def cautious(
    g: Game, cult: str, roll: tuple[str, ...], legal: tuple[Action, ...], rng: random.Random
) -> Action:
    """Complete as soon as the layout scores anything."""

    def score(a: Action) -> tuple[int, float]:
        if isinstance(a, GiveUp):
            return (-1, -tentacle_value(a.face))
        s = shape_of(a.call)
        v = _value_after(g, cult, a)
        return ((100 + v) if s.fhtagn and v > 0 else v + len(a.take), rng.random())

    return max(legal, key=score)


STRATEGIES: dict[str, Strategy] = {"random": random_legal, "greedy": greedy, "cautious": cautious}


@dataclass
class SimGame:
    tags: dict[str, str]
    events: list[Event] = field(default_factory=list)
    recorded: RecordedGame | None = None
    cut: bool = False

    @property
    def game(self) -> Game | None:
        return self.recorded.game if self.recorded else None

    @property
    def record(self) -> str:
        return write_record(self.tags, self.events)


def new_game(options: Options, tags: dict[str, str] | None = None) -> SimGame:
    return SimGame(tags_for(options, tags), recorded=RecordedGame(options))


def play_game(
    options: Options,
    seed: int,
    strategies: dict[str, Strategy] | None = None,
    *,
    tags: dict[str, str] | None = None,
) -> SimGame:
    """Play one whole game with seeded dice."""
    sim = new_game(options, tags)
    for _ in iter_game(sim, seed, strategies):
        pass
    return sim


def iter_game(
    sim: SimGame, seed: int, strategies: dict[str, Strategy] | None = None
) -> Iterator[Event]:
    """Play ``sim``'s game with seeded dice, yielding each line of its record after it is
    applied."""
    rng = random.Random(seed)
    rec = sim.recorded
    assert rec is not None
    g = rec.game
    strat = strategies or {c: random_legal for c in g.cults}

    def emit(ev: Event) -> Event:
        rec.apply_line(ev)
        sim.events.append(ev)
        return ev

    while g.start_cult is None:
        contenders = g.rolloff.contenders if g.rolloff else g.cults
        for c in contenders:
            yield emit(StartRoll(c, roll_dice(rng, 6)))
    while not g.finished:
        if g.phase > MAX_PHASES:
            sim.cut = True
            return
        line = rec.phase_line(None)
        assert line is not None
        yield emit(line)
        phase = g.phase
        while g.phase == phase and not g.finished:
            cult = g.to_move
            assert cult is not None
            roll = roll_dice(rng, g.pools[cult])
            legal = g.legal_actions(roll, cult)
            yield emit(Turn(cult, roll, strat[cult](g, cult, roll, legal, rng)))
        for end in rec.phase_end_lines():
            yield emit(end)


def simulate_command(
    cults: int,
    seed: int,
    games: int,
    out_dir: str | None,
    strategy: str,
    *,
    target: int | None = None,
    start_rule: str = "sum",
    doublers: str = "return",
) -> int:
    """``companion simulate``: ``games`` seeded games, printed or written to ``out_dir``."""
    from ..rules.options import OptionsError

    try:
        opts = Options.make(
            [f"Cult{i + 1}" for i in range(cults)],
            target=target,
            start_rule=start_rule,
            doublers=doublers,
        )
    except OptionsError as exc:
        print(f"companion simulate: {exc.message}", file=sys.stderr)
        return 2
    out = Path(out_dir) if out_dir else None
    if out:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(
                f"companion simulate: cannot make the folder {out}: {exc.strerror}", file=sys.stderr
            )
            return 2
    names = list(STRATEGIES)
    for n in range(games):
        game_seed = seed + n
        pick = random.Random(game_seed * 7919)
        strategies = {
            c: STRATEGIES[strategy] if strategy != "mixed" else STRATEGIES[pick.choice(names)]
            for c in opts.cults
        }
        sim = play_game(
            opts, game_seed, strategies, tags={"Event": "Simulation", "Round": str(game_seed)}
        )
        if out:
            try:
                (out / f"game-{game_seed:06d}.txt").write_text(sim.record, encoding="utf-8")
            except OSError as exc:
                print(f"companion simulate: cannot write to {out}: {exc.strerror}", file=sys.stderr)
                return 2
        else:
            sys.stdout.write(sim.record)
            if n + 1 < games:
                sys.stdout.write("\n")
    if out:
        first, last = f"game-{seed:06d}.txt", f"game-{seed + games - 1:06d}.txt"
        which = first if games == 1 else f"{first} … {last}"
        print(
            f"companion simulate: {games} record{'s' if games != 1 else ''} "
            f"written to {out}/ ({which})",
            file=sys.stderr,
        )
    return 0
