"""Where the companion keeps its files (XDG base directories).

On the Pi the service sets XDG_DATA_HOME and XDG_CONFIG_HOME below
/var/lib/companion, the one folder it may write (systemd/companion.service).
"""

from __future__ import annotations

import functools
import os
from importlib import resources
from pathlib import Path


def _xdg(var: str, fallback: str) -> Path:
    base = os.environ.get(var, "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / fallback
    return root / "companion"


def data_dir() -> Path:
    """Games database and evidence frames."""
    return _xdg("XDG_DATA_HOME", ".local/share")


def config_dir() -> Path:
    """Calibration and enrolment profile: what belongs to this table's camera and dice."""
    return _xdg("XDG_CONFIG_HOME", ".config")


def db_path() -> Path:
    return data_dir() / "companion.db"


def calibration_path() -> Path:
    return config_dir() / "calibration.json"


def profile_dir() -> Path:
    return config_dir() / "profile"


@functools.lru_cache(maxsize=64)
def shipped_file(folder: str, filename: str) -> Path:
    """A file the companion ships in a top-level folder of its checkout (models/, calibration/).

    Installed from a wheel, it is package data at companion/FOLDER/FILENAME (setup.py puts it
    there); in a checkout (deploy/install.sh installs it editable) it stands at FOLDER/FILENAME
    beside the package. The path may not exist: the caller says what is missing. Looked up
    once a process: the finder asks for its model on every frame.
    """
    packaged = resources.files(__package__ or "companion").joinpath(folder, filename)
    if isinstance(packaged, Path) and packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[1] / folder / filename


def shipped_model(env_var: str, filename: str) -> Path:
    """A shipped model: the path in ``env_var`` if set, else the installed or checkout one."""
    env = os.environ.get(env_var, "").strip()
    return Path(env) if env else shipped_file("models", filename)
