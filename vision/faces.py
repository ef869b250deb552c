"""Reading a die's top face: the ONNX face model, the classical pip count that second-guesses it, and the rule
that turns the two into a value or an honest "unsure".

The face model (``models/dice-face.onnx``, card ``dice-face.card.json``) reads a :data:`~vision.crop.CROP_SIZE`
crop cut by :func:`vision.crop.crop_die` and gives a probability per face. The pip count is independent: it
looks for round blobs that differ from the die's body colour on a larger crop of the same die and abstains
(``None``) when what it sees is not a clean set of 1 to 6 pips. A die is *unsure* when the model's confidence
is below :data:`CONFIDENCE_FLOOR`, when the pip count disagrees with the model, or when the die is cocked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import MODELS_DIR
from vision.crop import CROP_SIZE
from vision.modelcard import ModelCard, load_model

MODEL_NAME = "dice-face"
#: Below this top probability the model's answer is not trusted on its own.
CONFIDENCE_FLOOR = 0.90
#: A top face this much longer than wide means the die leans steeply (tipped by 50 degrees: 1.56x). Milder
#: leans (15..35 degrees: 1.04..1.22x) are within what flat dice measure, so they are not flagged by this.
COCKED_ELONGATION = 1.6
#: The pip counter reads a larger crop than the model (pips are 4 to 7 px on the smallest dice).
PIP_CROP_SIZE = 48
#: Fraction of the pip crop's side that the die itself spans (the crop rule adds CROP_MARGIN around it).
_DIE_SPAN = 1.0 / 1.25


class FaceModel:
    """The face CNN, loaded once. ``probabilities(crops)`` takes (N, S, S, 3) uint8 BGR crops."""

    def __init__(self, threads: int = 1, models_dir: Path = MODELS_DIR) -> None:
        self.session, self.card = load_model(MODEL_NAME, models_dir, threads=threads)
        self.input_name = self.session.get_inputs()[0].name
        self.size = int(self.card.input_shape[-1])
        if self.size != CROP_SIZE:
            raise ValueError(f"face model takes {self.size} px crops, but the crop rule makes {CROP_SIZE} px")
        self.values = tuple(int(label) for label in self.card.labels)

    @property
    def model_card(self) -> ModelCard:
        return self.card

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, 6) face probabilities, columns in the order of ``values`` (1..6)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.values)), np.float32)
        batch = crops_to_input(crops)
        logits = self.session.run(None, {self.input_name: batch})[0]
        return softmax(np.asarray(logits, np.float32))


def crops_to_input(crops: np.ndarray) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR -> (N, 3, S, S) float32 in 0..1, the model's input (it standardises itself)."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255.0)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


@dataclass(frozen=True, slots=True)
class PipReading:
    """What the classical reader saw on one die: the pip count (``None`` when it cannot tell), whether the
    die looks cocked (its top face clearly oblong), the mask of pip pixels and the crop in 8-bit CIELAB
    (OpenCV's scaling), which the colour measure reuses."""

    count: int | None
    cocked: bool
    pip_mask: Any  # np.ndarray of bool, (S, S)
    contrast: float
    lab: Any  # np.ndarray of uint8, (S, S, 3)


def count_pips(crop: np.ndarray) -> PipReading:
    """Count the pips on one upright die crop cut with the crop rule (see :func:`count_pips_batch`)."""
    return count_pips_batch(crop[None])[0]


def count_pips_batch(crops: np.ndarray) -> list[PipReading]:
    """Count the pips on upright die crops (N, S, S, 3) cut with the crop rule (S = 48 intended).

    A pip is a small round blob that differs from its neighbourhood: the crop's CIELAB minus a blurred copy
    (wide enough to wash pips out but keep the body's shading) is thresholded (Otsu, with a floor), and
    blobs of pip size and roundness that lie on the top face and do not touch its edge are counted. The
    count is kept only when the blobs sit where that many pips sit on a die (centred, spread over the
    face, the layout's shape); anything else of pip size on the face (merged pips, glare, a logo) makes the
    reader abstain rather than guess. All crops go through the colour conversion and blur as one image.
    """
    n, size = len(crops), crops.shape[1]
    if n == 0:
        return []
    die = size * _DIE_SPAN
    lab8 = cv2.cvtColor(np.ascontiguousarray(crops).reshape(n * size, size, 3), cv2.COLOR_BGR2LAB)
    lab = lab8.astype(np.float32)
    lab[:, :, 0] *= 100.0 / 255.0  # L to 0..100 so a unit of L weighs like a unit of a or b
    window = max(5, round(die * 0.45) | 1)
    background = cv2.blur(lab, (window, window), borderType=cv2.BORDER_REPLICATE)
    distance = np.sqrt(((lab - background) ** 2).sum(axis=2)).reshape(n, size, size)
    lab_tiles = lab.reshape(n, size, size, 3)
    return [_read_one(distance[i], lab_tiles[i], lab8.reshape(n, size, size, 3)[i], die) for i in range(n)]


def _read_one(distance: np.ndarray, lab: np.ndarray, lab8: np.ndarray, die: float) -> PipReading:
    size = distance.shape[0]
    c = (size - 1) / 2.0
    face_half = die * 0.44
    lo, hi = math.ceil(c - face_half), math.floor(c + face_half) + 1
    values = distance[lo:hi, lo:hi]
    peak = max(float(values.max()), 1.0)
    empty = np.zeros((size, size), bool)
    cocked = _looks_cocked(lab, c, die)
    if peak < 16.0:
        return PipReading(None, cocked, empty, peak, lab8)
    scaled = np.clip(values * (255.0 / peak), 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    threshold = max(float(otsu) * peak / 255.0, 12.0)
    mask = np.zeros((size, size), np.uint8)
    mask[lo:hi, lo:hi] = values > threshold
    count_all, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=4)
    area_min, area_max = 0.006 * die * die, 0.07 * die * die
    keep: list[int] = []
    odd = 0
    for i in range(1, count_all):
        x, y, w, h, area = (int(v) for v in stats[i])
        if x <= lo or y <= lo or x + w >= hi or y + h >= hi:
            continue  # touches the face's edge: the die's outline, a side face or the table, not a pip
        round_enough = area >= 0.5 * w * h and max(w, h) <= 2.0 * max(min(w, h), 1)
        if area_min <= area <= area_max and round_enough:
            keep.append(i)
        elif area >= area_min:
            odd += 1
    pips = np.isin(labels, keep) if keep else empty
    count = len(keep)
    areas = [int(stats[i, cv2.CC_STAT_AREA]) for i in keep]
    uneven = count > 1 and max(areas) > 2.5 * min(areas)
    if odd or uneven or not 1 <= count <= 6:
        return PipReading(None, cocked, pips, peak, lab8)
    if not _fits_layout(centroids[keep].astype(np.float64), (c, c), die):
        return PipReading(None, cocked, pips, peak, lab8)
    return PipReading(count, cocked, pips, peak, lab8)


#: Pip centres on a unit face for faces 1..6 (the standard layout; 6 has rows at 0.22, 0.5, 0.78).
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.22), (0.25, 0.5), (0.25, 0.78), (0.75, 0.22), (0.75, 0.5), (0.75, 0.78)),
}


def _pair_profile(points: np.ndarray) -> np.ndarray:
    """Sorted pairwise distances divided by the largest: the same for a layout at any rotation and size."""
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    upper = np.sort(d[np.triu_indices(len(points), 1)])
    return upper / max(float(upper[-1]), 1e-9)


_PROFILES = {n: _pair_profile(np.array(p)) for n, p in PIP_LAYOUT.items() if n > 1}


def _fits_layout(centres: np.ndarray, middle: tuple[float, float], die: float) -> bool:
    """Do the blobs sit where the pips of that many would (centred, spread right, right shape)?"""
    count = len(centres)
    offset = float(np.hypot(*(centres.mean(axis=0) - middle)))
    if offset > 0.16 * die:
        return False
    if count == 1:
        return True
    profile = _pair_profile(centres)
    spread = float(np.sqrt(((centres[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)).max())
    if not 0.4 * die <= spread <= 0.95 * die:
        return False
    return float(np.abs(profile - _PROFILES[count]).max()) <= 0.15


def _looks_cocked(lab: np.ndarray, c: float, die: float) -> bool:
    """A die leaning on a neighbour shows its top face foreshortened: a clearly oblong patch of one colour."""
    elongation = top_face_elongation(lab, c, die)
    return elongation is not None and elongation > COCKED_ELONGATION


def top_face_elongation(lab: np.ndarray, c: float, die: float) -> float | None:
    """Long over short side of the patch of the die's body colour around the crop centre (1 for a square);
    ``None`` when there is no clear patch (too small, or running into a table of the same colour)."""
    r = int(die * 0.2)
    ci = round(c)
    body = lab[ci - r : ci + r + 1, ci - r : ci + r + 1].reshape(-1, 3).mean(axis=0)
    near = (((lab - body) ** 2).sum(axis=2) < 18.0**2).astype(np.uint8)
    near = cv2.morphologyEx(near, cv2.MORPH_CLOSE, _CLOSE_KERNEL)
    _, labels = cv2.connectedComponents(near, connectivity=4)
    centre_label = labels[ci, ci]
    if centre_label == 0:
        return None
    moments = cv2.moments((labels == centre_label).astype(np.uint8), binaryImage=True)
    area = moments["m00"]
    if area < 0.25 * die * die or area > 1.3 * die * die:
        return None
    cov = np.array([[moments["mu20"], moments["mu11"]], [moments["mu11"], moments["mu02"]]]) / area
    spread = np.linalg.eigvalsh(cov)
    if spread[0] <= 0:
        return None
    # For a w x h rectangle the spreads are w^2/12 and h^2/12.
    return math.sqrt(spread[1] / spread[0])


_CLOSE_KERNEL = np.ones((5, 5), np.uint8)


@dataclass(frozen=True, slots=True)
class FaceDecision:
    value: int
    confidence: float
    unsure: bool
    reason: str


def decide(probabilities: np.ndarray, pips: PipReading, values: tuple[int, ...] = (1, 2, 3, 4, 5, 6)) -> FaceDecision:
    """The value to report for one die, and whether to mark it unsure (and why, for the annotation)."""
    best = int(np.argmax(probabilities))
    value, confidence = values[best], float(probabilities[best])
    if confidence < CONFIDENCE_FLOOR:
        return FaceDecision(value, confidence, True, "low confidence")
    if pips.count is not None and pips.count != value:
        return FaceDecision(value, confidence, True, f"pip count says {pips.count}")
    if pips.cocked:
        return FaceDecision(value, confidence, True, "cocked")
    return FaceDecision(value, confidence, False, "")
