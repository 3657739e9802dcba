"""companion: the table companion for IÄÄ! Cthulhu! Fhtagn! (reads the dice, judges the calls,
keeps the score)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeAlias

from . import __version__

#: Every command of `companion`, in the order `companion --help` lists them: the group it
#: stands in (None: the top level), the module that holds it and the function of that module
#: that adds it to the subparsers. A module is imported when the parser is built, so a command
#: costs its imports only then; a module that cannot be imported is an error that names it,
#: never a command that silently goes missing. Handlers unpack their arguments here or in
#: their module's command functions; library code gets plain values.
REGISTRY: tuple[tuple[str | None, str, str], ...] = (
    (None, "companion.cli", "add_record_commands"),  # replay, simulate
    ("vision", "companion.vision.read_cli", "add_read"),
    ("vision", "companion.vision.faces_cli", "add_commands"),  # enroll
    (None, "companion.vision.read_cli", "add_calibrate"),
    (None, "companion.tui.cli", "add_commands"),  # play
    (None, "companion.cli", "add_demo"),
    (None, "companion.store.cli", "add_commands"),  # export, standings, verify, key
    (None, "companion.doctor", "add_commands"),
    (None, "companion.voice.cli", "add_commands"),
    (None, "companion.dicestats", "add_commands"),  # stats
)
#: What each group is for, in `companion --help`.
GROUPS = {"vision": "vision commands"}

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class BrokenCommand(ImportError):
    """A command module that cannot be imported: a fault of the installation, said loudly."""


def _cmd_replay(args: argparse.Namespace) -> int:
    from .record.replay import UnreadableRecord, replay_file

    try:
        result = replay_file(args.file)
    except UnreadableRecord as exc:
        if args.json:  # the same object as for a record, with nothing replayed
            unread = {"line": None, "rule": None, "message": str(exc)}
            print(
                json.dumps(
                    {
                        "ok": False,
                        "error": unread,
                        "phases": [],
                        "totals": {},
                        "finished": False,
                        "winners": [],
                        "losers": [],
                    },
                    ensure_ascii=False,
                )
            )
        print(f"companion replay: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        from .record.report import replay_report

        print(replay_report(result))
    return 0 if result.ok else 1


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .record.simulate import simulate_command

    return simulate_command(
        args.cults,
        args.seed,
        args.games,
        args.out,
        args.strategy,
        target=args.target,
        start_rule=args.start_rule,
        doublers=args.doublers,
    )


def _cmd_demo(args: argparse.Namespace) -> int:
    # --resume finishes a headless demo game: the screen demo keeps no game to resume
    if not args.headless and not args.resume:
        from .demo import DemoSettings
        from .tui.app import run_demo

        settings = DemoSettings(
            seed=args.seed,
            cults=args.cults,
            target=args.target,
            pace=args.pace,
            db=Path(args.db) if args.db else None,
        )
        code: int = run_demo(settings)
        return code
    from .demo import run_headless

    return run_headless(
        Path(args.db) if args.db else None,
        seed=args.seed,
        cults=args.cults,
        resume=args.resume,
        crash_after=args.crash_after,
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="companion",
        description=__doc__,
        epilog=(
            "`companion COMMAND --help` describes a command. Guides: README.md, docs/game-night.md."
        ),
    )
    p.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    groups: dict[str, Subparsers] = {}
    for group, module, function in REGISTRY:
        if group is None:
            target = sub
        elif group in groups:
            target = groups[group]
        else:
            gp = sub.add_parser(group, help=GROUPS[group])
            target = groups[group] = gp.add_subparsers(dest="subcommand", metavar="COMMAND")
        _register(module, function)(target)
    return p


def _register(module: str, function: str) -> Callable[[Subparsers], None]:
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise BrokenCommand(f"the commands of {module} cannot be imported: {exc}") from exc
    add: Callable[[Subparsers], None] = getattr(mod, function)
    return add


def add_record_commands(sub: Subparsers) -> None:
    """replay and simulate: the game record's commands."""
    r = sub.add_parser(
        "replay",
        help="check a game record against the rules",
        description="Replays a game record (NOTATION.md) line by line. "
        "Exit 0 ok, 1 a line breaks a rule, 2 the file cannot be read.",
    )
    r.add_argument("file", metavar="FILE", help="the game record")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.set_defaults(func=_cmd_replay)

    s = sub.add_parser(
        "simulate",
        help="play games with seeded dice and write their records",
        description="Plays seeded games with simple strategies and prints their records, "
        "or writes them to --out as game-SEED.txt.",
    )
    s.add_argument("--cults", type=int, default=3, help="cults per game, 2 to 6 (default 3)")
    s.add_argument(
        "--seed", type=int, default=1, help="seed of the first game; game n uses seed+n (default 1)"
    )
    s.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    s.add_argument("--out", metavar="DIR", help="folder for the records (default: print them)")
    s.add_argument(
        "--strategy",
        default="mixed",
        choices=["random", "greedy", "cautious", "mixed"],
        help="how the cults choose their calls; mixed draws one per cult (default)",
    )
    s.add_argument("--target", type=int, help="points to win (default: the rulebook's, S3)")
    s.add_argument(
        "--start-rule",
        choices=["sum", "count"],
        default="sum",
        help="the roll-off counts the sum of tentacles or the tentacle dice (ST1; default sum)",
    )
    s.add_argument(
        "--doublers",
        choices=["return", "keep"],
        default="return",
        help="doubler stones return after scoring or stay with a cult (DB2; default return)",
    )
    s.set_defaults(func=_cmd_simulate)


def add_demo(sub: Subparsers) -> None:
    d = sub.add_parser(
        "demo",
        help="a whole game on the simulated table",
        description="On screen: Anna, Ben, Cleo… play to 60 points on the simulated table; "
        "the renderer draws each roll and the vision pipeline reads it "
        "(when it reads a test table right), "
        "the table map shows what was read, and a cult makes an illegal call now and then. "
        "With --headless: the game of `companion simulate --seed S --cults N` (Cult1, Cult2…, "
        "the rulebook's target) is fed to the secretary, stored, and its record printed.",
    )
    d.add_argument(
        "--headless", action="store_true", help="no screens: print the record and the winners"
    )
    d.add_argument(
        "--db",
        metavar="PATH",
        help="keep the game in this database (default: a throw-away one on screen; "
        "the user data folder with --headless, so that --resume can finish it)",
    )
    # None when not given: --resume then takes any unfinished demo game, not only seed 1
    d.add_argument("--seed", type=int, help="the seed of the dice (default 1)")
    d.add_argument(
        "--cults", type=int, choices=range(2, 7), metavar="N", help="2 to 6 cults (default 3)"
    )
    d.add_argument("--target", type=int, help="on screen: points to win (default 60, a short game)")
    d.add_argument("--pace", type=float, help="seconds between steps on screen (default 0.4)")
    d.add_argument(
        "--resume",
        action="store_true",
        help="finish the unfinished --headless demo game of --db without asking (headless)",
    )
    d.add_argument(
        "--crash-after", type=int, help=argparse.SUPPRESS
    )  # tests: kill -9 after N events
    d.set_defaults(func=_cmd_demo)


def _utf8_out() -> None:
    """Records, names and messages are UTF-8 (IÄÄ!, Σοφία, "…"): a stream in another encoding
    (PYTHONIOENCODING=ascii or latin-1, an old LANG=C) writes UTF-8 instead of failing with a
    traceback half-way through the output. A closed stream (None) is left alone."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        reconfigure = getattr(stream, "reconfigure", None)
        if not encoding or reconfigure is None:
            continue
        try:
            utf = codecs.lookup(encoding).name.startswith("utf")
        except LookupError:
            utf = False
        if not utf:
            reconfigure(encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    _utf8_out()
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
