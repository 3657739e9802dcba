"""The phase: the board, the roll, the call being keyed and the last verdict.

A turn moves through the stages of ``Stage``: the camera reads (WAIT), the
secretary keys or completes the roll (ROLL), then the call (CALL, GIVE_UP),
then the verdict. Camera reads run in a worker thread and arrive as
messages, so the screen never blocks. The lines of the screen are small
widgets (turn_lines.py); in the demo a driver answers each stage with the
messages a person's keys lead to (demo_driver.py).
"""

from __future__ import annotations

from functools import partial

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Footer, Static

from ...dicestats import per_cult
from ...rules import Action, Call, CallAction, Game, GiveUp, Word
from ...rules.calls import call_text
from ...secretary import SecretaryError, TurnResult
from ...store.base import StoreError
from ...vision.seen import Seen
from ..demo_driver import DemoDriver, TurnView
from ..describe import (
    FACE_KEYS,
    WORD_KEYS,
    action_text,
    rule_sentence,
)
from ..entry import RollEntry, matching, plain_action
from ..messages import (
    ActionChosen,
    CallAnnounced,
    CallHeard,
    CameraFailed,
    RollKeyed,
    RollSeen,
    TableSeen,
)
from ..tablemap import DiePicked, MapView, TableMap, roll_places
from ..turn_lines import CallLine, RollLine, Stage, StatusLine, TitleLine, VerdictLine
from ..widgets import Board, center_line
from .info import EndScreen, HistoryScreen
from .modals import ChoiceScreen, DisputeScreen, ScoringScreen, difference_text, largest_first
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
        self.entry = RollEntry(0)
        self.words: list[Word] = []
        self.correcting = False  # the roll and call replace the last turn (x)
        self.recall = False  # the cult calls again after an illegal call (V2)
        self._driver: DemoDriver | None = None
        self.status = ""
        self._pending: TurnResult | None = None  # a legal turn waiting for the layout check
        self.seen: tuple[str, ...] | None = (
            None  # the camera's reading of this roll, kept as evidence
        )
        self.talking = False  # push-to-talk held open with the v key
        self.look: Seen | None = None  # the camera's last look at the table, for the map
        self.roll_look: Seen | None = None  # the look that read this roll (places of its dice)
        self.picked: int | None = None  # the die of the roll picked on the map
        self.guesses: tuple[Call, ...] = ()  # an unsure spoken call's two guesses, keys 1 and 2

    @property
    def game(self) -> Game:
        return self.host.session.game

    def compose(self) -> ComposeResult:
        yield TitleLine(id="title")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Board(id="board")
                yield Static(id="center")
                yield RollLine(id="roll")
                yield CallLine(id="call")
                yield VerdictLine(id="verdict")
                yield StatusLine(id="status")
            yield TableMap(id="map")
        yield Footer()

    def on_mount(self) -> None:
        host = self.host
        if host.demo is not None:
            self._driver = DemoDriver(host.demo, host.schedule, self.post_message, self.app)
        self.next_turn()

    def watch_stage(self, stage: Stage) -> None:
        if self._driver is not None:
            truth = self.roll_look.truth if self.roll_look else None
            self._driver.at(
                stage,
                TurnView(
                    self._judging_game(),
                    self.cult,
                    tuple(self.entry.faces),
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
        self.query_one(RollLine).show(self.stage, self.cult, self.entry, self.picked)
        self.query_one(CallLine).show(self.stage, self.words)
        self.query_one(StatusLine).show(self.status)
        self.query_one(TableMap).show(self.map_view())

    def map_view(self) -> MapView:
        """The table as the camera saw it last (or as the rules have it), with the roll as keyed."""
        g = self._judging_game() if self.correcting else self.game
        look = None if self.correcting else self.look
        # after the verdict the roll's dice have gone to the layout, the center or the pool
        shown = self.stage.keying
        roll_look = self.roll_look if shown else None
        faces = tuple(self.entry.faces) if shown else ()
        at = (
            roll_places(roll_look.dice, len(roll_look.roll)) if roll_look and roll_look.dice else ()
        )
        return MapView(
            cults=g.cults,
            paper=look.paper if look else "A3",
            roll=faces,
            roll_at=at if len(at) == len(faces) else (),
            layouts={c: tuple(g.layouts[c]) for c in g.cults},
            layout_dice=look.layout_dice() if look and look.dice else None,
            center=g.center,
            to_move=self.cult or g.to_move,
            picked=self.picked if self.stage is Stage.ROLL else None,
            source=look.source if look else "",
        )

    def action_evidence(self) -> None:
        self.status = self.host.export_evidence(
            self.look, f"{self.cult}'s turn, phase {self.game.phase}"
        )
        self.refresh_view()

    def action_map(self) -> None:
        table_map = self.query_one("#map", TableMap)
        table_map.display = not table_map.display

    # -------------------------------------------------------------- turns
    def next_turn(self) -> None:
        g = self.game
        self.words, self.correcting, self.recall = [], False, False
        self.seen, self.roll_look, self.picked, self.guesses = None, None, None, ()
        if g.finished:
            self.stage = Stage.OVER
            self.refresh_view()
            dice = per_cult("the game", (inp.event for inp in self.host.session.sec.inputs))
            self.app.switch_screen(EndScreen(g, self.host.record_path_text(), dice))
            return
        assert g.to_move is not None
        self.cult = g.to_move
        self.entry = RollEntry(g.pools[self.cult])
        camera = self.host.camera
        if camera is not None:
            self.stage = Stage.WAIT
            self.status = f"waiting for {self.cult}'s roll to settle…"
            self.read_roll_later(camera, self.cult, self.entry.size)
        else:
            self.stage = Stage.ROLL
            n = self.entry.size
            self.status = (
                f"{self.cult} rolls {n} {'die' if n == 1 else 'dice'}: "
                f"key {'it' if n == 1 else 'them'} in"
            )
        self.refresh_view()

    def on_roll_seen(self, msg: RollSeen) -> None:
        if self.stage is not Stage.WAIT or msg.cult != self.cult:
            return  # a read that a correction or quit made stale
        self.seen = msg.seen.roll
        self.look = self.roll_look = msg.seen
        got = len(msg.seen.roll)
        unread = msg.seen.roll.count("?")
        self.entry = RollEntry(msg.size, list(msg.seen.roll[: msg.size]) if got == msg.size else [])
        if got != msg.size:
            self.status = f"the camera saw {got} dice, {msg.size} expected: key the roll"
        elif unread:
            self.status = (
                f"the camera could not read {unread} {'die' if unread == 1 else 'dice'}: "
                f"key {'it' if unread == 1 else 'them'} in"
            )
        else:
            self.status = f"read by the {msg.seen.source}"
        self.stage = Stage.ROLL
        self.refresh_view()
        if self.entry.complete:
            self.confirm_roll()

    def on_camera_failed(self, msg: CameraFailed) -> None:
        self.stage = Stage.ROLL
        self.status = f"camera: {msg.reason}; key the roll by hand"
        self.refresh_view()

    def on_roll_keyed(self, msg: RollKeyed) -> None:
        if self.stage is Stage.ROLL:
            self.entry.faces = list(msg.faces)
            self.confirm_roll(msg.note)

    def confirm_roll(self, note: str = "") -> None:
        if not self.entry.complete:
            self.status = f"key all {self.entry.size} dice first"
            self.refresh_view()
            return
        self.picked = None
        self.status = (
            note
            or f"{self.cult} rolled {''.join(self.entry.roll)}: key the call (esc edits the roll)"
        )
        listener = self.host.listener
        if listener is not None:
            # the grammar is narrowed to the calls this roll and layout allow
            listener.start_turn(self.entry.roll, tuple(self._judging_game().layouts[self.cult]))
            self.status = f"listening for {self.cult}'s call… (or key it)"
        self.stage = Stage.CALL
        self.refresh_view()

    def on_call_announced(self, msg: CallAnnounced) -> None:
        action = msg.action
        self.words = list(action.call) if isinstance(action, CallAction) else []
        self.status = f"{self.cult} calls: {action_text(action)}"
        self.refresh_view()

    def on_action_chosen(self, msg: ActionChosen) -> None:
        if self.stage in (Stage.CALL, Stage.GIVE_UP):
            self.submit(msg.action)

    # --------------------------------------------------------------- keys
    def on_key(self, event: events.Key) -> None:
        key = event.key
        if self.stage is Stage.ROLL:
            if key in FACE_KEYS and self.picked is not None:
                self.set_die(self.picked, FACE_KEYS[key])
            elif self.entry.key(key):
                pass
            elif key in ("left", "right"):
                self.pick(-1 if key == "left" else 1)
            elif key == "escape" and self.picked is not None:
                self.picked = None
            elif key == "backspace":
                if self.picked is not None:
                    self.set_die(self.picked, "?")
                else:
                    self.entry.backspace()
            elif key == "enter":
                self.confirm_roll()
            else:
                return
        elif self.stage is Stage.CALL and (
            key in ("escape", "left", "right") or (key == "backspace" and not self.words)
        ):
            self.edit_roll(pick=-1 if key == "left" else 1 if key == "right" else 0)
        elif self.stage is Stage.FORFEIT:
            if key not in FACE_KEYS:
                return
            self.forfeit(FACE_KEYS[key])
        elif self.stage is Stage.GIVE_UP:
            self.stage = Stage.CALL
            if key in FACE_KEYS:
                self.post_message(ActionChosen(GiveUp(FACE_KEYS[key])))
        elif self.stage is Stage.CALL:
            if key in WORD_KEYS:
                self.words.append(WORD_KEYS[key])
            elif key in ("1", "2") and int(key) <= len(self.guesses):
                self.words = list(self.guesses[int(key) - 1])
            elif key == "g":
                self.stage = Stage.GIVE_UP
            elif key == "backspace":
                if self.words:
                    self.words.pop()
            elif key == "enter":
                self.submit_words()
                event.stop()
                return
            else:
                return
        else:
            return
        event.stop()
        self.refresh_view()

    # --------------------------------------------------- editing the roll
    def edit_roll(self, pick: int = 0) -> None:
        """Back from the call to the roll: a mis-keyed or misread die is fixed before the call."""
        self.stage = Stage.ROLL
        self.words = []
        if self.host.listener is not None:
            self.host.listener.end_turn()
            self.talking = False
        if pick:
            self.pick(pick)
        self.status = (
            "edit the roll: left/right pick a die and key its motif, backspace, enter when right"
        )

    def pick(self, step: int) -> None:
        """Move the pick on the map to the next (or previous) die of the roll."""
        n = len(self.entry.faces)
        if n == 0:
            return
        if self.picked is None:
            self.picked = 0 if step > 0 else n - 1
        else:
            self.picked = (self.picked + step) % n
        self.status = (
            f"die {self.picked + 1} of {n} picked on the map: key its motif (esc: no pick)"
        )

    def set_die(self, index: int, face: str) -> None:
        """The secretary's motif for one die of the roll; the camera's read stays as evidence."""
        if index >= len(self.entry.faces):
            return
        was = self.entry.faces[index]
        self.entry.faces[index] = face
        self.picked = None
        self.status = f"die {index + 1}: {was} -> {face}" + (
            " (the camera's read is kept as evidence)" if self.seen is not None else ""
        )

    def on_die_picked(self, msg: DiePicked) -> None:
        if self.stage is Stage.CALL:
            self.edit_roll()
        if self.stage is Stage.ROLL and msg.index < len(self.entry.faces):
            self.picked = msg.index
            self.status = (
                f"die {msg.index + 1} of {len(self.entry.faces)} picked on the map: key its motif"
            )
            self.refresh_view()

    def _judging_game(self) -> Game:
        """The state the current roll is judged in (before the last turn when correcting)."""
        return self.host.session.before_last_turn() if self.correcting else self.game

    def submit_words(self) -> None:
        if not self.words:
            self.status = "key the words of the call first (i c f p)"
            self.refresh_view()
            return
        call = tuple(self.words)
        g = self._judging_game()
        roll = self.entry.roll
        ways = matching(g.legal_actions(roll, self.cult), call)
        if len(ways) == 1:
            self.post_message(ActionChosen(ways[0]))
        elif ways:
            self.app.push_screen(
                ChoiceScreen(
                    f"{self.cult} calls {call_text(call)}: which dice?",
                    list(largest_first(ways)),
                    typed=True,
                ),
                self._chosen,
            )
        else:
            self.post_message(ActionChosen(plain_action(g, self.cult, roll, call)))

    def forfeit(self, face: str) -> None:
        """V2 forfeit option: the cult gives up a die of its roll after an illegal call."""
        try:
            outcome = self.host.session.submit_forfeit(face)
        except StoreError as exc:
            self.not_stored(exc)
            return
        self.host.save_record()
        if not outcome.accepted:
            self.status = (
                f"{outcome.rule}: {rule_sentence(outcome.verdict)}; key a face of the roll"
            )
            self.refresh_view()
            return
        self.query_one(VerdictLine).forfeited(self.cult, face)
        self.after_turn(outcome)

    def not_stored(self, exc: StoreError) -> None:
        """The database refused the entry: nothing was accepted, and the screen says why."""
        self.status = f"NOT STORED: {exc}"
        self.app.notify(str(exc), title="not stored", severity="error", timeout=30)
        self.refresh_view()

    def _chosen(self, action: Action | None) -> None:
        if action is not None:
            self.post_message(ActionChosen(action))

    def action_legal(self) -> None:
        if self.stage not in (Stage.CALL, Stage.GIVE_UP):
            self.status = "the legal calls are listed once the roll is keyed"
            self.refresh_view()
            return
        legal = list(self._judging_game().legal_actions(self.entry.roll, self.cult))
        self.app.push_screen(
            ChoiceScreen(f"Legal for {self.cult}'s roll {''.join(self.entry.roll)}", legal),
            self._chosen,
        )

    def on_call_heard(self, msg: CallHeard) -> None:
        """A spoken call: shown with its confidence; Enter accepts it, keys correct it."""
        if self.stage is not Stage.CALL:
            return
        heard = msg.heard
        # Not sure: the two best guesses for one key each (1, 2), instead of a blank.
        self.guesses = () if heard.sure else tuple(heard.guesses)
        if heard.call is None:
            offer = " / ".join(f"{n} {call_text(c)}" for n, c in enumerate(self.guesses, start=1))
            self.status = f"no call heard clearly ({heard.confidence:.2f}): " + (
                f"key {offer}, or key the call" if offer else "key the call"
            )
        else:
            self.words = list(heard.call)
            if heard.sure:
                self.status = (
                    f"heard {heard.text} ({heard.confidence:.2f}): "
                    "Enter to accept, backspace to correct"
                )
            else:
                other = f", 2 for {call_text(self.guesses[1])}" if len(self.guesses) > 1 else ""
                self.status = (
                    f"not sure: heard {heard.text} ({heard.confidence:.2f}); "
                    f"ask the cult, then Enter to accept{other}, or key the call"
                )
        self.refresh_view()

    def action_talk(self) -> None:
        listener = self.host.listener
        if listener is None or self.stage is not Stage.CALL:
            return
        self.talking = not self.talking
        listener.push_to_talk(self.talking)
        self.status = (
            "push-to-talk: listening… (v again to stop)"
            if self.talking
            else "push-to-talk: stopped"
        )
        self.refresh_view()

    def submit(self, action: Action) -> None:
        session = self.host.session
        if self.host.listener is not None:
            self.host.listener.end_turn()
            self.talking = False
        before = self._judging_game().copy()  # the verdict explains the state it was judged in
        roll = self.entry.roll
        try:
            if self.correcting:
                outcome = session.correct_last_turn(roll, action)
            else:
                outcome = session.submit_turn(self.cult, roll, action, self.seen)
        except StoreError as exc:
            self.not_stored(exc)
            return
        self.host.save_record()
        self.words = []
        if not outcome.accepted:
            self.query_one(VerdictLine).illegal(self.cult, outcome.verdict, action)
            self.recall = True
            if outcome.must_forfeit:
                self.status = (
                    f"house rule: {self.cult} forfeits a die for the illegal call (V2): "
                    "key its face"
                )
                self.stage = Stage.FORFEIT
            else:
                self.status = f"{self.cult} must make a legal call (V2)"
                self.stage = Stage.CALL
            self.refresh_view()
            return
        self.correcting = self.recall = False
        self.query_one(VerdictLine).legal(self.cult, action, before)
        expected = tuple(before.layouts[self.cult]) + (
            action.place if isinstance(action, CallAction) else ()
        )
        camera = self.host.camera
        if camera is not None and isinstance(action, CallAction) and action.place:
            self.stage = Stage.WAIT
            self.status = f"checking {self.cult}'s layout on the table…"
            self._pending = outcome
            self.refresh_view()
            self.read_table_later(camera, self.cult, expected)
            return
        self.after_turn(outcome)

    # ------------------------------------------------------- layout check
    def on_table_seen(self, msg: TableSeen) -> None:
        outcome = self._pending
        if outcome is None or msg.cult != self.cult:
            return
        seen = tuple(sorted(msg.seen.layouts.get(msg.cult, ()), key="I123E?".index))
        want = tuple(sorted(msg.expected, key="I123E?".index))
        if msg.seen.layout_check(msg.cult, msg.expected).matches:
            self.look = msg.seen
            self._pending = None
            self.status = f"{msg.cult}'s layout on the table matches the call"
            self.after_turn(outcome)
            return
        self.status = "dispute: the camera disagrees with the call"
        self.refresh_view()
        self.look = msg.seen
        self.app.push_screen(
            DisputeScreen(msg.cult, want, seen, msg.seen), partial(self._settled, msg, seen)
        )
        self.stage = Stage.DISPUTE

    def _settled(self, msg: TableSeen, seen: tuple[str, ...], how: str | None) -> None:
        outcome = self._pending
        if outcome is None:
            return
        exp = "".join(msg.expected) or "-"
        saw = "".join(seen) or "-"
        camera = self.host.camera
        if how == "reread" and camera is not None:
            self.stage = Stage.WAIT
            self.read_table_later(camera, msg.cult, msg.expected)
            return
        self._pending = None
        what = (
            f"dispute after {msg.cult}'s turn in phase {self.game.phase}: "
            f"the camera saw {saw} in {msg.cult}'s layout where the rules have {exp} "
            f"({difference_text(msg.expected, seen)})"
        )
        if how == "correct":
            self._note(f"{what}; the turn is corrected")
            self.action_correct()
            return
        why = (
            " (the simulated camera misses dice packed close in a long layout)"
            if self.host.demo is not None
            else ""
        )
        self._note(f"{what}; the rules stand: the dice on the table were put right{why}")
        self.after_turn(outcome)

    def _note(self, text: str) -> None:
        """Store the secretary's note; the game goes on when the database refuses it."""
        try:
            self.host.session.add_note(text)
        except StoreError as exc:
            self.not_stored(exc)
            return
        self.host.save_record()

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
            self.status = str(exc)
            self.refresh_view()
            return
        assert last is not None
        self.correcting = True
        self.cult = last.cult
        self.entry = RollEntry(before.pools[last.cult], list(last.roll))
        self.words = []
        self.stage = Stage.ROLL
        self.status = (
            f"correcting {last.cult}: {''.join(last.roll)} -> {last.action}; "
            "fix the roll, enter, key the call"
        )
        self.refresh_view()

    def action_history(self) -> None:
        self.app.push_screen(HistoryScreen(self.host.record_text()))
