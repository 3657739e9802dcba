"""The screens reach the app through the Host protocol, never by importing it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from textual.app import App

from companion.tui.app import CompanionApp
from companion.tui.host import host_of

from .test_tui_support import secretary

TUI = Path(__file__).resolve().parents[1] / "companion" / "tui"


def _imports(path: Path) -> set[str]:
    """The modules a file imports, made absolute within companion.tui (functions' imports too)."""
    package = ["companion", *path.relative_to(TUI.parent).parent.parts]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            out.add(".".join([*base, *(node.module or "").split(".")]).strip("."))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_screen_imports_the_app() -> None:
    screens = sorted((TUI / "screens").glob("*.py")) + [TUI / "host.py"]
    assert len(screens) > 5
    for path in screens:
        assert "companion.tui.app" not in _imports(path), path.name
    assert "companion.tui.screens.phase" in _imports(TUI / "app.py")  # the walk sees imports at all


def test_the_app_is_a_host_and_another_app_is_not() -> None:
    app = CompanionApp(secretary())
    assert host_of(app) is app  # before a game is set up: session is not read by the check
    with pytest.raises(TypeError, match="not the companion app: it has no begin_phases"):
        host_of(App())
