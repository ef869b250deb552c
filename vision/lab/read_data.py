"""The face model's training data (:mod:`vision.lab.read_train`'s first part): every crop a member network sees.

Real dice of the Rune55 photos and the Byler *train* split (the *tune* fold held out on request; *val* never),
each cut several times as an imperfect detector would report it (:func:`jittered_candidate`); not-a-die crops of
the same photos away from every labelled die; rendered dice (:mod:`vision.lab.render`) and tokens. All cut by
:func:`vision.crop.crop_die`, the rule the reader uses at inference. No torch here.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.crop import CROP_SIZE, box_to_candidate, crop_die, estimate_angle
from vision.lab.splits import (
    apply_corrections,
    fold_of,
    manifest_path,
    read_manifest,
)
from vision.types import DieCandidate

SHARED = Path(__file__).resolve().parents[3] / "shared"
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
    'val'), the Rune55 labels with ``rune55_fixes`` applied (:func:`vision.lab.splits.apply_corrections`): once as
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
    from vision.lab.evaluate import iou

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
    from vision.lab.render import render_scene

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
    """``count`` crops of round things with no pips (:func:`vision.lab.render.render_token`: tokens, coins, a tray's
    holes), cut as a detector that took one for a die would (side 0.85..1.25 of its diameter, centre a little
    off, any angle), labelled 6 (not a die)."""
    from vision.lab.render import render_token

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
