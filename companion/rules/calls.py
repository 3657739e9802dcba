"""The four words, the permitted calls of table K, and their spellings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum


class Word(IntEnum):
    """A word of a call; the value is its place in the ritual order (O1)."""

    IAA = 0
    CTHULHU = 1
    FHTAGN = 2
    PHNGLUI = 3  # same ritual place as FHTAGN (O1); D6 keeps them apart

    @property
    def rank(self) -> int:
        return min(int(self), 2)

    @property
    def text(self) -> str:
        return WORD_TEXT[self]


WORD_TEXT = {
    Word.IAA: "IÄÄ!",
    Word.CTHULHU: "Cthulhu!",
    Word.FHTAGN: "Fhtagn!",
    Word.PHNGLUI: "Ph'nglui!",
}

# NOTATION.md: any case, a missing "!", IAA/IA/IÄ, and three apostrophes.
_SPELLINGS = {
    "iää": Word.IAA,
    "iaa": Word.IAA,
    "ia": Word.IAA,
    "iä": Word.IAA,
    "cthulhu": Word.CTHULHU,
    "fhtagn": Word.FHTAGN,
    "ph'nglui": Word.PHNGLUI,
    "phnglui": Word.PHNGLUI,
    "ph’nglui": Word.PHNGLUI,
    "ph´nglui": Word.PHNGLUI,
}

Call = tuple[Word, ...]

I_, C_, F_, P_ = Word.IAA, Word.CTHULHU, Word.FHTAGN, Word.PHNGLUI

#: Table K, by id.
TABLE_K: dict[str, Call] = {
    "K1": (I_,),
    "K2": (I_, C_),
    "K3": (I_, P_),
    "K4": (I_, F_),
    "K5": (C_,),
    "K6": (C_, P_),
    "K7": (C_, F_),
    "K8": (P_, F_),
    "K9": (F_,),
    "K10": (I_, C_, P_),
    "K11": (I_, C_, F_),
}
K_OF_CALL: dict[Call, str] = {call: kid for kid, call in TABLE_K.items()}
ALL_FHTAGN: Call = TABLE_K["K8"]


class CallSyntaxError(ValueError):
    """A word that is none of the four words of a call."""


def parse_word(token: str) -> Word:
    key = token.rstrip("!").lower()
    word = _SPELLINGS.get(key)
    if word is None:
        raise CallSyntaxError(f"{token!r} is not a word of a call")
    return word


_SEP = re.compile(r"\s+-\s+|\s+")


def parse_call(text: str) -> Call:
    """Parse the words of a call, separated by spaces or `` - ``."""
    tokens = [t for t in _SEP.split(text.strip()) if t and t != "-"]
    if not tokens:
        raise CallSyntaxError("a call needs at least one word")
    return tuple(parse_word(t) for t in tokens)


def call_text(call: Call) -> str:
    """The canonical form: canonical words separated by single spaces."""
    return " ".join(w.text for w in call)


def k_id(call: Call) -> str | None:
    return K_OF_CALL.get(call)


@dataclass(frozen=True, slots=True)
class Shape:
    """What the words of a call do, independent of the dice chosen."""

    iaa: bool
    cthulhu: bool
    fhtagn: bool  # places an E (not in K8)
    phnglui: bool  # takes one free die (not in K8)
    all_fhtagn: bool  # K8

    @property
    def places(self) -> bool:
        return self.iaa or self.cthulhu or self.fhtagn


def _shape(call: Call) -> Shape:
    if call == ALL_FHTAGN:
        return Shape(False, False, False, False, True)
    return Shape(I_ in call, C_ in call, F_ in call, P_ in call, False)


_SHAPES = {call: _shape(call) for call in TABLE_K.values()}


def shape_of(call: Call) -> Shape:
    """What the words do; table K's shapes are computed once (replay's hot path)."""
    shape = _SHAPES.get(call)
    return shape if shape is not None else _shape(call)
