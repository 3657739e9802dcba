"""The table watcher: a frame source, the reader and the mat's zones give one typed Seen."""

from __future__ import annotations

import numpy as np
import pytest

from companion.synth.simtable import SimulatedTable
from companion.vision.seen import (
    CENTER,
    OFF_MAT,
    ROLLING_AREA,
    UNKNOWN,
    CameraError,
    Seen,
    SeenDie,
    TableZone,
    ZoneKind,
    check_layout,
)
from companion.vision.sources import FrameSourceError
from companion.vision.table import TableWatcher

from .test_calibration import Read


def test_zones_are_named_as_the_mat_prints_them() -> None:
    assert [z.name for z in (ROLLING_AREA, CENTER, OFF_MAT, TableZone.layout(4))] == [
        "rolling area",
        "center",
        "off the mat",
        "cult 4",
    ]
    assert TableZone.layout(2) == TableZone(ZoneKind.LAYOUT, 2) != TableZone.layout(3)


def test_a_seen_puts_the_roll_first_and_sorts_the_layouts_by_seat() -> None:
    dice = [
        SeenDie(1, 1, "I", 0.9, TableZone.layout(2)),
        SeenDie(2, 2, "3", 0.9, ROLLING_AREA),
        SeenDie(3, 3, "E", 0.9, CENTER),
        SeenDie(4, 4, "?", 0.2, ROLLING_AREA),
        SeenDie(5, 5, "1", 0.9, OFF_MAT),
    ]
    seen = Seen.of_dice(dice, ("Anna", "Ben"), "test", None, "A3")
    assert seen.roll == ("3", UNKNOWN) and [d.face for d in seen.dice[:2]] == ["3", "?"]
    assert seen.layouts == {"Anna": (), "Ben": ("I",)} and len(seen.dice) == 5
    both = Seen.of_dice(
        dice, ("Anna", "Ben"), "test", None, "A3", roll_kinds=(ZoneKind.ROLLING, ZoneKind.CENTER)
    )
    assert both.roll == ("3", "E", "?")
    assert [d.face for d in seen.layout_dice()] == ["I"]
    assert (
        seen.layout_check("Ben", ["I"]).matches and not seen.layout_check("Ben", ["I", "2"]).matches
    )
    assert check_layout(["I", "?"], ["I", "2"]).unreadable == 1


def test_the_watcher_reads_the_table_as_it_lies() -> None:
    contents = {"rolling area": list("I2"), "cult 1": list("I3"), "cult 2": list("E")}
    table = SimulatedTable(lambda: contents, seed=3)
    table.calibration = table.calibration.with_cults(2)
    table.open()

    def truthful(frame: object) -> list[Read]:
        return [Read(x, y, f, 1.0) for _z, x, y, f in table.last_truth]

    watcher = TableWatcher(table, table.calibration, truthful)
    watcher.set_cults(("Anna", "Ben"))
    seen = watcher.read_table()
    assert sorted(seen.roll) == ["2", "I"] and seen.source == "camera (SimulatedTable)"
    assert sorted(seen.layouts["Anna"]) == ["3", "I"] and seen.layouts["Ben"] == ("E",)
    assert seen.frame is not None and seen.paper == "A3"
    assert all(d.zone.kind is not ZoneKind.OFF for d in seen.dice)
    watcher.close()
    with pytest.raises(CameraError, match="not open"):  # a source fault becomes one sentence
        watcher.read_table()


class _Broken:
    def open(self) -> None: ...
    def read(self) -> np.ndarray:
        raise FrameSourceError("the webcam stopped answering")

    def read_preview(self) -> np.ndarray:
        raise FrameSourceError("the webcam stopped answering")

    def close(self) -> None: ...
    def __enter__(self) -> _Broken:
        return self

    def __exit__(self, *exc: object) -> None: ...


def test_the_watcher_says_why_a_roll_cannot_be_read() -> None:
    from companion.vision.calibration import nominal_calibration

    watcher = TableWatcher(_Broken(), nominal_calibration((640, 480)), lambda f: [])
    with pytest.raises(CameraError, match="stopped answering"):
        watcher.read_roll("Anna", 6)
    watcher.close()
    with pytest.raises(CameraError, match="stopped"):  # quitting never waits for a roll
        watcher.read_roll("Anna", 6)
