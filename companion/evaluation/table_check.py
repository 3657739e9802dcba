"""The reader's trial before the demo trusts it: a rendered table it must read as it was drawn."""

from __future__ import annotations

from companion.synth.simtable import SimulatedTable
from companion.vision.seen import FrameReader, TableZone, ZoneKind
from companion.vision.table import TableWatcher

#: A rendered table the reader must read right before the demo trusts it.
_TEST_TABLE = {
    TableZone(ZoneKind.ROLLING): "I123EI",
    TableZone.layout(1): "I23",
    TableZone.layout(2): "E",
}


def reads_a_test_table(reader: FrameReader, seed: int = 11) -> bool:
    """Does the reader see a rendered table as it was drawn (every die, every face)?"""
    contents = {z.name: list(f) for z, f in _TEST_TABLE.items()}
    table = SimulatedTable(lambda: contents, seed=seed)
    table.calibration = table.calibration.with_cults(3)
    table.open()
    try:
        watcher = TableWatcher(
            table, table.calibration, reader, roll_kinds=(ZoneKind.ROLLING, ZoneKind.CENTER)
        )
        watcher.set_cults(("1", "2", "3"))
        seen = watcher.look(table.read())
    finally:
        table.close()
    return sorted(seen.roll) == sorted(_TEST_TABLE[TableZone(ZoneKind.ROLLING)]) and all(
        sorted(seen.layouts[str(z.seat)]) == sorted(f) for z, f in _TEST_TABLE.items() if z.seat
    )
