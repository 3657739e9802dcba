"""Pilot-driven games of the secretary: manual, with the simulated camera, and the demo."""

from __future__ import annotations

from typing import NoReturn

from textual.widgets import Input

from companion.record.replay import replay_text
from companion.rules import Options
from companion.secretary import Secretary
from companion.tui.app import CompanionApp
from companion.tui.camera import SimulatedCamera
from companion.tui.players import DemoPlayers
from companion.tui.screens.info import EndScreen, HistoryScreen
from companion.tui.screens.modals import ChoiceScreen, DisputeScreen, ScoringScreen
from companion.tui.screens.phase import PhaseScreen
from companion.tui.screens.setup import SetupScreen

from .test_tui_support import key_faces, manual_app, rolloff, secretary, sync


@sync
async def test_manual_phase_is_played_and_scored() -> None:
    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        g = app.session.game
        assert isinstance(app.screen, PhaseScreen)
        assert g.start_cult == "Anna" and g.to_move == "Anna"
        await key_faces(pilot, "I3EEEI")
        for k in "icf":
            await pilot.press(k)
        await pilot.press("enter")
        await pilot.pause()
        assert g.layouts["Anna"] == ["I", "3", "E"]
        assert g.held == {"Anna"} and g.center == 1 + 3  # E1: the rest of the pool
        verdict = str(app.screen.query_one("#verdict").render())
        assert "LEGAL" in verdict and "K11" in verdict and "doubler stone" in verdict
        await key_faces(pilot, "I1EEEE")
        for k in "icf":
            await pilot.press(k)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ScoringScreen)
        assert g.totals == {"Anna": 6, "Ben": 2}  # SC1, SC2: 3×1×2 and 1×1×2
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PhaseScreen)
        assert g.phase == 2 and g.to_move == "Ben"  # ST3
        record = app.record_text()
        assert "Anna: 3EEEII -> IÄÄ! Cthulhu! Fhtagn! place I3E" not in record  # the roll as keyed
        assert "Anna: I3EEEI -> IÄÄ! Cthulhu! Fhtagn! place I3E" in record
        assert replay_text(record).ok


@sync
async def test_illegal_call_shows_rule_and_legal_calls_then_recall() -> None:
    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "123EEE")
        await pilot.press("c", "enter")
        await pilot.pause()
        g = app.session.game
        verdict = str(app.screen.query_one("#verdict").render())
        assert "ILLEGAL D2" in verdict and "give up 1 or 2 or 3 or E" in verdict
        assert g.pools["Anna"] == 6 and g.to_move == "Anna"  # V2: nothing was played
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("down", "enter")  # the second legal action: give up 2
        await pilot.pause()
        assert g.pools["Anna"] == 5 and g.center == 2 and g.to_move == "Ben"
        record = app.record_text()
        assert "# Anna: 123EEE -> Cthulhu! place 123   # illegal call, not played: D2" in record
        assert "Anna: 123EEE -> give 2" in record


@sync
async def test_give_up_key_and_t3() -> None:
    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I23EEE")
        await pilot.press("g", "e")
        await pilot.pause()
        assert "ILLEGAL T3" in str(app.screen.query_one("#verdict").render())
        assert app.session.game.pools["Anna"] == 6


@sync
async def test_correction_is_a_new_event_in_the_history() -> None:
    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I22EEE")
        await pilot.press("i", "enter")  # K1: one way only
        await pilot.pause()
        g = app.session.game
        assert g.layouts["Anna"] == ["I"] and g.to_move == "Ben"
        await pilot.press("x")  # the call was really IÄÄ! Cthulhu! with both 2s
        await pilot.press("enter", "i", "c", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        ways = [str(a) for a in app.screen.actions]
        await pilot.press(*["down"] * ways.index("IÄÄ! Cthulhu! place I22"), "enter")
        await pilot.pause()
        g = app.session.game
        assert g.layouts["Anna"] == ["I", "2", "2"] and g.pools["Anna"] == 3
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        record = app.record_text()
        assert (
            "Anna: I22EEE -> IÄÄ! Cthulhu! place I22   # corrected: was I22EEE -> IÄÄ! place I"
            in record
        )
        assert "Anna: I22EEE -> IÄÄ! place I\n" not in record
        assert replay_text(record).ok


@sync
async def test_setup_screen_starts_a_game_and_reports_bad_settings() -> None:
    app = CompanionApp(secretary())
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, SetupScreen)
        await pilot.press(*"Anna", "enter")
        await pilot.pause()
        assert "C1" in str(app.screen.query_one("#error").render())
        await pilot.press(*" Ben Cleo", "enter")
        await pilot.pause()
        opts = app.session.options
        assert opts.cults == ("Anna", "Ben", "Cleo") and opts.target == 150 and opts.sets == 1


@sync
async def test_setup_takes_a_decomposed_name_as_replay_reads_it() -> None:
    # macOS types "Zoë" as Zo + a combining diaeresis: a name, written in NFC
    app = CompanionApp(secretary())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        screen.query_one("#cults", Input).value = "Zo\u0308e Ben"
        screen.action_start()
        await pilot.pause()
        assert app.session.options.cults == ("Z\u00f6e", "Ben")


@sync
async def test_simulated_camera_unread_dice_are_keyed_by_the_secretary() -> None:
    holder: list[CompanionApp] = []
    cam = SimulatedCamera(lambda: holder[0].session.game, seed=3, unreadable_rate=1.0)
    app = manual_app(camera=cam, camera_status=cam.name)
    holder.append(app)
    async with app.run_test(size=(80, 24)) as pilot:
        for faces in ("333III", "111III"):  # the roll-off: every die comes back '?'
            await pilot.pause(0.05)
            assert app.screen.entry.text() == "? ? ? ? ? ?"  # type: ignore[attr-defined]
            await key_faces(pilot, faces)
        await pilot.pause(0.05)
        g = app.session.game
        assert g.start_cult == "Anna"
        scr = app.screen
        assert isinstance(scr, PhaseScreen) and scr.stage == "roll"
        assert "could not read 6 dice" in str(scr.query_one("#status").render())
        await key_faces(pilot, "I1EEEE")
        assert scr.stage == "call" and scr.entry.roll == tuple("I1EEEE")


@sync
async def test_camera_dispute_is_shown_and_recorded() -> None:
    holder: list[CompanionApp] = []
    cam = SimulatedCamera(lambda: holder[0].session.game, seed=5)
    app = manual_app(camera=cam, camera_status=cam.name)
    holder.append(app)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):  # the camera reads the roll-off and the first roll
            await pilot.pause(0.02)
            if isinstance(app.screen, PhaseScreen) and app.screen.stage == "call":
                break
        scr = app.screen
        assert isinstance(scr, PhaseScreen) and scr.stage in ("call", "roll")
        g = app.session.game
        roll = scr.entry.roll
        cult = scr.cult
        legal = [a for a in g.legal_actions(roll, cult) if getattr(a, "place", ())]
        assert legal, "the seeded roll must allow a placing call for this test to mean anything"
        cam.misplace[cult] = ("3",)
        scr.submit(legal[0])
        await pilot.pause(0.1)
        assert isinstance(app.screen, DisputeScreen)
        await pilot.press("a")
        await pilot.pause(0.1)
        lines = app.record_text().splitlines()
        note = next(
            i
            for i, ln in enumerate(lines)
            if ln.startswith(f"# dispute after {cult}'s turn in phase 1")
        )
        assert f"the camera saw 3 in {cult}'s layout where the rules have" in lines[note]
        assert "not seen:" in lines[note] and "the rules stand" in lines[note]
        assert lines[note - 1].startswith(
            f"{cult}: "
        )  # in its place: right after the turn it is about
        assert g.to_move != cult or g.phase == 2


@sync
async def test_demo_plays_a_whole_game_with_the_simulated_camera() -> None:
    cults = ("Anna", "Ben", "Cleo")
    holder: list[CompanionApp] = []
    cam = SimulatedCamera(lambda: holder[0].session.game, seed=2, unreadable_rate=0.05)
    app = CompanionApp(
        secretary(),
        camera=cam,
        demo=DemoPlayers(cults, 2, mistake_rate=0.1),
        options=Options.make(cults, target=30),
        pace=0.0,
    )
    holder.append(app)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(400):
            await pilot.pause(0.02)
            if isinstance(app.screen, EndScreen):
                break
        assert isinstance(app.screen, EndScreen)
        g = app.session.game
        assert g.finished and g.winners
        record = app.record_text()
        result = replay_text(record)
        assert result.ok and result.game is not None and result.game.finished
        assert result.game.totals == g.totals and result.game.winners == g.winners
        assert "illegal call, not played" in record  # the demo shows a verdict now and then


@sync
async def test_forfeit_house_rule_makes_the_cult_give_up_a_die() -> None:
    app = CompanionApp(secretary(), options=Options.make(["Anna", "Ben"], illegal_call="forfeit"))
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I23EEE")
        await pilot.press("c", "enter")  # D2: no I in the layout
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, PhaseScreen) and scr.stage == "forfeit"
        await pilot.press("3")
        await pilot.pause()
        g = app.session.game
        assert g.pools["Anna"] == 5 and g.center == 2 and g.to_move == "Ben"
        assert "Anna: I23EEE -> give 3   # forfeit after an illegal call (V2)" in app.record_text()


@sync
async def test_tie_in_the_rolloff_is_rolled_again() -> None:
    app = manual_app(("Anna", "Ben", "Cleo"))
    async with app.run_test(size=(80, 24)) as pilot:
        await key_faces(pilot, "3I21EI")
        await key_faces(pilot, "33EEII")
        await key_faces(pilot, "1IE2II")
        status = str(app.screen.query_one("#status").render())
        assert "tie: Anna and Ben roll again (ST2)" in status
        await key_faces(pilot, "111EEE")
        await key_faces(pilot, "2EEEEE")
        await pilot.pause()
        assert app.session.game.start_cult == "Anna"
        assert isinstance(app.screen, PhaseScreen)


@sync
async def test_a_game_resumes_where_it_stopped() -> None:
    app = manual_app()
    db = app.secretary.store.path  # type: ignore[attr-defined]
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I22EEE")
        await pilot.press("i", "enter")
        await pilot.pause()
    app.secretary.close()
    sec = Secretary.open(db)
    info = sec.unfinished_game()
    assert info is not None
    sec.resume(info.id)
    again = CompanionApp(sec, resumed=True)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        g = again.session.game
        assert isinstance(again.screen, PhaseScreen)
        assert g.layouts["Anna"] == ["I"] and g.to_move == "Ben" and again.screen.cult == "Ben"


def test_quitting_while_the_camera_waits_does_not_hang() -> None:
    """The camera's worker thread is joined when the event loop closes: it must end on quit."""
    import asyncio
    import time

    holder: list[CompanionApp] = []
    cam = SimulatedCamera(lambda: holder[0].session.game, seed=1, delay=30.0)  # nobody rolls
    app = manual_app(camera=cam, camera_status=cam.name)
    holder.append(app)

    async def quit_while_waiting() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            assert app.screen.stage == "wait"  # type: ignore[attr-defined]
            await pilot.press("ctrl+q")

    start = time.monotonic()
    asyncio.run(quit_while_waiting())
    assert time.monotonic() - start < 15


@sync
async def test_a_turn_the_database_refuses_is_said_on_screen_and_not_accepted() -> None:
    from companion.store.base import StoreError

    app = manual_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        g = app.session.game

        def refuse(*_args: object, **_kw: object) -> NoReturn:
            raise StoreError("the database cannot be written: disk I/O error")

        app.secretary.store.append = refuse  # type: ignore[method-assign]
        await key_faces(pilot, "I3EEEI")
        for k in "icf":
            await pilot.press(k)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PhaseScreen)  # the app goes on
        assert "NOT STORED" in app.screen.status and "disk I/O error" in app.screen.status
        assert g.layouts["Anna"] == [] and g.to_move == "Anna"  # nothing was accepted
        assert any("disk I/O error" in n.message for n in app._notifications)
