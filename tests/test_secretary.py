"""The secretary: judge, store durably, then apply; illegal calls kept; corrections as events."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.record.notation import StartRoll, Turn
from companion.record.replay import replay_text
from companion.rules import CallAction, GiveUp, Options, RuleError
from companion.secretary import Secretary, SecretaryError
from companion.store import Evidence, Kind, StoreError

from .store_util import feed, new_secretary, sim_game


def _entries(sim: object) -> list[StartRoll | Turn]:
    return [ev for ev in sim.events if isinstance(ev, StartRoll | Turn)]  # type: ignore[attr-defined]


def _strip_comments(text: str) -> str:
    return "".join(ln for ln in text.splitlines(True) if not ln.startswith("#"))


def test_record_is_the_simulators(tmp_path: Path) -> None:
    sim = sim_game(7)
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim)
    assert sec.finished
    assert sec.record_text(comments=False) == sim.record
    assert sec.record_text().endswith(
        f"# winners: {' '.join(sec.game.winners)}; losers: {' '.join(sec.game.losers) or 'none'}\n"
    )
    assert replay_text(sec.record_text()).ok
    assert sec.store.game(sec.game_id or 0).finished


def test_resume_mid_game_restores_exact_state(tmp_path: Path) -> None:
    sim = sim_game(11)
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim, upto=40)
    gid = sec.game_id
    mid = sec.record_text()
    sec.close()
    again = Secretary.open(tmp_path / "t.db")
    assert again.unfinished_game() is not None
    again.resume(gid or 0)
    assert again.record_text() == mid
    assert again.game.pools == sec.game.pools and again.to_move == sec.to_move
    for ev in _entries(sim)[40:]:
        if isinstance(ev, Turn):
            assert again.submit_turn(ev.cult, ev.roll, ev.action).accepted
    assert again.record_text(comments=False) == sim.record
    assert again.unfinished_game() is None


def _first_turn_with_placing_call(sec: Secretary, sim: object) -> Turn:
    """Feed the game up to a turn whose roll allows a placing call (so a give-up is illegal)."""
    for ev in _entries(sim):
        if isinstance(ev, Turn) and not isinstance(ev.action, GiveUp):
            return ev
        if isinstance(ev, StartRoll):
            sec.submit_start_roll(ev.cult, ev.faces)
        else:
            assert sec.submit_turn(ev.cult, ev.roll, ev.action).accepted
    raise AssertionError("no placing call in the game")


def test_illegal_call_is_recorded_not_applied(tmp_path: Path) -> None:
    sim = sim_game(2)
    sec = new_secretary(tmp_path, sim)
    turn = _first_turn_with_placing_call(sec, sim)
    before = (dict(sec.game.pools), sec.to_move, sec.record_text())
    res = sec.submit_turn(turn.cult, turn.roll, GiveUp(turn.roll[0]))
    assert not res.accepted and res.recorded and res.rule == "T3" and res.verdict.legal
    assert not res.must_forfeit  # recall is the default (V2)
    assert (dict(sec.game.pools), sec.to_move) == before[:2]
    assert [e.kind for e in sec.events][-1] is Kind.ILLEGAL
    text = sec.record_text()
    assert f"# {turn.cult}: {''.join(turn.roll)} -> give {turn.roll[0]}" in text
    assert _strip_comments(text) == _strip_comments(before[2])
    # the cult is asked again and the legal call goes in
    assert sec.submit_turn(turn.cult, turn.roll, turn.action).accepted
    rep = replay_text(sec.record_text())
    assert rep.ok
    # the illegal call survives a restart, and is still not a turn
    again = Secretary.open(tmp_path / "t.db")
    again.resume(sec.game_id or 0)
    assert len(again.illegal_calls) == 1 and again.record_text() == sec.record_text()


def test_entry_slips_are_refused_without_a_record(tmp_path: Path) -> None:
    sim = sim_game(2)
    sec = new_secretary(tmp_path, sim)
    turn = _first_turn_with_placing_call(sec, sim)
    n = len(sec.events)
    other = next(c for c in sec.game.cults if c != turn.cult)
    assert sec.submit_turn(other, turn.roll, turn.action).rule == "T1"
    assert sec.submit_turn(turn.cult, turn.roll + ("I",), turn.action).rule == "T2"
    assert sec.submit_turn(turn.cult, turn.roll, GiveUp("X")).rule == "N"  # not a face
    assert sec.submit_turn(turn.cult, turn.roll[:-1] + ("7",), turn.action).rule == "N"
    assert len(sec.events) == n


def test_start_roll_refused_is_not_stored(tmp_path: Path) -> None:
    sec = Secretary.open(tmp_path / "t.db")
    with pytest.raises(SecretaryError):
        sec.submit_start_roll("A", tuple("123123"))
    sec.start_game(Options.make(["A", "B"]))
    with pytest.raises(RuleError) as exc:
        sec.submit_start_roll("A", tuple("12312"))
    assert exc.value.rule == "ST1" and sec.events == []
    assert sec.submit_start_roll("A", tuple("333333")) is None
    assert sec.submit_start_roll("B", tuple("111111")) == "A"


def test_forfeit_option_makes_the_cult_give_up_a_die(tmp_path: Path) -> None:
    sim = sim_game(2, illegal_call="forfeit")
    sec = new_secretary(tmp_path, sim)
    assert sec.tags.get("IllegalCall") == "forfeit"
    turn = _first_turn_with_placing_call(sec, sim)
    pools, center = dict(sec.game.pools), sec.game.center
    res = sec.submit_turn(turn.cult, turn.roll, GiveUp(turn.roll[0]))
    assert res.recorded and res.must_forfeit and sec.pending_forfeit == turn.cult
    assert sec.submit_turn(turn.cult, turn.roll, turn.action).rule == "V2"
    with pytest.raises(SecretaryError):
        sec.correct_last_turn(turn.roll, turn.action)
    missing = next(f for f in "I123E" if f not in turn.roll)
    assert sec.submit_forfeit(missing).rule == "T4"
    # a restart keeps the debt
    again = Secretary.open(tmp_path / "t.db")
    again.resume(sec.game_id or 0)
    assert again.pending_forfeit == turn.cult
    res = again.submit_forfeit(turn.roll[-1])
    assert res.accepted and again.pending_forfeit is None
    assert again.game.pools[turn.cult] == pools[turn.cult] - 1 and again.game.center == center + 1
    assert again.to_move != turn.cult
    assert "forfeit after an illegal call (V2)" in again.record_text()
    with pytest.raises(SecretaryError):
        again.submit_forfeit("I")


def test_correction_is_an_event_and_the_record_follows_it(tmp_path: Path) -> None:
    sim = sim_game(4)
    sec = new_secretary(tmp_path, sim)
    turn = _first_turn_with_placing_call(sec, sim)
    assert sec.submit_turn(turn.cult, turn.roll, turn.action).accepted
    again = Secretary.open(tmp_path / "t.db")
    again.resume(sec.game_id or 0)
    inputs = again.inputs
    assert inputs[-1].event == turn
    # an illegal replacement is refused and nothing is stored
    n = len(again.events)
    bad = again.correct_last_turn(
        turn.roll,
        CallAction(turn.action.call, (), ())
        if isinstance(turn.action, CallAction)
        else turn.action,
        "wrong",
    )
    assert not bad.accepted and len(again.events) == n
    # a misread die: the roll was different, and so was the call
    roll = tuple("E" * len(turn.roll))
    fix = again.legal_corrections(roll)[0]  # judged in the state before the voided turn
    res = again.correct_last_turn(roll, fix, "misread: all Elder Signs")
    assert res.accepted
    kinds = [e.kind for e in again.events]
    assert kinds[-2:] == [Kind.TURN, Kind.CORRECT]  # the voided turn stays in the store
    text = again.record_text()
    assert f"{turn.cult}: {''.join(roll)} -> {fix}   # corrected: misread: all Elder Signs" in text
    assert f"{turn.cult}: {''.join(turn.roll)} -> {turn.action}" not in text
    assert replay_text(text).ok
    # a correction of the correction, and a restart, still give the corrected game
    fix2 = again.legal_corrections(turn.roll)[-1]
    assert again.correct_last_turn(turn.roll, fix2).accepted
    third = Secretary.open(tmp_path / "t.db")
    third.resume(again.game_id or 0)
    assert third.record_text() == again.record_text()
    assert [e.kind for e in third.events][-3:] == [Kind.TURN, Kind.CORRECT, Kind.CORRECT]


def test_nothing_to_correct(tmp_path: Path) -> None:
    sec = Secretary.open(tmp_path / "t.db")
    sec.start_game(Options.make(["A", "B"]))
    sec.submit_start_roll("A", tuple("333333"))
    with pytest.raises(SecretaryError, match="no accepted turn"):
        sec.correct_last_turn(tuple("123123"), GiveUp("1"))


def test_evidence_is_kept_with_the_roll(tmp_path: Path) -> None:
    sim = sim_game(2)
    sec = new_secretary(tmp_path, sim)
    turn = _first_turn_with_placing_call(sec, sim)
    ev = Evidence(
        b"\xff\xd8frame\xff\xd9",
        {"faces": "".join(turn.roll), "confidence": [0.9] * len(turn.roll)},
    )
    res = sec.submit_turn(turn.cult, turn.roll, turn.action, evidence=ev)
    assert sec.store.evidence(sec.game_id or 0, res.seq or 0) == ev


def test_names_that_a_record_cannot_hold(tmp_path: Path) -> None:
    sec = Secretary.open(tmp_path / "t.db")
    with pytest.raises(SecretaryError, match="cult name"):
        sec.start_game(Options.make(["Anna Maria", "Ben"]))
    with pytest.raises(SecretaryError, match="quotes"):
        sec.start_game(Options.make(["Anna", "Ben"]), {"Event": 'the "Cup"'})
    assert sec.store.games() == []


def test_two_secretaries_on_one_game(tmp_path: Path) -> None:
    """The second writer's view is stale: it is refused, not written out of order."""
    sim = sim_game(6)
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim, upto=5)
    other = Secretary.open(tmp_path / "t.db")
    other.resume(sec.game_id or 0)
    entries = _entries(sim)
    nxt = entries[5]
    assert isinstance(nxt, Turn)
    assert sec.submit_turn(nxt.cult, nxt.roll, nxt.action).accepted
    with pytest.raises(StoreError, match="another secretary"):
        other.submit_turn(nxt.cult, nxt.roll, nxt.action)
    assert len(other.events) == 5 and len(sec.store.events(sec.game_id or 0)) == 6


def test_forfeit_record_stops_replay_at_the_forfeit(tmp_path: Path) -> None:
    """NOTATION.md has no line for a V2 forfeit and says IllegalCall does not change a
    replay: the forfeited give-up is written with a comment and replay stops there (T3)."""
    sim = sim_game(2, illegal_call="forfeit")
    sec = new_secretary(tmp_path, sim)
    turn = _first_turn_with_placing_call(sec, sim)
    sec.submit_turn(turn.cult, turn.roll, GiveUp(turn.roll[0]))
    assert sec.submit_forfeit(turn.roll[0]).accepted
    text = sec.record_text()
    r = replay_text(text)
    assert r.error is not None and r.error.rule == "T3"
    assert "forfeit after an illegal call (V2)" in text.splitlines()[r.error.line - 1]


def test_correcting_the_last_turn_of_the_game(tmp_path: Path) -> None:
    """A correction may reopen an ended game; the store's flag follows it both ways."""
    sim = sim_game(0)  # its last turn has calls that would not have ended the game
    sec = new_secretary(tmp_path, sim)
    feed(sec, sim)
    assert sec.finished and sec.unfinished_game() is None
    last = sec.inputs[-1].event
    assert isinstance(last, Turn)
    options = sec.legal_corrections(last.roll)
    reopening = [a for a in options if not _ends_game(sec, last, a)]
    assert sec.correct_last_turn(last.roll, reopening[0], "wrong call keyed").accepted
    assert not sec.finished and sec.unfinished_game() is not None
    assert sec.correct_last_turn(last.roll, last.action, "it was right after all").accepted
    assert sec.finished and sec.unfinished_game() is None
    assert sec.record_text(comments=False) == sim.record


def _ends_game(sec: Secretary, last: Turn, action: object) -> bool:
    from companion.store.fold import StoredGame

    f = StoredGame(sec.options)
    for inp in sec.inputs[:-1]:
        f.apply(inp.seq, inp.kind, inp.event)
    f.apply(0, Kind.TURN, Turn(last.cult, last.roll, action))  # type: ignore[arg-type]
    return f.game.finished
