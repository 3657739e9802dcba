"""A benchmark measures the process the companion runs: one BLAS thread (companion/__init__.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _printed(code: str, blas: str | None) -> list[str]:
    """What ``python -c code`` prints from the checkout, OPENBLAS_NUM_THREADS set to ``blas``
    (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if blas is not None:
        env["OPENBLAS_NUM_THREADS"] = blas
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def test_benchmarks_load_numpy_with_the_products_one_blas_thread() -> None:
    # `python -m benchmarks.NAME` imports the package first: it sets one OpenBLAS thread
    # before numpy loads; a benchmark that loaded numpy first timed spinning BLAS threads as
    # the voice listener's (issue 18)
    code = "import benchmarks, os, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    assert _printed(code, None) == ["1"]
    assert _printed(code, "2") == ["2"]  # a value set by the user wins


def test_a_benchmark_run_as_a_script_sets_the_loaded_blas_to_one_thread() -> None:
    # `python benchmarks/NAME.py` loads numpy before the benchmarks package: OpenBLAS has
    # started a thread a core by then, and is told to use one (a value set by the user wins)
    code = (
        "import numpy, sys; sys.path.insert(0, '.'); "
        "from benchmarks.machine import blas_threads, describe; "
        "print(blas_threads(), describe().endswith('BLAS thread'))"
    )
    got = _printed(code, None)
    if got[0] == "None":
        pytest.skip("numpy here has no OpenBLAS this can find")
    assert got == ["1", "True"]
    assert _printed(code, "2") == ["2", "False"]


def test_the_companion_tells_an_openblas_loaded_before_it() -> None:
    # a process that loaded numpy before the companion (a test run, a host script) runs the
    # companion with one BLAS thread all the same
    code = "import numpy, companion; from companion.blas import blas_threads; print(blas_threads())"
    got = _printed(code, None)
    if got == ["None"]:
        pytest.skip("numpy here has no OpenBLAS this can find")
    assert got == ["1"]
