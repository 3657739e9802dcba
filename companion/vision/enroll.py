"""Enrolment: adapt the reader to a table's own dice without any training framework.

The shipped network stays as it is; what adapts is a small multinomial
logistic head fitted with numpy on the network's embeddings of the table's
dice (each crop also seen at the three other right angles, since a die may
lie any way round). The head is fitted on top of the shipped model's own
calibrated logits, as a correction to them: a few dozen enrolled dice refine
what the network says instead of replacing it (a head fitted alone threw away
what the network knows about motifs, and read more faces wrong). Its
temperature and `?` threshold are the ones chosen on validation styles by
simulating enrolment there (models/calibrate_faces.py), so silent errors stay
under 0.1 % with a profile too.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from companion.fileperm import private_dir, write_private
from companion.vision.classify import FACES, FaceClassifier, ModelError, softmax
from companion.vision.crop import cut_faces
from companion.vision.image_file import ImageFileError, load_image

F32 = npt.NDArray[np.float32]
PROFILE_FILE = "profile.npz"
META_FILE = "profile.json"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
# Profiles before this one held a head that replaced the network's: they mean
# something else and must be enrolled again.
HEAD_KIND = "correction"


class EnrolmentError(Exception):
    """Enrolment cannot proceed, or a profile cannot be read."""


def _normalise(emb: F32) -> F32:
    return np.asarray(emb / (np.linalg.norm(emb, axis=1, keepdims=True) + 1e-6), np.float32)


def model_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class Profile:
    """A fitted head on the network's embedding, for one table's dice."""

    weights: F32  # (D, 5)
    bias: F32  # (5,)
    temperature: float
    threshold: float
    model: str  # digest of the model the embeddings came from
    counts: tuple[int, ...]  # enrolled dice per face

    def logits(self, embeddings: F32, base_logits: F32) -> F32:
        """The shipped model's calibrated logits plus this table's correction."""
        return np.asarray(base_logits + _normalise(embeddings) @ self.weights + self.bias, np.float32)

    def probabilities(self, embeddings: F32, base_logits: F32) -> F32:
        return softmax(self.logits(embeddings, base_logits) / self.temperature)

    def save(self, folder: str | Path) -> None:
        """Write the profile folder (0700, files 0600); EnrolmentError with one sentence when it cannot."""
        out = Path(folder)
        if out.exists() and not out.is_dir():
            raise EnrolmentError(f"{out} is a file; --out names the folder the profile is written to")
        buf = io.BytesIO()
        np.savez(buf, weights=self.weights, bias=self.bias)
        meta = {"classes": list(FACES), "head": HEAD_KIND, "temperature": self.temperature, "threshold": self.threshold,
                "model": self.model, "counts": dict(zip(FACES, self.counts, strict=True))}
        try:
            private_dir(out)
            write_private(out / PROFILE_FILE, buf.getvalue())
            write_private(out / META_FILE, json.dumps(meta, indent=1) + "\n")
        except OSError as exc:
            raise EnrolmentError(f"cannot write the profile to {out}: {exc.strerror or exc}") from None

    @classmethod
    def load(cls, folder: str | Path, classifier: FaceClassifier | None = None) -> Profile:
        """Read a profile folder; with a classifier, check it was made for its model."""
        d = Path(folder)
        try:
            meta = json.loads((d / META_FILE).read_text())
            with np.load(d / PROFILE_FILE) as npz:
                weights, bias = np.asarray(npz["weights"], np.float32), np.asarray(npz["bias"], np.float32)
            prof = cls(weights, bias, float(meta["temperature"]), float(meta["threshold"]), str(meta["model"]),
                       tuple(int(meta["counts"][f]) for f in FACES))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EnrolmentError(f"cannot read the profile in {d}: {exc}") from None
        if meta.get("head") != HEAD_KIND:
            raise EnrolmentError(f"the profile in {d} was made by an older companion; enrol again")
        if tuple(meta["classes"]) != FACES or weights.shape[1:] != (len(FACES),) or bias.shape != (len(FACES),):
            raise EnrolmentError(f"the profile in {d} is not a face profile")
        if classifier is not None and prof.model != model_digest(classifier.path):
            raise EnrolmentError(f"the profile in {d} was made for another face model; enrol again")
        return prof


def fit_head(embeddings: F32, labels: npt.NDArray[np.int64], offset: F32 | None = None, *, l2: float = 1e-3,
             bias_l2: float = 0.1, steps: int = 300) -> tuple[F32, F32]:
    """Multinomial logistic regression on normalised embeddings (full-batch Adam).

    ``offset`` (N, 5) is added to the head's logits: the head learns what to
    change in them, not the faces from scratch. The bias is held near zero:
    free, it learnt the enrolment's share of each face (all equal), which a
    real roll does not have, and read more faces wrong on validation styles.
    """
    x = _normalise(embeddings).astype(np.float64)
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


def with_rotations(crops: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Each crop at 0, 90, 180 and 270 degrees."""
    return np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)])


def fit_profile(classifier: FaceClassifier, crops: npt.NDArray[np.uint8], labels: npt.NDArray[np.int64]) -> Profile:
    """Fit a profile on labelled crops of a table's own dice."""
    counts = tuple(int(c) for c in np.bincount(labels, minlength=len(FACES)))
    missing = [f for f, c in zip(FACES, counts, strict=True) if c == 0]
    if missing:
        raise EnrolmentError(f"no die found for face(s) {', '.join(missing)}; every face needs at least one die")
    logits, emb = classifier.run(with_rotations(crops))
    base = logits / classifier.calibration.temperature
    labels4 = np.tile(labels, 4)
    w, b = fit_head(emb, labels4, base)
    # A die finder may also pick up a stone or a card in an enrolment frame:
    # such a crop fits its folder's face badly, so it is dropped and the head
    # refitted, unless that would drop a fifth of a face's dice.
    n = len(labels)
    fit = softmax(base[:n] + _normalise(emb[:n]) @ w + b)[np.arange(n), labels]
    keep = fit >= 0.05
    for k in range(len(FACES)):
        if (~keep[labels == k]).sum() > 0.2 * counts[k]:
            keep[labels == k] = True
    if not keep.all():
        keep4 = np.tile(keep, 4)
        w, b = fit_head(emb[keep4], labels4[keep4], base[keep4])
        counts = tuple(int(c) for c in np.bincount(labels[keep], minlength=len(FACES)))
    cal = classifier.calibration
    return Profile(w, b, cal.profile_temperature, cal.profile_threshold, model_digest(classifier.path), counts)


class _Found(Protocol):
    @property
    def corners(self) -> npt.ArrayLike: ...


Finder = Callable[[npt.NDArray[np.uint8]], Sequence[_Found]]


def _default_finder() -> Finder:
    """The finder `vision read` uses by default: enrolment cuts the dice as reading will."""
    from companion.vision.read import DEFAULT_FINDER, make_finder

    return make_finder(DEFAULT_FINDER)


def collect(folder: str | Path, finder: Finder | None = None) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], dict[str, int]]:
    """Crops and labels of every die in DIR/<face>/*.png|jpg; also frames per face."""
    root = Path(folder)
    if not root.is_dir():
        raise EnrolmentError(f"enrolment folder {root} does not exist")
    find = finder or _default_finder()
    crops: list[npt.NDArray[np.uint8]] = []
    labels: list[int] = []
    frames: dict[str, int] = {}
    for k, face in enumerate(FACES):
        sub = root / face
        files = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) if sub.is_dir() else []
        if not files:
            raise EnrolmentError(f"{sub} holds no PNG or JPEG frames; enrolment needs folders {', '.join(FACES)}")
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
    if not crops:
        raise EnrolmentError(f"no dice were found in the frames under {root}")
    return np.stack(crops), np.asarray(labels, np.int64), frames


def check_out(out: Path) -> None:
    """The profile folder can be written: it is a folder or can be made in one we may write."""
    if out.exists() and not out.is_dir():
        raise EnrolmentError(f"{out} is a file; --out names the folder the profile is written to")
    base = next((p for p in (out, *out.parents) if p.exists()), None)
    if base is None or not base.is_dir():
        raise EnrolmentError(f"cannot write the profile to {out}: {base} is not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise EnrolmentError(f"cannot write the profile to {out}: {base} may not be written")


def enroll(folder: str | Path, out: str | Path, *, model: str | Path | None = None,
           finder: Finder | None = None) -> Profile:
    """`companion vision enroll DIR --out PROFILE`: fit and save a profile."""
    check_out(Path(out))  # before minutes of work, not after
    try:
        classifier = FaceClassifier(model)
    except ModelError as exc:
        raise EnrolmentError(str(exc)) from None
    crops, labels, _ = collect(folder, finder)
    profile = fit_profile(classifier, crops, labels)
    profile.save(out)
    return profile


def load_reader(profile: str | Path | None = None, model: str | Path | None = None) -> FaceClassifier:
    """The face reader, adapted by a profile folder when one is given.

    Raises ModelError or EnrolmentError, each with a one-sentence message.
    """
    classifier = FaceClassifier(model)
    if profile is not None:
        classifier.profile = Profile.load(profile, classifier)
    return classifier
