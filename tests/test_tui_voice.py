"""The spoken call in the secretary: shown with its confidence, accepted with Enter, or
corrected."""

from __future__ import annotations

from companion.rules.calls import parse_call
from companion.tui.messages import CallHeard
from companion.tui.screens.phase import PhaseScreen
from companion.voice.heard import Heard

from .test_tui_support import key_faces, manual_app, rolloff, sync


class FakeListener:
    """Stands in for companion.voice.listen.Listener: records what the screen asks of it."""

    def __init__(self) -> None:
        self.turns: list[tuple[tuple[str, ...] | None, tuple[str, ...] | None]] = []
        self.ended = 0
        self.talk: list[bool] = []
        self.stopped = False

    def start_turn(self, roll: tuple[str, ...] | None, layout: tuple[str, ...] | None) -> None:
        self.turns.append((roll, layout))

    def end_turn(self) -> None:
        self.ended += 1

    def push_to_talk(self, pressed: bool) -> None:
        self.talk.append(pressed)

    def stop(self) -> None:
        self.stopped = True


def _status(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#status").render())


@sync
async def test_a_sure_call_is_shown_and_accepted_with_enter() -> None:
    app = manual_app()
    listener = FakeListener()
    app.listener = listener
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I3EEEI")
        assert listener.turns == [(tuple("I3EEEI"), ())]  # the grammar is narrowed to this roll
        app.screen.post_message(CallHeard(Heard(parse_call("IÄÄ! Cthulhu! Fhtagn!"), 0.93, 40.0)))
        await pilot.pause()
        assert "heard IÄÄ! Cthulhu! Fhtagn! (0.93)" in _status(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.game.layouts["Anna"] == ["I", "3", "E"]
        assert listener.ended == 1
    assert listener.stopped


@sync
async def test_an_unsure_call_asks_and_can_be_corrected_by_keys() -> None:
    app = manual_app()
    app.listener = FakeListener()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I3EEEI")
        app.screen.post_message(CallHeard(Heard(parse_call("IÄÄ! Cthulhu!"), 0.55, 40.0)))
        await pilot.pause()
        assert "not sure" in _status(app)
        for _ in range(2):
            await pilot.press("backspace")
        for k in "icf":
            await pilot.press(k)
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.game.layouts["Anna"] == [
            "I",
            "3",
            "E",
        ]  # the keyed call, not the heard one


@sync
async def test_nothing_heard_and_push_to_talk() -> None:
    app = manual_app()
    listener = FakeListener()
    app.listener = listener
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I3EEEI")
        app.screen.post_message(CallHeard(Heard(None, 0.2, 40.0, best=parse_call("IÄÄ!"))))
        await pilot.pause()
        assert "no call heard clearly (0.20): key 1 IÄÄ!, or key the call" in _status(app)
        screen = app.screen
        assert isinstance(screen, PhaseScreen) and screen.call.words == []
        await pilot.press("2")  # there is no second guess: the key does nothing
        assert screen.call.words == []
        await pilot.press("v")
        await pilot.press("v")
        await pilot.pause()
        assert listener.talk == [True, False]


@sync
async def test_an_unsure_call_offers_its_two_best_guesses_for_one_key_each() -> None:
    app = manual_app()
    app.listener = FakeListener()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I3EEEI")
        screen = app.screen
        assert isinstance(screen, PhaseScreen)
        first, second = parse_call("IÄÄ! Ph'nglui!"), parse_call("IÄÄ! Cthulhu! Fhtagn!")
        app.screen.post_message(CallHeard(Heard(None, 0.31, 40.0, best=first, second=second)))
        await pilot.pause()
        assert "key 1 IÄÄ! Ph'nglui! / 2 IÄÄ! Cthulhu! Fhtagn!" in _status(app)
        assert screen.call.words == []  # nothing taken before the secretary chooses
        await pilot.press("1")
        assert screen.call.words == list(first)
        await pilot.press("2")
        assert screen.call.words == list(second)
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.game.layouts["Anna"] == ["I", "3", "E"]  # the second guess, played


@sync
async def test_a_call_given_but_not_sure_offers_the_second_guess_on_key_2() -> None:
    app = manual_app()
    app.listener = FakeListener()
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I3EEEI")
        screen = app.screen
        assert isinstance(screen, PhaseScreen)
        heard = Heard(
            parse_call("IÄÄ! Cthulhu!"),
            0.62,
            40.0,
            best=parse_call("IÄÄ! Cthulhu!"),
            second=parse_call("IÄÄ! Cthulhu! Fhtagn!"),
        )
        app.screen.post_message(CallHeard(heard))
        await pilot.pause()
        assert "Enter to accept, 2 for IÄÄ! Cthulhu! Fhtagn!" in _status(app)
        assert screen.call.words == list(parse_call("IÄÄ! Cthulhu!"))
        await pilot.press("2")
        assert screen.call.words == list(parse_call("IÄÄ! Cthulhu! Fhtagn!"))
        # A sure call of a later utterance takes the guesses away again.
        app.screen.post_message(
            CallHeard(Heard(parse_call("IÄÄ!"), 0.9, 40.0, best=parse_call("IÄÄ!")))
        )
        await pilot.pause()
        await pilot.press("2")
        assert screen.call.words == list(parse_call("IÄÄ!")) and screen.call.guesses == ()
