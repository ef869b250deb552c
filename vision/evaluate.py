"""Measuring the die reader against a labelled manifest (``companion eval-dice``).

A reading *matches* a labelled die when their axis-aligned boxes overlap with IoU >= 0.5 (the rule of
``vision.detect_eval``), one to one, largest overlap first. Unmatched readings are false positives, unmatched labels
misses. On matched dice the face accuracy, the confusion matrix (rows: truth, columns: read) and the count
of wrong values *not* marked unsure (the number that must be zero) are kept, with a crop of every error for
the contact sheet.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.conditions import Condition
from vision.crop import box_to_candidate, crop_die, estimate_angle
from vision.recognize import DiceRecognizer, FixedDetector, load_image
from vision.types import DieCandidate, DieReading

Box = tuple[float, float, float, float]
MATCH_IOU = 0.5


@dataclass
class ImageResult:
    image: str
    truth: int
    found: int
    matched: int
    wrong: int
    wrong_sure: int
    unsure: int

    @property
    def errors(self) -> int:
        return (self.truth - self.matched) + (self.found - self.matched) + self.wrong


@dataclass
class Evaluation:
    images: list[ImageResult] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((6, 6), np.int64))
    error_crops: list[tuple[np.ndarray, str]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        truth = sum(i.truth for i in self.images)
        found = sum(i.found for i in self.images)
        matched = sum(i.matched for i in self.images)
        wrong = sum(i.wrong for i in self.images)
        unsure = sum(i.unsure for i in self.images)
        correct_sure = sum(1 for r in self.rows if r["status"] == "matched" and r["correct"] and not r["unsure"])
        worst = sorted(self.images, key=lambda i: (-i.errors, i.image))[:10]
        return {
            "images": len(self.images),
            "dice": truth,
            "found": found,
            "matched": matched,
            "detection_precision": _ratio(matched, found),
            "detection_recall": _ratio(matched, truth),
            "face_accuracy": _ratio(matched - wrong, matched),
            "wrong_values": wrong,
            "wrong_values_not_unsure": sum(i.wrong_sure for i in self.images),
            "unsure": unsure,
            "unsure_rate": _ratio(unsure, matched),
            "correct_and_sure_rate": _ratio(correct_sure, truth),
            "confusion_truth_rows_read_columns": self.confusion.tolist(),
            "worst_images": [
                {"image": i.image, "errors": i.errors, "missed": i.truth - i.matched, "false": i.found - i.matched,
                 "wrong": i.wrong}
                for i in worst if i.errors
            ],
        }  # fmt: skip


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 1.0


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(readings: list[DieReading], truth_boxes: list[Box]) -> list[tuple[int, int]]:
    """Pairs (truth index, reading index), one to one, by IoU >= :data:`MATCH_IOU`, largest overlap first."""
    pairs = []
    for ti, box in enumerate(truth_boxes):
        for ri, r in enumerate(readings):
            overlap = iou(box, r.box)
            if overlap >= MATCH_IOU:
                pairs.append((-overlap, ti, ri))
    pairs.sort()
    used_t: set[int] = set()
    used_r: set[int] = set()
    result = []
    for _, ti, ri in pairs:
        if ti not in used_t and ri not in used_r:
            used_t.add(ti)
            used_r.add(ri)
            result.append((ti, ri))
    return result


def truth_candidates(record: dict[str, Any], image: np.ndarray | None = None) -> list[DieCandidate]:
    """Candidates made from the labelled boxes, to measure the reader without the detector: the square the
    box bounds at the die's angle measured on ``image`` (as the detector reports it), or at 0 without one."""
    candidates = []
    for die in record["dice"]:
        x0, y0, x1, y1 = (float(v) for v in die["box"])
        angle = 0.0
        if image is not None:
            angle = estimate_angle(image, ((x0 + x1) / 2, (y0 + y1) / 2), ((x1 - x0) + (y1 - y0)) / 2)
        candidates.append(box_to_candidate((x0, y0, x1, y1), angle))
    return candidates


def evaluate(
    records: Iterable[dict[str, Any]],
    recognizer: DiceRecognizer,
    truth_boxes: bool = False,
    progress: Any = None,
    condition: Condition | None = None,
) -> Evaluation:
    """The reader on every photo of ``records``, against their labels: behind its detector, or on the labelled
    boxes (``truth_boxes``); with ``condition``, on each photo as taken under it (:mod:`vision.conditions`)."""
    result = Evaluation()
    for record in records:
        image = load_image(record["path"])
        if condition is not None:
            record = condition.record(record)
            image = condition.apply(image, record["image"])
        if truth_boxes:
            recognizer.detector = FixedDetector(truth_candidates(record, image))
        readings = recognizer.read(image)
        boxes: list[Box] = [(d["box"][0], d["box"][1], d["box"][2], d["box"][3]) for d in record["dice"]]
        pairs = match(readings, boxes)
        matched_r = {ri for _, ri in pairs}
        wrong = wrong_sure = unsure = 0
        for ti, ri in pairs:
            truth_value = int(record["dice"][ti]["value"])
            r = readings[ri]
            correct = r.value == truth_value
            result.confusion[truth_value - 1, r.value - 1] += 1
            unsure += int(r.unsure)
            if not correct:
                wrong += 1
                wrong_sure += int(not r.unsure)
            if not correct or r.unsure:
                tag = f"{Path(record['image']).stem} {truth_value}->{r.value}{'?' if r.unsure else '!'}"
                if not correct:
                    result.error_crops.append((_error_crop(image, boxes[ti]), tag))
            result.rows.append(_row(record["image"], "matched", boxes[ti], truth_value, r, correct))
        for ti in sorted(set(range(len(boxes))) - {t for t, _ in pairs}):
            value = int(record["dice"][ti]["value"])
            result.rows.append(_row(record["image"], "missed", boxes[ti], value, None, False))
            result.error_crops.append((_error_crop(image, boxes[ti]), f"{Path(record['image']).stem} missed"))
        for ri in sorted(set(range(len(readings))) - matched_r):
            r = readings[ri]
            result.rows.append(_row(record["image"], "false", r.box, None, r, False))
            result.error_crops.append((_error_crop(image, r.box), f"{Path(record['image']).stem} false {r.value}"))
        result.images.append(
            ImageResult(record["image"], len(boxes), len(readings), len(pairs), wrong, wrong_sure, unsure)
        )
        if progress is not None:
            progress(record["image"])
    return result


def _row(
    image: str, status: str, box: Box, truth: int | None, reading: DieReading | None, correct: bool
) -> dict[str, Any]:
    return {
        "image": image,
        "status": status,
        "box": " ".join(f"{v:.1f}" for v in box),
        "truth": truth if truth is not None else "",
        "value": reading.value if reading else "",
        "correct": correct,
        "confidence": round(reading.confidence, 4) if reading else "",
        "unsure": reading.unsure if reading else "",
        "pips": reading.pips if reading and reading.pips is not None else "",
        "cocked": reading.cocked if reading else "",
        "colour": reading.colour if reading else "",
    }


def _error_crop(image: np.ndarray, box: Box, size: int = 96) -> np.ndarray:
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 4.0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return crop_die(image, (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2), size, margin=0.3)


def contact_sheet(crops: list[tuple[np.ndarray, str]], columns: int = 10) -> np.ndarray:
    """Every error crop in a grid with its caption (image stem, truth -> read, ? unsure / ! sure)."""
    cell, caption = 96, 14
    if not crops:
        sheet = np.full((40, 300, 3), 255, np.uint8)
        cv2.putText(sheet, "no errors", (10, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
        return sheet
    rows = math.ceil(len(crops) / columns)
    sheet = np.full((rows * (cell + caption), columns * cell, 3), 255, np.uint8)
    for i, (crop, tag) in enumerate(crops):
        r, c = divmod(i, columns)
        y, x = r * (cell + caption), c * cell
        sheet[y : y + cell, x : x + cell] = cv2.resize(crop, (cell, cell))
        text = tag.split(" ", 1)[-1]
        cv2.putText(sheet, text, (x + 2, y + cell + 11), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 160), 1, cv2.LINE_AA)
    return sheet


def write_results(evaluation: Evaluation, out: Path, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """results.csv (one row per die), confusion.csv, summary.json and errors.png into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    summary = {**evaluation.summary(), **(extra or {})}
    fields = ["image", "status", "box", "truth", "value", "correct", "confidence", "unsure", "pips", "cocked", "colour"]
    with (out / "results.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(evaluation.rows)
    with (out / "confusion.csv").open("w", newline="", encoding="utf-8") as fh:
        writer_c = csv.writer(fh)
        writer_c.writerow(["truth\\read", *range(1, 7)])
        for value, row in enumerate(evaluation.confusion.tolist(), 1):
            writer_c.writerow([value, *row])
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    cv2.imwrite(str(out / "errors.png"), contact_sheet(evaluation.error_crops))
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    lines = [
        f"images {summary['images']}, dice {summary['dice']}, found {summary['found']}, matched {summary['matched']}",
        f"detection precision {summary['detection_precision']:.4f}, recall {summary['detection_recall']:.4f}",
        f"face accuracy on matched dice {summary['face_accuracy']:.4f} ({summary['wrong_values']} wrong, "
        f"{summary['wrong_values_not_unsure']} of them NOT marked unsure); unsure {summary['unsure']} "
        f"({summary['unsure_rate']:.1%})",
        "confusion (rows truth 1..6, columns read 1..6):",
    ]
    lines += ["  " + " ".join(f"{v:4d}" for v in row) for row in summary["confusion_truth_rows_read_columns"]]
    if "condition" in summary:
        lines.insert(0, f"photos as taken under {summary['condition']}")
    if summary["worst_images"]:
        lines.append("worst images: " + ", ".join(f"{w['image']} ({w['errors']})" for w in summary["worst_images"]))
    return "\n".join(lines)
