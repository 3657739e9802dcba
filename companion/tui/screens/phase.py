"""The phase: the board, the roll, the call being keyed and the last verdict.

A turn moves through the stages of ``Stage``: the camera reads (WAIT), the secretary keys or
completes the roll (ROLL), then the call (CALL, GIVE_UP), then the verdict. The screen keeps
that flow; the parts of a turn are small pieces that own their state and text and tell the
screen by messages: the roll (roll_editor.py), the call and a heard one (call_editor.py,
voice_call.py), the layout check and its disputes (disputes.py), the lines of the screen
(turn_lines.py). Camera reads run in a worker thread and arrive as messages, so the screen
never blocks; in the demo a driver answers each stage with the messages a person's keys lead
to (demo_driver.py).
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Footer, Static

from ...dicestats import per_cult
from ...rules import Action, CallAction, Game, GiveUp
from ...secretary import SecretaryError, TurnResult
from ...vision.seen import Seen
from ..call_editor import CallEditor
from ..demo_driver import DemoDriver, TurnView
from ..describe import FACE_KEYS, action_text
from ..disputes import Disputes, DisputeSettled, LayoutAgreed, ReadAgain
from ..entry import RollEntry
from ..messages import (
    ActionChosen,
    CallAnnounced,
    CallHeard,
    CameraFailed,
    RollKeyed,
    RollSeen,
    TableSeen,
)
from ..roll_editor import RollEditor
from ..tablemap import DiePicked, MapView, TableMap, turn_map
from ..turn_desk import TurnDesk
from ..turn_lines import Stage, StatusLine, TitleLine, VerdictLine
from ..voice_call import Microphone
from ..widgets import Board, center_line
from .info import EndScreen, HistoryScreen
from .modals import ScoringScreen
from .table_screen import TableScreen


class PhaseScreen(TableScreen):
    BINDINGS = [
        Binding("l", "legal", "legal calls"),
        Binding("x", "correct", "correct"),
        Binding("h", "history", "history"),
        Binding("m", "map", "map"),
        Binding("w", "evidence", "frame as JPEG", show=False),
        Binding("question_mark", "app.help", "help"),
        Binding("v", "talk", "talk", show=False),
    ]
    # The map sits beside the board on a wide screen, under it on 80 columns.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    #: Every assignment counts (a recalled call enters CALL again): the demo's driver answers each.
    stage: reactive[Stage] = reactive(Stage.WAIT, always_update=True, repaint=False)

    def __init__(self) -> None:
        super().__init__()
        self.cult = ""
        self.correcting = False  # the roll and call replace the last turn (x)
        self.recall = False  # the cult calls again after an illegal call (V2)
        self.status = ""
        self.look: Seen | None = None  # the camera's last look at the table, for the map
        self.roll = RollEditor(id="roll")
        self.call = CallEditor(id="call")
        self.disputes: Disputes | None = None
        self.desk: TurnDesk
        self.mic = Microphone(None)
        self._driver: DemoDriver | None = None

    @property
    def game(self) -> Game:
        return self.host.session.game

    @property
    def entry(self) -> RollEntry:
        """The roll being keyed (the roll editor's)."""
        return self.roll.entry

    def compose(self) -> ComposeResult:
        yield TitleLine(id="title")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Board(id="board")
                yield Static(id="center")
                yield self.roll
                yield self.call
                yield VerdictLine(id="verdict")
                yield StatusLine(id="status")
            yield TableMap(id="map")
        yield Footer()

    def on_mount(self) -> None:
        host = self.host
        if host.demo is not None:
            self._driver = DemoDriver(host.demo, host.schedule, self.post_message, self.app)
        self.disputes = Disputes(self.app, self.post_message, host.demo is not None)
        self.mic = Microphone(host.listener)
        self.desk = TurnDesk(host, self.query_one(VerdictLine), self._refused)
        self.next_turn()

    def watch_stage(self, stage: Stage) -> None:
        if self._driver is not None:
            truth = self.roll.look.truth if self.roll.look else None
            self._driver.at(
                stage,
                TurnView(
                    self._judging_game(),
                    self.cult,
                    self.roll.roll,
                    self.entry.size,
                    truth,
                    self.recall,
                ),
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("legal", "correct"):  # in the demo the simulated cults call
            return self.host.demo is None
        if action == "talk":
            return self.host.listener is not None
        return True

    # ------------------------------------------------------------ drawing
    def refresh_view(self) -> None:
        g, host = self.game, self.host
        demo = (
            None if host.demo is None else "PAUSED" if host.paused else "fast" if host.fast else ""
        )
        # after a verdict the title names the next cult
        self.query_one(TitleLine).show(
            g, self.cult if self.correcting else g.to_move, self.correcting, demo
        )
        self.query_one(Board).show(g)
        self.query_one("#center", Static).update(center_line(g))
        self.roll.show(self.stage, self.cult)
        self.call.show(self.stage)
        self.query_one(StatusLine).show(self.status)
        self.query_one(TableMap).show(self.map_view())

    def say(self, status: str) -> None:
        self.status = status
        self.refresh_view()

    def map_view(self) -> MapView:
        """The table as the camera saw it last (or as the rules have it), with the roll as keyed."""
        g = self._judging_game() if self.correcting else self.game
        shown = self.stage.keying  # after the verdict the roll's dice have left the rolling area
        return turn_map(
            g,
            None if self.correcting else self.look,
            self.roll.roll if shown else (),
            self.roll.look if shown else None,
            self.roll.picked if self.stage is Stage.ROLL else None,
            self.cult or g.to_move,
        )

    def action_evidence(self) -> None:
        self.say(
            self.host.export_evidence(self.look, f"{self.cult}'s turn, phase {self.game.phase}")
        )

    def action_map(self) -> None:
        table_map = self.query_one("#map", TableMap)
        table_map.display = not table_map.display

    # -------------------------------------------------------------- turns
    def next_turn(self) -> None:
        g = self.game
        self.correcting = self.recall = False
        self.call.clear(guesses=True)
        if g.finished:
            self.stage = Stage.OVER
            self.refresh_view()
            dice = per_cult("the game", (inp.event for inp in self.host.session.sec.inputs))
            self.app.switch_screen(EndScreen(g, self.host.record_path_text(), dice))
            return
        assert g.to_move is not None
        self.cult = g.to_move
        n = g.pools[self.cult]
        self.roll.begin(n)
        camera = self.host.camera
        if camera is not None:
            self.stage = Stage.WAIT
            self.status = f"waiting for {self.cult}'s roll to settle…"
            self.read_roll_later(camera, self.cult, n)
        else:
            self.stage = Stage.ROLL
            it = "it" if n == 1 else "them"
            self.status = f"{self.cult} rolls {n} {'die' if n == 1 else 'dice'}: key {it} in"
        self.refresh_view()

    def on_roll_seen(self, msg: RollSeen) -> None:
        if self.stage is not Stage.WAIT or msg.cult != self.cult:
            return  # a read that a correction or quit made stale
        self.look = msg.seen
        self.status = self.roll.take_read(msg.seen, msg.size) or f"read by the {msg.seen.source}"
        self.stage = Stage.ROLL
        self.refresh_view()
        if self.roll.complete:
            self.confirm_roll()

    def on_camera_failed(self, msg: CameraFailed) -> None:
        self.stage = Stage.ROLL
        self.say(f"camera: {msg.reason}; key the roll by hand")

    def on_roll_keyed(self, msg: RollKeyed) -> None:
        if self.stage is Stage.ROLL:
            self.roll.set_faces(msg.faces)
            self.confirm_roll(msg.note)

    def on_roll_editor_said(self, msg: RollEditor.Said) -> None:
        self.say(msg.text)

    def confirm_roll(self, note: str = "") -> None:
        if not self.roll.complete:
            self.say(f"key all {self.entry.size} dice first")
            return
        self.roll.picked = None
        roll = self.roll.roll
        self.status = (
            note or f"{self.cult} rolled {''.join(roll)}: key the call (esc edits the roll)"
        )
        layout = tuple(self._judging_game().layouts[self.cult])
        self.status = self.mic.listen(roll, layout, self.cult) or self.status
        self.stage = Stage.CALL
        self.refresh_view()

    def on_call_announced(self, msg: CallAnnounced) -> None:
        action = msg.action
        self.call.words = list(action.call) if isinstance(action, CallAction) else []
        self.say(f"{self.cult} calls: {action_text(action)}")

    def on_action_chosen(self, msg: ActionChosen) -> None:
        if self.stage in (Stage.CALL, Stage.GIVE_UP):
            self.submit(msg.action)

    # --------------------------------------------------------------- keys
    def on_key(self, event: events.Key) -> None:
        """The keys of the stage: the roll's and the call's go to their editors; the keys
        that move the turn on are the screen's, at once (keys typed fast keep their order)."""
        key, stage = event.key, self.stage
        if stage is Stage.ROLL:
            if key == "enter":
                self.confirm_roll()
            elif not self.roll.key(key):
                return
        elif stage is Stage.CALL:
            if self.call.key(key):
                pass
            elif key in ("escape", "left", "right", "backspace"):
                self.edit_roll(pick=-1 if key == "left" else 1 if key == "right" else 0)
            elif key == "g":
                self.stage = Stage.GIVE_UP
            elif key == "enter":
                event.stop()
                self.submit_words()
                return
            else:
                return
        elif stage is Stage.FORFEIT:
            if key not in FACE_KEYS:
                return
            self.forfeit(FACE_KEYS[key])
        elif stage is Stage.GIVE_UP:
            self.stage = Stage.CALL
            if key in FACE_KEYS:
                self.post_message(ActionChosen(GiveUp(FACE_KEYS[key])))
        else:
            return
        event.stop()
        self.refresh_view()

    def edit_roll(self, pick: int = 0) -> None:
        """Back from the call to the roll: a mis-keyed or misread die is fixed before the call."""
        self.stage = Stage.ROLL
        self.call.clear()
        self.mic.stop()
        if pick:
            self.roll.pick(pick, say=False)
        self.status = (
            "edit the roll: left/right pick a die and key its motif, backspace, enter when right"
        )

    def on_die_picked(self, msg: DiePicked) -> None:
        if self.stage is Stage.CALL:
            self.edit_roll()
        if self.stage is Stage.ROLL and self.roll.pick_die(msg.index):
            self.refresh_view()

    def _judging_game(self) -> Game:
        """The state the current roll is judged in (before the last turn when correcting)."""
        return self.host.session.before_last_turn() if self.correcting else self.game

    # ------------------------------------------------------ the call keyed
    def submit_words(self) -> None:
        if not self.call.choose(self._judging_game(), self.cult, self.roll.roll):
            self.say("key the words of the call first (i c f p)")

    def action_legal(self) -> None:
        if self.stage not in (Stage.CALL, Stage.GIVE_UP):
            self.say("the legal calls are listed once the roll is keyed")
        else:
            self.call.legal(self._judging_game(), self.cult, self.roll.roll)

    def on_call_heard(self, msg: CallHeard) -> None:
        """A spoken call: shown with its confidence; Enter accepts it, keys correct it."""
        if self.stage is Stage.CALL:
            self.say(self.call.hear(msg.heard))

    def action_talk(self) -> None:
        if self.host.listener is not None and self.stage is Stage.CALL:
            self.say(self.mic.toggle())

    # ------------------------------------------------------------ verdicts
    def submit(self, action: Action) -> None:
        self.mic.stop()
        before = self._judging_game().copy()  # the verdict explains the state it was judged in
        desk, roll, cult = self.desk, self.roll.roll, self.cult
        outcome = desk.turn(
            cult, roll, action, before, seen=self.roll.seen, correcting=self.correcting
        )
        if outcome is None:
            self.say(desk.status)
            return
        self.call.clear()
        if not outcome.accepted:
            self.recall = True
            self.stage = Stage.FORFEIT if outcome.must_forfeit else Stage.CALL
            self.say(desk.status)
            return
        self.correcting = self.recall = False
        camera, check = self.host.camera, self.disputes
        placed = action.place if isinstance(action, CallAction) else ()
        if placed and camera is not None and check is not None:
            self.stage = Stage.WAIT
            check.expect(outcome)
            self.say(f"checking {cult}'s layout on the table…")
            self.read_table_later(camera, cult, tuple(before.layouts[cult]) + placed)
            return
        self.after_turn(outcome)

    def forfeit(self, face: str) -> None:
        """V2 forfeit option: the cult gives up a die of its roll after an illegal call."""
        outcome = self.desk.forfeit(self.cult, face)
        if outcome is None or not outcome.accepted:
            self.say(self.desk.status)
        else:
            self.after_turn(outcome)

    def _refused(self, sentence: str) -> None:
        self.app.notify(sentence, title="not stored", severity="error", timeout=30)

    # ------------------------------------------------------- layout check
    def on_table_seen(self, msg: TableSeen) -> None:
        if self.disputes is not None and self.disputes.seen(msg, self.cult, self.game.phase):
            self.look = msg.seen
            self.say("dispute: the camera disagrees with the call")
            self.stage = Stage.DISPUTE

    def on_layout_agreed(self, msg: LayoutAgreed) -> None:
        self.look = msg.seen
        self.status = f"{self.cult}'s layout on the table matches the call"
        self.after_turn(msg.outcome)

    def on_read_again(self, msg: ReadAgain) -> None:
        camera = self.host.camera
        if camera is not None:
            self.stage = Stage.WAIT
            self.read_table_later(camera, msg.cult, msg.expected)

    def on_dispute_settled(self, msg: DisputeSettled) -> None:
        if not self.desk.note(msg.note):  # the game goes on; the screen says the note was lost
            self.say(self.desk.status)
        if msg.correct:
            self.action_correct()
        else:
            self.after_turn(msg.outcome)

    # ------------------------------------------------------------ after
    def after_turn(self, outcome: TurnResult) -> None:
        if outcome.phase_result is None:
            self.stage = Stage.DONE  # until the next turn begins (the demo's pace, or at once)
            self.refresh_view()
            self.host.schedule(self.next_turn)
            return
        screen = ScoringScreen(outcome.phase_result, self.game.totals, game_over=self.game.finished)
        self.app.push_screen(screen, lambda _: self.next_turn())
        self.stage = Stage.SCORING
        self.refresh_view()

    def action_correct(self) -> None:
        session = self.host.session
        last = session.last_turn()
        try:
            before = session.before_last_turn()
        except SecretaryError as exc:
            self.say(str(exc))
            return
        assert last is not None
        self.correcting = True
        self.cult = last.cult
        self.roll.begin(before.pools[last.cult], last.roll, self.roll.look)
        self.call.clear()
        self.stage = Stage.ROLL
        self.say(
            f"correcting {last.cult}: {''.join(last.roll)} -> {last.action}; "
            "fix the roll, enter, key the call"
        )

    def action_history(self) -> None:
        self.app.push_screen(HistoryScreen(self.host.record_text()))
