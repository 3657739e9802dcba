"""Draw the README's screenshots of the secretary: SVG from Textual, PNG via rsvg-convert.

    .venv/bin/python docs/screenshots/make.py      # from the repository root

Each screen is reached by the same keystrokes as its snapshot test
(tests/test_tui_snapshots.py), at 100×30. rsvg-convert (apt: librsvg2-bin)
needs ``xml:space="preserve"`` on the SVG, or it drops leading spaces.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_tui_snapshots import SCREENS  # noqa: E402

SHOTS = ("demo", "map_read", "setup", "rolloff", "phase", "verdict_illegal", "legal_calls", "scoring", "dispute",
         "history", "end", "help")
SIZE = (100, 30)


async def shoot(name: str) -> Path:
    make, before = SCREENS[name]
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await before(pilot)
        await pilot.pause()
        svg = app.export_screenshot(title=f"companion: {name.replace('_', ' ')}")
    path = HERE / f"{name}.svg"
    path.write_text(svg.replace("<svg ", '<svg xml:space="preserve" ', 1), encoding="utf-8")
    return path


def main() -> int:
    rsvg = shutil.which("rsvg-convert")
    for name in SHOTS:
        svg = asyncio.run(shoot(name))
        if rsvg:
            subprocess.run([rsvg, "-w", "1000", str(svg), "-o", str(svg.with_suffix(".png"))], check=True)
        print(svg.with_suffix(".png" if rsvg else ".svg").relative_to(ROOT))
    if not rsvg:
        print("rsvg-convert not found (apt-get install librsvg2-bin): SVG only", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
