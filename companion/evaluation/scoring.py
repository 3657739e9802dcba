"""Scoring a reader against ground truth: the figures VISION.md's targets are stated in.

A found die matches a true die when its center lies inside the true die's
region (top-face polygon or labelled box); matching is greedy and one to one,
nearest first.

VISION.md: a die it cannot read with confidence (half hidden, ...) is
reported as `?`. A die whose top face is partly outside the frame is half
hidden, so for it `?` is as right as its motif (`hidden`); a wrong motif is
still a silent error.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt


@dataclass
class Tally:
    """Counts over many frames; the rates are what the targets are written in."""

    frames: int = 0
    frames_all_right: int = 0
    true_dice: int = 0
    found: int = 0
    matched: int = 0
    face_right: int = 0
    face_unsure: int = 0  # matched dice read '?' (half-hidden ones excluded)
    hidden_unsure: int = 0  # half-hidden dice read '?': the contract's answer, counted right
    face_wrong: int = 0  # matched dice read as another motif: silent errors
    extra_unsure: int = 0  # found dice that match nothing, read '?'
    corner_err: list[float] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.matched / self.true_dice if self.true_dice else 1.0

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else 1.0

    @property
    def faces_right(self) -> float:
        return (self.face_right + self.hidden_unsure) / self.true_dice if self.true_dice else 1.0

    @property
    def silent_errors(self) -> float:
        """Dice given a wrong motif, plus phantom dice given a motif, per true die."""
        phantom = self.found - self.matched - self.extra_unsure
        return (self.face_wrong + phantom) / self.true_dice if self.true_dice else 0.0

    @property
    def frames_right(self) -> float:
        return self.frames_all_right / self.frames if self.frames else 1.0

    def summary(self) -> str:
        err = float(np.median(self.corner_err)) if self.corner_err else float("nan")
        return (
            f"frames {self.frames}, dice {self.true_dice}: recall {self.recall:.4f}, "
            f"precision {self.precision:.4f}, faces right {self.faces_right:.4f}, "
            f"silent errors {self.silent_errors:.4f}, '?' {self.face_unsure} "
            f"(+{self.hidden_unsure} half hidden), "
            f"frames all right {self.frames_right:.4f}, median corner error {err:.2f} px"
        )


def match_points(
    points: Sequence[tuple[float, float]], regions: Sequence[npt.ArrayLike]
) -> list[tuple[int, int]]:
    """Greedy one-to-one (point index, region index) pairs, point inside region."""
    polys = [np.asarray(r, np.float32).reshape(-1, 2) for r in regions]
    centers = [p.mean(axis=0) for p in polys]
    cands = []
    for i, (x, y) in enumerate(points):
        for j, poly in enumerate(polys):
            if cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0:
                cands.append((float(np.hypot(x - centers[j][0], y - centers[j][1])), i, j))
    return greedy_pairs(cands)


def greedy_pairs(cands: Iterable[tuple[float, int, int]]) -> list[tuple[int, int]]:
    """One-to-one (i, j) pairs from (distance, i, j) candidates, nearest first."""
    used_i: set[int] = set()
    used_j: set[int] = set()
    pairs = []
    for _, i, j in sorted(cands):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            pairs.append((i, j))
    return pairs


def box_polygon(x0: float, y0: float, x1: float, y1: float) -> npt.NDArray[np.float32]:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def corner_error(found: npt.ArrayLike, truth: npt.ArrayLike) -> float:
    """Mean distance between corresponding corners, best over the 4 rotations."""
    f = np.asarray(found, np.float64).reshape(4, 2)
    t = np.asarray(truth, np.float64).reshape(4, 2)
    # Both are clockwise on screen; only the starting corner may differ.
    return float(min(np.linalg.norm(np.roll(f, k, axis=0) - t, axis=1).mean() for k in range(4)))


def outside_frame(corners: npt.ArrayLike, width: int, height: int) -> bool:
    """True when part of the polygon lies outside a width x height frame."""
    c = np.asarray(corners, np.float64).reshape(-1, 2)
    return bool(
        c[:, 0].min() < 0
        or c[:, 1].min() < 0
        or c[:, 0].max() > width - 1
        or c[:, 1].max() > height - 1
    )


def tally_frame(
    tally: Tally,
    found: Sequence[tuple[float, float, str]],
    truth_regions: Sequence[npt.ArrayLike],
    truth_faces: Sequence[str] | None = None,
    found_corners: Sequence[npt.ArrayLike] | None = None,
    hidden: Sequence[bool] | None = None,
) -> None:
    """Add one frame: found (x, y, face) against true regions (and faces, if known).

    `hidden[j]` marks true die j as half hidden (see the module's doc).
    """
    pairs = match_points([(x, y) for x, y, _ in found], truth_regions)
    tally.frames += 1
    tally.true_dice += len(truth_regions)
    tally.found += len(found)
    tally.matched += len(pairs)
    matched_found = {i for i, _ in pairs}
    tally.extra_unsure += sum(
        1 for i, f in enumerate(found) if i not in matched_found and f[2] == "?"
    )
    all_right = len(pairs) == len(truth_regions) == len(found)
    for i, j in pairs:
        if found_corners is not None:
            tally.corner_err.append(corner_error(found_corners[i], truth_regions[j]))
        if truth_faces is None:
            continue
        face = found[i][2]
        if face == truth_faces[j]:
            tally.face_right += 1
        elif face == "?" and hidden is not None and hidden[j]:
            tally.hidden_unsure += 1
        elif face == "?":
            tally.face_unsure += 1
            all_right = False
        else:
            tally.face_wrong += 1
            all_right = False
    tally.frames_all_right += int(all_right)
