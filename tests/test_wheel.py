"""A wheel built from the repo, installed in a fresh venv, reads a frame from any folder.

Offline: the wheel is built without build isolation (the dev extra brings setuptools), and
installed with --no-index --no-deps; its dependencies come from this venv's site-packages,
added to the fresh venv by a .pth file (it runs no .pth of theirs, so this checkout's editable
install stays out).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FRAME = REPO / "calibration" / "samples" / "table-3cults.jpg"


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _clean_env() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("COMPANION_", "PYTHON", "VIRTUAL_ENV"))
    }


@pytest.mark.slow
def test_the_installed_wheel_reads_a_frame_from_any_folder(tmp_path: Path) -> None:
    env = _clean_env()
    # built from a copy of the tracked files: a build/ folder left in the checkout would
    # otherwise hand the wheel files that the build itself no longer puts there
    src = tmp_path / "src"
    tracked = (
        subprocess.run(
            ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True, timeout=60
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, src / name)
    dist = tmp_path / "dist"
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(dist),
            str(src),
        ],
        src,
        env,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("companion-*.whl")

    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    py = target / "bin" / "python"
    site = Path(
        _run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            tmp_path,
            env,
        ).stdout.strip()
    )
    (site / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            str(wheel),
        ],
        tmp_path,
        env,
    )
    assert installed.returncode == 0, installed.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    frame = work / "frame.jpg"
    shutil.copy(FRAME, frame)
    where = _run(
        [
            str(py),
            "-c",
            "import companion, companion.paths as p; print(companion.__file__); "
            "print(p.shipped_model('COMPANION_MODEL', 'faces.onnx'))",
        ],
        work,
        env,
    )
    module, model = where.stdout.split()
    assert Path(module).is_relative_to(site) and Path(model).is_relative_to(
        site / "companion" / "models"
    )
    assert not (site / "models").exists()  # not the checkout's layout
    # the float network the shipped int8 face model is made from is never read at run time
    assert (site / "companion" / "models" / "faces.onnx").is_file()
    assert not list((site / "companion" / "models").glob("*.float.onnx"))

    read = _run(
        [str(target / "bin" / "companion"), "vision", "read", "frame.jpg", "--json"], work, env
    )
    assert read.returncode == 0, read.stderr
    got = json.loads(read.stdout)
    here = _run(
        [sys.executable, "-m", "companion", "vision", "read", str(frame), "--json"], REPO, env
    )
    want = json.loads(here.stdout)
    faces = sorted(d["face"] for d in got["dice"])
    # the shipped model reads the sample's 1s and 2s '?' (README), the other ten their motif
    assert len(faces) >= 10 and sum(f != "?" for f in faces) >= 8
    assert faces == sorted(d["face"] for d in want["dice"])  # the same models as the checkout's


def test_a_checkout_finds_its_top_level_models(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.paths import shipped_file, shipped_model

    monkeypatch.delenv("COMPANION_MODEL", raising=False)
    assert shipped_model("COMPANION_MODEL", "faces.onnx") == REPO / "models" / "faces.onnx"
    assert shipped_file("calibration", "default.json") == REPO / "calibration" / "default.json"
    monkeypatch.setenv("COMPANION_MODEL", "/elsewhere/m.onnx")
    assert shipped_model("COMPANION_MODEL", "faces.onnx") == Path("/elsewhere/m.onnx")
    # looked up once (the finder asks on every frame); the variable still counts every time
    hits = shipped_file.cache_info().hits
    monkeypatch.delenv("COMPANION_MODEL")
    assert shipped_model("COMPANION_MODEL", "faces.onnx") == REPO / "models" / "faces.onnx"
    assert shipped_file.cache_info().hits == hits + 1
