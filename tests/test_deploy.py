"""The Pi install script, the service unit and `companion doctor`, tested without a Pi."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion import doctor, paths

REPO = Path(__file__).resolve().parents[1]
INSTALL = REPO / "deploy" / "install.sh"
UNIT_TEMPLATE = REPO / "systemd" / "companion.service.in"


def rendered_unit(
    prefix: str = "/opt/companion", data: str = "/var/lib/companion", voice: bool = False
) -> str:
    """The unit as install.sh writes it for these paths."""
    env = {
        **os.environ,
        "COMPANION_PREFIX": prefix,
        "COMPANION_DATA": data,
        "COMPANION_VOICE": str(int(voice)),
    }
    proc = subprocess.run(
        ["bash", str(INSTALL), "--print-unit"], capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_shellcheck_every_script() -> None:
    scripts = [p for p in REPO.rglob("*.sh") if ".venv" not in p.parts] + [REPO / ".ci" / "run"]
    proc = subprocess.run(
        ["shellcheck", *map(str, scripts)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed"
)
def test_unit_verifies(tmp_path: Path) -> None:
    # verify checks that ExecStart exists; point it at a stand-in, every other line unchanged
    exe = tmp_path / "companion"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    unit = tmp_path / "companion.service"
    unit.write_text(rendered_unit().replace("/opt/companion/venv/bin/companion", str(exe)))
    proc = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, check=False
    )
    problems = [ln for ln in proc.stderr.splitlines() if "companion.service" in ln]
    assert proc.returncode == 0 and not problems, proc.stderr


def test_unit_has_what_the_design_asks() -> None:
    text = rendered_unit()
    for line in (
        "User=companion",
        "SupplementaryGroups=video\n",
        "# without voice: DeviceAllow=char-alsa",
        "Conflicts=getty@tty1.service",
        "TTYPath=/dev/tty1",
        "StandardInput=tty",
        "Restart=on-failure",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ReadWritePaths=/var/lib/companion\n",
        "PrivateTmp=yes",
        "StandardError=journal",
        "--resume",
        "UMask=0077",
        "CapabilityBoundingSet=\n",
        "RestrictAddressFamilies=AF_UNIX\n",
        "DevicePolicy=closed",
        "SystemCallFilter=@system-service",
    ):
        assert line in text, line
    assert "@PREFIX@" not in text and "@DATA@" not in text
    for group in ("tty", "input"):
        assert group not in text.split("SupplementaryGroups=")[1].splitlines()[0]


def test_unit_takes_the_paths_install_was_given() -> None:
    text = rendered_unit("/srv/comp", "/data/table7")
    assert "ExecStart=/srv/comp/venv/bin/companion play --resume" in text
    assert "ReadWritePaths=/data/table7\n" in text and "WorkingDirectory=/data/table7\n" in text
    assert (
        "XDG_DATA_HOME=/data/table7/data" in text and "XDG_CONFIG_HOME=/data/table7/config" in text
    )
    assert "/opt/companion" not in text and "/var/lib/companion" not in text


def test_unit_with_voice_hears_and_only_then_has_sound() -> None:
    text = rendered_unit(voice=True)
    assert "SupplementaryGroups=video audio\n" in text and "\nDeviceAllow=char-alsa rw" in text
    assert "play --resume --voice\n" in text


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed"
)
@pytest.mark.parametrize("voice", [False, True])
def test_unit_exposure_is_at_most_2_5(tmp_path: Path, voice: bool) -> None:
    unit = tmp_path / "companion.service"
    unit.write_text(rendered_unit(voice=voice))
    proc = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(unit)],
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"Overall exposure level for companion.service: ([0-9.]+)", proc.stdout)
    assert found, proc.stdout + proc.stderr
    assert float(found.group(1)) <= 2.5, proc.stdout


def _install(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "COMPANION_PREFIX": str(tmp_path / "opt"),
        "COMPANION_DATA": str(tmp_path / "data"),
        "COMPANION_UNIT_DIR": str(tmp_path / "units"),
    }
    return subprocess.run(
        ["bash", str(INSTALL), *args], capture_output=True, text=True, env=env, check=False
    )


def test_install_dry_run_prints_every_step_and_changes_nothing(tmp_path: Path) -> None:
    proc = _install(tmp_path, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in (
        "apt-get install -y --no-install-recommends python3-picamera2",
        "useradd",
        "video",
        "venv --system-site-packages",
        "pip install -e",
        "[pi]",
        "calibration/default.json",
        "key new --out",
        "-m 0700",
        "render_unit >",
        "systemctl enable companion.service",
    ):
        assert needle in out, needle
    assert all(line.startswith(("[dry-run]", "==>")) for line in out.splitlines())
    assert list(tmp_path.iterdir()) == []


def test_uninstall_dry_run_keeps_databases(tmp_path: Path) -> None:
    out = _install(tmp_path, "--uninstall", "--dry-run").stdout
    assert (
        "systemctl disable --now companion.service" in out and "Keeping the game databases" in out
    )
    assert f"rm -rf {tmp_path / 'data'}" not in out
    purge = _install(tmp_path, "--uninstall", "--purge", "--dry-run").stdout
    assert f"rm -rf {tmp_path / 'data'}" in purge


def test_install_refuses_unknown_option(tmp_path: Path) -> None:
    proc = _install(tmp_path, "--bogus")
    assert proc.returncode == 2 and "unknown option" in proc.stderr


# ------------------------------------------------------------------ doctor
@pytest.fixture()
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def test_doctor_database_and_disk(xdg: Path) -> None:
    ctx = doctor.Context()
    assert doctor.check_database(ctx).status == "ok"
    assert paths.db_path().parent.is_dir() and not paths.db_path().exists()
    assert doctor.check_disk(ctx).status == "ok"


def test_doctor_database_not_writable(xdg: Path) -> None:
    if os.geteuid() == 0:
        # root writes anywhere: make the folder a file instead
        paths.data_dir().parent.mkdir(parents=True)
        paths.data_dir().write_text("not a folder")
    else:
        paths.data_dir().mkdir(parents=True)
        paths.data_dir().chmod(0o500)
    c = doctor.check_database(doctor.Context())
    assert c.status == "fail" and c.fix


def test_doctor_clock() -> None:
    assert doctor.check_clock(doctor.Context(), dt.datetime(1970, 1, 1)).status == "fail"
    assert doctor.check_clock(doctor.Context(), dt.datetime(2026, 11, 30)).status == "ok"


def test_doctor_profile_missing_is_a_warning(xdg: Path) -> None:
    c = doctor.check_profile(doctor.Context())
    assert c.status == "warn" and "enroll" in c.fix


def test_doctor_shows_the_profile_estimate(xdg: Path) -> None:
    import dataclasses

    import numpy as np

    from companion.vision.classify import FaceClassifier, default_enrol_model_path
    from companion.vision.enroll import Profile, SelfCheck

    clf = FaceClassifier(default_enrol_model_path())
    dim = clf.run(np.zeros((1, 64, 64, 3), np.uint8))[1].shape[1]
    protos = np.eye(5, dim, dtype=np.float32)
    check = SelfCheck(100, 97, 2, ((20, 0, 0, 0, 0, 0),) * 5)
    from companion.vision.enroll import model_digest

    prof = Profile(
        np.zeros((dim, 5), np.float32),
        np.zeros(5, np.float32),
        protos,
        0.7,
        0.5,
        model_digest(clf.path),
        (20, 20, 20, 20, 20),
        check,
    )
    prof.save(paths.profile_dir())
    c = doctor.check_profile(doctor.Context())
    assert (
        c.status == "ok" and "100 dice enrolled" in c.detail and "97.0% read right" in c.detail
    ), c.detail
    dataclasses.replace(prof, check=SelfCheck(100, 80, 15, ((20, 0, 0, 0, 0, 0),) * 5)).save(
        paths.profile_dir()
    )
    c = doctor.check_profile(doctor.Context())
    assert c.status == "warn" and "80.0% read right" in c.detail and "another frame" in c.fix
    # a second read of the dice as ink that reads its enrolment well: no warning, and said
    from companion.vision.ink_view import InkView

    view = InkView(np.array([0.2, 0.0, -0.1], np.float32), 7.0)
    weak = dataclasses.replace(prof, check=SelfCheck(100, 80, 15, ((20, 0, 0, 0, 0, 0),) * 5))
    for ink_right, status in ((95, "ok"), (85, "warn")):
        ink = dataclasses.replace(
            prof, check=SelfCheck(100, ink_right, 2, ((20, 0, 0, 0, 0, 0),) * 5), view=view
        )
        dataclasses.replace(weak, ink=ink).save(paths.profile_dir())
        c = doctor.check_profile(doctor.Context())
        assert c.status == status and f"self-check {ink_right}.0% that way" in c.detail, c.detail
    prof.save(paths.profile_dir())  # enrolled again without: the ink read is gone
    c = doctor.check_profile(doctor.Context())
    assert c.status == "ok" and "ink" not in c.detail, c.detail


def test_doctor_never_crashes_and_reports_failure(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(ctx: doctor.Context) -> doctor.Check:
        raise RuntimeError("boom")

    monkeypatch.setattr(doctor, "CHECKS", [broken, lambda ctx: doctor.Check("x", "ok", "fine")])
    import argparse

    code = doctor.cmd_doctor(argparse.Namespace(json=True))
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert out[0]["status"] == "fail" and "boom" in out[0]["detail"] and out[1]["status"] == "ok"


def test_doctor_camera_missing_says_what_to_do() -> None:
    (c,) = doctor.run_checks([doctor.check_camera])
    # no camera on this machine: a failure with a sentence, never an exception
    assert c.status in ("ok", "fail") and c.detail


def test_doctor_model_reads_its_test_frame() -> None:
    c = doctor.check_model(doctor.Context())
    assert c.status == "ok", c.detail
    assert "0 wrong" in c.detail


def test_doctor_model_missing_says_how_to_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COMPANION_MODEL", str(tmp_path / "absent.onnx"))
    c = doctor.check_model(doctor.Context())
    assert c.status == "fail" and "does not load" in c.detail and c.fix


class _FakeMicrophones:
    """sounddevice's query_devices, with or without an input device."""

    def __init__(self, name: str | None) -> None:
        self.name = name

    def query_devices(self, kind: str) -> dict[str, str]:
        if self.name is None:
            raise RuntimeError("Error querying device -1")
        return {"name": self.name}


def test_doctor_voice_hears_silence_as_nothing_and_names_the_microphone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    pytest.importorskip("pocketsphinx")
    monkeypatch.setitem(sys.modules, "sounddevice", _FakeMicrophones("USB PnP Sound Device"))
    c = doctor.check_voice(doctor.Context())
    assert c.status == "ok" and "microphone: USB PnP Sound Device" in c.detail, c
    monkeypatch.setitem(sys.modules, "sounddevice", _FakeMicrophones(None))
    c = doctor.check_voice(doctor.Context())
    assert c.status == "warn" and "no microphone" in c.detail and "arecord -l" in c.fix


def test_doctor_voice_without_the_extra_or_hearing_silence_as_a_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from companion.rules import TABLE_K
    from companion.voice import recognizer

    def absent() -> None:
        raise recognizer.VoiceUnavailable("hearing calls needs the voice extra")

    monkeypatch.setattr(recognizer, "Recognizer", absent)
    c = doctor.check_voice(doctor.Context())
    assert c.status == "ok" and "optional" in c.detail

    class Hallucinating:
        def hear(self, samples: object, calls: object) -> object:
            from companion.voice.heard import Heard

            return Heard(call=TABLE_K["K1"], confidence=0.9, ms=1.0)

    monkeypatch.setattr(recognizer, "Recognizer", Hallucinating)
    c = doctor.check_voice(doctor.Context())
    assert c.status == "fail" and "silence was heard as IÄÄ!" in c.detail and c.fix
