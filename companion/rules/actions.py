"""What a cult does on its turn: a call with its placed dice and takes, or a give-up."""

from __future__ import annotations

from dataclasses import dataclass

from .calls import Call, call_text, k_id
from .faces import faces_text, sort_faces

CENTER = "center"


@dataclass(frozen=True, slots=True)
class CallAction:
    """A call of table K (or any sequence of words, to be judged).

    ``place`` is kept sorted so that equal choices compare equal; ``take``
    keeps its order because takes are judged one die after the other (F2).
    """

    call: Call
    place: tuple[str, ...] = ()
    take: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "place", sort_faces(self.place))

    @property
    def k(self) -> str | None:
        return k_id(self.call)

    def __str__(self) -> str:
        out = call_text(self.call)
        if self.place:
            out += " place " + faces_text(self.place)
        if self.take:
            out += " take " + ", ".join(self.take)
        return out


@dataclass(frozen=True, slots=True)
class GiveUp:
    """T4: one die of the roll goes to the center."""

    face: str

    def __str__(self) -> str:
        return f"give {self.face}"


Action = CallAction | GiveUp
