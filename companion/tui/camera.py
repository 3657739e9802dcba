"""The simulated table behind the demo, as a ``TableCamera``.

Without a reader the rolled faces are reported directly; with one, the
table is drawn by the synth renderer and read by the same table watcher a
real camera uses (companion.vision.table), so the demo shows the real path.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..record.simulate import roll_dice
from ..rules import Game
from ..vision.seen import ROLLING_AREA, UNKNOWN, CameraError, FrameReader, Seen, TableZone

if TYPE_CHECKING:
    from ..synth.simtable import SimulatedTable
    from ..vision.table import TableWatcher


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
        reader: FrameReader | None = None,
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
        self._watcher: TableWatcher | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    # The table's contents by the names the mat prints on its zones.
    def _contents(self) -> dict[str, Sequence[str]]:
        g = self.game()
        out: dict[str, Sequence[str]] = {ROLLING_AREA.name: self._rolling}
        for seat, cult in enumerate(g.cults, start=1):
            out[TableZone.layout(seat).name] = self._layout(g, cult)
        return out

    def _layout(self, g: Game, cult: str) -> tuple[str, ...]:
        return self._lying.get(cult, tuple(g.layouts[cult]))

    def table(self, cults: int) -> SimulatedTable:
        """The vision engineers' simulated table, opened once (drawing the mat is slow)."""
        if self._table is None:
            from ..synth.simtable import SimulatedTable

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
                UNKNOWN if self.rng.random() < self.unreadable_rate else f for f in seen.roll
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
        watcher = self.watcher(g.cults)
        return watcher.look(watcher.source.read(), self._rolling)

    def watcher(self, cults: tuple[str, ...]) -> TableWatcher:
        """The table watcher on the rendered table, made once (drawing the mat is slow)."""
        if self._watcher is None:
            from ..vision.seen import ZoneKind
            from ..vision.table import TableWatcher

            assert self.reader is not None
            table = self.table(len(cults))
            # The simulated table draws no dice in the center: a rolled die resting there is rolled.
            self._watcher = TableWatcher(
                table,
                table.calibration,
                self.reader,
                self.name,
                roll_kinds=(ZoneKind.ROLLING, ZoneKind.CENTER),
            )
            self._watcher.set_cults(cults)
        return self._watcher

    def set_cults(self, cults: tuple[str, ...]) -> None:
        """Seats follow the game itself here."""

    def close(self) -> None:
        self._stop.set()
        if self._table is not None:
            self._table.close()


def fill_unread(seen: tuple[str, ...], keyed: Sequence[str]) -> tuple[str, ...]:
    """Replace the ``?`` faces, in order, by the faces the secretary keyed."""
    it = iter(keyed)
    return tuple(next(it, UNKNOWN) if f == UNKNOWN else f for f in seen)
