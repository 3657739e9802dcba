"""Benchmarks: `python -m benchmarks [NAME...]` runs them and prints medians and the machine."""

# The product's process settings before anything loads numpy (companion/__init__.py: one BLAS
# thread, whose idle threads otherwise spin on the cores the rest runs on; in a script run as
# `python benchmarks/NAME.py`, numpy loaded first, it tells the loaded OpenBLAS). Without it
# the voice latency counted OpenBLAS's spinning threads as the listener's time (issue 18,
# session 56: 549 ms instead of about 410).
import companion  # noqa: F401
