"""The simulated camera: rendered by the synth renderer, sorted into the mat's zones."""

from __future__ import annotations

import pytest

from companion.rules import Game, Options
from companion.tui.camera import SimulatedCamera, fill_unread
from companion.tui.entry import RollEntry

from .test_calibration import Read

pytest.importorskip("cv2")


def test_rendered_table_is_sorted_into_roll_and_layouts() -> None:
    """A reader that reports the renderer's own truth isolates drawing and zones from the model."""
    g = Game(Options.make(["Anna", "Ben", "Cleo"]))
    g.layouts["Anna"] = ["I", "2", "3"]
    g.layouts["Cleo"] = ["I"]
    holder: list[SimulatedCamera] = []

    def truth_reader(image: object) -> list[Read]:
        table = holder[0].table(3)
        return [Read(x, y, face, 1.0) for _zone, x, y, face in table.last_truth]

    cam = SimulatedCamera(lambda: g, 7, reader=truth_reader)
    holder.append(cam)
    seen = cam.read_roll("Ben", 6)
    assert seen.truth is not None and len(seen.truth) == 6
    assert sorted(seen.roll) == sorted(seen.truth)
    assert sorted(seen.layouts["Anna"]) == ["2", "3", "I"]
    assert seen.layouts["Ben"] == () and seen.layouts["Cleo"] == ("I",)
    cam.misplace["Cleo"] = ("I", "1")
    after = cam.read_table({"Cleo": ("I", "2")})
    assert sorted(after.layouts["Cleo"]) == ["1", "I"] and after.roll == ()
    assert sorted(cam.read_table({"Cleo": ("I", "2")}).layouts["Cleo"]) == ["2", "I"]
    cam.close()


def test_direct_camera_marks_unread_dice_and_secretary_fills_them() -> None:
    g = Game(Options.make(["Anna", "Ben"]))
    cam = SimulatedCamera(lambda: g, 1, unreadable_rate=1.0)
    seen = cam.read_roll("Anna", 4)
    assert seen.roll == ("?",) * 4 and seen.truth is not None
    assert fill_unread(("I", "?", "3", "?"), ["E", "1"]) == ("I", "E", "3", "1")
    entry = RollEntry(3, ["I", "?", "?"])
    assert not entry.complete
    assert entry.key("e") and entry.key("2") and entry.complete
    assert entry.roll == ("I", "E", "2") and not entry.key("3")


def test_the_demo_uses_the_vision_pipeline_only_when_it_reads_right() -> None:
    from companion.evaluation.table_check import reads_a_test_table
    from companion.synth.simtable import SimulatedTable

    drawn: list[SimulatedTable] = []
    real_read = SimulatedTable.read

    def spy(self: SimulatedTable) -> object:
        drawn.append(self)
        return real_read(self)

    def truthful(image: object) -> list[Read]:
        return [Read(x, y, f, 1.0) for _z, x, y, f in drawn[-1].last_truth]

    def blind(image: object) -> list[Read]:
        return [Read(x, y, "?", 0.2) for _z, x, y, _f in drawn[-1].last_truth]

    mp = pytest.MonkeyPatch()
    mp.setattr(SimulatedTable, "read", spy)
    try:
        assert reads_a_test_table(truthful)
        assert not reads_a_test_table(blind)
    finally:
        mp.undo()
