"""Scoring a reader against ground truth (companion.evaluation.scoring)."""

from __future__ import annotations

import numpy as np

from companion.evaluation.scoring import Tally, outside_frame, tally_frame


def _sq(x: float, y: float, e: float = 40.0) -> np.ndarray:
    return np.array(
        [
            [x - e / 2, y - e / 2],
            [x + e / 2, y - e / 2],
            [x + e / 2, y + e / 2],
            [x - e / 2, y + e / 2],
        ]
    )


def test_outside_frame() -> None:
    assert not outside_frame(_sq(100, 100), 640, 480)
    assert outside_frame(_sq(10, 100), 640, 480)
    assert outside_frame(_sq(100, 470), 640, 480)


def test_a_half_hidden_die_read_unknown_is_right_and_a_wrong_motif_never_is() -> None:
    regions = [_sq(100, 100), _sq(10, 200), _sq(300, 300)]
    faces = ["I", "2", "E"]
    hidden = [False, True, False]
    t = Tally()
    tally_frame(t, [(100, 100, "I"), (12, 200, "?"), (300, 300, "E")], regions, faces, None, hidden)
    assert (
        t.faces_right == 1.0
        and t.hidden_unsure == 1
        and t.frames_right == 1.0
        and t.silent_errors == 0
    )
    t = Tally()
    tally_frame(t, [(100, 100, "I"), (12, 200, "3"), (300, 300, "E")], regions, faces, None, hidden)
    assert t.face_wrong == 1 and t.frames_right == 0.0 and t.silent_errors == 1 / 3
    # without the hidden marks, '?' on that die is a miss of the motif
    t = Tally()
    tally_frame(t, [(100, 100, "I"), (12, 200, "?"), (300, 300, "E")], regions, faces)
    assert t.face_unsure == 1 and t.frames_right == 0.0 and abs(t.faces_right - 2 / 3) < 1e-9


def test_a_whole_die_read_unknown_is_not_right() -> None:
    t = Tally()
    tally_frame(t, [(100, 100, "?")], [_sq(100, 100)], ["I"], None, [False])
    assert t.faces_right == 0.0 and t.face_unsure == 1 and t.frames_right == 0.0
