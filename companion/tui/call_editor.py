"""The words of the call being keyed (or heard), and their editing.

``CallEditor`` is the call line of the phase screen. It owns the words keyed so far and the
two guesses of an unsure spoken call (keys 1 and 2), and words the line itself. The screen
keeps the turn's flow: it hands the editor the keys of the call stage and decides what Enter,
``g`` and the way back to the roll do.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..rules import Call, Word
from .describe import WORD_KEYS
from .entry import words_text
from .turn_lines import Stage
from .voice_call import HeardCall, hearing


class CallEditor(Static):
    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.words: list[Word] = []
        self.guesses: tuple[Call, ...] = ()  # an unsure spoken call's two guesses, keys 1 and 2

    def clear(self, guesses: bool = False) -> None:
        """No words keyed; with ``guesses`` a new turn's call (a recalled one keeps them)."""
        self.words = []
        if guesses:
            self.guesses = ()

    @property
    def call(self) -> Call:
        return tuple(self.words)

    def key(self, key: str) -> bool:
        """A key that edits the words (a word, a guess, backspace); False when not ours."""
        if key in WORD_KEYS:
            self.words.append(WORD_KEYS[key])
        elif key in ("1", "2") and int(key) <= len(self.guesses):
            self.words = list(self.guesses[int(key) - 1])
        elif key == "backspace" and self.words:
            self.words.pop()
        else:
            return False
        return True

    def hear(self, heard: HeardCall) -> str:
        """A spoken call: its words (when heard clearly) and guesses; the status to show."""
        h = hearing(heard)
        self.guesses = h.guesses
        if h.words is not None:
            self.words = list(h.words)
        return h.sentence

    def show(self, stage: Stage) -> None:
        call = Text.assemble(("call", "bold"), " ", (words_text(self.words), "bold magenta"))
        if stage is Stage.GIVE_UP:
            call.append(" · give up: key the face", style="dim")
        elif stage is Stage.CALL:
            call.append(
                " · keys i c f p, enter · l legal · g give up · esc edit the roll", style="dim"
            )
        elif stage is Stage.FORFEIT:
            call.append(" · forfeit: key the face of the die to give up", style="dim")
        self.update(call)
