"""Die faces (RULES.md C2, C3) and small helpers on multisets of faces."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

I = "I"
E = "E"
TENTACLES = ("1", "2", "3")
FACES = ("I", "1", "2", "3", "E")
#: Canonical order used whenever faces are written out.
FACE_ORDER = {face: n for n, face in enumerate(FACES)}
#: C2: a fair die shows I on two faces and every other motif on one.
DIE_SIDES = ("I", "I", "1", "2", "3", "E")

DICE_PER_SET = 20
STONES_PER_SET = 3


class FaceError(ValueError):
    """A character that is not one of the five motifs."""


def is_tentacle(face: str) -> bool:
    return face in TENTACLES


def tentacle_value(face: str) -> int:
    """C3: the number of tentacles a die shows, 0 for I and E."""
    return int(face) if face in TENTACLES else 0


def parse_faces(text: str) -> tuple[str, ...]:
    """Read a word of faces such as ``I23E1I``; faces are upper case only."""
    for ch in text:
        if ch not in FACE_ORDER:
            raise FaceError(f"{ch!r} is not a die face (I, 1, 2, 3 or E)")
    return tuple(text)


def sort_faces(faces: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(faces, key=FACE_ORDER.__getitem__))


def faces_text(faces: Iterable[str]) -> str:
    return "".join(sort_faces(faces))


def contains(big: Iterable[str], small: Iterable[str]) -> bool:
    """True when the multiset ``small`` fits inside ``big``."""
    have = Counter(big)
    need = Counter(small)
    return all(have[f] >= n for f, n in need.items())
