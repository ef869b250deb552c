"""Measuring the dice detector against labelled photos: precision, recall and what each image missed.

A found die matches a labelled die when their axis-aligned boxes overlap with IoU >= 0.5 (the found box
is :attr:`DieCandidate.box`). Matching is one-to-one and greedy, strongest detection first, each taking
the free label it overlaps most. The looser centre rule (``centre=True``) matches a found die to a free label
whose box holds the found box's centre (the one it overlaps most if several): it counts dice found in the
right place whatever their box size. Records are manifest records as read by
:func:`vision.lab.splits.read_manifest` (``path`` to the image, ``dice`` with ``box`` each).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import cv2
import numpy as np

from vision.types import DieCandidate

Box = tuple[float, float, float, float]
MATCH_IOU = 0.5


class Finder(Protocol):
    def find(self, image_bgr: np.ndarray) -> list[DieCandidate]: ...


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def centre_inside(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether the centre of box ``a`` lies inside box ``b``."""
    x, y = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
    return b[0] <= x <= b[2] and b[1] <= y <= b[3]


def match(found: Sequence[Box], scores: Sequence[float], truth: Sequence[Box], min_iou: float = MATCH_IOU,
          centre: bool = False) -> list[tuple[int, int]]:
    """Pairs (found index, truth index) matched one-to-one, strongest found box first.

    With ``centre`` a pair needs the found box's centre inside the label's box instead of IoU >= min_iou.
    """
    pairs: list[tuple[int, int]] = []
    free = set(range(len(truth)))
    for i in sorted(range(len(found)), key=lambda k: -scores[k]):
        best, best_iou = -1, (0.0 if centre else min_iou)
        for j in free:
            if centre and not centre_inside(found[i], truth[j]):
                continue
            v = iou(found[i], truth[j])
            if v >= best_iou:
                best, best_iou = j, v
        if best >= 0:
            free.discard(best)
            pairs.append((i, best))
    return pairs


def score_image(found: Sequence[DieCandidate], truth: Sequence[Box], min_iou: float = MATCH_IOU,
                centre: bool = False) -> dict[str, Any]:
    """Matches, misses and false finds of one image (``centre``: the centre-in-box rule, see match)."""
    boxes = [d.box for d in found]
    pairs = match(boxes, [d.score for d in found], truth, min_iou, centre)
    matched_found = {i for i, _ in pairs}
    matched_truth = {j for _, j in pairs}
    return {
        "pairs": pairs,
        "misses": [list(truth[j]) for j in range(len(truth)) if j not in matched_truth],
        "false": [[round(v, 1) for v in boxes[i]] for i in range(len(found)) if i not in matched_found],
    }


def summarise(tp: int, fp: int, fn: int) -> dict[str, float]:
    return {
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
    }


def evaluate_detector(records: Iterable[dict[str, Any]], detector: Finder, min_iou: float = MATCH_IOU,
                      centre: bool = False) -> dict[str, Any]:
    """Run ``detector`` on every record's image and count against its labels.

    Returns ``precision``, ``recall``, ``tp``, ``fp``, ``fn``, ``images``, ``dice`` and ``per_image``: for
    each image with a miss or a false find, ``{"image", "misses": [boxes], "false": [boxes]}``.
    Raises ValueError for a record whose image cannot be read.
    """
    tp = fp = fn = images = dice = 0
    per_image: list[dict[str, Any]] = []
    for record in records:
        path = str(record["path"])
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"cannot read image {path}")
        truth: list[Box] = [tuple(float(v) for v in d["box"]) for d in record["dice"]]  # type: ignore[misc]
        result = score_image(detector.find(image), truth, min_iou, centre)
        images += 1
        dice += len(truth)
        tp += len(result["pairs"])
        fn += len(result["misses"])
        fp += len(result["false"])
        if result["misses"] or result["false"]:
            per_image.append({"image": record.get("image", path), "misses": result["misses"],
                              "false": result["false"]})
    return {**summarise(tp, fp, fn), "tp": tp, "fp": fp, "fn": fn, "images": images, "dice": dice,
            "match": "centre in box" if centre else f"IoU >= {min_iou}", "per_image": per_image}
