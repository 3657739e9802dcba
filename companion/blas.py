"""numpy's OpenBLAS threads, read and set in a running process (Linux; elsewhere a no-op)."""

from __future__ import annotations

import ctypes
import os
from typing import Any


def _openblas() -> ctypes.CDLL | None:
    """numpy's OpenBLAS as loaded in this process (Linux), or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(p for p in paths if p.startswith("/")):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


# numpy's own OpenBLAS build names its functions apart; a system OpenBLAS does not
_PREFIXES = ("scipy_openblas_", "openblas_")
_SUFFIXES = ("64_", "")


def _blas_function(name: str) -> Any:
    """OpenBLAS's ``name`` function as ctypes calls it, or None."""
    lib = _openblas()
    if lib is None:
        return None
    for prefix in _PREFIXES:
        for suffix in _SUFFIXES:
            fn = getattr(lib, f"{prefix}{name}{suffix}", None)
            if fn is not None:
                return fn
    return None


def blas_threads() -> int | None:
    """The threads numpy's OpenBLAS uses now (None: no OpenBLAS loaded, or not found)."""
    get = _blas_function("get_num_threads")
    return None if get is None else int(get())


def match_blas_threads() -> None:
    """Make a loaded OpenBLAS use OPENBLAS_NUM_THREADS threads now.

    OpenBLAS reads the variable once, when numpy loads; the companion sets it before
    (companion/__init__.py), but a process that loaded numpy first (a benchmark run as a
    script, a test run) would run a thread a core spinning beside onnxruntime and OpenCV (a
    read with a profile 134-154 ms instead of 92-109, session 56).
    """
    want = os.environ.get("OPENBLAS_NUM_THREADS", "")
    if not want.isdigit() or int(want) < 1:
        return
    now = blas_threads()
    if now is not None and now != int(want):
        set_threads = _blas_function("set_num_threads")
        if set_threads is not None:
            set_threads(ctypes.c_int(int(want)))
