"""Benchmarks: `python -m benchmarks [NAME...]` runs them and prints medians and the machine."""

# The product's process settings before anything loads numpy (companion/__init__.py: one BLAS
# thread, whose idle threads otherwise spin on the cores the rest runs on): a benchmark run
# as `python -m benchmarks.NAME` measures the process the companion runs. Without it the
# voice latency counted OpenBLAS's spinning threads as the listener's time (issue 18, session
# 56: 549 ms instead of about 410).
# A script run as `python benchmarks/NAME.py` has loaded numpy already: its OpenBLAS is set
# to the same number of threads now (machine.match_blas_threads).
import companion  # noqa: F401
from benchmarks.machine import match_blas_threads

match_blas_threads()
