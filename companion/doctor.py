"""``companion doctor``: a checklist of what the secretary needs, with a fix for each failure."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from . import paths

MIN_FREE_MB = 500
#: A clock before this is a Pi that booted without network time.
EARLIEST_SANE = dt.datetime(2026, 1, 1)


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # "ok", "warn" or "fail"
    detail: str
    fix: str = ""


Frame = npt.NDArray[np.uint8]


@dataclass
class Context:
    """What one check finds and a later one reuses (the camera frame)."""

    frame: Frame | None = None
    camera_name: str = ""


def check_camera(ctx: Context) -> Check:
    from .vision.sources import CameraUnavailable, FrameSourceError, PiCameraSource, WebcamSource

    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401

        source: Any = PiCameraSource()
        ctx.camera_name = "Pi camera"
    except ImportError:
        source = WebcamSource(0)
        ctx.camera_name = "webcam 0"
    try:
        with source as cam:
            frame = cam.read()
    except (CameraUnavailable, FrameSourceError) as exc:
        return Check(
            "camera",
            "fail",
            f"{ctx.camera_name}: {exc}",
            "connect the camera (ribbon cable contacts facing the right way), check "
            "`rpicam-hello --list-cameras`, or play with `companion play --manual`",
        )
    image = getattr(frame, "image", frame)
    ctx.frame = np.asarray(image, np.uint8)
    h, w = ctx.frame.shape[:2]
    return Check("camera", "ok", f"{ctx.camera_name} delivers {w}x{h} frames")


def check_model(ctx: Context) -> Check:
    """Read a built-in rendered frame and compare with its ground truth."""
    from .synth.frame import render_frame
    from .vision.read import Reader

    try:
        reader = Reader.load()
    except Exception as exc:  # any load failure is reported as one sentence
        return Check(
            "model",
            "fail",
            f"a shipped model does not load: {exc}",
            "reinstall the package (deploy/install.sh, or pip install of the wheel) so the "
            "shipped models are present",
        )
    rendered = render_frame(20261130, n_dice=12)
    readings = reader.read(rendered.image)
    right = wrong = unsure = missed = 0
    for die in rendered.dice:
        near = [
            r for r in readings if (r.x - die.center[0]) ** 2 + (r.y - die.center[1]) ** 2 < 30**2
        ]
        if not near:
            missed += 1
        elif near[0].face == "?":
            unsure += 1
        elif near[0].face == die.face:
            right += 1
        else:
            wrong += 1
    detail = (
        f"test frame: {right} of {len(rendered.dice)} dice right, "
        f"{unsure} unsure, {missed} missed, {wrong} wrong"
    )
    if wrong or right < 0.8 * len(rendered.dice):
        return Check(
            "model",
            "fail",
            detail,
            "reinstall the package; the shipped model does not read its own test frame",
        )
    return Check("model", "ok", detail)


def check_calibration(ctx: Context) -> Check:
    from .vision.calibration import CalibrationError, find_markers, load_calibration

    saved = paths.calibration_path()
    try:
        cal = load_calibration(saved if saved.is_file() else None)
    except (CalibrationError, OSError, ValueError, KeyError) as exc:
        return Check(
            "calibration",
            "fail",
            f"the calibration cannot be read: {exc}",
            "run `companion calibrate` with the mat in view",
        )
    where = str(saved) if saved.is_file() else "the shipped default"
    if ctx.frame is None:
        status = "ok" if saved.is_file() else "warn"
        return Check(
            "calibration",
            status,
            f"{where} (no camera frame to compare it with)",
            "" if saved.is_file() else "run `companion calibrate` once the camera is mounted",
        )
    markers = find_markers(ctx.frame)
    if len(markers) < 3:
        return Check(
            "calibration",
            "fail",
            f"only {len(markers)} of the 4 mat markers are in view",
            "put the whole play mat under the camera, evenly lit",
        )
    geom = cal.geometry
    errors = [
        float(np.abs(cal.to_image(geom.marker_corners_mm(i)) - corners).max())
        for i, corners in markers.items()
    ]
    worst = max(errors)
    if worst > 15:
        return Check(
            "calibration",
            "fail",
            f"{where} is off by {worst:.0f} px: the camera or the mat moved",
            "run `companion calibrate` again",
        )
    return Check("calibration", "ok", f"{where} matches the view (within {worst:.1f} px)")


# A profile whose own cross-check reads fewer dice right than this is worth redoing.
PROFILE_WARN_BELOW = 0.9


def check_profile(ctx: Context) -> Check:
    folder = paths.profile_dir()
    if not folder.is_dir():
        return Check(
            "enrolment",
            "warn",
            f"no enrolment profile in {folder}: the shipped model reads alone",
            f"enrol your dice: `companion vision enroll DIR --out {folder}` (docs/raspberry-pi.md)",
        )
    try:
        from .vision.classify import FaceClassifier, default_enrol_model_path
        from .vision.enroll import Profile

        # checked against the model it reads with, as vision.enroll.load_reader does
        profile = Profile.load(folder, FaceClassifier(default_enrol_model_path()))
    except Exception as exc:  # a broken profile is one sentence, not a traceback
        return Check(
            "enrolment",
            "fail",
            f"the profile in {folder} does not load: {exc}",
            "enrol the dice again",
        )
    summary = f"profile {folder}: {profile.summary()}"
    # a profile with a second read of the dice redrawn (vision.views) reads at least as well
    # as the better of its two self-checks
    checks = [c for c in (profile.check, profile.ink.check if profile.ink else None) if c]
    best = max((c.accuracy for c in checks if c.dice), default=None)
    if best is not None and best < PROFILE_WARN_BELOW:
        return Check(
            "enrolment",
            "warn",
            summary,
            "enrol again with another frame of each motif the self-check confuses "
            "(`companion vision enroll` prints them), in the table's light",
        )
    return Check("enrolment", "ok", summary)


def _existing(p: Path) -> Path:
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_key(ctx: Context) -> Check:
    """The table key that seals the games (docs/verify.md): present, readable, private."""
    from .store.base import StoreError
    from .store.keys import load_key, table_key_path

    path = table_key_path()
    if not path.exists():
        return Check(
            "table key",
            "warn",
            f"no table key at {path}: games are not sealed, and verify can only "
            "check their hash chain",
            f"make one: `companion key new --out {path}` (docs/verify.md)",
        )
    try:
        key = load_key(path)
    except StoreError as exc:
        return Check(
            "table key", "fail", str(exc), "restore the key from its copy, or make a new one"
        )
    if path.stat().st_mode & 0o077:
        return Check(
            "table key",
            "fail",
            f"{path} can be read by others than the service user",
            f"chmod 600 {path}",
        )
    return Check("table key", "ok", f"key {key.id} in {path}")


def check_disk(ctx: Context) -> Check:
    where = _existing(paths.data_dir())
    free_mb = shutil.disk_usage(where).free / 2**20
    if free_mb < MIN_FREE_MB:
        return Check(
            "disk",
            "fail",
            f"{free_mb:.0f} MB free at {where}",
            f"free at least {MIN_FREE_MB} MB "
            "(old evidence frames: `companion export`, then delete)",
        )
    return Check("disk", "ok", f"{free_mb:,.0f} MB free at {where}")


def check_database(ctx: Context) -> Check:
    db = paths.db_path()
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        target = db if db.exists() else db.parent / ".doctor-probe.db"
        con = sqlite3.connect(target, timeout=2)
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("ROLLBACK")
        finally:
            con.close()
        if target != db:
            target.unlink(missing_ok=True)
    except (OSError, sqlite3.Error) as exc:
        return Check(
            "database",
            "fail",
            f"{db} is not writable: {exc}",
            f"give the companion user write access to {db.parent}",
        )
    return Check("database", "ok", f"{db} is writable" + ("" if db.exists() else " (no games yet)"))


def check_clock(ctx: Context, now: dt.datetime | None = None) -> Check:
    now = now or dt.datetime.now()
    if now < EARLIEST_SANE:
        return Check(
            "clock",
            "fail",
            f"the clock says {now:%Y-%m-%d %H:%M}",
            "connect to a network once (NTP) or set the date: records carry it",
        )
    return Check("clock", "ok", f"{now:%Y-%m-%d %H:%M}")


def check_service(ctx: Context) -> Check:
    if shutil.which("systemctl") is None:
        return Check("service", "warn", "no systemd here: the service is not installed", "")

    def ask(*args: str) -> str:
        proc = subprocess.run(
            ["systemctl", *args, "companion.service"], capture_output=True, text=True, check=False
        )
        return proc.stdout.strip() or proc.stderr.strip()

    enabled, active = ask("is-enabled"), ask("is-active")
    if enabled not in ("enabled", "disabled", "masked", "static"):
        enabled = "not installed"
    if enabled != "enabled":
        return Check(
            "service",
            "warn",
            f"companion.service is {enabled}",
            "sudo deploy/install.sh installs and enables it",
        )
    if active != "active":
        return Check(
            "service",
            "fail",
            f"companion.service is enabled but {active}",
            "see `journalctl -u companion -b` for why, then `sudo systemctl restart companion`",
        )
    return Check("service", "ok", "companion.service is enabled and running")


def check_voice(ctx: Context) -> Check:
    """Spoken calls (optional): the recognizer loads and hears a second of silence as no
    call, and there is a microphone to listen with."""
    from .rules import TABLE_K
    from .voice.recognizer import Recognizer, VoiceUnavailable

    try:
        start = time.perf_counter()
        recognizer = Recognizer()
        loaded = time.perf_counter() - start
        heard = recognizer.hear(np.zeros(16000, np.int16), tuple(TABLE_K.values()))
    except VoiceUnavailable as exc:
        return Check(
            "voice",
            "ok",
            f"not installed, an optional extra ({exc})",
            "",
        )
    if heard.call is not None:
        return Check(
            "voice",
            "fail",
            f"a second of silence was heard as {heard.text} ({heard.confidence:.2f})",
            "reinstall the voice extra: pip install --force-reinstall 'companion[voice]'",
        )
    try:
        import sounddevice as sd  # type: ignore[import-untyped,unused-ignore]

        mic = str(sd.query_devices(kind="input")["name"])
    except Exception as exc:  # noqa: BLE001 - PortAudio's own errors: no device, no library
        return Check(
            "voice",
            "warn",
            f"the recognizer loads ({loaded:.1f} s) but no microphone answers: {exc}",
            "plug in a USB microphone (`arecord -l` lists them) and install libportaudio2",
        )
    return Check("voice", "ok", f"the recognizer loads ({loaded:.1f} s); microphone: {mic}")


CHECKS: list[Callable[[Context], Check]] = [
    check_camera,
    check_model,
    check_calibration,
    check_profile,
    check_key,
    check_disk,
    check_database,
    check_clock,
    check_service,
    check_voice,
]


def run_checks(checks: list[Callable[[Context], Check]] | None = None) -> list[Check]:
    ctx = Context()
    out = []
    for check in checks or CHECKS:
        try:
            out.append(check(ctx))
        except Exception as exc:  # a doctor never crashes: a broken check is a failed check
            out.append(
                Check(
                    check.__name__.removeprefix("check_"), "fail", f"the check itself failed: {exc}"
                )
            )
    return out


MARKS = {"ok": "[ ok ]", "warn": "[warn]", "fail": "[FAIL]"}


def cmd_doctor(args: argparse.Namespace) -> int:
    results = run_checks()
    if args.json:
        print(json.dumps([asdict(c) for c in results], ensure_ascii=False))
    else:
        for c in results:
            print(f"{MARKS[c.status]} {c.name}: {c.detail}")
            if c.fix and c.status != "ok":
                print(f"       fix: {c.fix}")
    return 1 if any(c.status == "fail" for c in results) else 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "doctor", help="check camera, model, calibration, storage, clock and service"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_doctor)
