"""Shared helpers of the store, secretary and demo tests."""

from __future__ import annotations

from pathlib import Path

from companion.record.notation import StartRoll, Turn
from companion.record.simulate import STRATEGIES, SimGame, play_game
from companion.rules import Options
from companion.secretary import Secretary


def sim_game(
    seed: int = 3, cults: tuple[str, ...] = ("Anna", "Ben", "Cleo"), **opts: object
) -> SimGame:
    options = Options.make(cults, **opts)  # type: ignore[arg-type]
    return play_game(options, seed, {c: STRATEGIES["greedy"] for c in cults})


def feed(sec: Secretary, sim: SimGame, upto: int | None = None) -> int:
    """Submit the simulated game's rolls and turns; the number submitted."""
    n = 0
    for ev in sim.events:
        if upto is not None and n >= upto:
            break
        if isinstance(ev, StartRoll):
            sec.submit_start_roll(ev.cult, ev.faces)
        elif isinstance(ev, Turn):
            res = sec.submit_turn(ev.cult, ev.roll, ev.action)
            assert res.accepted, res
        else:
            continue
        n += 1
    return n


def new_secretary(tmp_path: Path, sim: SimGame, name: str = "t.db") -> Secretary:
    sec = Secretary.open(tmp_path / name)
    assert sim.game is not None
    sec.start_game(sim.game.options)
    return sec
