"""What the table watcher hands on: one typed look at the table.

Plain data, free of OpenCV and of the models, so that the screens, the
secretary and the simulated table share it without the vision stack: a
``SeenDie`` per die (its zone, its face or ``?``, where it lies on the mat and
in the frame) and a ``Seen`` per look (the roll, each cult's layout, the dice
and the frame kept as evidence).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np
import numpy.typing as npt

#: The face of a die that could not be read: shown as doubt, never guessed.
UNKNOWN = "?"

Frame = npt.NDArray[np.uint8]


class ZoneKind(StrEnum):
    """The kinds of zone printed on the mat (vision/mat.py), and off the mat."""

    LAYOUT = "layout"
    CENTER = "center"
    ROLLING = "rolling"
    OFF = "off"


@dataclass(frozen=True)
class TableZone:
    """Where a die lies: a kind, and for a layout the seat (1..n) it belongs to."""

    kind: ZoneKind
    seat: int | None = None

    @classmethod
    def layout(cls, seat: int) -> TableZone:
        return cls(ZoneKind.LAYOUT, seat)

    @property
    def name(self) -> str:
        """The zone's name as the mat prints it ("cult 2", "center", "rolling area")."""
        if self.kind is ZoneKind.LAYOUT:
            return f"cult {self.seat}"
        return {
            ZoneKind.CENTER: "center",
            ZoneKind.ROLLING: "rolling area",
            ZoneKind.OFF: "off the mat",
        }[self.kind]


ROLLING_AREA = TableZone(ZoneKind.ROLLING)
CENTER = TableZone(ZoneKind.CENTER)
OFF_MAT = TableZone(ZoneKind.OFF)


@dataclass(frozen=True)
class SeenDie:
    """One die the camera saw: ``x``, ``y`` on the mat (mm), ``px``, ``py`` in the frame."""

    x: float
    y: float
    face: str
    confidence: float
    zone: TableZone
    px: float = 0.0
    py: float = 0.0


class ReadDie(Protocol):
    """What a reader reports of one die (vision.read.DieReading is one)."""

    @property
    def x(self) -> float: ...
    @property
    def y(self) -> float: ...
    @property
    def face(self) -> str: ...
    @property
    def confidence(self) -> float: ...


#: Reads one BGR frame into its dice: the vision pipeline (finder + face reader).
FrameReader = Callable[[Frame], Sequence[ReadDie]]


@dataclass(frozen=True)
class LayoutCheck:
    """How a cult's layout on the table compares with what the rules expect there."""

    missing: list[str]  # faces expected but not seen
    unexpected: list[str]  # faces seen but not expected
    unreadable: int  # dice read as '?' in the layout

    @property
    def matches(self) -> bool:
        return not self.missing and not self.unexpected and not self.unreadable


def check_layout(seen: Sequence[str], expected: Sequence[str]) -> LayoutCheck:
    """Compare the faces seen in a layout with the faces it should hold.

    Unreadable dice are counted apart: they neither confirm nor contradict,
    so the secretary asks instead of judging.
    """
    known = Counter(f for f in seen if f != UNKNOWN)
    want = Counter(expected)
    missing = sorted((want - known).elements())
    unexpected = sorted((known - want).elements())
    return LayoutCheck(missing, unexpected, len(seen) - sum(known.values()))


@dataclass(frozen=True)
class Seen:
    """One settled look at the table.

    ``roll`` holds the faces in the rolling area, ``layouts`` the faces in
    each cult's layout zone. ``truth`` is known only on the simulated table.
    ``dice`` places every read die on the mat (the roll's dice first, in the
    order of ``roll``); ``frame`` is the image read (BGR), kept for evidence;
    ``paper`` the mat's size. Cameras without positions leave them empty.
    """

    roll: tuple[str, ...]
    layouts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    truth: tuple[str, ...] | None = None
    source: str = ""
    dice: tuple[SeenDie, ...] = ()
    frame: Frame | None = None
    paper: str = "A3"

    @classmethod
    def of_dice(
        cls,
        dice: Sequence[SeenDie],
        cults: Sequence[str],
        source: str,
        frame: Frame | None,
        paper: str,
        truth: tuple[str, ...] | None = None,
        roll_kinds: tuple[ZoneKind, ...] = (ZoneKind.ROLLING,),
    ) -> Seen:
        """The roll (dice in ``roll_kinds``), each seat's layout and every die, the roll's first."""
        rolled = [d for d in dice if d.zone.kind in roll_kinds]
        rest = [d for d in dice if d.zone.kind not in roll_kinds]
        layouts = {
            c: tuple(d.face for d in dice if d.zone == TableZone.layout(seat))
            for seat, c in enumerate(cults, start=1)
        }
        return cls(
            tuple(d.face for d in rolled),
            layouts,
            truth,
            source,
            tuple(rolled + rest),
            frame,
            paper,
        )

    def layout_check(self, cult: str, expected: Sequence[str]) -> LayoutCheck:
        """Does ``cult``'s layout on the table hold what the rules expect there?"""
        return check_layout(self.layouts.get(cult, ()), expected)

    def layout_dice(self) -> tuple[SeenDie, ...]:
        return tuple(d for d in self.dice if d.zone.kind is ZoneKind.LAYOUT)


class CameraError(Exception):
    """The camera could not be opened or stopped delivering frames; one sentence."""


class TableCamera(Protocol):
    """What the screens ask of a camera: blocking calls, made from a worker thread.

    Faces it cannot read come back as ``?`` (doubt is shown, never hidden).
    """

    name: str

    def read_roll(self, cult: str, n: int) -> Seen:
        """Wait for ``cult``'s roll of ``n`` dice to settle, then read it."""
        ...

    def read_table(self, lying: Mapping[str, tuple[str, ...]] | None = None) -> Seen:
        """Read the table as it lies now (for the layout check after a call).

        ``lying`` is what the rules expect in the named layouts; a real
        camera ignores it, the simulated table lays those dice out.
        """
        ...

    def set_cults(self, cults: tuple[str, ...]) -> None:
        """The cults in seating order: layout zone n belongs to the n-th."""
        ...

    def close(self) -> None: ...
