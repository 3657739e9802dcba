"""Finder candidates judged by the face model before any is chosen (motif mode).

The learned finder alone keeps the peaks over its score threshold; on grid
paper a small die's peak can fall under it among many grid squares that pass
it. Here the finder's peaks are taken down to a lower score (at most
``weak`` of those under its threshold and ``most`` in all, the strongest, so
time stays bounded), every one is cut and read by the face model in one
batch, and a candidate's not-a-die probability and its finder score decide
together:

- a peak at or over the finder's threshold stays unless the face model is sure
  it is no die (its ``not_die_threshold``, as the reader has always dropped);
- a weaker peak becomes a die when the face model is sure it is one (not-a-die
  probability at most ``sure_die`` times that threshold); a doubtful one (over
  the finder's ``low``) stays doubtful, read ``?``, below ``doubt`` times it;
  the rest is dropped.

Only then are two peaks of one die made one (a vouched-for weak peak less than
an edge from a stronger find is that die's side) and the finder's size rule
weighed, over what remains: the phantoms no longer set the table's die size,
and a vouched-for weak peak must be of that size.
The face model's readings of the kept crops are the reading: one batch a frame,
with a profile too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from companion.vision.blank_face import blank
from companion.vision.blur import blurred
from companion.vision.corner_refiner import load_refiner, refine
from companion.vision.crop import CROP_SIZE, cut_faces
from companion.vision.detect_net import (
    FRAME_LONG,
    ZOOM_GAIN,
    Candidate,
    NetSettings,
    Vouch,
    input_long_for,
    judged_detector_path,
    load_session,
    new_dice,
    one_per_die,
    order_corners_many,
    peaks,
    same_die,
    scaled,
    second_look,
    select_indexed,
    sure_edge,
    zoomed_peaks,
)
from companion.vision.found import FoundDie
from companion.vision.geometry import mean_edges

F32 = npt.NDArray[np.float32]

# The closer look (NetSettings.closer, _closer_look) takes at most this many of its peaks
# (on printed squares it is sure of 100-300 grid cells at 768) and reads at most this many
# new dice, the strongest: a frame of small dice the first look missed can hold thirty or
# more among the grid cells (session 28: with 32, frames kept 13-17 of 19-26 such dice) ...
CLOSER_PEAKS_MOST = 256
CLOSER_VOUCH_MOST = 96
# ... and is taken where the face model drops this many of the first look's peaks (a printed
# mat: on our development plain tables it drops at most 1, with small dice 4).
CLOSER_DROPS = 5
# ... and is never larger than this: a frame whose first look is already larger (2304x1296:
# 928) takes none, so a frame of few dice costs at most a 768-pixel pass more (the Pi).
CLOSER_MOST = 768
# The further look (JudgeSettings.further) is taken where the closer look added this many.
FURTHER_GAIN = 2
# The not-a-die probability from which a blank face is no die (_Blanking): the dice of
# our development sets the model doubts this much all carry a visible motif.
BLANK_DOUBT = 0.1
# A refined corner farther than this share of the die's edge from the finder's is no move the
# refiner learnt (its training cuts lay a median 0.06 edge off, one in seven 0.15;
# models/train_refiner.py): the finder's cut stays.
REFINE_MOST = 0.5
ImageBGR = npt.NDArray[np.uint8]


class Judge(Protocol):
    """What judging needs of the face model (classify.FaceClassifier with a not-a-die class)."""

    @property
    def not_die_threshold(self) -> float: ...
    def classify(self, crops: npt.NDArray[np.uint8]) -> list[Any]:
        """Readings with ``not_die_p``, the probability that the crop holds no die, and
        ``not_die``, whether to drop it."""
        ...


@dataclass(frozen=True)
class JudgeSettings:
    """Chosen on our validation renders and the real development photos (docs/vision.md)."""

    floor: float = 0.15  # finder score down to which peaks are judged
    # Peaks under the finder's threshold judged a frame, at most: the strongest. Every peak
    # over it is judged (the finder's own choice, which the reader judged before too), up to
    # `most` peaks a frame in all, so the time a frame takes stays bounded.
    weak: int = 64
    most: int = 128
    # A peak under the finder's threshold is a sure die at a not-a-die probability of at most
    # sure_die x the model's not_die_threshold (read from its metadata, so a recalibrated
    # model moves this limit with it); a doubtful one (over the finder's `low`) stays, read
    # '?', below doubt x that threshold.
    sure_die: float = 0.05
    doubt: float = 0.5
    # Weak peaks of another size than the frame's sure dice cut at their size (_presized), at
    # most: the strongest.
    resize_most: int = 8
    # A sure find wholly in the frame under far_lo times the table's dice is dropped, not read
    # '?': a square of a printed marker or grid holds no whole die of the table (VISION.md's
    # frames: two sets differ at most 14 vs 20 mm, 0.7x, and a 25 degree tilt in a wide view
    # moves an edge about 1.25x from the frame's median, so a die lies at 0.56x or more).
    # A find far bigger stays '?': it can hold a die (one seen with its side, decoded big).
    # Only here, where the face model has set the sure phantoms aside first: the plain finder's
    # size rule still counts them, and could take real dice for the small ones.
    far_lo: float = 0.5
    # Where the closer look added FURTHER_GAIN dice or more, one look more at this many input
    # pixels (0: never): on printed squares the finder can miss 57-pixel dice at 768 and find
    # them all at 1024 (docs/vision.md, sessions 36-37).
    further: int = 1024
    # ... and the dice it adds have an edge of at least this many frame pixels: VISION.md's
    # frames hold dice of 40-160 px, and that look's smaller finds were read wrong 2 times in
    # 22 (session 37; its finds of the contract's size: 0 in 106).
    further_min_edge: float = 40.0
    # With the blur gate, a die whose crop is smeared beyond VISION.md's slight motion blur
    # (blur.blurred) reads '?': streaked a quarter of an edge or more, the face model reads wrong
    # 1 die in 10 of those it gives a motif. Off: on fresh frames it caught 69 % of those wrong
    # reads (its rule asked 70 %), and a stricter limit cost ordinary frames 0.6 points of right
    # reads (docs/vision.md, session 38).
    blur_gate: bool = False
    # Where the closer look is taken, a sure die of the first look that the closer look
    # decodes at least `recut` times smaller is cut from the closer look's corners, which see
    # it at more input pixels, and read again (0: never): a finder taught small dice on printed
    # squares finds them at 512 but decodes them too big there (90th percentile 1.37x the true
    # edge, at 768 1.04x; session 39). Dice decoded alike keep their cut: cut again, a few
    # reads flip either way. Off: with that finder at 1.15 it read our fresh frames better,
    # but jade's two dice fewer right (docs/vision.md, session 40).
    recut: float = 0.0
    # The finder's sure peaks wholly in the frame get the corners the corner refiner puts them
    # at (refined_peaks), before the face model judges and reads them, so every die is read
    # once, from the truer cut. On fresh otherhand frames it read 1.8 points more dice right
    # with 6 silent errors fewer of 32, on the kept seed 93.5 -> 96.7 %; it costs about 9 ms a
    # 1280x960 frame here (docs/vision.md, session 52).
    refine: bool = True


def find_and_read(
    image_bgr: ImageBGR,
    judge: Judge,
    cfg: JudgeSettings | None = None,
    net: NetSettings | None = None,
    session: Any = None,
    threads: int = 2,
) -> list[tuple[FoundDie, Any]]:
    """Every die of a BGR frame with the face model's reading of it."""
    cfg = cfg or JudgeSettings()
    net = net or NetSettings()
    judge = _Blanking(judge)
    cut = _Crops(image_bgr, threads)
    sess = session if session is not None else load_session(judged_detector_path(), threads=threads)
    h, w = image_bgr.shape[:2]
    floor = min(cfg.floor, net.low)
    size = input_long_for(max(h, w))
    all_peaks = zoomed_peaks(
        sess,
        image_bgr,
        size,
        floor,
        cfg.most,
        net.min_edge,
        net,
        _voucher(cut, judge, cfg),
        cut.of,
    )
    big = [c for c in all_peaks if c.edge >= net.min_edge]
    cands = [c for c in big if c.score >= net.threshold]
    if cfg.refine:
        cands = refined_peaks(image_bgr, cands, threads)
    cands += [c for c in big if c.score < net.threshold][: cfg.weak]  # still strongest first
    readings: list[Any] = []
    if cands:
        crops = cut(cands)
        # one batch: with a profile too, its reading of every candidate is the one reported
        readings = judge.classify(crops)
        cands, readings = _presized(cut, judge, cands, readings, w, h, cfg, net)
    before = len(cands)
    cands, readings = _closer_look(sess, cut, judge, cands, readings, cfg, net)
    if cfg.further > 0 and len(cands) - before >= FURTHER_GAIN:
        # one look more, where the closer look found dice the first did not
        dice = _kept_sure(cands, readings, judge, net)
        ref = sure_edge(dice, w, h, net)
        cands, readings = _look_at(
            sess,
            cut,
            judge,
            cands,
            readings,
            cfg.further,
            dice,
            ref,
            cfg,
            net,
            min_edge=cfg.further_min_edge,
        )
    if not cands:
        return []
    # a crop the reading drops (sure no die; with a profile also no die of this table)
    # counts as sure no die here
    not_die = np.array([1.0 if r.not_die else r.not_die_p for r in readings], np.float32)
    kept = decide([c.score for c in cands], not_die, judge.not_die_threshold, cfg, net)
    # the peaks that remain, strongest first, one per die
    chosen = one_per_die(
        [cands[i] if not sure else replace(cands[i], judged=True) for i, sure in kept]
    )
    # a find beside a stronger one is that die's side (a vouched weak peak from nearer)
    chosen = [c for c, side in zip(chosen, _sides(chosen), strict=True) if not side]
    # ... and so is a darker find a little farther beside a stronger one
    chosen = [c for c, side in zip(chosen, _dark_sides(chosen, cut), strict=True) if not side]
    # a candidate's reading by its corners, which replace() carries along unchanged
    index = {id(c.corners): i for i, c in enumerate(cands)}
    chosen = [
        replace(c, second=second_look(sess, image_bgr, c, net.look_px))
        if not c.judged and c.score < net.threshold
        else c
        for c in chosen
    ]
    found = select_indexed(chosen, w, h, replace(net, drop_lo=cfg.far_lo))
    if not found:
        return []
    out = [d for _, d in found]
    reads = [readings[index[id(chosen[k].corners)]] for k, _ in found]
    if cfg.blur_gate:
        streaked = blurred(cut.of([d.corners for d in out]))
        out = [
            replace(d, clean=False, reason="blurred") if blur and d.clean else d
            for d, blur in zip(out, streaked, strict=True)
        ]
    return list(zip(out, reads, strict=True))


def refined_peaks(image_bgr: ImageBGR, peaks: list[Candidate], threads: int) -> list[Candidate]:
    """The peaks wholly in the frame with their corners where the corner refiner puts them,
    before the face model judges and reads them: one read, of the truer cut. The others keep
    the finder's corners (the refiner never saw a die cut by the frame's border), and so does a
    peak whose refined corners are no plausible move of its cut (REFINE_MOST)."""
    h, w = image_bgr.shape[:2]
    which = [
        i
        for i, c in enumerate(peaks)
        if float(c.corners.min()) >= 0
        and float(c.corners[:, 0].max()) <= w - 1
        and float(c.corners[:, 1].max()) <= h - 1
    ]
    if not which:
        return peaks
    first = np.stack([peaks[i].corners for i in which]).astype(np.float32)
    moved = np.stack(refine(image_bgr, list(first), load_refiner(threads)))
    edges = mean_edges(first)
    near = np.abs(moved - first).max(axis=(1, 2)) <= REFINE_MOST * edges
    ok = np.flatnonzero(near & _convex(moved))
    if not len(ok):
        return peaks
    quads = order_corners_many(moved[ok])
    centres = quads.mean(axis=1).tolist()
    new_edges = mean_edges(quads).tolist()
    out = list(peaks)
    for k, q, (x, y), e in zip(ok.tolist(), quads, centres, new_edges, strict=True):
        out[which[k]] = replace(peaks[which[k]], x=x, y=y, edge=e, corners=q)
    return out


def _convex(quads: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """Which quads (n, 4, 2) turn one way all round (a quad a face can be)."""
    d = np.roll(quads, -1, axis=1) - quads
    nxt = np.roll(d, -1, axis=1)
    cross = d[:, :, 0] * nxt[:, :, 1] - d[:, :, 1] * nxt[:, :, 0]
    return np.asarray(np.all(cross > 0, axis=1) | np.all(cross < 0, axis=1), np.bool_)


class _Crops:
    """Cuts a frame's candidates (crop.cut_faces) and keeps every crop by its corners, so
    the texture test, the voucher, the face model and the blur gate cut each face once
    (cutting 20 dice of a 1280x960 frame is a fifth of a read). The corners are kept with
    their crop: an id is unique only while its object lives."""

    def __init__(self, image_bgr: ImageBGR, threads: int) -> None:
        self.image = image_bgr
        self.threads = threads
        self._kept: dict[int, tuple[object, npt.NDArray[np.uint8]]] = {}

    def __call__(self, cands: list[Candidate]) -> npt.NDArray[np.uint8]:
        return self.of([c.corners for c in cands])

    def of(self, corners: list[npt.NDArray[np.float32]]) -> npt.NDArray[np.uint8]:
        """The crops of these corners: those cut before, and the others cut now."""
        if not corners:
            return np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
        new = [c for c in corners if id(c) not in self._kept]
        if new:
            for c, crop in zip(new, cut_faces(self.image, new, self.threads), strict=True):
                self._kept[id(c)] = (c, crop)
        return np.stack([self._kept[id(c)][1] for c in corners])


@dataclass(frozen=True)
class _Blanking:
    """A judge whose readings of blank faces it has some doubt about (not-a-die probability from
    BLANK_DOUBT, under its drop limit) say "no die" (blank_face.py): cells of a printed grid.
    Dice of art the model never saw reach the same doubt, but carry a motif. Every batch the
    face model judges goes through it, so such a cell neither sets the table's size nor is
    kept (session 28)."""

    judge: Judge

    @property
    def not_die_threshold(self) -> float:
        return self.judge.not_die_threshold

    def classify(self, crops: npt.NDArray[np.uint8]) -> list[Any]:
        readings = list(self.judge.classify(crops))
        limit = self.judge.not_die_threshold
        doubted = [
            i
            for i, r in enumerate(readings)
            if not r.not_die and BLANK_DOUBT <= r.not_die_p < limit
        ]
        if doubted:
            for i, flat in zip(doubted, blank(crops[doubted]), strict=True):
                if flat:
                    readings[i] = replace(readings[i], not_die=True)
        return readings


def _presized(
    cut: _Crops,
    judge: Judge,
    cands: list[Candidate],
    readings: list[Any],
    w: int,
    h: int,
    cfg: JudgeSettings,
    net: NetSettings,
) -> tuple[list[Candidate], list[Any]]:
    """The weak peaks whose size the size rule (select_indexed) would drop them for, made squares
    of the frame's sure dice's size about the same centre and read again; the rest as they
    are. On a marbled body the finder can take stripes for a die's edges and decode a weak
    peak a third too big or too small: such were all 23 whole dice of our development drawing
    families it missed (docs/vision.md, session 26). A re-sized peak stays weak: only
    :func:`decide`'s rule, on its new crop, keeps it. The sure dice are those the face model
    does not drop, as in select_indexed, whose size rule runs after them: on a printed mat the
    squares the finder is sure of can outnumber the dice."""
    if cfg.resize_most <= 0:
        return cands, readings
    ref = sure_edge(_kept_sure(cands, readings, judge, net), w, h, net)
    if ref is None:
        return cands, readings
    odd = [
        k
        for k, c in enumerate(cands)
        if c.score < net.threshold and not net.weak_lo <= c.edge / ref <= net.weak_hi
    ][: cfg.resize_most]
    if not odd:
        return cands, readings
    again = [scaled(cands[k], ref) for k in odd]
    more = judge.classify(cut(again))
    cands, readings = list(cands), list(readings)
    for k, a, r in zip(odd, again, more, strict=True):
        cands[k], readings[k] = a, r
    return cands, readings


def _kept_sure(
    cands: list[Candidate], readings: list[Any], judge: Judge, net: NetSettings
) -> list[Candidate]:
    """The sure peaks the face model does not drop, one per die: the table's dice, whose size
    the size rule measures by (select_indexed); on a printed mat the squares the finder is
    sure of can outnumber them."""
    return one_per_die(
        [
            c
            for c, r in zip(cands, readings, strict=True)
            if c.score >= net.threshold and not r.not_die and r.not_die_p < judge.not_die_threshold
        ]
    )


def _closer_look(
    sess: Any,
    cut: _Crops,
    judge: Judge,
    cands: list[Candidate],
    readings: list[Any],
    cfg: JudgeSettings,
    net: NetSettings,
) -> tuple[list[Candidate], list[Any]]:
    """The candidates with the new sure dice of a look NetSettings.closer times larger that the
    face model is sure are dice (decide's rule for a weak peak), after the sure peaks, where the
    dice it keeps of the sure peaks are fewer than three and so are the sure peaks (then only
    if it is sure of ZOOM_GAIN of the new dice), or are small on the input
    (NetSettings.closer_below_in; then those of their size), or where it dropped one of the
    sure peaks or CLOSER_DROPS peaks in all (a printed surface; as one of the other two, by
    whether there is a table size).
    Dice on printed squares: at 512 the finder can have no peak on some dice and be sure of
    the grid squares instead (docs/vision.md, sessions 27 and 28)."""
    h, w = cut.image.shape[:2]
    long_side = max(h, w)
    input_long = input_long_for(long_side)
    size = min(CLOSER_MOST, round(input_long * net.closer / 32) * 32)
    if net.closer <= 1.0 or long_side < FRAME_LONG or size <= input_long:
        return cands, readings
    dice = _kept_sure(cands, readings, judge, net)
    ref = sure_edge(dice, w, h, net)
    sure = one_per_die([c for c in cands if c.score >= net.threshold])
    # a sure peak the face model drops is a printed square or a marker, and so are many weak
    # ones: a surface where the finder misses dice at 512 whatever their size (session 28)
    dropped = sum(r.not_die or r.not_die_p >= judge.not_die_threshold for r in readings)
    if len(sure) <= len(dice) and dropped < CLOSER_DROPS:
        if ref is not None and ref * min(input_long, long_side) / long_side >= net.closer_below_in:
            return cands, readings
        # without a table size, only where the finder too is sure of fewer than three things
        if ref is None and len(sure) >= 3:
            return cands, readings
    return _look_at(sess, cut, judge, cands, readings, size, dice, ref, cfg, net, recut=cfg.recut)


def _look_at(
    sess: Any,
    cut: _Crops,
    judge: Judge,
    cands: list[Candidate],
    readings: list[Any],
    size: int,
    dice: list[Candidate],
    ref: float | None,
    cfg: JudgeSettings,
    net: NetSettings,
    min_edge: float = 0.0,
    recut: float = 0.0,
) -> tuple[list[Candidate], list[Any]]:
    """The candidates with the sure peaks of a look at ``size`` input pixels that lie on none
    of ``dice``, are of the table's size ``ref`` (and at least ``min_edge`` frame pixels) and
    the face model is sure are dice (without a size, only if it is sure of ZOOM_GAIN of them),
    after the sure peaks. With ``recut``, the sure peaks it shares with ``dice`` first take
    this look's corners (:func:`_recut`)."""
    found = peaks(sess, cut.image, size, net.threshold, CLOSER_PEAKS_MOST, net.min_edge)
    found = [c for c in found if c.edge >= min_edge]
    if recut > 0:
        cands, readings = _recut(cut, judge, cands, readings, dice, found, recut, net)
    if ref is not None:
        found = [c for c in found if net.weak_lo <= c.edge / ref <= net.weak_hi]
    new = new_dice(dice, found, net.threshold)[:CLOSER_VOUCH_MOST]
    if not new:
        return cands, readings
    more = judge.classify(cut(new))
    limit = cfg.sure_die * judge.not_die_threshold
    add = [(c, r) for c, r in zip(new, more, strict=True) if not r.not_die and r.not_die_p <= limit]
    if ref is None and len(add) < ZOOM_GAIN:
        return cands, readings
    n = sum(c.score >= net.threshold for c in cands)
    return (
        cands[:n] + [c for c, _ in add] + cands[n:],
        readings[:n] + [r for _, r in add] + readings[n:],
    )


def _recut(
    cut: _Crops,
    judge: Judge,
    cands: list[Candidate],
    readings: list[Any],
    dice: list[Candidate],
    found: list[Candidate],
    ratio: float,
    net: NetSettings,
) -> tuple[list[Candidate], list[Any]]:
    """The candidates with each of ``dice`` that a sure peak of a larger look lies on, and
    decodes at least ``ratio`` times smaller, cut at that peak's corners and read again: the
    larger look decodes the die at more input pixels.
    A die whose new cut the face model drops keeps its first: the first look's peak can be
    the better one where the larger look's sits on a printed square beside the die."""
    dice_ids = {id(c.corners) for c in dice}
    mine = one_per_die([c for c in found if c.score >= net.threshold])
    pairs: list[tuple[int, Candidate]] = []
    for k, c in enumerate(cands):
        if id(c.corners) not in dice_ids:
            continue
        on = [f for f in mine if same_die(f, c)]
        if len(on) == 1 and c.edge >= ratio * on[0].edge:  # one peak there, not two halves
            f = on[0]
            pairs.append((k, replace(c, x=f.x, y=f.y, edge=f.edge, corners=f.corners)))
    if not pairs:
        return cands, readings
    again = judge.classify(cut([a for _, a in pairs]))
    cands, readings = list(cands), list(readings)
    for (k, a), r in zip(pairs, again, strict=True):
        if not r.not_die and r.not_die_p < judge.not_die_threshold:
            cands[k], readings[k] = a, r
    return cands, readings


def _voucher(cut: _Crops, judge: Judge, cfg: JudgeSettings) -> Vouch:
    """Which of some peaks the face model is sure are dice (:func:`decide`'s rule for a weak
    peak), for the finder's second look (detect_net.zoomed_peaks); their crops are kept: a
    die it vouches for is read from them."""

    def vouch(cands: list[Candidate]) -> list[bool]:
        if not cands:
            return []
        readings = judge.classify(cut.of([c.corners for c in cands]))
        limit = cfg.sure_die * judge.not_die_threshold
        return [not r.not_die and r.not_die_p <= limit for r in readings]

    return vouch


def judged_finder(
    judge: Judge, cfg: JudgeSettings | None = None, threads: int = 2
) -> Callable[[ImageBGR], list[FoundDie]]:
    """A finder that finds as :func:`find_and_read` does (the face model judging the learned
    finder's candidates), for enrolment, whose crops must be cut from the dice reading will
    find: the plain finder misses some dice the judged one reads (marbled bodies, whose
    stripes weaken the finder's peaks: of such validation-family dice it finds 88 %, the
    judged one 98 %; models/DETECTOR_CARD.md)."""
    sess = load_session(judged_detector_path(), threads=threads)

    def find(image_bgr: ImageBGR) -> list[FoundDie]:
        return [d for d, _ in find_and_read(image_bgr, judge, cfg, session=sess)]

    return find


def decide(
    scores: list[float],
    not_die: F32,
    not_die_threshold: float,
    cfg: JudgeSettings,
    net: NetSettings,
) -> list[tuple[int, bool]]:
    """(index, judged a sure die) of the peaks that stay, in their order."""
    out = []
    for i, (s, p) in enumerate(zip(scores, not_die.tolist(), strict=True)):
        if p >= not_die_threshold:
            continue  # sure it is no die, whatever the finder's score
        if s >= net.threshold:
            out.append((i, False))
        elif p <= cfg.sure_die * not_die_threshold:
            out.append((i, True))
        elif s >= net.low and p < cfg.doubt * not_die_threshold:
            out.append((i, False))
    return out


# Top faces of dice side by side are an edge apart at least (a little less in perspective);
# a weak peak closer to a stronger find is that die's side, which the face model sees as
# a die face too.
BESIDE = 0.85
# Any find closer than SIDE of an edge to a stronger one is that die's side too: dice whose
# sides carry art (drawn by another hand) are found there, and most such finds read a motif.
# Development seeds 13-18 (otherhand, 20,688 dice): under 0.8, 11 such finds and 1 real die;
# from 0.8 to 0.9, 26 and 93 (docs/vision.md, session 46).
SIDE = 0.8


def _sides(chosen: list[Candidate]) -> list[bool]:
    """Which of ``chosen`` (strongest first) lie closer to a stronger one than SIDE of the larger
    edge (BESIDE for a vouched weak peak): all pairs in one array test, not a call a pair."""
    if len(chosen) < 2:
        return [False] * len(chosen)
    x, y, edge = (np.array([getattr(c, a) for c in chosen], np.float64) for a in ("x", "y", "edge"))
    ratio = np.array([BESIDE if c.judged else SIDE for c in chosen], np.float64)
    d = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
    near = d < ratio[:, None] * np.maximum(edge[:, None], edge[None, :])
    side = np.asarray(np.tril(near, k=-1).any(axis=1), bool)
    return [bool(v) for v in side]


# A find up to DARK_SIDE of an edge from a stronger one whose crop is at most DARK of its grey
# is that die's side too: a side in view faces away from the light from above. Development
# (painted sides on our frames 99500-99559, otherhand seeds 34-35; docs/vision.md, session 49):
# finds 0.8-0.95 of an edge apart, sides 32 of 38 at 0.7 or darker, real neighbours 1 of 90.
DARK_SIDE = 0.95
DARK = 0.7


def _dark_sides(chosen: list[Candidate], cut: _Crops) -> list[bool]:
    """Which of ``chosen`` (strongest first) lie closer than DARK_SIDE of the larger edge to a
    stronger one whose median grey is at least 1 / DARK times theirs."""
    if len(chosen) < 2:
        return [False] * len(chosen)
    x, y, edge = (np.array([getattr(c, a) for c in chosen], np.float64) for a in ("x", "y", "edge"))
    d = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
    near = np.tril(d < DARK_SIDE * np.maximum(edge[:, None], edge[None, :]), k=-1)
    if not near.any():
        return [False] * len(chosen)
    crops = cut.of([c.corners for c in chosen])
    grey = np.median(crops.reshape(len(chosen), -1, 3).mean(axis=2), axis=1)
    darker = grey[:, None] <= DARK * grey[None, :]
    return [bool(v) for v in (near & darker).any(axis=1)]
