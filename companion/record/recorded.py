"""A game and its record, moved by one event applier that every use drives.

``RecordedGame.apply_line`` takes one line of a record (a roll-off roll, a phase line, a turn, a
score or totals line), checks it against the game and the record format, applies it and keeps
it. Replay drives it line by line; the simulator and the store's fold drive ``enter``, which
takes what happens at a table (a roll-off roll or a turn) and applies the lines it implies
too: the phase line before a phase's first turn, the score and totals after its last.

What a record may say when (is a phase line due, may a score line stand here) is the
record's state, kept here, not the game's.
"""

from __future__ import annotations

from ..rules.actions import GiveUp
from ..rules.game import Game, PhaseResult
from ..rules.options import IllegalCall, Options
from ..rules.verdicts import RuleError
from .notation import Event, PhaseLine, ScoreLine, StartRoll, TotalsLine, Turn
from .writer import RecordLine, write_record

FORFEIT_COMMENT = "forfeit after an illegal call (V2)"


class RecordedGame:
    """A ``Game`` and the record lines that brought it where it is."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.game = Game(options)
        self.lines: list[RecordLine] = []
        self.pending_forfeit: Turn | None = None  # V2: the illegal call whose forfeit is owed
        self._marked_phase = 0  # the phase whose phase line stands
        self._score_window = False  # right after a phase ended: its score and totals may stand
        self.notes: list[tuple[int, str]] = []  # (lines before it, text): comments of the record

    # ------------------------------------------------------------ one line
    def apply_line(self, ev: Event, comment: str = "", *, forfeit: bool = False) -> None:
        """Check one record line against the game and the record, apply it and keep it;
        ``RuleError`` when it breaks a rule (nothing is changed then). ``forfeit``: the turn
        is the V2 give-up after an illegal call."""
        g = self.game
        if isinstance(ev, Turn):
            n_results = len(g.results)
            if forfeit:
                if not isinstance(ev.action, GiveUp):
                    raise RuleError("V2", "after an illegal call the cult gives up one die")
                g.forfeit(ev.cult, ev.roll, ev.action.face)
                self.pending_forfeit = None
            else:
                g.play(ev.cult, ev.roll, ev.action)
            self._score_window = len(g.results) > n_results
        elif isinstance(ev, StartRoll):
            g.roll_start(ev.cult, ev.faces)
        elif isinstance(ev, PhaseLine):
            if ev.start is not None and ev.start not in g.cults:
                raise RuleError("N", f"{ev.start} is not a cult of this game")
            if g.finished:  # NOTATION.md: "A turn or phase line after the game has ended is G1"
                raise RuleError("G1", "the game has ended")
            due = self.phase_line_due()
            if not due and ev.number in (g.phase, g.phase + 1):
                # After the running phase's first turn or its own line, its number or the next
                # is no wrong number: the line stands where none may (NOTATION.md: "a phase
                # line while the running phase has not ended is E4"). Before, the next number
                # with no turn yet was taken, and the record's phases ran one behind.
                raise RuleError(
                    "E4", f"phase {g.phase} has not ended: no phase line may stand here"
                )
            want = g.phase if due else g.phase + 1
            if ev.number != want:
                raise RuleError("N", f"this is phase {want}, not phase {ev.number}")
            g.open_phase(ev.start)
            self._marked_phase = g.phase
            self._score_window = False
        elif isinstance(ev, ScoreLine):
            if not self._score_window or not g.results:
                raise RuleError("E4", "a score line stands only right after a phase has ended")
            scores = g.results[-1].scores
            for cult, n in ev.points:
                if scores[cult] != n:
                    raise RuleError(
                        "SC1", f"{cult} scored {scores[cult]:+d} in this phase, not {n:+d}"
                    )
        else:
            for cult, n in ev.points:
                if g.totals[cult] != n:
                    raise RuleError(
                        "SC3", f"{cult} has {g.totals[cult]:+d} power points, not {n:+d}"
                    )
        self.lines.append(RecordLine(ev, comment))

    def phase_line_due(self) -> bool:
        """Before the first turn of a phase whose phase line is not written yet."""
        g = self.game
        return g.turns_in_phase == 0 and self._marked_phase != g.phase and not g.finished

    # -------------------------------------------------- what happens at a table
    def check(self, ev: StartRoll | Turn, *, forfeit: bool = False) -> None:
        """Raise ``RuleError`` when ``ev`` may not be entered now; changes nothing."""
        g = self.game
        if isinstance(ev, StartRoll):
            g.copy().roll_start(ev.cult, ev.faces)
        elif forfeit:
            if not isinstance(ev.action, GiveUp):
                g.judge_turn(ev.cult, ev.roll)
                raise RuleError("V2", "after an illegal call the cult gives up one die")
            g.copy().forfeit(ev.cult, ev.roll, ev.action.face)
        else:
            g.judge(ev.cult, ev.roll, ev.action)

    def enter(
        self, ev: StartRoll | Turn, comment: str = "", *, forfeit: bool = False
    ) -> PhaseResult | None:
        """Apply a roll-off roll or a turn with the lines it implies; the phase result when
        it ended a phase."""
        if isinstance(ev, StartRoll):
            self.apply_line(ev, comment)
            return None
        line = self.phase_line(ev.cult)
        if line is not None:
            self.apply_line(line)
        n_results = len(self.game.results)
        self.apply_line(ev, comment or (FORFEIT_COMMENT if forfeit else ""), forfeit=forfeit)
        if len(self.game.results) == n_results:
            return None
        for end in self.phase_end_lines():
            self.apply_line(end)
        return self.game.results[-1]

    def phase_line(self, cult: str | None) -> PhaseLine | None:
        """The phase line that is due before a turn of ``cult`` (None: not before a turn)."""
        g = self.game
        start = g.start_cult or cult  # without a roll-off the first turn decides
        if not self.phase_line_due() or start is None:
            return None
        return PhaseLine(g.phase, start)

    def phase_end_lines(self) -> tuple[ScoreLine, TotalsLine]:
        """The score and totals lines of the phase that just ended."""
        g = self.game
        return ScoreLine(tuple(g.results[-1].scores.items())), TotalsLine(tuple(g.totals.items()))

    def note_illegal(self, t: Turn, rule: str, message: str) -> None:
        """An illegal call is kept as a comment after its phase line; it never decides the
        start cult. Under V2 ``forfeit`` the cult then owes a die."""
        if self.game.start_cult is not None and not self.game.rolloff_pending:
            line = self.phase_line(None)
            if line is not None:
                self.apply_line(line)
        self.lines.append(
            RecordLine(t, f"illegal call, not played: {rule}: {message}", played=False)
        )
        if self.options.illegal_call is IllegalCall.FORFEIT:
            self.pending_forfeit = t

    def note(self, text: str) -> None:
        """The secretary's note (a settled dispute): a comment after the lines so far."""
        self.notes.append((len(self.lines), text))

    @property
    def illegal_calls(self) -> int:
        return sum(1 for line in self.lines if not line.played)

    def text(self, tags: dict[str, str], comments: bool = True) -> str:
        """The record in canonical form; illegal calls, notes and the end only as comments."""
        g = self.game
        footer = None
        if g.finished:
            footer = (
                f"winners: {' '.join(g.winners) or 'none'}; losers: {' '.join(g.losers) or 'none'}"
            )
        return write_record(tags, self.lines, comments=comments, footer=footer, notes=self.notes)
