"""The face model's export (:mod:`vision.lab.read_train`'s third part): the ONNX graph, its 8-bit version (int8
weights per output channel, uint8 activations calibrated on labelled crops; the head in float) and the checks that
ONNX Runtime reads them as torch did. Needs the ``train`` extra (torch, onnx) inside its functions.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from vision.lab.read_network import to_tensor


def export(model: Any, path: Path, size: int) -> None:
    import torch

    model.cpu().eval()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )


#: The quantised graph must read these crops as the float one does: the same top label for this share of them,
#: and no probability moved by more than MAX_QUANTISED_CHANGE.
MIN_QUANTISED_AGREEMENT = 0.99
MAX_QUANTISED_CHANGE = 0.15
#: The operators written in 8 bits: the convolutional body, nearly all the work (see :func:`quantise`).
QUANTISED_OPS = ["Conv", "Relu", "MaxPool"]


def quantise(float_path: Path, out_path: Path, calibration: np.ndarray) -> dict[str, Any]:
    """Write the 8-bit form of the float ONNX graph at ``float_path`` to ``out_path``; return its card entry.

    ONNX Runtime's static quantisation of the convolutional layers (convolutions, ReLU, max-pools, where nearly
    all the work is): weights int8 per output channel, activations uint8 with ranges (min to max) measured by
    running the float graph on ``calibration`` (N, S, S, 3 BGR crops cut by the crop rule), written as
    QuantizeLinear/DequantizeLinear pairs around each operator (QDQ), which ONNX Runtime runs as integer kernels
    on x86 and ARM alike. The head (the linear layer, softmax, the members' mean) stays in float: quantised too, a
    die's confidence could take only about 90 values, coarse beside the 0.95 floor. Same data, same file:
    nothing in it is drawn at random.
    """
    import onnxruntime
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    batches = [{"input": to_tensor(calibration[i : i + 64]).numpy()} for i in range(0, len(calibration), 64)]

    class Calibration(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(batches)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(float_path), str(prepared))  # shapes inferred and the graph simplified first
        quantize_static(
            str(prepared),
            str(out_path),
            Calibration(),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=QUANTISED_OPS,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    return {
        "layers": ", ".join(QUANTISED_OPS) + " (the head in float)",
        "weights": "int8, per output channel",
        "activations": "uint8, ranges (min to max) measured on the calibration crops",
        "format": "QDQ, onnxruntime.quantization.quantize_static",
        "calibration_crops": len(calibration),
        # Another version of the quantiser may write another file from the same float graph.
        "onnxruntime": onnxruntime.__version__,
    }


def _check_quantised(float_path: Path, int8_path: Path, crops: np.ndarray) -> dict[str, Any]:
    """The 8-bit graph must read ``crops`` as the float one does (catches a quantisation that lost the maths);
    returns how alike they read, for the card."""
    import onnxruntime as ort

    from vision.faces import softmax

    batch = to_tensor(crops).numpy()
    p_float, p_int8 = (
        softmax(ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"input": batch})[0])
        for path in (float_path, int8_path)
    )
    agreement = float((p_float.argmax(1) == p_int8.argmax(1)).mean())
    change = float(np.abs(p_float - p_int8).max())
    if agreement < MIN_QUANTISED_AGREEMENT or change > MAX_QUANTISED_CHANGE:
        raise RuntimeError(
            f"the 8-bit graph reads {agreement:.1%} of the check crops as the float one does and moves a "
            f"probability by up to {change:.3f} (wanted {MIN_QUANTISED_AGREEMENT:.0%} and "
            f"{MAX_QUANTISED_CHANGE}): write the float graph with --float32 and look"
        )
    return {
        "checked_on": f"{len(crops)} jittered tune-fold crops",
        "same_top_label_as_float": round(agreement, 4),
        "largest_probability_change": round(change, 4),
    }


def _check_export(model: Any, path: Path, crops: np.ndarray) -> None:
    """The ONNX graph must give the same logits as torch (catches an export that changed the maths)."""
    import onnxruntime as ort
    import torch

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    batch = to_tensor(crops)
    with torch.no_grad():
        expected = model(batch).numpy()
    got = session.run(None, {"input": batch.numpy()})[0]
    if not np.allclose(expected, got, atol=1e-3):
        raise RuntimeError(f"ONNX export differs from torch by {np.abs(expected - got).max():.4f}")
