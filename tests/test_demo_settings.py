"""`companion demo` hands typed settings to the demo; only command handlers see a Namespace."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from companion.cli import main
from companion.demo import DEFAULT_SEED, DEMO_CULTS, DEMO_PACE, DEMO_TARGET, DemoSettings

PACKAGE = Path(__file__).resolve().parents[1] / "companion"


def test_defaults_are_the_short_demo_game() -> None:
    s = DemoSettings()
    assert s.seed_or_default == DEFAULT_SEED and s.pace_or_default == DEMO_PACE
    opts = s.options()
    assert opts.cults == DEMO_CULTS[:3] and opts.target == DEMO_TARGET


def test_settings_given_are_kept() -> None:
    s = DemoSettings(seed=7, cults=5, target=90, pace=0.1, db=Path("d.db"))
    assert s.seed_or_default == 7 and s.pace_or_default == 0.1
    assert s.options().cults == DEMO_CULTS[:5] and s.options().target == 90


def test_the_command_unpacks_its_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.tui import app

    got: list[object] = []

    def run_demo(settings: DemoSettings) -> int:
        got.append(settings)
        return 0

    monkeypatch.setattr(app, "run_demo", run_demo)
    argv = ["demo", "--seed", "4", "--cults", "2", "--target", "40", "--pace", "0.2"]
    assert main([*argv, "--db", "x.db"]) == 0
    assert got == [DemoSettings(seed=4, cults=2, target=40, pace=0.2, db=Path("x.db"))]
    assert main(["demo"]) == 0
    assert got[-1] == DemoSettings()


def _handlers(tree: ast.Module) -> set[str]:
    """The functions a module registers as command handlers (``set_defaults(func=...)``)."""
    return {
        kw.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "set_defaults"
        for kw in node.keywords
        if kw.arg == "func" and isinstance(kw.value, ast.Name)
    }


def namespace_takers(source: str) -> set[str]:
    """Functions of ``source`` that take an argparse Namespace but are no command handler."""
    tree = ast.parse(source)
    takers = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(
            a.annotation is not None and "Namespace" in ast.unparse(a.annotation)
            for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        )
    }
    return takers - _handlers(tree)


def test_the_check_finds_a_library_function_taking_a_namespace() -> None:
    src = (
        "import argparse\n"
        "def handler(args: argparse.Namespace) -> int: return helper(args)\n"
        "def helper(args: argparse.Namespace) -> int: return 0\n"
        "def add(sub): sub.add_parser('x').set_defaults(func=handler)\n"
    )
    assert namespace_takers(src) == {"helper"}


def test_no_namespace_in_library_code() -> None:
    found = {
        f"{p.relative_to(PACKAGE.parent)}: {name}"
        for p in sorted(PACKAGE.rglob("*.py"))
        for name in namespace_takers(p.read_text(encoding="utf-8"))
    }
    assert not found, f"library functions taking an argparse Namespace: {sorted(found)}"
