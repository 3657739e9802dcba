"""Shared drivers for the TUI tests (no tests here)."""

from __future__ import annotations

import asyncio
import functools
import tempfile
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from companion.record.notation import StartRoll, Turn
from companion.record.simulate import STRATEGIES, play_game
from companion.rules import Options
from companion.secretary import Secretary
from companion.tui.app import CompanionApp

KEY = {"I": "i", "E": "e", "1": "1", "2": "2", "3": "3"}


def sync(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    """Run an async Pilot test without an asyncio pytest plugin."""

    @functools.wraps(test)
    def run() -> None:
        asyncio.run(test())

    return run


async def key_faces(pilot: Pilot[None], faces: str, enter: bool = True) -> None:
    for f in faces:
        await pilot.press(KEY[f])
    if enter:
        await pilot.press("enter")


# Every test's database lies under one folder, removed when the test process ends.
_DATABASES = tempfile.TemporaryDirectory(prefix="companion-tui-")


def secretary() -> Secretary:
    """A Secretary on a fresh database of its own."""
    return Secretary.open(Path(tempfile.mkdtemp(dir=_DATABASES.name)) / "games.db")


def manual_app(
    cults: tuple[str, ...] = ("Anna", "Ben"), target: int | None = None, **kw: Any
) -> CompanionApp:
    return CompanionApp(secretary(), options=Options.make(list(cults), target=target), **kw)


def played_to_the_end(app: CompanionApp, seed: int = 4) -> None:
    """Feed a seeded simulated game through the app's session, up to its end."""
    opts = app.session.options
    sim = play_game(opts, seed, {c: STRATEGIES["greedy"] for c in opts.cults})
    for ev in sim.events:
        if isinstance(ev, StartRoll):
            app.session.submit_start_roll(ev.cult, ev.faces)
        elif isinstance(ev, Turn):
            out = app.session.submit_turn(ev.cult, ev.roll, ev.action)
            assert out.accepted


async def rolloff(pilot: Pilot[None]) -> None:
    """Anna rolls tentacle sum 6, Ben 3: Anna is the start cult (ST1)."""
    await key_faces(pilot, "3I21EI")
    await key_faces(pilot, "1IE2II")
    await pilot.pause()
