"""A benchmark run as `python -m benchmarks.NAME` measures the process the companion runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_benchmarks_load_numpy_with_the_products_one_blas_thread() -> None:
    # companion/__init__.py sets one OpenBLAS thread before numpy loads; a benchmark that
    # loaded numpy first timed spinning BLAS threads as the voice listener's (issue 18)
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    code = "import benchmarks, os, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "1"
    mine = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "OPENBLAS_NUM_THREADS": "2"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert mine.stdout.strip() == "2"  # a value set by the user wins


def test_a_benchmark_run_as_a_script_sets_the_loaded_blas_to_one_thread() -> None:
    # `python benchmarks/NAME.py` loads numpy before the benchmarks package: OpenBLAS has
    # started a thread a core by then, and is told to use one (a value set by the user wins)
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    code = (
        "import numpy, sys; sys.path.insert(0, '.'); "
        "from benchmarks.machine import blas_threads, describe; "
        "print(blas_threads(), describe().endswith('BLAS thread'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    if out.stdout.split()[0] == "None":
        pytest.skip("numpy here has no OpenBLAS this can find")
    assert out.stdout.split() == ["1", "True"]
    mine = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "OPENBLAS_NUM_THREADS": "2"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert mine.stdout.split() == ["2", "False"]
