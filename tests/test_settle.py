"""Settle: a roll is read once the dice stop and no hand is over the table."""

from __future__ import annotations

import numpy as np

from companion.synth import TRAIN, DiePlacement, render_placed
from companion.vision.settle import SettleDetector, SettleSettings, TableState, wait_for_roll
from companion.vision.sources import preview_of

FPS = 10.0
STYLE = next(s for s in TRAIN if s.body.name == "red")


def _noisy(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Sensor noise on a repeated frame, so 'still' is never pixel-identical."""
    return np.clip(
        frame.astype(np.int16) + rng.normal(0, 3, frame.shape).astype(np.int16), 0, 255
    ).astype(np.uint8)


def _hand(frame: np.ndarray, reach: float) -> np.ndarray:
    """A skin-coloured arm reaching in from the bottom edge, ``reach`` of the way up."""
    import cv2

    out = frame.copy()
    h, w = out.shape[:2]
    tip = int(h * (1 - reach))
    cv2.ellipse(out, (w // 2, tip + h // 4), (w // 9, h // 4), 0, 0, 360, (120, 160, 215), -1)
    cv2.rectangle(out, (w // 2 - w // 11, tip + h // 4), (w // 2 + w // 11, h), (115, 155, 210), -1)
    return out


def _sequence() -> tuple[list[np.ndarray], int]:
    """Rendered frames: dice tumbling, a hand over the table, then still; index of the stop."""
    rng = np.random.default_rng(0)
    moving = []
    for i in range(5):
        dice = [
            DiePlacement("I", (200.0 + 40 * i, 200.0 + 15 * i), 70.0, 20.0 * i),
            DiePlacement("3", (420.0 - 30 * i, 300.0), 70.0, 35.0 * i),
        ]
        moving.append(
            render_placed(10, dice, style=STYLE, size=(640, 480), surface_kind="felt").image
        )
    rest = moving[-1]
    frames = [preview_of(f) for f in moving]
    frames += [
        preview_of(_hand(rest, r)) for r in (0.3, 0.5, 0.5, 0.5, 0.3)
    ]  # hand held still a moment
    stop = len(frames)
    frames += [preview_of(_noisy(rest, rng)) for _ in range(12)]
    return frames, stop


def test_reads_only_after_dice_and_hand_are_gone() -> None:
    frames, stop = _sequence()
    det = SettleDetector(SettleSettings(still_s=0.3))
    events = []
    states = []
    for i, f in enumerate(frames):
        ev = det.update(f, i / FPS)
        states.append(det.state)
        if ev is not None:
            events.append((i, ev))
    assert len(events) == 1, events
    i, ev = events[0]
    assert i >= stop  # never during motion or while the hand is there
    assert TableState.HAND in states[5:stop] and TableState.MOVING in states[:5]
    # The read arrives still_s (rounded up to a frame) after the last busy frame.
    assert abs(ev.delay_s - 0.3) < 1.5 / FPS
    assert ev.stopped_at == (stop - 1) / FPS or ev.stopped_at == stop / FPS
    assert ev.settled_at - (stop - 1) / FPS <= 0.3 + 1.5 / FPS


def test_one_read_per_roll_and_a_new_roll_is_seen() -> None:
    frames, _ = _sequence()
    det = SettleDetector(SettleSettings(still_s=0.3))
    t = 0.0
    count = 0
    for f in frames + frames:  # two rolls
        count += det.update(f, t) is not None
        t += 1 / FPS
    assert count == 2


def test_a_hand_left_still_too_long_becomes_part_of_the_table() -> None:
    frames, stop = _sequence()
    hand = frames[7]
    det = SettleDetector(SettleSettings(still_s=0.3, hand_timeout_s=1.0))
    for i, f in enumerate(frames[:stop]):
        det.update(f, i / FPS)
    settled = [det.update(hand, stop / FPS + k / FPS) for k in range(30)]
    assert any(s is not None for s in settled)


class _Replay:
    def __init__(self, previews: list[np.ndarray]) -> None:
        self.previews, self.i = previews, 0

    def open(self) -> None: ...
    def close(self) -> None: ...

    def read_preview(self) -> np.ndarray:
        self.i = min(self.i + 1, len(self.previews))
        return self.previews[self.i - 1]

    def read(self) -> np.ndarray:
        return np.dstack([self.previews[self.i - 1]] * 3)

    def __enter__(self) -> _Replay:
        return self

    def __exit__(self, *exc: object) -> None: ...


def test_wait_for_roll_returns_the_settled_frame() -> None:
    frames, stop = _sequence()
    clock = iter(np.arange(0, 10, 1 / FPS))
    frame, ev = wait_for_roll(
        _Replay(frames),
        SettleDetector(SettleSettings(still_s=0.3)),
        clock=lambda: float(next(clock)),
    )
    assert frame.ndim == 3 and ev.delay_s < 0.3 + 1.5 / FPS
