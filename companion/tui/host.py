"""What the screens use of the app, as a Protocol: the screens never import the app.

The app (tui/app.py) imports the screens to push them; a screen reaches the
game, the camera and the demo's pace through ``host_of(self.app)``, which
checks the app against this Protocol instead of importing its class (no
import circle between the app and its screens).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Protocol, cast

from textual.app import App

from ..rules import Options
from ..vision.seen import Seen, TableCamera
from .players import DemoPlayers
from .session import TableSession


class VoiceListener(Protocol):
    """What the screens use of companion.voice.listen.Listener (an optional extra)."""

    def start_turn(self, roll: tuple[str, ...] | None, layout: tuple[str, ...] | None) -> None: ...
    def end_turn(self) -> None: ...
    def push_to_talk(self, pressed: bool) -> None: ...
    def stop(self) -> None: ...


class Host(Protocol):
    """The game at the table as the screens see it: session, camera, demo and record."""

    camera: TableCamera | None
    demo: DemoPlayers | None
    listener: VoiceListener | None
    paused: bool
    fast: bool

    @property
    def session(self) -> TableSession: ...
    def schedule(self, step: Callable[[], None], factor: float = 1.0) -> None: ...
    def save_record(self) -> None: ...
    def record_text(self) -> str: ...
    def record_path_text(self) -> str | None: ...
    def export_evidence(self, seen: Seen | None, what: str) -> str: ...
    def start_game(self, options: Options) -> None: ...
    def begin_phases(self) -> None: ...


_MEMBERS = tuple(
    sorted(
        {
            *Host.__annotations__,
            *(
                n
                for n, v in vars(Host).items()
                if not n.startswith("_") and (callable(v) or isinstance(v, property))
            ),
        }
    )
)


def host_of(app: App[Any]) -> Host:
    """The running app as a Host (every screen runs inside the companion app).

    Checked member by member without calling them (``session`` refuses to be
    read before a game is set up), as runtime protocols do from Python 3.12.
    """
    missing = [m for m in _MEMBERS if not _has(app, m)]
    if missing:
        raise TypeError(
            f"{type(app).__name__} is not the companion app: it has no {', '.join(missing)}"
        )
    return cast(Host, app)


def _has(obj: object, name: str) -> bool:
    try:
        inspect.getattr_static(obj, name)
    except AttributeError:
        return False
    return True
