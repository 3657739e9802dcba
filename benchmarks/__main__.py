"""Run every benchmark (or those named) and print medians and the machine."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    wanted = [n if n.startswith("bench_") else f"bench_{n}" for n in argv] or names
    for name in wanted:
        if name not in names:
            print(f"no benchmark named {name}; there are: {', '.join(names)}", file=sys.stderr)
            return 2
    sys.argv = sys.argv[:1]  # each benchmark's own options keep their defaults here
    for name in wanted:
        importlib.import_module(f"benchmarks.{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
