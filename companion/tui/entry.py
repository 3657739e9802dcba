"""Keying in a roll and a call: the pure part of the secretary's keyboard."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules import Action, CallAction, Game, Word
from ..rules.calls import Call, shape_of
from ..rules.faces import TENTACLES, E, I
from ..vision.seen import UNKNOWN
from .describe import FACE_KEYS


@dataclass
class RollEntry:
    """The faces of one roll of ``size`` dice as far as they are known.

    Faces the camera could not read are ``?``: a keyed face fills the first
    of them; without any, keys append until the roll is complete.
    """

    size: int
    faces: list[str] = field(default_factory=list)

    def key(self, key: str) -> bool:
        face = FACE_KEYS.get(key)
        if face is None:
            return False
        if UNKNOWN in self.faces:
            self.faces[self.faces.index(UNKNOWN)] = face
        elif len(self.faces) < self.size:
            self.faces.append(face)
        else:
            return False
        return True

    def backspace(self) -> None:
        if self.faces:
            self.faces.pop()

    @property
    def complete(self) -> bool:
        return len(self.faces) == self.size and UNKNOWN not in self.faces

    @property
    def roll(self) -> tuple[str, ...]:
        return tuple(self.faces)

    def text(self) -> str:
        shown = list(self.faces) + ["_"] * max(0, self.size - len(self.faces))
        return " ".join(shown)


def matching(legal: tuple[Action, ...], call: Call) -> list[CallAction]:
    """The legal ways (dice placed, dice taken) to carry out ``call``."""
    return [a for a in legal if isinstance(a, CallAction) and a.call == call]


def plain_action(g: Game, cult: str, roll: tuple[str, ...], call: Call) -> CallAction:
    """A call carried out the obvious way, to be judged when no legal way exists.

    The judge then names the rule the call itself breaks (its needs, stage 6)
    rather than a fault of the dice chosen.
    """
    s = shape_of(call)
    place: list[str] = []
    if s.iaa and I in roll:
        place.append(I)
    if s.cthulhu:
        place.extend(f for f in roll if f in TENTACLES)
    if s.fhtagn and E in roll:
        place.append(E)
    take: tuple[str, ...] = ()
    if s.phnglui or s.all_fhtagn:
        n = 1 if s.phnglui else min(2, g.free_dice(cult))
        take = ("center",) * n
    return CallAction(call, tuple(place), take)


def words_text(words: list[Word]) -> str:
    return " ".join(w.text for w in words)
