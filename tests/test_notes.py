"""The secretary's notes (settled disputes) are stored events, written as comments in place."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.record.notation import StartRoll, Turn
from companion.record.replay import replay_text
from companion.record.writer import write_record
from companion.secretary import Secretary, SecretaryError
from companion.store import Kind, NewEvent
from companion.store.export import load
from companion.store.schema import MIGRATIONS, VERSION
from companion.store.sqlite import SQLiteStore
from companion.store.verify import verify

from .store_util import feed, new_secretary, sim_game

ROLLS = [StartRoll("A", tuple("I23E1I")), StartRoll("B", tuple("111111"))]


def test_notes_stand_after_the_lines_they_follow() -> None:
    text = write_record({"Cults": "A B"}, ROLLS, notes=[(0, "first"), (1, "after A"), (1, "two")])
    assert text.splitlines()[2:] == [
        "# first",
        "start A I23E1I",
        "# after A",
        "# two",
        "start B 111111",
    ]


def test_notes_after_the_last_line_follow_the_end_and_need_comments() -> None:
    text = write_record({"Cults": "A B"}, ROLLS, footer="winners: A", notes=[(2, "late")])
    assert text.splitlines()[-2:] == ["# winners: A", "# late"]
    assert "late" not in write_record({"Cults": "A B"}, ROLLS, comments=False, notes=[(2, "x")])


def _note_index(lines: list[str], words: str) -> int:
    return next(i for i, ln in enumerate(lines) if ln == f"# {words}")


def test_a_note_is_stored_and_comes_back_on_resume(tmp_path: Path) -> None:
    sim = sim_game(7)
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim, upto=5)
    before = sec.record_text()
    stored = sec.add_note("dispute after Ben's turn:\n the rules stand")
    assert stored.kind is Kind.NOTE and stored.text == "dispute after Ben's turn: the rules stand"
    lines = sec.record_text().splitlines()
    at = _note_index(lines, stored.text)
    assert lines[:at] == before.splitlines()  # after the lines written so far
    sec2 = Secretary.open(tmp_path / "t.db")
    sec2.resume(sec.game_id or 0)
    assert sec2.record_text() == sec.record_text()
    assert sec2.record_text(comments=False) == sec.record_text(comments=False)
    assert "dispute" not in sec.record_text(comments=False)
    assert replay_text(sec.record_text()).ok
    sec.close()
    sec2.close()


def test_an_empty_note_is_refused(tmp_path: Path) -> None:
    sim = sim_game(7)
    sec = new_secretary(tmp_path, sim)
    with pytest.raises(SecretaryError):
        sec.add_note(" \n ")
    assert sec.events == []
    sec.close()


def test_a_correction_after_a_note_keeps_the_note_after_the_turn(tmp_path: Path) -> None:
    sim = sim_game(7)
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim, upto=5)
    last = sec.last_turn()
    assert last is not None
    sec.add_note("dispute: the turn is corrected")
    other = next(a for a in sec.legal_corrections(last.roll) if a != last.action)
    assert sec.correct_last_turn(last.roll, other, "keyed wrong").accepted
    lines = sec.record_text().splitlines()
    at = _note_index(lines, "dispute: the turn is corrected")
    assert lines[at - 1].startswith(f"{last.cult}: ") and "corrected: keyed wrong" in lines[at - 1]
    sec.close()


def test_a_note_after_the_last_turn_follows_the_winners(tmp_path: Path) -> None:
    sim = sim_game(7)
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim)
    assert sec.finished
    sec.add_note("dispute after the last turn")
    lines = sec.record_text().splitlines()
    assert lines[-2].startswith("# winners: ") and lines[-1] == "# dispute after the last turn"
    sec.close()


def test_export_and_verify_know_notes(tmp_path: Path) -> None:
    sim = sim_game(7)
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim, upto=4)
    sec.add_note("a note")
    for ev in [e for e in sim.events if isinstance(e, StartRoll | Turn)][4:]:  # the rest
        if isinstance(ev, StartRoll):
            sec.submit_start_roll(ev.cult, ev.faces)
        else:
            assert sec.submit_turn(ev.cult, ev.roll, ev.action).accepted
    assert sec.finished
    gid = sec.game_id or 0
    text = sec.record_text()
    sec.close()
    assert all(f.ok for f in verify(tmp_path / "t.db"))
    with SQLiteStore(tmp_path / "t.db", create=False) as st:
        assert load(st, st.game(gid)).record == text


def _schema3_db(path: Path) -> int:
    """A database as companion wrote it before notes (schema 3), holding a game of 4 rolls."""
    with SQLiteStore(path) as st:
        info = st.create_game({"Cults": "A B"})
        for ev in ROLLS:
            st.append(info.id, NewEvent(Kind.START, f"start {ev.cult} {''.join(ev.faces)}"))
    with sqlite3.connect(path) as c:  # the same file, its schema as version 3 left it
        c.execute("DROP TRIGGER events_known_kind")
        c.execute("PRAGMA user_version = 3")
    return info.id


def test_a_schema_3_database_opens_and_takes_notes(tmp_path: Path) -> None:
    db = tmp_path / "v3.db"
    gid = _schema3_db(db)
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == 3
        assert not c.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
    sec = Secretary.open(db)
    sec.resume(gid)
    assert sec.store.conn.execute("PRAGMA user_version").fetchone()[0] == VERSION == 4  # type: ignore[attr-defined]
    assert [e.text for e in sec.events] == ["start A I23E1I", "start B 111111"]
    sec.add_note("read after the migration")
    assert sec.record_text().splitlines()[-1] == "# read after the migration"
    sec.close()
    assert all(f.ok for f in verify(db))


def test_the_schema_knows_every_kind_and_refuses_others(tmp_path: Path) -> None:
    kinds = MIGRATIONS[3].split("NOT IN (")[1].split(")")[0]
    assert {k.strip(" '") for k in kinds.split(",")} == {k.value for k in Kind}
    with SQLiteStore(tmp_path / "k.db") as st:
        info = st.create_game({"Cults": "A B"})
        st.append(info.id, NewEvent(Kind.NOTE, "a note"))
        with pytest.raises(sqlite3.IntegrityError, match="unknown kind"):  # a buggy writer
            st.conn.execute(
                "INSERT INTO events (game_id, seq, kind, text, created, prev_hash, hash)"
                " VALUES (?, 2, 'remark', 'x', 't', '', '')",
                (info.id,),
            )
        assert [e.kind for e in st.events(info.id)] == [Kind.NOTE]


KILLED = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from pathlib import Path
    from companion.rules import Options
    from companion.secretary import Secretary
    from companion.tui.app import CompanionApp
    from companion.tui.camera import SimulatedCamera
    from companion.tui.screens.modals import DisputeScreen
    from companion.tui.screens.phase import PhaseScreen

    db, record = Path(sys.argv[1]), Path(sys.argv[2])
    holder = []
    cam = SimulatedCamera(lambda: holder[0].session.game, seed=5)
    app = CompanionApp(
        Secretary.open(db), options=Options.make(["Anna", "Ben"]), camera=cam,
        camera_status=cam.name, record_path=record,
    )
    holder.append(app)

    async def main():
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(200):
                await pilot.pause(0.02)
                if isinstance(app.screen, PhaseScreen) and app.screen.stage == "call":
                    break
            scr = app.screen
            g = app.session.game
            legal = [a for a in g.legal_actions(scr.entry.roll, scr.cult) if a.place]
            print(scr.cult, flush=True)
            cam.misplace[scr.cult] = ("3",)
            scr.submit(legal[0])
            for _ in range(200):
                await pilot.pause(0.02)
                if isinstance(app.screen, DisputeScreen):
                    break
            await pilot.press("a")
            await pilot.pause(0.1)
            os.kill(os.getpid(), signal.SIGKILL)  # a power cut: no clean close of anything

    asyncio.run(main())
    """
)


@pytest.mark.slow
def test_a_settled_dispute_survives_a_kill(tmp_path: Path) -> None:
    db, record = tmp_path / "games.db", tmp_path / "game.txt"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", KILLED, str(db), str(record)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == -9, out.stderr[-2000:]
    cult = out.stdout.split()[-1]
    sec = Secretary.open(db)
    info = sec.unfinished_game()
    assert info is not None
    sec.resume(info.id)
    notes = [e for e in sec.events if e.kind is Kind.NOTE]
    assert len(notes) == 1 and notes[0].text.startswith(f"dispute after {cult}'s turn in phase 1")
    assert "the rules stand" in notes[0].text
    for text in (sec.record_text(), record.read_text(encoding="utf-8")):
        lines = text.splitlines()
        at = _note_index(lines, notes[0].text)
        assert lines[at - 1].startswith(f"{cult}: ")  # right after the turn it is about
        assert replay_text(text).ok
    assert sec.record_text() == record.read_text(encoding="utf-8")
    sec.close()
