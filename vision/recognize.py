"""The die reader: every die in a BGR image of dice seen from above, with its face, colour and confidences.

:class:`DiceRecognizer` wires the stages together: the detector (``vision.detect.DiceDetector`` unless one is
injected) finds candidates; :func:`vision.crop.crop_die` cuts each die upright; the face model reads the
32 px crop, the pip counter and the colour measure read a 48 px crop of the same die; doubtful dice get a
second look in the 4 quarter turns of their crop and of a tighter crop (:func:`vision.faces.second_look`);
:func:`vision.faces.decide` turns model and pips into a value or an *unsure* die. Grey-scale, BGRA and 16-bit
images are accepted; a huge image is shrunk for the detector (dice are still cut from the full image); a frame
with nothing in it (black, white, one flat colour) gives no dice. :func:`load_image` reads a file or says clearly
why it cannot.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.colour import Palette, load_palette, measure_bodies
from vision.crop import as_bgr, crop_die
from vision.faces import (
    CONFIDENCE_FLOOR,
    NOT_A_DIE_FLOOR,
    PIP_CROP_SIZE,
    TIGHT_SIDE,
    FaceModel,
    count_pips_batch,
    decide,
    second_look,
    valid_floor,
)
from vision.types import DieCandidate, DieReading

#: The detector never sees an image with a longer side than this; larger ones are shrunk first.
MAX_DETECT_SIDE = 1600
#: Images whose grey values vary less than this (standard deviation) are empty frames.
FLAT_FRAME_STD = 3.0


class ImageError(ValueError):
    """A file that is not a usable image (missing, empty, truncated, not an image)."""


class Detector(Protocol):
    def find(self, image_bgr: np.ndarray) -> list[DieCandidate]: ...


class FixedDetector:
    """A stand-in detector that returns given candidates (tests; ``eval-dice --truth-boxes``)."""

    def __init__(self, candidates: list[DieCandidate] | None = None) -> None:
        self.candidates = list(candidates or [])

    def find(self, image_bgr: np.ndarray) -> list[DieCandidate]:
        return list(self.candidates)


def default_detector(threads: int = 1) -> Detector:
    try:
        module = importlib.import_module("vision.detect")
    except ModuleNotFoundError as exc:
        if exc.name == "vision.detect":
            raise ImageError("no die detector in this build (vision.detect is missing)") from None
        raise
    detector: Detector = module.DiceDetector(threads=threads)
    return detector


class DiceRecognizer:
    """Reads dice. Load once (models are loaded in the constructor), call :meth:`read` per image.

    ``floor`` is the confidence below which a die is marked unsure and given its second look (the device uses
    :data:`vision.faces.CONFIDENCE_FLOOR`; other values are for measuring, ``python -m vision.tune_check``)."""

    def __init__(
        self,
        detector: Detector | None = None,
        palette: str | Palette = "dice",
        threads: int = 1,
        faces: FaceModel | None = None,
        floor: float = CONFIDENCE_FLOOR,
    ) -> None:
        self.floor = valid_floor(floor)
        self.palette = palette if isinstance(palette, Palette) else load_palette(palette)
        self.faces = faces if faces is not None else FaceModel(threads=threads)
        self.detector = detector if detector is not None else default_detector(threads)

    def candidates(self, image: np.ndarray) -> tuple[np.ndarray, list[DieCandidate]]:
        """The image as BGR, and the detector's candidates in its pixel coordinates (empty for a flat frame)."""
        image = as_bgr(image)
        h, w = image.shape[:2]
        if min(h, w) < 16:
            return image, []
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        step = max(1, int(math.sqrt(h * w / 40000)))  # the spread of a sample is enough to see a flat frame
        if float(grey[::step, ::step].std()) < FLAT_FRAME_STD:
            return image, []
        scale = min(1.0, MAX_DETECT_SIDE / max(h, w))
        small = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        found = self.detector.find(small)
        if scale != 1.0:
            found = [
                DieCandidate((c.centre[0] / scale, c.centre[1] / scale), c.side / scale, c.angle, c.score)
                for c in found
            ]
        return image, [c for c in found if c.side >= 4]

    def read(self, image: np.ndarray) -> list[DieReading]:
        """Every die found in ``image`` (BGR, grey or BGRA), as read."""
        image, found = self.candidates(image)
        return self.read_candidates(image, found)

    def read_candidates(self, image: np.ndarray, found: list[DieCandidate]) -> list[DieReading]:
        if not found:
            return []
        image = as_bgr(image)
        small = np.stack([crop_die(image, c, self.faces.size) for c in found])
        probabilities, not_die = self.faces.read(small)
        # The face model also knows what is not a die: it drops the detector's clear false finds (a die it
        # is only half sure about stays, with a low face confidence, so it comes out unsure).
        keep = not_die < NOT_A_DIE_FLOOR
        if not keep.all():
            found = [c for c, k in zip(found, keep, strict=True) if k]
            small, probabilities = small[keep], probabilities[keep]
            if not found:
                return []
        # A face model that reads pip-counter-sized crops shares them (one crop per die instead of two).
        if self.faces.size == PIP_CROP_SIZE:
            large = small
        else:
            large = np.stack([crop_die(image, c, PIP_CROP_SIZE) for c in found])
        pip_readings = count_pips_batch(large)

        def tight(indices: np.ndarray) -> np.ndarray:
            return np.stack([crop_die(image, found[i].scaled(TIGHT_SIDE), self.faces.size) for i in indices])

        # The second look follows the floor (as SECOND_LOOK_BELOW does CONFIDENCE_FLOOR): no die is marked unsure
        # for low confidence before its other views were read.
        counts = [p.count for p in pip_readings]
        probabilities = second_look(self.faces, small, probabilities, counts, self.floor, tight)
        labs = measure_bodies(np.stack([p.lab for p in pip_readings]), np.stack([p.pip_mask for p in pip_readings]))
        readings = []
        for candidate, probs, pips, lab in zip(found, probabilities, pip_readings, labs, strict=True):
            decision = decide(probs, pips, self.faces.values, self.floor)
            colour, colour_distance = self.palette.nearest(lab)
            readings.append(
                DieReading(
                    box=candidate.box,
                    centre=candidate.centre,
                    angle=candidate.angle,
                    value=decision.value,
                    colour=colour,
                    confidence=decision.confidence,
                    unsure=decision.unsure,
                    cocked=pips.cocked,
                    colour_distance=colour_distance,
                    lab=lab,
                    pips=pips.count,
                    detector_score=candidate.score,
                )
            )
        return readings


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as BGR, or raise :class:`ImageError` saying what is wrong with it."""
    path = Path(path)
    if not path.exists():
        raise ImageError(f"{path}: no such file")
    if path.is_dir():
        raise ImageError(f"{path}: is a folder, not an image")
    data = path.read_bytes()
    if not data:
        raise ImageError(f"{path}: the file is empty")
    if _truncated(data):
        raise ImageError(f"{path}: the image is truncated (the file ends before the image does)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise ImageError(f"{path}: not an image OpenCV can read")
    return as_bgr(image)


def _truncated(data: bytes) -> bool:
    """JPEG without its end marker, or PNG without its IEND chunk: OpenCV decodes these half-grey."""
    if data[:3] == b"\xff\xd8\xff":
        return b"\xff\xd9" not in data[-64:]
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return b"IEND" not in data[-32:]
    return False


def annotate(image: np.ndarray, readings: list[DieReading]) -> np.ndarray:
    """A copy of the image with each die's outline, value and colour drawn (unsure in red, else green)."""
    out = as_bgr(image).copy()
    scale = max(out.shape[:2]) / 640
    for r in readings:
        side = (r.box[2] - r.box[0]) / (abs(math.cos(math.radians(r.angle))) + abs(math.sin(math.radians(r.angle))))
        rect = ((r.centre[0], r.centre[1]), (side, side), r.angle)
        points = cv2.boxPoints(rect).astype(np.int32)
        colour = (0, 0, 255) if r.unsure else ((0, 160, 255) if r.cocked else (0, 200, 0))
        cv2.polylines(out, [points], True, colour, max(1, round(scale)), cv2.LINE_AA)
        label = f"{r.value}{'?' if r.unsure else ''} {r.colour}"
        org = (int(r.box[0]), max(int(r.box[1]) - 3, 10))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.35 * scale, (0, 0, 0), max(2, round(3 * scale)))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.35 * scale, colour, max(1, round(scale)))
    return out
