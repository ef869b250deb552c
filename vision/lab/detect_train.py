"""Training the dice detector (``models/dice-detect.onnx``): data, augmentation, network, loss, export.

Data: every Rune55 photo, the Byler *train* split (never the val split, see :mod:`vision.lab.splits`) and
scenes drawn by :mod:`vision.lab.render` (640x640 with 20-60 px dice and 1280x960 with 40-90 px dice, as
the camera sees them; a few with no dice at all), with round things that are not dice among the dice (tokens,
coins, a tray's holes: the detector must pass over them) and dark dice with faint pips and marbled dice (so a
die with little on its face is still a die: a blank round thing and a faint-pipped die differ by their shape).
Each training sample is a 160x160 crop of one image,
scaled so that its dice measure 10 to 64 px (sometimes up to 110 px), with width and height scaled
apart by up to 15% (Rune55's table photos are squashed), one of the eight flips/quarter turns, colour
jitter, grey-scale, blur, noise and a JPEG round trip. Real labels are axis-aligned boxes, so real
photos are only turned by quarter turns (which keep a box exact); rendered scenes add every rotation.

Network: CenterNet-style, fully convolutional, output at stride 4 (see :class:`DetectNet`). Targets:
a Gaussian at each die centre (focal loss), and at the centre cell the sub-cell offset, log box width and
height, and (rendered dice only, where the rotation is known) cos/sin of 4x the angle.

``python -m vision.lab.detect_train [--steps N] [--quick]``; ``make train`` runs it with defaults. Seeds
are fixed and torch uses at most two threads, so a run is reproducible on one machine.
"""

from __future__ import annotations

import argparse
import json
import math
import queue
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import MODELS_DIR
from vision.detect import PAD_VALUE, STRIDE
from vision.lab.read_train import count_arg, share_arg
from vision.lab.splits import byler_records, fold_of, manifest_path, read_manifest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
CROP = 160
MAX_SIDE = 384
SEED = 0
MATCH_RULE = "axis-aligned box IoU >= 0.5, one-to-one, strongest first"
#: Round things with no pips in each held-out rendered scene of the card's ``rendered_tokens`` figures.
TOKENS_MEASURED = (3, 6)


@dataclass
class Sample:
    """One training image: where it comes from and its dice as (x0, y0, x1, y1, angle or nan)."""

    source: str
    boxes: np.ndarray  # (N, 5) float32
    path: str | None = None
    jpeg: bytes | None = None

    def image(self) -> np.ndarray:
        if self.jpeg is not None:
            img = cv2.imdecode(np.frombuffer(self.jpeg, np.uint8), cv2.IMREAD_COLOR)
        else:
            img = cv2.imread(str(self.path), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"cannot read training image {self.path}")
        return img


def real_samples(shared: Path, hold_out_tune: bool = False) -> list[Sample]:
    """The labelled photos: every Rune55 photo and the Byler train split (without its tune fold when
    ``hold_out_tune``: a detector that never saw those photos, to measure the face reader behind it there)."""
    out = []
    rune = manifest_path(shared, "rune55")
    for source, records in (("rune55", list(read_manifest(rune))), ("byler", byler_records(shared, "train"))):
        for r in records:
            if hold_out_tune and source == "byler" and fold_of(r["image"]) == "tune":
                continue
            boxes = np.array([[*d["box"], np.nan] for d in r["dice"]], np.float32).reshape(-1, 5)
            out.append(Sample(source, boxes, path=r["path"]))
    return out


def rendered_samples(
    count: int, seed: int, tokens: int = 0, faint_pips: float = 0.0, swirled: float = 0.0
) -> list[Sample]:
    """Rendered scenes, kept as JPEG bytes (they already went through a JPEG round trip); each with 0 to
    ``tokens`` round things with no pips on the table (:func:`vision.lab.render.draw_token`), which are not dice,
    and ``faint_pips`` of the dark dice with pips that barely stand out, ``swirled`` of the dice marbled (as
    :func:`vision.lab.render.render_scene` draws them)."""
    from vision.lab.render import render_scene

    rng = np.random.default_rng(seed)
    out = []
    among = (0, tokens)
    for i in range(count):
        kind = i % 10
        if kind < 5:
            image, truth = render_scene(rng, size=(640, 640), side_range=(20, 60), cocked_fraction=0.05, tokens=among,
                                        faint_pips=faint_pips, swirled=swirled)
        elif kind < 9:
            image, truth = render_scene(rng, size=(1280, 960), n_dice=(1, 12), side_range=(40, 90),
                                        cocked_fraction=0.05, tokens=among, faint_pips=faint_pips, swirled=swirled)
        else:
            image, truth = render_scene(rng, size=(640, 480), n_dice=(0, 0), tokens=among)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        assert ok
        boxes = np.array([[*d.box, d.angle % 90] for d in truth], np.float32).reshape(-1, 5)
        out.append(Sample("render", boxes, jpeg=buf.tobytes()))
    return out


def augment(sample: Sample, rng: np.random.Generator, size: int = CROP, near_die: float = 0.6) -> tuple[
    np.ndarray, np.ndarray
]:
    """A ``size`` x ``size`` uint8 BGR crop and its dice (x0, y0, x1, y1, angle) in crop pixels.

    A fraction ``near_die`` of crops is centred near a die, the rest anywhere in the image.
    """
    image = sample.image()
    boxes = sample.boxes.copy()
    h, w = image.shape[:2]
    if len(boxes):
        sizes = np.sqrt((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))
        die = float(np.median(sizes))
    else:
        die = 40.0
    target = math.exp(rng.uniform(math.log(10), math.log(64))) if rng.random() < 0.9 else rng.uniform(64, 110)
    # Never shrink a photo below 160 px on its short side: a close-up's large dice then stay large
    # rather than becoming a tiny picture in a sea of padding.
    scale = max(target / max(die, 1.0), 160 / min(h, w))
    aspect = math.exp(rng.uniform(-0.15, 0.15))
    sx, sy = scale * aspect, scale / aspect
    nw, nh = max(1, round(w * sx)), max(1, round(h * sy))
    sx, sy = nw / w, nh / h
    interp = cv2.INTER_AREA if sx * sy < 1 else cv2.INTER_LINEAR
    image = cv2.resize(image, (nw, nh), interpolation=interp)
    boxes[:, [0, 2]] *= sx
    boxes[:, [1, 3]] *= sy
    # One of the eight flips / quarter turns; a flip mirrors the rotation angle.
    if rng.random() < 0.5:
        image = image[:, ::-1]
        boxes[:, [0, 2]] = nw - boxes[:, [2, 0]]
        boxes[:, 4] = (-boxes[:, 4]) % 90
    for _ in range(int(rng.integers(4))):  # rotate 90 degrees clockwise: (x, y) -> (H - y, x)
        hh = image.shape[0]
        image = np.rot90(image, k=-1)
        x0, y0, x1, y1 = boxes[:, 0].copy(), boxes[:, 1].copy(), boxes[:, 2].copy(), boxes[:, 3].copy()
        boxes[:, 0], boxes[:, 2] = hh - y1, hh - y0
        boxes[:, 1], boxes[:, 3] = x0, x1
    image = np.ascontiguousarray(image)
    ih, iw = image.shape[:2]
    # Crop window: often around a die so most crops hold some, else anywhere (where the table's own
    # look-alikes, such as the round buttons of the Byler photo sheet, teach the network what is not a die).
    if len(boxes) and rng.random() < near_die:
        b = boxes[int(rng.integers(len(boxes)))]
        cx = (b[0] + b[2]) / 2 + rng.uniform(-size / 2.5, size / 2.5)
        cy = (b[1] + b[3]) / 2 + rng.uniform(-size / 2.5, size / 2.5)
    else:
        cx, cy = rng.uniform(0, iw), rng.uniform(0, ih)
    ox, oy = round(float(cx) - size / 2), round(float(cy) - size / 2)
    crop = np.full((size, size, 3), PAD_VALUE, np.uint8)
    sx0, sy0, sx1, sy1 = max(0, ox), max(0, oy), min(iw, ox + size), min(ih, oy + size)
    if sx1 > sx0 and sy1 > sy0:
        crop[sy0 - oy : sy1 - oy, sx0 - ox : sx1 - ox] = image[sy0:sy1, sx0:sx1]
    boxes[:, [0, 2]] -= ox
    boxes[:, [1, 3]] -= oy
    return photometric(crop, rng), boxes


def photometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    img = crop.astype(np.float32)
    if rng.random() < 0.8:
        gain = rng.uniform(0.6, 1.4) * rng.uniform(0.85, 1.15, 3)
        img = (img - 128) * rng.uniform(0.6, 1.3) + 128  # contrast
        img = img * gain + rng.uniform(-30, 30)
    if rng.random() < 0.25:
        grey = img @ np.array([0.114, 0.587, 0.299], np.float32)
        img = np.repeat(grey[..., None], 3, axis=2)
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    if rng.random() < 0.3:
        img = img + rng.normal(0, rng.uniform(1, 8), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def targets(boxes: np.ndarray, size: int = CROP) -> dict[str, np.ndarray]:
    """Heat map (1, S, S), regression targets (6, S, S) and masks at stride 4 for one crop."""
    s = size // STRIDE
    heat = np.zeros((s, s), np.float32)
    reg = np.zeros((6, s, s), np.float32)
    mask = np.zeros((s, s), np.float32)
    amask = np.zeros((s, s), np.float32)
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    for x0, y0, x1, y1, angle in boxes:
        cx, cy = (x0 + x1) / 2 / STRIDE, (y0 + y1) / 2 / STRIDE
        if not (0 <= cx < s and 0 <= cy < s):
            continue
        bw, bh = max(x1 - x0, 1.0) / STRIDE, max(y1 - y0, 1.0) / STRIDE
        sigma = max(0.6, min(bw, bh) / 6)
        ix, iy = int(cx), int(cy)
        g = np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma**2))
        np.maximum(heat, g, out=heat)
        heat[iy, ix] = 1.0
        reg[0, iy, ix] = cx - ix - 0.5
        reg[1, iy, ix] = cy - iy - 0.5
        reg[2, iy, ix] = math.log(bw)
        reg[3, iy, ix] = math.log(bh)
        mask[iy, ix] = 1.0
        if not math.isnan(angle):
            reg[4, iy, ix] = math.cos(math.radians(4 * angle))
            reg[5, iy, ix] = math.sin(math.radians(4 * angle))
            amask[iy, ix] = 1.0
    return {"heat": heat[None], "reg": reg, "mask": mask[None], "amask": amask[None]}


def build_net(folded: bool = False) -> Any:
    """The detector network; ``folded`` builds it with batch norm folded into the convolutions' biases
    (as exported to ONNX), for the fine-tuning phase."""
    import torch
    from torch import nn

    def norm(c: int) -> nn.Module:
        return nn.Identity() if folded else nn.BatchNorm2d(c)

    def cbr(cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=folded), norm(cout), nn.ReLU()
        )

    class Block(nn.Module):
        """Residual depthwise-separable 3x3 block: cheap context at each scale."""

        def __init__(self, c: int) -> None:
            super().__init__()
            self.dw = cbr(c, c, 3, 1, groups=c)
            self.pw = nn.Sequential(nn.Conv2d(c, c, 1, bias=folded), norm(c))
            self.act = nn.ReLU()

        def forward(self, x: Any) -> Any:
            return self.act(x + self.pw(self.dw(x)))

    class DetectNet(nn.Module):
        """Stride-16 backbone with a two-step top-down path back to stride 4, and a 7-map head."""

        def __init__(self) -> None:
            super().__init__()
            self.s1 = nn.Sequential(cbr(3, 16, 3, 2), cbr(16, 24, 3, 2), Block(24))  # /4
            self.s2 = nn.Sequential(cbr(24, 48, 3, 2), Block(48), Block(48))  # /8
            self.s3 = nn.Sequential(cbr(48, 96, 3, 2), Block(96), Block(96), Block(96))  # /16
            self.l3 = nn.Conv2d(96, 32, 1)
            self.l2 = nn.Conv2d(48, 32, 1)
            self.l1 = nn.Conv2d(24, 32, 1)
            self.m2 = cbr(32, 32, 3, 1, groups=32)
            self.head = nn.Sequential(cbr(32, 32, 3, 1, groups=32), cbr(32, 32, 1))
            self.out = nn.Conv2d(32, 7, 1)
            bias = self.out.bias
            assert bias is not None
            with torch.no_grad():
                bias.zero_()
                bias[0] = -2.2  # start with a low heat everywhere (focal-loss prior)

        def forward(self, x: Any) -> Any:
            c1 = self.s1(x)
            c2 = self.s2(c1)
            c3 = self.s3(c2)
            p2 = self.m2(self.l2(c2) + nn.functional.interpolate(self.l3(c3), scale_factor=2.0, mode="nearest"))
            p1 = self.l1(c1) + nn.functional.interpolate(p2, scale_factor=2.0, mode="nearest")
            y = self.out(self.head(p1))
            return torch.cat([torch.sigmoid(y[:, :1]), y[:, 1:5], torch.tanh(y[:, 5:7])], dim=1)

    return DetectNet()


def loss_fn(out: Any, batch: dict[str, Any]) -> tuple[Any, dict[str, float]]:
    import torch

    heat = out[:, :1].clamp(1e-4, 1 - 1e-4)
    gt = batch["heat"]
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(heat) * (1 - heat) ** 2 * pos
    neg_loss = torch.log(1 - heat) * heat**2 * (1 - gt) ** 4 * neg
    npos = pos.sum().clamp(min=1)
    focal = -(pos_loss.sum() + neg_loss.sum()) / npos
    mask = batch["mask"]
    reg = (torch.abs(out[:, 1:5] - batch["reg"][:, 0:4]) * mask).sum() / npos
    amask = batch["amask"]
    ang = (torch.abs(out[:, 5:7] - batch["reg"][:, 4:6]) * amask).sum() / amask.sum().clamp(min=1)
    total = focal + reg + 0.5 * ang
    return total, {"focal": float(focal.detach()), "reg": float(reg.detach()), "ang": float(ang.detach())}


def make_batch(samples: list[Sample], weights: np.ndarray, rng: np.random.Generator, size: int, crop: int = CROP,
               near_die: float = 0.6) -> dict[str, Any]:
    import torch

    images, heats, regs, masks, amasks = [], [], [], [], []
    for _ in range(size):
        sample = samples[int(rng.choice(len(samples), p=weights))]
        image, boxes = augment(sample, rng, crop, near_die)
        t = targets(boxes, crop)
        images.append(image.astype(np.float32).transpose(2, 0, 1) / 255.0)
        heats.append(t["heat"])
        regs.append(t["reg"])
        masks.append(t["mask"])
        amasks.append(t["amask"])
    return {
        "image": torch.from_numpy(np.stack(images)),
        "heat": torch.from_numpy(np.stack(heats)),
        "reg": torch.from_numpy(np.stack(regs)),
        "mask": torch.from_numpy(np.stack(masks)),
        "amask": torch.from_numpy(np.stack(amasks)),
    }


def convs_in_order(net: Any) -> list[Any]:
    """The network's convolutions in the order a forward pass runs them (the ONNX graph's order)."""
    import torch
    from torch import nn

    order: list[Any] = []
    convs = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    hooks = [m.register_forward_hook(lambda m, i, o: order.append(m)) for m in convs]
    with torch.no_grad():
        net.eval()
        net(torch.zeros(1, 3, 64, 64))
    for h in hooks:
        h.remove()
    return order


def fold(net: Any) -> Any:
    """A folded copy of a trained network: each batch norm's scale and shift moved into its convolution."""
    import torch
    from torch import nn

    folded = build_net(folded=True)
    pairs: dict[int, Any] = {}
    modules = list(net.modules())
    for i, m in enumerate(modules):
        if isinstance(m, nn.Conv2d) and i + 1 < len(modules) and isinstance(modules[i + 1], nn.BatchNorm2d):
            pairs[id(m)] = modules[i + 1]
    with torch.no_grad():
        for src, dst in zip(convs_in_order(net), convs_in_order(folded), strict=True):
            weight = src.weight.detach().clone()
            bias = src.bias.detach().clone() if src.bias is not None else torch.zeros(weight.shape[0])
            bn = pairs.get(id(src))
            if bn is not None:
                scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
                weight = weight * scale[:, None, None, None]
                bias = (bias - bn.running_mean) * scale + bn.bias
            dst.weight.copy_(weight)
            dst.bias.copy_(bias)
    return folded


def load_onnx(path: Path) -> Any:
    """A folded network holding the weights of an exported ``dice-detect.onnx`` (to fine-tune it)."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    net = build_net(folded=True)
    with torch.no_grad():
        for node, conv in zip(convs, convs_in_order(net), strict=True):
            conv.weight.copy_(torch.from_numpy(init[node.input[1]].copy()))
            conv.bias.copy_(torch.from_numpy(init[node.input[2]].copy()))
    return net


def export(net: Any, path: Path) -> None:
    """ONNX, opset 17, with free height and width (the detector letterboxes to a multiple of 16)."""
    import torch

    net.eval()
    dummy = torch.zeros(1, 3, MAX_SIDE, MAX_SIDE)
    torch.onnx.export(
        net, (dummy,), str(path), input_names=["input"], output_names=["maps"], opset_version=17,
        dynamic_axes={"input": {2: "height", 3: "width"}, "maps": {2: "h4", 3: "w4"}}, do_constant_folding=True,
        dynamo=False,
    )


def write_card(models_dir: Path, metrics: dict[str, Any], training: dict[str, Any]) -> None:
    from vision.modelcard import sha256_of

    card = {
        "name": "dice-detect",
        "file": "dice-detect.onnx",
        "sha256": sha256_of(models_dir / "dice-detect.onnx"),
        "input": {"name": "input", "shape": [1, 3, -1, -1], "dtype": "float32", "layout": "NCHW",
                  "normalisation": "BGR x / 255", "max_side": MAX_SIDE,
                  "letterbox": f"longer side resized to {MAX_SIDE}, padded right/bottom with {PAD_VALUE} "
                               "to a multiple of 16"},
        "labels": ["heat", "dx", "dy", "log_w", "log_h", "cos4a", "sin4a"],
        "crop_rule": "whole image letterboxed (vision.detect.letterbox); outputs at stride 4",
        "training": training,
        "metrics": metrics,
    }
    (models_dir / "dice-detect.card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")


def rendered_records(count: int, seed: int, tokens: tuple[int, int] = (0, 0)) -> list[
    tuple[np.ndarray, list[tuple[float, float, float, float]], list[float]]
]:
    """Held-out rendered scenes (seeds apart from the training pool): image, boxes, angles of flat dice; with a
    number in ``tokens`` of round things that are not dice on the table."""
    from vision.lab.render import render_scene

    out = []
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        if i % 2:
            image, truth = render_scene(rng, size=(1280, 960), n_dice=(1, 12), side_range=(40, 90),
                                        cocked_fraction=0.05, tokens=tokens)
        else:
            image, truth = render_scene(rng, size=(640, 640), side_range=(20, 60), cocked_fraction=0.05,
                                        tokens=tokens)
        out.append((image, [d.box for d in truth], [math.nan if d.cocked else d.angle % 90 for d in truth]))
    return out


def evaluate_rendered(
    detector: Any, count: int = 40, seed: int = 5000, tokens: tuple[int, int] = (0, 0)
) -> dict[str, Any]:
    """Precision, recall and rotation error (degrees, flat dice) on held-out rendered scenes, with a number in
    ``tokens`` of round things that are not dice in each (every find on one is a false find)."""
    from vision.lab.detect_eval import score_image, summarise

    tp = fp = fn = 0
    errors: list[float] = []
    for image, boxes, angles in rendered_records(count, seed, tokens):
        found = detector.find(image)
        result = score_image(found, boxes)
        tp, fp, fn = tp + len(result["pairs"]), fp + len(result["false"]), fn + len(result["misses"])
        for i, j in result["pairs"]:
            if not math.isnan(angles[j]):
                diff = abs(found[i].angle - angles[j])
                errors.append(min(diff, 90 - diff))
    out: dict[str, Any] = {k: round(v, 4) for k, v in summarise(tp, fp, fn).items()}
    out.update(tp=tp, fp=fp, fn=fn, images=count, dice=tp + fn)
    if errors:
        out["angle_error_median"] = round(float(np.median(errors)), 2)
        out["angle_error_p95"] = round(float(np.percentile(errors, 95)), 2)
    return out


def evaluate_all(models_dir: Path, shared: Path, threshold: float) -> dict[str, Any]:
    """The card's figures: Byler val (measured only), Byler train, Rune55, held-out rendered scenes."""
    from vision.detect import DiceDetector
    from vision.lab.detect_eval import evaluate_detector

    det = DiceDetector(threads=1, models_dir=models_dir, threshold=threshold)
    rune = list(read_manifest(manifest_path(shared, "rune55")))
    out: dict[str, Any] = {}
    for name, records in (("byler_val", byler_records(shared, "val")), ("byler_train", byler_records(shared, "train")),
                          ("rune55", rune)):
        r = evaluate_detector(records, det)
        out[name] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items() if k != "per_image"}
        if name.startswith("byler"):  # box size aside: were the dice found in the right place?
            r = evaluate_detector(records, det, centre=True)
            out[name + "_centre"] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()
                                     if k != "per_image"}
    out["rendered"] = evaluate_rendered(det)
    out["rendered_tokens"] = {**evaluate_rendered(det, seed=6000, tokens=TOKENS_MEASURED), "tokens": TOKENS_MEASURED}
    return out


def train_phase(net: Any, samples: list[Sample], share: dict[str, float], rng: np.random.Generator, steps: int,
                lr: float, batch: int, crop: int, near_die: float, desc: str, one_cycle: bool,
                snapshots: Path | None = None) -> None:
    """Optimise ``net`` for ``steps`` batches drawn from ``samples`` with ``share`` of each source."""
    import torch
    from tqdm import tqdm

    counts = {k: sum(1 for s in samples if s.source == k) for k in share}
    weights = np.array([share.get(s.source, 0.0) / max(counts.get(s.source, 0), 1) for s in samples])
    weights /= weights.sum()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched: Any = (
        torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
        if one_cycle
        else torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    )
    net.train()
    # Batches are made one ahead in a second thread (OpenCV releases the GIL); one producer keeps
    # the sequence of batches, and so the run, reproducible.
    ahead: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=2)

    def produce() -> None:
        for _ in range(steps):
            ahead.put(make_batch(samples, weights, rng, batch, crop, near_die))

    threading.Thread(target=produce, daemon=True).start()
    avg: dict[str, float] = {}
    bar = tqdm(range(steps), desc=desc, unit="step")
    for step in bar:
        if snapshots and step and step % 200 == 0:
            snapshots.mkdir(parents=True, exist_ok=True)
            export(net, snapshots / f"{desc}-step{step}.onnx")
            net.train()
        data = ahead.get()
        loss, parts = loss_fn(net(data["image"]), data)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        avg = {k: 0.98 * avg.get(k, v) + 0.02 * v for k, v in parts.items()}
        bar.set_postfix({k: f"{v:.3f}" for k, v in avg.items()})
    net.eval()


#: Source shares of the main phase and of the fine-tuning phase, which puts the whole real tables in
#: front of the network (larger crops, mostly anywhere) so that their look-alikes are learnt as not dice.
MAIN_SHARE = {"rune55": 0.3, "byler": 0.4, "render": 0.3}
FINE_SHARE = {"rune55": 0.2, "byler": 0.5, "render": 0.3}
FINE_CROP = 224


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vision.lab.detect_train", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000, help="main-phase optimiser steps (default 5000)")
    parser.add_argument("--fine-steps", type=int, default=800, help="fine-tuning steps (default 800)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--rendered", type=int, default=150, help="rendered scenes in the pool")
    parser.add_argument(
        "--tokens",
        type=count_arg,
        default=4,
        help="up to this many round things with no pips (tokens, coins, a tray's holes) on each rendered scene, "
        "which are not dice (default 4, since the eleventh round; 0 before)",
    )
    parser.add_argument("--faint-pips", type=share_arg, default=0.5,
                        help="share of the rendered dark dice drawn with pips that barely stand out (default 0.5, "
                        "as the face trainer's, since the eleventh round; 0 before)")
    parser.add_argument("--swirled", type=share_arg, default=0.3,
                        help="share of the rendered dice drawn with marbled bodies (default 0.3, as the face "
                        "trainer's, since the eleventh round; 0 before)")
    parser.add_argument("--lr", type=float, default=4e-3)
    parser.add_argument("--fine-lr", type=float, default=5e-4)
    parser.add_argument("--models-dir", type=Path, default=MODELS_DIR)
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.45,
        help="heat threshold written to the card (default 0.45: chosen on the tune fold with the eleventh round's "
        "recipe; 0.5 before)",
    )
    parser.add_argument("--snapshots", type=Path, help="also export the network here every 200 steps")
    parser.add_argument("--fine-tune-from", type=Path,
                        help="skip the main phase: fine-tune the weights of this exported dice-detect.onnx")
    parser.add_argument("--no-eval", action="store_true", help="skip measuring on the photos after training")
    parser.add_argument(
        "--hold-out-tune",
        action="store_true",
        help="leave out the Byler tune fold (for python -m vision.lab.tune_check --detector; not the device's model)",
    )
    parser.add_argument("--eval-only", action="store_true",
                        help="only measure the model already in --models-dir and rewrite its card's metrics")
    args = parser.parse_args(argv)
    if args.eval_only:
        from vision.modelcard import read_card

        card = read_card("dice-detect", args.models_dir)
        measured = {"threshold": args.threshold, "match": MATCH_RULE,
                    **evaluate_all(args.models_dir, args.shared, args.threshold)}
        write_card(args.models_dir, measured, card.training)
        print(json.dumps(measured, indent=1))
        return 0

    import torch

    torch.set_num_threads(1)  # two OpenMP threads spin-wait badly on a shared machine
    cv2.setNumThreads(1)
    started = time.time()
    samples = real_samples(args.shared, args.hold_out_tune) + rendered_samples(
        args.rendered, SEED + 1, args.tokens, args.faint_pips, args.swirled
    )
    counts = {k: sum(1 for s in samples if s.source == k) for k in MAIN_SHARE}
    if args.fine_tune_from:
        net = load_onnx(args.fine_tune_from)
    else:
        torch.manual_seed(SEED)
        net = build_net()
        train_phase(net, samples, MAIN_SHARE, np.random.default_rng(SEED), args.steps, args.lr, args.batch, CROP,
                    0.6, "dice-detect", one_cycle=True, snapshots=args.snapshots)
        net = fold(net)
    # The fine-tuning phase has its own seeds, so it is the same whether or not the main phase ran in
    # this process (--fine-tune-from the main phase's export gives the same network).
    torch.manual_seed(SEED + 2)
    train_phase(net, samples, FINE_SHARE, np.random.default_rng(SEED + 2), args.fine_steps, args.fine_lr,
                args.batch, FINE_CROP, 0.3, "dice-detect-fine", one_cycle=False, snapshots=args.snapshots)
    args.models_dir.mkdir(parents=True, exist_ok=True)
    export(net, args.models_dir / "dice-detect.onnx")
    training = {
        "data": f"rune55 (all {counts['rune55']}), byler train split ({counts['byler']}"
        f"{', tune fold held out' if args.hold_out_tune else ''}), "
        f"{counts['render']} rendered scenes (vision.lab.render, seed {SEED + 1}"
        f"{f', 0 to {args.tokens} round things that are not dice on each' if args.tokens else ''}); augmented crops "
        f"({CROP} px main phase, {FINE_CROP} px fine-tuning)",
        "command": "make train (python -m vision.lab.detect_train)",
        "seed": SEED, "tokens": args.tokens, "faint_pips": args.faint_pips, "swirled": args.swirled,
        "steps": args.steps, "fine_steps": args.fine_steps, "batch": args.batch, "lr": args.lr, "fine_lr": args.fine_lr,
        "minutes": round((time.time() - started) / 60, 1),
    }
    if args.hold_out_tune:
        training["tune_fold_held_out"] = True
    if args.fine_tune_from:
        training["fine_tuned_from"] = "the main phase's export (same seeds; --fine-tune-from)"
    metrics: dict[str, Any] = {"threshold": args.threshold, "match": MATCH_RULE}
    write_card(args.models_dir, metrics, training)
    if not args.no_eval:
        metrics.update(evaluate_all(args.models_dir, args.shared, args.threshold))
        write_card(args.models_dir, metrics, training)
        print(json.dumps(metrics, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
