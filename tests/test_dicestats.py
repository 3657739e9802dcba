"""Dice statistics: counts against C2 (IÄÄ! on 2 faces of 6), chi-square by hand, the CLI."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from companion.cli import main
from companion.dicestats import FaceStats, chi_square, game_from_replay, min_rolls, p_value
from companion.record.replay import replay_text
from companion.record.simulate import STRATEGIES, play_game
from companion.rules import Options
from companion.secretary import Secretary


def _stats(counts: dict[str, int]) -> FaceStats:
    s = FaceStats("t")
    for face, n in counts.items():
        s.add([face] * n)
    return s


def test_chi_square_against_a_hand_computation() -> None:
    # 60 dice: expected I 20, and 10 for each of 1, 2, 3, E (C2, not 12 each as on a plain d6).
    s = _stats({"I": 26, "1": 8, "2": 12, "3": 9, "E": 5})
    assert (
        s.dice == 60
        and s.expected("I") == pytest.approx(20)
        and s.expected("E") == pytest.approx(10)
    )
    # by hand: 36/20 + 4/10 + 4/10 + 1/10 + 25/10 = 1.8 + 0.4 + 0.4 + 0.1 + 2.5 = 5.2
    assert s.chi2 == pytest.approx(5.2)
    # 4 degrees of freedom: Q(5.2) = e^-2.6 · (1 + 2.6) = 0.26545...
    assert s.p == pytest.approx(math.exp(-2.6) * 3.6) and s.p == pytest.approx(0.2674, abs=1e-4)
    assert s.verdict.startswith("fair")


def test_p_value_matches_tabulated_critical_values() -> None:
    # chi-square table, df 4: 9.488 at 0.05, 13.277 at 0.01, 18.467 at 0.001
    assert p_value(9.4877) == pytest.approx(0.05, abs=1e-4)
    assert p_value(13.2767) == pytest.approx(0.01, abs=1e-4)
    assert p_value(18.4668) == pytest.approx(0.001, abs=1e-5)
    assert p_value(0.0) == 1.0


def test_fair_dice_of_this_game_are_fair_but_a_plain_d6_assumption_is_not() -> None:
    # Exactly the C2 proportions: chi-square 0. A tool assuming equal faces would see I twice as
    # often.
    s = _stats({"I": 200, "1": 100, "2": 100, "3": 100, "E": 100})
    assert s.chi2 == 0 and s.verdict.startswith("fair")
    uniform = _stats({"I": 120, "1": 120, "2": 120, "3": 120, "E": 120})  # a d6 with equal motifs
    assert uniform.p < 0.001
    assert uniform.verdict == "looks biased after 600 dice: I comes up too rarely"


def test_too_few_rolls_to_say() -> None:
    assert min_rolls() == 30  # every expected count at least 5: 30 × 1/6
    s = _stats({"E": 12, "1": 2})
    assert s.verdict.startswith("too few rolls to say (14 dice")


def test_seeded_fair_dice_mostly_pass() -> None:
    rng = random.Random(5)
    passed = 0
    for _ in range(100):
        s = FaceStats("x")
        s.add(rng.choice("II123E") for _ in range(300))
        passed += s.p >= 0.01
    assert passed >= 95  # about 99 expected at alpha 0.01


def _game_with_an_illegal_call(db: Path) -> Secretary:
    from companion.rules import CallAction, GiveUp, parse_call

    sec = Secretary.open(db)
    sec.start_game(Options.make(["Anna", "Ben"]), {"Table": "3"})
    sec.submit_start_roll("Anna", tuple("3I21EI"))
    sec.submit_start_roll("Ben", tuple("1IE2II"))
    bad = sec.submit_turn("Anna", tuple("123EEE"), CallAction(parse_call("Cthulhu!"), tuple("123")))
    assert not bad.accepted  # illegal, recorded: the same throw as the next turn
    assert sec.submit_turn("Anna", tuple("123EEE"), GiveUp("E")).accepted
    return sec


def test_record_rolls_skip_comments_and_count_each_roll_once(tmp_path: Path) -> None:
    sec = _game_with_an_illegal_call(tmp_path / "g.db")
    text = sec.record_text()
    sec.close()
    assert "# Anna: 123EEE -> Cthulhu!" in text  # the illegal call is a comment
    g = game_from_replay("r", replay_text(text))
    assert g.rolls == [tuple("3I21EI"), tuple("1IE2II"), tuple("123EEE")]
    assert g.tags["Table"] == "3"
    # by hand: I 2+3, 1 1+1+1, 2 1+1+1, 3 1+0+1, E 1+1+3
    assert g.stats().counts == {"I": 5, "1": 3, "2": 3, "3": 2, "E": 5}


def test_stats_cli_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    opts = Options.make(["Anna", "Ben", "Cleo"])
    for seed in (1, 2):
        sim = play_game(
            opts,
            seed,
            {c: STRATEGIES["greedy"] for c in opts.cults},
            tags={"Table": "7", "Dice": "red"},
        )
        (tmp_path / f"g{seed}.txt").write_text(sim.record, encoding="utf-8")
    assert main(["stats", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (
        "IÄÄ! on 2 faces of 6" in out
        and "table 7" in out
        and "dice set red" in out
        and "all games" in out
    )
    assert main(["stats", "--json", str(tmp_path / "g1.txt"), str(tmp_path / "g2.txt")]) == 0
    data = json.loads(capsys.readouterr().out)
    groups = {g["name"]: g for g in data["groups"]}
    total = groups["all games"]
    assert total["dice"] == groups["g1.txt"]["dice"] + groups["g2.txt"]["dice"]
    assert total["expected"]["I"] == pytest.approx(total["dice"] / 3, abs=0.01)
    counts = total["counts"]
    by_hand = sum(
        (counts[f] - total["dice"] * p) ** 2 / (total["dice"] * p)
        for f, p in {"I": 2 / 6, "1": 1 / 6, "2": 1 / 6, "3": 1 / 6, "E": 1 / 6}.items()
    )
    assert total["chi2"] == pytest.approx(by_hand, abs=1e-3)
    assert chi_square(counts) == pytest.approx(by_hand)


def test_stats_of_a_database_counts_corrected_rolls_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.db"
    _game_with_an_illegal_call(db).close()
    assert main(["stats", "--json", str(db)]) == 0
    g = json.loads(capsys.readouterr().out)["groups"][0]
    assert g["rolls"] == 3 and g["dice"] == 18
    assert g["counts"] == {"I": 5, "1": 3, "2": 3, "3": 2, "E": 5}


def test_stats_of_nothing_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(tmp_path / "nope.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("nope.txt") == 1 and "no such file" in err


def test_stats_read_every_record_replay_reads(tmp_path: Path) -> None:
    import unicodedata

    from companion.dicestats import games_from_paths

    body = (
        '[Cults "Zoë Ben"]\n[Event "Cup\u2028final"]\n'
        "Zoë: I23E1I -> IÄÄ! Cthulhu! Fhtagn! place I23E\n"
    )
    (tmp_path / "nfd.txt").write_text(unicodedata.normalize("NFD", body), encoding="utf-8")
    (tmp_path / "bom.txt").write_text("\ufeff" + body, encoding="utf-8")
    games, aside = games_from_paths([str(tmp_path / "nfd.txt"), str(tmp_path / "bom.txt")])
    assert aside == [] and [g.rolls for g in games] == [[tuple("I23E1I")]] * 2
    assert games[0].tags["Event"] == "Cup\u2028final"
