"""Where the table's database lives when ``--db`` does not say."""

from __future__ import annotations

from pathlib import Path

from ..paths import db_path


def default_db_path() -> Path:
    """$XDG_DATA_HOME/companion/companion.db, else ~/.local/share/companion/companion.db."""
    return db_path()
