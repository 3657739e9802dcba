"""The renderer: deterministic, exact ground truth, styles split by whole style."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import pytest

from companion.synth import (
    ALL_STYLES,
    FACES,
    HELD_OUT,
    TRAIN,
    VALIDATION,
    DiePlacement,
    Style,
    render_frame,
    render_placed,
    style_by_name,
)
from companion.synth.motifs import ARRANGEMENTS, ELDER_SIGNS, LETTERINGS, TENTACLES, motif_mask
from companion.synth.table import surface
from companion.vision.crop import CROP_MARGIN, CROP_SIZE, cut_face, order_corners


def _area(poly: np.ndarray) -> float:
    return float(cv2.contourArea(poly.astype(np.float32)))


def test_same_seed_same_frame() -> None:
    a = render_frame(11, n_dice=8, size=(640, 480))
    b = render_frame(11, n_dice=8, size=(640, 480))
    assert np.array_equal(a.image, b.image)
    assert [d.face for d in a.dice] == [d.face for d in b.dice]
    assert all(np.array_equal(x.corners, y.corners) for x, y in zip(a.dice, b.dice, strict=True))
    c = render_frame(12, n_dice=8, size=(640, 480))
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("seed", range(6))
def test_ground_truth_is_consistent(seed: int) -> None:
    frame = render_frame(seed, size=(1280, 960))
    assert frame.image.shape == (960, 1280, 3) and frame.image.dtype == np.uint8
    assert 0 <= len(frame.dice) <= 40
    for die in frame.dice:
        assert die.face in FACES
        assert die.corners.shape == (4, 2)
        assert cv2.isContourConvex(die.corners.astype(np.float32))
        assert 38.0 <= die.edge <= 165.0, die.edge  # VISION.md: 40..160 px
        assert np.allclose(die.corners.mean(axis=0), die.center, atol=0.05 * die.edge)
        assert (
            (die.corners >= -1).all()
            and (die.corners[:, 0] <= 1281).all()
            and (die.corners[:, 1] <= 961).all()
        )
    # Touching is allowed, stacking and overlapping are not.
    for i, a in enumerate(frame.dice):
        for b in frame.dice[i + 1 :]:
            inter, _ = cv2.intersectConvexConvex(
                a.corners.astype(np.float32), b.corners.astype(np.float32)
            )
            assert inter < 0.02 * min(_area(a.corners), _area(b.corners))


def test_many_dice_and_none() -> None:
    assert len(render_frame(5, n_dice=40).dice) == 40
    empty = render_frame(5, n_dice=0)
    assert empty.dice == [] and empty.image.std() > 0


def test_faces_follow_a_fair_roll() -> None:
    faces = [
        d.face
        for s in range(25)
        for d in render_frame(s, n_dice=20, size=(640, 480), clutter=False).dice
    ]
    counts = {f: faces.count(f) / len(faces) for f in FACES}
    assert 0.25 < counts["I"] < 0.42
    assert all(0.1 < counts[f] < 0.23 for f in "123E")


def test_the_top_face_shows_the_die_not_the_table() -> None:
    style = style_by_name("white/black/classic")
    placed = [DiePlacement("E", (320.0, 240.0), 100.0, 30.0)]
    frame = render_placed(1, placed, style=style, size=(640, 480), surface_kind="felt")
    crop = cut_face(frame.image, frame.dice[0].corners)
    face = crop[
        CROP_MARGIN + 8 : CROP_SIZE - CROP_MARGIN - 8, CROP_MARGIN + 8 : CROP_SIZE - CROP_MARGIN - 8
    ]
    # A white die with black ink: bright body and a dark motif.
    assert np.percentile(face, 60) > 150
    assert np.percentile(face, 3) < 110


def test_render_placed_puts_given_faces_where_asked() -> None:
    style = HELD_OUT[0]
    placed = [
        DiePlacement(f, (200.0 + 200 * i, 300.0 + 40 * i), 90.0, 15.0 * i)
        for i, f in enumerate("I123E")
    ]
    frame = render_placed(4, placed, style=style, size=(1280, 960))
    assert sorted(d.face for d in frame.dice) == sorted("I123E")
    for p in placed:
        die = next(d for d in frame.dice if d.face == p.face)
        offset = np.hypot(p.center[0] - 640, p.center[1] - 480)
        # Straight down, the top face sits above its footprint: a small outward shift.
        assert (
            np.hypot(die.center[0] - p.center[0], die.center[1] - p.center[1]) <= 0.06 * offset + 1
        )
        assert die.style == style.name
    with pytest.raises(ValueError, match="unknown face"):
        render_placed(1, [DiePlacement("7", (100.0, 100.0))], style=style)


def test_styles_are_split_by_whole_style() -> None:
    names = [s.name for s in ALL_STYLES]
    assert len(set(names)) == len(names)
    train, val, held = ({s.name for s in g} for g in (TRAIN, VALIDATION, HELD_OUT))
    assert not (train & val) and not (train & held) and not (val & held)
    assert train | val | held == set(names)

    def pairs(group: Sequence[Style]) -> set[tuple[str, str]]:
        return {(s.body.name, s.art.name) for s in group}

    assert not (pairs(TRAIN) & pairs(HELD_OUT)) and not (pairs(TRAIN) & pairs(VALIDATION))
    assert "jade" not in {s.body.name for s in TRAIN} | {s.body.name for s in VALIDATION}
    # Every drawing is still learnt from some training style.
    arts = [s.art for s in TRAIN]
    assert {a.lettering for a in arts} == set(LETTERINGS)
    assert {a.tentacle for a in arts} == set(TENTACLES)
    assert {a.elder for a in arts} == set(ELDER_SIGNS)
    assert {a.arrangement for a in arts} == set(ARRANGEMENTS)
    assert {s.body.translucent for s in TRAIN} == {True, False}


@pytest.mark.parametrize(
    "lettering,tentacle,elder", list(zip(LETTERINGS, TENTACLES * 2, ELDER_SIGNS * 2, strict=False))
)
def test_motifs_have_ink_and_differ(lettering: str, tentacle: str, elder: str) -> None:
    for arrangement in ARRANGEMENTS:
        masks = {
            f: motif_mask(
                f,
                128,
                lettering=lettering,
                tentacle=tentacle,
                arrangement=arrangement,
                elder=elder,
                rng=np.random.default_rng(0),
            )
            for f in FACES
        }
        ink = {f: float(m.sum()) for f, m in masks.items()}
        assert all(v > 150 for v in ink.values()), ink
        # Motifs differ from each other, and every motif stays inside the face.
        for a in FACES:
            for b in FACES:
                if a < b:
                    ma, mb = masks[a] > 0.5, masks[b] > 0.5
                    assert (ma & mb).sum() / (ma | mb).sum() < 0.6, (a, b)
        for m in masks.values():
            assert (
                m[:4].sum() == 0
                and m[-4:].sum() == 0
                and m[:, :4].sum() == 0
                and m[:, -4:].sum() == 0
            )


def test_surfaces_are_textured() -> None:
    rng = np.random.default_rng(0)
    for kind in ("felt", "wood", "mat", "cloth", "paper"):
        img = surface(rng, 120, 160, 40.0, kind)
        assert img.shape == (120, 160, 3)
        assert img.std() > 0.5


def test_cut_face_ignores_corner_order_and_never_mirrors() -> None:
    img = np.full((200, 200, 3), 40, np.uint8)
    quad = np.array([[60, 50], [150, 60], [140, 150], [50, 140]], np.float64)
    cv2.fillPoly(img, [quad.astype(np.int32)], (220, 220, 220))
    cv2.circle(img, (75, 70), 8, (0, 0, 255), -1)  # a mark near the first corner
    ref = cut_face(img, quad)
    assert ref.shape == (CROP_SIZE, CROP_SIZE, 3) and ref.dtype == np.uint8
    for order in (quad[::-1], np.roll(quad, 1, axis=0), quad[[0, 2, 1, 3]]):
        assert np.array_equal(cut_face(img, order), ref)
    # The face fills the crop inside the margin; the margin shows the table.
    inner = ref[CROP_MARGIN + 2 : -CROP_MARGIN - 2, CROP_MARGIN + 2 : -CROP_MARGIN - 2]
    assert (inner.mean(axis=2) > 60).mean() > 0.95
    assert ref[1, CROP_SIZE // 2].mean() < 60
    # The red mark lands in one corner of the face, and the mirror image of
    # the layout is never produced: mark, then clockwise the same corners.
    red = np.argwhere((ref[..., 2] > 200) & (ref[..., 1] < 80)).mean(axis=0)
    assert min(np.hypot(*(red - c)) for c in ([14, 14], [14, 50], [50, 50], [50, 14])) < 8
    ordered = order_corners(quad)
    u, v = ordered[1] - ordered[0], ordered[2] - ordered[1]
    cross = u[0] * v[1] - u[1] * v[0]
    assert cross > 0  # clockwise on screen (y down)


def test_cut_face_large_die_is_smoothed_not_aliased() -> None:
    img = np.zeros((600, 600, 3), np.uint8)
    img[:, ::2] = 255  # finest stripes: aliasing would keep full contrast
    quad = np.array([[100, 100], [400, 100], [400, 400], [100, 400]], np.float64)
    crop = cut_face(img, quad)
    assert 100 < crop.mean() < 155
    assert crop.std() < 30


def test_hard_clutter_is_opt_in_and_leaves_the_dice_alone() -> None:
    plain = render_frame(31, n_dice=6, size=(640, 480))
    again = render_frame(31, n_dice=6, size=(640, 480), hard_clutter=False)
    hard = render_frame(31, n_dice=6, size=(640, 480), hard_clutter=True)
    assert np.array_equal(plain.image, again.image)
    # same dice, same truth; the clutter changes other pixels only
    assert [(d.face, d.center) for d in hard.dice] == [(d.face, d.center) for d in plain.dice]
    assert not np.array_equal(plain.image, hard.image)
    assert np.array_equal(
        hard.image, render_frame(31, n_dice=6, size=(640, 480), hard_clutter=True).image
    )


def _outside_tops(frame: object, shape: tuple[int, int]) -> np.ndarray:
    """Pixels of the frame outside every die's top face (a little grown)."""
    mask = np.ones(shape, np.uint8)
    for d in frame.dice:  # type: ignore[attr-defined]
        c = d.corners.mean(axis=0)
        grown = c + (d.corners - c) * 1.06
        cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 0)
    return mask.astype(bool)


def test_painted_sides_are_opt_in_and_change_only_the_sides() -> None:
    kw = {"n_dice": 6, "size": (640, 480), "tilt_deg": 25.0, "edge_range": (70.0, 90.0)}
    plain = render_frame(41, **kw)  # type: ignore[arg-type]
    assert np.array_equal(plain.image, render_frame(41, side_art=False, **kw).image)  # type: ignore[arg-type]
    painted = render_frame(41, side_art=True, **kw)  # type: ignore[arg-type]
    assert [(d.face, d.center) for d in painted.dice] == [(d.face, d.center) for d in plain.dice]
    diff = np.abs(painted.image.astype(int) - plain.image.astype(int)).max(axis=2) > 40
    assert diff.sum() > 200  # art on the sides in view
    # the top faces keep their pixels: the sides are painted beside them, not over them
    inside = ~_outside_tops(plain, plain.image.shape[:2])
    assert diff[inside].mean() < 0.02


def test_a_wider_lens_shows_more_of_the_sides() -> None:
    kw = {"n_dice": 8, "size": (640, 480), "tilt_deg": 0.0, "edge_range": (50.0, 60.0)}

    def side_pixels(lens: tuple[float, float]) -> int:
        plain = render_frame(5, lens=lens, **kw)  # type: ignore[arg-type]
        painted = render_frame(5, lens=lens, side_art=True, **kw)  # type: ignore[arg-type]
        diff = np.abs(painted.image.astype(int) - plain.image.astype(int)).max(axis=2)
        return int((diff > 25).sum())

    # looking straight down, only the parallax of a short focal length shows the sides
    assert side_pixels((0.7, 0.7)) > 2 * side_pixels((1.8, 1.8))


def test_a_bodys_shape_and_pattern_are_opt_in_and_change_the_face() -> None:
    from dataclasses import replace

    from companion.synth.dice import face_texture

    style = TRAIN[0]
    assert (style.body.radius, style.body.bevel, style.body.pattern) == (0.13, 0.09, "")

    def texture(**body: Any) -> tuple[np.ndarray, np.ndarray]:
        st = replace(style, body=replace(style.body, **body))
        return face_texture(st, "E", np.random.default_rng(5), (0.5, -0.5))

    base_color, base_alpha = texture()
    same_color, same_alpha = texture(radius=0.13, bevel=0.09, pattern="")
    assert np.array_equal(base_color, same_color) and np.array_equal(base_alpha, same_alpha)
    # a sharper die covers more of its square's corner, a rounder one less
    sharp, round_ = texture(radius=0.03)[1], texture(radius=0.24)[1]
    assert sharp[:12, :12].sum() > base_alpha[:12, :12].sum() > round_[:12, :12].sum()
    for kind in ("wood", "speckled", "pearl"):
        color, alpha = texture(pattern=kind)
        assert np.array_equal(alpha, base_alpha)
        assert 2.0 < float(np.abs(color - base_color).mean()) < 60.0, kind
    with pytest.raises(ValueError, match="pattern"):
        texture(pattern="tartan")
    # a glossy rim brightens the rim alone, most on the side facing the light (up and right)
    dark = (60, 120, 40)  # a white body is already at full light on its lit rim
    glossy, matte = texture(rim_gloss=1.0, color=dark)[0], texture(color=dark)[0]
    assert np.array_equal(texture(rim_gloss=0.0)[0], base_color)
    gain = (glossy - matte).mean(axis=2)
    assert np.abs(gain[40:88, 40:88]).max() < 1e-3
    assert gain[60:68, -10:].mean() > gain[60:68, :10].mean() > 5.0


def test_brighter_sides_brighten_only_the_sides() -> None:
    from dataclasses import replace

    kw = {"n_dice": 6, "size": (640, 480), "tilt_deg": 25.0, "edge_range": (70.0, 90.0)}
    dark = render_frame(41, side_art=True, **kw)  # type: ignore[arg-type]
    lit_styles = [replace(s, body=replace(s.body, side_shade=0.95)) for s in TRAIN]
    lit = render_frame(41, side_art=True, styles=lit_styles, **kw)  # type: ignore[arg-type]
    d = lit.image.astype(int) - dark.image.astype(int)
    changed = np.abs(d).max(axis=2) > 10
    assert changed.sum() > 200
    assert d[changed].mean() > 10  # brighter where they differ
    # the top faces keep their pixels but at their rounded rims, where the sides show
    inside = ~_outside_tops(dark, dark.image.shape[:2])
    assert changed[inside].mean() < 0.05
    assert changed[~inside].sum() > 3 * changed[inside].sum()
