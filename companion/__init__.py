"""Table companion for IÄÄ! Cthulhu! Fhtagn!."""

import os

# OpenCV logs probing faults ("[ WARN:0@0.107] … can't open camera by index")
# straight to the terminal, over the secretary's screen and doctor's checklist.
# The companion reports camera faults itself, in one sentence. Set before any
# import of cv2, which reads it once; a value set by the user wins.
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")

__version__ = "0.1.0"
