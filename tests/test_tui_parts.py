"""The pieces of the phase screen, each in a small app of its own through the pilot."""

from __future__ import annotations

from typing import NoReturn

from textual.app import App, ComposeResult
from textual.message import Message

from companion.rules import CallAction, Game, Options, parse_call
from companion.rules.verdicts import OK
from companion.secretary import TurnResult
from companion.store.base import StoreError
from companion.tui.call_editor import CallEditor
from companion.tui.disputes import Dispute, Disputes, DisputeSettled, LayoutAgreed, ReadAgain
from companion.tui.messages import ActionChosen, TableSeen
from companion.tui.roll_editor import RollEditor
from companion.tui.screens.modals import ChoiceScreen, DisputeScreen
from companion.tui.session import TableSession
from companion.tui.tablemap import turn_map
from companion.tui.turn_desk import TurnDesk
from companion.tui.turn_lines import Stage, VerdictLine
from companion.tui.voice_call import Microphone, hearing
from companion.vision.seen import Seen
from companion.voice.heard import Heard

from .test_tui_support import secretary, sync
from .test_tui_voice import FakeListener


class Parts(App[None]):
    """A roll editor and a call editor, and every message they send up."""

    def __init__(self) -> None:
        super().__init__()
        self.got: list[Message] = []

    def compose(self) -> ComposeResult:
        yield RollEditor(id="roll")
        yield CallEditor(id="call")

    def on_roll_editor_said(self, msg: RollEditor.Said) -> None:
        self.got.append(msg)

    def on_action_chosen(self, msg: ActionChosen) -> None:
        self.got.append(msg)

    def said(self) -> list[str]:
        return [m.text for m in self.got if isinstance(m, RollEditor.Said)]

    def chosen(self) -> list[object]:
        return [m.action for m in self.got if isinstance(m, ActionChosen)]


@sync
async def test_the_roll_editor_keys_picks_and_says_what_changed() -> None:
    app = Parts()
    async with app.run_test() as pilot:
        roll = app.query_one(RollEditor)
        roll.begin(3)
        assert all(roll.key(k) for k in "i2") and not roll.complete
        assert roll.key("backspace") and roll.roll == ("I",)
        assert roll.key("e") and roll.key("3") and roll.complete
        assert not roll.key("c") and not roll.key("enter")  # not a face; enter is the screen's
        assert roll.key("left") and roll.picked == 2
        assert roll.key("i") and roll.roll == ("I", "E", "I") and roll.picked is None
        assert roll.pick_die(0) and not roll.pick_die(5)
        assert roll.key("backspace") and roll.roll == ("?", "E", "I")  # the picked die unread
        await pilot.pause()
        assert app.said() == [
            "die 3 of 3 picked on the map: key its motif (esc: no pick)",
            "die 3: 3 -> I",
            "die 1 of 3 picked on the map: key its motif",
            "die 1: I -> ?",
        ]
        roll.show(Stage.ROLL, "Anna")
        assert "roll Anna (3 dice): ? E I" in str(roll.render())


@sync
async def test_the_roll_editor_takes_the_cameras_reading_and_keeps_it() -> None:
    app = Parts()
    async with app.run_test() as pilot:
        roll = app.query_one(RollEditor)
        assert (
            roll.take_read(Seen(tuple("I2?E")), 4) == "the camera could not read 1 die: key it in"
        )
        assert roll.key("1") and roll.roll == tuple("I21E")  # a key fills the ? first
        assert roll.seen == tuple("I2?E")  # the reading stays as evidence
        roll.set_die(0, "E")
        await pilot.pause()
        assert app.said() == ["die 1: I -> E (the camera's read is kept as evidence)"]
        assert (
            roll.take_read(Seen(tuple("I2E")), 4)
            == "the camera saw 3 dice, 4 expected: key the roll"
        )
        assert roll.roll == () and roll.take_read(Seen(tuple("I23E")), 4) is None and roll.complete


@sync
async def test_the_call_editor_keys_words_and_chooses_the_action() -> None:
    app = Parts()
    g = Game(Options.make(["Anna", "Ben"]))
    async with app.run_test() as pilot:
        call = app.query_one(CallEditor)
        assert not call.choose(g, "Anna", tuple("I3EEEI"))  # no words yet
        assert all(call.key(k) for k in "icf") and not call.key("g") and not call.key("enter")
        assert call.call == parse_call("IÄÄ! Cthulhu! Fhtagn!")
        assert call.choose(g, "Anna", tuple("I3EEEI"))  # one way only
        await pilot.pause()
        assert app.chosen() == [CallAction(parse_call("IÄÄ! Cthulhu! Fhtagn!"), tuple("I3E"))]
        call.clear()
        assert call.key("c") and call.choose(g, "Anna", tuple("123EEE"))  # D2: judged as said
        await pilot.pause()
        assert app.chosen()[-1] == CallAction(parse_call("Cthulhu!"), tuple("123"))
        call.clear()
        assert call.key("i") and call.key("c") and call.choose(g, "Anna", tuple("I22EEE"))
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and app.screen.typed  # which dice?
        await pilot.press("enter")  # the most dice first
        await pilot.pause()
        assert app.chosen()[-1] == CallAction(parse_call("IÄÄ! Cthulhu!"), tuple("I22"))
        call.legal(g, "Anna", tuple("I23EEE"))
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("escape")  # nothing chosen
        await pilot.pause()
        assert len(app.chosen()) == 3
        assert call.key("backspace") and call.key("backspace") and call.words == []
        assert not call.key("backspace")  # nothing to take back: the screen's key then
        call.show(Stage.GIVE_UP)
        assert "give up: key the face" in str(call.render())


@sync
async def test_a_heard_call_fills_the_words_or_offers_two_guesses() -> None:
    app = Parts()
    first, second = parse_call("IÄÄ! Ph'nglui!"), parse_call("IÄÄ! Cthulhu! Fhtagn!")
    async with app.run_test():
        call = app.query_one(CallEditor)
        said = call.hear(Heard(None, 0.31, 40.0, best=first, second=second))
        assert said == (
            "no call heard clearly (0.31): key 1 IÄÄ! Ph'nglui! / 2 IÄÄ! Cthulhu! Fhtagn!, "
            "or key the call"
        )
        assert call.words == [] and call.key("2") and call.call == second
        assert call.key("1") and call.call == first
        call.clear()
        assert call.guesses == (first, second)  # a recalled call keeps them
        call.clear(guesses=True)
        assert not call.key("1")
        assert call.hear(Heard(first, 0.9, 40.0, best=first)).startswith("heard IÄÄ! Ph'nglui!")
        assert call.call == first and not call.guesses


def test_hearing_words_every_case() -> None:
    call = parse_call("IÄÄ! Cthulhu!")
    assert hearing(Heard(None, 0.1, 1.0)).sentence == "no call heard clearly (0.10): key the call"
    unsure = hearing(Heard(call, 0.6, 1.0, best=call))
    assert unsure.words == tuple(call) and unsure.guesses == (call,)
    assert unsure.sentence.startswith("not sure: heard IÄÄ! Cthulhu! (0.60); ask the cult")
    assert ", 2 for" not in unsure.sentence


def test_the_microphone_listens_per_roll_and_pushes_to_talk() -> None:
    listener = FakeListener()
    mic = Microphone(listener)
    assert mic.listen(tuple("I3E"), (), "Anna") == "listening for Anna's call… (or key it)"
    assert mic.toggle() == "push-to-talk: listening… (v again to stop)" and mic.talking
    mic.stop()
    assert not mic.talking and listener.ended == 1 and listener.talk == [True]
    assert listener.turns == [(tuple("I3E"), ())]
    silent = Microphone(None)
    assert silent.listen(tuple("I3E"), (), "Anna") is None
    silent.stop()


class DisputeApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.got: list[Message] = []
        self.disputes = Disputes(self, self.got.append, demo=False)


OUTCOME = TurnResult(True, OK, 5, recorded=True)


def _table(layout: tuple[str, ...]) -> TableSeen:
    return TableSeen("Anna", ("I", "3"), Seen((), {"Anna": layout}, source="test"))


@sync
async def test_a_layout_the_camera_agrees_with_goes_on() -> None:
    app = DisputeApp()
    async with app.run_test():
        app.disputes.expect(OUTCOME)
        assert not app.disputes.seen(_table(("Ben",)), "Ben", 1)  # another cult's: stale
        assert not app.disputes.seen(_table(("3", "I")), "Anna", 1)
        assert [type(m) for m in app.got] == [LayoutAgreed] and app.disputes.pending is None
        assert not app.disputes.seen(_table(("3", "I")), "Anna", 1)  # nothing waits any more


@sync
async def test_a_dispute_is_settled_read_again_or_corrected() -> None:
    app = DisputeApp()
    async with app.run_test() as pilot:
        app.disputes.expect(OUTCOME)
        assert app.disputes.seen(_table(("3", "3")), "Anna", 2)
        await pilot.pause()
        assert isinstance(app.screen, DisputeScreen)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.got[-1], ReadAgain) and app.got[-1].expected == ("I", "3")
        assert app.disputes.pending is OUTCOME  # the turn still waits
        assert app.disputes.seen(_table(("3",)), "Anna", 2)
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        settled = app.got[-1]
        assert isinstance(settled, DisputeSettled) and settled.correct
        assert settled.outcome is OUTCOME and app.disputes.pending is None
        assert settled.note == (
            "dispute after Anna's turn in phase 2: the camera saw 3 in Anna's layout where "
            "the rules have I3 (not seen: I); the turn is corrected"
        )


def test_a_dispute_note_says_how_it_was_settled() -> None:
    d = Dispute("Ben", 1, ("E", "I"), ())
    assert d.note("accept", demo=False).endswith(
        "the camera saw - in Ben's layout where the rules have EI (not seen: I E); "
        "the rules stand: the dice on the table were put right"
    )
    assert d.note("accept", demo=True).endswith("packed close in a long layout)")


def test_the_turn_map_shows_the_roll_where_it_was_read() -> None:
    g = Game(Options.make(["Anna", "Ben"]))
    view = turn_map(g, None, tuple("I3"), None, 1, "Anna")
    assert view.roll == ("I", "3") and view.roll_at == () and view.picked == 1
    assert view.paper == "A3" and view.layouts == {"Anna": (), "Ben": ()}
    assert view.to_move == "Anna" and view.layout_dice is None


class VerdictApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VerdictLine(id="verdict")


class DeskHost:
    """What the desk uses of the app: the session and the record file."""

    def __init__(self, session: TableSession) -> None:
        self.session = session
        self.saved = 0

    def save_record(self) -> None:
        self.saved += 1


@sync
async def test_the_turn_desk_enters_turns_and_notes_and_says_a_refusal() -> None:
    sec = secretary()
    session = TableSession.new(sec, Options.make(["Anna", "Ben"]))
    session.submit_start_roll("Anna", tuple("3I21EI"))
    session.submit_start_roll("Ben", tuple("1IE2II"))
    host, told = DeskHost(session), list[str]()
    app = VerdictApp()
    async with app.run_test():
        line = app.query_one(VerdictLine)
        desk = TurnDesk(host, line, told.append)  # type: ignore[arg-type]
        g = session.game.copy()
        bad = desk.turn(
            "Anna", tuple("123EEE"), CallAction(parse_call("Cthulhu!"), tuple("123")), g
        )
        assert bad is not None and not bad.accepted and bad.rule == "D2"
        assert desk.status == "Anna must make a legal call (V2)" and "ILLEGAL" in str(line.render())
        action = CallAction(parse_call("IÄÄ! Cthulhu! Fhtagn!"), tuple("I3E"))
        good = desk.turn("Anna", tuple("I3EEEI"), action, session.game.copy())
        assert good is not None and good.accepted and "LEGAL" in str(line.render())
        assert desk.note("a dispute, settled") and host.saved == 3
        assert sec.record_text().splitlines()[-1] == "# a dispute, settled"

        def refuse(*_args: object, **_kw: object) -> NoReturn:
            raise StoreError("the disk is full")

        sec.store.append = refuse  # type: ignore[method-assign]
        assert not desk.note("lost")
        assert told == ["the disk is full"] and desk.status == "NOT STORED: the disk is full"
        assert desk.turn("Ben", tuple("I3EEEI"), action, session.game.copy()) is None
        assert host.saved == 3 and session.game.to_move == "Ben"  # nothing was accepted
    sec.close()
