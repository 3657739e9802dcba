"""Invariants over random games (hypothesis) and over thousands of simulated games."""

from __future__ import annotations

import itertools
import random
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.record.notation import Turn
from companion.record.replay import replay_text
from companion.record.simulate import STRATEGIES, SimGame, iter_game, new_game, play_game
from companion.record.writer import canonical
from companion.rules import CallAction, Game, GiveUp, Options, RuleError
from companion.rules.faces import TENTACLES, tentacle_value

from .rules_helpers import act


def snapshot(g: Game) -> tuple[Any, ...]:
    return (
        g.phase,
        tuple(sorted(g.pools.items())),
        tuple((c, tuple(sorted(lay))) for c, lay in sorted(g.layouts.items())),
        g.center,
        g.out,
        tuple(sorted(g.open.items())),
        tuple(sorted(g.held)),
        g.stones_center,
        g.to_move,
        tuple(sorted(g.totals.items())),
        g.finished,
        g.winners,
        g.losers,
    )


def check_dice(g: Game) -> None:
    assert g.dice_accounted() == g.options.dice
    assert all(n >= 0 for n in g.pools.values()) and g.center >= 0 and g.out >= 0
    if not g.finished:
        assert all(g.pools[c] == 0 for c in g.cults if not g.open[c])
    assert g.stones_center + len(g.held) == g.options.stones


def check_scores(g: Game) -> None:
    """SC1–SC3 recomputed from the workings, and totals as their sum."""
    sums = dict.fromkeys(g.cults, 0)
    for res in g.results:
        for c, w in res.working.items():
            value = w.tentacles * w.iaa * (2 if w.doubled else 1)
            if w.tentacles == 0:
                assert value == 0
            assert res.scores[c] == (value if c in res.complete else -value)
            sums[c] += res.scores[c]
    assert sums == g.totals


options_st = st.builds(
    lambda n, rule, doublers, target: Options.make(
        [f"c{i}" for i in range(n)], start_rule=rule, doublers=doublers, target=target
    ),
    st.integers(2, 6),
    st.sampled_from(["sum", "count"]),
    st.sampled_from(["return", "keep"]),
    st.sampled_from([15, 40, 100]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=options_st, seed=st.integers(0, 2**32 - 1), strat=st.sampled_from(sorted(STRATEGIES))
)
def test_no_die_lost_and_replay_reproduces_every_state(
    options: Options, seed: int, strat: str
) -> None:
    sim = new_game(options)
    states: list[tuple[Any, ...]] = []
    for _ev in iter_game(sim, seed, {c: STRATEGIES[strat] for c in options.cults}):
        assert sim.game is not None
        check_dice(sim.game)
        states.append(snapshot(sim.game))
    assert sim.game is not None
    check_scores(sim.game)
    # replay the written record and compare the state after every event
    r = replay_text(sim.record)
    assert r.ok, r.error
    replayed: list[tuple[Any, ...]] = []
    for n in range(1, len(sim.events) + 1):
        partial = SimGame(sim.tags, sim.events[:n]).record
        if n % 7 == 0 or n == len(sim.events):  # every 7th prefix keeps this fast
            rp = replay_text(partial)
            assert rp.ok and rp.game is not None
            replayed.append(snapshot(rp.game))
            assert replayed[-1] == states[n - 1]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 6))
def test_legal_actions_are_exactly_the_legal_ones(seed: int, n: int) -> None:
    """Everything listed is judged legal; random other actions are judged with a rule id."""
    rng = random.Random(seed)
    sim = new_game(Options.make([f"c{i}" for i in range(n)], target=30))
    for _ev in itertools.islice(iter_game(sim, seed), 60):
        g = sim.game
        assert g is not None
        if g.finished or g.to_move is None:
            break
        cult = g.to_move
        roll = tuple(rng.choice("II123E") for _ in range(g.pools[cult]))
        legal = g.legal_actions(roll, cult)
        assert legal, "there is always something legal to do"
        for a in legal:
            g.judge(cult, roll, a)
        for _ in range(10):
            cand = _random_action(rng, g, roll)
            try:
                g.judge(cult, roll, cand)
                ok = True
            except RuleError as exc:
                ok = False
                assert exc.rule
            assert ok == (cand in legal), (cand, legal)


def _random_action(rng: random.Random, g: Game, roll: tuple[str, ...]) -> CallAction | GiveUp:
    if rng.random() < 0.2:
        return GiveUp(rng.choice("I123E"))
    words = rng.sample(["IÄÄ!", "Cthulhu!", "Ph'nglui!", "Fhtagn!"], rng.randint(1, 3))
    words.sort(key=["IÄÄ!", "Cthulhu!", "Ph'nglui!", "Fhtagn!"].index)
    place = "".join(rng.sample(roll, rng.randint(0, min(3, len(roll))))) if roll else ""
    sources = ["center", *g.cults]
    take = [rng.choice(sources) for _ in range(rng.choice([0, 0, 1, 2]))]
    text = (
        " ".join(words)
        + (f" place {place}" if place else "")
        + (f" take {', '.join(take)}" if take else "")
    )
    a = act(text)
    assert isinstance(a, CallAction)
    return a


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_writer_round_trip(seed: int) -> None:
    sim = play_game(Options.make(["Anna", "Ben", "Cleo"], target=40), seed)
    r = replay_text(sim.record)
    assert r.ok
    text = canonical(r)
    assert text == sim.record
    assert canonical(replay_text(text)) == text


def test_simulated_games_many() -> None:
    """Hundreds of games, 2–6 cults, every option and strategy: no exception, every record
    replays."""
    _run_many(games_per_combo=3)


@pytest.mark.slow
def test_simulated_games_thousands() -> None:
    _run_many(games_per_combo=25)


def _run_many(games_per_combo: int) -> None:
    combos = itertools.product(
        range(2, 7), ["sum", "count"], ["return", "keep"], sorted(STRATEGIES)
    )
    played = 0
    for n, rule, doublers, strat in combos:
        opts = Options.make(
            [f"c{i}" for i in range(n)], start_rule=rule, doublers=doublers, target=60
        )
        for k in range(games_per_combo):
            sim = play_game(
                opts,
                zlib.crc32(repr((n, rule, doublers, strat, k)).encode()),
                {c: STRATEGIES[strat] for c in opts.cults},
            )
            assert sim.game is not None
            assert sim.game.finished or sim.cut
            check_dice(sim.game)
            check_scores(sim.game)
            r = replay_text(sim.record)
            assert r.ok, (r.error, sim.record)
            assert r.game is not None and r.game.totals == sim.game.totals
            assert sum(isinstance(e, Turn) for _, e in r.events) == sum(
                isinstance(e, Turn) for e in sim.events
            )
            played += 1
    assert played == 5 * 2 * 2 * len(STRATEGIES) * games_per_combo


def test_tentacle_constants() -> None:
    assert sum(tentacle_value(f) for f in TENTACLES) == 6
