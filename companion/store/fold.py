"""Game state as a fold over stored events: the one way state is rebuilt.

Corrections are applied here: a CORRECT event replaces the event it voids,
so the game and the record are those of the corrected game, while the store
keeps both. Illegal calls change nothing but are kept for the record's
comments and the forfeit option (V2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..record.notation import (
    Event,
    PhaseLine,
    ScoreLine,
    StartRoll,
    TotalsLine,
    Turn,
    format_event,
    format_tags,
    parse_line,
)
from ..rules.actions import GiveUp
from ..rules.game import Game, PhaseResult
from ..rules.options import IllegalCall, Options, OptionsError, default_target
from ..rules.verdicts import RuleError
from .base import Kind, StoredEvent, StoreError


def tags_for(options: Options, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The record tags that carry the options (NOTATION.md), then the free ones."""
    tags = {"Cults": " ".join(options.cults), "Target": str(options.target)}
    if options.start_rule.value != "sum":
        tags["StartRule"] = options.start_rule.value
    if options.doublers.value != "return":
        tags["Doublers"] = options.doublers.value
    if options.illegal_call.value != "recall":
        tags["IllegalCall"] = options.illegal_call.value
    for k, v in (extra or {}).items():
        tags.setdefault(k, v)
    return tags


def options_from_tags(tags: dict[str, str]) -> Options:
    cults = tags.get("Cults", "").split()
    try:
        return Options.make(
            cults,
            target=int(tags["Target"]) if "Target" in tags else default_target(len(cults)),
            start_rule=tags.get("StartRule", "sum"),
            doublers=tags.get("Doublers", "return"),
            illegal_call=tags.get("IllegalCall", "recall"),
        )
    except (OptionsError, ValueError) as exc:
        raise StoreError(f"the stored game settings are not valid: {exc}") from None


def parse_turn(text: str) -> Turn:
    item = parse_line(text)
    if not isinstance(item, Turn):
        raise RuleError("N", f"'{text}' is not a turn")
    return item


def parse_start(text: str) -> StartRoll:
    item = parse_line(text)
    if not isinstance(item, StartRoll):
        raise RuleError("N", f"'{text}' is not a roll-off line")
    return item


@dataclass(frozen=True, slots=True)
class Input:
    """An event that moves the game: a start roll, a turn or a forfeit."""

    seq: int  # the stored event that gave it (a correction's own seq)
    kind: Kind  # START, TURN or FORFEIT
    event: StartRoll | Turn


def judge_forfeit(g: Game, t: Turn) -> None:
    """V2 forfeit: the die must be the cult's to give, on its turn."""
    g.judge_turn(t.cult, t.roll)
    if not isinstance(t.action, GiveUp):
        raise RuleError("V2", "after an illegal call the cult gives up one die")
    if t.action.face not in t.roll:
        raise RuleError("T4", f"{t.cult} can give up only a die of its roll, and no {t.action.face} was rolled")


@dataclass
class Folder:
    """Applies inputs to a Game and writes the record lines as the simulator does."""

    options: Options
    game: Game = field(init=False)
    record: list[tuple[Event, str]] = field(default_factory=list)  # event, comment
    inputs: list[Input] = field(default_factory=list)
    pending_forfeit: Turn | None = None

    def __post_init__(self) -> None:
        self.game = Game(self.options)

    def judge(self, kind: Kind, ev: StartRoll | Turn) -> None:
        """Raise RuleError when ``ev`` may not be applied now; changes nothing."""
        g = self.game
        if isinstance(ev, StartRoll):
            g.copy().roll_start(ev.cult, ev.faces)
        elif kind is Kind.FORFEIT:
            judge_forfeit(g, ev)
        else:
            g.judge(ev.cult, ev.roll, ev.action)

    def apply(self, seq: int, kind: Kind, ev: StartRoll | Turn, comment: str = "") -> PhaseResult | None:
        """Apply an input already judged legal; the phase result when it ended one."""
        g = self.game
        self.inputs.append(Input(seq, kind, ev))
        if isinstance(ev, StartRoll):
            g.roll_start(ev.cult, ev.faces)
            self.record.append((ev, comment))
            return None
        self._phase_line(ev.cult)
        n_results = len(g.results)
        if kind is Kind.FORFEIT:
            judge_forfeit(g, ev)
            assert isinstance(ev.action, GiveUp)
            g.forfeit(ev.cult, ev.roll, ev.action.face)
            self.pending_forfeit = None
            comment = comment or "forfeit after an illegal call (V2)"
        else:
            g.play(ev.cult, ev.roll, ev.action)
        self.record.append((ev, comment))
        if len(g.results) > n_results:
            res = g.results[-1]
            self.record.append((ScoreLine(tuple(res.scores.items())), ""))
            self.record.append((TotalsLine(tuple(g.totals.items())), ""))
            return res
        return None

    def _phase_line(self, cult: str | None) -> None:
        """The phase line before the first turn of a phase, as the simulator writes it."""
        g = self.game
        if g.turns_in_phase == 0 and not g.phase_marked and not g.finished:
            start = g.start_cult or cult  # without a roll-off the first turn decides
            if start is None:
                return
            g.mark_phase(g.phase, start)
            self.record.append((PhaseLine(g.phase, start), ""))

    def note_illegal(self, t: Turn, rule: str, message: str) -> None:
        """An illegal call stands after its phase line; it never decides the start cult."""
        if self.game.start_cult is not None and not self.game.rolloff_pending:
            self._phase_line(None)
        self.record.append((t, f"illegal call, not played: {rule}: {message}"))
        if self.options.illegal_call is IllegalCall.FORFEIT:
            self.pending_forfeit = t

    def text(self, tags: dict[str, str], comments: bool = True) -> str:
        """The record in canonical form; illegal calls only as comments."""
        lines = format_tags(tags)
        lines.append("")
        for ev, comment in self.record:
            illegal = comment.startswith("illegal call")
            if illegal and not comments:
                continue
            line = format_event(ev)
            if illegal:
                lines.append(f"# {line}   # {comment}")
            elif comment and comments:
                lines.append(f"{line}   # {comment}")
            else:
                lines.append(line)
        g = self.game
        if g.finished and comments:
            lines.append(f"# winners: {' '.join(g.winners) or 'none'}; losers: {' '.join(g.losers) or 'none'}")
        return "\n".join(lines) + "\n"


def effective(events: list[StoredEvent]) -> list[StoredEvent]:
    """The stored events with every voided one replaced by its correction."""
    out: list[StoredEvent] = []
    for e in events:
        if e.kind is Kind.CORRECT:
            idx = next((i for i in range(len(out) - 1, -1, -1) if out[i].seq == e.ref), None)
            if idx is None or out[idx].kind not in (Kind.TURN, Kind.CORRECT):
                raise StoreError(f"event {e.seq} corrects event {e.ref}, which is not a turn before it")
            out[idx] = e
        else:
            out.append(e)
    return out


def fold(options: Options, events: list[StoredEvent]) -> Folder:
    """Replay stored events through the rules; a stored event that breaks a rule is a damaged store."""
    f, fault = fold_partial(options, events)
    if fault is not None:
        raise StoreError(f"{fault}; the database was damaged or changed outside companion")
    return f


def fold_partial(options: Options, events: list[StoredEvent]) -> tuple[Folder, str | None]:
    """Like ``fold``, but stops at the first bad event and says which, keeping what came before."""
    f = Folder(options)
    try:
        eff = effective(events)
    except StoreError as exc:
        return f, str(exc)
    for e in eff:
        try:
            if e.kind is Kind.ILLEGAL:
                rule, _, message = e.note.partition(" ")
                f.note_illegal(parse_turn(e.text), rule, message)
                continue
            if e.kind is Kind.START:
                ev: StartRoll | Turn = parse_start(e.text)
                kind = Kind.START
            else:
                ev = parse_turn(e.text)
                kind = Kind.FORFEIT if e.kind is Kind.FORFEIT else Kind.TURN  # corrections replace turns
            f.judge(kind, ev)
            comment = ""
            if e.kind is Kind.CORRECT:
                comment = f"corrected: {e.note}" if e.note else "corrected"
            f.apply(e.seq, kind, ev, comment)
        except RuleError as exc:
            return f, f"stored event {e.seq} ({e.text}) breaks rule {exc.rule}: {exc.message}"
    return f, None
