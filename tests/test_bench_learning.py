"""bench_learning.py: a profile refitted with the dice of the game's confirmed rolls."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from companion.synth import render_frame
from companion.synth.family_sets import bench_styles
from companion.synth.frame import FACES
from companion.vision.classify import UNKNOWN, FaceClassifier


@pytest.mark.slow
def test_the_secretary_keeps_the_readers_motifs_and_keys_the_unread() -> None:
    from benchmarks.bench_families import judged_reads
    from benchmarks.bench_learning import PLAY_SEED, confirmed_dice

    clf = FaceClassifier()  # the model alone: some `?` and a wrong read or two on these sets
    f = render_frame(PLAY_SEED, n_dice=20, styles=[bench_styles("validation", 1)[0]])
    pairs, faces = judged_reads(clf, f)
    cut, said, wrong = confirmed_dice(clf, f, "secretary")
    _, true_motifs, none_wrong = confirmed_dice(clf, f, "truth")
    assert len(cut) == len(said) >= 15 and cut[0].shape == (64, 64, 3)
    assert none_wrong == 0 and wrong == sum(a != b for a, b in zip(said, true_motifs, strict=True))
    # the learnt dice are dice the reader found, each with its true motif under `truth` ...
    found = [f.dice[b].face for _, b in pairs]
    assert all(sorted(FACES[m] for m in true_motifs).count(x) <= found.count(x) for x in FACES)
    # ... and under `secretary` the reader's motif where it named one: as many wrong as it
    # read wrong (a found die it doubts is not learnt)
    assert wrong <= sum(faces[a] not in (f.dice[b].face, UNKNOWN) for a, b in pairs)


@pytest.mark.slow
def test_the_benchmark_reads_both_profiles_on_the_same_dice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks import bench_learning

    out = tmp_path / "out.json"
    argv = ["bench_learning.py", "--split", "validation", "--sets", "1", "--play", "1"]
    argv += ["--labels", "truth", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    bench_learning.main()
    report = json.loads(out.read_text())
    assert report["learnt_wrong"] == 0 and 15 <= report["learnt_dice"] <= 20
    assert report["enrolled"]["dice"] == report["learnt"]["dice"] >= 30
