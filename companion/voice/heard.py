"""What the recognizer reports for one utterance."""

from __future__ import annotations

from dataclasses import dataclass

from companion.rules import Call, call_text

#: A call heard with at least this confidence is "high confidence": the
#: secretary may accept it without asking (docs/voice.md, bench_voice).
HIGH_CONFIDENCE = 0.8


@dataclass(frozen=True, slots=True)
class Heard:
    """One utterance: the call (None when nothing was heard clearly), 0..1, decode ms.

    ``best`` is the grammar's best call even when it was rejected, so a
    screen can offer it as a guess; ``call`` is None whenever confidence is
    below the recognizer's threshold. ``second`` is the runner-up among the
    allowed calls, found when the call is not sure (None when sure, or when
    no other call was allowed): the two guesses a screen offers.
    """

    call: Call | None
    confidence: float
    ms: float
    best: Call | None = None
    second: Call | None = None

    @property
    def guesses(self) -> tuple[Call, ...]:
        """The best and the second-best call, for one key each (empty when nothing was heard)."""
        return tuple(c for c in (self.best, self.second) if c is not None)

    @property
    def text(self) -> str | None:
        return None if self.call is None else call_text(self.call)

    @property
    def sure(self) -> bool:
        return self.call is not None and self.confidence >= HIGH_CONFIDENCE
