"""The words of the call being keyed (or heard), and their editing.

``CallEditor`` is the call line of the phase screen. It owns the words keyed so far and the
two guesses of an unsure spoken call (keys 1 and 2), and words the line itself. The screen
keeps the turn's flow: it hands the editor the keys of the call stage and decides when Enter,
``g`` and the way back to the roll apply. The action chosen comes back as ``ActionChosen``.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..rules import Action, Call, Game, Word
from ..rules.calls import call_text
from .describe import WORD_KEYS
from .entry import matching, plain_action, words_text
from .messages import ActionChosen
from .screens.modals import ChoiceScreen, largest_first
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

    def choose(self, g: Game, cult: str, roll: tuple[str, ...]) -> bool:
        """Enter: the action of the words keyed, judged in ``g`` (``ActionChosen``), asking
        which dice when there are several ways; False when no word is keyed."""
        call = self.call
        if not call:
            return False
        ways = matching(g.legal_actions(roll, cult), call)
        if len(ways) == 1:
            self.post_message(ActionChosen(ways[0]))
        elif ways:
            title = f"{cult} calls {call_text(call)}: which dice?"
            window = ChoiceScreen(title, list(largest_first(ways)), typed=True)
            self.app.push_screen(window, self._chosen)
        else:  # no legal way: judged as said, so the verdict names the rule the call breaks
            self.post_message(ActionChosen(plain_action(g, cult, roll, call)))
        return True

    def legal(self, g: Game, cult: str, roll: tuple[str, ...]) -> None:
        """l: every legal action for the roll, to pick one (``ActionChosen``)."""
        window = ChoiceScreen(
            f"Legal for {cult}'s roll {''.join(roll)}", list(g.legal_actions(roll, cult))
        )
        self.app.push_screen(window, self._chosen)

    def _chosen(self, action: Action | None) -> None:
        if action is not None:
            self.post_message(ActionChosen(action))

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
