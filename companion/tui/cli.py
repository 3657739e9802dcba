"""`companion play`: the secretary at a real table, with the camera or by hand."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_commands(subparsers: argparse._SubParsersAction[Any]) -> None:
    p = subparsers.add_parser("play", help="keep a live game: camera reads the rolls, or --manual")
    p.add_argument("--manual", action="store_true", help="no camera: the secretary keys every roll")
    p.add_argument("--cults", default="", help="cults in seating order, e.g. 'Anna Ben Cleo'")
    p.add_argument(
        "--record", metavar="FILE", help="also write the game record here after every event"
    )
    p.add_argument(
        "--db", metavar="PATH", help="the games database (default: the user data folder)"
    )
    p.add_argument("--resume", action="store_true", help="go on with the last unfinished game")
    p.add_argument(
        "--calibration", metavar="FILE", help="the saved calibration (default: the installed one)"
    )
    p.add_argument("--profile", metavar="DIR", help="the enrolment profile of this table's dice")
    p.add_argument("--event", default="", help="the Event tag of the record")
    p.add_argument(
        "--table", default="", help="the Table tag: which table (companion stats groups by it)"
    )
    p.add_argument(
        "--dice", default="", help="the Dice tag: which set of dice (companion stats groups by it)"
    )
    p.add_argument(
        "--voice",
        action="store_true",
        help="hear the spoken calls with a USB microphone (needs the voice extra)",
    )
    p.add_argument("--mic", default=None, help="the microphone (sounddevice name or index)")
    p.set_defaults(func=run_play)


def run_play(args: argparse.Namespace) -> int:
    from ..paths import db_path
    from ..secretary import Secretary
    from ..store.base import StoreError
    from ..vision.seen import TableCamera
    from ..vision.table import open_table_watcher
    from .app import CompanionApp, _ansi_console

    camera: TableCamera | None = None
    status = "none: manual mode, the secretary keys every roll"
    if not args.manual:
        try:
            camera = open_table_watcher(args.calibration, args.profile)
        except Exception as exc:  # noqa: BLE001 - any camera fault ends here with a message
            print(
                f"companion play: the camera cannot be used: {exc}\n"
                "Run `companion play --manual` to keep the game by keying the rolls in.",
                file=sys.stderr,
            )
            return 2
        status = camera.name
    db = Path(args.db) if args.db else db_path()
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        secretary = Secretary.open(db)
    except (StoreError, OSError) as exc:
        print(f"companion play: {exc}", file=sys.stderr)
        return 2
    resumed = False
    notice = ""
    if args.resume:
        info = secretary.unfinished_game()
        if info is None or "demo" in info.meta:
            # said on the setup screen: a line printed here would vanish under the screen
            notice = f"--resume: {db} holds no unfinished game, so this is a new one"
        else:
            secretary.resume(info.id)
            resumed = True
    tags = {
        k: v for k, v in (("Event", args.event), ("Table", args.table), ("Dice", args.dice)) if v
    }
    app = CompanionApp(
        secretary,
        resumed=resumed,
        camera=camera,
        camera_status=status,
        cults=args.cults,
        record_path=Path(args.record) if args.record else None,
        tags=tags,
        ansi=_ansi_console(),
        notice=notice,
    )
    if args.voice:
        app.listener = _open_listener(app, args.mic)
    try:
        app.run()
    finally:
        if camera is not None:
            camera.close()
        secretary.close()
    # Textual sets return_code to 1 when the app stopped on an unhandled exception
    return app.return_code or 0


def _open_listener(app: Any, mic: str | None) -> Any:
    """The voice listener posting heard calls to the screen, or None with a sentence why not."""
    try:
        from ..voice.listen import Listener
        from ..voice.recognizer import VoiceUnavailable
    except ImportError as exc:
        print(f"companion play: no voice: {exc}; keep keying the calls", file=sys.stderr)
        return None
    from .messages import CallHeard

    def heard(h: Any) -> None:  # runs on the listener's thread
        app.call_from_thread(lambda: app.screen.post_message(CallHeard(h)))

    device: int | str | None = int(mic) if mic is not None and mic.isdigit() else mic
    try:
        listener = Listener(heard, device)
        listener.start()
    except VoiceUnavailable as exc:
        print(f"companion play: no voice: {exc}; keep keying the calls", file=sys.stderr)
        return None
    return listener
