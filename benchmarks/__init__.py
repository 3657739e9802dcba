"""Benchmarks: `python -m benchmarks [NAME...]` runs them and prints medians and the machine."""
