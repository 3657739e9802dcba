"""Learned die finder: a small CenterNet-style network, run with onnxruntime.

An alternative to the classical :func:`companion.vision.detect.find_dice` with
the same output type. The frame is shrunk so that its longest side is
``input_long`` pixels (padded to a multiple of 32), the network gives maps at
stride 4: a center heatmap, the sub-cell center offset, the log of the die's
edge, the top face's rotation as (cos 4t, sin 4t) and how tilt bends the
square (8 corner residuals in the die's own frame, in edges). Peaks are the
local maxima of the heatmap (3x3); corners are mapped back to frame pixels.

Doubt is kept, never dropped: a peak between ``low`` and ``threshold``, a die
whose face is partly outside the frame and a die whose size is unlike the
other dice's come back with ``clean=False``. A doubtful peak gets a second
look: the network runs again on a patch around it, zoomed in; a clear die
there becomes a sure one. Only finds that cannot be dice of this table are
dropped: smaller than VISION.md's smallest die, doubtful and of another size
than the frame's sure dice, or doubtful with nothing at all in the closer
look (:class:`NetSettings`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.paths import shipped_model
from companion.vision.body_texture import ring_spread
from companion.vision.found import FoundDie
from companion.vision.onnx_session import cpu_session

MODEL_ENV = "COMPANION_DETECTOR"
JUDGED_MODEL_ENV = "COMPANION_JUDGED_DETECTOR"
STRIDE = 4
# Chosen on VALIDATION-style frames (models/DETECTOR_CARD.md).
THRESHOLD = 0.5
LOW_THRESHOLD = 0.4
INPUT_LONG = 512
#: A frame longer than FRAME_LONG is given a longer input, up to INPUT_MOST, so that the
#: network sees it at the scale of the 1280-pixel frames it learnt from: a die of 40 px
#: (VISION.md's smallest) is ~16 input pixels in any frame. At 512 a 40-px die of a
#: 3280x2464 frame was 6 px and mostly never found (renders of validation styles: 17 of 96).
FRAME_LONG = 1280
INPUT_MOST = 1280


def input_long_for(long_side: int) -> int:
    """The network input's long side for a frame whose long side is ``long_side``."""
    if long_side <= FRAME_LONG:
        return INPUT_LONG
    return min(INPUT_MOST, round(INPUT_LONG * long_side / FRAME_LONG / 32) * 32)


MIN_EDGE_PX = 28.0
# Large dice of a strongly marbled or striped body: at 512 the network takes
# the stripes across a die of 40-64 input pixels for edges and misses most of
# them (validation drawing families' enrolment frames: 92 % found, some sets a
# third), and finds them once they are about 20 pixels. When the frame's sure
# peaks are this big on the input, the frame is looked at again shrunk to that
# size (models/DETECTOR_CARD.md, "Large marbled dice").
ZOOM_FROM_IN = 28.0
ZOOM_EDGE_IN = 20.0
ZOOM_SMALLEST = 128
# ... but only when the first look left this many weak peaks (at or over the floor) of the
# sure dice's size away from them: on our held-out styles' frames of big dice none had two,
# on validation families' frames where the second look found the missed dice all had.
ZOOM_ORPHAN_FLOOR = 0.15
ZOOM_ORPHANS = 2
# Where the first look is sure of no die at all, this many weak peaks of one size size the
# second look (a frame of big, strongly striped dice; session 21), if the face model is
# sure two of them are dice (only where it judges: judged.py).
ZOOM_WEAK = 4
# ... of which the strongest this many are shown to the face model (time stays bounded).
ZOOM_VOUCH_MOST = 16
# The second look is kept only when it sees the table's dice at least twice as well: it
# finds at least as many sure dice that the first did not as the first found, and two or
# more. Real photos of 640x480 have dice of 40 input pixels that the first look finds
# (the second found 14 new ones there, 13 of them phantoms), and on printed squares
# under big dice the second look found grid squares as well as the first's dice.
ZOOM_GAIN = 2
# The bodies' texture (NetSettings.textured) is measured on this many of the strongest sure dice.
ZOOM_TEXTURE_DICE = 8
# A second look's new die the face model does not vouch for as decoded, with an edge more
# than this share off the table's, is vouched for again cut at the table's size.
VOUCH_RESIZE = 0.1
# Two faces found sharing more than this share of the smaller one are one die
# (between true dice, touching, at most 0.1 on 30 validation-style frames).
OVERLAP = 0.2
_UNIT = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float32)

ImageBGR = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


class DetectorModelError(Exception):
    """The detector model cannot be found or loaded."""


def default_detector_path() -> Path:
    """COMPANION_DETECTOR if set, else models/dice_detector.onnx of this checkout."""
    return shipped_model(MODEL_ENV, "dice_detector.onnx")


def judged_detector_path() -> Path:
    """The network the judged finder (motif dice, judged.py) looks with: COMPANION_JUDGED_DETECTOR
    if set, else COMPANION_DETECTOR if set, else models/dice_detector_judged.onnx. It was also
    taught marbled dice on printed squares and the size of small dice (models/DETECTOR_CARD.md,
    sessions 39 and 41); the plain finder (pip dice) keeps dice_detector.onnx, which finds fewer
    phantoms on the real photos."""
    if os.environ.get(MODEL_ENV, "").strip() and not os.environ.get(JUDGED_MODEL_ENV, "").strip():
        return default_detector_path()
    return shipped_model(JUDGED_MODEL_ENV, "dice_detector_judged.onnx")


_SESSIONS: dict[tuple[str, int], Any] = {}


def load_session(path: str | Path | None = None, *, threads: int = 2) -> Any:
    """The onnxruntime session for the detector, cached per process."""
    p = Path(path) if path is not None else default_detector_path()
    # an absolute path as given is looked up first: no file system calls on every frame
    given = (str(p), threads) if p.is_absolute() else None
    if given in _SESSIONS:
        return _SESSIONS[given]
    key = (str(p.resolve()), threads)
    if key in _SESSIONS:
        sess = _SESSIONS[key]
    else:
        sess = _SESSIONS[key] = _open(p, threads)
    if given is not None:
        _SESSIONS[given] = sess
    return sess


def _open(p: Path, threads: int) -> Any:
    if not p.is_file():
        # name the variable this path came from, else the one for the file it stands for
        named = [
            v for v in (JUDGED_MODEL_ENV, MODEL_ENV) if os.environ.get(v, "").strip() == str(p)
        ]
        judged = p.name == "dice_detector_judged.onnx"
        env = named[0] if named else JUDGED_MODEL_ENV if judged else MODEL_ENV
        raise DetectorModelError(
            f"die detector model not found at {p} (reinstall the package, or set {env} to its path)"
        )
    try:
        return cpu_session(p, threads)
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise DetectorModelError(
            f"die detector model {p} cannot be loaded: {str(exc).splitlines()[0]}"
        ) from None


def _prepare(image: ImageBGR, input_long: int) -> tuple[F32, float]:
    h, w = image.shape[:2]
    s = input_long / max(h, w)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    small = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    ph, pw = (-nh) % 32, (-nw) % 32
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    x = np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32)
    # the exact scales of the resize, per axis, are nw / w and nh / h; they differ by < 1 px
    return x, s


def _outside_share(corners: F32, w: int, h: int) -> float:
    """Share of the face's area that lies outside the frame."""
    area = abs(float(cv2.contourArea(corners)))
    if area <= 0:
        return 1.0
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    inside, _ = cv2.intersectConvexConvex(np.ascontiguousarray(corners, np.float32), frame)
    return max(0.0, 1.0 - float(inside) / area)


@dataclass(frozen=True)
class NetSettings:
    """How peaks become dice. Chosen on VALIDATION-style frames (models/DETECTOR_CARD.md)."""

    threshold: float = THRESHOLD  # peak at or above: a die
    low: float = LOW_THRESHOLD  # between low and threshold: a doubtful die, read '?'
    # VISION.md: a die's edge is 40-160 px. A find much smaller than that is
    # a key, a pip or a glyph, not a die.
    min_edge: float = MIN_EDGE_PX
    # A table's dice are all one size (two sets at most differ a little, plus
    # perspective). Against the median edge of the frame's sure dice: a doubtful
    # find outside [weak_lo, weak_hi] is dropped; a sure one outside
    # [sure_lo, sure_hi] is kept but read '?'.
    weak_lo: float = 0.75
    weak_hi: float = 1.35
    sure_lo: float = 0.6
    sure_hi: float = 1.7
    # ... and one under drop_lo wholly in the frame is dropped (judged.JudgeSettings.far_lo
    # says why; 0: the plain finder never drops).
    drop_lo: float = 0.0
    # A face with more than this share of its area outside the frame is read '?'.
    border_share: float = 0.1
    # Second look at a doubtful peak: the network again on a patch of the
    # frame around it, zoomed so the die is `look_px` pixels on the input
    # (the whole frame gives it 16-64). Below `drop_below` the closer look
    # finds no die there; at `promote_at` or above it finds one without doubt.
    look_px: float = 48.0
    drop_below: float = 0.1
    promote_at: float = 0.9
    # Where a face model judges (judged.py) and the frame's sure dice are at least
    # `shrunk_from_in` pixels on the input, a frame no other rule looks at again is still
    # looked at shrunk, and the new sure dice of that look the face model vouches for are
    # added: a die of a marbled body can score under the weak peaks' floor at 512 and 0.5-0.9
    # at two thirds of that. Only where the bodies are `textured` (body_texture.py: the
    # spread of grey on the ring between motif and edge, median over the strongest sure dice):
    # on plain bodies the first look finds the dice, and the look costs a network pass
    # (session 27). 0: never.
    shrunk_from_in: float = 24.0
    textured: float = 24.0
    # Where a face model judges (judged._closer_look) and the dice it keeps of the first
    # look's sure peaks at a frame of FRAME_LONG pixels or more are fewer than three, or under
    # `closer_below_in` input pixels, or where it drops one of those sure peaks or many peaks
    # (a printed surface), the frame is looked at again `closer` times larger: small dice on printed
    # squares can have no peak at all at 512, and the finder is sure of the grid squares
    # instead (sessions 27, 28). 0: never.
    closer: float = 1.5
    closer_below_in: float = 20.0


@dataclass(frozen=True)
class Candidate:
    """A heatmap peak decoded to a die, before the checks of :func:`select`."""

    x: float
    y: float
    edge: float
    corners: F32
    score: float
    second: float | None = None  # peak of the second look, for doubtful peaks
    # a weak peak the face model is sure is a die (judged.py): clean if of the table's size
    judged: bool = False


def select(cands: list[Candidate], w: int, h: int, cfg: NetSettings) -> list[FoundDie]:
    """Keep what can be a die of this table in a w x h frame; flag what cannot be read cleanly."""
    return [d for _, d in select_indexed(cands, w, h, cfg)]


def select_indexed(
    cands: list[Candidate], w: int, h: int, cfg: NetSettings
) -> list[tuple[int, FoundDie]]:
    """:func:`select`, each find with the index of its candidate."""
    big = [i for i, c in enumerate(cands) if c.edge >= cfg.min_edge]
    cut = {i: _outside_share(cands[i].corners, w, h) > cfg.border_share for i in big}
    strong = {i: cands[i].score >= cfg.threshold for i in big}
    ref = sure_edge(cands, w, h, cfg)
    out: list[tuple[int, FoundDie]] = []
    for i in big:
        c, is_cut = cands[i], cut[i]
        ratio = c.edge / ref if ref else 1.0
        reasons = []
        if c.judged and not strong[i]:
            # a weak peak the face model vouches for: a die if it is of this table's size
            if not cfg.weak_lo <= ratio <= cfg.weak_hi:
                continue
        elif not strong[i] and not (c.second is not None and c.second >= cfg.promote_at):
            if not cfg.weak_lo <= ratio <= cfg.weak_hi:
                continue
            if c.second is not None and c.second < cfg.drop_below:
                continue
            reasons.append(f"weak detection ({c.score:.2f})")
        elif ratio < cfg.drop_lo and not is_cut:
            continue
        elif not cfg.sure_lo <= ratio <= cfg.sure_hi:
            reasons.append(_size_reason(ratio))
        if is_cut:
            reasons.append("cut by the frame border")
        sized = strong[i] and not is_cut
        found = FoundDie(
            (float(c.x), float(c.y)),
            c.corners,
            c.edge,
            not reasons,
            "; ".join(reasons),
            sized=sized,
            size_doubt=sized and len(reasons) == 1,
        )
        out.append((i, found))
    return out


def sure_edge(cands: list[Candidate], w: int, h: int, cfg: NetSettings) -> float | None:
    """The size of this table's dice: the median edge of the strong peaks wholly in the frame,
    when there are three or more (the size rule of :func:`select_indexed` measures by it)."""
    sure = [
        c.edge
        for c in cands
        if c.edge >= cfg.min_edge
        and c.score >= cfg.threshold
        and _outside_share(c.corners, w, h) <= cfg.border_share
    ]
    return float(np.median(sure)) if len(sure) >= 3 else None


def _size_reason(ratio: float) -> str:
    return f"size unlike the other dice ({ratio:.2f}x)"


def weigh_sizes_again(dice: list[FoundDie], cfg: NetSettings | None = None) -> list[FoundDie]:
    """The size rule of :func:`select` again, over the dice that remain once the
    reader has set phantoms aside: on a grid-paper mat the empty squares
    outnumber the dice and would otherwise make every real die look the wrong
    size."""
    cfg = cfg or NetSettings()
    sure = [d.edge for d in dice if d.sized]
    ref = float(np.median(sure)) if len(sure) >= 3 else None
    out = []
    for d in dice:
        if not d.sized or not (d.clean or d.size_doubt):
            out.append(d)
            continue
        ratio = d.edge / ref if ref else 1.0
        if cfg.sure_lo <= ratio <= cfg.sure_hi:
            out.append(replace(d, clean=True, reason="", size_doubt=False))
        else:
            out.append(replace(d, clean=False, reason=_size_reason(ratio), size_doubt=True))
    return out


def find_dice_net(
    image_bgr: ImageBGR,
    *,
    threshold: float | None = None,
    low: float | None = None,
    settings: NetSettings | None = None,
    session: Any = None,
    input_long: int | None = None,
    threads: int = 2,
) -> list[FoundDie]:
    """Every die in a BGR frame, as :class:`FoundDie` in frame pixels (``input_long``: the
    network input's long side; by default ``input_long_for`` the frame)."""
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError("image must be an H x W x 3 BGR array")
    cfg = settings or NetSettings()
    if threshold is not None:
        cfg = replace(cfg, threshold=threshold)
    if low is not None:
        cfg = replace(cfg, low=low)
    sess = session if session is not None else load_session(threads=threads)
    h, w = image_bgr.shape[:2]
    size = input_long if input_long is not None else input_long_for(max(h, w))
    cands = _candidates(sess, image_bgr, size, min(cfg.low, cfg.threshold), cfg)
    if cfg.drop_below > 0 or cfg.promote_at <= 1:
        cands = [
            replace(c, second=second_look(sess, image_bgr, c, cfg.look_px))
            if cfg.low <= c.score < cfg.threshold and c.edge >= cfg.min_edge
            else c
            for c in cands
        ]
    return select(cands, w, h, cfg)


def _candidates(
    sess: Any, image_bgr: ImageBGR, input_long: int, floor: float, cfg: NetSettings
) -> list[Candidate]:
    """Heatmap peaks at or above ``floor``, decoded to dice in frame pixels, strongest first
    (the second look at big dice sized by ``cfg``, as the peaks are then kept by it)."""
    return one_per_die(zoomed_peaks(sess, image_bgr, input_long, floor, cfg=cfg))


#: Which of some peaks a face model is sure are dice (judged.py gives one).
Vouch = Callable[[list[Candidate]], list[bool]]
#: The crops of some faces by their corners (judged.py's, which keeps each crop it cuts).
Crops = Callable[[list[F32]], npt.NDArray[np.uint8]]


def zoom_size(
    first: list[Candidate],
    long_side: int,
    input_long: int,
    cfg: NetSettings,
    vouch: Vouch | None = None,
) -> int:
    """The input's long side for a second look at a frame of big dice, or 0 for none.

    ``first``: the first look's peaks down to ZOOM_ORPHAN_FLOOR. Big dice alone do not
    call for it (half our rendered frames have them, and the first look finds them all):
    the first look must also have left at least ZOOM_ORPHANS weak peaks of the sure dice's
    size on none of them, as it does where it missed marbled dice."""
    used = min(input_long, long_side)
    sure = one_per_die([c for c in first if c.score >= cfg.threshold and c.edge >= cfg.min_edge])
    if not sure:
        return _size_by_weak(first, long_side, used, cfg, vouch) if vouch is not None else 0
    edge = float(np.median([c.edge for c in sure]))
    edge_in = edge * used / long_side
    if edge_in < ZOOM_FROM_IN:
        return 0
    weak = one_per_die([c for c in first if ZOOM_ORPHAN_FLOOR <= c.score < cfg.threshold])
    orphans = [
        c
        for c in weak
        if cfg.sure_lo <= c.edge / edge <= cfg.sure_hi
        and not any(_same_die(c.x, c.y, c.edge, c.corners, k) for k in sure)
    ]
    if len(orphans) < ZOOM_ORPHANS:
        return 0
    return _shrunk(used, edge_in)


def _shrunk(used: int, edge_in: float) -> int:
    """The input's long side that makes dice of ``edge_in`` pixels at ``used`` ZOOM_EDGE_IN
    pixels, or 0 where that is no smaller."""
    size = max(ZOOM_SMALLEST, round(used * ZOOM_EDGE_IN / edge_in / 32) * 32)
    return size if size < used else 0


def _textured_size(
    image_bgr: ImageBGR, first: list[Candidate], input_long: int, cfg: NetSettings, crops: Crops
) -> int:
    """The size of the look NetSettings.shrunk_from_in asks for (0: none); the bodies' texture
    measured on the caller's crops."""
    if cfg.shrunk_from_in <= 0:
        return 0
    long_side = max(image_bgr.shape[:2])
    used = min(input_long, long_side)
    sure = one_per_die([c for c in first if c.score >= cfg.threshold and c.edge >= cfg.min_edge])
    if not sure:
        return 0
    edge_in = float(np.median([c.edge for c in sure])) * used / long_side
    if edge_in < cfg.shrunk_from_in:
        return 0
    corners = [c.corners for c in sure[:ZOOM_TEXTURE_DICE]]
    spread = ring_spread(crops(corners))
    return _shrunk(used, edge_in) if spread >= cfg.textured else 0


def _size_by_weak(
    first: list[Candidate], long_side: int, used: int, cfg: NetSettings, vouch: Vouch
) -> int:
    """A second look's size when the first look is sure of no die: by its weak peaks, if
    ZOOM_WEAK or more of them are of one size and big on the input and the face model is
    sure that ZOOM_GAIN of them are dice (big dice of a strongly striped body, none of which
    the first look is sure of); else 0: on printed squares without dice such peaks are
    squares, and a look sized by them finds more squares."""
    weak = one_per_die(
        [c for c in first if c.score >= ZOOM_ORPHAN_FLOOR and c.edge >= cfg.min_edge]
    )
    if len(weak) < ZOOM_WEAK:
        return 0
    edge = float(np.median([c.edge for c in weak]))
    alike = [c for c in weak if cfg.sure_lo <= c.edge / edge <= cfg.sure_hi]
    edge_in = edge * used / long_side
    if len(alike) < ZOOM_WEAK or edge_in < ZOOM_FROM_IN:
        return 0
    size = _shrunk(used, edge_in)
    if not size or sum(vouch(alike[:ZOOM_VOUCH_MOST])) < ZOOM_GAIN:
        return 0
    return size


def _vouched(
    new: list[Candidate],
    sure: list[Candidate],
    cfg: NetSettings,
    vouch: Vouch | None,
) -> list[Candidate]:
    """Of a second look's new sure dice (on none of the first look's sure dice; a look not
    kept: it found fewer than the first look), those of the table's size that a face model is
    sure are dice; none without one. They keep the second look's scores, so the reader judges
    them as sure peaks, before a weak peak of the first look on the same die."""
    if vouch is None or not new or not sure:
        return []
    edge = float(np.median([c.edge for c in one_per_die(sure)]))
    fit = [c for c in new if cfg.weak_lo <= c.edge / edge <= cfg.weak_hi][:ZOOM_VOUCH_MOST]
    ok = vouch(fit)
    # a marbled die's square can be decoded a fifth off its size, and its crop then shows
    # the model too little or too much to vouch for it: cut at the table's size (session 27)
    off = [k for k, c in enumerate(fit) if not ok[k] and abs(c.edge / edge - 1.0) > VOUCH_RESIZE]
    if off:
        again = [scaled(fit[k], edge) for k in off]
        for k, a, yes in zip(off, again, vouch(again), strict=True):
            fit[k], ok[k] = (a, True) if yes else (fit[k], False)
    return [c for c, yes in zip(fit, ok, strict=True) if yes]


def scaled(c: Candidate, edge: float) -> Candidate:
    """c's square scaled about its centre to ``edge`` pixels."""
    ctr = np.array([c.x, c.y], np.float32)
    corners = np.asarray((c.corners - ctr) * (edge / c.edge) + ctr, np.float32)
    return replace(c, edge=edge, corners=corners)


def new_dice(sure: list[Candidate], second: list[Candidate], threshold: float) -> list[Candidate]:
    """The second look's sure dice, one per die, that lie on none of the first look's."""
    return [
        c
        for c in one_per_die([c for c in second if c.score >= threshold])
        if not any(_same_die(c.x, c.y, c.edge, c.corners, k) for k in sure)
    ]


def zoomed_peaks(
    sess: Any,
    image_bgr: ImageBGR,
    input_long: int,
    floor: float,
    limit: int | None = None,
    min_edge: float = 0.0,
    cfg: NetSettings | None = None,
    vouch: Vouch | None = None,
    crops: Crops | None = None,
) -> list[Candidate]:
    """:func:`peaks`, and when the frame's dice are big on the input and the first look left
    weak peaks of their size, those of a second look at the frame shrunk (:func:`zoom_size`).
    The first look's sure peaks come first, its corners being the finer; then every other
    peak, strongest first. ``vouch`` (a face model's judgement, judged.py) also lets weak
    peaks alone size the second look where the first is sure of no die; with ``crops`` too
    (the crops of some corners: judged.py keeps them, its dice are read from them), a frame of
    textured bodies is looked at shrunk (:func:`_textured_size`)."""
    cfg = cfg or NetSettings()
    # down to the orphans' floor, whatever the caller's: the same strongest peaks over `floor`
    everything = peaks(sess, image_bgr, input_long, min(floor, ZOOM_ORPHAN_FLOOR), limit, min_edge)
    first = [c for c in everything if c.score >= floor]
    size = zoom_size(everything, max(image_bgr.shape[:2]), input_long, cfg, vouch)
    if not size:
        look = 0
        if vouch is not None and crops is not None:
            look = _textured_size(image_bgr, everything, input_long, cfg, crops)
        if not look:
            return first
        sure = [c for c in first if c.score >= cfg.threshold]
        new = new_dice(sure, peaks(sess, image_bgr, look, floor, limit, min_edge), cfg.threshold)
        return first + _vouched(new, sure, cfg, vouch)
    second = peaks(sess, image_bgr, size, floor, limit, min_edge)
    sure = [c for c in first if c.score >= cfg.threshold]
    new = new_dice(sure, second, cfg.threshold)
    if len(new) < max(ZOOM_GAIN, len(one_per_die(sure))):
        return first + _vouched(new, sure, cfg, vouch)
    rest = [c for c in first if c.score < cfg.threshold] + second
    rest.sort(key=lambda c: -c.score)
    return (sure + rest)[:limit]


def peaks(
    sess: Any,
    image_bgr: ImageBGR,
    input_long: int,
    floor: float,
    limit: int | None = None,
    min_edge: float = 0.0,
) -> list[Candidate]:
    """Every heatmap peak at or above ``floor`` (at most ``limit``, the strongest), decoded to a
    die in frame pixels, strongest first; two peaks may still be one die (:func:`one_per_die`).
    Peaks whose edge is far under ``min_edge`` (pips, glyphs, grid crossings) are left out before
    they are decoded or counted."""
    # A frame smaller than the input is not enlarged: its dice (VISION.md: 40-160 px,
    # a close-up's one die about 50-65 px in 96) are then as big as the network saw them.
    x, s = _prepare(image_bgr, min(input_long, max(image_bgr.shape[:2])))
    maps = np.asarray(sess.run(None, {sess.get_inputs()[0].name: x})[0][0], np.float32)
    heat = maps[0]
    is_peak = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= floor)
    ys, xs = np.nonzero(is_peak)
    if min_edge > 0:
        # the edge before the corner residuals, which move it a few percent
        rough = np.exp(np.clip(maps[3, ys, xs], 0.0, 6.5)) / s
        ys, xs = ys[rough >= 0.7 * min_edge], xs[rough >= 0.7 * min_edge]
    order = np.argsort(-heat[ys, xs], kind="stable")[:limit]
    return decode(maps, ys[order], xs[order], s)


def decode(
    maps: F32, ys: npt.NDArray[np.intp], xs: npt.NDArray[np.intp], s: float
) -> list[Candidate]:
    """The peaks at cells (ys, xs) of the maps, decoded to dice in frame pixels (``s``: the
    input's scale). All peaks at once: the same arithmetic, in the same float types and
    order, as decoding them one by one (tests/test_detect_net.py holds the two equal)."""
    if len(ys) == 0:
        return []
    v = maps[:, ys, xs].T  # (n, 14)
    cx_in = (xs + v[:, 1].astype(np.float64)) * STRIDE
    cy_in = (ys + v[:, 2].astype(np.float64)) * STRIDE
    edge_in = np.exp(np.clip(v[:, 3], 0.0, 6.5))
    t = np.arctan2(v[:, 5], v[:, 4]).astype(np.float64) / 4.0
    cos, sin = np.cos(t), np.sin(t)
    rot_t = np.stack([np.stack([cos, sin], 1), np.stack([-sin, cos], 1)], 1).astype(np.float32)
    res = v[:, 6:14].reshape(-1, 4, 2)
    ctr_in = np.stack([cx_in, cy_in], 1).astype(np.float32)[:, None, :]
    pts_in = np.matmul(_UNIT + res, rot_t) * edge_in[:, None, None] + ctr_in
    corners = order_corners_many((pts_in + 0.5) / s - 0.5)
    sides = np.roll(corners, -1, axis=1) - corners
    edges = np.sqrt(np.add.reduce(sides * sides, axis=2)).mean(axis=1)
    cx, cy = (cx_in + 0.5) / s - 0.5, (cy_in + 0.5) / s - 0.5
    return [
        Candidate(float(cx[k]), float(cy[k]), float(edges[k]), corners[k], float(v[k, 0]))
        for k in range(len(ys))
    ]


def order_corners_many(pts: F32) -> F32:
    """:func:`companion.vision.geometry.order_corners` over (n, 4, 2) points at once."""
    c = pts.mean(axis=1)
    ang = np.arctan2(pts[:, :, 1] - c[:, 1:2], pts[:, :, 0] - c[:, 0:1])
    p = np.take_along_axis(pts, np.argsort(ang, axis=1)[:, :, None], axis=1)
    start = np.argmin(p[:, :, 0] + p[:, :, 1], axis=1)
    idx = (np.arange(4)[None, :] + start[:, None]) % 4
    return np.ascontiguousarray(np.take_along_axis(p, idx[:, :, None], axis=1), np.float32)


def one_per_die(cands: list[Candidate]) -> list[Candidate]:
    """Of peaks that are one die, the strongest (``cands`` strongest first)."""
    # Dice never overlap, so a center within half an edge of a stronger one is
    # the same die. Nor do their top faces in the frame (they lie in one plane,
    # and the camera maps a plane one to one): a face that covers much of a
    # stronger one is a side of that die, seen at an angle, with its own pips or art.
    n = len(cands)
    if n < 2:
        return list(cands)
    # every pair's distance at once (a read asks this of a hundred peaks or more, several
    # times): then one boolean test a peak against the peaks kept before it
    xye = np.array([(c.x, c.y, c.edge) for c in cands], np.float64)
    d = np.hypot(xye[:, None, 0] - xye[None, :, 0], xye[:, None, 1] - xye[None, :, 1])
    e = xye[:, 2]
    close = d < 0.5 * np.maximum(e[:, None], e[None, :])
    # faces can only overlap when their centers are closer than their half diagonals
    near = d < 0.75 * (e[:, None] + e[None, :])
    kept = np.zeros(n, bool)
    for i in range(n):
        if close[i, :i][kept[:i]].any():
            continue
        if any(
            _overlap(cands[i].corners, cands[j].corners) > OVERLAP
            for j in np.flatnonzero(near[i, :i] & kept[:i]).tolist()
        ):
            continue
        kept[i] = True
    return [c for c, k in zip(cands, kept.tolist(), strict=True) if k]


def same_die(a: Candidate, b: Candidate) -> bool:
    """Whether two peaks, of one look or of two, are one die (:func:`one_per_die`'s test)."""
    return _same_die(a.x, a.y, a.edge, a.corners, b)


def _same_die(x: float, y: float, edge: float, corners: F32, c: Candidate) -> bool:
    d = float(np.hypot(x - c.x, y - c.y))
    if d < 0.5 * max(edge, c.edge):
        return True
    # faces can only overlap when their centers are closer than their half diagonals
    return d < 0.75 * (edge + c.edge) and _overlap(corners, c.corners) > OVERLAP


def _overlap(a: F32, b: F32) -> float:
    """Area two faces share, as a share of the smaller one's."""
    small = min(abs(float(cv2.contourArea(a))), abs(float(cv2.contourArea(b))))
    if small <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(
        np.ascontiguousarray(a, np.float32), np.ascontiguousarray(b, np.float32)
    )
    return float(inter) / small


def second_look(sess: Any, image_bgr: ImageBGR, c: Candidate, look_px: float) -> float:
    """The strongest heat within 0.4 edge of c when the network sees c's surroundings zoomed in."""
    h, w = image_bgr.shape[:2]
    half = 128 / look_px * c.edge  # a 256-pixel input around the die
    x0, y0 = int(max(0, c.x - half)), int(max(0, c.y - half))
    x1, y1 = int(min(w, c.x + half)), int(min(h, c.y + half))
    patch = image_bgr[y0:y1, x0:x1]
    if patch.shape[0] < 8 or patch.shape[1] < 8:
        return 0.0
    x, s = _prepare(patch, max(64, round(max(patch.shape[:2]) * look_px / c.edge)))
    heat = np.asarray(sess.run(None, {sess.get_inputs()[0].name: x})[0][0, 0], np.float32)
    # c's center and 0.4 edge on the heatmap (cells of STRIDE input pixels);
    # reading the map there, not decoding every peak, keeps this to one inference
    cx = ((c.x - x0 + 0.5) * s - 0.5) / STRIDE
    cy = ((c.y - y0 + 0.5) * s - 0.5) / STRIDE
    r = 0.4 * c.edge * s / STRIDE
    ys, xs = np.ogrid[: heat.shape[0], : heat.shape[1]]
    near = (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r
    return float(heat[near].max()) if near.any() else 0.0
