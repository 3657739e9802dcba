"""`companion vision enroll DIR --out PROFILE` (VISION.md, Enrolment)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING

from companion.vision import views
from companion.vision.classify import FACES, WARY_SHARE
from companion.vision.finders import DEFAULT_FINDER, FINDERS

if TYPE_CHECKING:
    from companion.vision.enroll import Profile


def _cmd_enroll(args: argparse.Namespace) -> int:
    from companion.vision.detect_net import DetectorModelError
    from companion.vision.enroll import EnrolmentError, enroll
    from companion.vision.finders import make_finder

    start = time.perf_counter()
    try:
        # "net": the learned finder judged by the face model, as `vision read` finds (enroll())
        finder = None if args.finder == "net" else make_finder(args.finder)
        profile = enroll(args.dir, args.out, model=args.model, finder=finder)
    except EnrolmentError as exc:
        print(f"companion vision enroll: {exc}", file=sys.stderr)
        return 1
    except (ImportError, DetectorModelError) as exc:
        print(f"companion vision enroll: the die finder is unavailable ({exc}).", file=sys.stderr)
        return 1
    counts = ", ".join(f"{f}: {n}" for f, n in zip(FACES, profile.counts, strict=True))
    try:
        print(
            f"enrolled {sum(profile.counts)} dice ({counts}) into {args.out} "
            f"in {time.perf_counter() - start:.1f} s",
            flush=True,
        )
        for line in self_check_lines(profile):
            print(line, flush=True)
    except BrokenPipeError:  # whoever read our output stopped (| head): the profile is saved
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def self_check_lines(profile: Profile) -> list[str]:
    """The cross-check, per motif, and the warnings, in plain words."""
    check = profile.check
    lines = []
    if check is not None and check.dice:
        lines.append(
            "self-check (each frame read by a profile fitted without it): "
            f"{check.right} of {check.dice} "
            f"dice read right ({100 * check.accuracy:.1f}%), {check.unsure} read ?, "
            f"{check.dice - check.right - check.unsure} wrong"
        )
        for k, face in enumerate(FACES):
            row = check.confusion[k]
            n = sum(row)
            if n == 0:
                lines.append(
                    f"  {face}: {profile.counts[k]} dice learnt, not checked (a single frame)"
                )
                continue
            others = ", ".join(
                f"{row[j]} as {FACES[j]}" for j in range(len(FACES)) if j != k and row[j]
            )
            lines.append(
                f"  {face}: {profile.counts[k]} dice learnt, {row[k]} of {n} told apart"
                + (f", {row[-1]} ?" if row[-1] else "")
                + (f", {others}" if others else "")
            )
    ink = profile.ink
    if ink is not None and ink.check is not None and ink.check.dice:
        c = ink.check
        says = views.says(ink.view)
        lines.append(
            f"the dice are also read {says}, where the drawing hides from the dice as seen "
            "(that read's self-check: "
            f"{c.right} of {c.dice} right, {c.unsure} ?, {c.dice - c.right - c.unsure} wrong); "
            "a die one read reads and the other reads ? takes the read, a die they read as two "
            "motifs reads ?"
        )
    limits = profile.limits or (profile.threshold,) * len(FACES)
    lines.append(
        "a die reads ? below its motif's confidence limit ("
        + ", ".join(f"{f} {v:.3f}" for f, v in zip(FACES, limits, strict=True))
        + ") or when unlike every enrolled motif"
    )
    lines.append(
        f"a find the model gives a {100 * profile.doubt:.0f}% chance or more of being no die "
        "reads ?, and is left out if it is also far from every enrolled motif"
    )
    from companion.vision.pixel_templates import MIN_ACCURACY

    px = profile.pixels
    if px is not None:
        checked = (
            f"pixel check (each frame's dice matched by their drawing to the other frames'): "
            f"{100 * px.accuracy:.1f}% read right"
        )
        if px.usable:
            lines.append(
                f"{checked}; a ? of the profile becomes its best guess when the drawing names "
                f"the same motif by a margin of {px.needed_margin:.3f} or more, and a die it "
                f"reads reads ? when the drawing names another by {px.objection_margin:.3f} or more"
            )
        else:
            lines.append(
                f"{checked}, too few to settle a ? (at least {100 * MIN_ACCURACY:.0f}% needed)"
            )
        if profile.fuses:
            decides = ""
            if px.may_decide:
                decides = (
                    "; where the head is unsure, it decides a die whose drawing is like the "
                    "enrolled dice"
                )
                if not px.usable:
                    decides += f" only from {px.decide_floor:.2f}, the pixel check being weak"
            lines.append(
                "head and drawing read as one (limits "
                + ", ".join(
                    f"{f} {v:.3f}" for f, v in zip(FACES, profile.fused_limits, strict=True)
                )
                + "): a die read keeps its motif only when that read names it too"
                + decides
            )
        if px.knows_likeness:
            wary = 100 * WARY_SHARE * profile.doubt
            lines.append(
                f"a find the model gives a {wary:.0f}% chance or more of being no die reads ? "
                "when its drawing is like none of the enrolled dice"
            )
    if ink is None:
        lines += [f"warning: {w}" for w in profile.warnings]
        if not profile.warnings:
            lines.append("no warning: every motif was told apart from the others")
        return lines
    # two reads: say which one each warning is of (a warning of the dice as seen may be one
    # the second read does not share)
    second = views.NAMES[views.kind(ink.view)] if ink.view is not None else "the second read"
    for name, prof in (("the dice as seen", profile), (second, ink)):
        lines += [f"warning ({name}): {w}" for w in prof.warnings]
        if not prof.warnings:
            lines.append(f"no warning ({name}): every motif was told apart from the others")
    return lines


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `enroll` on a `companion vision` subparsers object."""
    p = subparsers.add_parser(
        "enroll",
        help="adapt the face reader to a table's own dice",
        description="Adapt the face reader to a table's dice. DIR holds folders I, 1, 2, 3 and E "
        "with frames in which every visible die shows that motif.",
    )
    p.add_argument("dir", metavar="DIR", help="folder with subfolders I, 1, 2, 3, E of frames")
    p.add_argument("--out", metavar="PROFILE", required=True, help="folder to save the profile in")
    p.add_argument(
        "--model",
        metavar="ONNX",
        default=None,
        help="face model (default: COMPANION_MODEL or the shipped one)",
    )
    # The dice are cut by the finder that will read them: its corners are part of what the profile
    # learns.
    p.add_argument(
        "--finder",
        choices=FINDERS,
        default=DEFAULT_FINDER,
        help=f"die finder, the one `vision read` will use (default {DEFAULT_FINDER})",
    )
    p.set_defaults(func=_cmd_enroll)
