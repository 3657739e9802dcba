"""companion: the table companion for IÄÄ! Cthulhu! Fhtagn! (reads the dice, judges the calls, keeps the score)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence

from . import __version__

# Sub-command groups that live beside their code; each module exposes
# add_commands(subparsers). A group whose optional dependencies are missing
# is left out rather than breaking the whole command.
_GROUPS = {
    "vision": ("companion.vision.read_cli", "companion.vision.faces_cli"),
}


def _cmd_replay(args: argparse.Namespace) -> int:
    from .record.replay import UnreadableRecord, replay_file

    try:
        result = replay_file(args.file)
    except UnreadableRecord as exc:
        if args.json:
            print(json.dumps({"ok": False, "error": {"line": None, "rule": None, "message": str(exc)}}))
        print(f"companion replay: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        from .record.report import replay_report

        print(replay_report(result))
    return 0 if result.ok else 1


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .record.simulate import simulate_main

    return simulate_main(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="companion", description=__doc__,
        epilog="`companion COMMAND --help` describes a command. Guides: README.md, docs/game-night.md.")
    p.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("replay", help="check a game record against the rules",
                       description="Replays a game record (NOTATION.md) line by line. "
                                   "Exit 0 ok, 1 a line breaks a rule, 2 the file cannot be read.")
    r.add_argument("file", metavar="FILE", help="the game record")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_cmd_replay)

    s = sub.add_parser("simulate", help="play games with seeded dice and write their records",
                       description="Plays seeded games with simple strategies and prints their records, "
                                   "or writes them to --out as game-SEED.txt.")
    s.add_argument("--cults", type=int, default=3, help="cults per game, 2 to 6 (default 3)")
    s.add_argument("--seed", type=int, default=1, help="seed of the first game; game n uses seed+n (default 1)")
    s.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    s.add_argument("--out", metavar="DIR", help="folder for the records (default: print them)")
    s.add_argument("--strategy", default="mixed", choices=["random", "greedy", "cautious", "mixed"],
                   help="how the cults choose their calls; mixed draws one per cult (default)")
    s.add_argument("--target", type=int, help="points to win (default: the rulebook's, S3)")
    s.add_argument("--start-rule", choices=["sum", "count"], default="sum",
                   help="the roll-off counts the sum of tentacles or the tentacle dice (ST1; default sum)")
    s.add_argument("--doublers", choices=["return", "keep"], default="return",
                   help="doubler stones return after scoring or stay with a cult (DB2; default return)")
    s.set_defaults(func=_cmd_simulate)

    for group, modules in _GROUPS.items():
        gp = sub.add_parser(group, help=f"{group} commands")
        gsub = gp.add_subparsers(dest="subcommand", metavar="COMMAND")
        for mod in modules:
            _add_from(mod, gsub)
    _add_from("companion.vision.calibrate_cli", sub)
    _add_from("companion.tui.cli", sub)
    _add_from("companion.store.cli", sub)
    _add_from("companion.doctor", sub)
    _add_from("companion.voice.cli", sub)
    _add_from("companion.dicestats", sub)
    return p


def _add_from(module: str, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return
    add: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None] = mod.add_commands
    add(subparsers)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        code: int = func(args)
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
