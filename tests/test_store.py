"""The SQLite store: durable appends, hash chain, evidence, schema versions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.store import Evidence, Kind, NewEvent, SQLiteStore, StoreError, default_db_path
from companion.store.base import chain_hash, genesis_hash
from companion.store.schema import MIGRATIONS, VERSION
from companion.store.verify import verify

from .store_util import feed, new_secretary, sim_game


def _filled(tmp_path: Path) -> Path:
    sec = new_secretary(tmp_path, sim_game())
    feed(sec, sim_game(), upto=30)
    sec.close()
    return tmp_path / "t.db"


def test_append_read_and_chain(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "s.db") as st:
        info = st.create_game({"Cults": "A B"})
        a = st.append(info.id, NewEvent(Kind.START, "start A I23E1I"))
        b = st.append(info.id, NewEvent(Kind.START, "start B 111111"))
        assert (a.seq, b.seq) == (1, 2)
        assert a.prev_hash == genesis_hash({"Cults": "A B"}, info.created) == info.genesis
        assert b.prev_hash == a.hash == chain_hash(a.prev_hash, a.canonical())
        assert [e.text for e in st.events(info.id)] == ["start A I23E1I", "start B 111111"]
        assert st.game(info.id).events == 2
        mode = st.conn.execute("PRAGMA journal_mode").fetchone()[0]
        sync = st.conn.execute("PRAGMA synchronous").fetchone()[0]
        assert (mode, sync) == ("wal", 2)  # 2 is FULL


def test_evidence_round_trip_and_digest(tmp_path: Path) -> None:
    ev = Evidence(b"\xff\xd8jpegbytes\xff\xd9", {"faces": "I23", "boxes": [[1, 2, 3, 4]]})
    with SQLiteStore(tmp_path / "s.db") as st:
        info = st.create_game({"Cults": "A B"})
        stored = st.append(info.id, NewEvent(Kind.START, "start A I23E1I", evidence=ev))
        assert stored.evidence == ev.digest()
        assert st.evidence(info.id, 1) == ev
        assert st.evidence(info.id, 2) is None


def test_verify_ok_then_tampered_text(tmp_path: Path) -> None:
    db = _filled(tmp_path)
    assert all(f.ok for f in verify(db))
    with sqlite3.connect(db) as c:
        c.execute("UPDATE events SET text = replace(text, '->', '-> ') WHERE seq = 12")
    found = verify(db)
    assert not found[-1].ok
    assert "event 12" in found[-1].message and "changed" in found[-1].message


def test_verify_reports_removed_event(tmp_path: Path) -> None:
    db = _filled(tmp_path)
    with sqlite3.connect(db) as c:
        c.execute("DELETE FROM events WHERE seq = 7")
    msg = verify(db)[-1].message
    assert "event 7 is missing" in msg


def test_verify_reports_changed_tags(tmp_path: Path) -> None:
    """The tags carry the options: changing them breaks the chain at its start."""
    db = _filled(tmp_path)
    with sqlite3.connect(db) as c:
        c.execute('UPDATE games SET tags = \'{"Cults": "Anna Ben Cleo", "Target": "99"}\'')
    msg = verify(db)[-1].message
    assert "tags" in msg


def test_verify_evidence_swap(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "s.db") as st:
        info = st.create_game({"Cults": "A B"})
        st.append(
            info.id,
            NewEvent(Kind.START, "start A I23E1I", evidence=Evidence(b"frame", {"f": "I23E1I"})),
        )
    with sqlite3.connect(tmp_path / "s.db") as c:
        c.execute("UPDATE evidence SET frame = x'00'")
    assert "evidence of event 1" in verify(tmp_path / "s.db")[-1].message


def test_old_schema_migrates_and_keeps_events(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    c = sqlite3.connect(db, isolation_level=None)
    c.executescript(MIGRATIONS[0] + "\nPRAGMA user_version = 1;")
    genesis = genesis_hash({"Cults": "A B"}, "2026-01-01T00:00:00+00:00")
    c.execute(
        "INSERT INTO games (id, created, tags, genesis) "
        "VALUES (1, '2026-01-01T00:00:00+00:00', ?, ?)",
        ('{"Cults": "A B"}', genesis),
    )
    from companion.store.base import canonical_text

    canon = canonical_text(1, "start", "start A I23E1I", None, "", "t0", "")
    c.execute(
        "INSERT INTO events (game_id, seq, kind, text, note, created, prev_hash, hash)"
        " VALUES (1, 1, 'start', 'start A I23E1I', '', 't0', ?, ?)",
        (genesis, chain_hash(genesis, canon)),
    )
    c.close()
    with SQLiteStore(db) as st:
        assert st.conn.execute("PRAGMA user_version").fetchone()[0] == VERSION
        assert [e.text for e in st.events(1)] == ["start A I23E1I"]
        st.append(1, NewEvent(Kind.START, "start B 111111", evidence=Evidence(None, {"f": 1})))
    assert all(f.ok for f in verify(db))


def test_future_schema_is_one_sentence(tmp_path: Path) -> None:
    db = _filled(tmp_path)
    with sqlite3.connect(db) as c:
        c.execute(f"PRAGMA user_version = {VERSION + 5}")
    with pytest.raises(StoreError) as exc:
        SQLiteStore(db)
    msg = str(exc.value)
    assert "newer companion" in msg and "\n" not in msg
    # the events are still there for a newer companion (or plain sqlite3)
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 30


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"hello, this is not a database at all" * 100, "not a companion database"),
        (None, "not a companion one"),
    ],
)
def test_foreign_files_are_refused(tmp_path: Path, content: bytes | None, words: str) -> None:
    db = tmp_path / "x.db"
    if content is None:
        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE songs (title TEXT)")
    else:
        db.write_bytes(content)
    with pytest.raises(StoreError, match=words):
        SQLiteStore(db)


def test_missing_database_for_readers(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such database"):
        SQLiteStore(tmp_path / "nope.db", create=False)
    assert not (tmp_path / "nope.db").exists()


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "companion" / "companion.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert (
        default_db_path() == tmp_path / "home" / ".local" / "share" / "companion" / "companion.db"
    )


def test_verify_command_on_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import main

    sec = new_secretary(tmp_path, sim_game())
    feed(sec, sim_game())
    good = tmp_path / "good.txt"
    good.write_text(sec.record_text(), encoding="utf-8")
    lines = sec.record_text().splitlines(True)
    k = next(i for i, ln in enumerate(lines) if ln.startswith("score "))
    words = lines[k].split()
    words[2] = f"{int(words[2]) + 1:+d}"  # the first cult's score, off by one
    lines[k] = " ".join(words) + "\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(lines), encoding="utf-8")
    assert main(["verify", str(good)]) == 0
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"line {k + 1}: SC1:" in out
    assert main(["verify", str(tmp_path / "t.db")]) == 0
