"""The enrolled dice's pixels as a second read: a `?` of the profile's head becomes its best
guess only when the pixels name the same motif, on a set whose pixels check out."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from companion.synth import FACES, style_by_name
from companion.vision import classify
from companion.vision.classify import UNKNOWN, FaceClassifier
from companion.vision.enroll import EnrolmentError, Profile
from companion.vision.pixel_templates import (
    MARGIN_FLOOR,
    MIN_ACCURACY,
    OBJECTION_FLOOR,
    SHIFT,
    SIDE,
    UNLIKE_GAP,
    PixelTemplates,
    describe,
)
from tests.test_enroll import _enrolment_crops

STYLE = "jade/navy/pulp"
# A limit no head probability reaches: every die is `?` to the head alone.
NONE_PASSES = (0.999999,) * len(FACES)


@pytest.fixture(scope="module")
def clf(face_clf: FaceClassifier) -> FaceClassifier:
    return face_clf


@pytest.fixture(scope="module")
def profile(enrolled_table: Profile) -> Profile:
    """The table's profile as one saved before session 29: its pixels only settle or hold
    back the head's read (the rescue and the objection these tests check); test_fused_read.py
    checks the fused read."""
    assert enrolled_table.fuses
    return dataclasses.replace(enrolled_table, pixel_weight=0.0, fused_limits=())


def other_sets() -> np.ndarray:
    """Crops of dice of two other sets (one frame per motif each)."""
    return np.concatenate(
        [
            _enrolment_crops(style_by_name(name), 78, frames=1)[0]
            for name in ("black/white/gothic", "red/gold/deep")
        ]
    )


def head_alone(clf: FaceClassifier, prof: Profile) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The set's dice of another frame, their motifs, and what the profile's head alone reads
    of them (most of them, a check)."""
    test, truth, _ = _enrolment_crops(style_by_name(STYLE), 77, frames=1)
    head = _reads(clf, dataclasses.replace(prof, pixels=None), test)
    assert sum(f != UNKNOWN for f in head) >= 0.8 * len(test)
    return test, truth, head


def _reads(clf: FaceClassifier, prof: Profile, crops: np.ndarray) -> list[str]:
    clf.profile = prof
    try:
        return [r.face for r in clf.classify(crops)]
    finally:
        clf.profile = None


def test_descriptor_is_zero_mean_unit_length_and_ignores_brightness() -> None:
    crops, _, _ = _enrolment_crops(style_by_name(STYLE), 3, frames=1, n_dice=4)
    d = describe(crops)
    assert d.shape == (len(crops), SIDE, SIDE)
    assert np.allclose(d.reshape(len(d), -1).mean(axis=1), 0, atol=1e-5)
    assert np.allclose(np.linalg.norm(d.reshape(len(d), -1), axis=1), 1, atol=1e-4)
    dim = (crops.astype(np.float32) * 0.6 + 20).astype(np.uint8)
    assert (describe(dim).reshape(len(d), -1) * d.reshape(len(d), -1)).sum(axis=1).min() > 0.98


def _drawn(shape: int, art_bgr: tuple[int, int, int], body_bgr: tuple[int, int, int]) -> np.ndarray:
    """A crop of a face of one body colour with one of five drawings of another on it: an L,
    a bar, a plus, a ring, two dots (none any other turned)."""
    from companion.vision.crop import CROP_SIZE

    crop = np.empty((CROP_SIZE, CROP_SIZE, 3), np.uint8)
    crop[:] = body_bgr
    parts = {
        0: [(18, 46, 24, 30), (40, 46, 24, 42)],
        1: [(18, 46, 29, 35)],
        2: [(18, 46, 29, 35), (29, 35, 18, 46)],
        3: [(20, 44, 20, 26), (20, 44, 38, 44), (20, 26, 20, 44), (38, 44, 20, 44)],
        4: [(22, 30, 22, 30), (34, 42, 34, 42)],
    }[shape]
    for y0, y1, x0, x1 in parts:
        crop[y0:y1, x0:x1] = art_bgr
    return crop


def test_colour_edges_see_art_of_the_body_s_grey() -> None:
    # outlines the same grey as the body (otherhand dev oh3a, oh4a read 14-16 % by grey edges)
    body, art = (40, 160, 40), (200, 90, 118)
    grey = [0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2] for c in (body, art)]
    assert abs(grey[0] - grey[1]) < 2
    crops = np.stack([_drawn(0, art, body), _drawn(1, art, body), _drawn(0, (0, 0, 0), body)])
    noise = np.random.default_rng(5).normal(0.0, 3.0, crops.shape)  # a camera's
    crops = np.clip(crops + noise, 0, 255).astype(np.uint8)
    by_grey = describe(crops, colour=False).reshape(3, -1)
    by_colour = describe(crops, colour=True).reshape(3, -1)
    assert by_colour[0] @ by_colour[2] > 0.95  # the same drawing as in ink
    assert by_colour[0] @ by_colour[1] < 0.7  # another drawing
    assert abs(by_grey[0] @ by_grey[2]) < 0.5  # the grey sees little of it


def test_a_die_cut_a_little_off_its_face_still_matches_its_enrolled_dice() -> None:
    enrolled = np.stack([_drawn(k, (220, 220, 220), (30, 30, 30)) for k in range(5)])
    labels = np.arange(5)
    px = PixelTemplates.fit(enrolled, labels, labels)
    assert (px.colour, px.shift) == (True, SHIFT)
    off = np.roll(enrolled, (3, -3), axis=(1, 2))  # 3 crop pixels: about a cell of SIDE
    still = px.similarities(off)[0]
    assert (still.argmax(axis=1) == labels).all()
    unshifted = dataclasses.replace(px, shift=0).similarities(off)[0]
    assert (still[labels, labels] > unshifted[labels, labels] + 0.05).all()


def test_pixels_read_a_turned_die_as_it_is(profile: Profile) -> None:
    assert profile.pixels is not None
    test, truth, _ = _enrolment_crops(style_by_name(STYLE), 77, frames=1)
    pred, margin, _ = profile.pixels.read(test)
    turned, turned_margin, _ = profile.pixels.read(np.ascontiguousarray(np.rot90(test, 1, (1, 2))))
    assert (pred == turned).all()
    assert np.allclose(margin, turned_margin, atol=1e-4)
    assert (pred == truth).mean() >= 0.9


def test_enrolment_checks_its_pixels_with_each_frame_left_out(clf: FaceClassifier) -> None:
    crops, labels, frames = _enrolment_crops(style_by_name(STYLE), 11)
    good = PixelTemplates.fit(crops, labels, frames)
    assert good.usable and good.accuracy >= MIN_ACCURACY
    # frames in the wrong motif's folder: the check reads them as what they show, not as
    # labelled (each such frame, and the other frame of its motif, reads wrong). A swap of two
    # whole folders would pass: no check can tell it from a set drawn that way.
    swapped = labels.copy()
    swapped[(labels == 0) & (frames == frames[labels == 0].min())] = 4
    swapped[(labels == 2) & (frames == frames[labels == 2].min())] = 3
    bad = PixelTemplates.fit(crops, swapped, frames)
    assert bad.accuracy < good.accuracy
    assert not bad.usable
    # a motif with a single frame has no other frame to be read by: all wrong in the check
    one = frames.copy()
    one[labels == 2] = frames[labels == 2].min()
    assert PixelTemplates.fit(crops, labels, one).accuracy < good.accuracy


def test_a_head_unsure_die_reads_its_best_guess_when_the_pixels_agree(
    clf: FaceClassifier, profile: Profile
) -> None:
    test, truth, _ = _enrolment_crops(style_by_name(STYLE), 77, frames=1)
    strict = dataclasses.replace(profile, limits=NONE_PASSES)
    assert all(f == UNKNOWN for f in _reads(clf, dataclasses.replace(strict, pixels=None), test))
    rescued = _reads(clf, strict, test)
    read = [f for f in rescued if f != UNKNOWN]
    assert len(read) >= 0.8 * len(test)
    assert all(f == FACES[t] for f, t in zip(rescued, truth, strict=True) if f != UNKNOWN)
    # whatever the limits, the pixels never name a motif of their own: a `?` may become the
    # head's best guess, a read may become `?`, nothing else; the set's own pixels, which
    # read its dice right, hold back none of them
    for limits in (NONE_PASSES, (0.9,) * len(FACES), profile.limits):
        head = dataclasses.replace(profile, limits=limits, pixels=None)
        clf.profile = head
        alone = clf.classify(test)
        clf.profile = None
        both = _reads(clf, dataclasses.replace(head, pixels=profile.pixels), test)
        for a, b in zip(alone, both, strict=True):
            assert b == a.face or (a.face == UNKNOWN and b == a.best), (a, b)


def test_a_read_die_the_pixels_take_for_another_motif_reads_unknown(
    clf: FaceClassifier, profile: Profile
) -> None:
    assert profile.pixels is not None
    test, truth, head = head_alone(clf, profile)
    # templates labelled one motif on, from a set whose own check had no wrong read: the
    # pixels name another motif than every die the head reads
    shifted = dataclasses.replace(
        profile.pixels, labels=(profile.pixels.labels + 1) % len(FACES), worst_wrong=0.0
    )
    pred, margin, nearest = shifted.read(test)
    assert shifted.objection_margin == OBJECTION_FLOOR
    assert (nearest >= shifted.least_similar).mean() >= 0.9  # dice of the enrolled set
    held = _reads(clf, dataclasses.replace(profile, pixels=shifted), test)
    for h, b, p, m, n in zip(head, held, pred, margin, nearest, strict=True):
        if h == UNKNOWN:
            assert b in (UNKNOWN, FACES[p])  # at most its best guess, where the pixels agree
        elif FACES[p] != h and m >= OBJECTION_FLOOR and n >= shifted.least_similar:
            assert b == UNKNOWN, (h, b, m)
        else:
            assert b == h
    assert sum(h != UNKNOWN and b == UNKNOWN for h, b in zip(head, held, strict=True)) >= (
        0.5 * len(test)
    )
    # an objection needs more than any wrong read of the set's own check
    wide = dataclasses.replace(shifted, worst_wrong=8.0)
    assert wide.objection_margin == 8.0
    assert _reads(clf, dataclasses.replace(profile, pixels=wide), test) == head
    # and a set whose pixels read its own dice badly objects to nothing
    unsure = dataclasses.replace(shifted, accuracy=MIN_ACCURACY - 0.01)
    assert _reads(clf, dataclasses.replace(profile, pixels=unsure), test) == head
    # nor does a profile from before objections
    old = dataclasses.replace(shifted, least_similar=2.0)
    assert _reads(clf, dataclasses.replace(profile, pixels=old), test) == head


def test_the_pixels_hold_back_no_die_less_like_the_enrolled_ones_than_any_of_them(
    clf: FaceClassifier, profile: Profile
) -> None:
    assert profile.pixels is not None
    # dice of other sets, with the templates labelled one motif on: the pixels name another
    # motif than the head reads, and only dice as like the enrolled ones as they are to each
    # other are held back
    shifted = dataclasses.replace(
        profile.pixels, labels=(profile.pixels.labels + 1) % len(FACES), worst_wrong=0.0
    )
    other = other_sets()
    _, margin, nearest = shifted.read(other)
    unlike = nearest < shifted.least_similar
    assert 0.2 * len(other) <= unlike.sum() <= 0.8 * len(other)
    head = _reads(clf, dataclasses.replace(profile, pixels=None), other)
    both = _reads(clf, dataclasses.replace(profile, pixels=shifted), other)
    held = np.array([h != UNKNOWN and b == UNKNOWN for h, b in zip(head, both, strict=True)])
    assert not (held & unlike).any()
    assert (held & ~unlike).any()


def _not_dice(n: int) -> np.ndarray:
    """Crops of what a finder takes for a die on a busy table: grid cells, a ringed marker,
    plain card."""
    rng = np.random.default_rng(5)
    out = np.full((n, 64, 64, 3), 235, np.uint8)
    yy, xx = np.mgrid[:64, :64]
    for i in range(n):
        if i % 3 == 0:  # grid paper at a pitch near the die's
            step = int(rng.integers(14, 30))
            out[i, ::step] = 90
            out[i, :, ::step] = 90
        elif i % 3 == 1:  # a printed ring marker
            r = np.hypot(yy - 32, xx - 32)
            out[i][(r > 14) & (r < 20)] = 40
        out[i] = np.clip(out[i] + rng.normal(0, 6, (64, 64, 3)), 0, 255).astype(np.uint8)
    return out


def test_pixels_tell_things_that_are_no_die_from_the_table_s_dice(profile: Profile) -> None:
    assert profile.pixels is not None and profile.pixels.least_similar <= 1.0
    dice, _, _ = _enrolment_crops(style_by_name(STYLE), 79, frames=1)
    assert profile.pixels.unlike(dice).mean() <= 0.05
    unlike = profile.pixels.unlike(_not_dice(9))
    assert unlike.sum() >= 7
    _, _, nearest = profile.pixels.read(_not_dice(9))
    assert (unlike == (nearest < profile.pixels.least_similar - UNLIKE_GAP)).all()
    # a profile from before its least typical die was measured knows no "far"
    old = dataclasses.replace(profile.pixels, least_similar=2.0)
    assert not old.unlike(_not_dice(9)).any()
    assert not dataclasses.replace(profile, pixels=None).pixel_foreign(_not_dice(9)).any()


def test_a_find_the_model_has_some_doubt_about_reads_unknown_if_its_pixels_are_unlike(
    clf: FaceClassifier, profile: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """WARY_SHARE at 0: every find is one the model has some doubt about, and exactly those
    whose pixels are like none of the enrolled dice turn `?`; none is left out. At 2 (more
    than the doubt itself) the pixels change nothing."""
    dice, _, _ = _enrolment_crops(style_by_name(STYLE), 79, frames=1)
    # another set's dice: dice to the model, and many unlike the enrolled ones to the pixels
    other = _enrolment_crops(style_by_name("black/white/gothic"), 78, frames=1)[0]
    crops = np.concatenate([dice, other])
    far = profile.pixel_foreign(crops)
    assert far[: len(dice)].mean() <= 0.05 and far[len(dice) :].sum() >= 3
    clf.profile = dataclasses.replace(profile, doubt=1.0)  # no find doubted
    try:
        monkeypatch.setattr(classify, "WARY_SHARE", 2.0)
        base = clf.classify(crops)
        monkeypatch.setattr(classify, "WARY_SHARE", 0.0)
        wary = clf.classify(crops)
    finally:
        clf.profile = None
    assert [r.not_die for r in wary] == [r.not_die for r in base]
    for b, w, f in zip(base, wary, far, strict=True):
        assert w.face == (UNKNOWN if f else b.face)
    assert (
        sum(b.face != UNKNOWN and w.face == UNKNOWN for b, w in zip(base, wary, strict=True)) >= 3
    )


def test_no_rescue_where_the_pixels_disagree_or_the_set_fails_its_check(
    clf: FaceClassifier, profile: Profile
) -> None:
    assert profile.pixels is not None
    test, _, _ = _enrolment_crops(style_by_name(STYLE), 77, frames=1)
    strict = dataclasses.replace(profile, limits=NONE_PASSES)
    # templates labelled one motif on: the pixels name another motif than the head, but
    # where the head's best guess was that motif too (a die it was unsure of and wrong)
    shifted = dataclasses.replace(profile.pixels, labels=(profile.pixels.labels + 1) % len(FACES))
    clf.profile = dataclasses.replace(profile, pixels=None)
    best = [r.best for r in clf.classify(test)]
    clf.profile = None
    pix = [FACES[k] for k in shifted.read(test)[0]]
    reads = _reads(clf, dataclasses.replace(strict, pixels=shifted), test)
    assert sum(f != UNKNOWN for f in reads) <= 0.1 * len(test)
    assert all(f == b == p for f, b, p in zip(reads, best, pix, strict=True) if f != UNKNOWN)
    # a set whose pixels read its own dice badly rescues nothing
    unsure = dataclasses.replace(profile.pixels, accuracy=MIN_ACCURACY - 0.01)
    assert all(f == UNKNOWN for f in _reads(clf, dataclasses.replace(strict, pixels=unsure), test))
    # nor does a margin the set's own wrong reads reached
    wide = dataclasses.replace(profile.pixels, worst_wrong=8.0)
    assert wide.needed_margin > 1.0 > MARGIN_FLOOR
    assert all(f == UNKNOWN for f in _reads(clf, dataclasses.replace(strict, pixels=wide), test))
    # things that are not dice are never rescued into a motif
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (4, 64, 64, 3), dtype=np.uint8)
    assert all(f == UNKNOWN for f in _reads(clf, strict, noise))


def test_pixel_templates_survive_save_and_load(
    tmp_path: Path, clf: FaceClassifier, profile: Profile
) -> None:
    assert profile.pixels is not None
    px = profile.pixels
    profile.save(tmp_path / "p")
    back = Profile.load(tmp_path / "p", clf)
    assert back.pixels is not None
    assert np.array_equal(back.pixels.templates, profile.pixels.templates)
    assert np.array_equal(back.pixels.labels, profile.pixels.labels)
    assert back.pixels.accuracy == profile.pixels.accuracy
    assert back.pixels.worst_wrong == profile.pixels.worst_wrong
    assert back.pixels.least_similar == profile.pixels.least_similar < 1.0
    assert (back.pixels.colour, back.pixels.shift) == (True, SHIFT) == (px.colour, px.shift)
    # a profile from before session 43 keeps the grey edges it was checked with, unshifted
    meta = json.loads((tmp_path / "p" / "profile.json").read_text())
    del meta["pixel_check"]["colour"], meta["pixel_check"]["shift"]
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    older = Profile.load(tmp_path / "p", clf).pixels
    assert older is not None and (older.colour, older.shift) == (False, 0)
    # a profile from before pixel templates still reads, with the head alone
    dataclasses.replace(profile, pixels=None).save(tmp_path / "old")
    meta = json.loads((tmp_path / "old" / "profile.json").read_text())
    assert meta["pixel_check"] is None
    del meta["pixel_check"]
    (tmp_path / "old" / "profile.json").write_text(json.dumps(meta))
    assert Profile.load(tmp_path / "old", clf).pixels is None


def test_damaged_pixel_templates_are_one_sentence(
    tmp_path: Path, clf: FaceClassifier, profile: Profile
) -> None:
    assert profile.pixels is not None
    px = profile.pixels
    cases = {
        "nan": dataclasses.replace(px, templates=np.full_like(px.templates, np.nan)),
        "shape": dataclasses.replace(px, templates=px.templates[:, :10]),
        "labels": dataclasses.replace(px, labels=px.labels + 7),
        "accuracy": dataclasses.replace(px, accuracy=3.0),
        "shift": dataclasses.replace(px, shift=9),
    }
    for name, bad in cases.items():
        dataclasses.replace(profile, pixels=bad).save(tmp_path / name)
        with pytest.raises(EnrolmentError, match="damaged pixel templates; enrol again"):
            Profile.load(tmp_path / name, clf)
    # the arrays gone while the check says they are there
    profile.save(tmp_path / "gone")
    dataclasses.replace(profile, pixels=None).save(tmp_path / "arrays")
    (tmp_path / "gone" / "profile.npz").write_bytes(
        (tmp_path / "arrays" / "profile.npz").read_bytes()
    )
    with pytest.raises(EnrolmentError, match="cannot read the profile"):
        Profile.load(tmp_path / "gone", clf)


def test_enrolment_and_doctor_say_what_the_pixel_check_found(profile: Profile) -> None:
    from companion.vision import faces_cli

    assert profile.pixels is not None and profile.pixels.usable
    lines = faces_cli.self_check_lines(profile)
    said = [line for line in lines if line.startswith("pixel check")]
    assert len(said) == 1 and "becomes its best guess" in said[0], lines
    wary = "a find the model gives a 3% chance or more of being no die reads ? when its drawing"
    assert any(line.startswith(wary) for line in lines), lines
    older = dataclasses.replace(profile.pixels, least_similar=2.0)  # knows no "like none"
    assert not any(
        line.startswith(wary)
        for line in faces_cli.self_check_lines(dataclasses.replace(profile, pixels=older))
    )
    assert "pixel check" in profile.summary() and "may settle a ?" in profile.summary()
    weak = dataclasses.replace(profile, pixels=dataclasses.replace(profile.pixels, accuracy=0.5))
    said = [line for line in faces_cli.self_check_lines(weak) if line.startswith("pixel check")]
    assert "50.0% read right, too few to settle a ? (at least 80% needed)" in said[0]
    assert "too few to settle a ?" in weak.summary()
    old = dataclasses.replace(profile, pixels=None).summary()
    assert "pixel check" not in old and "enrol again" in old


def test_the_check_in_blocks_is_the_check_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.vision import pixel_templates

    crops, labels, frames = _enrolment_crops(style_by_name(STYLE), 11)
    whole = PixelTemplates.fit(crops, labels, frames)
    monkeypatch.setattr(pixel_templates, "CHECK_BLOCK", 7)
    blocks = PixelTemplates.fit(crops, labels, frames)
    assert blocks.accuracy == whole.accuracy
    assert blocks.worst_wrong == pytest.approx(whole.worst_wrong)
