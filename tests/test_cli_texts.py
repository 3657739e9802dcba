"""The command line tells the truth: every option described, what was written said, OpenCV quiet."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import build_parser, main


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def test_every_option_of_every_command_is_described() -> None:
    parser = build_parser()
    assert "The ``companion`` command" not in (parser.description or "")
    # voice belongs to the voice work, which describes its own options
    todo = [(n, p) for n, p in _subparsers(parser).items() if n != "voice"]
    undescribed = []
    while todo:
        name, sub = todo.pop()
        nested = _subparsers(sub)
        todo.extend((f"{name} {n}", p) for n, p in nested.items())
        for a in sub._actions:
            if isinstance(a, argparse._HelpAction | argparse._SubParsersAction):
                continue
            if a.help is None:
                undescribed.append(f"{name} {'/'.join(a.option_strings) or a.dest}")
    assert not undescribed, undescribed


def test_simulate_out_says_what_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--games", "2", "--seed", "5", "--out", str(tmp_path / "recs")]) == 0
    err = capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "recs").iterdir()) == [
        "game-000005.txt",
        "game-000006.txt",
    ]
    assert "2 records written to" in err and "game-000005.txt … game-000006.txt" in err


def test_simulate_out_unwritable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["simulate", "--out", str(blocker / "sub")]) == 2
    assert "cannot make the folder" in capsys.readouterr().err


def test_opencv_warnings_stay_off_the_terminal() -> None:
    # Opening a camera that is not there makes OpenCV print "[ WARN:…] can't open camera by index".
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"}
    code = "import companion, cv2; cv2.VideoCapture(7); cv2.VideoCapture('/nonexistent/x.avi')"
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert "[ WARN" not in r.stderr and "[ WARN" not in r.stdout
    loud = subprocess.run(
        [sys.executable, "-c", code.replace("companion, ", "")],
        capture_output=True,
        text=True,
        env={**env, "OPENCV_LOG_LEVEL": "WARNING"},
        timeout=60,
    )
    assert "[ WARN" in loud.stderr  # the test can fail: without the setting OpenCV does warn


def test_numpy_s_blas_keeps_to_one_thread_unless_the_user_says() -> None:
    # its threads spin on after each product, on the cores the reader reads with (session 43)
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    code = "import os, companion, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
    for given, expected in ((None, "1"), ("3", "3")):
        r = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env=env if given is None else {**env, "OPENBLAS_NUM_THREADS": given},
            timeout=60,
        )
        assert r.stdout.strip() == expected, r.stderr


def test_demo_resume_is_the_headless_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # no screens open: --resume finishes (or, with nothing to finish, plays) the headless demo
    assert main(["demo", "--db", str(tmp_path / "d.db"), "--resume", "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    assert '[Event "Demo"]' in out and "# winners: " in out
    assert "no unfinished demo game to resume" in err


def test_every_command_comes_from_the_one_registry() -> None:
    from companion.cli import REGISTRY

    top = set(_subparsers(build_parser()))
    assert top == {
        "replay",
        "simulate",
        "vision",
        "calibrate",
        "play",
        "demo",
        "export",
        "standings",
        "verify",
        "key",
        "doctor",
        "voice",
        "stats",
    }
    assert set(_subparsers(_subparsers(build_parser())["vision"])) == {"read", "enroll"}
    assert len({(m, f) for _, m, f in REGISTRY}) == len(REGISTRY)


def test_a_command_that_cannot_be_imported_is_a_loud_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.cli as cli

    # a command module whose own import fails, as one with a missing dependency would
    (tmp_path / "broken_cmds.py").write_text("import no_such_module_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "REGISTRY", (*cli.REGISTRY, (None, "broken_cmds", "add_commands")))
    with pytest.raises(cli.BrokenCommand, match="broken_cmds cannot be imported: No module named"):
        main(["replay", "--help"])
    monkeypatch.setattr(cli, "REGISTRY", cli.REGISTRY[:-1])
    with pytest.raises(SystemExit):  # without it, the same command line works
        main(["replay", "--help"])
