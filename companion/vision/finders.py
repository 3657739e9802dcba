"""The die finders by name: the classic one (detect.py), the learned one (detect_net.py), or both.

Reading and enrolment pick theirs here, so enrolment cuts the dice as reading will.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from companion.vision.detect import DetectorSettings, find_dice
from companion.vision.found import FoundDie

Finder = Callable[[npt.NDArray[np.uint8]], list[FoundDie]]
#: "classic": OpenCV die finder (detect.py); "net": the learned one (detect_net.py);
#: "both": both, and a die is read without doubt only where they agree (detect_both.py).
FINDERS = ("both", "classic", "net")
DEFAULT_FINDER = "net"  # better on every rendered figure and 2.5x faster; see docs/vision.md


def make_finder(name: str, settings: DetectorSettings | None = None) -> Finder:
    """The die finder called ``name``; the learned one loads its model here, not per frame."""
    if name in ("net", "both"):
        from companion.vision.detect_both import find_dice_both
        from companion.vision.detect_net import find_dice_net, load_session

        load_session()
        return find_dice_net if name == "net" else find_dice_both
    if name != "classic":
        raise ValueError(f"unknown die finder {name!r}; use one of {', '.join(FINDERS)}")
    return lambda image: find_dice(image, settings)
