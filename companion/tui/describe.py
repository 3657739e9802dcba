"""Words for people: verdicts, workings and calls as the screens show them.

Pure functions of the rules' objects, so that the sentences are tested
without a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..rules import TABLE_K, Action, CallAction, Game, GiveUp, PhaseResult, Verdict, Word, Working
from ..rules.calls import call_text, shape_of
from ..rules.faces import TENTACLES, E, I, faces_text

#: Keys of the four words, in ritual order (O1).
WORD_KEYS: dict[str, Word] = {"i": Word.IAA, "c": Word.CTHULHU, "f": Word.FHTAGN, "p": Word.PHNGLUI}
#: Keys of the five faces; the secretary types what the die shows.
FACE_KEYS: dict[str, str] = {"i": I, "1": "1", "2": "2", "3": "3", "e": E}


def legal_calls_text(legal: Iterable[Action]) -> str:
    """The distinct calls of a legal list, by K id, or the give-ups."""
    kids: list[str] = []
    gives: list[str] = []
    for a in legal:
        if isinstance(a, CallAction) and a.k and a.k not in kids:
            kids.append(a.k)
        elif isinstance(a, GiveUp) and a.face not in gives:
            gives.append(a.face)
    kids.sort(key=lambda k: int(k[1:]))
    parts = [f"{k} {call_text(TABLE_K[k])}" for k in kids]
    if gives:
        parts.append("give up " + " or ".join(gives))
    return "; ".join(parts) if parts else "none"


def rule_sentence(verdict: Verdict) -> str:
    """The rule's one sentence without the engine's appended list of calls."""
    msg = verdict.message
    cut = msg.find("; legal:")
    return msg[:cut] if cut >= 0 else msg


def action_text(action: Action) -> str:
    if isinstance(action, CallAction) and action.k:
        return f"{action.k} {action}"
    return str(action)


def consequences(before: Game, cult: str, action: Action) -> str:
    """What a legal action does, worked out on a copy of the state before it."""
    if isinstance(action, GiveUp):
        left = before.pools[cult] - 1
        out = f"give up {action.face} to the center"
        return out + ("; its invocation ends (E2)" if left == 0 else "")
    s = shape_of(action.call)
    parts: list[str] = []
    if action.place:
        parts.append(f"place {faces_text(action.place)} into {cult}'s layout")
    else:
        parts.append("place nothing")
    if action.take:
        parts.append(take_text(action.take))
    if s.fhtagn:
        rest = before.pools[cult] - len(action.place) + len(action.take)
        if rest:
            parts.append(
                f"invocation complete; {rest} pool {'die' if rest == 1 else 'dice'} "
                "to the center (E1)"
            )
        else:
            parts.append("invocation complete; no pool dice are left for the center (E1)")
        if s.iaa and s.cthulhu and before.stones_center > 0 and cult not in before.held:
            parts.append("takes a doubler stone (DB1)")
    return "; ".join(parts)


def take_text(take: tuple[str, ...]) -> str:
    """F1/F2 in words: 'take 2 dice from the center', 'take a die from Ben's pool'."""
    from collections import Counter

    parts = []
    for where, n in Counter(take).items():
        dice = "a die" if n == 1 else f"{n} dice"
        parts.append(
            f"{dice} from the center" if where == "center" else f"{dice} from {where}'s pool"
        )
    return "take " + " and ".join(parts)


def working_text(w: Working) -> str:
    """SC1–SC3: tentacles × IÄÄ! × doubler, with its sign."""
    sign = "+" if w.complete else "-"
    if w.tentacles == 0 or w.iaa == 0:
        return f"{w.tentacles} × {w.iaa} = 0"
    dbl = " × 2" if w.doubled else ""
    return f"{sign}({w.tentacles} × {w.iaa}{dbl}) = {w.points:+d}"


def result_rows(result: PhaseResult, totals: dict[str, int]) -> list[tuple[str, str, str, str]]:
    """One row per cult: name, complete or not, working, total."""
    rows = []
    for cult, w in result.working.items():
        state = "complete" if w.complete else "not complete"
        rows.append((cult, state, working_text(w), f"{totals[cult]:+d}"))
    return rows


def end_sentence(game: Game) -> str:
    """G1–G4: why the game ended as it did."""
    t = game.options.target
    high = [c for c in game.cults if game.totals[c] >= t]
    low = [c for c in game.cults if game.totals[c] <= -t]
    if high and low:
        return f"G4: {', '.join(high)} reached +{t} and {', '.join(low)} fell to -{t}; G2 decides"
    if high:
        return f"G2: {', '.join(high)} reached +{t} power points"
    return f"G3: {', '.join(low)} fell to -{t} power points"


def tentacles_in(faces: Iterable[str]) -> int:
    return sum(int(f) for f in faces if f in TENTACLES)
