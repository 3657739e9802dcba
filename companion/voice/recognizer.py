"""The call recognizer: pocketsphinx with a grammar of calls, and a confidence for each.

Four searches hear the same utterance, all on pocketsphinx's en-us model:

1. the grammar of the calls allowed now (``narrow``) picks the best call;
2. the same grammar without the best call gives the runner-up among the
   allowed calls: the second guess, and the legal margin (how clearly the
   best beat the calls it can be confused with now);
3. a grammar of every *other* call of table K or a free loop of phones
   (garbage) gives the runner-up; the per-frame score margin says how
   clearly the best call beat everything else, legal or not, speech or not,
   and whether the runner-up is another call (a call said unclearly) or the
   garbage loop (speech that is no call: table talk). When that search
   finds no path at all, the garbage loop alone is searched for the margin;
4. a free phone loop (all-phone search) is the yardstick of how well any
   speech fits each word of the call.

With the share of loud frames no word of the call covers (table talk that
merely contains a call-like sound), the length of the call in phones (a
short call such as IÄÄ! is easily matched by a short word of table talk) and
how much nearer the speech lies to synthesised sayings of the best call than
to those of any other call, matched by DTW without the acoustic model
(``templates``), these give nine features.

A second listener, the call network (``callnet``: Google's speech embedding
and a small CTC network of ours), gives every allowed call and talk a
log-probability. The call is the allowed call it favours most, with a bonus
for pocketsphinx's best call and its runner-up (``choose``); its
log-probability of the call, its lead, and whether pocketsphinx agrees are
three more features (issue 18, seventh to tenth rounds).
A logistic regression fitted on development sets (espeak-ng, flite and
MBROLA, seeds 1-5, each heard by a call network that never heard its
synthesiser; never the kept-aside festival and Pico sets) maps them to log-odds; up to 0.5
the confidence is the regression's probability that the call is right, and
above it the scale is stretched so that 0.8 lies above every wrong call and
every piece of table talk of the development sets (``squash``).
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.rules import TABLE_K, Call, k_id

from .audio import Samples
from .callnet import CallNet, CallNetUnavailable, posteriors
from .heard import HIGH_CONFIDENCE, Heard
from .lexicon import dictionary_text, grammar_jsgf, is_garbage, parse_tokens, phone_count
from .templates import Templates

#: What ``Features.vector()`` holds, in order (the cache key of bench_voice's fit):
#: pocketsphinx's nine features of the call it heard, then the call network's three.
PS_FEATURES = (
    "margin",
    "word_gap/10",
    "silence_gap/10",
    "unexplained",
    "phones/10",
    "rival_garbage",
    "legal_margin",
    "no_legal_rival",
    "dtw_lead",
)
FEATURE_NAMES = (*PS_FEATURES, "net_lp/5", "net_lead/5", "agrees")
#: The call is the allowed call with the highest call-network log-probability
#: plus these bonuses for pocketsphinx's best call and its runner-up (fitted on
#: the development sets, each heard by a network that never heard its
#: synthesiser: ``bench_voice --fit``; the ninth round's fit gave the runner-up 0,
#: the tenth round's 2).
HEARD_BONUS = 4.0
SECOND_BONUS = 2.0
#: Calls heard with a lower confidence are reported as null.
DEFAULT_THRESHOLD = 0.5
#: Logistic regression from ``Features.vector()`` (FEATURE_NAMES) to the
#: log-odds that the call is right. Fitted by ``python -m benchmarks.bench_voice
#: --fit --mbrola`` on the development sets (seeds 1-5 of espeak-ng, flite and,
#: since issue 18's sixth round, MBROLA's six diphone voices: flite's wordings
#: read as words, not letter names; seed 5 says the calls in plain written
#: spellings, read by each voice's own letter-to-sound rules; the searches of
#: calls with TOPN Gaussians); the kept-aside sets (festival and Pico, seed 8)
#: are never used. The legal margin holds across synthesisers: fitted on
#: espeak-ng alone and tried on flite, 1 wrong call reached 0.8 instead of 7;
#: each synthesiser held out of a fit on the other two is heard better with
#: MBROLA's voices in the fit than without (docs/voice.md). The templates' lead
#: (the last weight; bench_voice measures each development voice against the
#: other voices' templates) tells talk from calls better, so 0.5 is placed with
#: talk weighted as 3 utterances in 100 (``bench_voice.TALK_SHARE``). Since session 32
#: every development file is heard by two trainings of each fold network, and the fit
#: rests on both (``--draws``): one training's decodes let a wrong call and talk
#: through the constants fitted on another's (docs/voice.md).
WEIGHTS = (
    0.063, -0.239, 0.071, 0.296, 1.120, -0.077, -0.053, -0.075, -0.505, -0.005, 1.552, 1.255,
)  # fmt: skip
BIAS = 0.362
#: The log-odds at which the confidence reaches HIGH_CONFIDENCE (0.8): just
#: above the highest-scoring wrong call or table talk of the development
#: sets, plus a safety margin (``bench_voice --fit --mbrola``: how far the highest
#: rose for speech held out of a fit: odd or even seeds, and since the tenth round
#: each synthesiser and each voice, since session 32 each training draw of the fold
#: networks; 0.33, flite held out). Positive log-odds are scaled by logit(0.8) /
#: SURE_LOGIT, so 0.5 stays where the regression puts it.
SURE_LOGIT = 5.754
# Features are clipped to this range: a margin of 40 is no surer than 10.
CLIP = 10.0
# The call network's log-probabilities are clipped to ±NET_CLIP (e^-20 is no chance at all).
NET_CLIP = 20.0
# Template distances are capped here (a call none of whose templates can be
# met, all over twice as long as the utterance, is this far), and the lead
# of the best call over the others is clipped to ±DTW_CLIP. Right calls lie
# at 3.5-5 from their templates, table talk at 5-6.
DTW_FAR = 8.0
DTW_CLIP = 3.0
# Hiss added under the speech, this many dB below its loud frames: exact
# digital silence (synthesised or gated audio) otherwise breeds phantom words
# (an IÄÄ! out of nothing before the call), and real rooms are never silent.
NOISE_FLOOR_DB = 40.0
# Word insertion "probability": far below pocketsphinx's 0.65, so that a stray
# IÄÄ! is not slipped in before Cthulhu! (chosen on the development set:
# 212 of 220 right against 207 at 0.65).
WORD_PENALTY = 0.05
# Gaussians scored per senone in the searches of calls (pocketsphinx's default
# is 4): more follow speech unlike the model's better. Chosen on the
# development sets (the first search's best guess, every other call of seeds
# 1-5): as they stood before the fourth round 78.8 % at 4, 80.6 % at 8, 81.4 %
# at 16, 81.8 % at 32 (flite 60.9, 65.0, 66.4, 66.8 %); the fourth round's sets
# 87.9 % at 4, 88.5 % at 16 (flite at 5 dB 56.6 → 60.4 %). About 100 ms more
# CPU a call at 16, 250 ms at 32. The phone loop, a yardstick, keeps 4.
TOPN = 16
# Decoder frames are 10 ms; a frame is loud when this far above the quietest tenth.
FRAME = 160
LOUD_DB = 15.0
# Silences shorter than this (frames) are pauses between words, not hiding places.
MIN_SILENCE = 10

#: The templates' lead is taken over every call of table K, allowed or not.
ALL_CALLS: tuple[Call, ...] = tuple(TABLE_K.values())
# Batch CMN, reset before every utterance (``_decode``): a result never
# depends on the utterance before it.
_COMMON = {"loglevel": "FATAL", "bestpath": False, "cmn": "batch"}

Segment = tuple[str, int, int, int]  # word, first frame, last frame, acoustic log score


class VoiceUnavailable(RuntimeError):
    """pocketsphinx or the microphone (the ``voice`` extra) cannot be used."""


def pocketsphinx_module() -> Any:
    try:
        import pocketsphinx  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise VoiceUnavailable(
            "hearing calls needs the voice extra: pip install 'companion[voice]'"
        ) from None
    return pocketsphinx


@dataclass(frozen=True, slots=True)
class Features:
    """What the confidence is computed from, for one utterance."""

    best: Call | None
    margin: float  # best call minus the best other call of table K, per frame
    word_gap: float  # the worst word's shortfall behind the free phone loop, per frame
    silence_gap: float  # the same for the grammar's silences: speech it swallowed
    unexplained: float  # share of the voice-active frames that no word of the call covers
    phones: int = 0  # phones in the call as pronounced (IÄÄ! 2, IÄÄ! Cthulhu! Fhtagn! 13–15)
    rival_garbage: bool = False  # the rival search's best path was the garbage loop
    rival: Call | None = None  # the rival search's call, when its best path was one
    # The best allowed call minus the runner-up among the allowed calls, per
    # frame; None when no other call is allowed or none fits at all.
    legal_margin: float | None = None
    second: Call | None = None  # that runner-up
    # How much nearer the speech lies to the best call's templates than to
    # any other call's (``templates``: DTW, no acoustic model), mean frame
    # distance; negative when another call's template is nearer. Relative,
    # so a voice unlike every template is not held low for that alone.
    dtw_lead: float = 0.0
    # pocketsphinx's own best call, which the fields above describe (``best``
    # and ``second`` are the call both listeners favour and its runner-up).
    heard: Call | None = None
    heard_second: Call | None = None  # pocketsphinx's runner-up among the allowed calls
    # The call network's log-probabilities of the allowed calls and of talk
    # (None): ``callnet.posteriors``. Empty: the network was not asked.
    net: dict[Call | None, float] = field(default_factory=dict)

    def vector(self) -> tuple[float, ...]:
        legal = CLIP if self.legal_margin is None else _clip(self.legal_margin)
        return (
            _clip(self.margin),
            _clip(self.word_gap / 10),
            _clip(self.silence_gap / 10),
            self.unexplained,
            self.phones / 10,
            float(self.rival_garbage),
            legal,
            float(self.legal_margin is None),
            max(-DTW_CLIP, min(DTW_CLIP, self.dtw_lead)),
            *net_vector(self.net, self.best, self.heard),
        )


def net_vector(
    net: dict[Call | None, float], best: Call | None, heard: Call | None
) -> tuple[float, float, float]:
    """The call network's features of ``best``: its log-probability among the allowed calls
    and talk, its lead over the likeliest other of them, and whether pocketsphinx heard it."""
    if not net or best is None:
        return (0.0, 0.0, 1.0)
    lp = net[best]
    lead = lp - max((v for c, v in net.items() if c != best), default=lp - NET_CLIP)
    return (
        max(-NET_CLIP, lp) / 5,
        max(-NET_CLIP, min(NET_CLIP, lead)) / 5,
        float(best == heard),
    )


def _clip(x: float) -> float:
    return max(-CLIP, min(CLIP, x))


def logit_of(f: Features) -> float:
    """The regression's log-odds that the best call is right."""
    return logit_of_vector(f.vector())


def logit_of_vector(x: tuple[float, ...]) -> float:
    """The same from ``Features.vector()`` (benchmarks keep the vectors)."""
    return BIAS + sum(w * v for w, v in zip(WEIGHTS, x, strict=True))


def confidence_of(f: Features) -> float:
    if f.best is None:
        return 0.0
    return squash(logit_of(f))


#: logit(HIGH_CONFIDENCE): the log-odds of 0.8.
HIGH_LOGIT = math.log(HIGH_CONFIDENCE / (1 - HIGH_CONFIDENCE))


def squash(z: float, sure_logit: float | None = None) -> float:
    """Log-odds to confidence: the logistic below 0.5, stretched above it.

    Above 0.5 the log-odds are scaled so that ``sure_logit`` (default
    SURE_LOGIT) maps to HIGH_CONFIDENCE: the regression alone would call
    some table talk sure, and the development sets say where it stops.
    """
    sure = SURE_LOGIT if sure_logit is None else sure_logit
    if z > 0:
        z *= HIGH_LOGIT / max(sure, HIGH_LOGIT)
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


class Recognizer:
    """Hears one call per utterance; not thread-safe (one per listening thread)."""

    def __init__(
        self, threshold: float = DEFAULT_THRESHOLD, callnet: str | os.PathLike[str] | None = None
    ) -> None:
        ps = pocketsphinx_module()
        try:
            self.callnet = CallNet(callnet)
        except CallNetUnavailable as exc:
            raise VoiceUnavailable(str(exc)) from None
        self.threshold = threshold
        hmm = ps.get_model_path("en-us/en-us")
        fd, dict_path = tempfile.mkstemp(suffix=".dict", prefix="companion-calls-")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(dictionary_text())
            # The dictionary is read at construction, so the file can go at once.
            self._calls = ps.Decoder(
                hmm=hmm, dict=dict_path, lm=None, wip=WORD_PENALTY, topn=TOPN, **_COMMON
            )
        finally:
            os.unlink(dict_path)
        # Narrower beams than the default: the phone loop is only a yardstick.
        self._phones = ps.Decoder(
            hmm=hmm,
            allphone=ps.get_model_path("en-us/en-us-phone.lm.bin"),
            lm=None,
            beam=1e-20,
            pbeam=1e-20,
            **_COMMON,
        )
        self._log = self._calls.get_logmath()
        self.templates: Templates = Templates()  # the second opinion (DTW)
        self._searches: set[str] = set()
        self._rng_seed = 8
        self._raw = b""  # the last utterance as decoded (with its noise floor)

    def _activate(self, calls: tuple[Call, ...], garbage: bool = False) -> None:
        name = "calls_" + "_".join(str(k_id(c)) for c in calls) + ("_garbage" if garbage else "")
        if name not in self._searches:
            self._calls.add_jsgf_string(name, grammar_jsgf(calls, garbage))
            self._searches.add(name)
        self._calls.activate_search(name)

    def hear(
        self, samples: Samples, calls: tuple[Call, ...], before: Samples | None = None
    ) -> Heard:
        """The call in one utterance of 16 kHz mono samples, among ``calls``.

        ``before``: the audio just before the utterance (the listener's preroll),
        heard by the call network only.
        """
        t0 = time.perf_counter()
        f = self.features(samples, calls, before)
        confidence = round(confidence_of(f), 3)
        call = f.best if f.best is not None and confidence >= self.threshold else None
        second = f.second if f.best is not None and confidence < HIGH_CONFIDENCE else None
        return Heard(call, confidence, (time.perf_counter() - t0) * 1000, f.best, second)

    def ahead(self, samples: Samples, before: Samples | None = None) -> None:
        """Start on an utterance still being said (``samples`` so far, ``before`` its head as
        ``hear`` would get it): the call network embeds what it can now, so that hearing the
        whole utterance takes less time once it ends. Changes no result."""
        if samples.size:
            said = samples if before is None else np.concatenate([before, samples])
            self.callnet.embed.ahead(said)

    def features(
        self, samples: Samples, calls: tuple[Call, ...], before: Samples | None = None
    ) -> Features:
        if not calls or samples.size == 0:
            return Features(None, 0.0, 0.0, 0.0, 0.0)
        raw = self._raw = self._with_floor(samples)
        self._activate(calls)
        words = _decode(self._calls, raw, self._log)
        best = parse_tokens(" ".join(w for w, *_ in words))
        if best is None:
            return Features(None, 0.0, 0.0, 0.0, 0.0)
        frames = max(1, int(self._calls.n_frames()))
        self._activate(tuple(c for c in TABLE_K.values() if c != best), garbage=True)
        rivals = _decode(self._calls, raw, self._log)
        rival_garbage = any(is_garbage(w[0]) for w in rivals)
        if not rivals:
            # The rival search found no path at all (its beam ran dry, one
            # call in five): the garbage loop alone still does, and is the
            # measure. Taking "no path" as the widest margin made sound-alike
            # table talk ("to the loo" → Cthulhu!) look surest of all.
            self._activate((), garbage=True)
            rivals = _decode(self._calls, raw, self._log)
        # The runner-up among the allowed calls: how clearly the best beat the
        # calls it could be confused with now, and the second guess offered.
        others = tuple(c for c in calls if c != best)
        seconds: list[Segment] = []
        if others:
            self._activate(others)
            seconds = _decode(self._calls, raw, self._log)
        phones = _decode(self._phones, raw, self._log)
        spoken = [w for w in words if not _is_filler(w[0])]
        second = parse_tokens(" ".join(w for w, *_ in seconds))
        # The templates compare the speech the grammar found, not the noise
        # around it: from its first word to its last, 50 ms aside.
        first = max(0, min(w[1] for w in spoken) - 5) * FRAME
        last = (max(w[2] for w in spoken) + 6) * FRAME
        near = self.templates.match(samples[first:last], ALL_CALLS).distance
        best_far = min(DTW_FAR, near.get(best, DTW_FAR))
        other_far = min((v for c, v in near.items() if c != best), default=DTW_FAR)
        quiet = [w for w in words if _is_filler(w[0]) and w[2] - w[1] + 1 >= MIN_SILENCE]
        margin = CLIP if not rivals else (_total(words) - _total(rivals)) / frames
        # The call network's opinion of every allowed call and of talk; the
        # call is the one both listeners favour (``choose``).
        heard_by_net = samples if before is None else np.concatenate([before, samples])
        net = posteriors(self.callnet.scores(heard_by_net), calls)
        chosen, runner = choose(net, calls, best, second)
        return Features(
            chosen,
            margin,
            max(_gap(w, phones) for w in spoken),
            max((_gap(w, phones) for w in quiet), default=0.0),
            self._unexplained(raw, spoken),
            sum(phone_count(w[0]) for w in spoken),
            rival_garbage,
            None if rival_garbage else parse_tokens(" ".join(w for w, *_ in rivals)),
            (_total(words) - _total(seconds)) / frames if seconds else None,
            runner,
            best_far - min(DTW_FAR, other_far),
            best,
            second,
            net,
        )

    @staticmethod
    def _unexplained(raw: bytes, spoken: list[Segment]) -> float:
        """Share of the loud frames that no word of the call covers.

        Table talk that merely contains a call-like sound leaves most of its
        speech to the grammar's silences; a real call leaves next to none.
        Loud means well above the utterance's own noise level, so steady
        background noise does not count as speech.
        """
        x = np.frombuffer(raw, dtype="<i2").astype(np.float64)
        n = x.size // FRAME
        if n == 0:
            return 0.0
        energy = 10 * np.log10(np.mean(x[: n * FRAME].reshape(n, FRAME) ** 2, axis=1) + 1.0)
        loud = np.flatnonzero(energy > np.percentile(energy, 10) + LOUD_DB)
        if loud.size == 0:
            return 0.0
        covered = np.zeros(n, dtype=bool)
        for _, first, last, _ in spoken:
            covered[max(0, first - 2) : last + 3] = True
        return float(1.0 - covered[loud].mean())

    def _with_floor(self, samples: Samples) -> bytes:
        x = samples.astype(np.float64)
        n = x.size // FRAME
        loud = (
            float(
                np.sqrt(np.percentile(np.mean(x[: n * FRAME].reshape(n, FRAME) ** 2, axis=1), 90))
            )
            if n
            else 0.0
        )
        hiss = max(1.0, loud * 10 ** (-NOISE_FLOOR_DB / 20))
        rng = np.random.default_rng(self._rng_seed)  # the same hiss every time: results repeat
        noisy = x + rng.normal(0.0, hiss, samples.size)
        return np.clip(np.round(noisy), -32768, 32767).astype("<i2").tobytes()


def choose(
    net: dict[Call | None, float],
    calls: tuple[Call, ...],
    heard: Call,
    second: Call | None,
    bonuses: tuple[float, float] | None = None,
) -> tuple[Call, Call | None]:
    """The call and the runner-up: the call network's log-probabilities, with a bonus for
    pocketsphinx's best call and its runner-up (``bonuses``, by default HEARD_BONUS and
    SECOND_BONUS; bench_voice's fit tries others)."""
    heard_bonus, second_bonus = (HEARD_BONUS, SECOND_BONUS) if bonuses is None else bonuses

    def score(c: Call) -> float:
        return net[c] + heard_bonus * (c == heard) + second_bonus * (c == second)

    ranked = sorted(calls, key=score, reverse=True)
    return ranked[0], (ranked[1] if len(ranked) > 1 else None)


def _decode(decoder: Any, raw: bytes, log: Any) -> list[Segment]:
    """Decode one whole utterance into segments with acoustic log scores."""
    # The cepstral mean otherwise carries over from the previous utterance, so
    # the same audio would score differently depending on what came before.
    decoder.reinit_feat()
    decoder.start_utt()
    decoder.process_raw(raw, no_search=False, full_utt=True)
    decoder.end_utt()
    if decoder.hyp() is None:
        return []
    # The Python binding hands scores back as probabilities; log() restores
    # the decoder's integer log scores, which are what can be compared.
    return [
        (s.word, s.start_frame, s.end_frame, log.log(s.ascore))
        for s in decoder.seg()
        if 0 <= s.start_frame <= s.end_frame
    ]


def _total(segments: list[Segment]) -> float:
    return float(sum(s[3] for s in segments))


def _is_filler(word: str) -> bool:
    return word.startswith(("<", "[", "+")) or word == "(NULL)"


def _gap(word: Segment, phones: list[Segment]) -> float:
    """Per frame, how far the word's score falls behind the free phone loop's.

    Phone segments rarely line up with the word, so each contributes its
    score in proportion to the frames it shares with the word.
    """
    _, first, last, score = word
    free = 0.0
    for _, p_first, p_last, p_score in phones:
        shared = min(last, p_last) - max(first, p_first) + 1
        if shared > 0:
            free += p_score * shared / (p_last - p_first + 1)
    return (free - score) / (last - first + 1)
