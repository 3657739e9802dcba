"""Setup: the cults in seating order, sets, target, house rules, camera check."""

from __future__ import annotations

import unicodedata

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from ...record.notation import NAME_RE
from ...rules import Options, OptionsError
from ...rules.options import default_target, sets_for
from ..host import host_of


class SetupScreen(Screen[None]):
    BINDINGS = [Binding("ctrl+s", "start", "start game"), Binding("f1", "app.help", "help")]

    def __init__(self, camera_status: str, cults: str = "", notice: str = "") -> None:
        super().__init__()
        self.camera_status = camera_status
        self.cults_default = cults
        self.notice = notice  # e.g. why --resume found nothing to resume

    def compose(self) -> ComposeResult:
        with Vertical(classes="panel setup"):
            yield Static("New game of IÄÄ! Cthulhu! Fhtagn!", classes="dialog-title")
            if self.notice:
                yield Static(self.notice, id="notice")
            with Horizontal(classes="field"):
                yield Label("cults, clockwise")
                yield Input(self.cults_default, placeholder="Anna Ben Cleo", id="cults")
            yield Static("", id="sets")
            with Horizontal(classes="field"):
                yield Label("target")
                yield Input(
                    "", placeholder="150 (2-3 cults) / 100 (4-6)", id="target", type="integer"
                )
            with Horizontal(classes="field"):
                yield Label("start roll (ST1)")
                yield Select(
                    [("sum of tentacles", "sum"), ("tentacle dice", "count")],
                    value="sum",
                    allow_blank=False,
                    id="start_rule",
                )
            with Horizontal(classes="field"):
                yield Label("doublers (DB2)")
                yield Select(
                    [("return after scoring", "return"), ("keep for the game", "keep")],
                    value="return",
                    allow_blank=False,
                    id="doublers",
                )
            with Horizontal(classes="field"):
                yield Label("illegal call (V2)")
                yield Select(
                    [
                        ("recall: ask for a legal call", "recall"),
                        ("forfeit: give up a die", "forfeit"),
                    ],
                    value="recall",
                    allow_blank=False,
                    id="illegal_call",
                )
            yield Static(f"camera: {self.camera_status}", id="camera")
            yield Static("", id="error")
            yield Button("Start the game", id="start", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#cults", Input).focus()
        self._show_sets()

    def _names(self) -> list[str]:
        # NFC, as replay reads the record: a decomposed "Zoë" (what macOS types) is a name
        value = self.query_one("#cults", Input).value
        return unicodedata.normalize("NFC", value).split()

    def _show_sets(self) -> None:
        n = len(self._names())
        typed = self.query_one("#target", Input).value.strip()
        target = (
            f"target {typed}"
            if typed.isdigit()
            else f"target {default_target(n)} (the rulebook's, S3)"
        )
        sets = sets_for(n) if 2 <= n <= 6 else 0
        text = (
            f"{n} cults: {sets} {'set' if sets == 1 else 'sets'} of dice, {target}"
            if 2 <= n <= 6
            else "2 to 6 cults, names separated by spaces (C1)"
        )
        self.query_one("#sets", Static).update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in ("cults", "target"):
            self._show_sets()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_start()

    def action_start(self) -> None:
        names = self._names()
        error = self.query_one("#error", Static)
        bad = [n for n in names if not NAME_RE.match(n)]
        if bad:
            error.update(f"N: a name is one word of letters, digits, _ or -, not {bad[0]!r}")
            return
        target_text = self.query_one("#target", Input).value.strip()
        try:
            options = Options.make(
                names,
                target=int(target_text) if target_text else None,
                start_rule=str(self.query_one("#start_rule", Select).value),
                doublers=str(self.query_one("#doublers", Select).value),
                illegal_call=str(self.query_one("#illegal_call", Select).value),
            )
        except OptionsError as exc:
            error.update(f"{exc.rule}: {exc.message}")
            return
        host_of(self.app).start_game(options)
