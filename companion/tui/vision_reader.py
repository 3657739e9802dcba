"""Whether the demo reads its rendered table with the vision pipeline, and why (or why not)."""

from __future__ import annotations

from pathlib import Path

from ..vision.seen import FrameReader


def vision_reader(profile: Path | str | None = None) -> tuple[FrameReader | None, str]:
    """The reader, or None and why: the demo then shows the simulated dice directly.

    The demo uses the pipeline only once it reads a rendered test table
    right: a reader still in training would fill the demo with disputes.
    """
    try:
        from ..evaluation.table_check import reads_a_test_table
        from ..vision.table import load_reader

        reader = load_reader(profile)
        good = reads_a_test_table(reader)
    except Exception as exc:  # noqa: BLE001 - a missing model or import must not stop the demo
        return None, f"simulated dice read directly (vision pipeline unavailable: {exc})"
    if not good:
        return None, "simulated dice read directly (the vision pipeline misread a test table)"
    return reader, "frames rendered and read by the vision pipeline"
