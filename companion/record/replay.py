"""``companion replay``: check a record line by line against RULES.md."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rules.game import Game
from ..rules.options import OptionsError, sets_for
from ..rules.verdicts import RuleError
from .notation import (
    GAME_TAGS,
    NAME_RE,
    Event,
    PhaseLine,
    ScoreLine,
    StartRoll,
    Tag,
    TotalsLine,
    Turn,
    notation_error,
    parse_count,
    parse_line,
)
from .recorded import RecordedGame
from .tags import options_from_tags


class UnreadableRecord(Exception):
    """A file that cannot be read at all (exit status 2)."""


@dataclass(frozen=True, slots=True)
class ReplayError:
    line: int
    rule: str
    message: str


@dataclass
class Replay:
    """The outcome of a replay: the game as far as it went, and the first fault."""

    tags: dict[str, str] = field(default_factory=dict)
    events: list[tuple[int, Event]] = field(default_factory=list)
    game: Game | None = None
    error: ReplayError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        g = self.game
        phases = []
        if g is not None:
            for r in g.results:
                phases.append(
                    {
                        "start": r.start,
                        "scores": r.scores,
                        "complete": list(r.complete),
                        "doublers": list(r.doublers),
                    }
                )
        return {
            "ok": self.ok,
            "error": None
            if self.error is None
            else {"line": self.error.line, "rule": self.error.rule, "message": self.error.message},
            "phases": phases,
            "totals": dict(g.totals) if g else {c: 0 for c in self._cults()},
            "finished": bool(g and g.finished),
            "winners": list(g.winners) if g else [],
            "losers": list(g.losers) if g else [],
        }

    def _cults(self) -> list[str]:
        return self.tags.get("Cults", "").split()


def _check_name(name: str) -> None:
    if not NAME_RE.match(name):
        raise notation_error(f"'{name}' is not a cult name (letters, digits, _ or -)")


class _Builder:
    """Reads the lines of a record into tags, and drives its events through a RecordedGame."""

    def __init__(self) -> None:
        self.out = Replay()
        self.seen_event = False
        self.recorded: RecordedGame | None = None

    # -- tags
    def tag(self, t: Tag) -> None:
        tags = self.out.tags
        if self.seen_event:
            raise notation_error("tags come before every event")
        if t.name in tags and (
            t.name in GAME_TAGS or t.name in ("Event", "Site", "Date", "Table", "Secretary")
        ):
            raise notation_error(f"the tag {t.name} may not repeat")
        value = t.value.strip()
        if t.name == "Cults":
            names = value.split()
            for n in names:
                _check_name(n)
            if len(set(names)) != len(names):
                raise notation_error("every cult needs a name of its own")
            if not 2 <= len(names) <= 6:
                raise RuleError("C1", f"the game is for 2 to 6 cults, not {len(names)}")
        elif t.name == "Sets":
            if value not in ("1", "2"):
                raise RuleError("C1", f"a game is played with 1 or 2 sets of dice, not {value}")
        elif t.name == "Target":
            if parse_count(value, "a Target") <= 0:
                raise notation_error("Target must be a positive whole number")
        elif t.name == "StartRule" and value not in ("sum", "count"):
            raise notation_error("StartRule must be sum or count")
        elif t.name == "Doublers" and value not in ("return", "keep"):
            raise notation_error("Doublers must be return or keep")
        elif t.name == "IllegalCall" and value not in ("recall", "forfeit"):
            raise notation_error("IllegalCall must be recall or forfeit")
        tags[t.name] = value if t.name in GAME_TAGS else t.value
        if "Cults" in tags and "Sets" in tags and t.name in ("Cults", "Sets"):
            n_cults = len(tags["Cults"].split())
            want = sets_for(n_cults)
            if int(tags["Sets"]) != want:
                plural = "s" if want > 1 else ""
                raise RuleError(
                    "C1",
                    f"{n_cults} cults play with {want} set{plural} of dice, not {tags['Sets']}",
                )

    def _game(self) -> RecordedGame:
        if self.recorded is None:
            if "Cults" not in self.out.tags:
                raise notation_error("the record has no Cults tag before its first event")
            try:
                self.recorded = RecordedGame(options_from_tags(self.out.tags))
            except OptionsError as exc:
                raise RuleError(exc.rule, exc.message) from None
            self.out.game = self.recorded.game
        return self.recorded

    # -- events
    def event(self, ev: Event) -> None:
        self.seen_event = True
        rec = self._game()
        if isinstance(ev, ScoreLine | TotalsLine):
            self._check_names(rec.game, ev.points)
        rec.apply_line(ev)

    @staticmethod
    def _check_names(g: Game, points: tuple[tuple[str, int], ...]) -> None:
        for cult, _ in points:
            if cult not in g.cults:
                raise notation_error(f"unknown cult '{cult}'")


def _check_turn_names(g: Game | None, ev: Event) -> None:
    """Unknown cults are a notation fault (N), found before any rule."""
    if g is None:
        return
    names: list[str] = []
    if isinstance(ev, Turn):
        names.append(ev.cult)
        take = getattr(ev.action, "take", ())
        names.extend(s for s in take if s != "center")
    elif isinstance(ev, StartRoll):
        names.append(ev.cult)
    elif isinstance(ev, PhaseLine) and ev.start:
        names.append(ev.start)
    for n in names:
        if n not in g.cults:
            raise notation_error(f"unknown cult '{n}'")


def record_lines(text: str) -> list[str]:
    """The record's lines: ended by LF, CRLF or CR only. str.splitlines would also end a line
    at a form feed, U+2028 or U+0085, which may stand in a comment or a tag value."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the end of the last line, not a line
    return lines


_LINE_END = re.compile(r"\r\n|\r|\n")


def replay_text(text: str) -> Replay:
    """Replay a record given as text, stopping at the first line that breaks a rule."""
    b = _Builder()
    if text.startswith("\ufeff"):
        text = text[1:]
    # IÄÄ! and names typed with combining marks (NFD, as macOS writes them) are the same text
    text = unicodedata.normalize("NFC", text)
    for lineno, raw in enumerate(record_lines(text), start=1):
        try:
            item = parse_line(raw)
            if item is None:
                continue
            if isinstance(item, Tag):
                b.tag(item)
                continue
            if b.out.game is None:
                b.seen_event = True
                b._game()
            _check_turn_names(b.out.game, item)
            b.event(item)
            b.out.events.append((lineno, item))
        except RuleError as exc:
            b.out.error = ReplayError(lineno, exc.rule, exc.message)
            break
    else:
        if (
            "Cults" not in b.out.tags
        ):  # NOTATION.md: Cults is required, also in a record without events
            lines = record_lines(text)
            b.out.error = ReplayError(
                max(1, len(lines)),
                "N",
                "the record has no Cults tag"
                + (" (the file is empty)" if not text.strip() else ""),
            )
    return b.out


def decode_record(data: bytes) -> str:
    """UTF-8 text; a record that is not text at all cannot be read."""
    if b"\x00" in data:
        raise UnreadableRecord("the file is not a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UnreadableRecord(f"line {line} is not UTF-8 text; save the record as UTF-8") from None


#: The longest game ever recorded is a few hundred kilobytes; a bigger file is no record,
#: and reading it whole would take the Pi's memory.
MAX_RECORD_BYTES = 8 * 1024 * 1024


def read_record_bytes(p: Path) -> bytes:
    """The bytes of a record file, refusing one larger than MAX_RECORD_BYTES before reading it."""
    with p.open("rb") as fh:
        data = fh.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise UnreadableRecord(
            f"{p} is larger than {MAX_RECORD_BYTES // (1024 * 1024)} MB: not a game record"
        )
    return data


def replay_file(path: str | Path) -> Replay:
    p = Path(path)
    try:
        data = read_record_bytes(p)
    except FileNotFoundError:
        raise UnreadableRecord(f"{p}: no such file") from None
    except IsADirectoryError:
        raise UnreadableRecord(f"{p} is a folder, not a record") from None
    except OSError as exc:
        raise UnreadableRecord(f"{p} cannot be read: {exc.strerror}") from None
    return replay_text(decode_record(data))
