"""Load a training script of models/ as a module (they are scripts, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

MODELS = Path(__file__).resolve().parents[1] / "models"


def load_script(name: str) -> ModuleType:
    """models/NAME.py, executed afresh and registered in sys.modules under NAME."""
    spec = importlib.util.spec_from_file_location(name, MODELS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
