"""Build hook: the shipped models and the default calibration go into the wheel as package data.

They stay in the checkout's top-level models/ and calibration/ folders (where training writes
them and people look for them); a wheel carries them under companion/models/ and
companion/calibration/, where companion.paths.shipped_file finds them installed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
#: folder of the checkout -> the files of it that the companion reads at run time
SHIPPED = {"models": ("*.onnx", "*.calibration.json"), "calibration": ("default.json",)}


class BuildWithShippedFiles(build_py):
    def run(self) -> None:
        super().run()
        for folder, patterns in SHIPPED.items():
            dest = Path(self.build_lib) / "companion" / folder
            dest.mkdir(parents=True, exist_ok=True)
            for pattern in patterns:
                for src in sorted((HERE / folder).glob(pattern)):
                    if src.name.endswith(".float.onnx"):
                        continue  # a network the shipped int8 one is made from, never read
                    shutil.copy2(src, dest / src.name)


setup(cmdclass={"build_py": BuildWithShippedFiles})
