"""Every input of issue 15, one test each: one sentence, the contract's exit status, no traceback.

Records, databases, images, WAV files, verify's verdicts and the secretary's
watch on its database file. The fuzz suite (test_fuzz.py) covers the families.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from companion.cli import main
from companion.record.notation import StartRoll, Turn
from companion.record.replay import replay_text
from companion.secretary import Secretary
from companion.store import SQLiteStore, StoreError
from companion.store.base import chain_hash
from companion.store.keys import Keys, load_key, make_key

from .store_util import feed, sim_game

BASE = '[Cults "Anna Ben"]\n'
TURN = "Anna: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E\n"


def one_sentence(text: str) -> str:
    assert "Traceback" not in text
    assert text.strip() and text.strip().count("\n") == 0, text
    return text.strip()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------ records
BAD_NUMBERS = [
    ('[Target "²"]\n' + BASE + TURN, "Target"),
    (
        '[Target "٣"]\n' + BASE + TURN,
        "Target",
    ),  # a digit of another script is still no ASCII number
    ('[Target "' + "9" * 5000 + '"]\n' + BASE + TURN, "digits"),
    (BASE + "phase ²\n", "phase"),
    (BASE + "phase " + "1" * 5000 + "\n", "digits"),
    (BASE + TURN + "totals Anna +" + "1" * 5000 + "\n", "digits"),
    (BASE + TURN + "totals Anna +١٠\n", "±N"),
    (BASE + TURN + "score Anna +" + "7" * 4301 + " Ben +0\n", "digits"),
]


@pytest.mark.parametrize(("text", "word"), BAD_NUMBERS)
def test_record_numbers_are_ascii_and_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, word: str
) -> None:
    f = tmp_path / "r.txt"
    f.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "replay", str(f), "--json")
    assert code == 1 and err == ""
    got = json.loads(out)
    assert got["error"]["rule"] == "N" and word in got["error"]["message"]
    one_sentence(got["error"]["message"])
    assert len(got["error"]["message"]) < 200


def test_standings_sets_aside_records_with_bad_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i, (text, _) in enumerate(BAD_NUMBERS):
        (tmp_path / f"bad{i}.txt").write_text(text, encoding="utf-8")
    (tmp_path / "good.txt").write_text(BASE + TURN, encoding="utf-8")
    code, out, _ = run(capsys, "standings", str(tmp_path), "--json")
    got = json.loads(out)
    assert code == 0 and got["records"] == 1 and len(got["set_aside"]) == len(BAD_NUMBERS)


def test_empty_record_and_record_without_cults_are_not_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, text in (
        ("empty.txt", ""),
        ("tags.txt", '[Event "x"]\n'),
        ("blank.txt", "\n\n# a comment\n"),
    ):
        f = tmp_path / name
        f.write_text(text)
        assert replay_text(text).error is not None
        code, out, _ = run(capsys, "replay", str(f))
        assert code == 1 and "Cults" in out
        code, out, _ = run(capsys, "verify", str(f))
        assert code == 1 and out.startswith("BAD")


def test_a_record_without_events_verifies_as_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "r.txt"
    f.write_text(BASE)
    code, out, _ = run(capsys, "verify", str(f))
    assert code == 1 and "nothing to verify" in one_sentence(out)


def test_a_huge_record_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "r.txt"
    with f.open("wb") as fh:
        fh.write(BASE.encode())
        fh.truncate(9 * 1024 * 1024)
    code, _, err = run(capsys, "replay", str(f))
    assert code == 2 and "MB" in one_sentence(err)


# ---------------------------------------------------------------- databases
@pytest.fixture()
def table_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "keys" / "table.key"
    make_key(path)
    monkeypatch.setenv("COMPANION_TABLE_KEY", str(path))
    return path


def finished_db(tmp_path: Path, name: str = "t.db") -> tuple[Path, int]:
    """A database with one finished game (sealed with the key in the environment, if any)."""
    db = tmp_path / name
    sim = sim_game(4)
    sec = Secretary.open(db)
    assert sim.game is not None
    sec.start_game(sim.game.options, {"Table": "7"})
    feed(sec, sim)
    assert sec.finished
    n = len(sec.events)
    sec.close()
    return db, n


def sql(db: Path, statement: str, *args: object) -> None:
    with sqlite3.connect(db) as c:
        c.execute(statement, args)


DAMAGED_COLUMNS = [
    ("UPDATE games SET tags = substr(tags, 1, 5) || 'X' || substr(tags, 7)", "tags"),
    ("UPDATE games SET tags = '[1, 2]'", "tags"),
    ("UPDATE games SET tags = '{\"Cults\": 7}'", "tags"),
    ("UPDATE games SET meta = '{' ", "meta"),
    (
        "UPDATE games SET created = 5",
        "start time",
    ),  # TEXT affinity keeps '5': the genesis no longer fits
    ("UPDATE games SET finished = 'yes'", "finished"),
    ("UPDATE games SET genesis = x'00'", "first hash"),
    ("UPDATE games SET n_events = 'many'", "event count"),
    ("UPDATE events SET seq = 'seven' WHERE seq = 7", "seq"),
    ("UPDATE events SET seq = 7.5 WHERE seq = 7", "seq"),
    ("UPDATE events SET kind = 'tunr' WHERE seq = 7", "kind"),
    ("UPDATE events SET ref = 'x' WHERE seq = 7", "corrects"),
    ("UPDATE events SET text = x'00ff' WHERE seq = 7", "line"),
    ("UPDATE events SET hash = x'12' WHERE seq = 7", "hash"),
    ("UPDATE events SET game_id = 'one' WHERE seq = 7", "missing"),  # the event left its game
    ("UPDATE evidence SET dice = '[\"I\", ' WHERE seq = 3", "evidence"),
    ("UPDATE evidence SET frame = 'text' WHERE seq = 3", "evidence"),
]


@pytest.mark.parametrize(("statement", "word"), DAMAGED_COLUMNS)
def test_damaged_columns_are_one_sentence_in_verify_and_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], statement: str, word: str
) -> None:
    db = tmp_path / "t.db"
    sim = sim_game(4)
    sec = Secretary.open(db)
    assert sim.game is not None
    sec.start_game(sim.game.options)
    entries = [e for e in sim.events if isinstance(e, StartRoll | Turn)]
    from companion.store.base import Evidence

    for i, e in enumerate(entries[:12]):
        ev = Evidence(b"\xff\xd8jpeg", ["I", "1"]) if i == 2 else None
        if isinstance(e, StartRoll):
            sec.submit_start_roll(e.cult, e.faces, evidence=ev)
        else:
            assert sec.submit_turn(e.cult, e.roll, e.action, evidence=ev).accepted
    sec.close()
    sql(db, statement)
    code, out, err = run(capsys, "verify", str(db))
    assert code == 1 and err == "" and "Traceback" not in out
    bad = [ln for ln in out.splitlines() if ln.startswith("BAD")]
    assert bad and word in bad[0], out
    readable = word in (
        "start time",
        "missing",
        "evidence",
    )  # export prints games; verify judges them
    for fmt in ("record", "json", "csv"):
        code, out, err = run(capsys, "export", str(db), "--format", fmt)
        assert code in ((0, 1) if readable else (1, 2)), (fmt, code)
        if code:
            one_sentence(err)
    code, out, err = run(capsys, "export", str(db), "--evidence", str(tmp_path / "ev"))
    assert "Traceback" not in out + err
    if code:
        one_sentence(err.strip().splitlines()[-1])  # after the line that says how many were written


def test_export_game_number_in_another_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = finished_db(tmp_path)
    for which in ("١", "9" * 5000):
        code, out, err = run(capsys, "export", str(db), "--game", which)
        assert code == 2 and out == ""
        one_sentence(err)


def test_zero_byte_database_and_database_without_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    code, out, _ = run(capsys, "verify", str(empty))
    assert code == 1 and "empty" in one_sentence(out)
    SQLiteStore(tmp_path / "none.db").close()
    code, out, _ = run(capsys, "verify", str(tmp_path / "none.db"))
    assert code == 1 and "holds no games" in out.splitlines()[-1]


def test_a_finished_game_whose_last_events_were_deleted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, n = finished_db(tmp_path)
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 0 and f"{n} events" in out and "finished" in out
    sql(db, "DELETE FROM events WHERE seq > ?", n - 3)
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 1 and f"last 3 of {n} events were deleted" in out
    # the one who deletes also fixes the count and last hash: the game's end is still missing
    with sqlite3.connect(db) as c:
        last = c.execute("SELECT hash FROM events WHERE seq = ?", (n - 3,)).fetchone()[0]
        c.execute("UPDATE games SET n_events = ?, last_hash = ?", (n - 3, last))
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 1 and "marked finished but its events stop before the game's end" in out


def test_unmarking_a_finished_game_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = finished_db(tmp_path)
    sql(db, "UPDATE games SET finished = 0")
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 1 and "not marked finished" in out


def _rewrite_event(db: Path, seq: int, new_text: str) -> None:
    """What someone with the project's own functions can do: rewrite an event, recompute every
    hash."""
    with SQLiteStore(db) as st:
        events = st.events(1)
        genesis = st.game(1).genesis
    prev = genesis
    with sqlite3.connect(db) as c:
        for e in events:
            text = new_text if e.seq == seq else e.text
            from dataclasses import replace

            e2 = replace(e, text=text, prev_hash=prev)
            h = chain_hash(prev, e2.canonical())
            c.execute(
                "UPDATE events SET text = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                (text, prev, h, e.seq),
            )
            prev = h
        c.execute("UPDATE games SET last_hash = ?", (prev,))


def test_without_a_key_a_recomputed_chain_is_only_a_possible_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = finished_db(tmp_path)
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 0 and out.splitlines()[0].startswith("no key")


def test_with_the_table_key_a_rewritten_event_shows(
    tmp_path: Path, table_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = finished_db(tmp_path)
    code, out, _ = run(capsys, "verify", str(db))
    key_id = load_key(table_key).id
    assert code == 0 and f"table key {key_id}" in out.splitlines()[0] and "table seal fits" in out
    with SQLiteStore(db) as st:
        first = st.events(1)[0]
    faces = first.text.split()[-1]
    swapped = first.text.replace(faces, faces[::-1]) if faces != faces[::-1] else first.text + " "
    _rewrite_event(db, 1, swapped)
    code, out, _ = run(capsys, "verify", str(db), "--no-key")
    assert code == 0  # the chain alone cannot tell
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 1 and "seal of event 1" in out


@pytest.mark.parametrize(
    "statement",
    ["UPDATE games SET meta = '{\"seed\": 99}'", "UPDATE games SET finished = 0, seal = seal"],
)
def test_with_the_table_key_meta_and_finished_edits_show(
    tmp_path: Path, table_key: Path, statement: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = finished_db(tmp_path)
    sql(db, statement)
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 1 and "BAD: game 1" in out


def test_a_game_sealed_with_another_key_or_none(
    tmp_path: Path, table_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = finished_db(tmp_path)
    other = tmp_path / "other.key"
    make_key(other)
    code, out, _ = run(capsys, "verify", str(db), "--key", str(other))
    assert code == 1 and "not with the key checked" in out
    sql(db, "UPDATE games SET seal = ''")
    code, out, _ = run(capsys, "verify", str(db))
    assert code == 1 and "carries no seal" in out


def test_organiser_key(
    tmp_path: Path,
    table_key: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    org = tmp_path / "org.key"
    make_key(org)
    monkeypatch.setenv("COMPANION_ORGANISER_KEY", str(org))
    db, _ = finished_db(tmp_path)
    monkeypatch.setenv("COMPANION_ORGANISER_KEY", str(tmp_path / "gone"))
    code, out, _ = run(capsys, "verify", str(db), "--organiser-key", str(org), "--no-key")
    assert code == 0 and "organiser key" in out.splitlines()[0] and "organiser seal fits" in out


def test_bad_key_files_are_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, _ = finished_db(tmp_path)
    (tmp_path / "short.key").write_text("abcd\n")
    for key in ("short.key", "missing.key", "."):
        code, out, err = run(capsys, "verify", str(db), "--key", str(tmp_path / key))
        assert code == 2 and out == ""
        one_sentence(err)


def test_key_files_are_private_and_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cfg" / "table.key"
    code, out, _ = run(capsys, "key", "new", "--out", str(path))
    assert code == 0 and "0600" in out
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    before = path.read_bytes()
    code, _, err = run(capsys, "key", "new", "--out", str(path))
    assert code == 1 and "never overwritten" in one_sentence(err) and path.read_bytes() == before
    assert Keys(load_key(path)).table is not None


def test_doctor_checks_the_table_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion import doctor

    path = tmp_path / "k" / "table.key"
    monkeypatch.setenv("COMPANION_TABLE_KEY", str(path))
    assert doctor.check_key(doctor.Context()).status == "warn"
    make_key(path)
    assert doctor.check_key(doctor.Context()).status == "ok"
    path.chmod(0o644)
    assert doctor.check_key(doctor.Context()).status == "fail"
    path.write_text("nonsense\n")
    c = doctor.check_key(doctor.Context())
    assert c.status == "fail" and c.fix


def test_databases_are_private(tmp_path: Path) -> None:
    db, _ = finished_db(tmp_path / "new" / "folder")
    assert db.stat().st_mode & 0o777 == 0o600
    assert (
        db.parent.stat().st_mode & 0o777 == 0o700
        and db.parent.parent.stat().st_mode & 0o777 == 0o700
    )


def test_a_database_of_an_older_companion_becomes_private(tmp_path: Path) -> None:
    db, _ = finished_db(tmp_path)
    db.chmod(0o644)
    Secretary.open(db).close()
    assert db.stat().st_mode & 0o777 == 0o600


def test_an_older_database_is_migrated_with_its_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.store.schema import MIGRATIONS

    db, n = finished_db(tmp_path)
    old = tmp_path / "v2.db"
    with sqlite3.connect(old) as c:  # a schema-2 file holding the same game
        for step in MIGRATIONS[:2]:
            c.executescript(step)
        c.execute("PRAGMA user_version = 2")
        c.execute("ATTACH ? AS new", (str(db),))
        c.execute(
            "INSERT INTO games SELECT id, created, tags, meta, finished, genesis FROM new.games"
        )
        c.execute(
            "INSERT INTO events SELECT id, game_id, seq, kind, text, ref, note, created, "
            "prev_hash, hash, "
            "evidence FROM new.events"
        )
    code, out, _ = run(capsys, "verify", str(old))
    assert code == 0 and f"{n} events" in out
    with SQLiteStore(old) as st:
        info = st.game(1)
        assert info.events == n and info.last_hash == st.events(1)[-1].hash


# ------------------------------------------------------- the secretary's file
def _secretary(tmp_path: Path) -> tuple[Secretary, list[StartRoll | Turn]]:
    sim = sim_game(2)
    sec = Secretary.open(tmp_path / "t.db")
    assert sim.game is not None
    sec.start_game(sim.game.options)
    return sec, [e for e in sim.events if isinstance(e, StartRoll | Turn)]


def _enter(sec: Secretary, e: StartRoll | Turn) -> None:
    if isinstance(e, StartRoll):
        sec.submit_start_roll(e.cult, e.faces)
    else:
        assert sec.submit_turn(e.cult, e.roll, e.action).accepted


def test_a_removed_wal_is_repaired_and_said(tmp_path: Path) -> None:
    sec, entries = _secretary(tmp_path)
    for e in entries[:6]:
        _enter(sec, e)
    os.remove(tmp_path / "t.db-wal")
    news = sec.store_news()
    assert len(news) == 1 and "write-ahead log" in news[0] and "copied" in one_sentence(news[0])
    for e in entries[6:10]:
        _enter(sec, e)
    assert sec.store_news() == []
    # as after a kill -9: another reader sees every event without the secretary closing
    with sqlite3.connect(tmp_path / "t.db") as c:
        assert c.execute("SELECT COUNT(*) FROM events").fetchone()[0] == len(sec.events) == 10
    sec.close()


@pytest.mark.parametrize("how", ["delete", "replace"])
def test_a_lost_database_refuses_the_next_call_and_keeps_the_accepted(
    tmp_path: Path, how: str
) -> None:
    sec, entries = _secretary(tmp_path)
    for e in entries[:6]:
        _enter(sec, e)
    db = tmp_path / "t.db"
    if how == "delete":
        db.unlink()
    else:
        shutil.copy(db, tmp_path / "copy.db")
        os.replace(tmp_path / "copy.db", db)
    news = sec.store_news()
    assert len(news) == 1 and ("deleted" in news[0] or "replaced" in news[0])
    rescued = sorted(tmp_path.glob("t.db.rescued-*.txt"))
    assert len(rescued) == 1 and str(rescued[0]) in one_sentence(news[0])
    assert rescued[0].stat().st_mode & 0o777 == 0o600
    replayed = replay_text(rescued[0].read_text())
    assert replayed.ok and len(replayed.events) >= 6
    e = entries[6]
    assert isinstance(e, Turn)
    with pytest.raises(StoreError) as exc:
        sec.submit_turn(e.cult, e.roll, e.action)
    assert str(exc.value) == news[0]
    assert len(sec.events) == 6  # nothing was accepted after the loss
    sec.close()


def test_an_io_error_is_a_sentence_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sec, entries = _secretary(tmp_path)
    for e in entries[:4]:
        _enter(sec, e)
    store = sec.store
    assert isinstance(store, SQLiteStore)
    real = store.conn

    class Failing:
        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def execute(self, *args: object) -> object:
            raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "conn", Failing())
    e = entries[4]
    assert isinstance(e, Turn)
    with pytest.raises(StoreError) as exc:
        sec.submit_turn(e.cult, e.roll, e.action)
    assert "disk I/O error" in one_sentence(str(exc.value))
    assert len(sec.events) == 4
    monkeypatch.setattr(store, "conn", real)
    sec.close()


# ------------------------------------------------------------------ images
def png_header(width: int, height: int, idat: bytes = b"") -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", idat or zlib.compress(b"\0" * 1000))
        + chunk(b"IEND", b"")
    )


def jpeg_header(width: int, height: int) -> bytes:
    sof = (
        b"\xff\xc0"
        + struct.pack(">HBHHB", 17, 8, height, width, 3)
        + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    )
    return (
        b"\xff\xd8\xff\xe0"
        + struct.pack(">H", 16)
        + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
        + sof
    )


def bmp_header(width: int, height: int) -> bytes:
    return (
        b"BM"
        + struct.pack("<IHHI", 54, 0, 0, 54)
        + struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 0, 0, 0, 0)
    )


HUGE_IMAGES = [
    ("png", png_header(30000, 30000)),
    ("png", png_header(40000, 40000)),
    ("png", png_header(9000, 10)),
    ("png", png_header(0, 10)),
    ("png", png_header(2**31, 2**31)),
    ("jpg", jpeg_header(65535, 65535)),
    ("jpg", jpeg_header(100, 0)),
    ("bmp", bmp_header(40000, -40000)),
    ("bmp", bmp_header(0, 5)),
]


@pytest.mark.parametrize(("suffix", "data"), HUGE_IMAGES)
def test_image_size_is_refused_from_the_header(tmp_path: Path, suffix: str, data: bytes) -> None:
    from companion.vision.image_file import ImageFileError, load_image

    f = tmp_path / f"big.{suffix}"
    f.write_bytes(data)
    with pytest.raises(ImageFileError) as exc:
        load_image(f)
    one_sentence(str(exc.value))


def test_image_loader_is_the_one_of_every_reader(tmp_path: Path) -> None:
    """enroll, recorded frames and calibrate all refuse the 40000x40000 PNG from its header."""
    from companion.vision.calibration import CalibrationError
    from companion.vision.enroll import EnrolmentError, collect
    from companion.vision.read_cli import _calibration_frame
    from companion.vision.sources import FrameSourceError, ImageFilesSource

    big = png_header(40000, 40000)
    for face in "I123E":
        (tmp_path / "enrol" / face).mkdir(parents=True)
        (tmp_path / "enrol" / face / "a.png").write_bytes(big)
    with pytest.raises(EnrolmentError) as exc:
        collect(tmp_path / "enrol", finder=lambda image: [])
    assert "40000x40000" in one_sentence(str(exc.value))
    frame = tmp_path / "enrol" / "I" / "a.png"
    with ImageFilesSource([frame]) as src, pytest.raises(FrameSourceError) as exc2:
        src.read()
    assert "40000x40000" in str(exc2.value)
    with pytest.raises(CalibrationError) as exc3:
        _calibration_frame(str(frame))
    assert "40000x40000" in str(exc3.value)


def test_enroll_out_must_be_a_writable_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x")
    for face in "I123E":
        (tmp_path / "enrol" / face).mkdir(parents=True)
    for out in (tmp_path / "file", tmp_path / "file" / "sub", Path("/proc/companion-profile")):
        code, _, err = run(capsys, "vision", "enroll", str(tmp_path / "enrol"), "--out", str(out))
        assert code == 1
        one_sentence(err)


def test_vision_read_refuses_a_huge_png_fast(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.png"
    big.write_bytes(png_header(30000, 30000))
    code, out, err = run(capsys, "vision", "read", str(big), "--json")
    assert code == 1
    assert "30000x30000" in json.loads(out)["error"]


# -------------------------------------------------------------------- WAV
def wav_bytes(
    rate: int, channels: int, width: int, data: bytes, *, claim: int | None = None, fmt: int = 1
) -> bytes:
    size = len(data) if claim is None else claim
    body = (
        b"WAVE"
        + b"fmt "
        + struct.pack(
            "<IHHIIHH",
            16,
            fmt,
            channels,
            rate,
            (rate * channels * width) % 2**32,
            channels * width,
            8 * width,
        )
        + b"data"
        + struct.pack("<I", size)
        + data
    )
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + body


BAD_WAVS = [
    ("rate 0", wav_bytes(0, 1, 2, b"\0" * 3200), "0 Hz"),
    ("1 Hz", wav_bytes(1, 1, 2, b"\0" * 32000), "1 Hz"),
    ("huge rate", wav_bytes(4_000_000_000, 1, 2, b"\0" * 32), "Hz"),
    ("ten minutes", wav_bytes(16000, 1, 2, b"\0" * 64, claim=16000 * 2 * 600), "600 s"),
    ("no channels", wav_bytes(16000, 0, 2, b"\0" * 64), "channels"),
    ("many channels", wav_bytes(16000, 200, 2, b"\0" * 64), "channels"),
    ("40-bit", wav_bytes(16000, 1, 5, b"\0" * 64), "40-bit"),
    ("16-bit float", wav_bytes(16000, 1, 2, b"\0" * 64, fmt=3), "16-bit float"),
    ("ADPCM", wav_bytes(16000, 1, 4, b"\0" * 64, fmt=2), "format 2"),
    ("extensible, unnamed", wav_bytes(16000, 1, 2, b"\0" * 64, fmt=0xFFFE), "extensible"),
    ("no samples", wav_bytes(16000, 1, 2, b"")[:36], "cut short"),
    ("samples first", b"RIFF\x10\0\0\0WAVEdata\x04\0\0\0\0\0\0\0", "format"),
    ("cut header", wav_bytes(16000, 1, 2, b"")[:30], "cut short"),
    ("empty", b"", "cut short"),
]


@pytest.mark.parametrize(("name", "data", "word"), BAD_WAVS, ids=[b[0] for b in BAD_WAVS])
def test_wav_headers_are_checked_before_reading(
    tmp_path: Path, name: str, data: bytes, word: str
) -> None:
    from companion.voice.audio import AudioError, read_wav

    f = tmp_path / "a.wav"
    f.write_bytes(data)
    with pytest.raises(AudioError) as exc:
        read_wav(f)
    assert word in one_sentence(str(exc.value))


def test_a_stereo_wav_cut_inside_a_frame_is_read_up_to_it(tmp_path: Path) -> None:
    from companion.voice.audio import read_wav

    f = tmp_path / "a.wav"
    f.write_bytes(wav_bytes(16000, 2, 2, np.full(3201, 7, np.uint8).tobytes()))
    assert read_wav(f).shape == (800,)


# ------------------------------------------------- the one hook in the TUI
def test_the_screen_says_when_the_database_is_lost() -> None:
    import asyncio

    from .test_tui_support import key_faces, manual_app, rolloff

    async def play() -> None:
        app = manual_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await rolloff(pilot)
            await key_faces(pilot, "I3EEEI")
            db = Path(app.secretary.store.path)  # type: ignore[attr-defined]
            db.unlink()
            await pilot.pause(1.5)  # the check runs every second
            said = [n.message for n in app._notifications]
            assert any("deleted" in m and "rescued" in m for m in said), said

    asyncio.run(play())
