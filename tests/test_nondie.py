"""Crops of things that are not dice, bare-table squares, and the reader dropping finds the model
calls non-dice."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from companion.synth import TRAIN, DiePlacement, render_frame, render_placed
from companion.synth.crops import NOT_DIE, background_squares, make_crops
from companion.synth.frame import FACES
from companion.synth.nondie import KINDS, non_die_crop, non_die_crops
from companion.vision.classify import NOT_A_DIE, FaceClassifier, FaceReading
from companion.vision.crop import CROP_SIZE, cut_faces
from companion.vision.found import FoundDie
from companion.vision.read import Reader

MODEL = Path(__file__).resolve().parents[1] / "models" / "faces.onnx"
STYLE = next(s for s in TRAIN if s.body.name == "red")


def test_non_die_crops_are_reproducible_varied_and_of_every_kind() -> None:
    a = non_die_crops(len(KINDS) * 3, 5)
    assert a.shape == (len(KINDS) * 3, CROP_SIZE, CROP_SIZE, 3) and a.dtype == np.uint8
    assert np.array_equal(a, non_die_crops(len(KINDS) * 3, 5))
    assert not np.array_equal(a, non_die_crops(len(KINDS) * 3, 6))
    # no two crops alike, and none flat: each kind draws something
    flat = a.reshape(len(a), -1).astype(np.int32)
    assert len({row.tobytes() for row in flat}) == len(a)
    rng = np.random.default_rng(0)
    for kind in KINDS:
        crop = non_die_crop(rng, kind)
        assert crop.shape == (CROP_SIZE, CROP_SIZE, 3) and float(crop.std()) > 1.0, kind
    with pytest.raises(KeyError):
        non_die_crop(rng, "unicorn")


def test_background_squares_touch_no_die() -> None:
    frame = render_frame(11, n_dice=6, size=(1280, 960), styles=TRAIN[:3])
    squares = background_squares(
        [d.corners for d in frame.dice], frame.image.shape, 5, np.random.default_rng(1)
    )
    assert squares
    for q in squares:
        c = q.mean(axis=0)
        edge = float(np.linalg.norm(q[0] - q[1]))
        assert 0 <= c[0] <= 1280 and 0 <= c[1] <= 960
        for d in frame.dice:
            # farther from every die's centre than both half-diagonals together: no overlap
            assert np.linalg.norm(d.corners.mean(axis=0) - c) > (edge + d.edge) / np.sqrt(2)
    assert background_squares([], frame.image.shape, 3, np.random.default_rng(1)) == []


def test_make_crops_labels_bare_table_as_not_a_die() -> None:
    cs = make_crops([3, 4], TRAIN[:2], background=2)
    table = cs.labels == NOT_DIE
    assert len(FACES) == NOT_DIE and table.any() and (~table).any()
    assert all(s == "table" for s, t in zip(cs.styles, table, strict=True) if t)
    plain = make_crops([3, 4], TRAIN[:2])
    assert not (plain.labels == NOT_DIE).any() and len(plain.labels) == int((~table).sum())


@dataclass(frozen=True)
class _Sure:
    """Calls every crop whose centre is red a 3, and every other crop not a die."""

    def classify(self, crops: np.ndarray) -> list[FaceReading]:
        out = []
        for c in crops:
            red = float(c[24:40, 24:40, 2].mean()) / 255.0
            out.append(
                FaceReading("3", 0.99, "3")
                if red > 0.5
                else FaceReading("?", 0.1, "I", not_die=True)
            )
        return out

    def read(self, image: np.ndarray, corners: list[np.ndarray]) -> list[FaceReading]:
        return self.classify(cut_faces(image, corners))


def test_reader_drops_what_the_model_calls_not_a_die() -> None:
    dice = [
        DiePlacement("3", (200.0, 200.0), 80.0, 10.0),
        DiePlacement("3", (450.0, 300.0), 80.0, 50.0),
    ]
    image = render_placed(3, dice, style=STYLE, size=(800, 600), surface_kind="felt").image
    reader = Reader(_Sure())
    found = reader.finder(image)
    assert len(found) == 2
    # a third find on bare felt: the fake calls it not a die, and the reading leaves it out
    blank = np.array([[600, 450], [680, 450], [680, 530], [600, 530]], np.float32)
    phantom = FoundDie((640.0, 490.0), blank, 80.0)
    out = reader.read_found(image, [*found, phantom])
    assert sorted(r.face for r in out) == ["3", "3"]


@pytest.mark.skipif(not MODEL.is_file(), reason="models/faces.onnx is not built yet")
def test_shipped_model_says_not_a_die_for_drawn_non_dice_and_never_for_dice() -> None:
    clf = FaceClassifier(MODEL, threads=1)
    assert clf.knows_non_dice and 0.5 <= clf.not_die_threshold < 1.0
    drawn = clf.classify(non_die_crops(160, 777))
    assert np.mean([r.not_die for r in drawn]) >= 0.8
    assert all(r.face == "?" for r in drawn if r.not_die)
    from companion.synth.styles import HELD_OUT

    dice = make_crops(range(500, 520), HELD_OUT, size=(1280, 960))
    read = clf.classify(dice.images)
    assert not any(r.not_die for r in read)
    assert clf.run(dice.images[:2])[0].shape == (2, len(FACES) + 1)
    assert clf.motif_probabilities(clf.run(dice.images[:2])[0])[0].shape == (2, len(FACES))
    assert NOT_A_DIE not in FACES


def test_a_sixth_class_must_be_not_a_die(tmp_path: Path) -> None:
    import shutil
    import sys

    from companion.vision.classify import ModelError

    sys.path.insert(0, str(MODEL.parent))
    from calibrate_faces import write_metadata

    other = tmp_path / "m.onnx"
    shutil.copy(MODEL, other)
    write_metadata(other, {"classes": ",".join(FACES) + ",zz"})
    with pytest.raises(ModelError, match="has classes"):
        FaceClassifier(other)
    write_metadata(other, {"classes": ",".join(FACES) + "," + NOT_A_DIE})
    assert FaceClassifier(other).knows_non_dice
    write_metadata(other, {"classes": ",".join(FACES)})  # six outputs cannot carry five classes
    with pytest.raises(ModelError, match="6 outputs for 5 classes"):
        FaceClassifier(other)
