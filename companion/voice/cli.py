"""``companion voice hear``: recognise the call in WAV files, one JSON line each."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from companion.rules import FaceError


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``voice`` and its ``hear`` sub-command."""
    v = subparsers.add_parser(
        "voice",
        help="hear spoken calls (needs the voice extra)",
        description="Spoken-call recognition (docs/voice.md).",
    )
    vsub = v.add_subparsers(dest="voice_command", metavar="COMMAND")
    h = vsub.add_parser(
        "hear",
        help="recognise the call spoken in WAV files",
        description="Print one JSON line per file: the call heard (null when nothing was heard "
        "clearly), its confidence in 0..1 and the decoding time.",
    )
    h.add_argument(
        "files",
        nargs="+",
        metavar="FILE.wav",
        help="WAV files (PCM or float, 1-8 channels), 8-192 kHz, at most 30 s each",
    )
    h.add_argument(
        "--roll",
        metavar="FACES",
        default=None,
        help="the roll (e.g. I23E): only calls whose needs it meets are listened for",
    )
    h.add_argument(
        "--layout",
        metavar="FACES",
        default=None,
        help="the cult's layout before the roll ('' for empty)",
    )
    h.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="confidence below which the call is null (default 0.5)",
    )
    h.add_argument(
        "--json",
        action="store_true",
        help="JSON lines (the default output; accepted for symmetry with other commands)",
    )
    h.set_defaults(func=cmd_hear)

    def usage(_args: argparse.Namespace) -> int:
        v.print_help()
        return 2

    v.set_defaults(func=usage)


def _fail(message: str) -> int:
    print(f"companion voice hear: {message}", file=sys.stderr)
    return 2


def cmd_hear(args: argparse.Namespace) -> int:
    from .audio import AudioError, read_wav
    from .narrow import calls_for, parse_optional_faces
    from .recognizer import DEFAULT_THRESHOLD, Recognizer, VoiceUnavailable

    try:
        roll = parse_optional_faces(args.roll)
        layout = parse_optional_faces(args.layout)
        calls = calls_for(roll, layout)
    except (FaceError, ValueError) as exc:
        return _fail(f"{exc}.")
    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    if not 0.0 <= threshold <= 1.0:
        return _fail("--threshold must lie between 0 and 1.")
    # The recognizer takes a second or more to load: a file that cannot be read is
    # refused before it is loaded, so that bad input is answered at once.
    rec: Recognizer | None = None
    status = 0
    for name in args.files:
        line: dict[str, Any]
        try:
            audio = read_wav(name)
        except AudioError as exc:
            line = {"file": name, "call": None, "confidence": 0.0, "ms": 0.0, "error": f"{exc}."}
            status = 1
        else:
            if rec is None:
                try:
                    rec = Recognizer(threshold=threshold)
                except VoiceUnavailable as exc:
                    return _fail(f"{exc}.")
            heard = rec.hear(audio, calls)
            line = {
                "file": name,
                "call": heard.text,
                "confidence": heard.confidence,
                "ms": round(heard.ms, 1),
            }
        print(json.dumps(line, ensure_ascii=False), flush=True)
    return status
