"""A damaged, truncated or full database: one clear sentence, and the intact events stay
readable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.record.notation import StartRoll, Turn
from companion.record.replay import replay_text
from companion.secretary import Secretary
from companion.store import SQLiteStore, StoreError

from .store_util import feed, new_secretary, sim_game


def _db_with_games(tmp_path: Path, n: int = 3) -> tuple[Path, list[str], list[int]]:
    db = tmp_path / "t.db"
    records, counts = [], []
    for seed in range(n):
        sim = sim_game(seed)
        sec = new_secretary(tmp_path, sim)
        feed(sec, sim)
        records.append(sec.record_text())
        counts.append(len(sec.events))
        sec.close()  # the last connection checkpoints the WAL into the file
    return db, records, counts


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60
    )


def _one_sentence(text: str) -> None:
    assert "Traceback" not in text
    assert text.strip() and text.strip().count("\n") == 0, text


@pytest.mark.parametrize("damage", ["truncate", "scribble"])
def test_damaged_database_keeps_intact_events(tmp_path: Path, damage: str) -> None:
    db, records, counts = _db_with_games(tmp_path)
    with SQLiteStore(db) as st:
        mark = st.events(3)[49].hash.encode()  # game 3, event 50: the damage lands here
    data = bytearray(db.read_bytes())
    assert not (tmp_path / "t.db-wal").exists() or (tmp_path / "t.db-wal").stat().st_size == 0
    page = 4096
    at = data.index(mark) // page * page
    if damage == "truncate":
        data = data[:at]
    else:
        data[at : at + page] = b"\x5a" * page
    db.write_bytes(bytes(data))

    if damage == "truncate":
        with pytest.raises(StoreError) as exc:
            SQLiteStore(db)  # a writer refuses a file shorter than its header says
        _one_sentence(str(exc.value))
    else:
        sec = Secretary.open(db)  # the damage shows only when the game is read
        with pytest.raises(StoreError) as exc:
            sec.resume(3)
        _one_sentence(str(exc.value))
        assert "damaged" in str(exc.value)
        sec.close()
    with SQLiteStore(db, salvage=True) as st:
        assert [g.id for g in st.games()] == [1, 2, 3]
        salvaged, problem = st.salvage_events(3)
        assert problem is not None and "damaged" in problem
        _one_sentence(problem)
        # the intact events are an unbroken prefix of what was stored
        assert 0 < len(salvaged) < 50
        assert [e.seq for e in salvaged] == list(range(1, len(salvaged) + 1))
        first, _ = st.salvage_events(1)
        assert [e.seq for e in first] == list(
            range(1, counts[0] + 1)
        )  # game 1 lies before the damage
    # export still prints the intact part, says what is wrong in one sentence, and fails
    out = _cli("export", str(db), "--game", "3")
    assert out.returncode == 1
    _one_sentence(out.stderr)
    part = replay_text(out.stdout)
    assert part.ok and part.game is not None and not part.game.finished
    body = [ln for ln in out.stdout.splitlines() if ln and not ln.startswith("[")]
    assert body and records[2].startswith(out.stdout.rstrip("\n").rsplit("\n", 1)[0])
    verify = _cli("verify", str(db))
    assert verify.returncode == 1 and "Traceback" not in verify.stderr + verify.stdout
    assert "BAD:" in verify.stdout


def test_full_disk_is_one_sentence_and_changes_nothing(tmp_path: Path) -> None:
    sim = sim_game(5)
    sec = new_secretary(tmp_path, sim)
    assert isinstance(sec.store, SQLiteStore)
    conn = sec.store.conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 1}")
    entries = [ev for ev in sim.events if isinstance(ev, StartRoll | Turn)]
    accepted = 0
    with pytest.raises(StoreError) as exc:
        for ev in entries:
            before = sec.record_text()
            if isinstance(ev, StartRoll):
                sec.submit_start_roll(ev.cult, ev.faces)
            else:
                assert sec.submit_turn(ev.cult, ev.roll, ev.action).accepted
            accepted += 1
    _one_sentence(str(exc.value))
    assert "full" in str(exc.value)
    assert sec.record_text() == before  # the refused turn changed nothing
    assert len(sec.inputs) == accepted
    # more room: the same turn goes in, and a fresh secretary sees exactly the accepted events
    conn.execute("PRAGMA max_page_count = 1073741823")
    t = entries[accepted]
    assert isinstance(t, Turn) and sec.submit_turn(t.cult, t.roll, t.action).accepted
    other = Secretary.open(tmp_path / "t.db")
    other.resume(sec.game_id or 0)
    assert other.record_text() == sec.record_text()
    assert len(other.events) == accepted + 1


def test_future_database_through_the_command(tmp_path: Path) -> None:
    import sqlite3

    db, _, _ = _db_with_games(tmp_path, 1)
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA user_version = 99")
    for args in (["export", str(db)], ["demo", "--headless", "--db", str(db)], ["verify", str(db)]):
        out = _cli(*args)
        assert out.returncode == 2, args
        _one_sentence(out.stderr)
        assert "newer companion" in out.stderr
