"""`companion vision enroll DIR --out PROFILE` (VISION.md, Enrolment)."""

from __future__ import annotations

import argparse
import sys
import time

from companion.vision.classify import FACES
from companion.vision.read import DEFAULT_FINDER, FINDERS


def _cmd_enroll(args: argparse.Namespace) -> int:
    from companion.vision.detect_net import DetectorModelError
    from companion.vision.enroll import EnrolmentError, enroll
    from companion.vision.read import make_finder

    start = time.perf_counter()
    try:
        profile = enroll(args.dir, args.out, model=args.model, finder=make_finder(args.finder))
    except EnrolmentError as exc:
        print(f"companion vision enroll: {exc}", file=sys.stderr)
        return 1
    except (ImportError, DetectorModelError) as exc:
        print(f"companion vision enroll: the die finder is unavailable ({exc}).", file=sys.stderr)
        return 1
    counts = ", ".join(f"{f}: {n}" for f, n in zip(FACES, profile.counts, strict=True))
    print(f"enrolled {sum(profile.counts)} dice ({counts}) into {args.out} in {time.perf_counter() - start:.1f} s")
    return 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `enroll` on a `companion vision` subparsers object."""
    p = subparsers.add_parser(
        "enroll", help="adapt the face reader to a table's own dice",
        description="Adapt the face reader to a table's dice. DIR holds folders I, 1, 2, 3 and E "
                    "with frames in which every visible die shows that motif.",
    )
    p.add_argument("dir", metavar="DIR", help="folder with subfolders I, 1, 2, 3, E of frames")
    p.add_argument("--out", metavar="PROFILE", required=True, help="folder to save the profile in")
    p.add_argument("--model", metavar="ONNX", default=None, help="face model (default: COMPANION_MODEL or the shipped one)")
    # The dice are cut by the finder that will read them: its corners are part of what the profile learns.
    p.add_argument("--finder", choices=FINDERS, default=DEFAULT_FINDER,
                   help=f"die finder, the one `vision read` will use (default {DEFAULT_FINDER})")
    p.set_defaults(func=_cmd_enroll)
