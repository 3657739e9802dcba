"""Enrolment: adapt the reader to a table's own dice without any training framework.

A profile reads faces on its own, from the network's embedding: a
multinomial logistic head fitted with numpy on the L2-normalised embeddings
of the table's dice, each seen at its four right angles (a die lies any way
round), and at reading time each die's probabilities are averaged over those
four rotations. It does not merely nudge the shipped model's answer: where
the table's art differs from what the network learnt, the network's own head
is wrong in a consistent way that a head fitted on this art is not.

A profile also knows what its dice look like: the mean embedding of each
motif (a prototype). A die read with too little confidence for the motif it
looks most like, or further from that motif's prototype than any enrolled die
was, reads `?`. Both limits come from the enrolment itself, by leaving one
frame out at a time: the head fitted on the other frames reads the left-out
frame's dice; a motif's confidence limit rises only with the wrong reads that
took a die for it or took one of its dice for another. The figures of that
cross-check (how many dice were read right, which motifs were taken for which)
are kept in the profile as its estimate of how well it will read.

A profile also keeps the enrolled dice's pixels, an independent second read
that settles or holds back what the head reads (pixel_templates.py). Since
session 29 it also reads the two as one (the head's log-probabilities plus the
pixels' similarity to each motif's enrolled dice), with limits of its own from
the same fused cross-check: a die the head reads keeps its motif only if the
fused read names it too, and on a set whose pixels read its own dice well the
fused read decides a die the head is unsure of.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from companion.fileperm import private_dir, write_private
from companion.vision import views
from companion.vision.classify import (
    FACES,
    READ_ROTATIONS,
    FaceClassifier,
    ModelError,
    default_enrol_model_path,
    normalise,
    rotation_run,
    softmax,
)
from companion.vision.colour_view import ColourView
from companion.vision.crop import cut_faces
from companion.vision.finders import DEFAULT_FINDER, make_finder
from companion.vision.image_file import ImageFileError, load_image
from companion.vision.ink_view import InkView
from companion.vision.pixel_templates import (
    PIXEL_WEIGHT,
    SIDE,
    PixelReads,
    PixelTemplates,
    fuse,
    settle,
)

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
PROFILE_FILE = "profile.npz"
META_FILE = "profile.json"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
# Profiles of other kinds ("correction": a head added to the network's logits;
# none: a head that replaced it) mean something else and must be enrolled again.
HEAD_KIND = "rotation-head-2"
# The lowest confidence a profile ever accepts, whatever its cross-check says.
MIN_THRESHOLD = 0.6
# ... and the lowest its fused read of head and pixels accepts (its probabilities are
# sharper: on the development families' dumps 0.6 let 4 more dice through wrong than 0.7).
FUSED_FLOOR = 0.7
# Cosine below its folder's typical die at which a die is set aside as not of that folder.
OUTLIER_GAP = 0.2
# Share of the cross-check's dice that may be read wrong above the `?` limit.
SILENT_SHARE = 0.01
# Cosine allowed below the least typical enrolled die (read right with its
# frame left out) before a die counts as unlike its motif: reading frames
# vary a little more than two enrolment frames do.
DISTANCE_SLACK = 0.05
# Cosine below the distance limit at which a find is no die of this table at all (a
# printed marker, a grid square, a coin): unlike every enrolled motif by this much, it
# is left out rather than read `?`, if the shipped model too doubts it is a die
# (Profile.doubt). On bench_enrolled.py's validation sets it leaves out 152 of 257
# phantoms and 1 of 2,742 real dice (a `?` before).
FOREIGN_GAP = 0.15
# The shipped model's not-a-die probability from which a profile doubts a find is a
# die: at least this, or what the model gives the table's own enrolled dice (their
# 99th percentile). A find it doubts reads `?` whatever the profile's head says: the
# head has only seen dice, and reads a grid cell as a confident 1 (docs/vision.md).
DOUBT_FLOOR = 0.05
DOUBT_QUANTILE = 0.99
# A profile also reads the table's dice redrawn as ink on a plain face (ink_view.py) or as how
# yellow they are (colour_view.py), a second profile beside it (Profile.ink), only when that
# profile's own cross-check reads this much larger a share of the enrolled dice right, with at
# most VIEW_WRONG more of them wrong (the ink first; the yellow only where the ink is not); a
# set that reads itself better than 1 - VIEW_GAIN tries neither (docs/vision.md, 62-64).
VIEW_GAIN = 0.05
VIEW_WRONG = 1
INK_FOLDER = "ink"  # the second profile's folder inside a profile's


class EnrolmentError(Exception):
    """Enrolment cannot proceed, or a profile cannot be read."""


def model_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class SelfCheck:
    """What leaving one enrolment frame out at a time said about a profile."""

    dice: int  # dice read in the cross-check
    right: int  # read right (not `?`)
    unsure: int  # read `?`
    confusion: tuple[tuple[int, ...], ...]  # rows: the folder's motif; columns: FACES + ("?",)
    unchecked: tuple[
        str, ...
    ] = ()  # motifs with a single frame: no frame of theirs can be left out

    @property
    def accuracy(self) -> float:
        return self.right / self.dice if self.dice else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": self.dice,
            "right": self.right,
            "unsure": self.unsure,
            "confusion": [list(r) for r in self.confusion],
            "unchecked": list(self.unchecked),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SelfCheck:
        return cls(
            int(d["dice"]),
            int(d["right"]),
            int(d["unsure"]),
            tuple(tuple(int(v) for v in r) for r in d["confusion"]),
            tuple(str(u) for u in d["unchecked"]),
        )


@dataclass(frozen=True)
class Profile:
    """A head of its own on the network's embedding, for one table's dice."""

    weights: F32  # (D, 5)
    bias: F32  # (5,)
    prototypes: F32  # (5, D): normalised mean embedding of each motif
    threshold: float  # lowest confidence read as a motif
    min_similarity: float  # a die less like its motif's prototype than this reads `?`
    model: str  # digest of the model the embeddings came from
    counts: tuple[int, ...]  # enrolled dice per face
    check: SelfCheck | None = None
    warnings: tuple[str, ...] = field(default=())
    # The limit of each motif read, none above ``threshold``; empty: ``threshold`` for every
    # motif (a profile from before per-motif limits).
    limits: tuple[float, ...] = field(default=())
    # The not-a-die probability from which a find reads `?` (and, far from every motif,
    # is left out); a profile from before it has the floor.
    doubt: float = DOUBT_FLOOR
    # The enrolled dice's pixels, a second read that may settle a `?` as the head's best
    # guess or hold a read back as `?` (pixel_templates.py); None: a profile from before them.
    pixels: PixelTemplates | None = None
    # How much the pixels weigh in the fused read (pixel_templates.fuse), and that read's limit
    # of each motif; 0 and empty: a profile from before session 29, whose pixels only settle
    # or hold back the head's read.
    pixel_weight: float = 0.0
    fused_limits: tuple[float, ...] = field(default=())
    # A second profile's: it reads the dice redrawn as ink on a plain face (ink_view.py) or as
    # how yellow they are (colour_view.py); None: as seen.
    view: views.View | None = None
    # A second profile beside this one, fitted on the dice redrawn (its ``view``): a die
    # one of the two reads and the other reads `?` takes the read, a die they read as two
    # motifs reads `?` (classify._either). None: this profile reads alone.
    ink: Profile | None = None

    @property
    def fuses(self) -> bool:
        """Whether this profile also reads head and pixels as one."""
        return self.pixels is not None and self.pixel_weight > 0.0 and bool(self.fused_limits)

    def pixel_reads(self, crops: npt.NDArray[np.uint8], probs: F32) -> PixelReads:
        """What the enrolled dice's pixels say of these crops, whose head probabilities are
        ``probs`` (N, 5): which they read as the head's best guess with a clear margin, which
        as another motif by a wide one, and, for a profile that fuses, the fused read."""
        if self.pixels is None or not len(crops):
            return PixelReads(np.zeros(len(crops), bool), np.zeros(len(crops), bool))
        return self.pixel_reads_from(self.pixels.similarities(crops), probs)

    def pixel_reads_from(self, similar: tuple[F32, F32], probs: F32) -> PixelReads:
        """:meth:`pixel_reads` from the dice's pixel similarities (per motif, nearest)."""
        none = np.zeros(len(probs), bool)
        if self.pixels is None or not len(probs):
            return PixelReads(none, none.copy())
        confirm, objection = self.pixels.verdict(similar, probs.argmax(axis=1))
        if not self.fuses:
            return PixelReads(confirm, objection)
        fused = fuse(probs, similar[0], self.pixel_weight)
        limit = np.asarray(self.fused_limits, np.float64)[fused.argmax(axis=1)]
        alike = similar[1] >= self.pixels.least_similar
        decides = alike & self.pixels.may_decide
        return PixelReads(
            confirm, objection, fused, limit, np.asarray(decides, bool), self.pixels.decide_floor
        )

    def pixel_foreign(self, crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
        """Which crops look, by their pixels, like none of the enrolled dice by far (none
        without pixel templates)."""
        if self.pixels is None:
            return np.zeros(len(crops), bool)
        return self.pixels.unlike(crops)

    def limit(self, best: npt.NDArray[np.intp] | I64) -> F64:
        """The lowest confidence each die is read at, given the motif it looks most like."""
        if not self.limits:
            return np.full(len(best), self.threshold)
        return np.asarray(self.limits, np.float64)[best]

    def read(self, rot_emb: F32) -> tuple[F32, npt.NDArray[np.bool_]]:
        """Probabilities (N, 5) averaged over the rotations given (R, N, D), and which dice are
        unlike any motif."""
        z = rot_emb @ self.weights + self.bias  # (4, N, 5)
        probs = np.asarray(
            softmax(z.reshape(-1, z.shape[-1])).reshape(z.shape).mean(axis=0), np.float32
        )
        return probs, self.similarity(rot_emb, probs.argmax(axis=1)) < self.min_similarity

    def foreign(self, rot_emb: F32) -> npt.NDArray[np.bool_]:
        """Which dice are unlike every enrolled motif by far (FOREIGN_GAP below the distance
        limit): no die of this table, as far as its enrolment can tell."""
        if self.min_similarity <= -1.0:  # a profile without a distance limit knows no far
            return np.zeros(rot_emb.shape[1], bool)
        mean = normalise(rot_emb.mean(axis=0))
        nearest = (mean @ self.prototypes.T).max(axis=1)
        return np.asarray(nearest < self.min_similarity - FOREIGN_GAP, bool)

    def similarity(self, rot_emb: F32, motif: npt.NDArray[np.intp] | I64) -> F32:
        """Cosine of each die's rotation-averaged embedding with a motif's prototype."""
        mean = normalise(rot_emb.mean(axis=0))
        return np.asarray(np.sum(mean * self.prototypes[motif], axis=1), np.float32)

    def save(self, folder: str | Path) -> None:
        """Write the profile folder (0700, files 0600); EnrolmentError with one sentence when it
        cannot."""
        out = Path(folder)
        if out.exists() and not out.is_dir():
            raise EnrolmentError(
                f"{out} is a file; --out names the folder the profile is written to"
            )
        buf = io.BytesIO()
        if self.pixels is None:
            np.savez(buf, weights=self.weights, bias=self.bias, prototypes=self.prototypes)
        else:
            np.savez(
                buf,
                weights=self.weights,
                bias=self.bias,
                prototypes=self.prototypes,
                pixel_templates=self.pixels.templates,
                pixel_labels=self.pixels.labels,
            )
        meta = {
            "classes": list(FACES),
            "head": HEAD_KIND,
            "threshold": self.threshold,
            "limits": dict(zip(FACES, self.limits, strict=True)) if self.limits else None,
            "min_similarity": self.min_similarity,
            "model": self.model,
            "counts": dict(zip(FACES, self.counts, strict=True)),
            "self_check": self.check.to_json() if self.check else None,
            "warnings": list(self.warnings),
            "doubt": self.doubt,
            "pixel_weight": self.pixel_weight,
            "fused_limits": (
                dict(zip(FACES, self.fused_limits, strict=True)) if self.fused_limits else None
            ),
            "ink_view": self.view.to_json() if self.view is not None else None,
            "pixel_check": (
                {
                    "accuracy": self.pixels.accuracy,
                    "worst_wrong_margin": self.pixels.worst_wrong,
                    "least_similar": self.pixels.least_similar,
                    "colour": self.pixels.colour,
                    "shift": self.pixels.shift,
                }
                if self.pixels is not None
                else None
            ),
        }
        try:
            private_dir(out)
            write_private(out / PROFILE_FILE, buf.getvalue())
            write_private(out / META_FILE, json.dumps(meta, indent=1) + "\n")
            if self.ink is not None:
                self.ink.save(out / INK_FOLDER)
            elif (out / INK_FOLDER).is_dir():  # a profile enrolled again in the same folder
                for f in (PROFILE_FILE, META_FILE):
                    (out / INK_FOLDER / f).unlink(missing_ok=True)
        except OSError as exc:
            raise EnrolmentError(
                f"cannot write the profile to {out}: {exc.strerror or exc}"
            ) from None

    @classmethod
    def load(cls, folder: str | Path, classifier: FaceClassifier | None = None) -> Profile:
        """Read a profile folder; with a classifier, check it was made for its model."""
        d = Path(folder)
        try:
            meta = json.loads((d / META_FILE).read_text())
            if meta.get("head") != HEAD_KIND:
                raise EnrolmentError(
                    f"the profile in {d} was made by an older companion; enrol again"
                )
            with np.load(d / PROFILE_FILE) as npz:
                weights, bias = (
                    np.asarray(npz["weights"], np.float32),
                    np.asarray(npz["bias"], np.float32),
                )
                protos = np.asarray(npz["prototypes"], np.float32)
                pixels = None
                if meta.get("pixel_check"):
                    pixels = PixelTemplates(
                        np.asarray(npz["pixel_templates"], np.float32),
                        np.asarray(npz["pixel_labels"], np.int64),
                        float(meta["pixel_check"]["accuracy"]),
                        float(meta["pixel_check"]["worst_wrong_margin"]),
                        len(FACES),
                        float(meta["pixel_check"].get("least_similar", 2.0)),
                        # a profile from before session 43: grey edges, no shift
                        bool(meta["pixel_check"].get("colour", False)),
                        int(meta["pixel_check"].get("shift", 0)),
                    )
            check = SelfCheck.from_json(meta["self_check"]) if meta.get("self_check") else None
            prof = cls(
                weights,
                bias,
                protos,
                float(meta["threshold"]),
                float(meta["min_similarity"]),
                str(meta["model"]),
                tuple(int(meta["counts"][f]) for f in FACES),
                check,
                tuple(str(w) for w in meta.get("warnings", [])),
                tuple(float(meta["limits"][f]) for f in FACES) if meta.get("limits") else (),
                float(meta.get("doubt", DOUBT_FLOOR)),
                pixels,
                float(meta.get("pixel_weight", 0.0)),
                (
                    tuple(float(meta["fused_limits"][f]) for f in FACES)
                    if meta.get("fused_limits")
                    else ()
                ),
                views.from_json(meta["ink_view"]) if meta.get("ink_view") else None,
            )
            if (d / INK_FOLDER / META_FILE).is_file():
                prof = replace(prof, ink=cls.load(d / INK_FOLDER, classifier))
            classes = tuple(meta["classes"])
        # a damaged file too: a cut or empty zip, JSON of another shape
        except (
            OSError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            EOFError,
            zipfile.BadZipFile,
        ) as exc:
            raise EnrolmentError(f"cannot read the profile in {d}: {exc}") from None
        k = len(FACES)
        if (
            classes != FACES
            or weights.ndim != 2
            or weights.shape[1] != k
            or bias.shape != (k,)
            or protos.shape != (k, weights.shape[0])
        ):
            raise EnrolmentError(f"the profile in {d} is not a face profile")
        if pixels is not None and (
            pixels.templates.ndim != 2
            or pixels.templates.shape[1] != SIDE * SIDE
            or pixels.labels.shape != (len(pixels.templates),)
            or not np.isin(pixels.labels, np.arange(k)).all()
            or not np.isfinite(pixels.templates).all()
            or not 0.0 <= pixels.accuracy <= 1.0
            or not 0.0 <= pixels.worst_wrong <= 2.0
            or not -2.0 <= pixels.least_similar <= 2.0
            or not 0 <= pixels.shift <= 3
        ):
            raise EnrolmentError(f"the profile in {d} has damaged pixel templates; enrol again")
        numbers = (
            weights,
            bias,
            protos,
            prof.threshold,
            prof.min_similarity,
            prof.limits,
            prof.fused_limits,
        )
        if not all(np.isfinite(np.asarray(x, np.float64)).all() for x in numbers):
            # NaN would read as a confidence no JSON can carry
            raise EnrolmentError(f"the profile in {d} is damaged (not a number); enrol again")
        if not 0.0 <= prof.doubt <= 1.0:  # NaN too: a damaged doubt would read every die `?`
            raise EnrolmentError(f"the profile in {d} is damaged (doubt {prof.doubt}); enrol again")
        if not 0.0 <= prof.pixel_weight <= 100.0:  # NaN too
            raise EnrolmentError(
                f"the profile in {d} is damaged (pixel weight {prof.pixel_weight}); enrol again"
            )
        if classifier is not None and prof.model != model_digest(classifier.path):
            raise EnrolmentError(f"the profile in {d} was made for another face model; enrol again")
        return prof

    def summary(self) -> str:
        """One line for `companion doctor`: what the profile learnt and its own estimate."""
        text = f"{sum(self.counts)} dice enrolled"
        if self.check and self.check.dice:
            c = self.check
            text += (
                f"; self-check {100 * c.accuracy:.1f}% read right, {c.unsure} `?`, "
                f"{c.dice - c.right - c.unsure} wrong of {c.dice} dice with their frame left out"
            )
        if self.pixels is not None:
            if self.pixels.usable:
                says = "(may settle a ?)"
            elif self.pixels.may_decide and self.fuses:
                says = "(too few to settle a ?, a fused read decides one only when sure)"
            else:
                says = "(too few to settle a ?)"
            text += f"; pixel check {100 * self.pixels.accuracy:.1f}% {says}"
            if self.fuses:
                text += ", read as one with the head"
        else:
            text += "; no pixel templates (an older profile): enrol again to let them settle a ?"
        if self.ink is not None and self.ink.check is not None and self.ink.check.dice:
            share = 100 * self.ink.check.accuracy
            text += f"; also read {views.says(self.ink.view)} (self-check {share:.1f}% that way)"
        return text


def fit_head(
    embeddings: F32,
    labels: I64,
    offset: F32 | None = None,
    *,
    l2: float = 1e-3,
    bias_l2: float = 0.1,
    steps: int = 300,
) -> tuple[F32, F32]:
    """Multinomial logistic regression on normalised embeddings (full-batch Adam).

    ``offset`` (N, 5), if given, is added to the head's logits. The bias is
    held near zero: free, it learns the enrolment's share of each face (all
    equal), which a real roll does not have.
    """
    x = normalise(embeddings).astype(np.float64)
    n, dim = x.shape
    off = np.zeros((n, len(FACES))) if offset is None else np.asarray(offset, np.float64)
    k = len(FACES)
    onehot = np.eye(k)[labels]
    # Classes are weighted equally, whatever the number of dice enrolled.
    cw = n / (k * np.maximum(onehot.sum(axis=0), 1))
    sw = (onehot * cw).sum(axis=1, keepdims=True) / n
    w = np.zeros((dim, k))
    b = np.zeros(k)
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    lr, b1, b2 = 0.1, 0.9, 0.999
    for t in range(1, steps + 1):
        z = x @ w + b + off
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * sw
        grads = [x.T @ g + l2 * w, g.sum(axis=0) + bias_l2 * b]
        for i, (param, grad) in enumerate(zip((w, b), grads, strict=True)):
            m[i] = b1 * m[i] + (1 - b1) * grad
            v[i] = b2 * v[i] + (1 - b2) * grad * grad
            param -= lr * (m[i] / (1 - b1**t)) / (np.sqrt(v[i] / (1 - b2**t)) + 1e-8)
    return w.astype(np.float32), b.astype(np.float32)


def _fit(rot: F32, labels: I64) -> tuple[F32, F32, F32]:
    """Head and prototypes from rotation embeddings (4, N, D) of labelled dice."""
    d = rot.shape[-1]
    w, b = fit_head(rot.reshape(-1, d), np.tile(labels, len(rot)))
    protos = normalise(
        np.stack([rot[:, labels == k].reshape(-1, d).mean(axis=0) for k in range(len(FACES))])
    )
    return w, b, protos


@dataclass(frozen=True)
class _Crossed:
    """Each enrolled die as read by a profile fitted without its frame."""

    probs: F32  # (N, 5)
    similarity: F32  # (N,) to the prototype of the motif read
    checked: npt.NDArray[np.bool_]  # False where the die's motif had no other frame
    unchecked: tuple[str, ...]


def _cross_check(rot_emb: F32, labels: I64, frames: I64) -> _Crossed:
    n = len(labels)
    probs = np.zeros((n, len(FACES)), np.float32)
    sim = np.zeros(n, np.float32)
    checked = np.zeros(n, bool)
    unchecked = []
    for k, face in enumerate(FACES):
        if len(set(frames[labels == k].tolist())) < 2:
            unchecked.append(face)
    for f in np.unique(frames):
        out = frames == f
        k = int(labels[out][0])
        if FACES[k] in unchecked:
            continue
        w, b, protos = _fit(rot_emb[:, ~out], labels[~out])
        part = Profile(w, b, protos, 0.0, -1.0, "", (0,) * len(FACES))
        # The left-out frame is read as reading will read: READ_ROTATIONS views of each die.
        views = rot_emb[:READ_ROTATIONS, out]
        p, _ = part.read(views)
        probs[out] = p
        sim[out] = part.similarity(views, p.argmax(axis=1))
        checked[out] = True
    return _Crossed(probs, sim, checked, tuple(unchecked))


def _warnings(
    cross: _Crossed,
    labels: I64,
    pred: I64,
    shown: npt.NDArray[np.bool_],
    set_aside: tuple[int, ...],
) -> list[str]:
    """Plain-words advice from the cross-check (``pred``: each die's best guess as reading
    reads it, ``shown``: read without a `?`) and from the dice set aside."""
    out = []
    for face in cross.unchecked:
        out.append(
            f"motif {face} has a single frame, so it could not be checked: "
            f"add a second frame of {face}."
        )
    for a in range(len(FACES)):
        for b in range(a + 1, len(FACES)):
            mixed = cross.checked & (((labels == a) & (pred == b)) | ((labels == b) & (pred == a)))
            sure = int(np.sum(mixed & shown))
            if sure or int(mixed.sum()) >= 2:
                n_mixed = int(mixed.sum())
                out.append(
                    f"motifs {FACES[a]} and {FACES[b]} look alike on this set: {n_mixed} "
                    f"{'die was' if n_mixed == 1 else 'dice were'} "
                    f"taken for the other with their frame left out ({sure} of them without a ?); "
                    "add a frame "
                    "of each, in other light or with the dice turned another way."
                )
    for k, face in enumerate(FACES):
        odd = set_aside[k]
        if odd:
            what = "die that does" if odd == 1 else "dice that do"
            out.append(
                f"the frames of {face} hold {odd} {what} not look like the others there (another "
                "motif, or not dice) and were left out: "
                f"check that every die in folder {face} shows {face}, "
                "and take away anything that is not a die."
            )
    return out


def _threshold(wrong_conf: F32, checked: int) -> float:
    """The `?` limit from the cross-check's wrong reads (those the distance limit lets through).

    Leaving a frame out halves what a profile knows of that frame's motif,
    so the cross-check is harder than reading will be: the limit lets
    through at most SILENT_SHARE of its dice wrong, and is never below
    MIN_THRESHOLD.
    """
    allowed = int(SILENT_SHARE * checked)
    worst = np.sort(wrong_conf)[::-1]
    limit = float(worst[allowed]) + 0.005 if len(worst) > allowed else 0.0
    return float(min(max(MIN_THRESHOLD, limit), 0.995))


def _limits(
    conf: F32,
    pred: I64,
    labels: I64,
    wrong: npt.NDArray[np.bool_],
    checked: int,
    floor: float = MIN_THRESHOLD,
) -> F64:
    """The `?` limit of each motif read, from the cross-check's wrong reads.

    The same wrong reads as _threshold's set them, but each only for the two
    motifs it mixed up (the one read and the right one): a motif no die was
    taken for, nor taken for another, is read down to MIN_THRESHOLD. One limit
    for all, set by the one pair a set confuses (a staggered 3 read 2), left
    most of the `?` on our held-out drawing families on dice read right
    (docs/vision.md, Enrolment).
    """
    allowed = int(SILENT_SHARE * checked)
    worst = np.sort(conf[wrong])[::-1]
    # Wrong reads at or below this confidence must stay under the limit; the `allowed`
    # most confident ones may pass, as with _threshold.
    cut = float(worst[allowed]) if len(worst) > allowed else -1.0
    counted = wrong & (conf <= cut)
    out = np.full(len(FACES), floor)
    for k in range(len(FACES)):
        mixed = conf[counted & ((pred == k) | (labels == k))]
        if len(mixed):
            out[k] = min(max(floor, float(mixed.max()) + 0.005), 0.995)
    return out


def fit_profile(
    classifier: FaceClassifier, crops: npt.NDArray[np.uint8], labels: I64, frames: I64 | None = None
) -> Profile:
    """Fit a profile on labelled crops of a table's own dice; ``frames`` says which frame each came
    from."""
    counts = tuple(int(c) for c in np.bincount(labels, minlength=len(FACES)))
    missing = [f for f, c in zip(FACES, counts, strict=True) if c == 0]
    if missing:
        raise EnrolmentError(
            f"no die found for face(s) {', '.join(missing)}; every face needs at least one die"
        )
    frames = np.arange(len(labels)) if frames is None else np.asarray(frames, np.int64)
    logits, rot = rotation_run(classifier, crops)
    # the model's doubt that a find is a die comes from the die as the camera sees it, for
    # both profiles
    not_die = classifier.motif_probabilities(logits)[1]
    digest = model_digest(classifier.path)
    profile = profile_from(rot, labels, frames, digest, not_die, crops)
    if profile.check is None or profile.check.dice == 0:
        return profile
    if profile.check.right / profile.check.dice > 1.0 - VIEW_GAIN:
        return profile  # no view can be clearly better: spare the enrolment its time
    for view in _views(crops):
        seen = view.apply(crops)
        viewed = profile_from(
            rotation_run(classifier, seen)[1], labels, frames, digest, not_die, seen
        )
        if _clearly_better(viewed, profile):
            return replace(profile, ink=replace(viewed, view=view))
    return profile


def _views(crops: npt.NDArray[np.uint8]) -> Iterator[views.View]:
    """The views a second profile may read a table's dice in, the first clearly better one
    kept: its ink (session 62's), then how yellow it is. The yellow view is tried only where
    the ink is not clearly better: on fresh tables where it replaced a clearly better ink it
    gained as often as it lost, and where there was none it gained (docs/vision.md, 64)."""
    ink = InkView.fit(crops)
    if ink is not None:
        yield ink
    yield ColourView()


def _clearly_better(viewed: Profile, plain: Profile) -> bool:
    """Whether a profile's cross-check reads clearly more dice right than another's, without
    reading more than VIEW_WRONG more of them wrong."""
    a, b = viewed.check, plain.check
    if a is None or b is None or a.dice == 0 or b.dice == 0:
        return False
    return bool(
        a.right / a.dice >= b.right / b.dice + VIEW_GAIN - 1e-9
        and a.dice - a.right - a.unsure <= b.dice - b.right - b.unsure + VIEW_WRONG
    )


def profile_from(
    rot: F32,
    labels: I64,
    frames: I64,
    model: str,
    not_die: F32 | None = None,
    crops: npt.NDArray[np.uint8] | None = None,
) -> Profile:
    """A profile from the dice of every face at their four right angles (4, N, D), their motif
    and frame; ``model`` is the digest of the model that embedded them, ``not_die`` its
    probability that each is no die (the doubt floor without it), ``crops`` the dice
    themselves (no pixel templates without them)."""
    counts = tuple(int(c) for c in np.bincount(labels, minlength=len(FACES)))
    # A die finder may also pick up a stone, a card or a die of another motif
    # in an enrolment frame: it fits its folder's motif badly, so it is set
    # aside, unless that would set aside a fifth of the motif's dice.
    w, b, protos = _fit(rot, labels)
    full = Profile(w, b, protos, 0.0, -1.0, "", counts)
    p, _ = full.read(rot)
    keep = p[np.arange(len(labels)), labels] >= 0.05
    # ... or it lies far from the other dice of its folder (a blank card, a stone).
    sim = full.similarity(rot, labels)
    for k in range(len(FACES)):
        mine = labels == k
        med = float(np.median(sim[mine]))
        spread = float(np.median(np.abs(sim[mine] - med)))
        keep &= ~mine | (sim >= med - max(OUTLIER_GAP, 6 * spread))
    for k in range(len(FACES)):
        if (~keep[labels == k]).sum() > 0.2 * counts[k]:
            keep[labels == k] = True
    set_aside = ~keep
    aside_counts = tuple(int(c) for c in np.bincount(labels[set_aside], minlength=len(FACES)))
    doubt = DOUBT_FLOOR
    pixels = None
    pixel_cross = None
    if not_die is not None and keep.any():
        doubt = max(DOUBT_FLOOR, float(np.quantile(not_die[keep], DOUBT_QUANTILE)))
    if crops is not None:  # the dice set aside are no template either
        pixels, pixel_cross = PixelTemplates.fit_checked(
            crops[keep], labels[keep], frames[keep], len(FACES)
        )
    if set_aside.any():
        rot, labels, frames = rot[:, keep], labels[keep], frames[keep]
        counts = tuple(int(c) for c in np.bincount(labels, minlength=len(FACES)))
        w, b, protos = _fit(rot, labels)
    cross = _cross_check(rot, labels, frames)
    conf = cross.probs.max(axis=1)
    wrong = cross.checked & (cross.probs.argmax(axis=1) != labels)
    # The distance limit: as far from its prototype as the least typical
    # enrolled die read right with its frame left out, and a little more.
    ok = cross.checked & ~wrong
    min_sim = float(cross.similarity[ok].min()) - DISTANCE_SLACK if ok.any() else -1.0
    counted = wrong & (cross.similarity >= min_sim)
    fused_limits: tuple[float, ...] = ()
    if pixel_cross is not None:
        # The fused read's own limits, from the same cross-check read as reading will read it:
        # the head and the pixels, each without the left-out frame, fused.
        fused = fuse(cross.probs, pixel_cross, PIXEL_WEIGHT)
        f_conf, f_pred = fused.max(axis=1), fused.argmax(axis=1)
        f_wrong = cross.checked & (f_pred != labels) & (cross.similarity >= min_sim)
        checked = int(cross.checked.sum())
        fused_limits = tuple(
            float(v) for v in _limits(f_conf, f_pred, labels, f_wrong, checked, FUSED_FLOOR)
        )
    threshold = _threshold(conf[counted], int(cross.checked.sum()))
    own = cross.checked
    pred = cross.probs.argmax(axis=1)
    limits = _limits(conf, pred, labels, counted, int(cross.checked.sum()))
    profile = Profile(
        w,
        b,
        protos,
        threshold,
        min_sim,
        model,
        counts,
        None,
        (),
        tuple(float(v) for v in limits),
        doubt,
        pixels,
        PIXEL_WEIGHT if fused_limits else 0.0,
        fused_limits,
    )
    # The self-check reads each left-out frame as reading will: the head, then what the
    # pixels (of the other frames) settle or hold back, and the fused read.
    read_probs = cross.probs.copy()
    read_limit = limits[pred].astype(np.float64)
    if pixel_cross is not None:
        similar = (pixel_cross, pixel_cross.max(axis=1))
        settle(read_probs, read_limit, profile.pixel_reads_from(similar, cross.probs))
    read = read_probs.argmax(axis=1)
    shown = (read_probs.max(axis=1) >= read_limit) & (cross.similarity >= min_sim)
    confusion = np.zeros((len(FACES), len(FACES) + 1), np.int64)
    for y, pr, s in zip(labels[own], read[own], shown[own], strict=True):
        confusion[y, pr if s else len(FACES)] += 1
    check = SelfCheck(
        int(own.sum()),
        int(np.trace(confusion[:, : len(FACES)])),
        int(confusion[:, -1].sum()),
        tuple(tuple(int(v) for v in r) for r in confusion),
        cross.unchecked,
    )
    warnings = _warnings(cross, labels, read, shown, aside_counts)
    return replace(profile, check=check, warnings=tuple(warnings))


class _Found(Protocol):
    @property
    def corners(self) -> npt.ArrayLike: ...


Finder = Callable[[npt.NDArray[np.uint8]], Sequence[_Found]]


def _default_finder() -> Finder:
    """The finder `vision read` uses by default: enrolment cuts the dice as reading will."""
    return make_finder(DEFAULT_FINDER)


@dataclass
class Enrolment:
    """The dice of an enrolment folder: crops, their motif and the frame each came from."""

    crops: npt.NDArray[np.uint8]
    labels: I64
    frames: I64
    frames_per_face: dict[str, int]


def collect(folder: str | Path, finder: Finder | None = None) -> Enrolment:
    """Crops and labels of every die in DIR/<face>/*.png|jpg, and the frame of each."""
    root = Path(folder)
    if root.exists() and not root.is_dir():
        raise EnrolmentError(
            f"{root} is a file; enrolment needs a folder of folders {'/'.join(FACES)}"
        )
    if not root.is_dir():
        raise EnrolmentError(f"enrolment folder {root} does not exist")
    missing = [face for face in FACES if not (root / face).is_dir()]
    if missing:  # before any frame is read: the whole layout is wrong, not one frame
        raise EnrolmentError(
            f"{root} has no folder {', '.join(missing)}; enrolment needs folders "
            f"{', '.join(FACES)}, one for each motif"
        )
    find = finder or _default_finder()
    crops: list[npt.NDArray[np.uint8]] = []
    labels: list[int] = []
    frame_ids: list[int] = []
    frames: dict[str, int] = {}
    frame_no = 0
    for k, face in enumerate(FACES):
        sub = root / face
        try:
            files = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        except OSError as exc:
            raise EnrolmentError(f"cannot read the folder {sub}: {exc.strerror or exc}") from None
        if not files:
            raise EnrolmentError(
                f"{sub} holds no PNG or JPEG frames; enrolment needs folders {', '.join(FACES)}"
            )
        frames[face] = len(files)
        for path in files:
            try:
                image = load_image(path)
            except ImageFileError as exc:
                raise EnrolmentError(str(exc)) from None
            found = [d for d in find(image) if getattr(d, "clean", True)]
            batch = cut_faces(image, [d.corners for d in found])
            crops.extend(batch)
            labels.extend([k] * len(batch))
            frame_ids.extend([frame_no] * len(batch))
            frame_no += 1
    if not crops:
        raise EnrolmentError(f"no dice were found in the frames under {root}")
    return Enrolment(
        np.stack(crops), np.asarray(labels, np.int64), np.asarray(frame_ids, np.int64), frames
    )


def check_out(out: Path) -> None:
    """The profile folder can be written: it is a folder or can be made in one we may write."""
    if out.exists() and not out.is_dir():
        raise EnrolmentError(f"{out} is a file; --out names the folder the profile is written to")
    base = next((p for p in (out, *out.parents) if p.exists()), None)
    if base is None or not base.is_dir():
        raise EnrolmentError(f"cannot write the profile to {out}: {base} is not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise EnrolmentError(f"cannot write the profile to {out}: {base} may not be written")


def enroll(
    folder: str | Path,
    out: str | Path,
    *,
    model: str | Path | None = None,
    finder: Finder | None = None,
) -> Profile:
    """`companion vision enroll DIR --out PROFILE`: fit and save a profile."""
    check_out(Path(out))  # before minutes of work, not after
    try:
        classifier = FaceClassifier(model if model is not None else default_enrol_model_path())
    except ModelError as exc:
        raise EnrolmentError(str(exc)) from None
    if finder is None and classifier.knows_non_dice:
        # cut the dice `vision read` will read: the learned finder's candidates judged by the
        # face model (judged.py), before any profile exists
        from companion.vision.judged import judged_finder

        finder = judged_finder(classifier)
    found = collect(folder, finder)
    profile = fit_profile(classifier, found.crops, found.labels, found.frames)
    profile.save(out)
    return profile


def load_reader(
    profile: str | Path | None = None, model: str | Path | None = None, *, threads: int = 2
) -> FaceClassifier:
    """The face reader, adapted by a profile folder when one is given.

    Raises ModelError or EnrolmentError, each with a one-sentence message.
    """
    if profile is None:
        return FaceClassifier(model, threads=threads)
    # A profile reads with the embedding it was fitted on (the enrolment model by default).
    classifier = FaceClassifier(
        model if model is not None else default_enrol_model_path(), threads=threads
    )
    classifier.profile = Profile.load(profile, classifier)
    return classifier
