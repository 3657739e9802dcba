"""kill -9 the headless demo anywhere; --resume finishes the same game, every event once."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.record.replay import replay_text
from companion.store.verify import verify

SEED = 3


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _events(db: Path) -> list[tuple[int, int, str]]:
    with sqlite3.connect(db) as c:
        return list(c.execute("SELECT game_id, seq, text FROM events ORDER BY game_id, seq"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[tuple[int, int, str]]]:
    """The record and stored events of an uninterrupted run."""
    db = tmp_path_factory.mktemp("ref") / "ref.db"
    out = _run("demo", "--headless", "--db", str(db), "--seed", str(SEED))
    assert out.returncode == 0, out.stderr
    return out.stdout, _events(db)


def test_uninterrupted_demo_replays(reference: tuple[str, list[tuple[int, int, str]]]) -> None:
    record, events = reference
    rep = replay_text(record)
    assert rep.ok and rep.game is not None and rep.game.finished
    assert record.rstrip().splitlines()[-1].startswith("# winners: ")
    assert len(events) == sum(1 for ln in record.splitlines() if ln.startswith(("start ", "Cult")))


def test_demo_is_the_simulators_game(
    reference: tuple[str, list[tuple[int, int, str]]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--seed", str(SEED), "--cults", "3"]) == 0
    sim = capsys.readouterr().out

    def body(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if ln and not ln.startswith(("[", "#"))]

    assert body(sim) == body(reference[0])


@pytest.mark.parametrize("kills", [[1], [3], [4], [57], [10, 1, 25]])
def test_kill_at_event_then_resume(
    tmp_path: Path, kills: list[int], reference: tuple[str, list[tuple[int, int, str]]]
) -> None:
    db = tmp_path / "t.db"
    for n in kills:
        flag = ["--resume"] if _events_or_none(db) else []
        out = _run(
            "demo",
            "--headless",
            "--db",
            str(db),
            "--seed",
            str(SEED),
            "--crash-after",
            str(n),
            *flag,
        )
        assert out.returncode == -signal.SIGKILL, out.stderr
    stored = len(_events(db))
    assert stored == sum(kills)  # every accepted event is there, once
    out = _run("demo", "--headless", "--db", str(db), "--resume")
    assert out.returncode == 0, out.stderr
    assert "resuming game 1" in out.stderr
    assert out.stdout == reference[0]
    assert _events(db) == reference[1]
    exported = _run("export", str(db), "--game", "last", "--format", "record")
    assert exported.returncode == 0 and exported.stdout == reference[0]
    assert all(f.ok for f in verify(db))


def _events_or_none(db: Path) -> bool:
    return db.exists() and bool(_events(db))


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as c:
            return int(c.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    except sqlite3.Error:
        return 0  # not made yet


@pytest.mark.slow
def test_kill_at_random_moments(
    tmp_path: Path, reference: tuple[str, list[tuple[int, int, str]]]
) -> None:
    """Real kill -9 from outside, at random moments of the writing, then --resume to the end."""
    db = tmp_path / "t.db"
    rng = random.Random(20261130)
    total = len(reference[1])
    targets = sorted(rng.sample(range(1, total - 10), 4))
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "demo",
        "--headless",
        "--db",
        str(db),
        "--seed",
        str(SEED),
    ]
    for n, target in enumerate(targets):
        proc = subprocess.Popen(
            cmd + (["--resume"] if n else []),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        deadline = time.monotonic() + 60
        while _count(db) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.004))  # anywhere in the write of the next event
        assert proc.poll() is None, "the demo ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL, err
        assert target <= _count(db) < total
    out = _run("demo", "--headless", "--db", str(db), "--resume")
    assert out.returncode == 0, out.stderr
    assert out.stdout == reference[0]
    assert _events(db) == reference[1]
    assert _run("export", str(db), "--game", "last").stdout == reference[0]


def test_unfinished_game_is_offered_not_lost(
    tmp_path: Path, reference: tuple[str, list[tuple[int, int, str]]]
) -> None:
    db = tmp_path / "t.db"
    assert (
        _run(
            "demo", "--headless", "--db", str(db), "--seed", str(SEED), "--crash-after", "5"
        ).returncode
        < 0
    )
    # without --resume and without a person to ask: a new game, and a hint
    out = _run("demo", "--headless", "--db", str(db), "--seed", "9")
    assert out.returncode == 0 and "--resume" in out.stderr
    assert replay_text(out.stdout).ok
    out = _run("demo", "--headless", "--db", str(db), "--resume")
    assert out.stdout == reference[0]
    games = _run("export", str(db), "--format", "json")
    assert games.returncode == 0 and games.stdout.count('"finished": true') == 2


def test_resume_with_nothing_to_resume_starts_a_game(tmp_path: Path) -> None:
    out = _run("demo", "--headless", "--db", str(tmp_path / "new.db"), "--resume", "--cults", "2")
    assert out.returncode == 0 and "no unfinished demo game" in out.stderr
    assert replay_text(out.stdout).ok


def test_resume_takes_only_the_game_of_that_command(
    tmp_path: Path, reference: tuple[str, list[tuple[int, int, str]]]
) -> None:
    """An older unfinished game with another seed is left alone by `--seed 3 --resume`."""
    db = tmp_path / "t.db"
    assert (
        _run("demo", "--headless", "--db", str(db), "--seed", "4", "--crash-after", "6").returncode
        < 0
    )
    out = _run("demo", "--headless", "--db", str(db), "--seed", str(SEED), "--resume")
    assert out.returncode == 0 and out.stdout == reference[0]
    # without --seed, --resume takes the most recent unfinished demo game: the seed 4 one
    out = _run("demo", "--headless", "--db", str(db), "--resume")
    assert out.returncode == 0 and '[Round "4"]' in out.stdout and "resuming game 1" in out.stderr
