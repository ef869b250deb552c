"""`companion bench vision` and its YOLOv8n-sized reference."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from vision.lab import bench, yolo_ref


def test_bench_vision_prints_its_figures(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(yolo_ref, "onnx_path", lambda export_if_missing=True: None)
    monkeypatch.setattr(bench, "median_ms", lambda fn, repeat: (fn(), 1.0)[1])
    assert bench.run(argparse.Namespace(repeat=1)) == 0
    out = capsys.readouterr().out
    assert "one core" in out and "all cores" in out and "640x640" in out and "1280x960" in out
    assert "peak memory" in out and "YOLOv8n-sized ONNX reference: not available" in out


def test_the_reference_written_without_torch_is_the_yolov8n_graph() -> None:
    # The bench times the reference on a fresh machine (no torch): the onnx builder's graph must be YOLOv8n's, its
    # parameters as ultralytics counts them for 80 classes (3,157,200 less the DFL's 16 fixed bins).
    import onnxruntime as ort

    model, parameters = yolo_ref.build_onnx()
    assert parameters == 3_157_184
    kinds = [node.op_type for node in model.graph.node]
    assert kinds.count("Conv") == 63 and kinds.count("MaxPool") == 3 and kinds.count("Resize") == 2
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out = session.run(None, {"images": np.zeros((1, 3, 640, 640), np.float32)})[0]
    assert out.shape == (1, 84, 8400)
    assert np.isfinite(out).all()


def test_the_reference_detector_is_yolov8n_sized() -> None:
    torch = pytest.importorskip("torch")
    model = yolo_ref.build()
    assert 3_100_000 < yolo_ref.parameter_count() < 3_200_000  # YOLOv8n: 3.2 M parameters
    with torch.no_grad():
        out = model(torch.zeros(1, 3, 640, 640))
    assert tuple(out.shape) == (1, 84, 8400)  # 4 box distances + 80 classes at 80x80 + 40x40 + 20x20 places
