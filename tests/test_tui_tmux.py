"""`companion demo` driven in tmux as a person would: watch, pause, step, run fast, read the end."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable

import pytest

pytestmark = pytest.mark.slow

TMUX = shutil.which("tmux")
# A tmux server of our own: other tests on the machine may kill the default one.
SOCKET = f"companion-tui-{uuid.uuid4().hex[:8]}"


def _tmux(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TMUX or "tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=check
    )


def _screen(session: str) -> str:
    return _tmux("capture-pane", "-p", "-t", session).stdout


def _wait(session: str, ok: Callable[[str], bool], timeout: float) -> str:
    end = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < end:
        screen = _screen(session)
        if ok(screen):
            return screen
        time.sleep(0.3)
    raise AssertionError(f"screen never showed what was expected:\n{screen}")


def _keys(session: str, *keys: str) -> None:
    _tmux("send-keys", "-t", session, *keys)


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")
def test_demo_in_tmux_as_a_person_would() -> None:
    session = f"companion-demo-{uuid.uuid4().hex[:8]}"
    # The pane outlives the demo, so a crash leaves its traceback on the screen.
    cmd = (
        f"{sys.executable} -m companion demo --seed 2 --cults 3; echo companion exited $?; sleep 60"
    )
    _tmux(
        "new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-e", "TERM=xterm-256color", cmd
    )
    try:
        first = _wait(session, lambda s: "Phase 1" in s and "pool" in s and "[center" in s, 60)
        assert "Anna" in first and "Ben" in first and "Cleo" in first
        # the table map under the board: each layout with its cult's name, the center with its dice
        assert "[Anna]" in first and "[Ben]" in first
        lines = first.splitlines()
        board_end = max(i for i, ln in enumerate(lines) if "Cleo" in ln and "open" in ln)
        assert any("[center" in ln for ln in lines[board_end + 1 :])
        _keys(session, "Space")
        _wait(session, lambda s: "PAUSED" in s, 10)
        time.sleep(0.5)  # a camera read already under way may still land
        paused = _screen(session)
        time.sleep(1.5)
        assert _screen(session) == paused  # paused means nothing moves
        _keys(session, "s")
        _wait(session, lambda s: s != paused, 10)  # one step
        _keys(session, "+", "Space")
        end = _wait(session, lambda s: "The game has ended" in s, 150)
        assert "winners:" in end and "losers:" in end
        assert any(rule in end for rule in ("G2:", "G3:", "G4:"))
        _keys(session, "C-q")
        _wait(session, lambda s: "companion exited 0" in s, 10)
    finally:
        _tmux("kill-server", check=False)
