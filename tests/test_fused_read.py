"""A profile enrolled since session 29 also reads its head and the enrolled dice's pixels as
one (pixel_templates.fuse), with limits of its own from the same fused cross-check: a die
the head reads keeps its motif only if that read names it too, and where the set's pixels
are to be trusted and the die looks like the enrolled dice, it decides a die the head is
unsure of (docs/vision.md, session 29)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from companion.synth import FACES, style_by_name
from companion.vision import enroll, pixel_templates
from companion.vision.classify import UNKNOWN, FaceClassifier, rotation_run, softmax
from companion.vision.enroll import (
    FUSED_FLOOR,
    MIN_THRESHOLD,
    EnrolmentError,
    Profile,
    _limits,
)
from companion.vision.pixel_templates import (
    DECIDE_FLOOR,
    MIN_ACCURACY,
    PIXEL_WEIGHT,
    WEAK_ACCURACY,
    WEAK_FLOOR,
    PixelReads,
    fuse,
    settle,
)
from tests.test_enroll import _enrolment_crops
from tests.test_pixel_templates import NONE_PASSES, STYLE, _reads, head_alone, other_sets


def test_fuse_adds_the_weighted_similarity_to_the_head_s_log_probabilities() -> None:
    rng = np.random.default_rng(3)
    probs = softmax(rng.normal(0, 2, (6, 5)).astype(np.float32))
    per = rng.uniform(-0.2, 0.9, (6, 5)).astype(np.float32)
    want = softmax((np.log(probs) + 7.0 * per).astype(np.float32))
    assert np.allclose(fuse(probs, per, 7.0), want, atol=1e-5)
    # pixels alike for every motif, or weighing nothing, change nothing
    assert np.allclose(fuse(probs, np.full_like(per, 0.4), 7.0), probs, atol=1e-5)
    assert np.allclose(fuse(probs, per, 0.0), probs, atol=1e-5)
    # a motif without templates (-2) counts as the least similarity a read can have
    lone = per.copy()
    lone[:, 2] = -2.0
    assert np.allclose(
        fuse(probs, lone, 7.0)[:, 2], fuse(probs, np.where(lone < -1, -1, lone), 7.0)[:, 2]
    )
    # a die the head is torn on goes the pixels' way
    torn = np.array([[0.45, 0.45, 0.04, 0.03, 0.03]], np.float32)
    assert fuse(torn, np.array([[0.3, 0.5, 0.3, 0.3, 0.3]], np.float32)).argmax() == 1


def test_enrolment_sets_the_fused_read_s_limits_from_its_own_cross_check(
    enrolled_table: Profile,
) -> None:
    assert enrolled_table.fuses and enrolled_table.pixel_weight == PIXEL_WEIGHT
    assert len(enrolled_table.fused_limits) == len(FACES)
    assert all(FUSED_FLOOR <= v <= 0.995 for v in enrolled_table.fused_limits)
    # the floor is the fused read's own; the head's limits keep theirs
    assert all(v >= MIN_THRESHOLD for v in enrolled_table.limits)
    conf = np.array([0.9, 0.65, 0.8], np.float32)
    pred = np.array([1, 2, 3])
    labels = np.array([2, 2, 3])
    wrong = np.array([True, False, False])
    assert _limits(conf, pred, labels, wrong, 50, FUSED_FLOOR).tolist() == pytest.approx(
        [0.7, 0.905, 0.905, 0.7, 0.7]
    )
    assert _limits(conf, pred, labels, wrong, 50).tolist() == pytest.approx(
        [MIN_THRESHOLD, 0.905, 0.905, MIN_THRESHOLD, MIN_THRESHOLD]
    )


def test_a_read_die_keeps_its_motif_only_if_the_fused_read_names_it(
    face_clf: FaceClassifier, enrolled_table: Profile
) -> None:
    assert enrolled_table.pixels is not None
    test, truth, head = head_alone(face_clf, enrolled_table)
    # the set's own pixels: as many dice read, and every one right
    both = _reads(face_clf, enrolled_table, test)
    assert sum(f != UNKNOWN for f in both) >= sum(f != UNKNOWN for f in head)
    assert all(f == FACES[t] for f, t in zip(both, truth, strict=True) if f != UNKNOWN)
    # templates labelled one motif on, with a margin no objection reaches: the fused read
    # names another motif than the head, and the head's reads become `?`, never another motif
    shifted = dataclasses.replace(
        enrolled_table.pixels,
        labels=(enrolled_table.pixels.labels + 1) % len(FACES),
        worst_wrong=8.0,
    )
    held = _reads(face_clf, dataclasses.replace(enrolled_table, pixels=shifted), test)
    assert all(b in (UNKNOWN, h) for h, b in zip(head, held, strict=True))
    assert sum(h != UNKNOWN and b == UNKNOWN for h, b in zip(head, held, strict=True)) >= (
        0.5 * len(test)
    )
    # a profile from before session 29 does not ask it
    old = dataclasses.replace(enrolled_table, pixels=shifted, pixel_weight=0.0, fused_limits=())
    assert not old.fuses
    assert _reads(face_clf, old, test) == head


def test_the_fused_read_decides_a_head_unsure_die_only_where_the_pixels_are_trusted(
    face_clf: FaceClassifier, enrolled_table: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert enrolled_table.pixels is not None
    test, truth, _ = _enrolment_crops(style_by_name(STYLE), 77, frames=1)
    # the head sure of nothing, and the pixels settling nothing alone (a margin no read has):
    # what is read, the fused read decided
    px = dataclasses.replace(enrolled_table.pixels, worst_wrong=8.0)
    strict = dataclasses.replace(enrolled_table, limits=NONE_PASSES, pixels=px)
    assert all(
        f == UNKNOWN for f in _reads(face_clf, dataclasses.replace(strict, fused_limits=()), test)
    )
    decided = _reads(face_clf, strict, test)
    assert sum(f != UNKNOWN for f in decided) >= 0.8 * len(test)
    assert all(f == FACES[t] for f, t in zip(decided, truth, strict=True) if f != UNKNOWN)
    # not where the set's pixels read its own dice poorly ...
    poor = dataclasses.replace(
        strict, pixels=dataclasses.replace(px, accuracy=WEAK_ACCURACY - 0.01)
    )
    assert all(f == UNKNOWN for f in _reads(face_clf, poor, test))
    # ... where they read them weakly, only from WEAK_FLOOR (session 44) ...
    weak_px = dataclasses.replace(px, accuracy=MIN_ACCURACY - 0.01)
    assert not weak_px.usable and weak_px.may_decide and weak_px.decide_floor == WEAK_FLOOR
    face_clf.profile = dataclasses.replace(strict, pixels=weak_px)
    try:
        weakly = face_clf.classify(test)
    finally:
        face_clf.profile = None
    read = [r for r in weakly if r.face != UNKNOWN]
    assert read and all(r.confidence >= WEAK_FLOOR for r in read)
    assert all(r.face == FACES[t] for r, t in zip(weakly, truth, strict=True) if r.face != UNKNOWN)
    monkeypatch.setattr(pixel_templates, "WEAK_FLOOR", 1.01)  # a floor no read reaches
    assert dataclasses.replace(px, accuracy=MIN_ACCURACY - 0.01).decide_floor == 1.01
    weak = dataclasses.replace(strict, pixels=weak_px)
    assert all(f == UNKNOWN for f in _reads(face_clf, weak, test))
    # ... and a usable set's floor stays DECIDE_FLOOR
    assert px.usable and px.decide_floor == DECIDE_FLOOR
    # ... nor for a die less like the enrolled dice than the least typical of them was
    aloof = dataclasses.replace(strict, pixels=dataclasses.replace(px, least_similar=1.5))
    assert all(f == UNKNOWN for f in _reads(face_clf, aloof, test))
    # ... nor below the fused read's own limits
    assert all(
        f == UNKNOWN
        for f in _reads(face_clf, dataclasses.replace(strict, fused_limits=NONE_PASSES), test)
    )


def test_another_set_s_dice_are_decided_only_where_they_look_like_the_enrolled_ones(
    face_clf: FaceClassifier, enrolled_table: Profile
) -> None:
    assert enrolled_table.pixels is not None
    px = dataclasses.replace(enrolled_table.pixels, worst_wrong=8.0)
    strict = dataclasses.replace(enrolled_table, limits=NONE_PASSES, pixels=px)
    other = other_sets()
    nearest = px.read(other)[2]
    unlike = nearest < px.least_similar
    assert unlike.sum() >= 0.2 * len(other)
    reads = _reads(face_clf, strict, other)
    assert all(f == UNKNOWN for f, u in zip(reads, unlike, strict=True) if u)


def test_the_fused_read_survives_save_and_load(
    tmp_path: Path, face_clf: FaceClassifier, enrolled_table: Profile
) -> None:
    enrolled_table.save(tmp_path / "p")
    back = Profile.load(tmp_path / "p", face_clf)
    assert back.fuses and back.pixel_weight == enrolled_table.pixel_weight
    assert back.fused_limits == pytest.approx(enrolled_table.fused_limits)
    # a profile saved before session 29 reads as it did
    meta = json.loads((tmp_path / "p" / "profile.json").read_text())
    del meta["pixel_weight"], meta["fused_limits"]
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    old = Profile.load(tmp_path / "p", face_clf)
    assert not old.fuses and old.pixels is not None
    # damaged numbers are one sentence
    for name, bad in {
        "weight": dataclasses.replace(enrolled_table, pixel_weight=-1.0),
        "nan": dataclasses.replace(enrolled_table, pixel_weight=float("nan")),
    }.items():
        bad.save(tmp_path / name)
        with pytest.raises(EnrolmentError, match="pixel weight"):
            Profile.load(tmp_path / name, face_clf)
    dataclasses.replace(enrolled_table, fused_limits=(float("nan"),) * len(FACES)).save(
        tmp_path / "lim"
    )
    with pytest.raises(EnrolmentError, match="not a number"):
        Profile.load(tmp_path / "lim", face_clf)


def _px(n: int, **kw: object) -> PixelReads:
    base: dict[str, object] = {
        "confirm": np.zeros(n, bool),
        "objection": np.zeros(n, bool),
    }
    base.update(kw)
    return PixelReads(**base)  # type: ignore[arg-type]


def test_settle_applies_each_rule_to_its_own_dice() -> None:
    # dice 0-1 the head reads (0.9 >= 0.6), dice 2-4 it is unsure of (0.5 < 0.6)
    probs = np.array(
        [[0.9, 0.05, 0.05, 0, 0], [0.9, 0.05, 0.05, 0, 0]] + [[0.5, 0.3, 0.2, 0, 0]] * 3,
        np.float32,
    )
    limit = np.full(5, 0.6)
    # before session 29: the pixels confirm die 2 and object to die 1
    p, lim = probs.copy(), limit.copy()
    settle(
        p,
        lim,
        _px(5, confirm=np.array([0, 0, 1, 0, 0], bool), objection=np.array([0, 1, 0, 0, 0], bool)),
    )
    reads = [int(a.argmax()) if a.max() >= b else None for a, b in zip(p, lim, strict=True)]
    assert reads == [0, None, 0, None, None]
    # fused: die 0 agrees, die 1 is named another motif, die 2 (confirmed) agrees, dice 3 and 4
    # are decided (4 only where the pixels may decide, and 3 names motif 1)
    fused = np.array(
        [
            [0.95, 0.05, 0, 0, 0],
            [0.1, 0.9, 0, 0, 0],
            [0.9, 0.1, 0, 0, 0],
            [0.05, 0.92, 0.03, 0, 0],
            [0.05, 0.92, 0.03, 0, 0],
        ],
        np.float32,
    )

    def fused_reads(fused: np.ndarray) -> list[int | None]:
        p, lim = probs.copy(), limit.copy()
        settle(
            p,
            lim,
            _px(
                5,
                confirm=np.array([0, 0, 1, 0, 0], bool),
                fused=fused,
                fused_limit=np.full(5, 0.7),
                decides=np.array([1, 1, 1, 1, 0], bool),
            ),
        )
        return [int(a.argmax()) if a.max() >= b else None for a, b in zip(p, lim, strict=True)]

    assert fused_reads(fused) == [0, None, 0, 1, None]
    # a die the fused read decides alone needs DECIDE_FLOOR, above its limit of 0.7
    fused[3] = [0.1, 0.85, 0.05, 0, 0]
    assert 0.7 < fused[3].max() < DECIDE_FLOOR
    assert fused_reads(fused) == [0, None, 0, None, None]
    # the fused read below its limit: agreement fails and nothing is decided
    p, lim = probs.copy(), limit.copy()
    settle(
        p,
        lim,
        _px(
            5,
            fused=fused,
            fused_limit=np.full(5, 0.99),
            decides=np.ones(5, bool),
        ),
    )
    assert all(a.max() < b for a, b in zip(p, lim, strict=True))


def test_the_self_check_reads_as_reading_does_with_the_pixels(
    face_clf: FaceClassifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a head limit no cross-check confidence reaches, the head alone leaves every
    enrolled die `?`; the self-check of a profile with pixels counts what they settle."""
    fused_limits = enroll._limits

    def strict(*args: object) -> np.ndarray:  # the head's limits (5 arguments) only
        return np.full(len(FACES), 0.999999) if len(args) == 5 else fused_limits(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(enroll, "_limits", strict)
    crops, labels, frames = _enrolment_crops(style_by_name(STYLE), 11)
    logits, rot = rotation_run(face_clf, crops)
    not_die = face_clf.motif_probabilities(logits)[1]
    head = enroll.profile_from(rot, labels, frames, "m", not_die)
    both = enroll.profile_from(rot, labels, frames, "m", not_die, crops)
    assert head.check is not None and both.check is not None
    assert head.check.dice == both.check.dice > 0
    assert head.check.right <= 0.05 * head.check.dice
    assert both.check.right >= 0.8 * both.check.dice


def test_enrolment_and_doctor_say_the_profile_reads_head_and_drawing_as_one(
    enrolled_table: Profile,
) -> None:
    from companion.vision import faces_cli

    assert enrolled_table.pixels is not None and enrolled_table.pixels.usable
    said = [
        line for line in faces_cli.self_check_lines(enrolled_table) if line.startswith("head and")
    ]
    assert len(said) == 1 and "decides a die whose drawing is like" in said[0], said
    for face, limit in zip(FACES, enrolled_table.fused_limits, strict=True):
        assert f"{face} {limit:.3f}" in said[0]
    assert "read as one with the head" in enrolled_table.summary()
    # a set whose pixels read its own dice badly: agreement only, no decision
    weak = dataclasses.replace(
        enrolled_table, pixels=dataclasses.replace(enrolled_table.pixels, accuracy=0.5)
    )
    said = [line for line in faces_cli.self_check_lines(weak) if line.startswith("head and")]
    assert len(said) == 1 and "decides" not in said[0]
    # one whose pixels read them weakly: decisions only when sure (session 44)
    weakly = dataclasses.replace(
        enrolled_table, pixels=dataclasses.replace(enrolled_table.pixels, accuracy=0.7)
    )
    said = [line for line in faces_cli.self_check_lines(weakly) if line.startswith("head and")]
    assert len(said) == 1 and f"only from {WEAK_FLOOR:.2f}, the pixel check being weak" in said[0]
    assert "a fused read decides one only when sure" in weakly.summary()
    assert (
        "only when sure" not in weak.summary() and "only when sure" not in enrolled_table.summary()
    )
    # a profile from before says nothing of it
    old = dataclasses.replace(enrolled_table, pixel_weight=0.0, fused_limits=())
    assert not any(line.startswith("head and") for line in faces_cli.self_check_lines(old))
    assert "read as one" not in old.summary()


def test_a_die_the_model_doubts_reads_the_fused_read_where_the_pixels_decide(
    face_clf: FaceClassifier, enrolled_table: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Session 42: a find the model doubts is a die reads `?` by the head alone, but the fused
    read decides it where it may decide a die the head is unsure of (docs/vision.md)."""
    assert enrolled_table.pixels is not None
    test, truth, _ = _enrolment_crops(style_by_name(STYLE), 78, frames=1)
    # every find doubted (a doubt no probability stays under)
    doubting = dataclasses.replace(enrolled_table, doubt=0.0)
    decided = _reads(face_clf, doubting, test)
    assert sum(f != UNKNOWN for f in decided) >= 0.8 * len(test)
    assert all(f == FACES[t] for f, t in zip(decided, truth, strict=True) if f != UNKNOWN)
    # not without a fused read, nor on a set whose pixels read its own dice poorly, nor below
    # the fused read's limits: there the head's doubt stands
    assert not dataclasses.replace(doubting, fused_limits=()).fuses
    for prof in (
        dataclasses.replace(doubting, fused_limits=()),
        dataclasses.replace(
            doubting,
            pixels=dataclasses.replace(enrolled_table.pixels, accuracy=WEAK_ACCURACY - 0.01),
        ),
        dataclasses.replace(doubting, fused_limits=NONE_PASSES),
    ):
        assert all(f == UNKNOWN for f in _reads(face_clf, prof, test))
    # nor under DECIDE_FLOOR, however low the fused read's own limits (session 43); this set's
    # fused reads are all above 0.9, so the floor is raised to where some are not
    floor = 0.995
    monkeypatch.setattr(pixel_templates, "DECIDE_FLOOR", floor)
    face_clf.profile = dataclasses.replace(doubting, fused_limits=(0.0,) * len(FACES))
    try:
        floored = face_clf.classify(test)
    finally:
        face_clf.profile = None
    kept = [r.face != UNKNOWN for r in floored]
    assert all(r.confidence >= floor for r, k in zip(floored, kept, strict=True) if k)
    assert 0 < sum(kept) < sum(f != UNKNOWN for f in decided)
