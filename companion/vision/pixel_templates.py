"""A second, independent read of an enrolled table's dice: their drawing, pixel by pixel.

A profile reads from the network's embedding. Where that read is not sure enough
(`?`), the die's own pixels can still say which enrolled motif it is: the
edges of the drawing inside its crop (gradient magnitude), shrunk and blurred,
compared with every enrolled die at its four right angles (nearest neighbour by
correlation). The two reads fail differently (the embedding on art unlike what
the network learnt, the pixels on light, wear and a face cut a little off
centre), so a `?` becomes the profile's best guess only when the pixels name the
same motif by a clear margin, and only on a set where the pixels, checked on the
enrolment itself with one frame left out at a time, read nearly every die right.
When the pixels name another motif than a die the profile reads, by more than any
wrong read of that check, the die reads `?` instead. The pixels never name a
motif of their own: they confirm the head's best guess or hold it back.

A profile enrolled since session 29 also reads the two as one (`fuse`: the
head's log-probabilities plus PIXEL_WEIGHT times each motif's best similarity),
with limits of its own from the same cross-check: a die the head reads keeps its
motif only if that read names it too, and on a usable set it decides a die the
head is unsure of that looks like the enrolled dice (docs/vision.md, session 29).

A profile enrolled since session 43 describes the edges of all three colour channels (art the
body's own grey has no grey edges) and matches each die moved by up to a cell each way (a die
cut a little off its face). Since then, on every profile, the fused read alone decides a die
only from DECIDE_FLOOR.

Since session 44 a set whose pixel check is weak (WEAK_ACCURACY up to MIN_ACCURACY: wood's grain
under outlines or silver art) still lets the fused read decide a die the head is unsure of, only
from WEAK_FLOOR; its pixels alone still settle and hold back nothing.

Chosen on our development drawing families only (docs/vision.md, "Pixel
rescue"): after enrolment, validation families read 94.4 -> 95.8 % of 941 dice
right and the hard families 71.1 -> 81.2 %, with silent errors 0.43 -> 0.43 %
and 1.06 -> 0.64 %.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.crop import CROP_MARGIN, CROP_SIZE

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

# Pixels cut from each side of the face inside the crop: a die cut a few pixels off its
# corners brings table into the edge, which says nothing of the motif.
INSET = 5
# Side of the shrunk face, and the blur that forgives a drawing shifted by a pixel or two.
SIDE = 24
BLUR_SIGMA = 1.0
# A pixel read counts only with this margin (correlation of the motif read minus that
# of the next motif) ...
MARGIN_FLOOR = 0.04
# ... and above this share of the widest margin of a wrong read in the set's own check.
WRONG_MARGIN_SHARE = 0.25
# A die the profile reads is made `?` when its pixels name another motif by this margin and
# by more than any wrong read of the set's own check: the pixels object.
OBJECTION_FLOOR = 0.08
# A set whose dice the pixels read less well than this (one frame left out at a time)
# rescues nothing: its drawings vary too much (or its light does) for a pixel match.
MIN_ACCURACY = 0.8
# A profile enrolled since session 29 also reads the head and the pixels as one (fuse):
# each unit of correlation with a motif's enrolled dice weighs this much log-probability.
# Chosen on the validation and hard families' dumps (docs/vision.md, session 29).
PIXEL_WEIGHT = 20.0
# The fused read alone decides a die (one the head is unsure of or doubts) only from this
# probability, whatever its limit from the cross-check: that check's frames are the
# enrolment's, sharp and well lit, and a blurred die of art the body's own grey is read there
# at 0.7-0.87 and wrong (otherhand development seeds 3 and 4: 11 of 279 such dice wrong, all
# under 0.87; docs/vision.md, session 43).
DECIDE_FLOOR = 0.9
# A set whose pixels read its own dice less well than MIN_ACCURACY but at least this well still
# lets the fused read decide a die, only from WEAK_FLOOR: on wood with outlines or silver art
# (otherhand development sets 13d, 6b, 1b: check 0.67-0.76) the pixels alone read 76-92 % of
# the dice right and the head few; trusted as a usable set's pixels, they read up to 1 % of a
# set's dice wrong, and from 0.98, 1 of 835 dice read (docs/vision.md, session 44). Under
# WEAK_ACCURACY the pixels say nothing.
WEAK_ACCURACY = 0.65
WEAK_FLOOR = 0.98
# A find this far less like every enrolled die than the least typical enrolled die was like
# the other frames' dice looks like none of the table's dice (docs/vision.md, session 25).
UNLIKE_GAP = 0.10
# A die is matched to each enrolled die moved by up to this many cells of SIDE each way: a
# die cut a pixel or two off its face (a side face in the quad) still lines up. On otherhand
# development seeds 1-4, pixels alone on the finder's cuts: 95.9 -> 97.4 % (docs/vision.md,
# session 43).
SHIFT = 1
# Dice checked at once at enrolment (their similarities to every enrolled die).
CHECK_BLOCK = 256


def describe(crops: npt.NDArray[np.uint8], colour: bool = True) -> F32:
    """Each crop (N, CROP_SIZE, CROP_SIZE, 3) BGR as SIDE x SIDE edge strength, zero mean and
    unit length: (N, SIDE, SIDE). With ``colour`` (a profile since session 43) the edges are
    the strongest of the three channels', else those of the grey."""
    cut = CROP_MARGIN + INSET
    out = np.empty((len(crops), SIDE, SIDE), np.float32)
    for i, crop in enumerate(crops):
        inside = crop[cut : CROP_SIZE - cut, cut : CROP_SIZE - cut]
        # The drawing's edges, not its shades: light across the die and the body's colour
        # and finish move the gray far more than the edges (dev families: the sets whose
        # own check passes rose from 21 and 12 to 23 and 21 of 24).
        if colour:
            # Art and body of one grey but not one colour (outlines on marble, on speckles)
            # have no grey edges at all (docs/vision.md, session 43).
            edges = np.zeros(inside.shape[:2], np.float32)
            for channel in cv2.split(inside.astype(np.float32)):
                np.maximum(edges, _edges(channel), out=edges)
        else:
            edges = _edges(cv2.cvtColor(inside, cv2.COLOR_BGR2GRAY).astype(np.float32))
        face = cv2.resize(edges, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
        face = cv2.GaussianBlur(face, (0, 0), BLUR_SIGMA)
        face -= face.mean()
        out[i] = face / (np.linalg.norm(face) + 1e-6)
    return out


def _edges(channel: F32) -> F32:
    """Gradient magnitude of one channel."""
    gx = cv2.Sobel(channel, cv2.CV_32F, 1, 0)
    return np.asarray(cv2.magnitude(gx, cv2.Sobel(channel, cv2.CV_32F, 0, 1)), np.float32)


def _views(desc: F32, shift: int = 0) -> F32:
    """Each descriptor at its four right angles and, with ``shift``, moved by up to that many
    cells each way (edges padded; each view again zero mean and unit length), flattened:
    (N, views, SIDE * SIDE)."""
    n = len(desc)
    turned = np.stack([np.rot90(desc, k, axes=(1, 2)) for k in range(4)], axis=1)
    if not shift:
        return np.ascontiguousarray(turned.reshape(n, 4, SIDE * SIDE))
    pad = np.pad(turned, ((0, 0), (0, 0), (shift, shift), (shift, shift)), mode="edge")
    span = range(2 * shift + 1)
    views = np.stack(
        [pad[:, :, dy : dy + SIDE, dx : dx + SIDE] for dy in span for dx in span], axis=2
    ).reshape(n, -1, SIDE * SIDE)
    views -= views.mean(axis=2, keepdims=True)
    views /= np.linalg.norm(views, axis=2, keepdims=True) + 1e-6
    return views


def _best_view(views: F32, templates: F32) -> F32:
    """Each die's best similarity over its views (N, views, F) to each template (M, F): (N, M).
    One matrix product (BLAS), not an einsum: 36 views a die."""
    n, v, f = views.shape
    sim = views.reshape(n * v, f) @ templates.T
    return np.asarray(sim.reshape(n, v, -1).max(axis=1), np.float32)


def fuse(probs: F32, per: F32, weight: float = PIXEL_WEIGHT) -> F32:
    """The head's probabilities (N, motifs) and the pixels' per-motif similarities (N, motifs)
    read as one: softmax(log p + weight * similarity). Its limits come from the same fusion
    on the enrolment's cross-check."""
    z = np.log(np.maximum(probs, 1e-9)) + weight * np.maximum(per, -1.0)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def _motif_best(sim: F32, labels: I64, motifs: int) -> F32:
    """From similarities (N, M) to M templates: each die's best similarity to each motif's
    templates (N, motifs; -2 for a motif without templates)."""
    per = np.full((len(sim), motifs), -2.0, np.float32)
    for k in range(motifs):
        mine = labels == k
        if mine.any():
            per[:, k] = sim[:, mine].max(axis=1)
    return per


def _read_best(per: F32) -> tuple[I64, F32]:
    """Each die's motif read from its per-motif similarities, and its margin over the next."""
    order = np.argsort(-per, axis=1)
    rows = np.arange(len(per))
    margin = per[rows, order[:, 0]] - per[rows, order[:, 1]]
    return order[:, 0].astype(np.int64), margin.astype(np.float32)


@dataclass(frozen=True)
class PixelReads:
    """What an enrolled table's pixels say of some crops (Profile.pixel_reads)."""

    confirm: npt.NDArray[np.bool_]  # they read the head's best guess by a clear margin
    objection: npt.NDArray[np.bool_]  # they read another motif by a wide one
    # The head and the pixels read as one (N, motifs) and the limit of each one's best guess;
    # None for a profile from before session 29.
    fused: F32 | None = None
    fused_limit: npt.NDArray[np.float64] | None = None
    # Which dice the fused read may decide where the head is unsure: on a set whose pixels
    # read its own dice well enough (may_decide), a die that looks like the enrolled dice (as
    # for the objection: another set's die keeps the head's `?`).
    decides: npt.NDArray[np.bool_] | None = None
    # The least probability at which the fused read decides a die alone (the set's decide_floor).
    floor: float = DECIDE_FLOOR

    @property
    def decide_limit(self) -> npt.NDArray[np.float64]:
        """The limit of the fused read where it decides a die alone: its own, at least the
        set's floor (DECIDE_FLOOR, or WEAK_FLOOR on a set whose pixel check is weak)."""
        assert self.fused_limit is not None
        return np.maximum(self.fused_limit, self.floor)


def settle(probs: F32, limit: npt.NDArray[np.float64], px: PixelReads) -> None:
    """In place, for dice a profile reads (probs (N, motifs) of its head, the limit of each
    one's best guess): what the pixels change. A die too unsure for the head reads its best
    guess when they confirm it, a die the head reads reads `?` when they object; with a fused
    read, a die read as a motif keeps it only if the fused read names it too above its limit,
    and a die the head is unsure of (and the pixels did not settle) reads the fused read
    where ``px.decides`` (its probabilities, and its limit but at least ``px.floor``)."""
    best = probs.argmax(axis=1)
    low = probs.max(axis=1) < limit
    limit[low & px.confirm] = 0.0
    limit[~low & px.objection] = np.inf
    if px.fused is None or px.fused_limit is None or px.decides is None:
        return
    agree = (px.fused.argmax(axis=1) == best) & (px.fused.max(axis=1) >= px.fused_limit)
    limit[~low & ~agree] = np.inf
    limit[low & px.confirm & ~agree] = np.inf
    decide = low & ~px.confirm & px.decides
    probs[decide] = px.fused[decide]
    limit[decide] = px.decide_limit[decide]


@dataclass(frozen=True)
class PixelTemplates:
    """The enrolled dice's pixel descriptors and how well they read the set's own dice."""

    templates: F32  # (M, SIDE * SIDE), each at the rotation it was enrolled in
    labels: I64  # (M,) motif index of each
    accuracy: float  # share of enrolled dice read right with their frame left out
    worst_wrong: float  # widest margin of a wrong read in that check (0 if none)
    motifs: int = 5
    # The lowest best similarity of an enrolled die to the other frames' dice: a die less
    # like the enrolled dice than this (another set, other light) is one the pixels do not
    # hold back; above 1, they never do (a profile from before objections).
    least_similar: float = 2.0
    # How the dice are described and matched: colour edges within a cell's shift since session
    # 43; grey edges at the four right angles only before (a profile from then keeps them).
    colour: bool = False
    shift: int = 0

    @classmethod
    def fit(
        cls, crops: npt.NDArray[np.uint8], labels: I64, frames: I64, motifs: int = 5
    ) -> PixelTemplates:
        """Templates of labelled crops, checked by reading each frame's dice with the other
        frames' templates."""
        return cls.fit_checked(crops, labels, frames, motifs)[0]

    @classmethod
    def fit_checked(
        cls, crops: npt.NDArray[np.uint8], labels: I64, frames: I64, motifs: int = 5
    ) -> tuple[PixelTemplates, F32]:
        """:meth:`fit`, and each crop's best similarity to each motif's dice of the other frames
        (N, motifs; -2 where a motif has none): the pixels' half of the profile's cross-check."""
        desc = describe(crops, colour=True)
        flat = desc.reshape(len(desc), -1)
        per = np.full((len(flat), motifs), -2.0, np.float32)
        nearest = np.full(len(flat), -2.0, np.float32)
        # In blocks of dice: the similarities of a big enrolment at once would not fit a Pi.
        for start in range(0, len(flat), CHECK_BLOCK):
            part = slice(start, start + CHECK_BLOCK)
            sim = _best_view(_views(desc[part], SHIFT), flat)
            sim[frames[part, None] == frames[None, :]] = -2.0  # its own frame left out
            per[part] = _motif_best(sim, labels, motifs)
            nearest[part] = sim.max(axis=1)
        pred, margin = _read_best(per)
        wrong = pred != labels
        accuracy = float(1.0 - wrong.mean()) if len(labels) else 0.0
        worst = float(max(margin[wrong].max(), 0.0)) if wrong.any() else 0.0
        least = float(nearest.min()) if len(nearest) else 2.0
        fitted = cls(
            flat.astype(np.float32),
            labels.astype(np.int64),
            accuracy,
            worst,
            motifs,
            least,
            colour=True,
            shift=SHIFT,
        )
        return fitted, per

    @property
    def needed_margin(self) -> float:
        """The margin a pixel read needs to count."""
        return max(MARGIN_FLOOR, WRONG_MARGIN_SHARE * self.worst_wrong)

    @property
    def usable(self) -> bool:
        """Whether this set's pixels are to be trusted alone (to settle or hold back a read)."""
        return self.accuracy >= MIN_ACCURACY and len(self.labels) > 0

    @property
    def may_decide(self) -> bool:
        """Whether the fused read may decide a die the head is unsure of on this set (from
        decide_floor): on a usable set, and on one whose check is weak but not poor."""
        return self.accuracy >= WEAK_ACCURACY and len(self.labels) > 0

    @property
    def decide_floor(self) -> float:
        """The least probability at which the fused read decides a die alone on this set."""
        return DECIDE_FLOOR if self.usable else WEAK_FLOOR

    def similarities(self, crops: npt.NDArray[np.uint8]) -> tuple[F32, F32]:
        """Each crop's best similarity to each motif's enrolled dice (N, motifs), and to the
        enrolled die most like it (N,)."""
        if not len(crops):
            return np.zeros((0, self.motifs), np.float32), np.zeros(0, np.float32)
        views = _views(describe(crops, self.colour), self.shift)
        sim = _best_view(views, self.templates)
        return _motif_best(sim, self.labels, self.motifs), sim.max(axis=1)

    def read(self, crops: npt.NDArray[np.uint8]) -> tuple[I64, F32, F32]:
        """Each crop's motif by its pixels, the margin of that read, and its similarity to the
        enrolled die most like it."""
        per, nearest = self.similarities(crops)
        pred, margin = _read_best(per)
        return pred, margin, nearest

    @property
    def knows_likeness(self) -> bool:
        """Whether the set's check measured its least typical die's likeness to the others (a
        profile from before it holds 2.0, more than any similarity)."""
        return self.least_similar <= 1.0

    def unlike(self, crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
        """Which crops look like none of the enrolled dice, by far (UNLIKE_GAP under the least
        similar enrolled die's own likeness to the others)."""
        if not len(crops) or not len(self.labels) or not self.knows_likeness:
            return np.zeros(len(crops), bool)
        return np.asarray(self.read(crops)[2] < self.least_similar - UNLIKE_GAP, bool)

    @property
    def objection_margin(self) -> float:
        """The margin by which pixels naming another motif make a read die `?`."""
        return max(OBJECTION_FLOOR, self.worst_wrong)

    def verdict(
        self, similar: tuple[F32, F32], best: npt.NDArray[np.intp]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Of dice with these :meth:`similarities` (or the enrolment check's), which the pixels
        read as ``best`` by the margin needed (they confirm it), and which they read as another
        motif by the objection margin and look like the enrolled dice (they object); neither on
        a set whose pixels are not usable."""
        per, nearest = similar
        if not self.usable or not len(per):
            return np.zeros(len(per), bool), np.zeros(len(per), bool)
        pred, margin = _read_best(per)
        confirm = (pred == best) & (margin >= self.needed_margin)
        # only about a die that looks like the enrolled ones: on another set's dice the
        # pixels' margins mean nothing (a jade profile held back 72 of 300 dice of ours)
        objection = (
            (pred != best) & (margin >= self.objection_margin) & (nearest >= self.least_similar)
        )
        return np.asarray(confirm, bool), np.asarray(objection, bool)
