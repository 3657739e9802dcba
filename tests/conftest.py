from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("shared/ is not beside the repository")
    return SHARED


@pytest.fixture(autouse=True)
def _no_machine_keys(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests never seal with, or check against, the keys of the machine they run on."""
    none = tmp_path_factory.getbasetemp() / "no-such-key"
    monkeypatch.setenv("COMPANION_TABLE_KEY", str(none))
    monkeypatch.setenv("COMPANION_ORGANISER_KEY", str(none))
