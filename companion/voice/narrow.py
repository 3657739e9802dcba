"""Which calls of table K make sense for a roll and a layout (grammar narrowing).

The engine's own needs check decides (``Game.needs_fault``), so the grammar
can never disagree with the judge. A free die is assumed to exist, as the
command promises. An unknown roll or layout (None) is the union over every
roll or layout that could matter.
"""

from __future__ import annotations

from itertools import combinations

from companion.rules import TABLE_K, Call, Game, Options, parse_faces

_CULT = "cult"
# Options.make gives two cults one center die: Ph'nglui! always has a free die.
_OPTIONS = Options.make((_CULT, "other"))
# Needs only look at which kinds of face are present (I, tentacle, E).
_KINDS = ("I", "1", "E")
_ANY_ROLL = tuple(c for n in range(1, 4) for c in combinations(_KINDS, n))
# D2: a layout holds nothing, or an I, or an I and tentacle dice.
_ANY_LAYOUT: tuple[tuple[str, ...], ...] = ((), ("I",), ("I", "1"))


def calls_for(roll: tuple[str, ...] | None, layout: tuple[str, ...] | None) -> tuple[Call, ...]:
    """The calls of table K whose needs hold, in table order."""
    if roll is not None and not roll:
        raise ValueError("a roll holds at least one die")
    game = Game(_OPTIONS)
    rolls = _ANY_ROLL if roll is None else (roll,)
    layouts = _ANY_LAYOUT if layout is None else (layout,)
    found: list[Call] = []
    for call in TABLE_K.values():
        for lay in layouts:
            game.layouts[_CULT] = list(lay)
            if any(game.needs_fault(_CULT, r, call) is None for r in rolls):
                found.append(call)
                break
    return tuple(found)


def parse_optional_faces(text: str | None) -> tuple[str, ...] | None:
    """``--roll``/``--layout`` text to faces; None stays unknown, "" is an empty layout."""
    return None if text is None else parse_faces(text.strip())
