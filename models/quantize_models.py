"""Quantize the face model or the die finder to 8-bit integers (onnxruntime's static QDQ).

The face model `vision read` ships, models/faces.onnx, is made here since session 23
(models/MODEL_CARD.md, "int8, session 23"): the trained float network,
models/faces.float.onnx, quantized with the first convolution float, then calibrated on
itself. It reads a batch of 20 crops in 5.1 ms instead of 12.1 on one thread here.
Session 22 had tried the same network carrying the float model's limits, and it made 2
more silent errors on the held-out drawing families without a profile; calibrated on
itself it made none more. The finder in int8 is not shipped (models/DETECTOR_CARD.md,
"int8, session 23"): with its last four convolutions and its output tail float (a float
tail is kept whenever --keep-float is 1 or more; session 22's file had quantized the output
tensor, heat and corners under one uint8 scale) it passed every gate written for it but
read fewer of our held-out frames entirely right after enrolment. Session 53 tried the same
recipe on the judged finder's network (`--model models/dice_detector_judged.onnx`), now that
the corner refiner cuts every sure die again: 4 ms a read faster, but more silent errors on
fresh otherhand frames and fewer drawing-family dice right after enrolment; not shipped either.

    python models/quantize_models.py faces --first-float 1 --out models/faces.onnx
    python models/calibrate_faces.py --model models/faces.onnx --frames 150
    python models/quantize_models.py detector --keep-float 4 --out D.onnx

The scales of the activations are measured on TRAINING-style renders only
(seeds from CALIBRATION_SEED, never a validation, held-out or foreign frame).
Weights are quantized per output channel in 7 bits (`reduce_range`): x86 CPUs
without VNNI multiply u8 activations by s8 weights in pairs summed into 16 bits,
which 8-bit weights saturate (under qemu-x86_64 -cpu Haswell an 8-bit model's
logits were 1.9 off this VNNI machine's; with 7-bit weights they were the same
bits). Activations are per tensor (uint8), with entropy-chosen ranges. The face
model's fully connected layers stay float: its embedding, what a profile reads,
is a Gemm's output with negative values, which one 8-bit scale coarsened to a
cosine of 0.89 with the float one (0.9997 or more with them float). The
metadata (temperature and limits) is carried over, and calibrate_faces.py then
chooses them for the int8 network itself (session 23: temperature 1.595 against
the float network's 1.547, `?` limit 0.9825 against 0.9809).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.synth import TRAIN, render_frame  # noqa: E402
from companion.vision.crop import cut_faces  # noqa: E402
from companion.vision.detect_net import _prepare, input_long_for  # noqa: E402

HERE = Path(__file__).resolve().parent
CALIBRATION_SEED = 61_000
# Frame sizes a finder sees: the common 1280x960, the Pi camera's 2304x1296 (a
# longer input), a phone's 4:3 and a small webcam frame.
SIZES = ((1280, 960), (2304, 1296), (1600, 1200), (640, 480))


def detector_inputs(frames: int, mixed: bool = True) -> Iterator[np.ndarray]:
    for k in range(frames):
        size = SIZES[k % len(SIZES)] if mixed else SIZES[0]
        frame = render_frame(CALIBRATION_SEED + k, size=size, styles=TRAIN, hard_clutter=k % 3 == 0)
        x, _ = _prepare(frame.image, input_long_for(max(size)))
        yield x


def face_inputs(frames: int, batch: int = 64) -> Iterator[np.ndarray]:
    crops: list[np.ndarray] = []
    for k in range(frames):
        frame = render_frame(CALIBRATION_SEED + k, styles=TRAIN)
        crops.extend(cut_faces(frame.image, [d.corners for d in frame.dice]))
        while len(crops) >= batch:
            yield np.asarray(crops[:batch], np.float32)
            crops = crops[batch:]
    # the rest, fewer than a batch, is left out: histogram calibration wants one shape


def refiner_inputs(data: Path, shards: int = 6, batch: int = 64) -> Iterator[np.ndarray]:
    """The corner refiner's training patches (NCHW float), from the first ``shards`` shards."""
    for path in sorted(data.glob("shard_*.npz"))[:shards]:
        x = np.load(path)["x"]
        for i in range(0, len(x) - batch + 1, batch):
            yield np.ascontiguousarray(x[i : i + batch].transpose(0, 3, 1, 2), np.float32)


def float_convs(
    src: Path, last: int, only: int = 0, first: int = 0, float_tail: bool = False
) -> list[str]:
    """The nodes left in float: the model's first ``first`` and last ``last`` convolutions,
    and its Gemms; with ``float_tail`` every node after the last convolution too."""
    import onnx

    nodes = onnx.load(str(src)).graph.node
    convs = [node.name for node in nodes if node.op_type == "Conv"]
    if float_tail:
        # The finder's outputs are one tensor of unlike maps (heat, offsets, log edge, angle,
        # corner residuals) cut apart and joined again after its last convolution: quantized
        # there, they share one uint8 scale, which coarsened the heat into steps (thresholds
        # 0.55 and 0.6 kept the same finds) and the corners (2.5 -> 2.9 px, session 23).
        end = max(i for i, node in enumerate(nodes) if node.op_type == "Conv")
        tail = [node.name for node in nodes[end + 1 :]]
        return float_convs(src, last, only, first) + tail
    # fully connected layers cost nothing beside the convolutions, and the face model's
    # embedding (a Gemm's output, negative values and all) is what a profile reads
    gemms = [node.name for node in nodes if node.op_type == "Gemm"]
    if only:  # only the first ``only`` convolutions in 8 bits
        return convs[only:] + gemms
    return convs[:first] + (convs[-last:] if last else []) + gemms


def quantize(
    src: Path,
    out: Path,
    inputs: Iterator[np.ndarray],
    keep_float: int = 0,
    method: str = "entropy",
    only: int = 0,
    reduce_range: bool = True,
    first_float: int = 0,
    float_tail: bool = False,
) -> None:
    """``keep_float``: how many of the last convolutions stay float (a head whose
    outputs have unlike ranges, which one activation scale would coarsen); ``float_tail``:
    the nodes after the last convolution too (float_convs)."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Reader(CalibrationDataReader):
        def get_next(self) -> dict[str, np.ndarray] | None:
            x = next(inputs, None)
            return None if x is None else {name: x}

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        exclude = float_convs(pre, keep_float, only, first_float, float_tail)
        quantize_static(
            str(pre),
            str(out),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            # 7-bit weights: x86 CPUs without VNNI multiply u8 by s8 in pairs summed into
            # 16 bits (VPMADDUBSW), which 8-bit weights can saturate; VNNI, the Pi's dot
            # product instructions and 7-bit weights cannot
            reduce_range=reduce_range,
            calibrate_method={
                "minmax": CalibrationMethod.MinMax,
                "percentile": CalibrationMethod.Percentile,
                "entropy": CalibrationMethod.Entropy,
            }[method],
            extra_options={"CalibPercentile": 99.99},
            nodes_to_exclude=exclude,
        )
    # the metadata (classes, temperature, limits) travels with the weights
    model = onnx.load(str(out))
    source = onnx.load(str(src))
    keys = {p.key for p in model.metadata_props}
    for p in source.metadata_props:
        if p.key not in keys:
            model.metadata_props.add(key=p.key, value=p.value)
    model.metadata_props.add(key="quantized_from", value=src.name)
    onnx.save(model, str(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("what", choices=("detector", "faces", "refiner"))
    ap.add_argument(
        "--model",
        default=None,
        help="the float network (default: models/faces.float.onnx, dice_detector.onnx, "
        "corner_refiner.float.onnx)",
    )
    # required: any *.onnx left in models/ goes into the wheel (but *.float.onnx: setup.py)
    ap.add_argument("--out", required=True)
    ap.add_argument("--frames", type=int, default=48, help="calibration frames")
    ap.add_argument("--method", choices=("minmax", "percentile", "entropy"), default="entropy")
    ap.add_argument("--keep-float", type=int, default=0, help="last convolutions left in float")
    ap.add_argument("--only", type=int, default=0, help="quantize only the first N convolutions")
    ap.add_argument("--first-float", type=int, default=0, help="first convolutions left in float")
    ap.add_argument(
        "--data",
        default=None,
        help="refiner: the training patches (train_refiner.py render's shards) to range on",
    )
    args = ap.parse_args()
    if args.what == "refiner":
        if not args.data:
            ap.error("refiner: --data (train_refiner.py render's shards) is needed")
        src = Path(args.model or HERE / "corner_refiner.float.onnx")
        out = Path(args.out)
        quantize(
            src,
            out,
            refiner_inputs(Path(args.data)),
            method=args.method,
            first_float=args.first_float,
        )
    elif args.what == "detector":
        src = Path(args.model or HERE / "dice_detector.onnx")
        out = Path(args.out)
        quantize(
            src,
            out,
            # histogram methods (entropy, percentile) want one input shape
            detector_inputs(args.frames, mixed=args.method == "minmax"),
            args.keep_float,
            args.method,
            args.only,
            first_float=args.first_float,
            float_tail=args.keep_float > 0,
        )
    else:
        src = Path(args.model or HERE / "faces.float.onnx")
        out = Path(args.out)
        quantize(
            src,
            out,
            face_inputs(args.frames),
            args.keep_float,
            args.method,
            first_float=args.first_float,
        )
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
