"""The strict writer: a record in canonical form."""

from __future__ import annotations

from collections.abc import Iterable

from .notation import Event, format_event, format_tags
from .replay import Replay


def write_record(tags: dict[str, str], events: Iterable[Event]) -> str:
    lines = format_tags(tags)
    lines.append("")
    lines.extend(format_event(ev) for ev in events)
    return "\n".join(lines) + "\n"


def canonical(replay: Replay) -> str:
    """The canonical form of a record that was read (comments are not kept)."""
    return write_record(replay.tags, (ev for _, ev in replay.events))
