"""`companion play` without a camera, and the 16-colour console."""

from __future__ import annotations

import argparse

import pytest

from companion.tui.app import CompanionApp
from companion.tui.cli import add_commands, run_play
from companion.tui.screens.phase import PhaseScreen

from .test_tui_support import key_faces, manual_app, rolloff, sync


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_commands(p.add_subparsers())
    return p.parse_args(["play", *argv])


def test_play_without_a_camera_offers_manual_mode(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.vision import table
    from companion.vision.seen import CameraError

    def no_camera(calibration: str | None, profile: str | None) -> table.TableWatcher:
        raise CameraError("webcam 0 does not answer")

    monkeypatch.setattr(table, "open_table_watcher", no_camera)
    assert run_play(_args()) == 2
    err = capsys.readouterr().err
    assert "webcam 0 does not answer" in err and "companion play --manual" in err


def test_play_arguments() -> None:
    a = _args("--manual", "--cults", "Anna Ben", "--db", "x.db", "--resume")
    assert a.manual and a.cults == "Anna Ben" and a.db == "x.db" and a.resume
    assert a.func is run_play
    t = _args("--table", "7", "--dice", "red-set", "--event", "Club")
    assert (t.table, t.dice, t.event) == ("7", "red-set", "Club")


@sync
async def test_sixteen_colour_console_plays_a_turn() -> None:
    app: CompanionApp = manual_app(ansi=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await rolloff(pilot)
        await key_faces(pilot, "I22EEE")
        await pilot.press("i", "enter")
        await pilot.pause()
        assert isinstance(app.screen, PhaseScreen) and app.ansi_color
        assert app.session.game.layouts["Anna"] == ["I"]


def test_resume_with_nothing_to_resume_says_so_on_the_screen(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str] = []

    def run(self: CompanionApp) -> None:  # instead of the screens: what would they show?
        seen.append(self.notice)

    monkeypatch.setattr(CompanionApp, "run", run)
    db = f"{tmp_path}/games.db"
    assert run_play(_args("--manual", "--resume", "--db", db)) == 0
    assert seen and "holds no unfinished game, so this is a new one" in seen[0] and db in seen[0]
    assert (
        capsys.readouterr().err == ""
    )  # a line printed before the screens would vanish under them


def test_play_tags_the_table_and_the_dice(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    tags: list[dict[str, str]] = []
    monkeypatch.setattr(CompanionApp, "run", lambda self: tags.append(self.tags))
    assert (
        run_play(_args("--manual", "--db", f"{tmp_path}/g.db", "--table", "7", "--dice", "red"))
        == 0
    )
    assert tags == [{"Table": "7", "Dice": "red"}]
