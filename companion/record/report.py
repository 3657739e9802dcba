"""The human-readable report of ``companion replay``."""

from __future__ import annotations

from .replay import Replay


def replay_report(r: Replay) -> str:
    lines: list[str] = []
    g = r.game
    if g is not None:
        for res in g.results:
            scores = ", ".join(f"{c} {n:+d}" for c, n in res.scores.items())
            extra = []
            if res.complete:
                extra.append("complete: " + " ".join(res.complete))
            if res.doublers:
                extra.append("doubled: " + " ".join(res.doublers))
            tail = f" ({'; '.join(extra)})" if extra else ""
            lines.append(f"phase {res.number} (start {res.start}): {scores}{tail}")
        lines.append("totals: " + ", ".join(f"{c} {n:+d}" for c, n in g.totals.items()))
        if g.finished:
            lines.append(
                "game over: winners "
                + (" ".join(g.winners) or "none")
                + "; losers "
                + (" ".join(g.losers) or "none")
            )
        else:
            lines.append("the game is not finished")
    if r.error is not None:
        lines.append(f"line {r.error.line}: {r.error.rule}: {r.error.message}")
    else:
        lines.append("ok: every line keeps the rules")
    return "\n".join(lines)
