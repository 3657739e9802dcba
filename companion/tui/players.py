"""The demo's simulated cults: seeded strategies that now and then misspeak.

An occasional illegal call shows off the verdict (V1) and the recall (V2);
right after one, the same cult makes a legal call.
"""

from __future__ import annotations

import random

from ..record.simulate import STRATEGIES
from ..rules import TABLE_K, Action, Game
from .entry import plain_action


class DemoPlayers:
    def __init__(self, cults: tuple[str, ...], seed: int = 1, mistake_rate: float = 0.08) -> None:
        self.rng = random.Random(seed)
        names = sorted(STRATEGIES)
        self.strategy = {c: STRATEGIES[names[i % len(names)]] for i, c in enumerate(cults)}
        self.mistake_rate = mistake_rate
        self._erred: tuple[str, tuple[str, ...]] | None = None

    def choose(self, g: Game, cult: str, roll: tuple[str, ...]) -> Action:
        legal = g.legal_actions(roll, cult)
        if self._erred != (cult, roll) and self.rng.random() < self.mistake_rate:
            wrong = [
                call for call in TABLE_K.values() if g.needs_fault(cult, roll, call) is not None
            ]
            if wrong:
                self._erred = (cult, roll)
                return plain_action(g, cult, roll, self.rng.choice(wrong))
        self._erred = None
        return self.strategy[cult](g, cult, roll, legal, self.rng)
