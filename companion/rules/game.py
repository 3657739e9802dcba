"""The state of a game and its one transition function.

Everything here is pure: dice are chance outcomes handed in by the caller,
nothing is rolled, read from disk or timed. A ``Game`` is judged and
changed only through ``judge``/``play`` (turns), ``roll_start`` (the
start-cult roll-off) and ``open_phase`` (a phase begun with its start cult named).
What a record's lines may say when (record/recorded.py) is not the game's state.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field

from .actions import CENTER, Action, CallAction, GiveUp
from .calls import ALL_FHTAGN, TABLE_K, Call, Shape, Word, call_text, shape_of
from .faces import TENTACLES, E, I, faces_text, tentacle_value
from .options import Doublers, IllegalCall, Options, StartRule, center_dice_for
from .verdicts import OK, RuleError, Verdict


@dataclass(frozen=True, slots=True)
class Working:
    """SC1–SC3 for one cult: how its phase value came about."""

    tentacles: int
    iaa: int
    doubled: bool
    complete: bool

    @property
    def value(self) -> int:
        return self.tentacles * self.iaa * (2 if self.doubled else 1)

    @property
    def points(self) -> int:
        return self.value if self.complete else -self.value


@dataclass(frozen=True, slots=True)
class PhaseResult:
    number: int
    start: str
    working: dict[str, Working]
    complete: tuple[str, ...]
    doublers: tuple[str, ...]

    @property
    def scores(self) -> dict[str, int]:
        return {c: w.points for c, w in self.working.items()}


@dataclass
class RollOff:
    """ST1/ST2: rounds of start rolls until one cult is ahead."""

    contenders: tuple[str, ...]
    rounds: list[dict[str, tuple[str, ...]]] = field(default_factory=lambda: [{}])
    winner: str | None = None

    @property
    def current(self) -> dict[str, tuple[str, ...]]:
        return self.rounds[-1]


def count_score(faces: tuple[str, ...], rule: StartRule) -> int:
    if rule is StartRule.COUNT:
        return sum(1 for f in faces if f in TENTACLES)
    return sum(tentacle_value(f) for f in faces)


def _list_calls(actions: tuple[Action, ...]) -> str:
    kids: list[str] = []
    for a in actions:
        if isinstance(a, CallAction) and a.k and a.k not in kids:
            kids.append(a.k)
    kids.sort(key=lambda k: int(k[1:]))
    if kids:
        return ", ".join(f"{k} {call_text(TABLE_K[k])}" for k in kids)
    return "give up a die" if actions else "none"


class Game:
    """One game of IÄÄ! Cthulhu! Fhtagn!: state plus the rules that move it."""

    def __init__(self, options: Options) -> None:
        self.options = options
        cults = options.cults
        self.cults = cults
        self.rolloff: RollOff | None = None
        self.start_cult: str | None = None
        self.play_began = False
        self.phase = 0
        self.phase_start: str | None = None
        self.pools: dict[str, int] = {}
        self.layouts: dict[str, list[str]] = {c: [] for c in cults}
        self.open: dict[str, bool] = {}
        self.complete: list[str] = []
        self.center = 0
        self.out = 0
        self.held: set[str] = set()  # cults holding a doubler stone
        self.stones_center = options.stones
        self.to_move: str | None = None
        self.turns_in_phase = 0
        self.totals: dict[str, int] = {c: 0 for c in cults}
        self.results: list[PhaseResult] = []
        self.finished = False
        self.winners: tuple[str, ...] = ()
        self.losers: tuple[str, ...] = ()
        self._setup_phase()

    # ---------------------------------------------------------------- setup
    def _setup_phase(self) -> None:
        """S1, S2, S4: pools of 6, dice to the center, empty layouts."""
        n = len(self.cults)
        self.phase += 1
        self.pools = {c: 6 for c in self.cults}
        self.open = {c: True for c in self.cults}
        self.layouts = {c: [] for c in self.cults}
        self.complete = []
        self.center = center_dice_for(n)
        self.out = self.options.dice - 6 * n - self.center
        if self.options.doublers is Doublers.RETURN:
            self.held = set()
        self.stones_center = self.options.stones - len(self.held)
        self.turns_in_phase = 0
        self.phase_start = self.start_cult
        self.to_move = self.start_cult

    def copy(self) -> Game:
        return copy.deepcopy(self)

    # ------------------------------------------------------------ accounting
    def dice_accounted(self) -> int:
        """Pools, layouts, center and out of play: always 20 per set."""
        return (
            sum(self.pools.values())
            + sum(len(lay) for lay in self.layouts.values())
            + self.center
            + self.out
        )

    def free_dice(self, cult: str) -> int:
        """F1: the center plus the pools of the other open cults."""
        return self.center + sum(n for c, n in self.pools.items() if c != cult and self.open[c])

    def next_open(self, after: str) -> str | None:
        """T1: the next cult clockwise whose invocation is open."""
        i = self.cults.index(after)
        n = len(self.cults)
        for step in range(1, n + 1):
            c = self.cults[(i + step) % n]
            if self.open[c]:
                return c
        return None

    # --------------------------------------------------------------- roll-off
    @property
    def rolloff_pending(self) -> bool:
        return self.rolloff is not None and self.rolloff.winner is None

    def roll_start(self, cult: str, faces: tuple[str, ...]) -> str | None:
        """One roll of the start-cult roll-off; returns the start cult once decided."""
        self._check_cult(cult)
        if self.play_began:
            raise RuleError("ST1", "the roll-off is rolled before play begins")
        # A line that breaks ST1 and ST2 at once cites ST1 (NOTATION.md: within a stage, the
        # first rule in RULES.md order): the dice count before who may roll.
        if len(faces) != 6:
            raise RuleError("ST1", f"{cult} must roll 6 dice in the roll-off, not {len(faces)}")
        ro = self.rolloff
        if ro is None:
            ro = self.rolloff = RollOff(self.cults)
        if ro.winner is not None:
            raise RuleError("ST2", f"the roll-off is over: {ro.winner} is the start cult")
        if cult not in ro.contenders:
            names = " and ".join(c for c in self.cults if c in ro.contenders)
            raise RuleError("ST2", f"only {names} roll again in this round of the roll-off")
        if cult in ro.current:
            if len(ro.rounds) == 1:
                raise RuleError("ST1", f"{cult} rolls only once in the roll-off")
            raise RuleError("ST2", f"{cult} rolls only once in this round of the roll-off")
        ro.current[cult] = tuple(faces)
        if len(ro.current) < len(ro.contenders):
            return None
        scores = {c: count_score(f, self.options.start_rule) for c, f in ro.current.items()}
        best = max(scores.values())
        top = tuple(c for c in self.cults if scores.get(c) == best)
        if len(top) == 1:
            ro.winner = top[0]
            self.start_cult = self.phase_start = self.to_move = top[0]
            return top[0]
        ro.contenders = top
        ro.rounds.append({})
        return None

    def _check_rolloff_done(self) -> None:
        ro = self.rolloff
        if ro is None or ro.winner is not None:
            return
        if len(ro.rounds) == 1:
            missing = [c for c in self.cults if c not in ro.current]
            raise RuleError(
                "ST1", f"the roll-off is not finished: {', '.join(missing)} must still roll"
            )
        raise RuleError("ST2", "the roll-off is tied: the tied cults roll again before play")

    def _check_cult(self, cult: str) -> None:
        if cult not in self.cults:
            raise RuleError("N", f"{cult} is not a cult of this game")

    # ---------------------------------------------------------------- phases
    def open_phase(self, start: str | None) -> None:
        """The phase begins before its first turn, with ``start`` as its start cult when named
        (a record's phase line), checked against the roll-off and the start-cult stone."""
        if start is not None:
            self._check_cult(start)
        if self.finished:
            raise RuleError("G1", "the game has ended")
        self._check_rolloff_done()
        if self.turns_in_phase > 0:
            raise RuleError(
                "E4", f"phase {self.phase} has not ended: some invocations are still open"
            )
        if start is not None:
            if self.start_cult is None:
                self._set_start(start)
            elif start != self.start_cult:
                if self.phase == 1:
                    raise RuleError("ST1", f"{self.start_cult} is the start cult, not {start}")
                raise RuleError(
                    "ST3", f"the start-cult stone passed to {self.start_cult}, not {start}"
                )
        self.play_began = True

    def _set_start(self, cult: str) -> None:
        self.start_cult = self.phase_start = self.to_move = cult

    # ---------------------------------------------------------------- judging
    def judge_turn(self, cult: str, roll: tuple[str, ...]) -> None:
        """Stages 2 and 3: may this cult roll these dice now?"""
        self._check_cult(cult)
        if self.finished:
            raise RuleError("G1", "the game has ended")
        self._check_rolloff_done()
        if self.to_move is not None and cult != self.to_move:  # None: first turn sets it
            raise RuleError("T1", f"it is {self.to_move}'s turn, not {cult}'s")
        have = self.pools[cult]
        if len(roll) != have:
            raise RuleError("T2", f"{cult} must roll all {have} dice of its pool, not {len(roll)}")

    def needs_fault(self, cult: str, roll: tuple[str, ...], call: Call) -> RuleError | None:
        """Stages 5 and 6: the call's shape, then table K's needs."""
        words = set(call)
        # K8 is its words in its order: "Fhtagn! Ph'nglui!" holds both and is no K8 (D6, which
        # stage 5 cites before O1)
        if Word.FHTAGN in words and Word.PHNGLUI in words and call != ALL_FHTAGN:
            return RuleError(
                "D6", "a call never holds both Fhtagn! and Ph'nglui!, except the All-Fhtagn call"
            )
        if call != ALL_FHTAGN:
            if len(words) != len(call):
                return RuleError("O1", "no word of a call may be repeated")
            if any(a.rank >= b.rank for a, b in zip(call, call[1:], strict=False)):
                return RuleError(
                    "O1", "the words come in the order IÄÄ!, Cthulhu!, Fhtagn!/Ph'nglui!"
                )
        if call not in TABLE_K.values():
            return RuleError("O2", f"{call_text(call)} is not a call of table K")
        s = shape_of(call)
        rolled = set(roll)
        if s.all_fhtagn:
            if rolled != {E}:
                return RuleError("D7", "the All-Fhtagn call needs a roll of Elder Signs only")
            return None
        layout = self.layouts[cult]
        lay_i = I in layout
        lay_t = any(f in TENTACLES for f in layout)
        roll_t = any(f in TENTACLES for f in rolled)
        if s.iaa and I not in rolled:
            return RuleError("D1", "IÄÄ! needs an I in the roll")
        if not s.iaa and not lay_i:
            return RuleError("D2", "no die but an I may be placed while the layout holds no I")
        if s.cthulhu and not roll_t:
            return RuleError("D3", "Cthulhu! needs a tentacle die in the roll")
        if s.fhtagn:
            if E not in rolled:
                return RuleError("D4", "Fhtagn! needs an E in the roll")
            if not lay_t and not s.cthulhu:
                return RuleError("D4", "Fhtagn! needs an I and a tentacle die in the layout first")
        if s.phnglui:
            if E not in rolled:
                return RuleError("D5", "Ph'nglui! needs an E in the roll")
            if self.free_dice(cult) == 0:
                return RuleError("D5", "Ph'nglui! needs a free die, and none is left")
        return None

    def _carry_fault(
        self, cult: str, roll: tuple[str, ...], s: Shape, a: CallAction
    ) -> RuleError | None:
        """Stage 7: do ``place`` and ``take`` carry the call out?"""
        place = a.place
        n_i = place.count(I)
        n_e = place.count(E)
        tents = [f for f in place if f in TENTACLES]
        free = self.free_dice(cult)
        if s.iaa and n_i == 0:
            return RuleError("T5", "the call IÄÄ! was spoken but no I is placed")
        if s.cthulhu and not tents:
            return RuleError("T5", "the call Cthulhu! was spoken but no tentacle die is placed")
        if s.fhtagn and n_e == 0:
            return RuleError("T5", "the call Fhtagn! was spoken but no E is placed")
        if (s.phnglui or (s.all_fhtagn and free > 0)) and not a.take:
            return RuleError("T5", "the call Ph'nglui! was spoken but no die is taken")
        if n_i > (1 if s.iaa else 0):
            return RuleError("D1", "exactly one I is placed, and only by IÄÄ!")
        if tents and not s.cthulhu:
            return RuleError("D3", "tentacle dice are placed only by Cthulhu!")
        if any(place.count(f) > roll.count(f) for f in set(tents)):
            return RuleError("D3", "Cthulhu! places only tentacle dice that the roll shows")
        if n_e > (1 if s.fhtagn else 0):
            return RuleError("D4", "exactly one E is placed, and only by Fhtagn!")
        if a.take and not (s.phnglui or s.all_fhtagn):
            return RuleError("D5", "a die is taken only by Ph'nglui!")
        if s.phnglui and len(a.take) > 1:
            return RuleError("D5", "Ph'nglui! takes exactly one free die")
        if s.all_fhtagn and len(a.take) != min(2, free):
            want = min(2, free)
            return RuleError(
                "D7",
                f"the All-Fhtagn call takes {want} free {'die' if want == 1 else 'dice'} here, "
                f"not {len(a.take)}",
            )
        center = self.center
        pools = dict(self.pools)
        open_ = dict(self.open)
        for src in a.take:
            if src == CENTER:
                if center == 0:
                    return RuleError("F1", "the center holds no die to take")
                center -= 1
                continue
            if src == cult:
                return RuleError("F1", f"{cult} cannot take a die from its own pool")
            if src not in pools:
                return RuleError("N", f"{src} is not a cult of this game")
            if not open_[src] or pools[src] == 0:
                return RuleError("F1", f"{src}'s invocation has ended, so its dice are not free")
            if center > 0:
                return RuleError("F2", "while the center holds a die, a take comes from the center")
            pools[src] -= 1
            if pools[src] == 0:
                open_[src] = False
        return None

    def placing_call_legal(self, cult: str, roll: tuple[str, ...]) -> bool:
        return any(
            shape_of(call).places and self.needs_fault(cult, roll, call) is None
            for call in TABLE_K.values()
        )

    def judge(self, cult: str, roll: tuple[str, ...], action: Action) -> None:
        """Raise ``RuleError`` for the first rule the action breaks (NOTATION.md stages)."""
        self.judge_turn(cult, roll)
        if isinstance(action, GiveUp):
            if self.placing_call_legal(cult, roll):
                legal = self.legal_actions(roll, cult)
                raise RuleError(
                    "T3",
                    f"a placing call is legal, so {cult} may not give up a die; "
                    f"legal: {_list_calls(legal)}",
                    legal,
                )
            if action.face not in roll:
                raise RuleError(
                    "T4",
                    f"{cult} can give up only a die of its roll, and no {action.face} was rolled",
                )
            return
        fault = self.needs_fault(cult, roll, action.call)
        if fault is None:
            fault = self._carry_fault(cult, roll, shape_of(action.call), action)
            if fault is None:
                return
        legal = self.legal_actions(roll, cult)
        if (
            fault.rule in ("D1", "D2", "D3", "D4", "D5", "D6", "D7", "O1", "O2")
            and fault.message.find("legal:") < 0
        ):
            fault = RuleError(fault.rule, f"{fault.message}; legal: {_list_calls(legal)}", legal)
        else:
            fault = RuleError(fault.rule, fault.message, legal)
        raise fault

    def verdict(self, cult: str, roll: tuple[str, ...], action: Action) -> Verdict:
        """The judgement as a value: ``OK``, or the rule id, the sentence and the legal actions."""
        try:
            self.judge(cult, roll, action)
        except RuleError as exc:
            return exc.verdict
        return OK

    def is_legal(self, cult: str, roll: tuple[str, ...], action: Action) -> bool:
        try:
            self.judge(cult, roll, action)
        except RuleError:
            return False
        return True

    # ----------------------------------------------------------- legal moves
    def legal_actions(self, roll: tuple[str, ...], cult: str | None = None) -> tuple[Action, ...]:
        """Every legal call with every choice of dice and takes, or the give-ups."""
        cult = cult or self.to_move
        if cult is None or self.finished or cult not in self.pools:
            return ()
        if len(roll) != self.pools[cult]:
            return ()
        out: list[Action] = []
        have = Counter(roll)
        tent_choices = _tentacle_choices(have)
        for call in TABLE_K.values():
            if self.needs_fault(cult, roll, call) is not None:
                continue
            s = shape_of(call)
            if s.all_fhtagn:
                for takes in self._take_choices(cult, min(2, self.free_dice(cult))):
                    out.append(CallAction(call, (), takes))
                continue
            base = ((I,) if s.iaa else ()) + ((E,) if s.fhtagn else ())
            tails = tent_choices if s.cthulhu else [()]
            takes_opts = self._take_choices(cult, 1) if s.phnglui else [()]
            for t in tails:
                for takes in takes_opts:
                    out.append(CallAction(call, base + t, takes))
        if not any(isinstance(a, CallAction) and shape_of(a.call).places for a in out):
            for face in sorted(set(roll), key="I123E".index):
                out.append(GiveUp(face))
        return tuple(out)

    def _take_choices(self, cult: str, n: int) -> list[tuple[str, ...]]:
        results: list[tuple[str, ...]] = []

        def walk(center: int, pools: dict[str, int], acc: tuple[str, ...]) -> None:
            if len(acc) == n:
                results.append(acc)
                return
            if center > 0:
                walk(center - 1, pools, acc + (CENTER,))
                return
            for c in self.cults:
                if c != cult and self.open[c] and pools[c] > 0:
                    walk(center, {**pools, c: pools[c] - 1}, acc + (c,))

        walk(self.center, dict(self.pools), ())
        return results

    # --------------------------------------------------------------- playing
    def forfeit(self, cult: str, roll: tuple[str, ...], face: str) -> None:
        """V2 option ``forfeit``: after an illegal call the cult gives up a die of its roll.

        Under the default ``recall`` the cult is asked for a legal call instead.
        """
        if self.options.illegal_call is not IllegalCall.FORFEIT:
            raise RuleError(
                "V2", "this table recalls illegal calls: the cult makes a legal call instead"
            )
        self.judge_turn(cult, roll)
        if face not in roll:
            raise RuleError(
                "T4", f"{cult} can give up only a die of its roll, and no {face} was rolled"
            )
        if self.start_cult is None:
            self._set_start(cult)
        self._apply(cult, GiveUp(face))

    def play(self, cult: str, roll: tuple[str, ...], action: Action) -> None:
        """Judge the action and, when legal, apply it."""
        self.judge(cult, roll, action)
        if self.start_cult is None:
            self._set_start(cult)  # no roll-off, no phase line: the first turn decides
        self._apply(cult, action)

    def _apply(self, cult: str, action: Action) -> None:
        self.play_began = True
        self.turns_in_phase += 1
        if isinstance(action, GiveUp):
            self.pools[cult] -= 1
            self.center += 1
            if self.pools[cult] == 0:
                self.open[cult] = False  # E2
        else:
            s = shape_of(action.call)
            self.pools[cult] -= len(action.place)
            self.layouts[cult].extend(action.place)
            for src in action.take:
                if src == CENTER:
                    self.center -= 1
                else:
                    self.pools[src] -= 1
                    if self.pools[src] == 0:
                        self.open[src] = False  # E2
                self.pools[cult] += 1  # F3
            if s.fhtagn:  # E1
                self.center += self.pools[cult]
                self.pools[cult] = 0
                self.open[cult] = False
                self.complete.append(cult)
                if s.iaa and s.cthulhu and self.stones_center > 0 and cult not in self.held:
                    self.stones_center -= 1  # DB1
                    self.held.add(cult)
            elif self.pools[cult] == 0:
                self.open[cult] = False  # E2
        nxt = self.next_open(cult)
        if nxt is None:
            self._score_phase()
        else:
            self.to_move = nxt

    def _score_phase(self) -> None:
        """E4, SC1–SC3, G1–G4, ST3, DB2."""
        working: dict[str, Working] = {}
        for c in self.cults:
            lay = self.layouts[c]
            working[c] = Working(
                tentacles=sum(tentacle_value(f) for f in lay),
                iaa=lay.count(I),
                doubled=c in self.held,
                complete=c in self.complete,
            )
            self.totals[c] += working[c].points
        assert self.phase_start is not None
        self.results.append(
            PhaseResult(
                number=self.phase,
                start=self.phase_start,
                working=working,
                complete=tuple(c for c in self.cults if c in self.complete),
                doublers=tuple(c for c in self.cults if c in self.held),
            )
        )
        target = self.options.target
        high = [c for c in self.cults if self.totals[c] >= target]
        low = [c for c in self.cults if self.totals[c] <= -target]
        if high or low:
            self.finished = True
            if high:
                self.winners = tuple(high)
            else:
                self.winners = tuple(c for c in self.cults if c not in low)
            self.losers = tuple(c for c in self.cults if c not in self.winners)
            self.to_move = None
            return
        assert self.start_cult is not None
        self.start_cult = self.cults[(self.cults.index(self.start_cult) + 1) % len(self.cults)]
        self._setup_phase()

    # ---------------------------------------------------------------- display
    def layout_text(self, cult: str) -> str:
        return faces_text(self.layouts[cult])


def _tentacle_choices(have: Counter[str]) -> list[tuple[str, ...]]:
    """Every non-empty sub-multiset of the tentacle dice of a roll."""
    out: list[tuple[str, ...]] = []
    for a in range(have["1"] + 1):
        for b in range(have["2"] + 1):
            for c in range(have["3"] + 1):
                if a + b + c:
                    out.append(("1",) * a + ("2",) * b + ("3",) * c)
    return out
