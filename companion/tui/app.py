"""The secretary's Textual app, and the entry points of `play` and `demo`."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.timer import Timer

from ..demo import DemoSettings
from ..rules import Options
from ..secretary import Secretary
from ..vision.seen import Seen, TableCamera
from .host import VoiceListener
from .players import DemoPlayers
from .screens.info import HelpScreen, HistoryScreen
from .screens.phase import PhaseScreen
from .screens.rolloff import RollOffScreen
from .screens.setup import SetupScreen
from .session import TableSession


class CompanionApp(App[None]):
    """One game at the table: setup, roll-off, phases, end.

    ``camera`` None means manual mode. ``demo`` makes the simulated cults
    call by themselves; ``pace`` is the demo's seconds between steps.
    """

    CSS_PATH = "app.tcss"
    TITLE = "companion"
    ENABLE_COMMAND_PALETTE = False  # every action has its key; the help screen lists them
    BINDINGS = [
        Binding("ctrl+q", "quit", "quit", priority=True),
        Binding("f1", "help", "help", show=False),
        Binding("f2", "history", "history", show=False),
        Binding("space", "pause", "pause/go"),
        Binding("s", "step", "step"),
        Binding("plus", "fast", "fast/slow"),
    ]

    def __init__(
        self,
        secretary: Secretary,
        *,
        resumed: bool = False,
        camera: TableCamera | None = None,
        camera_status: str = "none: manual mode, the secretary keys every roll",
        demo: DemoPlayers | None = None,
        options: Options | None = None,
        cults: str = "",
        pace: float = 0.0,
        record_path: Path | None = None,
        tags: dict[str, str] | None = None,
        ansi: bool | None = None,
        listener: VoiceListener | None = None,
        notice: str = "",
    ) -> None:
        super().__init__(ansi_color=ansi)
        self.notice = notice
        self.listener = listener
        self.secretary = secretary
        self.resumed = resumed
        self.camera = camera
        self.camera_status = camera_status
        self.demo = demo
        self.options = options
        self.cults_default = cults
        self.pace = pace
        self.fast = False
        self.paused = False
        self.record_path = record_path
        self.tags = tags or {}
        self._session: TableSession | None = None
        self._phases_begun = False
        self._step: Callable[[], None] | None = None
        self._timer: Timer | None = None

    @property
    def session(self) -> TableSession:
        if self._session is None:
            raise RuntimeError("no game has been set up yet")
        return self._session

    def on_mount(self) -> None:
        # The database may be deleted, replaced or lose its log under the secretary: say so at once.
        self.set_interval(1.0, self._say_store_news)
        if self.resumed:  # the Secretary rebuilt the game from its events
            self._session = TableSession(self.secretary)
            if self.camera is not None:
                self.camera.set_cults(self._session.options.cults)
            if self._session.game.start_cult is None:
                self.push_screen(RollOffScreen())
            else:
                self._phases_begun = True
                self.push_screen(PhaseScreen())
        elif self.options is not None:
            self.start_game(self.options)
        else:
            self.push_screen(SetupScreen(self.camera_status, self.cults_default, self.notice))

    def _say_store_news(self) -> None:
        for sentence in self.secretary.store_news():
            self.notify(sentence, title="database", severity="error", timeout=24 * 3600)

    def on_unmount(self) -> None:
        # A camera worker may be waiting for a roll: stop it so quitting never hangs.
        if self.camera is not None:
            self.camera.close()
        if self.listener is not None:
            self.listener.stop()

    def start_game(self, options: Options) -> None:
        self._session = TableSession.new(self.secretary, options, self.tags)
        if self.camera is not None:
            self.camera.set_cults(options.cults)
        self._phases_begun = False
        if self.screen_stack and isinstance(self.screen, SetupScreen):
            self.switch_screen(RollOffScreen())
        else:
            self.push_screen(RollOffScreen())

    def begin_phases(self) -> None:
        if not self._phases_begun:
            self._phases_begun = True
            self.switch_screen(PhaseScreen())

    # ------------------------------------------------------------- record
    def record_text(self) -> str:
        return self.session.record_text() if self._session else ""

    def record_path_text(self) -> str | None:
        return str(self.record_path) if self.record_path else None

    def save_record(self) -> None:
        """Rewrite the record file after every event, so a crash loses at most one."""
        if self.record_path is not None:
            tmp = self.record_path.with_suffix(".tmp")
            tmp.write_text(self.session.record_text(), encoding="utf-8")
            os.replace(tmp, self.record_path)

    def export_evidence(self, seen: Seen | None, what: str) -> str:
        """The camera's frame of ``seen``, annotated, as a JPEG beside the database; a sentence."""
        from .evidence import NoEvidence, export_jpeg

        if seen is None:
            return "no camera frame yet: nothing to export"
        where = getattr(self.secretary.store, "path", None)
        folder = (Path(where).parent if where else Path.cwd()) / "evidence"
        game = self.secretary.game_id or 0
        try:
            path = export_jpeg(seen, folder, f"game{game}", header=f"game {game}: {what}")
        except NoEvidence as exc:
            return str(exc)
        except OSError as exc:
            return f"cannot write the frame to {folder}: {exc.strerror}"
        return f"the frame, annotated, was written to {path}"

    # -------------------------------------------------------- demo pacing
    def schedule(self, step: Callable[[], None], factor: float = 1.0) -> None:
        """Run ``step`` soon: at once by hand, after the demo's pace otherwise."""
        if self.demo is None or self.pace <= 0:
            self.call_later(step)
            return
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._step = step
        if not self.paused:
            delay = self.pace * factor / (10 if self.fast else 1)
            self._timer = self.set_timer(delay, self._fire)

    def _fire(self) -> None:
        step, self._step, self._timer = self._step, None, None
        if step is not None:
            step()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("pause", "step", "fast"):
            return self.demo is not None
        return True

    def action_pause(self) -> None:
        self.paused = not self.paused
        if self.paused and self._timer is not None:
            self._timer.stop()  # the step waits in _step for space or s
            self._timer = None
        if not self.paused and self._step is not None:
            self.schedule(self._step)
        self._redraw()

    def _redraw(self) -> None:
        redraw = getattr(self.screen, "refresh_view", None)
        if callable(redraw):
            redraw()

    def action_step(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._fire()

    def action_fast(self) -> None:
        self.fast = not self.fast
        self._redraw()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_history(self) -> None:
        if self._session is not None and not isinstance(self.screen, HistoryScreen):
            self.push_screen(HistoryScreen(self.record_text()))


def _ansi_console() -> bool | None:
    """The Pi's Linux console has 16 colours: use the terminal's own palette there."""
    return True if os.environ.get("TERM") == "linux" else None


def run_demo(settings: DemoSettings) -> int:
    """`companion demo` with a screen: a whole game on the simulated table.

    The game is kept by the Secretary in ``settings.db`` when given, otherwise in a
    throw-away database: a demo should not fill the table's standings.
    """
    import tempfile

    from ..demo import demo_tags
    from ..store.base import StoreError
    from .camera import SimulatedCamera
    from .vision_reader import vision_reader

    seed = settings.seed_or_default
    options = settings.options()
    cults = options.cults
    reader, how = vision_reader()
    with tempfile.TemporaryDirectory(prefix="companion-demo-") as tmp:
        db = settings.db or Path(tmp) / "demo.db"
        try:
            secretary = Secretary.open(db)
        except StoreError as exc:
            print(f"companion demo: {exc}", file=sys.stderr)
            return 2
        holder: list[CompanionApp] = []
        camera = SimulatedCamera(
            lambda: holder[0].session.game,
            seed,
            reader=reader,
            unreadable_rate=0.0 if reader else 0.04,
        )
        app = CompanionApp(
            secretary,
            camera=camera,
            camera_status=camera.name,
            demo=DemoPlayers(cults, seed),
            options=options,
            pace=settings.pace_or_default,
            tags=demo_tags(seed),
            ansi=_ansi_console(),
        )
        holder.append(app)
        app.sub_title = f"demo · {how}"
        try:
            app.run()
        finally:
            camera.close()
            secretary.close()
    # Textual sets return_code to 1 when the app stopped on an unhandled exception
    return app.return_code or 0
