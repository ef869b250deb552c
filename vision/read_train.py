"""Training of the face model ``models/dice-face.onnx`` (``make train``; needs the ``train`` extra: torch, CPU).

Data, all cut by :func:`vision.crop.crop_die` (the rule the recogniser uses at inference):

* real photos: every die of ``../shared/data/dice-photos/rune55`` and of the Byler *train* split except a
  *tune* fold (a quarter of the train photos, by a salted hash of the name) that is held out to measure the
  model while developing; the Byler *val* split is never seen here. A label is a box without an angle, so
  the die's angle is measured (:func:`vision.crop.estimate_angle`, edge orientation, as the detector does)
  and each die is cut several times as the detector would report it, with its kind of error: the square
  the box bounds at that angle, centre, side and angle a little off, any quarter turn;
* not-a-die crops (label ``none``, the seventh output): die-sized squares of the same photos away from every
  labelled die or well off a die's centre, so the reader can drop a detector's false finds;
* rendered dice from :mod:`vision.render` (random sizes, colours, pip colours, lighting, shadows, blur,
  noise, JPEG, side faces, touching neighbours, a few cocked, half the dark ones with faint pips like the
  dark translucent dice of the photos, 30% with marbled bodies like their swirled dice; ``--translucent``
  draws a share see-through, the far face's pips showing, which the recipe leaves out), cut from their box
  and true angle the same way.

``--rune55-dropped`` leaves out the Rune55 dice listed in ``vision/labels/rune55-dropped.jsonl`` (read otherwise
than labelled by a model trained on them), and ``--centre-contrast`` gives the network a second view of each crop,
standardised by its top face; the recipe uses neither, as both did worse on the tune fold.

Photometric augmentation (channel swaps, brightness, contrast, noise, and 30% of the crops *softened*: shrunk to
40-80% and enlarged back, like a softer photo) and the eight symmetries of the square (which keep a face's value)
are drawn per batch. No crop is made grey (``--grey``): the red pips of the blue and smoky dice can differ from
their body more in colour than in brightness, and colour is what grey crops teach the network to do without. Those
two choices and twice the rendered dice of earlier rounds were chosen in the sixth round with eight seeds of each
recipe (``docs/vision.md``); ``--device cuda`` trains such experiments on a GPU.

The model is two such networks (``--members 2``): each trained exactly as a one-network run with its own seed
(``--seed`` and the next), data and all, and exported as one graph that gives the log of their mean probabilities,
so the device reads one file as before. Networks of other seeds make their sure mistakes on different crops: over
sixteen seeds on the tune fold the mean of two left a quarter as many wrong readings sure as one network, for as
many wrong values (seventh round, ``docs/vision.md``).

The file written has that graph's convolutional layers in 8-bit integers (:func:`quantise`: int8 weights per
output channel, uint8 activations whose ranges are measured on the labelled dice of the Byler photos it trains on;
the head stays in float): it reads 25 dice in about half the time of the float graph, with the same values
(eighth round, ``docs/vision.md``); ``--float32`` writes the float graph instead.

Seeds are fixed and torch always uses two threads (the thread count changes the order of floating-point sums, so
it is part of the recipe): a run gives the same model.
Writes ``models/dice-face.onnx``, ``models/dice-face.card.json`` and prints the measured accuracies.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import MODELS_DIR
from vision.crop import CROP_MARGIN, CROP_SIZE, box_to_candidate, crop_die, estimate_angle
from vision.modelcard import sha256_of
from vision.splits import (
    RUNE55_DROPPED,
    apply_corrections,
    fold_of,
    manifest_path,
    read_corrections,
    read_manifest,
)
from vision.types import DieCandidate

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
SEED = 0


def jittered_candidate(rng: np.random.Generator, box: tuple[float, float, float, float], angle: float) -> DieCandidate:
    """A candidate as an imperfect detector gives it for a die with this labelled box at this angle: the
    square the box bounds at that angle, its side scaled a little, its angle and centre a little off, and
    turned by a random quarter turn (which keeps the face)."""
    square = box_to_candidate(box, angle)
    side = square.side * float(rng.uniform(0.9, 1.12))
    turned = angle + float(rng.normal(0, 4)) + 90 * int(rng.integers(4))
    dx, dy = rng.normal(0, 0.05 * side, 2)
    return DieCandidate((square.centre[0] + float(dx), square.centre[1] + float(dy)), side, turned, 1.0)


def real_dice(
    shared: Path,
    folds: set[str],
    repeats: dict[str, int],
    rng: np.random.Generator,
    jitter: bool = True,
    rune55_fixes: list[dict[str, Any]] | None = None,
) -> Iterator[tuple[np.ndarray, DieCandidate, int]]:
    """(photo, candidate, label 0..5) for every die of the real photos in ``folds`` ('rune55', 'train', 'tune',
    'val'), the Rune55 labels with ``rune55_fixes`` applied (:func:`vision.splits.apply_corrections`): once as
    labelled, or with ``jitter`` ``repeats[fold]`` times as a detector might report it."""
    for dataset in ("rune55", "byler"):
        records = list(read_manifest(manifest_path(shared, dataset)))
        if dataset == "rune55" and rune55_fixes:
            records, _ = apply_corrections(records, rune55_fixes)
        for record in records:
            fold = "rune55" if dataset == "rune55" else fold_of(record["image"])
            if fold not in folds:
                continue
            image = cv2.imread(record["path"], cv2.IMREAD_COLOR)
            if image is None:
                continue
            for die in record["dice"]:
                x0, y0, x1, y1 = box = tuple(float(v) for v in die["box"])
                # The label has no angle: measure it, as the detector does, so crops come out upright.
                angle = estimate_angle(image, ((x0 + x1) / 2, (y0 + y1) / 2), ((x1 - x0) + (y1 - y0)) / 2)
                label = int(die["value"]) - 1
                if not jitter:
                    yield image, box_to_candidate(box, angle), label
                    continue
                for _ in range(repeats.get(fold, 1)):
                    yield image, jittered_candidate(rng, box, angle), label  # type: ignore[arg-type]


def real_crops(
    shared: Path,
    folds: set[str],
    repeats: dict[str, int],
    rng: np.random.Generator,
    jitter: bool = True,
    size: int = CROP_SIZE,
    rune55_fixes: list[dict[str, Any]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels (0..5) of the dice :func:`real_dice` gives."""
    crops: list[np.ndarray] = []
    labels: list[int] = []
    for image, candidate, label in real_dice(shared, folds, repeats, rng, jitter, rune55_fixes):
        crops.append(crop_die(image, candidate, size))
        labels.append(label)
    return np.stack(crops), np.array(labels, np.int64)


NOT_A_DIE = 6  # the seventh label: the crop is not centred on a die (table, tray, a detector's false find)


def _clear_of(box: tuple[float, float, float, float], boxes: list[list[float]], limit: float) -> bool:
    from vision.evaluate import iou

    return all(iou(box, (b[0], b[1], b[2], b[3])) < limit for b in boxes)


def background_crops(
    shared: Path, folds: set[str], per_image: int, rng: np.random.Generator, size: int = CROP_SIZE
) -> tuple[np.ndarray, np.ndarray]:
    """Crops that are not a die: die-sized squares of the real photos away from every labelled die (bare
    table, tray edges, shadows) or well off a die's centre (half a die and its neighbour), labelled 6."""
    crops: list[np.ndarray] = []
    for dataset in ("rune55", "byler"):
        for record in read_manifest(manifest_path(shared, dataset)):
            fold = "rune55" if dataset == "rune55" else fold_of(record["image"])
            if fold not in folds or not record["dice"]:
                continue
            image = cv2.imread(record["path"], cv2.IMREAD_COLOR)
            if image is None:
                continue
            h, w = image.shape[:2]
            boxes = [d["box"] for d in record["dice"]]
            extent = float(np.median([((b[2] - b[0]) + (b[3] - b[1])) / 2 for b in boxes]))
            made = 0
            for _ in range(per_image * 8):
                if made >= per_image:
                    break
                side = extent * float(rng.uniform(0.7, 1.3))
                if rng.random() < 0.5:  # anywhere on the table
                    cx, cy = float(rng.uniform(side / 2, w - side / 2)), float(rng.uniform(side / 2, h - side / 2))
                    limit = 0.05
                else:  # beside a die, well off its centre
                    b = boxes[int(rng.integers(len(boxes)))]
                    direction = float(rng.uniform(0, 2 * math.pi))
                    reach = extent * float(rng.uniform(0.6, 0.9))
                    cx = (b[0] + b[2]) / 2 + reach * math.cos(direction)
                    cy = (b[1] + b[3]) / 2 + reach * math.sin(direction)
                    limit = 0.3
                box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
                if _clear_of(box, boxes, limit):
                    crops.append(crop_die(image, DieCandidate((cx, cy), side, float(rng.uniform(0, 90)), 1.0), size))
                    made += 1
    return np.stack(crops), np.full(len(crops), NOT_A_DIE, np.int64)


def rendered_crops(
    count: int,
    rng: np.random.Generator,
    progress: Any = None,
    size: int = CROP_SIZE,
    faint_pips: float = 0.0,
    swirled: float = 0.0,
    translucent: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` crops of rendered dice (small scenes, many dice each, a few cocked, ``faint_pips`` of the
    dark ones with low-contrast pips, ``swirled`` of them with marbled bodies, ``translucent`` of them with
    the far face's pips showing through)."""
    from vision.render import render_scene

    crops: list[np.ndarray] = []
    labels: list[int] = []
    while len(crops) < count:
        image, truth = render_scene(
            rng,
            size=(320, 320),
            n_dice=(6, 14),
            side_range=(18, 64),
            cocked_fraction=0.04,
            faint_pips=faint_pips,
            swirled=swirled,
            translucent=translucent,
        )
        for die in truth:
            for _ in range(2):
                crops.append(crop_die(image, jittered_candidate(rng, die.box, die.angle), size))
                labels.append(die.value - 1)
        if progress is not None:
            progress.update(len(truth) * 2)
    return np.stack(crops[:count]), np.array(labels[:count], np.int64)


def token_crops(count: int, rng: np.random.Generator, size: int = CROP_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """``count`` crops of round things with no pips (:func:`vision.render.render_token`: tokens, coins, a tray's
    holes), cut as a detector that took one for a die would (side 0.85..1.25 of its diameter, centre a little
    off, any angle), labelled 6 (not a die)."""
    from vision.render import render_token

    crops = []
    for _ in range(count):
        image, (cx, cy), diameter = render_token(rng)
        side = diameter * float(rng.uniform(0.85, 1.25))
        dx, dy = rng.normal(0, 0.05 * side, 2)
        candidate = DieCandidate((cx + float(dx), cy + float(dy)), side, float(rng.uniform(0, 90)), 1.0)
        crops.append(crop_die(image, candidate, size))
    return np.stack(crops) if crops else np.zeros((0, size, size, 3), np.uint8), np.full(count, NOT_A_DIE, np.int64)


#: Channels of the four conv blocks, per crop size. The 48 px net starts narrower so that it costs about what
#: the 32 px one does per die (6 M against 8 M multiply-adds) while seeing pips at about their photographed size.
CHANNELS = {32: (24, 48, 64, 96), 48: (16, 32, 64, 96)}


def build_model(
    size: int = CROP_SIZE, channels: tuple[int, int, int, int] | None = None, centre_contrast: bool = False
) -> Any:
    """The face network. With ``centre_contrast`` it sees the crop twice: standardised as a whole, and
    standardised by the mean and spread of its central half (the top face), clipped, so that faint pips
    on a dark die are as strong as bold ones on a white die whatever the table around it."""
    import torch
    from torch import nn

    if size not in CHANNELS:
        raise ValueError(f"no face network for {size} px crops (known: {sorted(CHANNELS)})")
    c1, c2, c3, c4 = channels or CHANNELS[size]
    inputs = 6 if centre_contrast else 3
    inner = slice(size // 4, size - size // 4)

    class FaceNet(nn.Module):
        """Four 3x3 conv blocks (three halve the size); the crop is standardised inside the graph."""

        def __init__(self) -> None:
            super().__init__()

            def block(cin: int, cout: int, pool: bool) -> list[nn.Module]:
                layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout)]
                layers.append(nn.ReLU(inplace=True))
                if pool:
                    layers.append(nn.MaxPool2d(2))
                return layers

            self.features = nn.Sequential(
                *block(inputs, c1, True),
                *block(c1, c2, True),
                *block(c2, c3, True),
                *block(c3, c4, False),
            )
            self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(c4, 7))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            std = ((x - mean) ** 2).mean(dim=(1, 2, 3), keepdim=True).sqrt()
            whole = (x - mean) / (std + 0.02)
            if centre_contrast:
                centre = x[:, :, inner, inner]
                mean = centre.mean(dim=(1, 2, 3), keepdim=True)
                std = ((centre - mean) ** 2).mean(dim=(1, 2, 3), keepdim=True).sqrt()
                whole = torch.cat([whole, ((x - mean) / (std + 0.02)).clamp(-4.0, 4.0)], dim=1)
            x = self.features(whole)
            return self.head(x.mean(dim=(2, 3)))

    return FaceNet()


def build_ensemble(networks: list[Any]) -> Any:
    """One network that reads a crop with every member and gives the log of their mean probabilities as its
    logits, so that the reader's softmax of them is the members' mean: the device loads one file and needs no
    change. Networks trained on other draws make fewer of the same sure mistakes (``docs/vision.md``). One
    member is returned as it is."""
    import torch
    from torch import nn

    if len(networks) == 1:
        return networks[0]

    class MeanOfMembers(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.members = nn.ModuleList(networks)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            p = torch.stack([torch.softmax(member(x), dim=1) for member in self.members]).mean(dim=0)
            # The floor keeps log finite where every member gives a class 0 (softmax of it is still 0).
            return torch.log(p.clamp_min(1e-30))

    return MeanOfMembers()


def augment(batch: Any, generator: Any, grey_share: float, soften: float) -> Any:
    """Photometric jitter and the square's symmetries, on a (N, 3, S, S) float batch in 0..1: ``grey_share`` of
    the crops lose their colour, and ``soften`` of them are shrunk to 40-80% and enlarged back (a softer,
    lower-resolution photo; at 0 it draws no random numbers, so a recipe without it keeps its batches)."""
    import torch
    from torch.nn import functional as F

    n = batch.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=generator))
    batch = torch.rot90(batch, k, dims=(2, 3))
    if torch.rand(1, generator=generator) < 0.5:
        batch = torch.flip(batch, dims=(3,))
    perm = torch.randperm(3, generator=generator)
    swap = torch.rand(n, 1, 1, 1, generator=generator) < 0.5
    batch = torch.where(swap, batch[:, perm], batch)
    grey = torch.rand(n, 1, 1, 1, generator=generator) < grey_share
    batch = torch.where(grey, batch.mean(dim=1, keepdim=True).expand_as(batch), batch)
    gain = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=generator)
    bias = 0.3 * (torch.rand(n, 1, 1, 1, generator=generator) - 0.5)
    noise = torch.randn(batch.shape, generator=generator) * (0.04 * torch.rand(n, 1, 1, 1, generator=generator))
    if soften > 0:
        side = batch.shape[-1]
        small = max(4, round(side * (0.4 + 0.4 * float(torch.rand(1, generator=generator)))))
        blurred = F.interpolate(
            F.interpolate(batch, size=(small, small), mode="area"), size=(side, side), mode="bilinear"
        )
        batch = torch.where(torch.rand(n, 1, 1, 1, generator=generator) < soften, blurred, batch)
    return (batch * gain + bias + noise).clamp(0, 1)


def to_tensor(crops: np.ndarray) -> Any:
    """(N, S, S, 3) uint8 -> (N, 3, S, S) float tensor in 0..1, the network's input."""
    return as_uint8_tensor(crops).float() / 255.0


def as_uint8_tensor(crops: np.ndarray) -> Any:
    """(N, S, S, 3) uint8 -> (N, 3, S, S) uint8 tensor: the training set stays in bytes (a quarter of the
    memory of floats) and each batch is turned into floats when it is drawn."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2)))


def accuracy(model: Any, crops: np.ndarray, labels: np.ndarray, device: str = "cpu") -> tuple[float, np.ndarray]:
    import torch

    model.eval()
    with torch.no_grad():
        probs = np.concatenate(
            [
                torch.softmax(model(to_tensor(crops[i : i + 1024]).to(device)), dim=1).cpu().numpy()
                for i in range(0, len(crops), 1024)
            ]
        )
    return float((probs.argmax(1) == labels).mean()) if len(labels) else 0.0, probs


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


def _four_channels(text: str) -> tuple[int, int, int, int]:
    """``--channels``: checked when the command line is read, not after minutes of cutting crops."""
    parts = text.split(",")
    if len(parts) != 4 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"--channels takes four positive whole numbers, not {text!r}")
    return int(parts[0]), int(parts[1]), int(parts[2]), int(parts[3])


def _members(text: str) -> int:
    """``--members``: a count of networks, checked when the command line is read."""
    if not text.isdigit() or not 1 <= int(text) <= 8:
        raise argparse.ArgumentTypeError(f"takes a count of networks from 1 to 8, not {text!r}")
    return int(text)


def count_arg(text: str) -> int:
    """A count (``--tokens``), 0 or more: checked when the command line is read."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"takes a count (0 or more), not {text!r}")
    return int(text)


def share_arg(text: str) -> float:
    """A share from 0 to 1 (``--grey``, ``--soften``, ...): checked when the command line is read."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"takes a share from 0 to 1, not {text!r}")
    return value


def options() -> argparse.ArgumentParser:
    """The trainer's command line; its defaults are the recipe ``make train`` runs (the card records them)."""
    parser = argparse.ArgumentParser(prog="python -m vision.read_train", description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (with data/dice-photos)")
    parser.add_argument("--out", type=Path, default=MODELS_DIR, help="where to write the model and its card")
    parser.add_argument("--epochs", type=int, default=18)
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the data, the weights and the batches")
    parser.add_argument(
        "--rendered",
        type=int,
        default=24000,
        help="rendered crops to train on (default 24000; was 12000 until the sixth round)",
    )
    parser.add_argument(
        "--tokens",
        type=count_arg,
        default=0,
        help="rendered round things with no pips (tokens, coins, a tray's holes) to train as not a die (default 0: "
        "3000 was tried in the tenth round and not kept, docs/vision.md)",
    )
    parser.add_argument(
        "--threads", type=int, default=2, help="torch threads (default 2; another count gives another model)"
    )
    parser.add_argument(
        "--faint-pips",
        type=share_arg,
        default=0.5,
        help="share of dark rendered dice drawn with low-contrast pips (default 0.5: chosen on the tune fold)",
    )
    parser.add_argument(
        "--swirled",
        type=share_arg,
        default=0.3,
        help="share of rendered dice drawn with marbled bodies (default 0.3: chosen on the tune fold)",
    )
    parser.add_argument(
        "--translucent",
        type=share_arg,
        default=0.0,
        help="share of rendered dice drawn see-through, the far face's pips showing through the top face "
        "(default 0: 0.3 was tried with three seeds on the tune fold and did not help)",
    )
    parser.add_argument(
        "--channels",
        type=_four_channels,
        help="channels of the four conv blocks, e.g. 24,48,64,96 (default: the crop size's)",
    )
    parser.add_argument(
        "--byler-repeats", type=int, default=32, help="jittered crops per Byler train die (rune55 dice get 4)"
    )
    parser.add_argument(
        "--rune55-dropped",
        type=Path,
        nargs="?",
        const=RUNE55_DROPPED,
        help="leave out the Rune55 dice this corrections file drops (without FILE: vision/labels/rune55-dropped.jsonl;"
        " default: train on every Rune55 die: leaving those out was tried with three seeds and did worse)",
    )
    parser.add_argument(
        "--centre-contrast",
        action="store_true",
        help="also feed the crop standardised by its central half (the top face), so faint pips count as much "
        "(off in the recipe: tried with three seeds on the tune fold and did worse)",
    )
    parser.add_argument(
        "--grey",
        type=share_arg,
        default=0.0,
        help="share of each batch's crops shown without colour (default 0: keeps the colour of red pips on blue; "
        "was 0.25 until the sixth round)",
    )
    parser.add_argument(
        "--soften",
        type=share_arg,
        default=0.3,
        help="share of each batch's crops shrunk and enlarged back, like a softer photo (default 0.3; was 0 until "
        "the sixth round)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="torch device to train on (default cpu, the recipe; 'cuda' trains faster for experiments but gives "
        "another model than the committed one)",
    )
    parser.add_argument(
        "--members",
        type=_members,
        default=2,
        help="networks trained with seeds SEED, SEED+1, ..., each on its own draw of the data, whose mean the "
        "model gives (default 2: on the tune fold a quarter of one network's wrong readings are left sure; "
        "seventh round)",
    )
    parser.add_argument("--crop-size", type=int, default=CROP_SIZE, choices=sorted(CHANNELS), help="crop side in px")
    parser.add_argument(
        "--float32",
        action="store_true",
        help="write the float graph (by default it is quantised to 8 bits, as the device reads it)",
    )
    parser.add_argument(
        "--hold-out-tune",
        action="store_true",
        help="keep the tune fold out of training (to measure while developing); by default the final model "
        "trains on the whole Byler train split",
    )
    return parser


@dataclass
class TrainingData:
    """What one member network trains on (``train_*``) and what the model is measured on (``tune_*``, ``val_*``)."""

    train_x: np.ndarray
    train_y: np.ndarray
    real: int
    rendered: int
    not_a_die: int
    tune_x: np.ndarray
    tune_y: np.ndarray
    tune_plain_x: np.ndarray
    tune_plain_y: np.ndarray
    val_x: np.ndarray
    val_y: np.ndarray


def training_data(args: argparse.Namespace, seed: int, rune55_fixes: list[dict[str, Any]]) -> TrainingData:
    """Every crop one member network sees, drawn from ``seed`` (a member's data are a run's data with its seed)."""
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    print("cutting real crops ...", flush=True)
    folds = {"rune55", "train"} if args.hold_out_tune else {"rune55", "train", "tune"}
    size = args.crop_size
    repeats = {"rune55": 4, "train": args.byler_repeats, "tune": args.byler_repeats}
    # Only the face crops leave the dropped dice out: the not-a-die crops below still keep clear of them.
    real_x, real_y = real_crops(args.shared, folds, repeats, rng, size=size, rune55_fixes=rune55_fixes)
    # The jittered tune crops use a seed of their own, so runs with other --seed values are measured alike.
    tune_x, tune_y = real_crops(args.shared, {"tune"}, {"tune": 4}, np.random.default_rng(SEED + 1), size=size)
    tune_plain_x, tune_plain_y = real_crops(args.shared, {"tune"}, {}, rng, jitter=False, size=size)
    val_x, val_y = real_crops(args.shared, {"val"}, {}, rng, jitter=False, size=size)
    with tqdm(total=args.rendered, desc="rendering", unit="crop") as bar:
        rend_x, rend_y = rendered_crops(
            args.rendered,
            rng,
            bar,
            size=size,
            faint_pips=args.faint_pips,
            swirled=args.swirled,
            translucent=args.translucent,
        )
    back_x, back_y = background_crops(args.shared, folds, 6, rng, size=size)
    if args.tokens > 0:  # drawn only when asked, so a run without them keeps its data
        token_x, token_y = token_crops(args.tokens, rng, size)
        back_x, back_y = np.concatenate([back_x, token_x]), np.concatenate([back_y, token_y])
    print(f"not-a-die crops: {len(back_x)} ({args.tokens} of them rendered tokens)")
    print(f"train crops: {len(real_x)} real + {len(rend_x)} rendered; tune {len(tune_y)}; val {len(val_y)}")
    return TrainingData(
        np.concatenate([real_x, rend_x, back_x]),
        np.concatenate([real_y, rend_y, back_y]),
        len(real_x),
        len(rend_x),
        len(back_x),
        tune_x,
        tune_y,
        tune_plain_x,
        tune_plain_y,
        val_x,
        val_y,
    )


def train_network(args: argparse.Namespace, data: TrainingData, seed: int, name: str = "") -> Any:
    """One face network trained on ``data``, its weights and batches drawn from ``seed``."""
    import torch
    from tqdm import tqdm

    model = build_model(args.crop_size, args.channels, args.centre_contrast).to(args.device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch_size = 256
    steps = args.epochs * math.ceil(len(data.train_y) / batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    generator = torch.Generator().manual_seed(seed)
    x_all, y_all = as_uint8_tensor(data.train_x), torch.from_numpy(data.train_y)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(y_all), generator=generator)
        total = 0.0
        desc = f"{name}epoch {epoch + 1}/{args.epochs}"
        with tqdm(range(0, len(order), batch_size), desc=desc, unit="batch") as bar:
            for start in bar:
                idx = order[start : start + batch_size]
                xb = augment(x_all[idx].float() / 255.0, generator, args.grey, args.soften)
                loss = loss_fn(model(xb.to(args.device)), y_all[idx].to(args.device))
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                schedule.step()
                total += float(loss) * len(idx)
                bar.set_postfix(loss=f"{float(loss):.3f}")
        tune_acc, _ = accuracy(model, data.tune_x, data.tune_y, args.device)
        print(f"{desc}: loss {total / len(order):.4f}  tune accuracy (jittered) {tune_acc:.4f}", flush=True)
    return model


def missing_modules(float32: bool) -> str | None:
    """What the run cannot import, said before any work: the train extra's torch, tqdm and onnx, and unless the
    float graph is asked for, ONNX Runtime's quantiser (which needs ml_dtypes); None when all load."""
    import importlib

    wanted = ["torch", "tqdm", "onnx"] + ([] if float32 else ["onnxruntime.quantization"])
    for name in wanted:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            return f"{name} cannot be imported ({exc})"
    return None


def main(argv: list[str] | None = None) -> int:
    args = options().parse_args(argv)
    missing = missing_modules(args.float32)
    if missing:
        print(f"read_train: {missing}; install the train extra (pip install -e '.[train]')", file=sys.stderr)
        return 2

    import torch

    if args.device != "cpu" and not (args.device.startswith("cuda") and torch.cuda.is_available()):
        print(f"read_train: torch cannot train on {args.device!r} here (use cpu)", file=sys.stderr)
        return 2

    torch.set_num_threads(max(1, args.threads))
    started = time.time()
    rune55_fixes = read_corrections(args.rune55_dropped) if args.rune55_dropped else []
    seeds = [args.seed + k for k in range(args.members)]
    networks = []
    for k, seed in enumerate(seeds):
        # Each member is the network a one-member run with its seed would train, data and all: seeding torch
        # here, before anything draws from it, keeps the first member the model of a plain run.
        torch.manual_seed(seed)
        name = f"member {k + 1}/{len(seeds)} (seed {seed}) " if len(seeds) > 1 else ""
        member_data = training_data(args, seed, rune55_fixes)
        networks.append(train_network(args, member_data, seed, name))
        if k == 0:  # its counts go on the card, and the model is measured on its tune and val crops
            data = replace(member_data, train_x=member_data.train_x[:0], train_y=member_data.train_y[:0])
        del member_data  # the next member's crops take its place in memory
    model = build_ensemble(networks)
    size = args.crop_size
    tune_x, tune_y = data.tune_x, data.tune_y

    tune_acc, tune_probs = accuracy(model, tune_x, tune_y, args.device)
    plain_acc, _ = accuracy(model, data.tune_plain_x, data.tune_plain_y, args.device)
    val_acc, _ = accuracy(model, data.val_x, data.val_y, args.device)
    confident = tune_probs.max(1) >= 0.9
    wrong_confident = int(((tune_probs.argmax(1) != tune_y) & confident).sum())
    print(f"tune accuracy: jittered {tune_acc:.4f}, plain {plain_acc:.4f}; val (plain crops) {val_acc:.4f}")
    print(f"tune: {confident.mean():.3f} of crops at >= 0.9 confidence, {wrong_confident} of them wrong")

    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / "dice-face.onnx"
    quantisation = None
    with tempfile.TemporaryDirectory() as tmp:
        float_path = onnx_path if args.float32 else Path(tmp) / "float32.onnx"
        export(model, float_path, size)
        _check_export(model, float_path, tune_x[:64])
        if not args.float32:
            # Activation ranges from the labelled dice of the Byler photos the networks trained on, cut plainly.
            byler_folds = {"train"} if args.hold_out_tune else {"train", "tune"}
            calibration, _ = real_crops(
                args.shared, byler_folds, {}, np.random.default_rng(SEED), jitter=False, size=size
            )
            quantisation = quantise(float_path, onnx_path, calibration)
            quantisation |= _check_quantised(float_path, onnx_path, tune_x[:256])
    prefix = ""
    if args.members > 1:
        prefix = f"each of {args.members} networks (seeds {seeds[0]}..{seeds[-1]}) on its own draw of "
    rune55_used = f"less the {len(rune55_fixes)} in {args.rune55_dropped.name}" if args.rune55_dropped else "all"
    card: dict[str, Any] = {
        "name": "dice-face",
        "file": onnx_path.name,
        "sha256": sha256_of(onnx_path),
        "input": {
            "name": "input",
            "shape": [-1, 3, size, size],
            "dtype": "float32",
            "layout": "NCHW, BGR",
            "normalisation": "x / 255; the graph standardises each crop (mean 0, std 1) itself",
        },
        "output": {
            "name": "logits",
            "shape": [-1, 7],
            "meaning": (
                "one logit per face and one for 'not a die'; softmax gives p"
                if args.members == 1
                else f"the log of the {args.members} networks' mean p per face and for 'not a die'; softmax gives it"
            ),
        },
        "labels": ["1", "2", "3", "4", "5", "6", "none"],
        "quantisation": quantisation,
        "crop_rule": (
            f"vision.crop.crop_die: the square of side {1 + CROP_MARGIN:g} x the die's side centred on the die and "
            f"turned by its angle so its edges are axis-aligned, sampled to {size}x{size} BGR "
            "(area-averaged when shrinking more than 2x, border pixels repeated)"
        ),
        "training": {
            "data": (
                f"{prefix}{data.real} jittered crops of real dice (rune55 x4, {rune55_used}, "
                f"Byler train split x{args.byler_repeats}"
                f"{' minus the tune fold' if args.hold_out_tune else ''}) and {data.rendered} crops of dice drawn by "
                f"vision.render, and {data.not_a_die} not-a-die crops of the same photos"
                f"{f' and of {args.tokens} rendered tokens' if args.tokens else ''} (label none); "
                "Byler val never seen"
            ),
            "command": "make train (python -m vision.read_train)",
            "seed": args.seed,
            "members": args.members,
            "member_seeds": seeds,
            "epochs": args.epochs,
            "faint_pips": args.faint_pips,
            "swirled": args.swirled,
            "translucent": args.translucent,
            "threads": args.threads,
            "tokens": args.tokens,
            "byler_repeats": args.byler_repeats,
            "rune55_dropped": len(rune55_fixes),
            "channels": list(args.channels or CHANNELS[size]),
            "centre_contrast": args.centre_contrast,
            "rendered": args.rendered,
            "grey": args.grey,
            "soften": args.soften,
            "device": args.device,
            "seconds": round(time.time() - started),
        },
        "metrics": {
            "tune_fold_held_out": bool(args.hold_out_tune),
            "tune_fold_accuracy_jittered_crops": round(tune_acc, 4),
            "tune_fold_accuracy_box_crops": round(plain_acc, 4),
            "byler_val_accuracy_box_crops": round(val_acc, 4),
            "tune_fold_dice": len(data.tune_plain_y),
            "byler_val_dice": len(data.val_y),
        },
    }
    # Figures measured on the previous model (eval-dice, bench) do not describe this one: they are left out
    # until `companion eval-dice ... --update-card` and the bench are run again.
    (args.out / "dice-face.card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print("now run: companion eval-dice ../shared/data/dice-photos/byler/manifest.jsonl --split val --update-card")
    size = onnx_path.stat().st_size
    print(f"wrote {onnx_path} ({size / 1024:.0f} KiB) and its card in {time.time() - started:.0f} s")
    return 0


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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
