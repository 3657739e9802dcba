"""The table map and the roll before the call: drawn from a known read, corrected, typed,
exported."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.store.base import Kind
from companion.tui.app import CompanionApp
from companion.tui.camera import SimulatedCamera
from companion.tui.evidence import NoEvidence, annotate
from companion.tui.screens.info import EndScreen
from companion.tui.screens.modals import ChoiceScreen, ScoringScreen
from companion.tui.screens.phase import PhaseScreen
from companion.tui.screens.setup import SetupScreen
from companion.tui.tablemap import (
    STYLE_PICKED,
    STYLE_UNKNOWN,
    MapView,
    TableMap,
    map_text,
    mat_zones,
)
from companion.vision.mat import mat_geometry
from companion.vision.seen import ROLLING_AREA, Seen, SeenDie, TableZone

from .test_tui_support import key_faces, manual_app, played_to_the_end, rolloff, secretary, sync

CULTS = ("Anna", "Ben", "Cleo")


def _lines(text: object) -> list[str]:
    return str(text).splitlines()


def _style_at(text: object, row: int, col: int) -> str:
    """The style of one cell of a map drawn as Rich Text."""
    from rich.text import Text

    assert isinstance(text, Text)
    lines = text.split("\n")
    line = lines[row]
    styles = [str(s.style) for s in line.spans if s.start <= col < s.end]
    return styles[-1] if styles else ""


def test_zones_are_the_printed_mats() -> None:
    for paper in ("A3", "A2"):
        for n in range(2, 7):
            zones = mat_zones(paper, n)
            vision = mat_geometry(paper).zones(n)
            assert [(z.kind, z.seat) for z in zones] == [(z.kind, z.cult) for z in vision]


def test_map_draws_a_known_read_in_place() -> None:
    # A3 mat drawn 84 × 30 cells (5 mm a column, 10 mm a row):
    # die (x, y) mm lands in cell (y//10, x//5).
    layout = (
        SeenDie(120.0, 270.0, "I", 0.99, TableZone.layout(1)),
        SeenDie(140.0, 270.0, "2", 0.98, TableZone.layout(1)),
        SeenDie(380.0, 150.0, "?", 0.30, TableZone.layout(3)),
    )
    view = MapView(
        cults=CULTS,
        roll=("3", "?", "E"),
        roll_at=((100.0, 100.0), (300.0, 100.0), (200.0, 200.0)),
        layout_dice=layout,
        center=4,
        to_move="Anna",
        picked=2,
    )
    text, cells = map_text(view, 84, 30)
    rows = _lines(text)
    assert len(rows) == 30 and all(len(r) == 84 for r in rows)
    assert (
        rows[10][20] == "3" and rows[10][60] == "?" and rows[20][40] == "E"
    )  # the roll, where it lies
    assert (
        rows[27][24] == "I" and rows[27][28] == "2" and rows[15][76] == "?"
    )  # Anna's and Cleo's layouts
    assert cells == {0: (10, 20), 1: (10, 60), 2: (20, 40)}
    assert _style_at(text, 10, 60) == STYLE_UNKNOWN and _style_at(text, 15, 76) == STYLE_UNKNOWN
    assert _style_at(text, 20, 40) == STYLE_PICKED
    joined = "\n".join(rows)
    for label in ("[Anna]", "[Ben]", "[center 4]"):
        assert label in joined
    assert "[Cleo" in joined  # a side layout is narrow: its name may be cut


def test_map_without_camera_lays_out_the_rules_view_and_never_hides_a_die() -> None:
    view = MapView(
        cults=CULTS,
        roll=tuple("I23E1I"),
        layouts={"Anna": tuple("I3E"), "Ben": (), "Cleo": tuple("I1122333")},
    )
    for size in ((40, 10), (80, 7), (56, 20)):
        text, cells = map_text(view, *size)
        body = "".join(_lines(text))
        assert sum(body.count(f) for f in "I123E") >= 6 + 3 + 8 - 2  # zone labels hold letters too
        assert len(cells) == 6 and len(set(cells.values())) == 6  # every roll die has its own cell
    text, _ = map_text(view, 4, 2)
    assert "too small" in str(text)


def test_annotated_evidence_marks_each_die() -> None:
    frame = np.full((480, 640, 3), 128, np.uint8)
    seen = Seen(
        ("I", "?"),
        dice=(
            SeenDie(0, 0, "I", 0.9, ROLLING_AREA, 200, 200),
            SeenDie(0, 0, "?", 0.2, ROLLING_AREA, 400, 300),
        ),
        frame=frame,
    )
    img = annotate(seen, "game 1: dispute")
    assert img.shape == frame.shape and not np.shares_memory(img, frame)
    box_i = img[185:216, 185:216].reshape(-1, 3)
    box_q = img[285:316, 385:416].reshape(-1, 3)
    assert any(tuple(p) == (60, 200, 60) for p in box_i)  # green: read
    assert any(tuple(p) == (40, 40, 230) for p in box_q)  # red: unreadable
    assert (frame == 128).all()  # the kept frame is not drawn on
    with pytest.raises(NoEvidence):
        annotate(Seen(("I",)))


@sync
async def test_roll_is_edited_before_the_call() -> None:
    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        scr = app.screen
        assert isinstance(scr, PhaseScreen)
        await key_faces(pilot, "I23E11")  # the last die was really an IÄÄ!
        assert scr.stage == "call" and "key the call" in scr.status
        assert "key them in" not in scr.status  # the roll line is not stale
        await pilot.press("escape")
        assert scr.stage == "roll"
        await pilot.press("backspace", "i", "enter")
        assert scr.stage == "call" and scr.entry.roll == tuple("I23E1I")
        await pilot.press("i")
        await pilot.press("backspace", "backspace")  # a word, then nothing: back to the roll
        assert scr.stage == "roll" and scr.call.words == []
        await pilot.press("left", "3")  # pick the last die on the map, key its motif
        assert scr.entry.roll == tuple("I23E13") and scr.roll.picked is None
        await pilot.press("left", "i", "enter", "i", "enter")
        await pilot.pause()
        assert app.session.game.layouts["Anna"] == ["I"]
        assert "Anna: I23E1I -> IÄÄ! place I" in app.record_text()


@sync
async def test_a_misread_die_is_corrected_on_the_map_and_the_read_is_kept() -> None:
    holder: list[CompanionApp] = []
    cam = SimulatedCamera(lambda: holder[0].session.game, seed=5)
    app = manual_app(camera=cam, camera_status=cam.name)
    holder.append(app)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.02)
            if isinstance(app.screen, PhaseScreen) and app.screen.stage == "call":
                break
        scr = app.screen
        assert isinstance(scr, PhaseScreen) and scr.stage == "call"
        read = scr.entry.roll
        other = "E" if read[0] != "E" else "1"
        await pilot.press("right")  # from the call straight to the first die on the map
        assert scr.stage == "roll" and scr.roll.picked == 0
        assert scr.query_one("#map", TableMap).view is not None
        await pilot.press({"E": "e", "1": "1"}[other], "enter")
        keyed = (other, *read[1:])
        assert scr.entry.roll == keyed
        legal = app.session.game.legal_actions(keyed, scr.cult)
        scr.submit(legal[0])
        await pilot.pause(0.2)
        sec = app.secretary
        ev = next(e for e in reversed(sec.events) if e.kind in (Kind.TURN, Kind.ILLEGAL))
        assert f": {''.join(keyed)} ->" in ev.text  # the event holds the roll as keyed
        kept = sec.store.evidence(sec.game_id or 0, ev.seq)
        assert kept is not None and kept.dice == {
            "read": list(read),
            "corrected": [{"die": 1, "read": read[0], "keyed": other}],
        }


@sync
async def test_the_last_turn_is_corrected_from_the_map_as_a_correction_event() -> None:
    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I22EE1")
        await pilot.press("i", "enter")
        await pilot.pause()
        await pilot.press("x")  # the last die was a 2, not a 1
        scr = app.screen
        assert isinstance(scr, PhaseScreen) and scr.correcting and scr.stage == "roll"
        await pilot.press("left", "2", "enter", "i", "c", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("i", "2", "2", "2", "enter")
        await pilot.pause()
        assert app.session.game.layouts["Anna"] == ["I", "2", "2", "2"]
        corr = [e for e in app.secretary.events if e.kind is Kind.CORRECT]
        assert len(corr) == 1 and corr[0].text == "Anna: I22EE2 -> IÄÄ! Cthulhu! place I222"
        assert "# corrected: was I22EE1 -> IÄÄ! place I" in app.record_text()


@sync
async def test_placed_dice_are_typed_and_the_list_is_largest_first() -> None:
    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I123EE")
        await pilot.press("i", "c", "enter")
        await pilot.pause()
        choice = app.screen
        assert isinstance(choice, ChoiceScreen) and choice.typed
        places = ["".join(a.place) for a in choice.actions]  # type: ignore[union-attr]
        assert places[0] == "I123" and [len(p) for p in places] == sorted(
            map(len, places), reverse=True
        )
        await pilot.press("3", "i")
        assert "placed: I 3" in str(choice.query_one("#typed").render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.game.layouts["Anna"] == ["I", "3"]
        assert isinstance(app.screen, PhaseScreen)


@sync
async def test_stale_lines_are_gone() -> None:
    app = CompanionApp(
        secretary(), notice="--resume: games.db holds no unfinished game, so this is a new one"
    )
    async with app.run_test(size=(80, 24)) as pilot:
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        assert "no unfinished game" in str(setup.query_one("#notice").render())
        await pilot.press(*"Anna Ben")
        assert "target 150 (the rulebook's" in str(setup.query_one("#sets").render())
        await pilot.press("tab", "9", "0")
        sets = str(setup.query_one("#sets").render())
        assert "target 90" in sets and "150" not in sets
    app = manual_app(target=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I3EEEI")
        await pilot.press("i", "c", "f", "enter")
        await key_faces(pilot, "I1EEEE")
        await pilot.press("i", "c", "f", "enter")
        await pilot.pause()
        scoring = app.screen
        assert isinstance(scoring, ScoringScreen) and app.session.game.finished
        assert "enter: the end of the game" in " ".join(
            str(s.render()) for s in scoring.query(".hint")
        )
        await pilot.press("enter")
        await pilot.pause()
        end = app.screen
        assert isinstance(end, EndScreen)
        assert (
            end.dice
            and end.dice[0].dice == 6 + 6 + 6 + 6
            and end.dice[0].verdict.startswith("too few")
        )


@sync
async def test_the_end_screen_shows_the_dice_statistics() -> None:
    app = manual_app(CULTS, target=40)
    async with app.run_test(size=(120, 40)) as pilot:
        played_to_the_end(app)
        app.begin_phases()
        await pilot.pause()
        end = app.screen
        assert isinstance(end, EndScreen)
        names = [g.name for g in end.dice]
        assert names[0] == "the game" and set(names[1:]) == set(CULTS)
        assert end.dice[0].dice == sum(g.dice for g in end.dice[1:])
        hints = " ".join(str(h.render()) for h in end.query(".hint"))
        assert f"the dice: {end.dice[0].verdict}" in hints and "IÄÄ! on 2 faces of 6" in hints


def test_evidence_json_of_a_plain_read_stays_a_list() -> None:
    from companion.tui.session import _evidence

    plain = _evidence(tuple("I23"), tuple("I23"))
    assert plain is not None and plain.dice == ["I", "2", "3"]
    fixed = _evidence(tuple("I?3"), tuple("I23"))
    assert fixed is not None and json.loads(fixed.dice_json())["corrected"] == [
        {"die": 2, "keyed": "2", "read": "?"}
    ]
    assert _evidence(None) is None


def test_map_uses_only_the_consoles_sixteen_colours() -> None:
    from rich.style import Style

    from companion.tui import tablemap

    for name in (
        "STYLE_CENTER",
        "STYLE_LAYOUT",
        "STYLE_TO_MOVE",
        "STYLE_DIE",
        "STYLE_UNKNOWN",
        "STYLE_PICKED",
    ):
        style = Style.parse(getattr(tablemap, name))
        for colour in (style.color, style.bgcolor):
            assert colour is None or (colour.number is not None and colour.number < 16), name


@sync
async def test_a_click_on_the_map_picks_a_die() -> None:
    app = manual_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I23E1", enter=False)
        scr = app.screen
        assert isinstance(scr, PhaseScreen)
        table_map = scr.query_one("#map", TableMap)
        await pilot.pause()
        row, col = table_map.cells[2]
        inner, outer = table_map.content_region, table_map.region  # the wide map has a border
        await pilot.click("#map", offset=(col + inner.x - outer.x, row + inner.y - outer.y))
        assert scr.roll.picked == 2
        await pilot.press("1")
        assert scr.entry.roll == tuple("I21E1")
