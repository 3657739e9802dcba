"""Small builders for rule tests: a game in a chosen state, actions from text."""

from __future__ import annotations

from companion.record.notation import parse_action
from companion.rules import Action, Game, Options, RuleError


def game(
    n: int = 2,
    *,
    layouts: dict[str, str] | None = None,
    pools: dict[str, int] | None = None,
    center: int | None = None,
    to_move: str | None = None,
    **opts: object,
) -> Game:
    """A game of ``n`` cults A, B, C… in phase 1 with A to move, then the overrides."""
    cults = [chr(ord("A") + i) for i in range(n)]
    g = Game(Options.make(cults, **opts))  # type: ignore[arg-type]
    g._set_start(cults[0])
    for c, faces in (layouts or {}).items():
        g.layouts[c] = list(faces)
        g.pools[c] -= len(faces)
    for c, k in (pools or {}).items():
        g.pools[c] = k
        g.open[c] = k > 0
    if center is not None:
        g.out += g.center - center
        g.center = center
    if to_move is not None:
        g.to_move = to_move
    return g


def act(text: str) -> Action:
    return parse_action(text)


def fault(g: Game, cult: str, roll: str, action: str) -> str | None:
    """The rule id an action breaks, or None when it is legal."""
    try:
        g.judge(cult, tuple(roll), act(action))
    except RuleError as exc:
        return exc.rule
    return None
