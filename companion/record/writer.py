"""The strict writer: a record in canonical form, with the comments a kept game adds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .notation import Event, format_event, format_tags


@dataclass(frozen=True, slots=True)
class RecordLine:
    """One event line of a kept game: its comment, and whether it was played at all."""

    event: Event
    comment: str = ""
    played: bool = True  # False: an illegal call, written as a comment only


def write_record(
    tags: dict[str, str],
    events: Iterable[Event | RecordLine],
    *,
    comments: bool = True,
    footer: str | None = None,
    notes: Sequence[tuple[int, str]] = (),
) -> str:
    """Tags, a blank line, then one line per event. Unplayed lines and comments are written
    (as ``#`` comments) only with ``comments``; so are the ``footer`` and the ``notes``,
    ``(n, text)``: a comment line after the first n events (after the footer when n is all)."""
    items = list(events)
    before: dict[int, list[str]] = {}  # the notes after the first n items
    for at, text in notes if comments else ():
        before.setdefault(min(at, len(items)), []).append(f"# {text}")
    lines = format_tags(tags)
    lines.append("")
    for n, item in enumerate(items):
        if n in before:
            lines.extend(before[n])
        if not isinstance(item, RecordLine):
            lines.append(format_event(item))
        elif not item.played:
            if comments:
                lines.append(f"# {format_event(item.event)}   # {item.comment}")
        elif item.comment and comments:
            lines.append(f"{format_event(item.event)}   # {item.comment}")
        else:
            lines.append(format_event(item.event))
    if footer is not None and comments:
        lines.append(f"# {footer}")
    lines.extend(before.get(len(items), []))  # notes after the last line follow the end
    return "\n".join(lines) + "\n"


class ReadRecord(Protocol):
    """What a replay keeps of a record that was read."""

    @property
    def tags(self) -> dict[str, str]: ...

    @property
    def events(self) -> list[tuple[int, Event]]: ...


def canonical(replay: ReadRecord) -> str:
    """The canonical form of a record that was read (comments are not kept)."""
    return write_record(replay.tags, (ev for _, ev in replay.events))
