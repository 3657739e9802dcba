"""Files of the table (games, keys, profiles, calibration, evidence) are the service user's
alone."""

from __future__ import annotations

import os
from pathlib import Path


def private_dir(path: Path) -> None:
    """Make ``path`` and its missing parents 0700; an existing folder keeps its mode
    (it may be a shared one the user chose, like /tmp)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for p in reversed(missing):
        p.mkdir(mode=0o700, exist_ok=True)
        os.chmod(p, 0o700)  # mkdir's mode is cut by the umask; this is not


def write_private(path: Path, data: bytes | str) -> None:
    """Write a file as 0600 (also when it exists: its mode is tightened first)."""
    raw = data.encode() if isinstance(data, str) else data
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb", closefd=False) as fh:
            fh.write(raw)
    finally:
        os.close(fd)
