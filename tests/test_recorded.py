"""record/ owns the record: tags <-> options once, and one event applier (RecordedGame)."""

from __future__ import annotations

import pytest

from companion.record.notation import PhaseLine, ScoreLine, StartRoll, TotalsLine, Turn, parse_line
from companion.record.recorded import FORFEIT_COMMENT, RecordedGame
from companion.record.replay import replay_text
from companion.record.simulate import play_game
from companion.record.tags import options_from_tags, tags_for
from companion.rules.actions import CallAction, GiveUp
from companion.rules.calls import parse_call
from companion.rules.game import Game
from companion.rules.options import Doublers, IllegalCall, Options, OptionsError, StartRule
from companion.rules.verdicts import RuleError


def test_tags_carry_the_options_both_ways() -> None:
    opts = Options.make(
        ["A", "B", "C", "D"], target=40, start_rule="count", doublers="keep", illegal_call="forfeit"
    )
    tags = tags_for(opts, {"Event": "Cup", "Target": "999"})
    assert tags == {
        "Cults": "A B C D",
        "Target": "40",
        "StartRule": "count",
        "Doublers": "keep",
        "IllegalCall": "forfeit",
        "Event": "Cup",
    }  # a free tag never overrides an option
    assert options_from_tags(tags) == opts
    plain = Options.make(["A", "B"])
    assert tags_for(plain) == {"Cults": "A B", "Target": "150"}  # the rulebook's options go unsaid
    assert options_from_tags({"Cults": "A B"}) == plain
    assert options_from_tags({"Cults": "A B", "Sets": "1"}).start_rule is StartRule.SUM


@pytest.mark.parametrize(
    ("tags", "rule"),
    [
        ({"Cults": "A"}, "C1"),
        ({"Cults": "A B", "Sets": "2"}, "C1"),
        ({"Cults": "A B", "Target": "many"}, "N"),
        ({"Cults": "A B", "Doublers": "never"}, "N"),
    ],
)
def test_tags_that_are_no_options_name_the_rule(tags: dict[str, str], rule: str) -> None:
    with pytest.raises(OptionsError) as exc:
        options_from_tags(tags)
    assert exc.value.rule == rule


def test_the_game_holds_no_record_format_state() -> None:
    g = Game(Options.make(["A", "B"]))
    assert not hasattr(g, "phase_marked") and not hasattr(g, "score_window")
    assert not hasattr(g, "mark_phase")


def _turn(text: str) -> Turn:
    item = parse_line(text)
    assert isinstance(item, Turn)
    return item


def test_enter_writes_the_lines_a_turn_implies_as_replay_reads_them() -> None:
    sim = play_game(Options.make(["A", "B", "C"], target=40), seed=5)
    rec = RecordedGame(sim.recorded.options if sim.recorded else Options.make(["A"]))
    results = []
    for ev in sim.events:
        if isinstance(ev, StartRoll | Turn):
            results.append(rec.enter(ev))
    # the same lines as the simulator wrote, through the same applier
    assert [line.event for line in rec.lines] == sim.events
    assert rec.text(sim.tags, comments=False) == sim.record
    assert rec.text(sim.tags).endswith(
        f"# winners: {' '.join(rec.game.winners)}; losers: {' '.join(rec.game.losers) or 'none'}\n"
    )
    assert sum(r is not None for r in results) == len(rec.game.results)
    assert replay_text(sim.record).ok


def test_apply_line_checks_the_record_format() -> None:
    rec = RecordedGame(Options.make(["A", "B"]))
    with pytest.raises(RuleError, match="this is phase 1, not phase 2") as exc:
        rec.apply_line(PhaseLine(2, "A"))
    assert exc.value.rule == "N" and not rec.lines
    rec.apply_line(PhaseLine(1, "A"))
    assert not rec.phase_line_due()
    for number in (1, 2):  # phase 1 stands already and has not ended: no phase line now
        with pytest.raises(RuleError, match="phase 1 has not ended") as exc:
            rec.apply_line(PhaseLine(number, "A"))
        assert exc.value.rule == "E4"
    with pytest.raises(RuleError, match="this is phase 2, not phase 3") as exc:
        rec.apply_line(PhaseLine(3, "A"))
    assert exc.value.rule == "N"
    with pytest.raises(RuleError) as exc:
        rec.apply_line(ScoreLine((("A", 0),)))
    assert exc.value.rule == "E4"
    with pytest.raises(RuleError) as exc:
        rec.apply_line(TotalsLine((("A", 5),)))
    assert exc.value.rule == "SC3"
    with pytest.raises(RuleError) as exc:
        rec.apply_line(PhaseLine(2, "Zed"))
    assert exc.value.rule == "N"
    assert [line.event for line in rec.lines] == [PhaseLine(1, "A")]


def test_an_illegal_call_is_a_comment_and_forfeit_owes_a_die() -> None:
    rec = RecordedGame(Options.make(["A", "B"], illegal_call="forfeit"))
    bad = Turn("A", tuple("123EEE"), CallAction(parse_call("IÄÄ!"), ("I",)))
    with pytest.raises(RuleError):
        rec.check(bad)
    rec.note_illegal(bad, "D1", "IÄÄ! needs an I in the roll")
    assert rec.pending_forfeit == bad and rec.illegal_calls == 1
    # no roll-off: an illegal call never decides the start cult, so no phase line before it
    assert [line.event for line in rec.lines] == [bad] and rec.game.start_cult is None
    with pytest.raises(RuleError) as exc:  # V2: a forfeit is a give-up, checked without a change
        rec.check(Turn("A", bad.roll, CallAction(parse_call("Cthulhu!"), ("1",))), forfeit=True)
    assert exc.value.rule == "V2"
    with pytest.raises(RuleError) as exc:
        rec.check(Turn("A", bad.roll, GiveUp("I")), forfeit=True)
    assert exc.value.rule == "T4" and rec.game.pools["A"] == 6
    rec.enter(Turn("A", bad.roll, GiveUp("3")), forfeit=True)
    assert rec.pending_forfeit is None and rec.game.pools["A"] == 5
    assert rec.lines[-1].comment == FORFEIT_COMMENT
    assert [line.event for line in rec.lines[1:]] == [
        PhaseLine(1, "A"),
        Turn("A", bad.roll, GiveUp("3")),
    ]
    text = rec.text({"Cults": "A B", "IllegalCall": "forfeit"})
    assert "# A: 123EEE -> IÄÄ! place I   # illegal call, not played: D1: IÄÄ! needs an I" in text
    assert f"A: 123EEE -> give 3   # {FORFEIT_COMMENT}" in text
    assert "illegal" not in rec.text({"Cults": "A B"}, comments=False)


def test_a_forfeit_under_recall_is_refused() -> None:
    rec = RecordedGame(Options.make(["A", "B"]))
    assert (
        rec.options.illegal_call is IllegalCall.RECALL and rec.options.doublers is Doublers.RETURN
    )
    with pytest.raises(RuleError) as exc:
        rec.check(Turn("A", tuple("123EEE"), GiveUp("3")), forfeit=True)
    assert exc.value.rule == "V2"
