"""What the roll-off and the phase screens share: their host, and the camera's worker.

A camera call blocks until the table settles, so it runs in a worker thread
and its answer comes back as a message (RollSeen, TableSeen, CameraFailed);
one worker at a time, so a newer request replaces a stale one.
"""

from __future__ import annotations

from functools import partial

from textual.screen import Screen

from ...vision.seen import CameraError, TableCamera
from ..host import Host, host_of
from ..messages import CameraFailed, RollSeen, TableSeen


class TableScreen(Screen[None]):
    @property
    def host(self) -> Host:
        return host_of(self.app)

    def read_roll_later(self, camera: TableCamera, cult: str, size: int) -> None:
        """Wait for ``cult``'s roll of ``size`` dice in a worker; a RollSeen follows."""
        self.run_worker(
            partial(self._read_roll, camera, cult, size),
            thread=True,
            group="camera",
            exclusive=True,
        )

    def read_table_later(self, camera: TableCamera, cult: str, expected: tuple[str, ...]) -> None:
        """Look at the table in a worker, for ``cult``'s layout check; a TableSeen follows."""
        self.run_worker(
            partial(self._read_table, camera, cult, expected),
            thread=True,
            group="camera",
            exclusive=True,
        )

    def _read_roll(self, camera: TableCamera, cult: str, size: int) -> None:
        try:
            seen = camera.read_roll(cult, size)
        except CameraError as exc:
            self.post_message(CameraFailed(str(exc)))
            return
        self.post_message(RollSeen(cult, size, seen))

    def _read_table(self, camera: TableCamera, cult: str, expected: tuple[str, ...]) -> None:
        try:
            seen = camera.read_table({cult: expected})
        except CameraError as exc:
            self.post_message(CameraFailed(str(exc)))
            return
        self.post_message(TableSeen(cult, expected, seen))
