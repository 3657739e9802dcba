"""SVG snapshots of every screen at 80×24 and 120×40 (pytest-textual-snapshot).

Update the golden files after a deliberate change with
``pytest tests/test_tui_snapshots.py --snapshot-update`` and look at them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import pytest
from textual.pilot import Pilot

from companion.rules import Options
from companion.tui.app import CompanionApp
from companion.tui.camera import SimulatedCamera
from companion.tui.players import DemoPlayers
from companion.tui.screens.modals import DisputeScreen
from companion.tui.screens.phase import PhaseScreen
from companion.vision.seen import ROLLING_AREA, Seen, SeenDie, TableZone

from .test_tui_support import key_faces, manual_app, played_to_the_end, rolloff, secretary

pytest.importorskip("pytest_textual_snapshot")
pytestmark = pytest.mark.slow

Before = Callable[[Pilot[None]], Awaitable[None]]
CULTS = ("Anna", "Ben", "Cleo")


async def _rolloff3(pilot: Pilot[None]) -> None:
    await key_faces(pilot, "3I21EI")
    await key_faces(pilot, "1IE2II")
    await key_faces(pilot, "333EEI")
    await pilot.pause()


async def rolloff_tie(pilot: Pilot[None]) -> None:
    await key_faces(pilot, "3I21EI")
    await key_faces(pilot, "33EEII")
    await key_faces(pilot, "1IE2II")
    await key_faces(pilot, "32", enter=False)


async def phase(pilot: Pilot[None]) -> None:
    await _rolloff3(pilot)  # Cleo: 9, the start cult
    await key_faces(pilot, "I23E1I")
    await pilot.press("i", "c", "enter")
    await pilot.pause()
    await pilot.press("i", "2", "3", "enter")  # the placed dice typed: IÄÄ! Cthulhu! place I23
    await key_faces(pilot, "EE1", enter=False)


async def phase_six(pilot: Pilot[None]) -> None:
    for faces in ("3I21EI", "1IE2II", "333EEI", "2EEEEE", "11IIEE", "3EEEEE"):
        await key_faces(pilot, faces)  # Cleo: 9, the start cult
    await key_faces(pilot, "I23E1I")
    await pilot.press("i", "c", "f", "enter")
    await pilot.pause()
    await pilot.press("i", "3", "e", "enter")  # IÄÄ! Cthulhu! Fhtagn! place I3E, typed
    await key_faces(pilot, "I2", enter=False)


async def illegal(pilot: Pilot[None]) -> None:
    await _rolloff3(pilot)
    await key_faces(pilot, "123EEE")
    await pilot.press("c", "f", "enter")


async def legal_list(pilot: Pilot[None]) -> None:
    await _rolloff3(pilot)
    await key_faces(pilot, "I12EEE")
    await pilot.press("l")


async def scoring(pilot: Pilot[None]) -> None:
    await rolloff(pilot)
    await key_faces(pilot, "I3EEEI")
    await pilot.press("i", "c", "f", "enter")
    await key_faces(pilot, "I1EEEE")
    await pilot.press("i", "c", "f", "enter")


async def history(pilot: Pilot[None]) -> None:
    await phase(pilot)
    await pilot.press("backspace", "backspace", "backspace")
    await key_faces(pilot, "123EE")
    await pilot.press("c", "enter")
    await pilot.press("h")


async def help_keys(pilot: Pilot[None]) -> None:
    await pilot.press("question_mark")


async def end(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, CompanionApp)
    played_to_the_end(app)
    app.begin_phases()
    await pilot.pause()


async def dispute(pilot: Pilot[None]) -> None:
    await phase(pilot)
    pilot.app.push_screen(DisputeScreen("Cleo", ("I", "2", "3"), ("I", "2", "2")))
    await pilot.pause()


async def setup_still(pilot: Pilot[None]) -> None:
    """The setup form with its cursor held visible: a blinking cursor (every 0.5 s) made the
    snapshot depend on how busy the machine was."""
    from textual.widgets import Input

    await pilot.pause()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


def demo_app() -> CompanionApp:
    holder: list[CompanionApp] = []
    cam = SimulatedCamera(lambda: holder[0].session.game, seed=2)
    app = CompanionApp(
        secretary(),
        camera=cam,
        camera_status=cam.name,
        demo=DemoPlayers(CULTS, 2),
        options=Options.make(list(CULTS), target=60),
        pace=60.0,
    )
    app.paused = True  # the test steps it: no timer decides what is on screen
    holder.append(app)
    return app


async def demo_steps(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, CompanionApp)
    for _ in range(24):
        for _ in range(200):  # the camera worker's reading arrives as a message
            await pilot.pause(0.01)
            if app._step is not None:
                break
        await pilot.press("s")
    await pilot.pause()


class KnownCamera:
    """A camera that always reads the same table: dice at known places, one of them unreadable."""

    name = "known table"

    def __init__(self) -> None:
        layout = (
            SeenDie(110, 265, "I", 0.99, TableZone.layout(1)),
            SeenDie(135, 268, "3", 0.97, TableZone.layout(1)),
            SeenDie(380, 130, "E", 0.95, TableZone.layout(3)),
        )
        roll = (
            SeenDie(95, 95, "I", 0.99, ROLLING_AREA),
            SeenDie(160, 120, "2", 0.97, ROLLING_AREA),
            SeenDie(300, 90, "?", 0.31, ROLLING_AREA),
            SeenDie(250, 200, "E", 0.96, ROLLING_AREA),
            SeenDie(110, 190, "1", 0.98, ROLLING_AREA),
            SeenDie(320, 180, "3", 0.99, ROLLING_AREA),
        )
        self.seen = Seen(tuple(d.face for d in roll), {}, None, self.name, roll + layout)
        self.rolls = 0

    def read_roll(self, cult: str, n: int) -> Seen:
        self.rolls += 1
        if self.rolls <= 3:  # the roll-off: Cleo's 9 beats 6 and 3 (ST1)
            return Seen(tuple(("3I21EI", "1IE2II", "333EEI")[self.rolls - 1]), {}, None, self.name)
        return self.seen

    def read_table(self, lying: Mapping[str, tuple[str, ...]] | None = None) -> Seen:
        return self.seen

    def set_cults(self, cults: tuple[str, ...]) -> None:
        pass

    def close(self) -> None:
        pass


def map_app() -> CompanionApp:
    cam = KnownCamera()
    return CompanionApp(
        secretary(), camera=cam, camera_status=cam.name, options=Options.make(list(CULTS))
    )


async def map_read(pilot: Pilot[None]) -> None:
    for _ in range(100):
        await pilot.pause(0.02)
        if isinstance(pilot.app.screen, PhaseScreen) and pilot.app.screen.stage == "roll":
            break
    await pilot.press("right")  # pick the first die on the map


SCREENS: dict[str, tuple[Callable[[], CompanionApp], Before]] = {
    "map_read": (map_app, map_read),
    "setup": (lambda: CompanionApp(secretary(), cults="Anna Ben Cleo"), setup_still),
    "rolloff": (lambda: manual_app(CULTS), rolloff_tie),
    "phase": (lambda: manual_app(CULTS), phase),
    "phase_six_cults": (
        lambda: manual_app(("Anna", "Ben", "Cleo", "Dora", "Emil", "Fay")),
        phase_six,
    ),
    "verdict_illegal": (lambda: manual_app(CULTS), illegal),
    "legal_calls": (lambda: manual_app(CULTS), legal_list),
    "scoring": (lambda: manual_app(), scoring),
    "end": (lambda: manual_app(CULTS, target=40), end),
    "history": (lambda: manual_app(CULTS), history),
    "help": (lambda: manual_app(CULTS), help_keys),
    "dispute": (lambda: manual_app(CULTS), dispute),
    "demo": (demo_app, demo_steps),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("name", list(SCREENS))
def test_screen_snapshot(snap_compare: Any, name: str, size: tuple[int, int]) -> None:
    make, before = SCREENS[name]
    assert snap_compare(make(), terminal_size=size, run_before=before)
