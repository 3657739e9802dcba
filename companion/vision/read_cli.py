"""`companion vision read` and `companion calibrate`: argparse registration and handlers."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.vision.finders import DEFAULT_FINDER, FINDERS
from companion.vision.mat import PAPER_MM, SLOTS_FOR_CULTS

DICE_KINDS = ("motifs", "d6")


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `read` and `calibrate` on an argparse subparsers object."""
    add_read(subparsers)
    add_calibrate(subparsers)


def add_read(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "read",
        help="read the dice in images",
        description="Find every die in each image and read its motif (VISION.md).",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="PNG or JPEG frames")
    p.add_argument(
        "--profile",
        metavar="PROFILE",
        default=None,
        help="enrolment profile folder (default: the shipped model alone)",
    )
    p.add_argument(
        "--model",
        metavar="ONNX",
        default=None,
        help="face model (default: COMPANION_MODEL or the shipped one; with --dice d6, "
        "COMPANION_PIP_MODEL or models/pips.onnx)",
    )
    p.add_argument(
        "--finder",
        choices=FINDERS,
        default=DEFAULT_FINDER,
        help=f"die finder: classic OpenCV or the learned net (default {DEFAULT_FINDER})",
    )
    p.add_argument(
        "--dice",
        choices=DICE_KINDS,
        default="motifs",
        help="motifs: this game's dice (default); d6: ordinary pip dice, face 1-6",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per image per line (the default with --dice d6)",
    )
    p.add_argument(
        "--text",
        action="store_true",
        help="with --dice d6: each image's pip values counted, for a person, instead of JSON",
    )
    p.set_defaults(func=cmd_read)


def add_calibrate(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    c = subparsers.add_parser(
        "calibrate",
        help="find the play mat and check the camera",
        description="Find the play mat's markers in a frame, check focus, exposure and die size, "
        "and save the calibration.",
    )
    c.add_argument(
        "--frame",
        metavar="FILE",
        default=None,
        help="a saved frame (default: take one from the camera)",
    )
    c.add_argument(
        "--cults",
        type=int,
        default=4,
        choices=sorted(SLOTS_FOR_CULTS),
        help="number of cults at the table (default 4)",
    )
    c.add_argument("--paper", default="A3", choices=sorted(PAPER_MM), help="mat size (default A3)")
    c.add_argument(
        "--die-mm", type=float, default=16.0, help="die edge in millimetres (default 16)"
    )
    c.add_argument(
        "--out",
        metavar="PATH",
        type=Path,
        default=None,
        help="where to save it (default: the user calibration file)",
    )
    c.add_argument("--force", action="store_true", help="save even if the frame has problems")
    c.set_defaults(func=cmd_calibrate)


def cmd_read(args: argparse.Namespace) -> int:
    from companion.vision.classify import ModelError
    from companion.vision.detect_net import DetectorModelError
    from companion.vision.enroll import EnrolmentError
    from companion.vision.finders import make_finder
    from companion.vision.read import Reader, read_images

    if args.dice == "d6" and args.profile is not None:
        print(
            "companion vision read: pip dice need no enrolment profile; "
            "leave out --profile with --dice d6.",
            file=sys.stderr,
        )
        return 2
    try:
        if args.dice == "d6":
            from companion.vision.pips import PipClassifier

            reader = Reader(PipClassifier(args.model), finder=make_finder(args.finder))
            reader.warm_up()
        else:
            reader = Reader.load(args.profile, args.model, args.finder)
    except (ModelError, EnrolmentError, DetectorModelError) as exc:
        print(f"companion vision read: {_sentence(exc)}", file=sys.stderr)
        return 2
    status = 0
    # VISION.md gives pip dice as JSON with or without --json ("--dice d6 [--json]"); --text
    # asks for the count of each pip value a person reads at the table
    as_json = args.json or (args.dice == "d6" and not args.text)
    try:
        for result in read_images(reader, args.images):
            if result.error is not None:
                status = 1
            print(result.to_json() if as_json else result.to_text(), flush=True)
    except BrokenPipeError:  # whoever read our output stopped (| head): no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


def cmd_calibrate(args: argparse.Namespace) -> int:
    from companion.vision.calibration import CalibrationError, calibrate, user_calibration_path

    try:
        frame = _calibration_frame(args.frame)
        report = calibrate(frame, paper=args.paper, cults=args.cults, die_mm=args.die_mm)
    except CalibrationError as exc:
        print(f"companion calibrate: {_sentence(exc)}", file=sys.stderr)
        return 1
    m = report.measures
    if "die_edge_px_min" in m:
        print(
            f"mat found; focus {m.get('focus', 0):.0f}, die edge "
            f"{m['die_edge_px_min']:.0f}-{m['die_edge_px_max']:.0f} px"
        )
    for problem in report.problems:
        print(f"to fix: {problem}")
    if report.calibration is None or (report.problems and not args.force):
        print(
            "calibration not saved: fix the above and run it again (or use --force)",
            file=sys.stderr,
        )
        return 1
    out = args.out or user_calibration_path()
    try:
        report.calibration.save(out)
    except OSError as exc:
        print(f"companion calibrate: cannot write {out} ({exc.strerror})", file=sys.stderr)
        return 1
    print(f"calibration saved to {out}")
    return 0


def _calibration_frame(path: str | None) -> npt.NDArray[np.uint8]:
    from companion.vision.calibration import CalibrationError
    from companion.vision.image_file import ImageFileError as ReadError
    from companion.vision.image_file import load_image
    from companion.vision.sources import FrameSourceError, PiCameraSource, WebcamSource

    if path is not None:
        try:
            return load_image(path)
        except ReadError as exc:
            raise CalibrationError(str(exc)) from None
    errors = []
    for source in (PiCameraSource(), WebcamSource()):
        try:
            with source:
                return source.read()
        except FrameSourceError as exc:
            errors.append(str(exc))
    raise CalibrationError("no camera gives a frame (" + "; ".join(errors) + "); use --frame FILE")


def _sentence(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if text.endswith(".") else text + "."
