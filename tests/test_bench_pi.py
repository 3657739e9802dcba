"""benchmarks/bench_pi.py: the per-stage timings behind the Pi estimate, in a small run."""

from __future__ import annotations

import re

import pytest

from benchmarks import bench_pi


def test_a_small_run_times_every_stage_on_one_and_two_threads(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench_pi, "FRAMES", 1)
    monkeypatch.setattr(bench_pi, "REPEATS", 1)
    bench_pi.main()
    out = capsys.readouterr().out
    assert "2304x1296" in out and "judged" in out
    for threads in ("1 thread:", "2 threads:"):
        line = next(ln for ln in out.splitlines() if threads in ln)
        times = dict(re.findall(r"(find dice|cut crops|classify|whole read) ([0-9.]+) ms", line))
        assert set(times) == {"find dice", "cut crops", "classify", "whole read"}
        assert all(float(v) > 0 for v in times.values())
