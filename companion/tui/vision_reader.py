"""The vision pipeline (finder + face classifier) as the TUI's cameras use it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from .camera import ImageReader


def load_reader(profile: Path | str | None = None) -> ImageReader:
    """companion.vision's reader as an ImageReader; raises when the model is missing."""
    from ..vision.read import Reader

    reader = Reader.load(profile)

    def read(image: object) -> list[tuple[float, float, str, float]]:
        img: npt.NDArray[np.uint8] = np.asarray(image, dtype=np.uint8)
        return [(d.x, d.y, d.face, d.confidence) for d in reader.read(img)]

    return read


def reads_a_test_table(reader: ImageReader, seed: int = 11) -> bool:
    """Does the reader see a rendered table as it was drawn (every die, every face)?"""
    from ..vision.sources import SimulatedTable
    from ..vision.zones import place_dice

    contents = {"rolling area": list("I123EI"), "cult 1": list("I23"), "cult 2": list("E")}
    table = SimulatedTable(lambda: contents, seed=seed)
    table.calibration = table.calibration.with_cults(3)
    table.open()
    try:
        placed = place_dice(table.calibration, reader(table.read()))
    finally:
        table.close()
    seen: dict[str, list[str]] = {}
    for d in placed:
        zone = "rolling area" if d.kind in ("rolling", "center") else d.zone
        seen.setdefault(zone, []).append(d.face)
    return all(sorted(seen.get(z, [])) == sorted(f) for z, f in contents.items())


def vision_reader(profile: Path | str | None = None) -> tuple[ImageReader | None, str]:
    """The reader, or None and why: the demo then shows the simulated dice directly.

    The demo uses the pipeline only once it reads a rendered test table
    right: a reader still in training would fill the demo with disputes.
    """
    try:
        reader = load_reader(profile)
        good = reads_a_test_table(reader)
    except Exception as exc:  # noqa: BLE001 - a missing model or import must not stop the demo
        return None, f"simulated dice read directly (vision pipeline unavailable: {exc})"
    if not good:
        return None, "simulated dice read directly (the vision pipeline misread a test table)"
    return reader, "frames rendered and read by the vision pipeline"
