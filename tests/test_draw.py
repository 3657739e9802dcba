"""Drawing the reads on a photo (companion.evaluation.draw) and the real-photo split
(benchmarks/real_dice.py)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks import real_dice
from companion.evaluation.draw import GREEN, ORANGE, RED, draw_reads, main, yolo_centers
from companion.vision.read import DieReading


def _read(x: float, y: float, face: str, edge: float = 40.0) -> DieReading:
    e = edge / 2
    corners = np.array([[x - e, y - e], [x + e, y - e], [x + e, y + e], [x - e, y + e]], np.float32)
    return DieReading(x, y, face, 0.9, corners)


def _has(img: np.ndarray, color: tuple[int, int, int], x0: int, y0: int, x1: int, y1: int) -> bool:
    # a box reaching past the frame's edge (a die half outside) is looked for inside the frame
    x0, y0 = max(0, x0), max(0, y0)
    return bool((np.abs(img[y0:y1, x0:x1].astype(int) - color).sum(axis=2) < 30).any())


def test_reads_are_outlined_by_what_they_are() -> None:
    img = np.full((300, 400, 3), 128, np.uint8)
    reads = [_read(80, 100, "3"), _read(200, 100, "?"), _read(320, 220, "E")]
    out = draw_reads(
        img, reads, ["", "weak detection (0.45)", ""], truth=[(82, 98), (203, 104), (80, 240)]
    )
    assert out is not img and (img == 128).all()  # drawn on a copy
    assert _has(out, GREEN, 55, 75, 105, 125)  # read and true
    assert _has(out, ORANGE, 175, 75, 225, 125)  # '?'
    assert _has(out, RED, 295, 195, 345, 245)  # a find near no true die
    assert _has(out, RED, 45, 205, 115, 275)  # a true die nobody found
    assert not _has(out, RED, 55, 75, 105, 125)


def test_without_a_truth_nothing_is_called_missed_or_phantom() -> None:
    img = np.full((200, 200, 3), 128, np.uint8)
    out = draw_reads(img, [_read(100, 100, "1")])
    assert _has(out, GREEN, 75, 75, 125, 125) and not _has(out, RED, 0, 0, 200, 200)


def test_yolo_centers_skip_lines_that_are_not_labels(tmp_path: Path) -> None:
    lab = tmp_path / "a.txt"
    lab.write_text("0 0.5 0.25 0.1 0.1\n\nnot a label\n5 0.1 x 0.1 0.1\n3 0.25 0.75 0.1 0.1\n")
    assert yolo_centers(lab, 640, 480) == [(320.0, 120.0), (160.0, 360.0)]


def test_main_draws_each_image_and_says_which_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.synth import HELD_OUT, render_frame

    good = tmp_path / "frame.png"
    cv2.imwrite(str(good), render_frame(5004, n_dice=4, styles=HELD_OUT).image)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not an image")
    status = main([str(good), str(bad), "--out", str(tmp_path / "drawn")])
    assert status == 1
    drawn = cv2.imread(str(tmp_path / "drawn" / "frame.png"))
    assert drawn is not None and _has(drawn, GREEN, 0, 0, drawn.shape[1], drawn.shape[0])
    err = capsys.readouterr().err
    assert "broken.png" in err and "not an image" in err


def test_the_kept_aside_split_is_every_photo_numbered_by_a_multiple_of_four() -> None:
    assert real_dice.kept_aside(Path("dice_4.jpg")) and real_dice.kept_aside(Path("six_48.jpg"))
    assert not real_dice.kept_aside(Path("dice_1.jpg")) and not real_dice.kept_aside(
        Path("two_42.jpg")
    )
    with pytest.raises(ValueError):
        real_dice.photo_number(Path("dice.jpg"))


def test_matching_is_one_to_one_within_30_px_nearest_first() -> None:
    truth = np.array([[100.0, 100.0], [200.0, 100.0]])
    assert real_dice.match([(105, 100), (101, 100), (300, 300)], truth) == [(1, 0)]
    assert real_dice.match([(110, 100), (190, 100)], truth) == [(0, 0), (1, 1)]
    assert real_dice.match([], truth) == []


def test_the_split_on_the_shared_photos(shared_dir: Path) -> None:
    kept = real_dice.load(shared_dir / "real-dice", split="kept")
    dev = real_dice.load(shared_dir / "real-dice", split="dev")
    assert len(kept) == 75 and len(dev) == 235
    assert {p.path.name for p in kept}.isdisjoint(p.path.name for p in dev)
    assert sum(len(p.centers) for p in kept) + sum(len(p.centers) for p in dev) == 951
    assert all(1 <= v <= 6 for p in kept for v in p.values)


def test_truth_jsonl_gives_the_centers_of_its_own_image_only(tmp_path: Path) -> None:
    from companion.evaluation.draw import jsonl_centers

    truth = tmp_path / "truth.jsonl"
    truth.write_text(
        '{"image": "a.jpg", "dice": [{"x": 10.5, "y": 20, "face": "I"}]}\n'
        "not json\n"
        '{"image": "b.jpg", "dice": []}\n'
    )
    assert jsonl_centers(truth, "a.jpg") == [(10.5, 20.0)]
    assert jsonl_centers(truth, "b.jpg") == []
    assert jsonl_centers(truth, "c.jpg") is None


@pytest.mark.slow
def test_the_drawing_shows_what_vision_read_reports(tmp_path: Path) -> None:
    """On a frame where the face model's judging finds dice the finder's own choice does not
    (tests/test_judged.py), the drawing outlines exactly the dice `vision read` reports."""
    from companion.synth import VALIDATION, render_frame
    from companion.vision.read import Reader

    frame = render_frame(
        71_010, size=(1280, 960), styles=VALIDATION, surface_kind="squares", edge_range=(32, 60)
    )
    reader = Reader.load()
    reported = reader.read(frame.image)
    pairs = reader.read_with_finds(frame.image)
    assert [r.to_json() for _, r in pairs] == [r.to_json() for r in reported]
    assert len(reported) > len(reader.read_found(frame.image, reader.finder(frame.image)))
    image = tmp_path / "grid.png"
    assert cv2.imwrite(str(image), frame.image)
    assert main([str(image), "--out", str(tmp_path / "out")]) == 0
    drawn = cv2.imread(str(tmp_path / "out" / "grid.png"))
    assert drawn is not None
    for r in reported:
        x0, y0 = np.asarray(r.corners).min(axis=0).astype(int) - 3
        x1, y1 = np.asarray(r.corners).max(axis=0).astype(int) + 3
        colour = ORANGE if r.face == "?" else GREEN
        assert _has(drawn, colour, x0, y0, x1, y1), (r.x, r.y, r.face)
