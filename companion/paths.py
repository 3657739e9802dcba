"""Where the companion keeps its files (XDG base directories).

On the Pi the service sets XDG_DATA_HOME and XDG_CONFIG_HOME below
/var/lib/companion, the one folder it may write (systemd/companion.service).
"""

from __future__ import annotations

import os
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


def shipped_model(env_var: str, filename: str) -> Path:
    """A shipped model: the path in ``env_var`` if set, else models/FILENAME of this checkout
    (deploy/install.sh installs the checkout editable, so models/ stays beside the code)."""
    env = os.environ.get(env_var, "").strip()
    return Path(env) if env else Path(__file__).resolve().parents[1] / "models" / filename
