"""Settle: read a roll only once the dice have stopped and no hand is over the table.

Works on small grey preview frames. Motion is the share of pixels that
changed between consecutive frames; a hand is a large region, reaching in
from the frame's border, that differs from the table as it was last seen at
rest. The roll is settled when neither has been seen for ``still_s``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.sources import Frame, FrameSource

Grey = npt.NDArray[np.uint8]


class TableState(Enum):
    MOVING = "moving"
    HAND = "hand over the table"
    STILL = "still"


@dataclass(frozen=True)
class SettleSettings:
    still_s: float = 0.35  # no motion for this long before reading
    pixel_delta: int = 18  # grey levels: more than noise and flicker, less than a die edge
    motion_fraction: float = 0.002  # of the preview's pixels changing between frames
    hand_fraction: float = 0.04  # a border-touching change this large is an arm, not a die
    hand_timeout_s: float = 6.0  # a still "hand" this long is something left on the table


@dataclass(frozen=True)
class Settled:
    """A settled table: when the last motion ended and when settling was declared."""

    stopped_at: float
    settled_at: float

    @property
    def delay_s(self) -> float:
        return self.settled_at - self.stopped_at


class SettleDetector:
    """Feed preview frames with their times; :meth:`update` returns a Settled once per roll."""

    def __init__(self, settings: SettleSettings | None = None) -> None:
        self.s = settings or SettleSettings()
        self._prev: Grey | None = None
        self._rest: Grey | None = None  # the table at its last rest
        self._last_busy: float | None = None
        self._hand_since: float | None = None
        self._reported = True  # nothing to report until something moves
        self.state = TableState.STILL

    def _prep(self, preview: Grey) -> Grey:
        g = preview if preview.ndim == 2 else cv2.cvtColor(preview, cv2.COLOR_BGR2GRAY)
        return np.asarray(cv2.GaussianBlur(g, (5, 5), 0), np.uint8)

    def update(self, preview: Grey, t: float) -> Settled | None:
        g = self._prep(preview)
        if self._prev is None or self._prev.shape != g.shape:
            self._prev, self._rest, self._last_busy = g, g, t
            return None
        moving = _changed(g, self._prev, self.s.pixel_delta).mean() > self.s.motion_fraction
        self._prev = g
        hand = self._hand(g, t)
        if moving or hand:
            self.state = TableState.MOVING if moving else TableState.HAND
            self._last_busy = t
            self._reported = False
            return None
        self.state = TableState.STILL
        assert self._last_busy is not None
        if not self._reported and t - self._last_busy >= self.s.still_s:
            self._reported = True
            self._rest = g
            return Settled(self._last_busy, t)
        return None

    def _hand(self, g: Grey, t: float) -> bool:
        assert self._rest is not None
        diff = _changed(g, self._rest, self.s.pixel_delta).astype(np.uint8)
        diff = np.asarray(
            cv2.morphologyEx(diff, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8
        )
        n, labels, stats, _ = cv2.connectedComponentsWithStats(diff, connectivity=8)
        h, w = g.shape
        big = self.s.hand_fraction * h * w
        border = set(
            np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
        )
        areas = [int(stats[i, cv2.CC_STAT_AREA]) for i in range(1, n) if i in border]
        # Most of the frame changed at once: the light or the camera moved, not a hand.
        if sum(areas) > 0.6 * h * w:
            self._rest = g
            return False
        present = any(a > big for a in areas)
        if not present:
            self._hand_since = None
            return False
        if self._hand_since is None:
            self._hand_since = t
        if t - self._hand_since > self.s.hand_timeout_s:
            self._rest, self._hand_since = g, None  # it stays: make it part of the table
            return False
        return True


def _changed(a: Grey, b: Grey, delta: int) -> npt.NDArray[np.bool_]:
    out: npt.NDArray[np.bool_] = cv2.absdiff(a, b) > delta
    return out


def wait_for_roll(
    source: FrameSource,
    detector: SettleDetector | None = None,
    clock: Callable[[], float] = time.monotonic,
    timeout_s: float | None = None,
) -> tuple[Frame, Settled]:
    """Watch the preview stream until the roll settles, then take a full frame."""
    det = detector or SettleDetector()
    start = clock()
    while True:
        t = clock()
        settled = det.update(source.read_preview(), t)
        if settled is not None:
            return source.read(), settled
        if timeout_s is not None and t - start > timeout_s:
            raise TimeoutError(f"the table did not settle within {timeout_s:.0f} s")
