"""one_per_die keeps what the pairwise rule keeps (it tests a peak against all kept at once)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.vision.detect_net import Candidate, _same_die, one_per_die


def _pairwise(cands: list[Candidate]) -> list[Candidate]:
    out: list[Candidate] = []
    for c in cands:
        if not any(_same_die(c.x, c.y, c.edge, c.corners, k) for k in out):
            out.append(c)
    return out


def _candidate(x: float, y: float, edge: float, turn: float, skew: float) -> Candidate:
    a = np.deg2rad(turn)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5 + skew, 0.5], [-0.5, 0.5 + skew]])
    corners = (unit * edge @ rot.T + (x, y)).astype(np.float32)
    return Candidate(x, y, edge, corners, 1.0)


# crowded: many pairs fall near each limit of the rule
peak = st.builds(
    _candidate,
    st.floats(0, 120),
    st.floats(0, 120),
    st.floats(20, 60),
    st.floats(0, 90),
    st.floats(-0.3, 0.3),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(peak, max_size=30))
def test_the_same_peaks_are_kept_as_by_the_pairwise_rule(cands: list[Candidate]) -> None:
    got = one_per_die(cands)
    want = _pairwise(cands)
    assert [id(c) for c in got] == [id(c) for c in want]


def test_a_side_seen_at_an_angle_and_a_near_peak_are_the_same_die() -> None:
    die = _candidate(100, 100, 60, 0, 0)
    near = _candidate(110, 100, 60, 0, 0)  # within half an edge
    side = _candidate(100, 131, 60, 0, 0)  # overlaps the face by about half
    apart = _candidate(200, 100, 60, 0, 0)
    assert one_per_die([die, near, side, apart]) == [die, apart]
