"""How textured the dice's bodies are around their motifs (marbled, striped, veined).

At the finder's 512-pixel input the stripes across a big marbled die read as edges, and a
die can score under the weak peaks' floor there while a look at the frame shrunk finds it
(detect_net.NetSettings.shrunk_from_in). That look costs a network pass, so it is taken
only where the bodies are textured: measured on the ring of each die's face between its
motif and its edge, where a plain body is one flat colour whatever the art.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.crop import CROP_SIZE

# The ring, in crop pixels from the crop's centre (Chebyshev distance): outside the motif
# (the central 0.64 of the face, about 15 pixels from the centre of a 64-pixel crop) and
# inside the face's edge (26 pixels).
_RING_IN, _RING_OUT = 16.0, 22.0
_C = (CROP_SIZE - 1) / 2
_D = np.maximum(*np.abs(np.mgrid[0:CROP_SIZE, 0:CROP_SIZE] - _C))
RING = (_D >= _RING_IN) & (_D <= _RING_OUT)


def ring_spread(crops: npt.NDArray[np.uint8]) -> float:
    """The median over crops of the spread of grey in the ring (10th to 90th percentile)."""
    if len(crops) == 0:
        return 0.0
    grey = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for c in crops])[:, RING]
    lo, hi = np.percentile(grey.astype(np.float32), [10.0, 90.0], axis=1)
    return float(np.median(hi - lo))
