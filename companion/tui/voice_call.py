"""The voice part of a turn: the listener told of each roll, push-to-talk, and a heard call
put in words for the secretary.

A sure call fills the words of the call for Enter to accept; an unsure one offers its two
best guesses for one key each (1, 2) instead of a blank. The recogniser is
companion.voice's; this module only speaks of what it heard.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..rules import Call, Word
from ..rules.calls import call_text
from .host import VoiceListener


class HeardCall(Protocol):
    """What the screens use of companion.voice.heard.Heard (the voice extra may be absent)."""

    @property
    def call(self) -> Call | None: ...
    @property
    def confidence(self) -> float: ...
    @property
    def guesses(self) -> tuple[Call, ...]: ...
    @property
    def text(self) -> str | None: ...
    @property
    def sure(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Hearing:
    """A heard call as the call line takes it."""

    words: tuple[Word, ...] | None  # None: nothing heard clearly, the words keyed stay
    guesses: tuple[Call, ...]  # for keys 1 and 2; empty when the call is sure
    sentence: str  # for the status line


def hearing(heard: HeardCall) -> Hearing:
    """What the secretary is shown of a heard call, with its confidence."""
    guesses = () if heard.sure else tuple(heard.guesses)
    if heard.call is None:
        offer = " / ".join(f"{n} {call_text(c)}" for n, c in enumerate(guesses, start=1))
        return Hearing(
            None,
            guesses,
            f"no call heard clearly ({heard.confidence:.2f}): "
            + (f"key {offer}, or key the call" if offer else "key the call"),
        )
    if heard.sure:
        sentence = (
            f"heard {heard.text} ({heard.confidence:.2f}): Enter to accept, backspace to correct"
        )
    else:
        other = f", 2 for {call_text(guesses[1])}" if len(guesses) > 1 else ""
        sentence = (
            f"not sure: heard {heard.text} ({heard.confidence:.2f}); "
            f"ask the cult, then Enter to accept{other}, or key the call"
        )
    return Hearing(tuple(heard.call), guesses, sentence)


class Microphone:
    """The voice listener as one turn uses it: open for a roll's calls, push-to-talk (v)."""

    def __init__(self, listener: VoiceListener | None) -> None:
        self.listener = listener
        self.talking = False  # push-to-talk held open with the v key

    def listen(self, roll: tuple[str, ...], layout: tuple[str, ...], cult: str) -> str | None:
        """Narrow the grammar to the calls this roll and layout allow; the status, or None
        without a listener."""
        if self.listener is None:
            return None
        self.listener.start_turn(roll, layout)
        return f"listening for {cult}'s call… (or key it)"

    def stop(self) -> None:
        """The turn's call is settled (or the roll is edited again): stop listening."""
        if self.listener is not None:
            self.listener.end_turn()
            self.talking = False

    def toggle(self) -> str:
        """v: push-to-talk on or off; the status."""
        if self.listener is None:
            return "no microphone"
        self.talking = not self.talking
        self.listener.push_to_talk(self.talking)
        return (
            "push-to-talk: listening… (v again to stop)"
            if self.talking
            else "push-to-talk: stopped"
        )
