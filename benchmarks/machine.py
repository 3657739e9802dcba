"""One line that says what machine a benchmark ran on."""

from __future__ import annotations

import os
import platform

from companion.blas import blas_threads


def describe() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    blas = blas_threads()
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}"
        + ("" if blas is None else f", {blas} BLAS thread{'s' if blas != 1 else ''}")
    )
