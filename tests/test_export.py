"""companion export: records, JSON and CSV of stored games; readers beside a writer."""

from __future__ import annotations

import csv
import io
import json
import threading
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.record.notation import StartRoll, Turn
from companion.record.replay import replay_text
from companion.rules import CallAction, parse_call
from companion.secretary import Secretary
from companion.store import SQLiteStore
from companion.store.export import load, select

from .store_util import feed, sim_game


@pytest.fixture()
def db(tmp_path: Path) -> tuple[Path, list[str]]:
    """Game 1 finished (with an illegal call), game 2 unfinished."""
    path = tmp_path / "t.db"
    sec = Secretary.open(path)
    sim = sim_game(8)
    assert sim.game is not None
    sec.start_game(sim.game.options, {"Table": "7", "Date": "2026.10.24", "Event": "Cthulhu Cup"})
    entries = [ev for ev in sim.events if isinstance(ev, StartRoll | Turn)]
    for ev in entries:
        if isinstance(ev, StartRoll):
            sec.submit_start_roll(ev.cult, ev.faces)
            continue
        if sec.game.turns_in_phase == 0 and not sec.illegal_calls:
            # Fhtagn! on an empty layout: an illegal call (D2), recorded and asked again
            res = sec.submit_turn(ev.cult, ev.roll, CallAction(parse_call("Fhtagn!"), ("E",)))
            assert res.recorded and res.rule == "D2"
        assert sec.submit_turn(ev.cult, ev.roll, ev.action).accepted
    records = [sec.record_text()]
    sim2 = sim_game(9, ("Dora", "Emil"))
    assert sim2.game is not None
    sec.start_game(sim2.game.options, {"Table": "8"})
    feed(sec, sim2, upto=20)
    records.append(sec.record_text())
    sec.close()
    return path, records


def _export(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["export", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_record_export(db: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    path, records = db
    assert _export(capsys, str(path), "--game", "1") == (0, records[0], "")
    assert _export(capsys, str(path), "--game", "last", "--format", "record") == (0, records[1], "")
    code, out, _ = _export(capsys, str(path))
    assert code == 0 and out == records[0] + "\n" + records[1]
    assert replay_text(records[0]).ok and replay_text(records[1]).ok
    assert "illegal call, not played" in records[0]


def test_json_export_shape(db: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    path, records = db
    code, out, _ = _export(capsys, str(path), "--format", "json")
    assert code == 0
    games = json.loads(out)["games"]
    assert [g["id"] for g in games] == [1, 2]
    g1, g2 = games
    rep = replay_text(records[0])
    assert rep.game is not None
    assert g1["date"] == "2026-10-24" and g1["table"] == "7" and g1["event"] == "Cthulhu Cup"
    assert g1["cults"] == ["Anna", "Ben", "Cleo"] and g1["finished"] is True
    assert g1["totals"] == rep.game.totals and g1["winners"] == list(rep.game.winners)
    assert g1["start_cult"] == rep.game.results[0].start
    assert [p["name"] for p in g1["players"]] == g1["cults"] and [
        p["seat"] for p in g1["players"]
    ] == [1, 2, 3]
    for p in g1["players"]:
        assert sum(p["phase_scores"]) == p["score"] == g1["totals"][p["name"]]
        assert p["winner"] == (p["name"] in g1["winners"])
        assert p["start_player"] == (p["name"] == g1["start_cult"])
    assert g1["illegal_calls"] == 1
    assert g2["finished"] is False and g2["winners"] == [] and g2["cults"] == ["Dora", "Emil"]


def test_csv_export(
    db: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, _ = db
    out_file = tmp_path / "games.csv"
    assert _export(capsys, str(path), "--format", "csv", "--out", str(out_file))[0] == 0
    rows = list(csv.DictReader(io.StringIO(out_file.read_text(encoding="utf-8"))))
    assert len(rows) == 5
    first = [r for r in rows if r["game_id"] == "1"]
    assert [r["player"] for r in first] == ["Anna", "Ben", "Cleo"]
    for r in first:
        assert sum(int(x) for x in r["phase_scores"].split(";")) == int(r["score"])
    assert sum(int(r["winner"]) for r in first) >= 1
    assert sum(int(r["start_player"]) for r in first) == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--game", "7"], "holds no game 7"), (["--game", "x"], "not 'x'")],
)
def test_bad_selection_is_one_sentence(
    db: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    code, out, err = _export(capsys, str(db[0]), *args)
    assert code == 2 and out == "" and words in err and err.count("\n") == 1


def test_missing_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _export(capsys, str(tmp_path / "none.db"))
    assert code == 2 and "no such database" in err
    assert not (tmp_path / "none.db").exists()


def test_readers_while_a_game_is_written(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    sim = sim_game(12)
    assert sim.game is not None
    writer = Secretary.open(path)
    writer.start_game(sim.game.options)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            w = Secretary.open(path)  # its own connection, in its own thread
            w.resume(writer.game_id or 0)
            for ev in sim.events:
                if isinstance(ev, StartRoll):
                    w.submit_start_roll(ev.cult, ev.faces)
                elif isinstance(ev, Turn):
                    assert w.submit_turn(ev.cult, ev.roll, ev.action).accepted
                time.sleep(0.001)
            w.close()
        except BaseException as exc:  # reported to the test thread
            errors.append(exc)

    t = threading.Thread(target=write)
    t.start()
    seen: list[int] = []
    while t.is_alive() or not seen:
        with SQLiteStore(path, create=False, salvage=True) as st:
            ex = load(st, select(st, "last")[0])
        assert ex.problem is None
        rep = replay_text(ex.record)
        assert rep.ok, rep.error
        seen.append(len(ex.kept.inputs))
    t.join()
    assert not errors
    assert seen == sorted(seen) and len(set(seen)) > 3  # the readers saw the game grow
    with SQLiteStore(path, create=False) as st:
        final = load(st, select(st, "last")[0])
    assert final.kept.text(final.info.tags, comments=False) == sim.record
    writer.close()


def test_evidence_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.store import Evidence

    path = tmp_path / "ev.db"
    sim = sim_game(3)
    assert sim.game is not None
    sec = Secretary.open(path)
    sec.start_game(sim.game.options)
    first = next(ev for ev in sim.events if isinstance(ev, StartRoll))
    sec.submit_start_roll(
        first.cult, first.faces, Evidence(b"\xff\xd8jpeg\xff\xd9", {"faces": "".join(first.faces)})
    )
    sec.close()
    code = main(["export", str(path), "--evidence", str(tmp_path / "ev")])
    assert code == 0 and "evidence of 1 roll written" in capsys.readouterr().err
    assert (tmp_path / "ev" / "game1-event1.jpg").read_bytes() == b"\xff\xd8jpeg\xff\xd9"
    meta = json.loads((tmp_path / "ev" / "game1-event1.json").read_text(encoding="utf-8"))
    assert meta["chained"] is True and meta["dice"] == {"faces": "".join(first.faces)}
