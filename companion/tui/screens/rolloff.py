"""The start-cult roll-off (ST1, ST2): every cult rolls 6 dice, ties roll again."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from ...rules import RuleError
from ...rules.game import count_score
from ...store.base import StoreError
from ..entry import RollEntry
from ..messages import CameraFailed, RollSeen
from .table_screen import TableScreen


class RollOffScreen(TableScreen):
    BINDINGS = [Binding("question_mark", "app.help", "help")]

    def __init__(self) -> None:
        super().__init__()
        self.cult = ""
        self.entry = RollEntry(6)
        self.stage = "wait"
        self.status = ""
        self.seen: tuple[str, ...] | None = None  # the camera's reading, kept as evidence

    def compose(self) -> ComposeResult:
        yield Static(Text("Who starts? Every cult rolls its 6 dice (ST1)", style="bold"), id="title")
        yield Static(Text(self.app.sub_title, style="italic"), id="mode")
        yield Static(id="rounds")
        yield Static(id="roll")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.next_roller()

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
        if self.stage in ("roll", "wait"):
            roll = Text.assemble(("roll", "bold"), f" {self.cult}: ", (self.entry.text(), "bold cyan"))
            if self.stage == "roll":
                roll.append(" · keys i 1 2 3 e, enter", style="dim")
        self.query_one("#roll", Static).update(roll)
        self.query_one("#status", Static).update(Text(self.status, style="italic"))

    def next_roller(self) -> None:
        session = self.host.session
        g = session.game
        if g.start_cult is not None:
            self.stage = "done"
            self.status = f"{g.start_cult} is the start cult and takes the start-cult stone. enter: play"
            self.refresh_view()
            self.host.schedule(self.host.begin_phases, factor=2.0)
            return
        todo = session.rolloff_to_roll()
        self.cult = todo[0]
        self.entry = RollEntry(6)
        self.seen = None
        ro = g.rolloff
        tie = ro is not None and len(ro.rounds) > 1
        lead = f"tie: {' and '.join(ro.contenders)} roll again (ST2). " if tie and ro else ""
        camera = self.host.camera
        if camera is not None:
            self.stage = "wait"
            self.status = lead + f"waiting for {self.cult}'s roll…"
            self.read_roll_later(camera, self.cult, 6)
        else:
            self.stage = "roll"
            self.status = lead + f"{self.cult} rolls 6 dice: key them in"
        self.refresh_view()

    def on_roll_seen(self, msg: RollSeen) -> None:
        if not self.is_current or self.stage != "wait" or msg.cult != self.cult:
            return
        self.seen = msg.seen.roll
        faces = list(msg.seen.roll) if len(msg.seen.roll) == 6 else []
        if self.host.demo is not None and msg.seen.truth is not None:
            # The demo's secretary keys whatever the camera could not read.
            faces = [t if f == "?" else f for f, t in zip(faces or msg.seen.truth, msg.seen.truth, strict=True)]
        self.entry = RollEntry(6, faces)
        self.stage = "roll"
        if self.entry.complete:
            self.host.schedule(self.confirm)
        else:
            self.status = "key the dice the camera could not read"
        self.refresh_view()

    def on_camera_failed(self, msg: CameraFailed) -> None:
        self.stage = "roll"
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
        if self.stage == "done" and event.key == "enter":
            self.host.begin_phases()
        elif self.stage != "roll":
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
