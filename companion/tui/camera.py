"""What the TUI asks of a camera, and the simulated table behind the demo.

A ``TableCamera`` blocks until the table is settled and returns what it
read; the app calls it only from a worker thread, so a slow read never
freezes the screen. Faces it cannot read come back as ``?`` (doubt is
shown, never hidden) and the secretary keys them in.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..record.simulate import roll_dice
from ..rules import Game

if TYPE_CHECKING:
    from ..vision.sources import SimulatedTable

UNREAD = "?"
#: Reads one BGR image into (x, y, face, confidence) per die; the vision pipeline.
ImageReader = Callable[[object], list[tuple[float, float, str, float]]]


@dataclass(frozen=True)
class MapDie:
    """A read die where it lies on the mat (millimetres), for the table map.

    ``kind`` is the zone's kind ("rolling", "center", "layout" or "off"),
    ``seat`` the layout's seat (1..n) for layout dice.
    """

    x: float
    y: float
    face: str
    confidence: float
    kind: str
    seat: int | None = None
    px: float = 0.0  # where it is in the frame, for the annotated evidence
    py: float = 0.0


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
    dice: tuple[MapDie, ...] = ()
    frame: object | None = None
    paper: str = "A3"


def seen_from_placed(placed: Sequence[object], cal: object, cults: Sequence[str], source: str,
                     frame: object, truth: tuple[str, ...] | None = None,
                     roll_kinds: tuple[str, ...] = ("rolling", "center")) -> Seen:
    """A Seen from the zones' PlacedDie list: the roll, the layouts and every die on the mat."""
    from ..vision.calibration import Calibration
    from ..vision.zones import PlacedDie

    assert isinstance(cal, Calibration)
    dice = [d for d in placed if isinstance(d, PlacedDie)]
    rolled = [d for d in dice if d.kind in roll_kinds]
    rest = [d for d in dice if d.kind not in roll_kinds]
    where: list[Any] = list(cal.to_mat([[d.x, d.y] for d in rolled + rest])) if dice else []
    on_mat = tuple(MapDie(float(m[0]), float(m[1]), d.face, d.confidence, d.kind, d.cult, d.x, d.y)
                   for d, m in zip(rolled + rest, where, strict=True))
    roll = tuple(d.face for d in rolled)
    layouts = {c: tuple(d.face for d in dice if d.kind == "layout" and d.cult == seat)
               for seat, c in enumerate(cults, start=1)}
    return Seen(roll, layouts, truth, source, on_mat, frame, cal.paper)


class CameraError(Exception):
    """The camera could not be opened or stopped delivering frames."""


class TableCamera(Protocol):
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


class SimulatedCamera:
    """The demo's table: seeded dice, drawn and read when a reader is given.

    Without ``reader`` the rolled faces are reported directly (still with
    ``unreadable_rate`` of them shown as ``?``), which keeps the demo and
    the tests free of the vision stack. ``misplace`` lets a test make the
    players put a wrong die into a layout, to raise a dispute.
    """

    def __init__(
        self,
        game: Callable[[], Game],
        seed: int = 1,
        *,
        reader: ImageReader | None = None,
        unreadable_rate: float = 0.0,
        delay: float = 0.0,
    ) -> None:
        self.game = game
        self.rng = random.Random(seed)
        self.seed = seed
        self.reader = reader
        self.unreadable_rate = unreadable_rate
        self.delay = delay
        self.misplace: dict[str, tuple[str, ...]] = {}
        self.name = "simulated table" + (" (rendered and read)" if reader else "")
        self._rolling: tuple[str, ...] = ()
        self._lying: dict[str, tuple[str, ...]] = {}
        self._table: SimulatedTable | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    # The table's contents in the vision engineers' zone names.
    def _contents(self) -> dict[str, Sequence[str]]:
        g = self.game()
        out: dict[str, Sequence[str]] = {"rolling area": self._rolling}
        for seat, cult in enumerate(g.cults, start=1):
            out[f"cult {seat}"] = self._layout(g, cult)
        return out

    def _layout(self, g: Game, cult: str) -> tuple[str, ...]:
        return self._lying.get(cult, tuple(g.layouts[cult]))

    def table(self, cults: int) -> SimulatedTable:
        """The vision engineers' simulated table, opened once (drawing the mat is slow)."""
        if self._table is None:
            from ..vision.sources import SimulatedTable

            table = SimulatedTable(self._contents, seed=self.seed)
            table.calibration = table.calibration.with_cults(cults)
            table.open()
            self._table = table
        return self._table

    def read_roll(self, cult: str, n: int) -> Seen:
        with self._lock:
            truth = roll_dice(self.rng, n)
            self._rolling = truth
            if self._stop.wait(self.delay):
                raise CameraError("the camera was stopped")
            seen = self._look()
            roll = tuple(
                UNREAD if self.rng.random() < self.unreadable_rate else f for f in seen.roll
            )
            return Seen(roll, seen.layouts, truth, self.name)

    def read_table(self, lying: Mapping[str, tuple[str, ...]] | None = None) -> Seen:
        with self._lock:
            self._rolling = ()
            # A misplacement shows once; then the players put it right.
            self._lying = {c: self.misplace.pop(c, faces) for c, faces in (lying or {}).items()}
            try:
                return self._look()
            finally:
                self._lying = {}

    def _look(self) -> Seen:
        g = self.game()
        if self.reader is None:
            layouts = {c: self._layout(g, c) for c in g.cults}
            return Seen(self._rolling, layouts, self._rolling, self.name)
        return _read_rendered(self, g)

    def set_cults(self, cults: tuple[str, ...]) -> None:
        """Seats follow the game itself here."""

    def close(self) -> None:
        self._stop.set()
        if self._table is not None:
            self._table.close()


def _read_rendered(cam: SimulatedCamera, g: Game) -> Seen:
    """Render the table with the synth renderer and read it with the vision pipeline.

    The simulated table draws no dice in the center, so a rolled die that
    came to rest on the center's square still belongs to the roll.
    """
    from ..vision.zones import place_dice

    assert cam.reader is not None
    table = cam.table(len(g.cults))
    frame = table.read()
    placed = place_dice(table.calibration, cam.reader(frame))
    return seen_from_placed(placed, table.calibration, g.cults, cam.name, frame, cam._rolling)


def fill_unread(seen: tuple[str, ...], keyed: Sequence[str]) -> tuple[str, ...]:
    """Replace the ``?`` faces, in order, by the faces the secretary keyed."""
    it = iter(keyed)
    return tuple(next(it, UNREAD) if f == UNREAD else f for f in seen)
