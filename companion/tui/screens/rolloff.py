"""The start-cult roll-off (ST1, ST2): every cult rolls 6 dice, ties roll again."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Footer, Static

from ...rules import RuleError
from ...rules.game import count_score
from ...store.base import StoreError
from ..demo_driver import DemoDriver, TurnView
from ..entry import RollEntry
from ..messages import CameraFailed, RollKeyed, RollSeen
from ..turn_lines import Stage
from .table_screen import TableScreen


class RollOffScreen(TableScreen):
    BINDINGS = [Binding("question_mark", "app.help", "help")]

    stage: reactive[Stage] = reactive(Stage.WAIT, always_update=True, repaint=False)

    def __init__(self) -> None:
        super().__init__()
        self.cult = ""
        self.entry = RollEntry(6)
        self._driver: DemoDriver | None = None
        self._truth: tuple[str, ...] | None = None  # what was rolled, on the simulated table
        self.status = ""
        self.seen: tuple[str, ...] | None = None  # the camera's reading, kept as evidence

    def compose(self) -> ComposeResult:
        yield Static(
            Text("Who starts? Every cult rolls its 6 dice (ST1)", style="bold"), id="title"
        )
        yield Static(Text(self.app.sub_title, style="italic"), id="mode")
        yield Static(id="rounds")
        yield Static(id="roll")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        host = self.host
        if host.demo is not None:
            self._driver = DemoDriver(host.demo, host.schedule, self.post_message, self.app)
        self.next_roller()

    def watch_stage(self, stage: Stage) -> None:
        if self._driver is not None:
            self._driver.at(
                stage,
                TurnView(
                    self.host.session.game, self.cult, tuple(self.entry.faces), 6, self._truth
                ),
            )

    def _rounds_table(self) -> Table:
        g = self.host.session.game
        rule = g.options.start_rule
        t = Table(box=None, header_style="bold")
        t.add_column("cult")
        rounds = g.rolloff.rounds if g.rolloff else [{}]
        for n in range(len(rounds)):
            t.add_column(f"round {n + 1}" if len(rounds) > 1 else "roll", no_wrap=True)
        for c in g.cults:
            cells = []
            for rnd in rounds:
                faces = rnd.get(c)
                cells.append(f"{''.join(faces)} = {count_score(faces, rule)}" if faces else "")
            mark = " (start cult)" if c == g.start_cult else ""
            t.add_row(c + mark, *cells)
        return t

    def refresh_view(self) -> None:
        self.query_one("#rounds", Static).update(self._rounds_table())
        roll = Text("")
        if self.stage in (Stage.ROLL, Stage.WAIT):
            roll = Text.assemble(
                ("roll", "bold"), f" {self.cult}: ", (self.entry.text(), "bold cyan")
            )
            if self.stage is Stage.ROLL:
                roll.append(" · keys i 1 2 3 e, enter", style="dim")
        self.query_one("#roll", Static).update(roll)
        self.query_one("#status", Static).update(Text(self.status, style="italic"))

    def next_roller(self) -> None:
        session = self.host.session
        g = session.game
        if g.start_cult is not None:
            self.stage = Stage.DONE
            self.status = (
                f"{g.start_cult} is the start cult and takes the start-cult stone. enter: play"
            )
            self.refresh_view()
            self.host.schedule(self.host.begin_phases, factor=2.0)
            return
        todo = session.rolloff_to_roll()
        self.cult = todo[0]
        self.entry = RollEntry(6)
        self.seen = self._truth = None
        ro = g.rolloff
        tie = ro is not None and len(ro.rounds) > 1
        lead = f"tie: {' and '.join(ro.contenders)} roll again (ST2). " if tie and ro else ""
        camera = self.host.camera
        if camera is not None:
            self.stage = Stage.WAIT
            self.status = lead + f"waiting for {self.cult}'s roll…"
            self.read_roll_later(camera, self.cult, 6)
        else:
            self.stage = Stage.ROLL
            self.status = lead + f"{self.cult} rolls 6 dice: key them in"
        self.refresh_view()

    def on_roll_seen(self, msg: RollSeen) -> None:
        if not self.is_current or self.stage is not Stage.WAIT or msg.cult != self.cult:
            return
        self.seen = msg.seen.roll
        self._truth = msg.seen.truth
        self.entry = RollEntry(6, list(msg.seen.roll) if len(msg.seen.roll) == 6 else [])
        if self.entry.complete:
            self.host.schedule(self.confirm)
        else:
            self.status = "key the dice the camera could not read"
        self.stage = Stage.ROLL
        self.refresh_view()

    def on_roll_keyed(self, msg: RollKeyed) -> None:
        if self.is_current and self.stage is Stage.ROLL:
            self.entry = RollEntry(6, list(msg.faces))
            self.confirm()

    def on_camera_failed(self, msg: CameraFailed) -> None:
        self.stage = Stage.ROLL
        self.status = f"camera: {msg.reason}; key the roll by hand"
        self.refresh_view()

    def confirm(self) -> None:
        if not self.entry.complete:
            self.status = "key all 6 dice first"
            self.refresh_view()
            return
        try:
            self.host.session.submit_start_roll(self.cult, self.entry.roll, self.seen)
        except RuleError as err:
            self.status = f"{err.rule}: {err.message}"
            self.refresh_view()
            return
        except StoreError as exc:  # nothing was accepted: say why instead of ending the app
            self.status = f"NOT STORED: {exc}"
            self.app.notify(str(exc), title="not stored", severity="error", timeout=30)
            self.refresh_view()
            return
        self.host.save_record()
        self.next_roller()

    def on_key(self, event: events.Key) -> None:
        if self.stage is Stage.DONE and event.key == "enter":
            self.host.begin_phases()
        elif self.stage is not Stage.ROLL:
            return
        elif self.entry.key(event.key):
            pass
        elif event.key == "backspace":
            self.entry.backspace()
        elif event.key == "enter":
            self.confirm()
        else:
            return
        event.stop()
        if self.is_current:
            self.refresh_view()
