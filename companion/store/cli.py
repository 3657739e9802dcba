"""Commands of the store: export, standings, verify, key."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .base import StoreError


def _cmd_export(args: argparse.Namespace) -> int:
    from .export import load, select, summary, to_csv, write_evidence
    from .sqlite import SQLiteStore

    try:
        store = SQLiteStore(args.db, create=False, salvage=True)
    except StoreError as exc:
        print(f"companion export: {exc}", file=sys.stderr)
        return 2
    games = []
    unreadable: list[str] = []  # games whose own row is damaged: said, not exported
    try:
        for info in select(store, args.game):
            try:
                games.append(load(store, info))
            except StoreError as exc:
                unreadable.append(f"game {info.id}: {exc}")
        if args.game == "all":
            unreadable += store.games_checked()[1]
        if args.evidence:
            kept = sum(write_evidence(store, ex, Path(args.evidence)) for ex in games)
            print(
                f"companion export: the evidence of {kept} roll{'s' if kept != 1 else ''} "
                f"written to {args.evidence}",
                file=sys.stderr,
            )
    except StoreError as exc:
        print(f"companion export: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"companion export: cannot write the evidence to {args.evidence}: {exc.strerror}",
            file=sys.stderr,
        )
        return 2
    finally:
        store.close()
    problems = unreadable + [f"game {ex.info.id}: {ex.problem}" for ex in games if ex.problem]
    if problems or store.damage:
        # one sentence: the first problem says what is wrong, the rest is in `companion verify`
        more = (
            f" (and {len(problems) - 1} more games; see `companion verify`)"
            if len(problems) > 1
            else ""
        )
        print(
            f"companion export: {problems[0] if problems else store.damage}{more}", file=sys.stderr
        )
    if args.format == "record":
        out = "\n".join(ex.record for ex in games)
    elif args.format == "json":
        out = (
            json.dumps({"games": [summary(ex) for ex in games]}, ensure_ascii=False, indent=2)
            + "\n"
        )
    else:
        out = to_csv([summary(ex) for ex in games])
    if args.out:
        try:
            Path(args.out).write_text(out, encoding="utf-8")
        except OSError as exc:
            print(f"companion export: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
            return 2
        print(
            f"companion export: {len(games)} game{'s' if len(games) != 1 else ''} "
            f"written to {args.out} ({args.format})",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(out)
    return 1 if problems or store.damage else 0


def _cmd_standings(args: argparse.Namespace) -> int:
    from ..record.standings import standings, standings_text

    ranked, aside, counted = standings(args.records)
    if args.json:
        print(
            json.dumps(
                {
                    "records": counted,
                    "standings": [s.to_json() for s in ranked],
                    "set_aside": [
                        {"file": a.file, "line": a.line, "rule": a.rule, "reason": a.reason}
                        for a in aside
                    ],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    elif not counted:  # nothing to rank: say why in one place, no empty table
        why = "; ".join(str(a) for a in aside) or "no records found"
        print(f"companion standings: no record could be counted: {why}", file=sys.stderr)
    else:
        print(standings_text(ranked, aside, counted))
    return 0 if counted or not aside else 1


def _cmd_verify(args: argparse.Namespace) -> int:
    from .keys import Keys, default_keys, load_key
    from .verify import verify

    try:
        found_keys = default_keys() if not args.no_key else Keys()
        keys = Keys(
            load_key(args.key) if args.key else found_keys.table,
            load_key(args.organiser_key) if args.organiser_key else found_keys.organiser,
        )
        found = verify(args.path, keys)
    except StoreError as exc:
        print(f"companion verify: {exc}", file=sys.stderr)
        return 2
    for f in found:
        print(f.message if f.note else ("ok: " if f.ok else "BAD: ") + f.message)
    return 0 if all(f.ok for f in found) else 1


def _cmd_key(args: argparse.Namespace) -> int:
    from .keys import make_key, organiser_key_path, table_key_path

    path = (
        Path(args.out)
        if args.out
        else (organiser_key_path() if args.organiser else table_key_path())
    )
    try:
        key = make_key(path)
    except StoreError as exc:
        print(f"companion key: {exc}", file=sys.stderr)
        return 1
    print(
        f"key {key.id} written to {path} (mode 0600); "
        "keep a copy somewhere safe to verify games later"
    )
    return 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    e = subparsers.add_parser("export", help="print stored games as records, JSON or CSV")
    e.add_argument("db", metavar="DB", help="the games database")
    e.add_argument("--game", default="all", help="a game number, 'last' or 'all' (default)")
    e.add_argument(
        "--format",
        choices=["record", "json", "csv"],
        default="record",
        help="game records (NOTATION.md, default), or JSON/CSV for play-logging apps",
    )
    e.add_argument("--out", metavar="FILE", help="write to FILE instead of printing")
    e.add_argument(
        "--evidence",
        metavar="DIR",
        help="also write each roll's kept frame and dice as read to DIR",
    )
    e.set_defaults(func=_cmd_export)

    s = subparsers.add_parser("standings", help="standings across tables from game records")
    s.add_argument("records", nargs="+", metavar="RECORD", help="record files, or folders of them")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=_cmd_standings)

    v = subparsers.add_parser("verify", help="check a database's hash chain, or replay a record")
    v.add_argument("path", metavar="DB|RECORD", help="a games database or a game record")
    v.add_argument(
        "--key",
        metavar="FILE",
        help="the table key to check the seals with (default: this "
        "machine's table key, if it has one)",
    )
    v.add_argument(
        "--organiser-key",
        metavar="FILE",
        help="also check the seals of a tournament organiser's key "
        "(default: this machine's organiser key, if it has one)",
    )
    v.add_argument(
        "--no-key",
        action="store_true",
        help="check the hash chain only, not the keys of this machine",
    )
    v.set_defaults(func=_cmd_verify)

    k = subparsers.add_parser("key", help="make the table's secret key that seals its games")
    k.add_argument("verb", choices=["new"], help="new: make a key (never overwrites one)")
    k.add_argument(
        "--organiser", action="store_true", help="make the organiser's key instead of the table's"
    )
    k.add_argument("--out", metavar="FILE", help="where to write it (default: the config folder)")
    k.set_defaults(func=_cmd_key)
