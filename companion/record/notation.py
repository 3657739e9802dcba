"""Reading and writing the lines of a game record (NOTATION.md).

The reader is lenient where NOTATION.md allows (letter case of keywords,
spellings of words, separators); the writer is strict and canonical.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..rules.actions import CENTER, Action, CallAction, GiveUp
from ..rules.calls import CallSyntaxError, parse_word
from ..rules.faces import FACE_ORDER, faces_text
from ..rules.verdicts import RuleError

KNOWN_TAGS = (
    "Event",
    "Site",
    "Date",
    "Round",
    "Table",
    "Secretary",
    "Cults",
    "Sets",
    "Target",
    "StartRule",
    "Doublers",
    "IllegalCall",
)
#: Tags that carry meaning for the game; they may not repeat.
GAME_TAGS = ("Cults", "Sets", "Target", "StartRule", "Doublers", "IllegalCall")
FREE_TAGS = ("Event", "Site", "Date", "Table", "Secretary")
NAME_RE = re.compile(r"^[\w-]+$")  # letters (any script), digits, _ or -
#: Numbers in a record are ASCII digits (another script's digits are not read as numbers),
#: and not endless: NOTATION.md sets no limit, so any sensible number is read (a wrong
#: score of ten digits is SC1, not N), while int() of a 100,000-digit one would be slow.
MAX_DIGITS = 100
_UNSIGNED_RE = re.compile(r"^[0-9]+$", re.ASCII)


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    value: str


@dataclass(frozen=True, slots=True)
class StartRoll:
    cult: str
    faces: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PhaseLine:
    number: int
    start: str | None


@dataclass(frozen=True, slots=True)
class Turn:
    cult: str
    roll: tuple[str, ...]
    action: Action


@dataclass(frozen=True, slots=True)
class ScoreLine:
    points: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class TotalsLine:
    points: tuple[tuple[str, int], ...]


Event = StartRoll | PhaseLine | Turn | ScoreLine | TotalsLine
Line = Tag | Event


def notation_error(message: str) -> RuleError:
    return RuleError("N", message)


def strip_comment(text: str) -> str:
    """Drop a ``#`` comment, but not a ``#`` inside a quoted tag value."""
    if "#" not in text:
        return text
    if text.lstrip().startswith("["):
        in_quote = False
        for i, ch in enumerate(text):
            if ch == '"':
                in_quote = not in_quote
            elif ch == "#" and not in_quote:
                return text[:i]
        return text
    return text[: text.index("#")]


def parse_count(text: str, what: str) -> int:
    """A whole number >= 0 in ASCII digits, at most MAX_DIGITS long."""
    if not _UNSIGNED_RE.match(text):
        raise notation_error(f"'{_short(text)}' is not {what} (digits 0-9)")
    if len(text.lstrip("0")) > MAX_DIGITS:
        raise notation_error(f"{what} has more than {MAX_DIGITS} digits")
    return int(text)


def parse_signed(text: str) -> int:
    """A score ±N: a sign, then ASCII digits, at most MAX_DIGITS of them."""
    if not _NUM_RE.match(text):
        raise notation_error(f"'{_short(text)}' is not a number ±N")
    if len(text[1:].lstrip("0")) > MAX_DIGITS:
        raise notation_error(f"a score has more than {MAX_DIGITS} digits")
    return int(text)


def _short(text: str, limit: int = 40) -> str:
    """A word quoted in a message, cut so that one sentence stays one line of sense."""
    return text if len(text) <= limit else text[:limit] + "…"


def parse_faces_word(word: str, what: str) -> tuple[str, ...]:
    if not word or any(ch not in FACE_ORDER for ch in word):
        raise notation_error(f"'{_short(word)}' is not a word of faces I 1 2 3 E ({what})")
    return tuple(word)


_TAG_RE = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"([^"]*)"\s*\]$')
_NUM_RE = re.compile(r"^[+-][0-9]+$", re.ASCII)
_TURN_RE = re.compile(r"^(\S+?)\s*:\s*(\S+)\s*->\s*(.*)$")
_KEYWORDS = ("start", "phase", "score", "totals")


def parse_line(text: str) -> Line | None:
    """One line of a record, comment and blank lines giving ``None``."""
    body = strip_comment(text).strip()
    if not body:
        return None
    if body.startswith("["):
        m = _TAG_RE.match(body)
        if not m:
            raise notation_error('a tag line is [Name "value"]')
        return Tag(m.group(1), m.group(2))
    m = _TURN_RE.match(body)
    if m:
        return Turn(m.group(1), parse_faces_word(m.group(2), "roll"), parse_action(m.group(3)))
    words = body.split()
    key = words[0].lower()
    if key == "start":
        if len(words) != 3:
            raise notation_error("a roll-off line is 'start CULT FACES'")
        return StartRoll(words[1], parse_faces_word(words[2], "roll-off"))
    if key == "phase":
        if len(words) not in (2, 4) or (len(words) == 4 and words[2].lower() != "start"):
            raise notation_error("a phase line is 'phase N [start CULT]'")
        return PhaseLine(
            parse_count(words[1], "a phase number"), words[3] if len(words) == 4 else None
        )
    if key in ("score", "totals"):
        pairs = words[1:]
        if not pairs or len(pairs) % 2:
            raise notation_error(f"a {key} line is '{key} CULT ±N …'")
        points: list[tuple[str, int]] = []
        for cult, num in zip(pairs[::2], pairs[1::2], strict=True):
            points.append((cult, parse_signed(num)))
        return ScoreLine(tuple(points)) if key == "score" else TotalsLine(tuple(points))
    raise notation_error("not a line of the record format")


def parse_action(text: str) -> Action:
    """``CALL [place FACES] [take SOURCE, …]`` or ``give FACE``."""
    tokens = text.split()
    if not tokens:
        raise notation_error("a turn needs a call or a give-up after '->'")
    if tokens[0].lower() == "give":
        if len(tokens) != 2 or len(tokens[1]) != 1:
            raise notation_error("a give-up is 'give FACE' with one face")
        return GiveUp(parse_faces_word(tokens[1], "give")[0])
    words = []
    i = 0
    while i < len(tokens) and tokens[i].lower() not in ("place", "take"):
        tok = tokens[i]
        i += 1
        if tok == "-":
            continue
        try:
            words.append(parse_word(tok))
        except CallSyntaxError:
            raise notation_error(f"'{tok}' is not a call word") from None
    if not words:
        raise notation_error("a turn needs a call or a give-up after '->'")
    place: tuple[str, ...] = ()
    take: tuple[str, ...] = ()
    if i < len(tokens) and tokens[i].lower() == "place":
        if i + 1 >= len(tokens) or tokens[i + 1].lower() == "take":
            raise notation_error("'place' needs the faces placed")
        place = parse_faces_word(tokens[i + 1], "place")
        i += 2
    if i < len(tokens) and tokens[i].lower() == "take":
        rest = " ".join(tokens[i + 1 :])
        sources = [s.strip() for s in rest.split(",")]
        if not rest.strip() or any(not s or " " in s for s in sources):
            raise notation_error("'take' needs sources separated by commas")
        take = tuple(CENTER if s.lower() == CENTER else s for s in sources)
        i = len(tokens)
    if i != len(tokens):
        raise notation_error(f"'{tokens[i]}' does not belong in a turn")
    return CallAction(tuple(words), place, take)


# ------------------------------------------------------------------ writing
def points_text(points: tuple[tuple[str, int], ...] | list[tuple[str, int]]) -> str:
    return " ".join(f"{c} {n:+d}" for c, n in points)


def format_event(event: Event) -> str:
    """The canonical line of an event."""
    if isinstance(event, Turn):
        return f"{event.cult}: {''.join(event.roll)} -> {event.action}"
    if isinstance(event, StartRoll):
        return f"start {event.cult} {''.join(event.faces)}"
    if isinstance(event, PhaseLine):
        return f"phase {event.number}" + (f" start {event.start}" if event.start else "")
    if isinstance(event, ScoreLine):
        return "score " + points_text(event.points)
    return "totals " + points_text(event.points)


def format_tags(tags: dict[str, str]) -> list[str]:
    """Known tags in a fixed order, then the others as they came."""
    order = [t for t in KNOWN_TAGS if t in tags] + [t for t in tags if t not in KNOWN_TAGS]
    return [f'[{name} "{tags[name]}"]' for name in order]


def sorted_faces(faces: tuple[str, ...]) -> str:
    return faces_text(faces)
