"""The real photos of ../shared/real-dice: their labels, the kept-aside split and the 30 px match.

KEPT ASIDE, fixed here for every user (finder training, benchmarks, the pip
helper's figures): every photo ``NAME_N.jpg`` whose number N is divisible by 4
(75 of the 310 photos, 235 dice; it holds the ``dice_N.jpg`` ones with N
divisible by 4). Nothing is trained or tuned on them; their figures are
reported apart from the other (development) photos.

A die's truth is the center of its labelled box (YOLO txt beside each jpg:
the box surrounds the top face's pips, so its center is the top face's). A
found center within 30 px of a true one matches it, one to one, nearest first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.evaluation.scoring import greedy_pairs

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "real-dice"
MATCH_PX = 30.0


@dataclass(frozen=True)
class Photo:
    path: Path
    centers: np.ndarray  # (n, 2) true top-face centers in pixels
    boxes: np.ndarray  # (n, 2) labelled pip-box width and height in pixels
    values: tuple[int, ...]  # pips 1..6


def photo_number(path: Path) -> int:
    m = re.search(r"_(\d+)\.jpg$", path.name)
    if m is None:
        raise ValueError(f"{path.name} is not named NAME_N.jpg")
    return int(m.group(1))


def kept_aside(path: Path) -> bool:
    """True for the photos kept aside from all training and tuning."""
    return photo_number(path) % 4 == 0


def load(root: Path = REAL, split: str = "all") -> list[Photo]:
    """Photos of ``split``: "kept" (kept aside), "dev" (the others) or "all"; sorted by name."""
    import cv2

    out = []
    for p in sorted(root.glob("*.jpg")):
        if split == "kept" and not kept_aside(p) or split == "dev" and kept_aside(p):
            continue
        size = cv2.imread(str(p), cv2.IMREAD_REDUCED_GRAYSCALE_8)
        if size is None:
            continue
        h, w = size.shape[0] * 8, size.shape[1] * 8
        rows = [
            line.split()
            for line in p.with_suffix(".txt").read_text().splitlines()
            if len(line.split()) == 5
        ]
        vals = np.array([[float(v) for v in r[1:]] for r in rows], np.float64).reshape(-1, 4)
        centers = vals[:, :2] * [w, h]
        boxes = vals[:, 2:] * [w, h]
        out.append(Photo(p, centers, boxes, tuple(int(r[0]) + 1 for r in rows)))
    return out


def match(
    found: Sequence[tuple[float, float]], truth: np.ndarray, radius: float = MATCH_PX
) -> list[tuple[int, int]]:
    """One-to-one (found index, true index) pairs within ``radius``, nearest first."""
    if not len(found) or not len(truth):
        return []
    f = np.asarray(found, np.float64).reshape(-1, 2)
    d = np.hypot(f[:, None, 0] - truth[None, :, 0], f[:, None, 1] - truth[None, :, 1])
    return greedy_pairs(
        (float(d[i, j]), i, j)
        for i in range(len(f))
        for j in range(len(truth))
        if d[i, j] <= radius
    )


@dataclass
class Score:
    photos: int = 0
    photos_right: int = 0
    dice: int = 0
    found: int = 0
    matched: int = 0
    flagged_phantoms: int = 0
    misses: list[tuple[str, float, float]] = field(default_factory=list)
    phantoms: list[tuple[str, float, float, bool]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.matched / max(self.dice, 1)

    @property
    def precision(self) -> float:
        return self.matched / max(self.found, 1)

    def summary(self) -> str:
        return (
            f"{self.photos} photos, {self.dice} dice: recall {self.recall:.4f}, precision "
            f"{self.precision:.4f} "
            f"(found {self.found}, matched {self.matched}, phantoms {self.found - self.matched} of "
            "which "
            f"flagged '?' {self.flagged_phantoms}), photos with every die found and nothing else "
            f"{self.photos_right}/{self.photos}"
        )


FoundCenters = Callable[[np.ndarray], list[tuple[float, float, bool]]]


def score(photos: Sequence[Photo], find: FoundCenters) -> Score:
    """Every find counts, doubtful (``clean=False``, read '?') or not: `vision read` reports them
    all."""
    import cv2

    s = Score()
    for ph in photos:
        img = cv2.imread(str(ph.path))
        got = find(img)
        pairs = match([(x, y) for x, y, _ in got], ph.centers)
        s.photos += 1
        s.dice += len(ph.centers)
        s.found += len(got)
        s.matched += len(pairs)
        s.photos_right += len(pairs) == len(got) == len(ph.centers)
        hit_f = {i for i, _ in pairs}
        hit_t = {j for _, j in pairs}
        for i, (x, y, clean) in enumerate(got):
            if i not in hit_f:
                s.phantoms.append((ph.path.name, x, y, clean))
                s.flagged_phantoms += not clean
        for j, (x, y) in enumerate(ph.centers):
            if j not in hit_t:
                s.misses.append((ph.path.name, float(x), float(y)))
    return s
