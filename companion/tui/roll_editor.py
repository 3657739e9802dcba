"""The roll of a turn as the camera read it or the secretary keys it, and its editing.

``RollEditor`` is the roll line of the phase screen. It owns the roll being keyed, the die
picked on the map and the camera's look that read it (kept as evidence, and the places of
its dice on the map), and words the line itself.
The screen keeps the turn's flow: it hands the editor the keys of the roll stage and is told,
by a ``RollEditor.Said`` message, what the status line should say after a pick or a change.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from ..vision.seen import UNKNOWN, Seen
from .describe import FACE_KEYS
from .entry import RollEntry
from .turn_lines import Stage


class RollEditor(Static):
    class Said(Message):
        """A sentence for the status line about the roll."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.entry = RollEntry(0)
        self.picked: int | None = None  # the die of the roll picked on the map
        self.look: Seen | None = None  # the camera's look that read this roll (kept as evidence)

    def begin(self, size: int, faces: tuple[str, ...] = (), look: Seen | None = None) -> None:
        """A new roll of ``size`` dice, with the faces known so far and the camera's look."""
        self.entry = RollEntry(size, list(faces))
        self.picked = None
        self.look = look

    @property
    def seen(self) -> tuple[str, ...] | None:
        """The camera's reading of the roll, kept with the event as evidence."""
        return self.look.roll if self.look is not None else None

    def take_read(self, look: Seen, size: int) -> str | None:
        """The camera's reading of a roll of ``size`` dice; what the secretary must key, or
        None when it read every die."""
        read = look.roll
        unread = read.count(UNKNOWN)
        self.begin(size, read[:size] if len(read) == size else (), look)
        if len(read) != size:
            return f"the camera saw {len(read)} dice, {size} expected: key the roll"
        if unread:
            them = "it" if unread == 1 else "them"
            return (
                f"the camera could not read {unread} {'die' if unread == 1 else 'dice'}: "
                f"key {them} in"
            )
        return None

    @property
    def roll(self) -> tuple[str, ...]:
        return self.entry.roll

    @property
    def complete(self) -> bool:
        return self.entry.complete

    def set_faces(self, faces: tuple[str, ...]) -> None:
        """The whole roll at once (the demo keys what the camera could not read)."""
        self.entry.faces = list(faces)

    # ------------------------------------------------------------- keys
    def key(self, key: str) -> bool:
        """A key of the roll stage (not enter, which is the screen's); False when not ours."""
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
                self.set_die(self.picked, UNKNOWN)
            else:
                self.entry.backspace()
        else:
            return False
        return True

    def pick(self, step: int, *, say: bool = True) -> None:
        """Move the pick on the map to the next (or previous) die of the roll."""
        n = len(self.entry.faces)
        if n == 0:
            return
        self.picked = (
            (0 if step > 0 else n - 1) if self.picked is None else (self.picked + step) % n
        )
        if say:
            self.post_message(
                self.Said(
                    f"die {self.picked + 1} of {n} picked on the map: key its motif (esc: no pick)"
                )
            )

    def pick_die(self, index: int) -> bool:
        """The die ``index`` picked with the mouse on the map; False when the roll has none."""
        if index >= len(self.entry.faces):
            return False
        self.picked = index
        self.post_message(
            self.Said(
                f"die {index + 1} of {len(self.entry.faces)} picked on the map: key its motif"
            )
        )
        return True

    def set_die(self, index: int, face: str) -> None:
        """The secretary's motif for one die of the roll; the camera's read stays as evidence."""
        if index >= len(self.entry.faces):
            return
        was = self.entry.faces[index]
        self.entry.faces[index] = face
        self.picked = None
        kept = " (the camera's read is kept as evidence)" if self.seen is not None else ""
        self.post_message(self.Said(f"die {index + 1}: {was} -> {face}{kept}"))

    # ------------------------------------------------------------- text
    def show(self, stage: Stage, cult: str) -> None:
        label = "last roll" if stage in (Stage.DONE, Stage.SCORING) else "roll"
        size = self.entry.size
        roll = Text.assemble(
            (label, "bold"), f" {cult} ({size} {'die' if size == 1 else 'dice'}): "
        )
        for i, face in enumerate(self.entry.text().split(" ")):  # the picked die stands out
            hit = stage is Stage.ROLL and i == self.picked
            roll.append(
                face,
                "bold black on bright_yellow"
                if hit
                else "bold red"
                if face == UNKNOWN
                else "bold cyan",
            )
            roll.append(" " if i + 1 < max(size, 1) else "")
        if stage is Stage.ROLL:
            roll.append(
                " · i 1 2 3 e, enter, left/right pick" if size > 1 else " · keys i 1 2 3 e, enter",
                style="dim",
            )
        self.update(roll)
