from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from companion.vision.classify import FaceClassifier
    from companion.vision.enroll import Profile

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("shared/ is not beside the repository")
    return SHARED


@pytest.fixture(scope="session")
def quantize_models() -> ModuleType:
    """models/quantize_models.py, a script beside the package, imported by its path."""
    import importlib

    sys.path.insert(0, str(REPO / "models"))
    try:
        return importlib.import_module("quantize_models")
    finally:
        sys.path.remove(str(REPO / "models"))


@pytest.fixture(autouse=True)
def _no_machine_keys(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests never seal with, or check against, the keys of the machine they run on."""
    none = tmp_path_factory.getbasetemp() / "no-such-key"
    monkeypatch.setenv("COMPANION_TABLE_KEY", str(none))
    monkeypatch.setenv("COMPANION_ORGANISER_KEY", str(none))


@pytest.fixture(scope="session")
def face_clf() -> FaceClassifier:
    """The shipped face model (tests that set its profile set it back)."""
    from companion.vision.classify import FaceClassifier
    from tests.test_enroll import MODEL

    return FaceClassifier(MODEL)


@pytest.fixture(scope="session")
def enrolled_table(face_clf: FaceClassifier) -> Profile:
    """A profile enrolled as `vision enroll` enrols, pixels and fused read included, on two
    frames a motif of one set (tests.test_pixel_templates.STYLE)."""
    from companion.synth import style_by_name
    from companion.vision.enroll import fit_profile
    from tests.test_enroll import _enrolment_crops
    from tests.test_pixel_templates import STYLE

    return fit_profile(face_clf, *_enrolment_crops(style_by_name(STYLE), 11))
