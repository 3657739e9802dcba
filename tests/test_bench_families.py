"""bench_families.py reads the family sets as `vision read` and `vision enroll` do."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from companion.synth.family_sets import bench_styles
from companion.vision.classify import FaceClassifier
from companion.vision.read import Reader


@pytest.mark.slow
def test_a_frame_is_read_as_vision_read_reads_it() -> None:
    from benchmarks.bench_families import family_frame, judged_reads

    style = bench_styles("validation", 1)[0]  # marbled: where the judged finds differ
    frame, _, _ = family_frame(style, 0, 0)
    pairs, faces = judged_reads(FaceClassifier(), frame)
    read = Reader.load().read(frame.image)
    assert faces == [d.face for d in read]
    assert len(pairs) >= 18  # of the frame's 20 dice, those wholly inside it


@pytest.mark.slow
@pytest.mark.parametrize("finder", ["judged", "net"])
def test_the_benchmark_runs_with_either_finder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finder: str
) -> None:
    from benchmarks import bench_families

    out = tmp_path / "out.json"
    argv = ["bench_families.py", "--split", "validation", "--sets", "1"]
    argv += ["--frames-per-set", "1", "--finder", finder, "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    bench_families.main()
    report = json.loads(out.read_text())
    assert report["sets"] == 1 and report["not_enrolled"] == []
    assert 0 <= report["not_found"] < report["whole_dice"] <= 20
    assert report["profile"]["all"]["dice"] == report["whole_dice"] - report["not_found"]


def test_other_makes_keep_each_sets_art_on_a_body_of_its_own() -> None:
    from benchmarks.bench_families import other_makes

    styles = bench_styles("validation", 6)
    made = other_makes(styles)
    assert made == other_makes(styles)  # the same makes every run
    assert [s.name for s in made] == [s.name for s in styles]
    assert [s.art for s in made] == [s.art for s in styles]
    assert all(m.body != s.body for m, s in zip(made, styles, strict=True))
    assert len({(m.body.radius, m.body.pattern, m.body.side_shade) for m in made}) == len(made)
