"""The store: events written durably per second, and the time to resume among 100 games."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from companion.record.notation import StartRoll, Turn, format_event
from companion.record.simulate import STRATEGIES, play_game
from companion.rules import Options
from companion.secretary import Secretary
from companion.store import Kind, NewEvent, SQLiteStore
from companion.store.export import load

from .machine import describe

EVENTS = 300
GAMES = 100
REPEATS = 5


def _entries(seed: int) -> tuple[Options, list[NewEvent]]:
    opts = Options.make(["Anna", "Ben", "Cleo"])
    sim = play_game(opts, seed, {c: STRATEGIES["greedy"] for c in opts.cults})
    out = [
        NewEvent(Kind.START if isinstance(ev, StartRoll) else Kind.TURN, format_event(ev))
        for ev in sim.events
        if isinstance(ev, StartRoll | Turn)
    ]
    return opts, out


def durable_rate(path: Path, synchronous: str) -> float:
    """Events per second, each in its own committed transaction, as the secretary writes them."""
    opts, entries = _entries(1)
    with SQLiteStore(path) as st:
        st.conn.execute(f"PRAGMA synchronous = {synchronous}")
        info = st.create_game({"Cults": " ".join(opts.cults)})
        t0 = time.perf_counter()
        for i in range(EVENTS):
            st.append(info.id, entries[i % len(entries)])
        return EVENTS / (time.perf_counter() - t0)


def hundred_games(path: Path) -> int:
    """99 finished games and one unfinished; setup only, so without fsync."""
    sec = Secretary(SQLiteStore(path))
    assert isinstance(sec.store, SQLiteStore)
    sec.store.conn.execute("PRAGMA synchronous = OFF")
    total = 0
    for g in range(GAMES):
        opts = Options.make(["Anna", "Ben", "Cleo"])
        sim = play_game(opts, g, {c: STRATEGIES["greedy"] for c in opts.cults})
        sec.start_game(opts, {"Round": str(g)})
        entries = [ev for ev in sim.events if isinstance(ev, StartRoll | Turn)]
        if g == GAMES - 1:
            entries = entries[: len(entries) // 2]
        for ev in entries:
            if isinstance(ev, StartRoll):
                sec.submit_start_roll(ev.cult, ev.faces)
            else:
                sec.submit_turn(ev.cult, ev.roll, ev.action)
        total += len(entries)
    sec.close()
    return total


def resume_time(path: Path) -> tuple[float, int]:
    """Open the database, find the unfinished game, rebuild it from its events."""
    t0 = time.perf_counter()
    sec = Secretary(SQLiteStore(path))
    info = sec.unfinished_game()
    assert info is not None
    sec.resume(info.id)
    dt = time.perf_counter() - t0
    n = len(sec.events)
    sec.close()
    return dt, n


def main() -> None:
    print(f"bench_store on {describe()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for sync in ("FULL", "NORMAL"):
            rates = [durable_rate(folder / f"rate-{sync}-{i}.db", sync) for i in range(REPEATS)]
            print(
                f"  durable appends, synchronous={sync}: median {statistics.median(rates):.0f} "
                "events/s "
                f"({EVENTS} events x {REPEATS})"
            )
        db = folder / "hundred.db"
        total = hundred_games(db)
        times = []
        for _ in range(REPEATS):
            dt, n = resume_time(db)
            times.append(dt)
        size = db.stat().st_size / 1e6
        print(
            f"  resume among {GAMES} games ({total} events, {size:.1f} MB): median "
            f"{statistics.median(times) * 1000:.1f} ms to open, find and rebuild the unfinished "
            f"game ({n} events)"
        )
        t0 = time.perf_counter()
        with SQLiteStore(db, create=False) as st:
            for info in st.games():
                load(st, info)
        print(
            f"  rebuild all {GAMES} games from their events: "
            f"{(time.perf_counter() - t0) * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
