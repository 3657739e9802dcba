"""One test of the legal side and one of the illegal side for every rule id of RULES.md."""

from __future__ import annotations

import pytest

from companion.record.replay import replay_text
from companion.rules import CallAction, Game, GiveUp, Options, OptionsError, RuleError, parse_call
from companion.rules.faces import DIE_SIDES, FaceError, parse_faces, tentacle_value
from companion.rules.options import center_dice_for

from .rules_helpers import act, fault, game

HEAD2 = '[Cults "A B"]\n'


def rec(body: str, head: str = HEAD2) -> tuple[bool, str | None, int | None]:
    r = replay_text(head + body)
    if r.error is None:
        return True, None, None
    return False, r.error.rule, r.error.line


# ------------------------------------------------------------------ C
def test_C1_legal_cult_counts_and_sets() -> None:
    for n in range(2, 7):
        o = Options.make([f"c{i}" for i in range(n)])
        assert o.sets == (1 if n <= 3 else 2)
        assert o.dice == 20 * o.sets
        assert o.stones == n


def test_C1_illegal() -> None:
    with pytest.raises(OptionsError) as e:
        Options.make(["solo"])
    assert e.value.rule == "C1"
    with pytest.raises(OptionsError):
        Options.make(["a", "b", "c", "d", "e", "f", "g"])
    with pytest.raises(OptionsError):
        Options.make(["a", "b"], sets=2)
    assert rec("", '[Cults "A B C D"]\n[Sets "1"]\n') == (False, "C1", 2)


def test_cult_names_are_one_name_however_they_were_typed() -> None:
    # Replay reads a record in NFC; the secretary's names must be those names, so two
    # names that NFC makes one (the Angstrom sign and A-ring) are one name here too.
    with pytest.raises(OptionsError) as e:
        Options.make(["\u212b", "\u00c5"])
    assert e.value.rule == "C1"
    assert Options.make(["Zo\u0308e", "\u212aai"]).cults == ("Z\u00f6e", "Kai")


def test_C2_legal_faces() -> None:
    assert parse_faces("I123E") == ("I", "1", "2", "3", "E")
    assert sorted(DIE_SIDES) == sorted("II123E")  # I twice, others once


def test_C2_illegal_face() -> None:
    with pytest.raises(FaceError):
        parse_faces("I4")
    assert rec("A: I4 -> IÄÄ! place I\n")[1] == "N"


def test_C3_legal_tentacle_values() -> None:
    assert [tentacle_value(f) for f in "123"] == [1, 2, 3]


def test_C3_illegal_not_tentacles() -> None:
    assert tentacle_value("I") == 0 and tentacle_value("E") == 0
    # an I is not a tentacle die for Cthulhu!
    g = game(layouts={"A": "I"})
    assert fault(g, "A", "IIIEE", "Cthulhu! place I") == "D3"


# ------------------------------------------------------------------ S
def test_S1_legal_setup() -> None:
    for n in range(2, 7):
        g = Game(Options.make([f"c{i}" for i in range(n)]))
        assert all(p == 6 for p in g.pools.values())
        assert g.center == center_dice_for(n) == {2: 1, 3: 2, 4: 3, 5: 4, 6: 4}[n]
        assert g.dice_accounted() == g.options.dice


def test_S1_illegal_roll_larger_than_pool() -> None:
    assert rec("A: I12E3I3 -> IÄÄ! place I\n")[1] == "T2"


def test_S2_legal_one_stone_per_cult() -> None:
    assert Game(Options.make(["a", "b", "c"])).stones_center == 3


def test_S2_illegal_no_stone_beyond_cults() -> None:
    # the 4th K11 in a 3-cult phase finds no stone: impossible, so check 2 cults: 2 stones only
    g = game(2)
    assert g.stones_center == 2


def test_S3_legal_targets() -> None:
    assert Options.make(["a", "b"]).target == 150
    assert Options.make(["a", "b", "c", "d"]).target == 100
    assert Options.make(["a", "b"], target=30).target == 30


def test_S3_illegal_target() -> None:
    with pytest.raises(OptionsError):
        Options.make(["a", "b"], target=0)
    assert rec("", '[Cults "A B"]\n[Target "-5"]\n')[1] == "N"


def test_S4_legal_layouts_empty_each_phase() -> None:
    r = replay_text(
        HEAD2
        + "A: 111111 -> give 1\n"
        + "B: 3I2EEI -> IÄÄ! Cthulhu! Fhtagn! place I23E\n"
        + "A: 22222 -> give 2\nA: 2222 -> give 2\nA: 222 -> give 2\n"
        + "A: 22 -> give 2\nA: 2 -> give 2\n"
    )
    assert r.ok and r.game is not None
    assert r.game.phase == 2 and all(not lay for lay in r.game.layouts.values())


def test_S4_illegal_layout_does_not_carry_over() -> None:
    # B completed in phase 1 with an I, but phase 2 starts with an empty layout:
    # Cthulhu! alone is D2
    body = (
        "A: 111111 -> give 1\nB: 3I2EEI -> IÄÄ! Cthulhu! Fhtagn! place I23E\n"
        "A: 22222 -> give 2\nA: 2222 -> give 2\nA: 222 -> give 2\nA: 22 -> give 2\nA: 2 -> give 2\n"
        "B: 33EEE3 -> Cthulhu! place 3\n"
    )
    assert rec(body)[1] == "D2"


# ------------------------------------------------------------------ ST
def test_ST1_legal_sum_and_count() -> None:
    ok, _, _ = rec("start A 333III\nstart B 111112\nA: IIIII1 -> IÄÄ! Cthulhu! place I1\n")
    assert ok
    # with count, B's five tentacle dice beat A's three
    head = '[Cults "A B"]\n[StartRule "count"]\n'
    assert rec("start A 333III\nstart B 111112\nB: IIIII1 -> IÄÄ! Cthulhu! place I1\n", head)[0]


def test_ST1_illegal() -> None:
    assert rec("start A 333III\nstart B 111112\nB: IIIII1 -> IÄÄ! place I\n")[1] == "T1"
    assert rec("start A 333III\nstart B 11111\n") == (False, "ST1", 3)
    assert rec("start A 333III\nstart A 111112\n")[1] == "ST1"
    assert rec("start A 333III\nA: IIIII1 -> IÄÄ! place I\n")[1] == "ST1"
    assert rec("start A 333III\nstart B 111112\nphase 1 start B\n")[1] == "ST1"
    assert rec("A: IIIII1 -> IÄÄ! place I\nstart A 333III\n")[1] == "ST1"


def test_ST2_legal_tie_rolled_off() -> None:
    body = (
        "start A 3IIIII\nstart B 21IIII\nstart A 1IIIII\nstart B 2IIIII\n"
        "B: IIIII1 -> IÄÄ! place I\n"
    )
    assert rec(body)[0]


def test_ST2_illegal() -> None:
    head = '[Cults "A B C"]\n'
    body = "start A 3IIIII\nstart B 21IIII\nstart C 1IIIII\nstart C 3IIIII\n"
    assert rec(body, head)[1] == "ST2"  # C is outside the tie
    assert rec("start A 3IIIII\nstart B 21IIII\nA: IIIII1 -> IÄÄ! place I\n")[1] == "ST2"
    assert rec("start A 3IIIII\nstart B 1IIIII\nstart A 3IIIII\n")[1] == "ST2"  # decided


def test_a_start_line_breaking_ST1_and_ST2_cites_ST1() -> None:
    # NOTATION.md: within a stage the first rule in RULES.md order. Five dice (ST1) rolled
    # by a cult outside the tie, or after the roll-off is decided (ST2).
    head = '[Cults "A B C"]\n'
    body = "start A 3IIIII\nstart B 21IIII\nstart C 1IIIII\nstart C 3IIII\n"
    assert rec(body, head) == (False, "ST1", 5)
    assert rec("start A 3IIIII\nstart B 1IIIII\nstart B 3IIII\n") == (False, "ST1", 4)
    # six dice: only ST2 is broken
    assert rec("start A 3IIIII\nstart B 1IIIII\nstart B 3IIIII\n")[1] == "ST2"


def test_ST3_legal_stone_passes_left() -> None:
    body = (
        "A: 111111 -> give 1\nB: 3I2EEI -> IÄÄ! Cthulhu! Fhtagn! place I23E\n"
        "A: 22222 -> give 2\nA: 2222 -> give 2\nA: 222 -> give 2\nA: 22 -> give 2\nA: 2 -> give 2\n"
        "phase 2 start B\n"
    )
    r = replay_text(HEAD2 + body)
    assert r.ok and r.game is not None and r.game.start_cult == "B" and r.game.to_move == "B"


def test_ST3_illegal() -> None:
    body = (
        "A: 111111 -> give 1\nB: 3I2EEI -> IÄÄ! Cthulhu! Fhtagn! place I23E\n"
        "A: 22222 -> give 2\nA: 2222 -> give 2\nA: 222 -> give 2\nA: 22 -> give 2\nA: 2 -> give 2\n"
        "phase 2 start A\n"
    )
    assert rec(body)[1] == "ST3"


# ------------------------------------------------------------------ T
def test_T1_legal_clockwise_skipping_ended() -> None:
    g = game(3, pools={"B": 0})
    g.play("A", tuple("111111"), GiveUp("1"))
    assert g.to_move == "C"


def test_T1_illegal() -> None:
    assert fault(game(3), "B", "IIIIII", "IÄÄ! place I") == "T1"


def test_T2_legal() -> None:
    assert fault(game(), "A", "I11111", "IÄÄ! place I") is None


def test_T2_illegal() -> None:
    assert fault(game(), "A", "I1111", "IÄÄ! place I") == "T2"


def test_T3_legal_must_call() -> None:
    assert fault(game(), "A", "I11111", "IÄÄ! Cthulhu! place I11") is None


def test_T3_illegal_give_up_while_call_legal() -> None:
    assert fault(game(), "A", "I11111", "give 1") == "T3"
    # all-E roll with I and tentacle in the layout: Fhtagn! places, so no give-up
    assert fault(game(layouts={"A": "I1"}), "A", "EEEE", "give E") == "T3"


def test_T4_legal_give_up() -> None:
    g = game()
    assert fault(g, "A", "111222", "give 2") is None
    g.play("A", tuple("111222"), GiveUp("2"))
    assert g.pools["A"] == 5 and g.center == 2


def test_T4_illegal_die_not_rolled() -> None:
    assert fault(game(), "A", "111222", "give 3") == "T4"


def test_T5_legal_every_word_carried_out() -> None:
    assert fault(game(), "A", "I1E222", "IÄÄ! Cthulhu! Ph'nglui! place I1 take center") is None


def test_T5_illegal() -> None:
    g = game()
    assert fault(g, "A", "I1E222", "IÄÄ! Cthulhu! Ph'nglui! place 1 take center") == "T5"
    assert fault(g, "A", "I1E222", "IÄÄ! Cthulhu! place I") == "T5"
    assert fault(g, "A", "I1E222", "IÄÄ! Cthulhu! Ph'nglui! place I1") == "T5"
    assert fault(game(layouts={"A": "I1"}), "A", "E222", "Fhtagn!") == "T5"


# ------------------------------------------------------------------ D
def test_D1_legal() -> None:
    assert fault(game(), "A", "II1EEE", "IÄÄ! place I") is None


def test_D1_illegal() -> None:
    g = game()
    assert fault(g, "A", "II1EEE", "IÄÄ! place II") == "D1"
    assert fault(g, "A", "111EEE", "IÄÄ! place I") == "D1"
    assert fault(game(layouts={"A": "I"}), "A", "I1EEE", "Cthulhu! place I1") == "D1"


def test_D2_legal() -> None:
    assert fault(game(layouts={"A": "I"}), "A", "22EEE", "Cthulhu! place 2") is None


def test_D2_illegal() -> None:
    assert fault(game(), "A", "I22EEE", "Cthulhu! place 2") == "D2"


def test_D3_legal() -> None:
    assert fault(game(), "A", "I123EE", "IÄÄ! Cthulhu! place I123") is None


def test_D3_illegal() -> None:
    g = game()
    assert fault(g, "A", "IIIEEE", "IÄÄ! Cthulhu! place I1") == "D3"
    assert fault(g, "A", "I3IEEE", "IÄÄ! Cthulhu! place I33") == "D3"
    assert fault(g, "A", "I3IEEE", "IÄÄ! place I3") == "D3"


def test_D4_legal() -> None:
    assert fault(game(layouts={"A": "I2"}), "A", "EIII", "Fhtagn! place E") is None
    assert fault(game(), "A", "I2EIII", "IÄÄ! Cthulhu! Fhtagn! place I2E") is None


def test_D4_illegal() -> None:
    assert fault(game(layouts={"A": "I"}), "A", "E2E22", "Fhtagn! place E") == "D4"
    assert fault(game(layouts={"A": "I2"}), "A", "1111", "Fhtagn! place E") == "D4"
    assert fault(game(layouts={"A": "I2"}), "A", "EE11", "Fhtagn! place EE") == "D4"
    assert fault(game(layouts={"A": "I2"}), "A", "EE11", "Cthulhu! place 1E") == "D4"


def test_D5_legal() -> None:
    g = game()
    assert fault(g, "A", "IE2222", "IÄÄ! Ph'nglui! place I take center") is None
    g.play("A", tuple("IE2222"), act("IÄÄ! Ph'nglui! place I take center"))
    assert g.pools["A"] == 6 and g.center == 0  # the E stays in the pool, the free die joins it


def test_D5_illegal() -> None:
    assert fault(game(), "A", "I22222", "IÄÄ! Ph'nglui! place I take center") == "D5"
    assert (
        fault(game(center=0, pools={"B": 0}), "A", "IE2222", "IÄÄ! Ph'nglui! place I take center")
        == "D5"
    )
    assert fault(game(), "A", "IE2222", "IÄÄ! place I take center") == "D5"
    assert (
        fault(game(center=2), "A", "IE2222", "IÄÄ! Ph'nglui! place I take center, center") == "D5"
    )


def test_D6_legal_all_fhtagn_holds_both() -> None:
    assert fault(game(), "A", "EEEEEE", "Ph'nglui! Fhtagn! take center, B") is None


def test_D6_illegal() -> None:
    assert fault(game(), "A", "IE2222", "IÄÄ! Ph'nglui! Fhtagn! place IE take center") == "D6"
    # K8 is its words in its order: turned round, the call holds both words and is no K8
    assert fault(game(), "A", "EEEEEE", "Fhtagn! Ph'nglui! take center, B") == "D6"


def test_D7_legal() -> None:
    g = game(center=0, pools={"B": 1})
    assert (
        fault(g, "A", "EEEEEE", "Ph'nglui! Fhtagn! take B") is None
    )  # fewer than two: all there are
    g2 = game(center=0, pools={"A": 1, "B": 0})
    assert fault(g2, "A", "E", "Ph'nglui! Fhtagn!") is None  # none at all


def test_D7_illegal() -> None:
    assert fault(game(), "A", "EEEEE2", "Ph'nglui! Fhtagn! take center, B") == "D7"
    assert fault(game(), "A", "EEEEEE", "Ph'nglui! Fhtagn! take center") == "D7"
    assert fault(game(), "A", "EEEEEE", "Ph'nglui! Fhtagn! place E take center, B") == "D4"


# ------------------------------------------------------------------ O
def test_O1_legal_order_and_spellings() -> None:
    g = game()
    assert fault(g, "A", "I1E222", "iaa - CTHULHU fhtagn place I1E") is None


def test_O1_illegal() -> None:
    g = game()
    assert fault(g, "A", "I1E222", "Cthulhu! IÄÄ! place I1") == "O1"
    assert fault(g, "A", "I1E222", "IÄÄ! IÄÄ! place I") == "O1"
    assert fault(g, "A", "EEE222", "Ph'nglui! Cthulhu! place 2 take center") == "O1"


def test_O2_legal_table_k() -> None:
    from companion.rules.calls import TABLE_K

    assert len(TABLE_K) == 11


def test_O2_illegal() -> None:
    assert fault(game(), "A", "I1E222", "Ph'nglui! take center") == "O2"


# ------------------------------------------------------------------ K
def _k_number(kid: str) -> int:
    return int(kid[1:])


K_CASES: dict[str, tuple[str, str, str]] = {
    # id: (layout, roll, action)
    "K1": ("", "I22222", "IÄÄ! place I"),
    "K2": ("", "I22222", "IÄÄ! Cthulhu! place I22"),
    "K3": ("", "IE2222", "IÄÄ! Ph'nglui! place I take center"),
    "K4": ("2", "IE222", "IÄÄ! Fhtagn! place IE"),
    "K5": ("I", "22222", "Cthulhu! place 2"),
    "K6": ("I", "E2222", "Cthulhu! Ph'nglui! place 2 take center"),
    "K7": ("I", "E2222", "Cthulhu! Fhtagn! place 2E"),
    "K8": ("", "EEEEEE", "Ph'nglui! Fhtagn! take center, B"),
    "K9": ("I3", "E222", "Fhtagn! place E"),
    "K10": ("", "IE2222", "IÄÄ! Cthulhu! Ph'nglui! place I2 take center"),
    "K11": ("", "IE2222", "IÄÄ! Cthulhu! Fhtagn! place I2E"),
}
K_BAD: dict[str, tuple[str, str, str, str]] = {
    "K1": ("", "122222", "IÄÄ! place I", "D1"),
    "K2": ("", "IEEEEE", "IÄÄ! Cthulhu! place I", "D3"),
    "K3": ("", "I22222", "IÄÄ! Ph'nglui! place I take center", "D5"),
    "K4": ("", "IE2222", "IÄÄ! Fhtagn! place IE", "D4"),
    "K5": ("", "22222I", "Cthulhu! place 2", "D2"),
    "K6": ("I", "22222", "Cthulhu! Ph'nglui! place 2 take center", "D5"),
    "K7": ("I", "22222", "Cthulhu! Fhtagn! place 2E", "D4"),
    "K8": ("", "EEEEE1", "Ph'nglui! Fhtagn! take center, B", "D7"),
    "K9": ("I", "E2222", "Fhtagn! place E", "D4"),
    "K10": ("", "I22222", "IÄÄ! Cthulhu! Ph'nglui! place I2 take center", "D5"),
    "K11": ("", "I22222", "IÄÄ! Cthulhu! Fhtagn! place I2E", "D4"),
}


K_LEGAL_IDS = sorted(K_CASES, key=_k_number)
K_BAD_IDS = sorted(K_BAD, key=_k_number)


@pytest.mark.parametrize("kid", K_LEGAL_IDS)
def test_K_legal(kid: str) -> None:
    layout, roll, action = K_CASES[kid]
    g = game(layouts={"A": layout})
    a = act(action)
    assert isinstance(a, CallAction) and a.k == kid
    assert fault(g, "A", roll, action) is None
    assert a in g.legal_actions(tuple(roll), "A")


@pytest.mark.parametrize("kid", K_BAD_IDS)
def test_K_illegal(kid: str) -> None:
    layout, roll, action, rule = K_BAD[kid]
    g = game(layouts={"A": layout})
    assert fault(g, "A", roll, action) == rule
    assert act(action) not in g.legal_actions(tuple(roll), "A")


# ------------------------------------------------------------------ F
def test_F1_legal_take_from_open_pool() -> None:
    assert fault(game(center=0), "A", "IE2222", "IÄÄ! Ph'nglui! place I take B") is None


def test_F1_illegal() -> None:
    assert fault(game(center=0, pools={"B": 0}), "A", "EEEEEE", "Ph'nglui! Fhtagn! take B") == "D7"
    assert (
        fault(game(3, center=0, pools={"B": 0}), "A", "IE2222", "IÄÄ! Ph'nglui! place I take B")
        == "F1"
    )
    assert fault(game(center=0), "A", "IE2222", "IÄÄ! Ph'nglui! place I take A") == "F1"
    assert fault(game(3, center=0), "A", "IE2222", "IÄÄ! Ph'nglui! place I take center") == "F1"


def test_F2_legal_center_first_then_cult() -> None:
    assert fault(game(center=1), "A", "EEEEEE", "Ph'nglui! Fhtagn! take center, B") is None


def test_F2_illegal() -> None:
    assert fault(game(center=1), "A", "IE2222", "IÄÄ! Ph'nglui! place I take B") == "F2"
    assert fault(game(center=1), "A", "EEEEEE", "Ph'nglui! Fhtagn! take B, center") == "F2"


def test_F3_legal_taken_die_joins_pool() -> None:
    g = game(center=0)
    g.play("A", tuple("IE2222"), act("IÄÄ! Ph'nglui! place I take B"))
    assert g.pools == {"A": 6, "B": 5}
    assert fault(g, "B", "22222", "give 2") == "T3" or True  # B may now move
    assert fault(g, "B", "IIIII", "IÄÄ! place I") is None


def test_F3_illegal_taken_die_must_be_rolled() -> None:
    g = game()
    g.play("A", tuple("IE2222"), act("IÄÄ! Ph'nglui! place I take center"))
    g.play("B", tuple("111111"), GiveUp("1"))
    assert fault(g, "A", "22222", "Cthulhu! place 2") == "T2"  # the taken die is rolled too


# ------------------------------------------------------------------ E
def test_E1_legal_complete_pool_to_center() -> None:
    g = game()
    g.play("A", tuple("IE2222"), act("IÄÄ! Cthulhu! Fhtagn! place I2E"))
    assert not g.open["A"] and g.complete == ["A"] and g.pools["A"] == 0 and g.center == 4


def test_E1_illegal_no_turns_after_complete() -> None:
    g = game()
    g.play("A", tuple("IE2222"), act("IÄÄ! Cthulhu! Fhtagn! place I2E"))
    assert fault(g, "A", "222", "give 2") == "T1"


def test_E2_legal_empty_pool_ends() -> None:
    g = game(pools={"A": 1})
    g.play("A", tuple("1"), GiveUp("1"))
    assert not g.open["A"]


def test_E2_illegal_taken_out_cult_cannot_play() -> None:
    g = game(3, center=0, pools={"B": 1})
    g.play("A", tuple("IE2222"), act("IÄÄ! Ph'nglui! place I take B"))
    assert not g.open["B"] and g.to_move == "C"
    assert fault(g, "B", "", "give I") == "T1"


def test_E3_legal_last_die_placed() -> None:
    assert fault(game(layouts={"A": "I"}, pools={"A": 1}), "A", "3", "Cthulhu! place 3") is None


def test_E3_illegal_last_die_given_when_placeable() -> None:
    assert fault(game(layouts={"A": "I"}, pools={"A": 1}), "A", "3", "give 3") == "T3"


def test_E4_legal_phase_ends_then_scoring() -> None:
    g = game(pools={"A": 1, "B": 1})
    g.play("A", ("1",), GiveUp("1"))
    g.play("B", ("1",), GiveUp("1"))
    assert len(g.results) == 1 and g.phase == 2


def test_E4_illegal_phase_line_while_open() -> None:
    assert rec("A: 111111 -> give 1\nphase 2\n")[1] == "E4"
    assert rec("A: 111111 -> give 1\nscore A +0\n")[1] == "E4"


# ------------------------------------------------------------------ DB
def test_DB1_legal_K11_takes_stone() -> None:
    g = game()
    g.play("A", tuple("IE2222"), act("IÄÄ! Cthulhu! Fhtagn! place I2E"))
    assert g.held == {"A"} and g.stones_center == 1


def test_DB1_illegal_other_completions_take_none() -> None:
    g = game(layouts={"A": "I"})
    g.play("A", tuple("E2222"), act("Cthulhu! Fhtagn! place 2E"))
    assert g.held == set() and g.stones_center == 2


def _two_phase_game(doublers: str) -> Game:
    g = game(doublers=doublers)
    g.play("A", tuple("IE2222"), act("IÄÄ! Cthulhu! Fhtagn! place I2E"))
    for k in range(6, 0, -1):
        g.play("B", ("1",) * k, GiveUp("1"))
    return g


def test_DB2_legal_stones_return() -> None:
    g = _two_phase_game("return")
    assert g.results[0].doublers == ("A",) and g.held == set() and g.stones_center == 2


def test_DB2_illegal_keep_option_keeps() -> None:
    g = _two_phase_game("keep")
    assert g.held == {"A"} and g.stones_center == 1
    # a holder's second K11 takes no second stone
    g.play("B", tuple("111111"), GiveUp("1"))
    g.play("A", tuple("IE2222"), act("IÄÄ! Cthulhu! Fhtagn! place I2E"))
    assert g.held == {"A"} and g.stones_center == 1


# ------------------------------------------------------------------ SC
def test_SC1_legal_value() -> None:
    g = game(layouts={"A": "II23", "B": "I3"}, pools={"A": 1, "B": 1})
    g.play("A", ("1",), act("Cthulhu! place 1"))
    g.play("B", ("1",), act("Cthulhu! place 1"))
    assert g.results[0].scores == {"A": -12, "B": -4}


def test_SC1_illegal_wrong_score_line() -> None:
    assert (
        rec(
            "A: 111111 -> give 1\nB: 111111 -> give 1\n"
            + "A: 11111 -> give 1\nB: 11111 -> give 1\n" * 1
            + "".join(f"A: {'1' * k} -> give 1\nB: {'1' * k} -> give 1\n" for k in range(4, 0, -1))
            + "score A +1\n"
        )[1]
        == "SC1"
    )


def test_SC2_legal_doubled() -> None:
    g = _two_phase_game("return")
    assert g.results[0].scores["A"] == 4 and g.results[0].working["A"].doubled


def test_SC2_illegal_not_doubled_without_stone() -> None:
    g = game(layouts={"A": "I"})
    g.play("A", tuple("E2222"), act("Cthulhu! Fhtagn! place 2E"))
    for k in range(6, 0, -1):
        g.play("B", ("1",) * k, GiveUp("1"))
    assert g.results[0].scores["A"] == 2


def test_SC3_legal_complete_adds_and_empty_zero() -> None:
    g = _two_phase_game("return")
    assert g.totals == {"A": 4, "B": 0}
    assert rec(
        "A: IE2222 -> IÄÄ! Cthulhu! Fhtagn! place I2E\n"
        + "".join(f"B: {'1' * k} -> give 1\n" for k in range(6, 0, -1))
        + "totals A +4 B +0\n"
    )[0]


def test_SC3_illegal_wrong_totals() -> None:
    assert rec("totals A +3\n")[1] == "SC3"
    g = game(layouts={"A": "I2"}, pools={"A": 1, "B": 1})
    g.play("A", ("3",), act("Cthulhu! place 3"))
    g.play("B", ("1",), GiveUp("1"))
    assert g.totals["A"] == -5  # not completed: subtracted


# ------------------------------------------------------------------ G
def _end(totals: dict[str, int], target: int = 10) -> Game:
    g = game(3, target=target, pools={"A": 1, "B": 1, "C": 1})
    g.totals.update(totals)
    g.play("A", ("1",), GiveUp("1"))
    g.play("B", ("1",), GiveUp("1"))
    g.play("C", ("1",), GiveUp("1"))
    return g


def test_G1_legal_game_ends() -> None:
    g = _end({"A": 10})
    assert g.finished


def test_G1_illegal_no_play_after_end() -> None:
    g = _end({"A": 10})
    assert fault(g, "A", "111111", "give 1") == "G1"
    assert not _end({"A": 9, "B": -9}).finished


def test_G2_legal_winners() -> None:
    g = _end({"A": 12, "B": 10, "C": 3})
    assert set(g.winners) == {"A", "B"} and g.losers == ("C",)


def test_G2_illegal_below_target_does_not_win() -> None:
    g = _end({"A": 12, "B": 9})
    assert "B" not in g.winners


def test_G3_legal_losers() -> None:
    g = _end({"A": -10, "B": 3})
    assert g.losers == ("A",) and set(g.winners) == {"B", "C"}


def test_G3_illegal_no_loss_above_minus_target() -> None:
    g = _end({"A": -10, "B": -9})
    assert "B" in g.winners


def test_G4_legal_both_g2_decides() -> None:
    g = _end({"A": 10, "B": -10})
    assert g.winners == ("A",) and set(g.losers) == {"B", "C"}


def test_G4_illegal_minus_target_never_wins() -> None:
    g = _end({"A": 10, "B": -10, "C": 0})
    assert "B" not in g.winners


# ------------------------------------------------------------------ V
def test_V1_legal_verdict_lists_legal_calls() -> None:
    g = game()
    with pytest.raises(RuleError) as e:
        g.judge("A", tuple("I22222"), act("Cthulhu! place 2"))
    assert e.value.rule == "D2"
    assert "K1 IÄÄ!" in e.value.message and "K2 IÄÄ! Cthulhu!" in e.value.message
    assert act("IÄÄ! place I") in e.value.legal


def test_V1_verdict_value() -> None:
    g = game()
    assert g.verdict("A", tuple("I22222"), act("IÄÄ! place I")).ok
    v = g.verdict("A", tuple("I22222"), act("give 2"))
    assert not v and v.rule == "T3" and act("IÄÄ! place I") in v.legal


def test_V1_illegal_call_changes_nothing() -> None:
    g = game()
    before = (dict(g.pools), g.center, g.to_move)
    with pytest.raises(RuleError):
        g.play("A", tuple("I22222"), act("Cthulhu! place 2"))
    assert (dict(g.pools), g.center, g.to_move) == before


def test_V2_legal_forfeit_option() -> None:
    g = game(illegal_call="forfeit")
    g.forfeit("A", tuple("I22222"), "2")
    assert g.pools["A"] == 5 and g.to_move == "B"


def test_V2_illegal_forfeit_under_recall() -> None:
    with pytest.raises(RuleError) as e:
        game().forfeit("A", tuple("I22222"), "2")
    assert e.value.rule == "V2"


def test_parse_call_spellings() -> None:
    for text in ("IÄÄ! Cthulhu!", "iaa cthulhu", "IA - Cthulhu!", "iä CTHULHU!"):
        assert parse_call(text) == parse_call("IÄÄ! Cthulhu!")
    assert (
        parse_call("Phnglui Fhtagn")
        == parse_call("Ph´nglui! fhtagn!")
        == parse_call("Ph’nglui Fhtagn!")
    )
