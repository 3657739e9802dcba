"""Messages the camera worker posts to the screens (typed, thread-safe to post)."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from ..rules import Action
from ..vision.seen import Seen


class RollSeen(Message):
    """A settled roll was read."""

    def __init__(self, cult: str, size: int, seen: Seen) -> None:
        super().__init__()
        self.cult = cult
        self.size = size
        self.seen = seen


class TableSeen(Message):
    """The table was read after a call, for the layout check."""

    def __init__(self, cult: str, expected: tuple[str, ...], seen: Seen) -> None:
        super().__init__()
        self.cult = cult
        self.expected = expected
        self.seen = seen


class CameraFailed(Message):
    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class CallHeard(Message):
    """The voice listener heard (or failed to hear) a call; posted from its thread."""

    def __init__(self, heard: Any) -> None:
        super().__init__()
        self.heard = heard  # companion.voice.heard.Heard (the voice extra may be absent)


class RollKeyed(Message):
    """The dice of the roll the camera could not read were keyed (the demo's secretary)."""

    def __init__(self, faces: tuple[str, ...], note: str = "") -> None:
        super().__init__()
        self.faces = faces
        self.note = note


class CallAnnounced(Message):
    """A cult speaks its call: its words are shown before the call is judged."""

    def __init__(self, action: Action) -> None:
        super().__init__()
        self.action = action


class ActionChosen(Message):
    """The action of the turn is settled (keyed words, a choice from a list, a give-up, the
    demo)."""

    def __init__(self, action: Action) -> None:
        super().__init__()
        self.action = action
