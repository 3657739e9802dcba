"""The package's import graph: no circles, and no import running back up the layers.

The graph is read from the source (an AST walk, every import statement, also those inside
functions, and ``importlib.import_module("companion…")`` with a literal name), so a lazy import
counts as much as one at the top of a file.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "companion"

#: The layers, lowest first (DESIGN.md: "one direction of flow"). A module may import its own
#: unit and the units of its own or a lower layer. A unit is a subpackage (companion.rules) or a
#: top-level module (companion.secretary).
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    # what every part may use: the version, where files live, private files, BLAS threads
    (
        "foundation",
        frozenset({"companion", "companion.blas", "companion.fileperm", "companion.paths"}),
    ),
    # pure rules: imports nothing of the companion (checked apart below)
    ("rules", frozenset({"companion.rules"})),
    # the game record: reads and writes NOTATION.md, replays it, applies events to a Game
    ("record", frozenset({"companion.record"})),
    # the durable event log; it folds its events through record/
    ("store", frozenset({"companion.store"})),
    # frame sources, calibration, finding and reading dice: knows no game
    ("vision", frozenset({"companion.vision"})),
    # the renderer: draws dice and tables, crops training data with vision's cutters
    ("synth", frozenset({"companion.synth"})),
    # measuring the vision against a truth: scoring, enrolment on rendered dice, drawing reads
    ("evaluation", frozenset({"companion.evaluation"})),
    # spoken calls
    ("voice", frozenset({"companion.voice"})),
    # the secretary core: rolls and calls in, judged and stored events out; dice statistics
    ("secretary", frozenset({"companion.secretary", "companion.dicestats"})),
    # drivers of the secretary without screens: the demo's simulated table, the doctor's checklist
    ("drivers", frozenset({"companion.demo", "companion.doctor"})),
    ("screens", frozenset({"companion.tui"})),
    # the one command registry
    ("commands", frozenset({"companion.cli", "companion.__main__"})),
)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for p in sorted(root.rglob("*.py")):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _targets(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:  # `from . import x` imports the module x when there is one
                yield f"{target}.{a.name}" if f"{target}.{a.name}" in known else target
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module → the companion modules it imports."""
    known = modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        found = set()
        for t in _targets(name, path, known):
            while t and t not in known:  # `import companion.x.y` of a name inside a module
                t = t.rpartition(".")[0]
            if t.startswith("companion") and t != name:
                found.add(t)
        graph[name] = found
    return graph


def unit(module: str) -> str:
    return ".".join(module.split(".")[:2])


def layer_of(module: str) -> int:
    for i, (_, units) in enumerate(LAYERS):
        if unit(module) in units:
            return i
    raise AssertionError(f"{module} belongs to no layer: add its unit to LAYERS")


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if unit(a) != unit(b) and layer_of(b) > layer_of(a)
    }


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(frozenset(comp))
    return found


def test_every_unit_has_a_layer() -> None:
    for m in import_graph():
        layer_of(m)


def test_rules_import_nothing_of_the_companion() -> None:
    graph = import_graph()
    outside = {
        (a, b)
        for a, targets in graph.items()
        if unit(a) == "companion.rules"
        for b in targets
        if unit(b) != "companion.rules"
    }
    assert not outside, f"rules/ is pure (DESIGN.md) but imports {sorted(outside)}"


def test_no_import_runs_back_up() -> None:
    found = sorted(upward(import_graph()))
    assert not found, "imports running back up the layers:\n" + "\n".join(
        f"  {a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})" for a, b in found
    )


def test_no_import_circles() -> None:
    found = [sorted(c) for c in circles(import_graph())]
    assert not found, f"import circles: {found}"


def test_the_walk_sees_every_kind_of_import(tmp_path: Path) -> None:
    # a package of its own: the checks above can fail, and lazy and string imports count
    pkg = tmp_path / "companion"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "rules" / "__init__.py").write_text("from . import game\n")
    (pkg / "rules" / "game.py").write_text("def f():\n    from ..store import base\n")
    (pkg / "store").mkdir()
    (pkg / "store" / "__init__.py").write_text("")
    (pkg / "store" / "base.py").write_text(
        "import importlib\nfrom companion.rules.game import f\n"
        "importlib.import_module('companion.cli')\n"
    )
    (pkg / "cli.py").write_text("import companion.store.base\n")
    graph = import_graph(pkg)
    assert graph["companion.rules"] == {"companion.rules.game"}
    assert graph["companion.rules.game"] == {"companion.store.base"}
    assert graph["companion.store.base"] == {"companion.rules.game", "companion.cli"}
    assert upward(graph) == {
        ("companion.rules.game", "companion.store.base"),
        ("companion.store.base", "companion.cli"),
    }
    assert circles(graph) == [
        frozenset({"companion.rules.game", "companion.store.base", "companion.cli"})
    ]
