"""Replay throughput (turns per second) and simulation throughput (games per second)."""

from __future__ import annotations

import statistics
import time

from companion.record.notation import Turn
from companion.record.replay import replay_text
from companion.record.simulate import STRATEGIES, play_game
from companion.rules import Options

from .machine import describe

GAMES = 20
REPEATS = 5


def main() -> None:
    print(f"bench_rules on {describe()}")
    for n in (2, 3, 6):
        opts = Options.make([f"Cult{i + 1}" for i in range(n)])
        strategies = {c: STRATEGIES["greedy"] for c in opts.cults}
        sim_rates: list[float] = []
        records: list[str] = []
        for rep in range(REPEATS):
            t0 = time.perf_counter()
            sims = [play_game(opts, rep * GAMES + k, strategies) for k in range(GAMES)]
            sim_rates.append(GAMES / (time.perf_counter() - t0))
            records = [s.record for s in sims]
        turns = sum(sum(isinstance(e, Turn) for _, e in replay_text(r).events) for r in records)
        replay_rates: list[float] = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            for r in records:
                replay_text(r)
            replay_rates.append(turns / (time.perf_counter() - t0))
        print(
            f"  {n} cults: replay {statistics.median(replay_rates):,.0f} turns/s "
            f"({turns} turns in {GAMES} games), simulate {statistics.median(sim_rates):,.1f} "
            "games/s "
            f"(median of {REPEATS})"
        )


if __name__ == "__main__":
    main()
