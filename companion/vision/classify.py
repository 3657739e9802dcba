"""Read the faces of dice: the shipped ONNX model, calibrated, batched.

One batch per frame: every die's crop goes through the network at once. The
network's logits are divided by a temperature fitted on validation styles,
and a die whose calibrated confidence is below the threshold chosen on
validation styles and drawing families (so that art the model never saw
reads `?` rather than a guess) is read as `?`; a die whose embedding lies
among the training styles' dice (KnownArt) has the lower limit of known art
instead. A die of any other art that one view would read as a motif is
looked at again at every right angle, and reads `?` unless all the views
read that motif (`look_again`). With an enrolment profile the
profile reads instead, from the network's embedding of each crop at its four
right angles (companion.vision.enroll).

A model may have a sixth class, "not a die" (NOT_A_DIE): a square a fooled
die finder cut out of grid paper, a tiled mat or a printed marker. Motif
confidences are then the six-way probabilities of each motif, so doubt about
being a die at all lowers them, and a crop whose not-a-die probability
reaches the model's `not_die_threshold` (chosen on validation renders so that
no real die reaches it) is flagged `not_die`, for the reader to drop.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from companion.paths import shipped_model
from companion.vision.crop import CROP_SIZE, cut_faces
from companion.vision.onnx_session import cpu_session
from companion.vision.pixel_templates import PixelReads, settle
from companion.vision.views import View

FACES = ("I", "1", "2", "3", "E")
NOT_A_DIE = "-"  # the sixth class of a model that knows non-dice; never reported as a face
UNKNOWN = "?"
#: Right angles a profile read embeds each crop at. The embedding is trained to be
#: the same at every right angle, so two views cost little: on jade 95.3 % right
#: against 95.6 % with four, no silent error either way; one view cost 2.3 points and
#: 0.4 % silent on a checkpoint of the same run (docs/vision.md). Two views halve the
#: network time of four.
READ_ROTATIONS = 2
#: Right angles the model alone looks at a die of art it does not know (beyond known art's
#: distance) that one view would read as a motif: `?` unless every view reads that motif and
#: their mean probability passes the die's limit. On art it never saw the network is not as
#: sure of itself at every angle as on the art it was taught; known art keeps one view, so
#: reading our own styles costs no more (models/MODEL_CARD.md, fifth round).
UNKNOWN_ART_VIEWS = 4
#: With a profile, a find the model gives this share of the table's doubt (Profile.doubt) or
#: more of being no die reads `?` if its pixels are like none of the enrolled dice
#: (docs/vision.md, session 25: phantoms given a motif on printed squares).
WARY_SHARE = 0.6
MODEL_ENV = "COMPANION_MODEL"
F32 = npt.NDArray[np.float32]


class ModelError(Exception):
    """The face model is missing, unreadable or not a face model."""


class ProfileHead(Protocol):
    """What reading needs of an enrolment profile (enroll.Profile)."""

    def limit(self, best: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        """The `?` limit of each die, given the motif it looks most like."""
        ...

    def read(self, rot_emb: F32) -> tuple[F32, npt.NDArray[np.bool_]]:
        """Probabilities (N, 5) from embeddings at right angles (R, N, D), and the dice unlike any
        motif."""
        ...

    def foreign(self, rot_emb: F32) -> npt.NDArray[np.bool_]:
        """The dice unlike every enrolled motif by far: no die of this table."""
        ...

    def pixel_foreign(self, crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
        """Which crops look, by their pixels, like none of the table's dice by far."""
        ...

    def pixel_reads(self, crops: npt.NDArray[np.uint8], probs: F32) -> PixelReads:
        """What the enrolled dice's pixels say of crops with head probabilities ``probs``:
        which they confirm, which they object to, and (a profile that fuses) the fused read."""
        ...

    @property
    def view(self) -> View | None:
        """How the table's dice are redrawn before this profile reads them (a second
        profile's; None: as seen)."""
        ...

    @property
    def ink(self) -> ProfileHead | None:
        """A second profile that reads the dice redrawn (its view), beside this one."""
        ...

    @property
    def doubt(self) -> float:
        """The model's not-a-die probability from which a find is doubted: it reads `?` (unless
        the head and pixels read as one decide it), and is dropped if also foreign (a die of a
        set left out of enrolment that the model knows for a die stays `?`)."""
        ...


ENROL_MODEL_ENV = "COMPANION_ENROL_MODEL"
#: Crops the network sees at once: the activations of a batch take ~1.5 MB a crop, so 256
#: keep a read of any size within a few hundred MB on a 4 GB Pi.
RUN_BATCH = 256


def default_model_path() -> Path:
    """COMPANION_MODEL if set, else models/faces.onnx of this checkout."""
    return shipped_model(MODEL_ENV, "faces.onnx")


def default_enrol_model_path() -> Path:
    """The model whose embedding profiles are fitted on and read with.

    COMPANION_ENROL_MODEL if set (to try another embedding); else the shipped
    model: since issue 13's second round one model, trained on many drawing
    families, reads alone and embeds for profiles (models/MODEL_CARD.md).
    """
    if os.environ.get(ENROL_MODEL_ENV, "").strip():
        return shipped_model(ENROL_MODEL_ENV, "faces.onnx")
    return default_model_path()


def softmax(logits: F32) -> F32:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


@dataclass(frozen=True)
class FaceReading:
    face: str  # one of FACES, or "?" when not confident enough
    confidence: float  # calibrated probability of the best face
    best: str  # the best face even when reported as "?"
    # the model is sure this crop holds no die, or a profile finds it unlike the table's
    # dice by far and the model has some doubt (the reader drops it)
    not_die: bool = False
    not_die_p: float = 0.0  # its probability that the crop holds no die (0 without the class)


@dataclass(frozen=True)
class Calibration:
    temperature: float
    threshold: float


@dataclass(frozen=True)
class KnownArt:
    """Where the dice of the training styles lie in the network's embedding.

    One `?` limit cannot serve both kinds of dice: art the model never saw
    needs a high one (it can be confidently wrong there), the drawings it was
    taught need a low one (a high limit flagged 3-4 % of our held-out styles).
    A die whose normalised embedding lies within `distance` (squared
    Mahalanobis, shared covariance) of the mean of its best motif on the
    training styles is of known art and reads `?` only below `threshold`;
    every other die keeps the model's own limit. Both are chosen on
    validation renders by models/calibrate_faces.py.

    `margins` (optional, per motif; None where a motif has none): a die NOT
    within `distance` whose embedding lies nearly as near another motif's
    mean as its best one's (the ratio of the two squared distances above the
    motif's margin) reads `?` whatever its confidence: art the model never
    saw, read as a motif it barely prefers. Chosen on validation families by
    models/calibrate_faces.py --margins (models/MODEL_CARD.md: not shipped).
    """

    means: F32  # (5, D) mean normalised embedding of each motif
    precision: F32  # (D, D) inverse of their shared covariance
    distance: float
    threshold: float
    margins: tuple[float | None, ...] | None = None

    def distances(self, emb: F32, best: npt.NDArray[np.intp]) -> F32:
        """Squared Mahalanobis distance of each embedding (N, D) to its best motif's mean."""
        z = normalise(emb) - self.means[best]
        return np.asarray(np.einsum("ij,jk,ik->i", z, self.precision, z), np.float32)

    def all_distances(self, emb: F32) -> F32:
        """Squared Mahalanobis distance of each embedding (N, D) to every motif's mean (N, 5)."""
        z = normalise(emb)[:, None, :] - self.means[None, :, :]
        return np.asarray(np.einsum("nkj,jl,nkl->nk", z, self.precision, z), np.float32)

    def ratios(self, emb: F32, best: npt.NDArray[np.intp]) -> F32:
        """Distance to the best motif's mean over the distance to the nearest other motif's
        mean (N,): near 0 deep inside the best motif's dice, near 1 between two motifs."""
        d = self.all_distances(emb)
        own = d[np.arange(len(d)), best]
        d[np.arange(len(d)), best] = np.inf
        return np.asarray(own / np.maximum(d.min(axis=1), 1e-12), np.float32)

    def ambiguous(self, emb: F32, best: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        """Dice of art the model does not know (beyond `distance`) whose embedding lies too
        near another motif's mean (ratio above their best motif's margin)."""
        out = np.zeros(len(emb), bool)
        if self.margins is None or not len(emb):
            return out
        limit = np.array([np.inf if m is None else m for m in self.margins], np.float64)
        far = self.distances(emb, best) > self.distance
        if far.any():
            out[far] = self.ratios(emb[far], best[far]) > limit[best[far]]
        return out

    def to_json(self) -> str:
        d: dict[str, object] = {
            "means": np.round(self.means, 6).tolist(),
            "precision": [[float(f"{v:.6g}") for v in row] for row in self.precision],
            "distance": self.distance,
            "threshold": self.threshold,
        }
        if self.margins is not None:
            d["margins"] = list(self.margins)
        return json.dumps(d, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> KnownArt:
        d = json.loads(text)
        means = np.asarray(d["means"], np.float32)
        precision = np.asarray(d["precision"], np.float32)
        if (
            means.ndim != 2
            or means.shape[0] != len(FACES)
            or precision.shape
            != (
                means.shape[1],
                means.shape[1],
            )
        ):
            raise ValueError("known_art has the wrong shapes")
        margins = d.get("margins")
        if margins is not None:
            if not isinstance(margins, list) or len(margins) != len(FACES):
                raise ValueError("known_art's margins need one value (or null) per motif")
            margins = tuple(None if m is None else float(m) for m in margins)
        return cls(means, precision, float(d["distance"]), float(d["threshold"]), margins)


def open_classifier(
    path: Path,
    what: str,
    classes: tuple[str, ...],
    *,
    env: str,
    script: str,
    threads: int,
    extra: tuple[str, ...] = (),
) -> tuple[Any, dict[str, str]]:
    """An ONNX classifier and its metadata, checked to carry ``classes`` (optionally followed by
    ``extra``) and a calibration (temperature, threshold); ModelError with one sentence
    otherwise."""
    if not path.is_file():
        raise ModelError(f"{what} model not found at {path} (set {env} to its path)")
    try:
        session = cpu_session(path, threads)
        meta = dict(session.get_modelmeta().custom_metadata_map)
        found = tuple(meta["classes"].split(","))
        float(meta["temperature"]), float(meta["threshold"])
    except KeyError as exc:
        raise ModelError(
            f"{what} model {path} lacks its calibration ({exc.args[0]}); rebuild it with {script}"
        ) from None
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelError(
            f"{what} model {path} cannot be loaded: {str(exc).splitlines()[0]}"
        ) from None
    if found != classes and not (extra and found == classes + extra):
        raise ModelError(f"{what} model {path} has classes {found}, expected {classes}")
    return session, meta


class FaceClassifier:
    """The face model, loaded once; call `read` or `classify` per frame."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        profile: ProfileHead | None = None,
        threads: int = 2,
    ) -> None:
        self.path = Path(path) if path is not None else default_model_path()
        self._session, meta = open_classifier(
            self.path,
            "face",
            FACES,
            env=MODEL_ENV,
            script="models/train_faces.py",
            threads=threads,
            extra=(NOT_A_DIE,),
        )
        self.calibration = Calibration(float(meta["temperature"]), float(meta["threshold"]))
        self.knows_non_dice = meta["classes"].split(",")[-1] == NOT_A_DIE
        outputs = self._session.get_outputs()
        if len(outputs) != 2:  # run() reads logits and the embedding
            raise ModelError(
                f"face model {self.path} gives {len(outputs)} outputs, not logits and an "
                "embedding; rebuild it with models/train_faces.py"
            )
        width = outputs[0].shape[-1]
        if isinstance(width, int) and width != len(FACES) + self.knows_non_dice:
            raise ModelError(
                f"face model {self.path} gives {width} outputs for "
                f"{len(FACES) + self.knows_non_dice} "
                "classes; rebuild it with models/train_faces.py"
            )
        # Without a chosen limit nothing is dropped: a real die must never be.
        self.not_die_threshold = (
            float(meta.get("not_die_threshold", "2")) if self.knows_non_dice else 2.0
        )
        try:
            self.known = KnownArt.from_json(meta["known_art"]) if "known_art" in meta else None
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelError(
                f"face model {self.path} has a damaged known_art calibration ({exc}); "
                "run models/calibrate_faces.py again"
            ) from None
        self._input = self._session.get_inputs()[0].name
        self.profile = profile

    def run(self, crops: npt.NDArray[np.uint8]) -> tuple[F32, F32]:
        """Raw logits (N, 5), or (N, 6) with not-a-die last, and embeddings (N, D) of a batch of
        crops."""
        if crops.ndim != 4 or crops.shape[1:] != (CROP_SIZE, CROP_SIZE, 3):
            raise ValueError(f"crops must have shape (N, {CROP_SIZE}, {CROP_SIZE}, 3)")
        if len(crops) == 0:
            return np.zeros((0, len(FACES) + self.knows_non_dice), np.float32), np.zeros(
                (0, 0), np.float32
            )
        if len(crops) > RUN_BATCH:  # memory bounded: enrolment runs every die at 4 angles
            parts = [self.run(crops[i : i + RUN_BATCH]) for i in range(0, len(crops), RUN_BATCH)]
            return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        logits, emb = self._session.run(None, {self._input: crops.astype(np.float32)})
        return np.asarray(logits, np.float32), np.asarray(emb, np.float32)

    def motif_probabilities(self, logits: F32) -> tuple[F32, F32]:
        """Calibrated probabilities of the five motifs (N, 5) and of "not a die" (N,; 0 if the model
        has no such class)."""
        p = softmax(logits / self.calibration.temperature)
        not_die = p[:, len(FACES)] if self.knows_non_dice else np.zeros(len(p), np.float32)
        return np.ascontiguousarray(p[:, : len(FACES)]), np.asarray(not_die, np.float32)

    def thresholds(self, probs: F32, emb: F32) -> npt.NDArray[np.float64]:
        """The `?` limit of each die read by the model alone: the model's own, or the lower limit
        of known art for a die that lies among the training styles' dice (KnownArt), or one no
        probability reaches for unknown art that lies between two motifs (KnownArt.margins)."""
        limit = np.full(len(probs), self.calibration.threshold, np.float64)
        if self.known is not None and len(probs):
            best = probs.argmax(axis=1)
            near = self.known.distances(emb, best) <= self.known.distance
            limit[near] = min(self.known.threshold, self.calibration.threshold)
            limit[self.known.ambiguous(emb, best)] = np.inf
        return limit

    def probabilities(
        self, crops: npt.NDArray[np.uint8]
    ) -> tuple[F32, npt.NDArray[np.float64], npt.NDArray[np.bool_], F32]:
        """Calibrated probabilities (N, 5), the threshold that applies to each (a profile's:
        that of the motif it reads), dice unlike any motif, and each crop's probability of
        being no die at all."""
        probs, limit, unlike, not_die_p, _ = self._probabilities(crops)
        return probs, limit, unlike, not_die_p

    def _probabilities(
        self, crops: npt.NDArray[np.uint8]
    ) -> tuple[F32, npt.NDArray[np.float64], npt.NDArray[np.bool_], F32, npt.NDArray[np.bool_]]:
        """:meth:`probabilities`, and which crops to drop as no die: the model is sure of it, or
        (with a profile) it is unlike the table's dice and the model has some doubt."""
        if self.profile is not None:
            logits, rot_emb = rotation_run(self, crops, READ_ROTATIONS)
            out = self._profile_read(self.profile, crops, logits, rot_emb)
            ink = self.profile.ink
            if ink is not None and ink.view is not None:
                # the table's dice redrawn (as ink, or as yellow), read by the profile fitted
                # on them; the model's doubt that each is a die stays that of the die as seen
                seen = ink.view.apply(crops)
                inked = self._profile_read(
                    ink, seen, logits, rotation_run(self, seen, READ_ROTATIONS)[1]
                )
                out = _either(out, inked)
            return out
        logits, emb = self.run(crops)
        probs, not_die = self.motif_probabilities(logits)
        limit = self.thresholds(probs, emb)
        self.look_again(crops, probs, limit, emb, not_die < self.not_die_threshold)
        return probs, limit, np.zeros(len(crops), bool), not_die, not_die >= self.not_die_threshold

    def _profile_read(
        self, profile: ProfileHead, crops: npt.NDArray[np.uint8], logits: F32, rot_emb: F32
    ) -> tuple[F32, npt.NDArray[np.float64], npt.NDArray[np.bool_], F32, npt.NDArray[np.bool_]]:
        """:meth:`_probabilities` of a profile, from the model's logits of the dice as seen and
        the embeddings of the crops it reads."""
        probs, unlike = profile.read(rot_emb)
        not_die_p = self.motif_probabilities(logits)[1]
        doubted = not_die_p >= profile.doubt
        drop = (not_die_p >= self.not_die_threshold) | (profile.foreign(rot_emb) & doubted)
        limit = np.asarray(profile.limit(probs.argmax(axis=1)), np.float64)
        # the head has only seen dice: a find the model doubts is no motif it may vouch for
        limit[doubted] = np.inf
        # ... but the head and the enrolled dice's pixels read as one may, where the pixels
        # decide (a set they read well, a die drawn like the enrolled ones) and that read
        # passes its own limit (at least DECIDE_FLOOR)
        doubted_seen = np.flatnonzero(doubted & ~unlike & ~drop)
        if len(doubted_seen):
            px = profile.pixel_reads(crops[doubted_seen], probs[doubted_seen])
            if px.fused is not None and px.fused_limit is not None and px.decides is not None:
                ok = px.decides & (px.fused.max(axis=1) >= px.decide_limit)
                probs[doubted_seen[ok]] = px.fused[ok]
                limit[doubted_seen[ok]] = px.decide_limit[ok]
        # The enrolled dice's pixels, an independent read (pixel_templates.settle): a die
        # too unsure for the head alone reads its best guess when they name the same motif,
        # a die the head reads reads `?` when they name another by a wide margin; and a
        # profile since session 29 also asks the head and the pixels read as one.
        seen = np.flatnonzero(np.isfinite(limit) & ~unlike & ~drop)
        if len(seen):
            px = profile.pixel_reads(crops[seen], probs[seen])
            seen_probs, seen_limit = probs[seen], limit[seen]
            settle(seen_probs, seen_limit, px)
            probs[seen], limit[seen] = seen_probs, seen_limit
        # A find the model has some doubt about, if less than the table's, whose pixels
        # are like none of the enrolled dice's: a marker or a grid cell more often than a
        # die, so `?` (never left out: an unenrolled set's die looks so too).
        wary = np.flatnonzero(
            (not_die_p >= WARY_SHARE * profile.doubt) & np.isfinite(limit) & ~drop
        )
        if len(wary):
            limit[wary[profile.pixel_foreign(crops[wary])]] = np.inf
        return probs, limit, unlike, not_die_p, drop

    def look_again(
        self,
        crops: npt.NDArray[np.uint8],
        probs: F32,
        limit: npt.NDArray[np.float64],
        emb: F32,
        dice: npt.NDArray[np.bool_],
    ) -> None:
        """Look again at UNKNOWN_ART_VIEWS right angles at each of ``dice`` that one view reads as a
        motif but whose art lies beyond known art's distance; in place, its probabilities become
        the views' mean and its limit one no probability reaches unless every view reads the
        same motif."""
        if self.known is None or UNKNOWN_ART_VIEWS < 2 or not len(probs):
            return
        best = probs.argmax(axis=1)
        far = self.known.distances(emb, best) > self.known.distance
        idx = np.flatnonzero(far & dice & (probs.max(axis=1) >= limit))
        if not len(idx):
            return
        turned = np.concatenate(
            [np.rot90(crops[idx], k, axes=(1, 2)) for k in range(1, UNKNOWN_ART_VIEWS)]
        )
        more = self.motif_probabilities(self.run(np.ascontiguousarray(turned))[0])[0]
        views = np.concatenate([probs[idx][None], more.reshape(-1, len(idx), len(FACES))])
        same = np.all(views.argmax(axis=2) == best[idx], axis=0)
        probs[idx] = views.mean(axis=0)
        limit[idx[~same]] = np.inf

    def classify(self, crops: npt.NDArray[np.uint8]) -> list[FaceReading]:
        """Read a batch of crops (N, 64, 64, 3) uint8 BGR."""
        if len(crops) == 0:
            return []
        probs, threshold, unlike, not_die_p, not_die = self._probabilities(crops)
        best = probs.argmax(axis=1)
        out = []
        for i, k in enumerate(best):
            conf = float(probs[i, k])
            sure = conf >= float(threshold[i]) and not unlike[i] and not not_die[i]
            face = FACES[k] if sure else UNKNOWN
            out.append(FaceReading(face, conf, FACES[k], bool(not_die[i]), float(not_die_p[i])))
        return out

    def read(
        self, image_bgr: npt.NDArray[np.uint8], corners: Sequence[npt.ArrayLike]
    ) -> list[FaceReading]:
        """Read every die of a frame given the corners of each top face."""
        return self.classify(cut_faces(image_bgr, corners))


def _either(
    plain: tuple[F32, npt.NDArray[np.float64], npt.NDArray[np.bool_], F32, npt.NDArray[np.bool_]],
    inked: tuple[F32, npt.NDArray[np.float64], npt.NDArray[np.bool_], F32, npt.NDArray[np.bool_]],
) -> tuple[F32, npt.NDArray[np.float64], npt.NDArray[np.bool_], F32, npt.NDArray[np.bool_]]:
    """Two reads of the same dice: a die one of them reads and the other reads `?` takes the
    read; a die they read as two motifs reads `?`; which dice are no die, the plain read says."""
    probs, limit, unlike, not_die_p, drop = plain
    probs, limit, unlike = probs.copy(), limit.copy(), unlike.copy()
    p_v, lim_v, unl_v = inked[0], inked[1], inked[2]
    sure = (probs.max(axis=1) >= limit) & ~unlike
    sure_v = (p_v.max(axis=1) >= lim_v) & ~unl_v & ~inked[4]
    take = ~sure & sure_v & ~drop
    probs[take], limit[take], unlike[take] = p_v[take], lim_v[take], False
    limit[sure & sure_v & (probs.argmax(axis=1) != p_v.argmax(axis=1))] = np.inf
    return probs, limit, unlike, not_die_p, drop


def normalise(emb: F32) -> F32:
    """Each embedding at unit length."""
    return np.asarray(emb / (np.linalg.norm(emb, axis=-1, keepdims=True) + 1e-6), np.float32)


def with_rotations(crops: npt.NDArray[np.uint8], rotations: int = 4) -> npt.NDArray[np.uint8]:
    """Each crop at 0, 90, 180 and 270 degrees (the first `rotations` of them): (RN, ...),
    rotation-major."""
    if rotations == 1:
        return crops
    return np.ascontiguousarray(
        np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(rotations)])
    )


def rotation_run(
    classifier: FaceClassifier, crops: npt.NDArray[np.uint8], rotations: int = 4
) -> tuple[F32, F32]:
    """Logits of the crops as they are (N, C), and normalised embeddings at `rotations` right
    angles (R, N, D)."""
    logits, emb = classifier.run(with_rotations(crops, rotations))
    return logits[: len(crops)], normalise(emb.reshape(rotations, len(crops), -1))


def rotation_embeddings(
    classifier: FaceClassifier, crops: npt.NDArray[np.uint8], rotations: int = 4
) -> F32:
    """Normalised embeddings of every crop at its right angles: (R, N, D), four unless told."""
    return rotation_run(classifier, crops, rotations)[1]
