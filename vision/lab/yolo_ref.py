"""A YOLOv8n-sized reference detector, only to compare speed (``companion bench vision``).

Builds the YOLOv8n architecture (width 0.25, depth 0.33: Conv-BN-SiLU, C2f, SPPF, PAN neck, decoupled
head with DFL, 80 classes, about 3.2 M parameters, 8.7 GFLOPs at 640x640) with random weights, written
once to ONNX in a git-ignored cache. Its latency does not depend on its weights, so the untrained graph times
like a trained one. Two builders make the same graph: :func:`build` in torch (exported as torch exports an
eval-mode network: each batch norm folded into its convolution, SiLU as ``x * sigmoid(x)``), and
:func:`build_onnx`, the same layers written with the ``onnx`` package alone, so that ``companion bench vision``
times the reference on a fresh machine without torch (the ``dev`` extra has ``onnx``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CACHE = Path(__file__).resolve().parents[2] / "build" / "yolo_ref"
ONNX_NAME = "yolov8n-640.onnx"


def build(classes: int = 80) -> Any:
    """The YOLOv8n network as a torch module taking (N, 3, 640, 640)."""
    import torch
    from torch import nn

    class Conv(nn.Module):
        def __init__(self, c1: int, c2: int, k: int = 1, s: int = 1) -> None:
            super().__init__()
            self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
            self.bn = nn.BatchNorm2d(c2)
            self.act = nn.SiLU()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.act(self.bn(self.conv(x)))

    class Bottleneck(nn.Module):
        def __init__(self, c: int, shortcut: bool) -> None:
            super().__init__()
            self.cv1, self.cv2 = Conv(c, c, 3), Conv(c, c, 3)
            self.add = shortcut

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.cv2(self.cv1(x))
            return x + y if self.add else y

    class C2f(nn.Module):
        def __init__(self, c1: int, c2: int, n: int, shortcut: bool) -> None:
            super().__init__()
            self.c = c2 // 2
            self.cv1 = Conv(c1, 2 * self.c)
            self.cv2 = Conv((2 + n) * self.c, c2)
            self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = list(self.cv1(x).chunk(2, 1))
            for m in self.m:
                y.append(m(y[-1]))
            return self.cv2(torch.cat(y, 1))

    class SPPF(nn.Module):
        def __init__(self, c1: int, c2: int) -> None:
            super().__init__()
            c = c1 // 2
            self.cv1, self.cv2 = Conv(c1, c), Conv(4 * c, c2)
            self.m = nn.MaxPool2d(5, 1, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = [self.cv1(x)]
            for _ in range(3):
                y.append(self.m(y[-1]))
            return self.cv2(torch.cat(y, 1))

    class YOLOv8n(nn.Module):
        def __init__(self, nc: int) -> None:
            super().__init__()
            self.nc, self.reg = nc, 16
            self.b0, self.b1, self.b2 = Conv(3, 16, 3, 2), Conv(16, 32, 3, 2), C2f(32, 32, 1, True)
            self.b3, self.b4 = Conv(32, 64, 3, 2), C2f(64, 64, 2, True)
            self.b5, self.b6 = Conv(64, 128, 3, 2), C2f(128, 128, 2, True)
            self.b7, self.b8, self.b9 = Conv(128, 256, 3, 2), C2f(256, 256, 1, True), SPPF(256, 256)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.h12, self.h15 = C2f(384, 128, 1, False), C2f(192, 64, 1, False)
            self.h16, self.h18 = Conv(64, 64, 3, 2), C2f(192, 128, 1, False)
            self.h19, self.h21 = Conv(128, 128, 3, 2), C2f(384, 256, 1, False)
            c2, c3 = 64, max(64, min(nc, 100))
            self.box = nn.ModuleList(
                nn.Sequential(Conv(c, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * self.reg, 1)) for c in (64, 128, 256)
            )
            self.cls = nn.ModuleList(
                nn.Sequential(Conv(c, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for c in (64, 128, 256)
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            p3 = self.b4(self.b3(self.b2(self.b1(self.b0(x)))))
            p4 = self.b6(self.b5(p3))
            p5 = self.b9(self.b8(self.b7(p4)))
            n4 = self.h12(torch.cat([self.up(p5), p4], 1))
            o3 = self.h15(torch.cat([self.up(n4), p3], 1))
            o4 = self.h18(torch.cat([self.h16(o3), n4], 1))
            o5 = self.h21(torch.cat([self.h19(o4), p5], 1))
            outs = []
            for level, feat in enumerate((o3, o4, o5)):
                box = self.box[level](feat)
                n, _, h, w = box.shape
                # Distribution focal loss decode: expected distance per side from a softmax over 16 bins.
                bins = torch.arange(self.reg, dtype=box.dtype).view(1, 1, self.reg, 1, 1)
                dist = (box.view(n, 4, self.reg, h, w).softmax(2) * bins).sum(2)
                cls = self.cls[level](feat).sigmoid()
                outs.append(torch.cat([dist, cls], 1).view(n, 4 + self.nc, h * w))
            return torch.cat(outs, 2)

    return YOLOv8n(classes).eval()


def onnx_path(export_if_missing: bool = True) -> Path | None:
    """The cached ONNX file; if missing, exported from torch when torch is there, else written by
    :func:`build_onnx` when ``onnx`` is there, else ``None``."""
    path = CACHE / ONNX_NAME
    if path.is_file():
        return path
    if not export_if_missing:
        return None
    try:
        import torch
    except ImportError:
        try:
            import onnx
        except ImportError:
            return None
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        onnx.save(build_onnx()[0], str(tmp))
        tmp.replace(path)
        return path
    torch.manual_seed(0)
    model = build()
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with torch.no_grad():
        torch.onnx.export(
            model, (torch.zeros(1, 3, 640, 640),), str(tmp), input_names=["images"], opset_version=17, dynamo=False
        )
    tmp.replace(path)
    return path


def parameter_count() -> int:
    return sum(int(p.numel()) for p in build().parameters())


def build_onnx(classes: int = 80, seed: int = 0) -> tuple[Any, int]:
    """The YOLOv8n network of :func:`build` as an ONNX model (input ``images``, (1, 3, 640, 640); output
    (1, 4 + classes, 8400)) written with the ``onnx`` package, and its parameter count as torch counts it (a batch
    norm's two learnt vectors per convolution, which the graph carries folded into the convolution's bias).
    Weights are drawn as torch initialises a convolution (uniform within 1/sqrt(fan-in)), batch norms at rest."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes: list[Any] = []
    weights: list[Any] = []
    parameters = 0
    names = iter(range(1_000_000))

    def name(kind: str) -> str:
        return f"{kind}_{next(names)}"

    def constant(value: np.ndarray, kind: str = "const") -> str:
        label = name(kind)
        weights.append(numpy_helper.from_array(value, label))
        return label

    def op(kind: str, inputs: list[str], **attributes: Any) -> str:
        out = name(kind.lower())
        nodes.append(helper.make_node(kind, inputs, [out], **attributes))
        return out

    def conv(x: str, c1: int, c2: int, k: int = 1, s: int = 1, act: bool = True) -> str:
        """Conv-BN-SiLU (``act``) or a plain convolution with a bias (the head's last layers)."""
        nonlocal parameters
        bound = 1.0 / np.sqrt(c1 * k * k)
        w = rng.uniform(-bound, bound, (c2, c1, k, k)).astype(np.float32)
        # A batch norm at rest (mean 0, variance 1, scale 1, shift 0, eps 1e-5) folds into the weights.
        b = np.zeros(c2, np.float32) if act else rng.uniform(-bound, bound, c2).astype(np.float32)
        if act:
            w /= np.float32(np.sqrt(1.0 + 1e-5))
        parameters += w.size + (2 * c2 if act else c2)
        pad = k // 2
        y = op("Conv", [x, constant(w, "w"), constant(b, "b")], kernel_shape=[k, k], strides=[s, s],
               pads=[pad] * 4)  # fmt: skip
        return op("Mul", [y, op("Sigmoid", [y])]) if act else y

    def bottleneck(x: str, c: int, shortcut: bool) -> str:
        y = conv(conv(x, c, c, 3), c, c, 3)
        return op("Add", [x, y]) if shortcut else y

    def c2f(x: str, c1: int, c2: int, n: int, shortcut: bool) -> str:
        c = c2 // 2
        y = conv(x, c1, 2 * c)
        halves = [name("split"), name("split")]
        nodes.append(helper.make_node("Split", [y, constant(np.array([c, c], np.int64))], halves, axis=1))
        ys = list(halves)
        for _ in range(n):
            ys.append(bottleneck(ys[-1], c, shortcut))
        return conv(op("Concat", ys, axis=1), (2 + n) * c, c2)

    def sppf(x: str, c1: int, c2: int) -> str:
        ys = [conv(x, c1, c1 // 2)]
        for _ in range(3):
            ys.append(op("MaxPool", [ys[-1]], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]))
        return conv(op("Concat", ys, axis=1), 4 * (c1 // 2), c2)

    def up(x: str) -> str:
        scales = constant(np.array([1, 1, 2, 2], np.float32))
        return op("Resize", [x, "", scales], mode="nearest", coordinate_transformation_mode="asymmetric",
                  nearest_mode="floor")  # fmt: skip

    x = "images"
    p3 = c2f(conv(c2f(conv(conv(x, 3, 16, 3, 2), 16, 32, 3, 2), 32, 32, 1, True), 32, 64, 3, 2), 64, 64, 2, True)
    p4 = c2f(conv(p3, 64, 128, 3, 2), 128, 128, 2, True)
    p5 = sppf(c2f(conv(p4, 128, 256, 3, 2), 256, 256, 1, True), 256, 256)
    n4 = c2f(op("Concat", [up(p5), p4], axis=1), 384, 128, 1, False)
    o3 = c2f(op("Concat", [up(n4), p3], axis=1), 192, 64, 1, False)
    o4 = c2f(op("Concat", [conv(o3, 64, 64, 3, 2), n4], axis=1), 192, 128, 1, False)
    o5 = c2f(op("Concat", [conv(o4, 128, 128, 3, 2), p5], axis=1), 384, 256, 1, False)
    reg, c2, c3 = 16, 64, max(64, min(classes, 100))
    bins = constant(np.arange(reg, dtype=np.float32).reshape(1, 1, reg, 1, 1))
    outs = []
    for feat, c, side in ((o3, 64, 80), (o4, 128, 40), (o5, 256, 20)):
        box = conv(conv(conv(feat, c, c2, 3), c2, c2, 3), c2, 4 * reg, act=False)
        box = op("Reshape", [box, constant(np.array([1, 4, reg, side, side], np.int64))])
        dist = op("ReduceSum", [op("Mul", [op("Softmax", [box], axis=2), bins]), constant(np.array([2], np.int64))],
                  keepdims=0)  # fmt: skip
        cls = op("Sigmoid", [conv(conv(conv(feat, c, c3, 3), c3, c3, 3), c3, classes, act=False)])
        both = op("Concat", [dist, cls], axis=1)
        outs.append(op("Reshape", [both, constant(np.array([1, 4 + classes, side * side], np.int64))]))
    nodes.append(helper.make_node("Concat", outs, ["output0"], axis=2))
    graph = helper.make_graph(
        nodes, "yolov8n_reference",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 640, 640])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 4 + classes, 8400])],
        initializer=weights,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="vision.lab.yolo_ref")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, parameters
