"""The learned die finder (companion.vision.detect_net) with the shipped model."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from benchmarks import real_dice
from companion.evaluation.scoring import Tally, match_points, tally_frame
from companion.synth import HELD_OUT, VALIDATION, render_frame
from companion.synth.closeup import render_closeup
from companion.synth.squares import lay_over, paste_markers
from companion.synth.table import SQUARE_SURFACE
from companion.vision.detect_net import (
    INPUT_LONG,
    STRIDE,
    Candidate,
    DetectorModelError,
    NetSettings,
    _prepare,
    decode,
    default_detector_path,
    find_dice_net,
    load_session,
    second_look,
    select,
)
from companion.vision.found import FoundDie
from companion.vision.geometry import order_corners

pytestmark = pytest.mark.skipif(
    not default_detector_path().is_file(), reason="detector model not built"
)

# Measured: recall 1.0000 / precision 0.9995 on held-out frames 5000-5199
# (models/DETECTOR_CARD.md); floors sit under the figures of the 8 frames below.
RECALL_FLOOR = 0.98
PRECISION_FLOOR = 0.96
# Real photos kept aside (benchmarks/real_dice.py), measured in models/DETECTOR_CARD.md.
REAL_RECALL_FLOOR = 0.98
REAL_PRECISION_FLOOR = 0.975
# Finds given a face among a keyboard and a score sheet beside one lone die (frame 5106).
LONE_DIE_CLUTTER_PHANTOMS = 16


def test_finds_dice_on_held_out_frames() -> None:
    tally = Tally()
    for seed in range(5000, 5008):
        f = render_frame(seed, styles=HELD_OUT)
        found = find_dice_net(f.image)
        tally_frame(
            tally, [(d.center[0], d.center[1], "x") for d in found], [d.corners for d in f.dice]
        )
    assert tally.true_dice > 50
    assert tally.recall >= RECALL_FLOOR, tally.summary()
    assert tally.precision >= PRECISION_FLOOR, tally.summary()


def test_output_contract() -> None:
    f = render_frame(5001, n_dice=12, styles=HELD_OUT)
    found = find_dice_net(f.image)
    assert found
    h, w = f.image.shape[:2]
    for d in found:
        assert isinstance(d, FoundDie)
        assert d.corners.shape == (4, 2) and d.corners.dtype == np.float32
        assert isinstance(d.center[0], float) and isinstance(d.center[1], float)
        assert 0 <= d.center[0] < w and 0 <= d.center[1] < h
        assert 20 < d.edge < 250
        # clockwise on screen (y down): positive shoelace area
        x, y = d.corners[:, 0], d.corners[:, 1]
        assert float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) > 0
        # first corner nearest the top-left
        assert int(np.argmin(d.corners.sum(axis=1))) == 0
        assert d.clean == (d.reason == "")


def test_weak_peaks_are_kept_unclean() -> None:
    f = render_frame(5002, n_dice=10, styles=HELD_OUT)
    no_second_look = NetSettings(threshold=1.01, low=0.3, drop_below=0.0, promote_at=1.01)
    strict = find_dice_net(f.image, settings=no_second_look)
    assert strict and all(not d.clean and "weak" in d.reason for d in strict)


def test_empty_frame() -> None:
    f = render_frame(5003, n_dice=0, styles=HELD_OUT, clutter=False)
    assert not f.dice
    assert find_dice_net(f.image) == []


def test_missing_model(tmp_path: Path) -> None:
    with pytest.raises(DetectorModelError, match="not found.*COMPANION_DETECTOR"):
        load_session(tmp_path / "nope.onnx")
    # the judged finder's own network names its own variable
    with pytest.raises(DetectorModelError, match="not found.*COMPANION_JUDGED_DETECTOR"):
        load_session(tmp_path / "dice_detector_judged.onnx")


def _square(x: float, y: float, edge: float) -> npt.NDArray[np.float32]:
    e = edge / 2
    return np.array([[x - e, y - e], [x + e, y - e], [x + e, y + e], [x - e, y + e]], np.float32)


def _cand(x: float, y: float, edge: float, score: float) -> Candidate:
    return Candidate(x, y, edge, _square(x, y, edge), score)


SURE_DICE = [_cand(200 + 150 * i, 300, 80, 0.9) for i in range(4)]


def test_select_drops_finds_smaller_than_any_die() -> None:
    # VISION.md: a die's edge is at least 40 px; a 20 px square is a key or a pip
    got = select([*SURE_DICE, _cand(900, 700, 20, 0.95)], 1280, 960, NetSettings())
    assert [d.center for d in got] == [(c.x, c.y) for c in SURE_DICE]
    assert all(d.clean for d in got)


def test_select_drops_doubtful_finds_of_another_size_and_keeps_doubtful_dice() -> None:
    odd = _cand(900, 700, 45, 0.45)  # weak and 0.56x the table's dice: not one of them
    alike = _cand(700, 700, 84, 0.45)  # weak but the size of the others: kept, read '?'
    got = select([*SURE_DICE, odd, alike], 1280, 960, NetSettings())
    assert (odd.x, odd.y) not in [d.center for d in got]
    (kept,) = [d for d in got if d.center == (alike.x, alike.y)]
    assert not kept.clean and "weak detection" in kept.reason


def test_select_follows_the_second_look_at_doubtful_peaks() -> None:
    cfg = NetSettings()
    seen = Candidate(700, 700, 84, _square(700, 700, 84), 0.45, second=0.95)  # a die, seen closer
    empty = Candidate(
        900, 700, 84, _square(900, 700, 84), 0.45, second=0.05
    )  # nothing there, seen closer
    unsure = Candidate(1100, 700, 84, _square(1100, 700, 84), 0.45, second=0.7)
    got = {d.center: d for d in select([*SURE_DICE, seen, empty, unsure], 1280, 960, cfg)}
    assert got[(700, 700)].clean
    assert (900, 700) not in got
    assert not got[(1100, 700)].clean and "weak detection" in got[(1100, 700)].reason


def test_second_look_sees_a_die_and_not_the_bare_mat() -> None:
    f = render_frame(5004, n_dice=3, styles=HELD_OUT, clutter=False)
    sess = load_session()
    die = f.dice[0]
    c = np.asarray(die.corners, np.float32)
    x, y = (float(v) for v in c.mean(axis=0))
    edge = float(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1).mean())
    assert second_look(sess, f.image, Candidate(x, y, edge, c, 0.45), NetSettings().look_px) >= 0.9
    # the point of the frame farthest from every die
    grid = [(gx, gy) for gx in range(100, 1200, 50) for gy in range(100, 880, 50)]
    centers = [np.asarray(d.corners).mean(axis=0) for d in f.dice]
    bx, by = max(grid, key=lambda p: min(np.hypot(p[0] - cx, p[1] - cy) for cx, cy in centers))
    bare = Candidate(bx, by, edge, _square(bx, by, edge), 0.45)
    assert second_look(sess, f.image, bare, NetSettings().look_px) < 0.1


def test_select_flags_sure_finds_of_another_size() -> None:
    big = _cand(700, 700, 200, 0.9)  # 2.5x the others: read '?', never dropped
    (d,) = [
        d for d in select([*SURE_DICE, big], 1280, 960, NetSettings()) if d.center == (700, 700)
    ]
    assert not d.clean and "size unlike" in d.reason


def test_select_without_enough_sure_dice_keeps_sizes_unjudged() -> None:
    got = select([_cand(300, 300, 80, 0.9), _cand(600, 300, 45, 0.45)], 1280, 960, NetSettings())
    assert len(got) == 2 and got[0].clean and not got[1].clean


def test_select_flags_faces_partly_outside_the_frame() -> None:
    inside = _cand(41, 300, 80, 0.9)  # one px inside the left border
    out = _cand(30, 500, 80, 0.9)  # 10 of 80 px outside: 12% of the face
    got = {d.center: d for d in select([*SURE_DICE, inside, out], 1280, 960, NetSettings())}
    assert got[(41, 300)].clean
    assert not got[(30, 500)].clean and "frame border" in got[(30, 500)].reason


def test_die_like_clutter_beside_dice_is_rarely_read_as_a_die() -> None:
    # keyboard keys, plugs, beads, coins, blocks, score sheets (hard_clutter)
    # beside the dice: 2 finds given a face in these 8 frames (125 dice) with the
    # model before issue 14; the one fine-tuned on real photos gives none in the 7
    # frames with several dice, but 14 in frame 5106 (one die beside a keyboard and a
    # score sheet, where no size rule can tell keys of a die's size from dice):
    # a regression, stated in models/DETECTOR_CARD.md, kept in sight here.
    tally = Tally()
    lone = Tally()
    for seed in range(5100, 5108):
        f = render_frame(seed, styles=HELD_OUT, hard_clutter=True)
        found = find_dice_net(f.image)
        tally_frame(
            lone if len(f.dice) < 3 else tally,
            [(d.center[0], d.center[1], "x" if d.clean else "?") for d in found],
            [d.corners for d in f.dice],
        )
    phantoms_read = tally.found - tally.matched - tally.extra_unsure
    assert tally.recall >= RECALL_FLOOR and phantoms_read <= 2, tally.summary()
    assert (
        lone.recall == 1.0
        and lone.found - lone.matched - lone.extra_unsure <= LONE_DIE_CLUTTER_PHANTOMS
    ), lone.summary()


# ---------------------------------------------------------------------- squares that are no dice


# The shipped finder takes die-sized printed squares for dice (jade precision 0.797). The two
# squares candidates of models/DETECTOR_CARD.md pass the first two tests below (the second one
# the markers' test too) but are not shipped (each loses elsewhere): these record the gap,
# and turn red when it closes.
SQUARES_GAP = pytest.mark.xfail(
    strict=True, reason="shipped finder: printed squares read as dice (issue 13)"
)


def _grid_paper(seed: int, pitch: float) -> npt.NDArray[np.uint8]:
    """A 1280x960 photo of blank grid paper (squares of `pitch` px), seen in perspective, lit
    unevenly."""
    rng = np.random.default_rng(seed)
    table = np.full((960, 1280, 3), 90, np.uint8)
    return lay_over(rng, table, np.zeros((960, 1280), np.float32), pitch, "grid")


@SQUARES_GAP
def test_a_blank_grid_paper_frame_gives_no_dice() -> None:
    # Squares of a die's size (VISION.md: 40-160 px) and nothing else: the
    # finder before issue 13's squares took 60-90 of such squares for dice.
    for seed, pitch in ((1, 45.0), (2, 70.0), (3, 110.0)):
        found = find_dice_net(_grid_paper(seed, pitch))
        assert found == [], (pitch, [(d.center, d.edge, d.reason) for d in found])


@SQUARES_GAP
def test_printed_squares_without_dice_give_no_dice() -> None:
    # grid and graph paper, tiles, checkerboards, fiducial markers, score sheets
    # under no die; held-out styles and seeds (training rendered 9000-9399)
    finds = []
    for seed in range(95_000, 95_006):
        f = render_frame(seed, n_dice=0, styles=HELD_OUT, surface_kind=SQUARE_SURFACE)
        finds += [(seed, d.center, d.reason) for d in find_dice_net(f.image)]
    assert not finds, finds


@SQUARES_GAP
def test_dice_on_printed_squares_are_found_and_the_squares_are_not() -> None:
    tally = Tally()
    for seed in range(95_100, 95_106):
        f = render_frame(seed, styles=HELD_OUT, surface_kind=SQUARE_SURFACE)
        found = find_dice_net(f.image)
        tally_frame(
            tally,
            [(d.center[0], d.center[1], "x" if d.clean else "?") for d in found],
            [d.corners for d in f.dice],
        )
    assert tally.true_dice > 50
    assert tally.recall >= RECALL_FLOOR, tally.summary()
    assert tally.precision >= PRECISION_FLOOR, tally.summary()


@SQUARES_GAP
def test_fiducial_markers_beside_dice_are_not_dice() -> None:
    f = render_frame(5003, n_dice=8, styles=HELD_OUT)
    edges = np.array([d.edge for d in f.dice], np.float32)
    centers = np.array([d.center for d in f.dice], np.float32)
    rng = np.random.default_rng(0)
    image = np.clip(
        paste_markers(rng, f.image.astype(np.float32), centers, edges, 12), 0, 255
    ).astype(np.uint8)
    assert np.abs(image.astype(int) - f.image).sum() > 0  # some markers were laid
    found = find_dice_net(image)
    tally = Tally()
    tally_frame(
        tally, [(d.center[0], d.center[1], "x") for d in found], [d.corners for d in f.dice]
    )
    assert tally.recall == 1.0 and tally.found == tally.matched, tally.summary()


# -------------------------------------------------------------------- close-ups and real photos


def test_a_close_up_holding_one_die_is_read_like_any_frame() -> None:
    # issue 13 item 5: a 96x96 frame with one die of 48-65 px (held-out styles,
    # our renderer; never foreign-art's crops). The frame is not enlarged for the
    # network, so the die is as big on its input as dice it learnt.
    for seed in range(6):
        f = render_closeup(seed, styles=HELD_OUT)
        found = find_dice_net(f.image)
        x, y = f.dice[0].center
        near = [
            d for d in found if np.hypot(d.center[0] - x, d.center[1] - y) <= 0.3 * f.dice[0].edge
        ]
        assert len(near) == 1, (seed, [(d.center, d.reason) for d in found])
        assert near[0].clean, near[0].reason
        assert abs(near[0].edge - f.dice[0].edge) < 0.25 * f.dice[0].edge


def test_a_close_up_die_partly_outside_the_frame_is_never_read_clean() -> None:
    for seed in range(4):
        f = render_closeup(seed, styles=HELD_OUT, offset=40)
        x, y = f.dice[0].center
        out = [
            d
            for d in find_dice_net(f.image)
            if np.hypot(d.center[0] - x, d.center[1] - y) <= 0.5 * f.dice[0].edge
        ]
        assert all(not d.clean for d in out), [(d.center, d.reason) for d in out]


def _empty_windows(
    photo: real_dice.Photo, image: npt.NDArray[np.uint8], size: int
) -> list[npt.NDArray[np.uint8]]:
    """Windows of a real photo that hold no die: far from every labelled die and from the borders
    (where a die cut by the frame is not labelled)."""
    h, w = image.shape[:2]
    reach = float(photo.boxes.max()) * 1.6 + size * 0.71 if len(photo.boxes) else 0.0
    out = []
    for y0 in range(24, h - size - 24, size // 2):
        for x0 in range(24, w - size - 24, size // 2):
            c = np.array([x0 + size / 2, y0 + size / 2])
            if all(np.hypot(*(c - t)) > reach for t in photo.centers):
                out.append(image[y0 : y0 + size, x0 : x0 + size])
    return out


@pytest.mark.slow
def test_real_photos_without_dice_give_no_dice() -> None:
    # Real-looking empty frames: windows of the KEPT-ASIDE photos (never trained
    # on) with no die in them: light wood, cables, glare, shadows.
    if not real_dice.REAL.is_dir():
        pytest.skip("shared/real-dice is not beside the repository")
    windows = []
    for ph in real_dice.load(split="kept"):
        # a JPEG read in colour is always 8-bit BGR; cv2's stubs type it as any number
        img = cast("npt.NDArray[np.uint8] | None", cv2.imread(str(ph.path)))
        assert img is not None
        windows += _empty_windows(ph, img, 160)
    assert len(windows) >= 40
    found = [find_dice_net(wi) for wi in windows]
    assert sum(len(f) for f in found) <= len(windows) // 40, sum(len(f) for f in found)


@pytest.mark.slow
def test_real_photos_kept_aside_die_centers() -> None:
    # A center within 30 px counts (benchmarks/real_dice.py); measured with the
    # shipped model: see models/DETECTOR_CARD.md. Floors just under it.
    if not real_dice.REAL.is_dir():
        pytest.skip("shared/real-dice is not beside the repository")
    photos = real_dice.load(split="kept")
    assert len(photos) == 75
    sc = real_dice.score(
        photos, lambda img: [(d.center[0], d.center[1], d.clean) for d in find_dice_net(img)]
    )
    assert sc.dice == 235
    assert sc.recall >= REAL_RECALL_FLOOR and sc.precision >= REAL_PRECISION_FLOOR, sc.summary()


def test_a_face_covering_much_of_a_stronger_one_is_that_die_seen_from_the_side() -> None:
    from companion.vision.detect_net import _same_die

    strong = _cand(200, 200, 60, 0.9)
    # a die's side seen at an angle: its pips make a second "face" below the top one
    side = _square(200, 245, 60)
    assert _same_die(200, 245, 60, side, strong)
    # touching dice, with the corners a little off, are two dice
    assert not _same_die(262, 202, 60, _square(262, 202, 60), strong)
    assert not _same_die(600, 200, 60, _square(600, 200, 60), strong)
    # a center within half an edge of a stronger one is the same die
    assert _same_die(220, 210, 60, _square(220, 210, 60), strong)


def _decode_one_by_one(maps: npt.NDArray[np.float32], s: float, floor: float) -> list[Candidate]:
    """The finder's decoding as it was, a peak at a time: the reference decode() must equal."""
    heat = maps[0]
    is_peak = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= floor)
    ys, xs = np.nonzero(is_peak)
    out = []
    for k in np.argsort(-heat[ys, xs], kind="stable"):
        iy, ix = int(ys[k]), int(xs[k])
        v = maps[:, iy, ix]
        cx_in, cy_in = (ix + float(v[1])) * STRIDE, (iy + float(v[2])) * STRIDE
        edge_in = float(np.exp(np.clip(v[3], 0.0, 6.5)))
        t = float(np.arctan2(v[5], v[4])) / 4.0
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], np.float32)
        unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float32)
        pts_in = ((unit + v[6:14].reshape(4, 2)) @ rot.T) * edge_in + np.array(
            [cx_in, cy_in], np.float32
        )
        corners = order_corners((pts_in + 0.5) / s - 0.5)
        sides = np.roll(corners, -1, axis=0) - corners
        edge = float(np.linalg.norm(sides, axis=1).mean())
        cx, cy = (cx_in + 0.5) / s - 0.5, (cy_in + 0.5) / s - 0.5
        out.append(Candidate(cx, cy, edge, corners, float(v[0])))
    return out


def _bitwise(a: list[Candidate], b: list[Candidate]) -> bool:
    return len(a) == len(b) and all(
        (x.x, x.y, x.edge, x.score) == (y.x, y.y, y.edge, y.score)
        and x.corners.dtype == y.corners.dtype == np.float32
        and np.array_equal(x.corners, y.corners)
        for x, y in zip(a, b, strict=True)
    )


def test_all_peaks_at_once_decode_exactly_as_one_at_a_time() -> None:
    # decode() works on every peak at once for speed; the finds must not move by one bit
    sess = load_session()
    f = render_frame(5003, styles=HELD_OUT)
    x, s = _prepare(f.image, INPUT_LONG)
    maps = np.asarray(sess.run(None, {sess.get_inputs()[0].name: x})[0][0], np.float32)
    rng = np.random.default_rng(3)
    noise = rng.normal(0.0, 1.5, maps.shape).astype(np.float32)
    noise[0] = rng.random(maps.shape[1:], dtype=np.float32)
    for m, floor in ((maps, 0.4), (maps, 0.05), (noise, 0.5)):
        heat = m[0]
        ys, xs = np.nonzero((heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= floor))
        order = np.argsort(-heat[ys, xs], kind="stable")
        ref = _decode_one_by_one(m, s, floor)
        assert len(ref) >= 8
        assert _bitwise(decode(m, ys[order], xs[order], s), ref)
    assert decode(maps, np.zeros(0, np.intp), np.zeros(0, np.intp), s) == []


def test_one_session_per_model_file_and_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    path = default_detector_path().resolve()
    sess = load_session(path, threads=1)
    assert load_session(str(path), threads=1) is sess
    monkeypatch.chdir(path.parent)
    assert load_session(path.name, threads=1) is sess  # a relative path is resolved first
    assert load_session(path, threads=2) is not sess


def test_a_big_frame_is_seen_at_the_scale_the_network_learnt() -> None:
    from companion.vision.detect_net import FRAME_LONG, INPUT_MOST, input_long_for

    assert input_long_for(640) == input_long_for(FRAME_LONG) == INPUT_LONG
    assert input_long_for(2304) == 928 and input_long_for(3280) == INPUT_MOST == 1280
    for long_side in (1281, 1920, 2304, 3280, 4608, 20000):
        size = input_long_for(long_side)
        assert size % 32 == 0 and INPUT_LONG <= size <= INPUT_MOST
        # a 40-px die (VISION.md's smallest) keeps ~16 input pixels until the input's cap
        assert 40 * size / long_side >= min(15.0, 40 * INPUT_MOST / long_side)


@pytest.mark.slow
def test_small_dice_of_a_big_frame_are_found() -> None:
    # VISION.md fixes the die's edge (40-160 px), not the frame's size: at a fixed input of
    # 512 a 40-px die of a 3280x2464 frame was 6 px and 17 of 96 were found
    f = render_frame(5001, n_dice=16, size=(3280, 2464), styles=VALIDATION, edge_range=(40, 48))
    found = find_dice_net(f.image)
    pairs = match_points([d.center for d in found], [d.corners for d in f.dice])
    assert len(pairs) >= 15 and len(found) <= 17


# ----------------------------------------------------------------- the judged finder's network


def _shipped_networks(monkeypatch: pytest.MonkeyPatch) -> None:
    """No detector named by the environment: both finders look with the package's networks."""
    from companion.vision import detect_net

    monkeypatch.delenv(detect_net.MODEL_ENV, raising=False)
    monkeypatch.delenv(detect_net.JUDGED_MODEL_ENV, raising=False)


def test_the_judged_finder_looks_with_its_own_network_and_the_plain_finder_keeps_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Session 39: motif dice are found by a network also taught marbled dice on printed squares;
    # pip dice keep the shipped finder's network (fewer phantoms on the real photos).
    from companion.vision import detect_net

    _shipped_networks(monkeypatch)
    judged, plain = detect_net.judged_detector_path(), detect_net.default_detector_path()
    assert judged.name == "dice_detector_judged.onnx" and judged.is_file()
    assert plain.name == "dice_detector.onnx" and plain.is_file()
    assert judged.read_bytes() != plain.read_bytes()
    # a detector named by the environment is the one both look with, unless the judged one is
    monkeypatch.setenv(detect_net.MODEL_ENV, str(plain))
    assert detect_net.judged_detector_path() == plain
    monkeypatch.setenv(detect_net.JUDGED_MODEL_ENV, str(judged))
    assert detect_net.judged_detector_path() == judged
    assert detect_net.default_detector_path() == plain


def test_the_judged_finder_finds_marbled_dice_on_a_checkerboard() -> None:
    # A development frame the shipped network saw almost nothing of (docs/vision.md, session
    # 39): wood-grained dice of 100 px on a green checkerboard; at any input size it was sure of
    # at most 5 of the 29, and the reader found 9.
    from benchmarks.bench_enrolled import reading_frame
    from companion.synth.family_sets import family_styles
    from companion.vision.classify import FaceClassifier
    from companion.vision.judged import judged_finder

    style = family_styles("validation", 24, 580001)[15]
    f = reading_frame(15, 6, style, 590000)
    found = judged_finder(
        FaceClassifier(Path(__file__).resolve().parents[1] / "models" / "faces.onnx")
    )(f.image)
    tally = Tally()
    tally_frame(
        tally,
        [(d.center[0], d.center[1], "x" if d.clean else "?") for d in found],
        [d.corners for d in f.dice],
    )
    assert tally.true_dice == 29
    assert tally.recall >= 0.9, tally.summary()
    assert tally.precision >= 0.95, tally.summary()


def test_the_judged_network_sizes_small_dice_right_at_its_first_look() -> None:
    # Session 41: a development squares frame of 29 dice of 32-45 px. At the first look (512
    # input pixels: 13-18 px a die) the shipped network is sure of none of them; session 39's
    # F2 of 28, but decoded them too big (90th percentile 1.54 times the true edge: the crop
    # held grid around the die), because its training held its size to the shipped network's
    # output where that network saw nothing. The judged network (F4) finds them and sizes them.
    from benchmarks.bench_enrolled import mean_edge
    from companion.vision import detect_net

    f = render_frame(
        71006,
        size=(1280, 960),
        styles=VALIDATION,
        surface_kind="squares",
        edge_range=(32.0, 60.0),
    )
    small = [np.asarray(d.corners, float) for d in f.dice]
    small = [q for q in small if mean_edge(q) < 45]
    assert len(small) == 29
    sess = detect_net.load_session(detect_net.judged_detector_path())
    found = detect_net.peaks(sess, f.image, 512, 0.5)
    ratios = []
    for q in small:
        e, c = mean_edge(q), q.mean(axis=0)
        near = [p for p in found if np.hypot(*(np.asarray(p.corners).mean(axis=0) - c)) < 0.4 * e]
        if near:
            ratios.append(near[0].edge / e)
    assert len(ratios) >= 26
    assert np.quantile(ratios, 0.9) <= 1.15 and max(ratios) <= 1.25, ratios


def test_a_missing_judged_network_is_told_when_the_reader_loads(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # not at the first frame with a traceback: `vision read` turns this error into one sentence
    from companion.vision import detect_net
    from companion.vision.read import Reader

    _shipped_networks(monkeypatch)
    monkeypatch.setenv(detect_net.JUDGED_MODEL_ENV, str(tmp_path / "gone.onnx"))
    with pytest.raises(DetectorModelError, match="gone.onnx.*COMPANION_JUDGED_DETECTOR"):
        Reader.load()


def test_a_reader_of_motif_dice_loads_only_the_network_it_looks_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from companion.vision import detect_net
    from companion.vision.read import Reader

    _shipped_networks(monkeypatch)
    monkeypatch.setattr(detect_net, "_SESSIONS", {})
    reader = Reader.load()
    assert [Path(p).name for p, _ in detect_net._SESSIONS] == ["dice_detector_judged.onnx"]
    # the finder's own choice (read_found, `draw`) still looks with the plain network
    frame = render_frame(5004, n_dice=4, styles=HELD_OUT)
    assert len(reader.finder(frame.image)) == 4
    assert "dice_detector.onnx" in [Path(p).name for p, _ in detect_net._SESSIONS]
