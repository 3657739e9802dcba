"""Table companion for IÄÄ! Cthulhu! Fhtagn!."""

import os
import sys

# OpenCV logs probing faults ("[ WARN:0@0.107] … can't open camera by index")
# straight to the terminal, over the secretary's screen and doctor's checklist.
# The companion reports camera faults itself, in one sentence. Set before any
# import of cv2, which reads it once; a value set by the user wins.
os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
# numpy's BLAS (OpenBLAS) starts a thread a core for the reader's larger products (a die's
# pixels against every enrolled die), and its threads spin on after each, on the cores
# onnxruntime and OpenCV read with: a read with a profile took 47 ms, not 33 (docs/vision.md,
# session 43). One thread; a value set by the user wins. Set before numpy's first import.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
if "numpy" in sys.modules:  # loaded before the companion: tell its OpenBLAS now
    from companion.blas import match_blas_threads

    match_blas_threads()

__version__ = "0.1.0"
