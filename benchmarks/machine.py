"""One line that says what machine a benchmark ran on."""

from __future__ import annotations

import os
import platform


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
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}"
    )
