"""A YOLOv8n-sized reference detector, only to compare speed (``companion bench vision``).

Builds the YOLOv8n architecture (width 0.25, depth 0.33: Conv-BN-SiLU, C2f, SPPF, PAN neck, decoupled
head with DFL, 80 classes, about 3.2 M parameters, 8.7 GFLOPs at 640x640) in torch with random weights
and exports it once to ONNX in a git-ignored cache. Its latency does not depend on its weights, so the
untrained graph times like a trained one. Needs torch (the ``train`` extra) the first time only.
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
    """The cached ONNX file; built with torch if missing and torch is there, else ``None``."""
    path = CACHE / ONNX_NAME
    if path.is_file():
        return path
    if not export_if_missing:
        return None
    try:
        import torch
    except ImportError:
        return None
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
