"""The one way the companion opens an ONNX model: CPU, a fixed thread count, no spinning."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cpu_session(path: str | Path, threads: int) -> Any:
    """An onnxruntime InferenceSession; onnxruntime's own errors pass through.

    The die finder and the face classifier run one after the other on every
    read: threads left spinning by one session slowed the other down
    (34 ms a read instead of 26, benchmarks/bench_vision.py).
    """
    import onnxruntime as ort  # deferred: loading is the slow part

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
