"""Camera conditions the shared photos do not show, made from them, to measure how the reader holds up.

The recogniser will meet photos taken otherwise than the labelled ones: a camera mounted higher or lower or at
another resolution, darker or brighter exposure, another white balance, a softer focus, sensor noise, stronger
JPEG compression. A :class:`Condition` is one such change, applied to a labelled photo (and to its boxes when it
rescales it), so the whole reader can be measured under it against the same labels::

    companion eval-dice MANIFEST --split val --condition scale:0.5

Written ``KIND:AMOUNT`` (:func:`parse_condition`); :data:`KINDS` lists the kinds and the amounts they take.
These are measurements, not training data: nothing is chosen on them (``docs/vision.md``, "Other camera
conditions").
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

#: Each kind of change: (what the amount means, smallest amount, largest amount).
KINDS: dict[str, tuple[str, float, float]] = {
    "scale": ("the photo resized by this factor (a camera higher or lower, or another resolution)", 0.2, 4.0),
    "exposure": ("every pixel value times this, clipped (under- or over-exposed)", 0.2, 3.0),
    "white": ("red times this and blue divided by it (a warmer white balance above 1, cooler below)", 0.5, 2.0),
    "blur": ("a Gaussian blur of this sigma in pixels (softer focus)", 0.3, 5.0),
    "noise": ("Gaussian noise of this standard deviation in grey levels (a dim, noisy sensor)", 1.0, 50.0),
    "jpeg": ("compressed again as JPEG at this quality", 5.0, 100.0),
}


def known_kinds() -> str:
    """The kinds and their ranges, as error messages and help texts name them: ``scale (0.2..4), ...``."""
    return ", ".join(f"{kind} ({lo:g}..{hi:g})" for kind, (_, lo, hi) in KINDS.items())


class ConditionError(ValueError):
    """A condition that is not ``KIND:AMOUNT`` with a known kind and an amount in its range."""


@dataclass(frozen=True, slots=True)
class Condition:
    """One change of camera conditions (see :data:`KINDS`)."""

    kind: str
    amount: float

    def __str__(self) -> str:
        return f"{self.kind}:{self.amount:g}"

    def apply(self, image: np.ndarray, name: str = "") -> np.ndarray:
        """The BGR ``image`` as taken under this condition. ``name`` (the photo's) seeds the noise, so a photo
        gets the same noise in every run and photos of the same size do not share it."""
        a = self.amount
        if self.kind == "scale":
            interpolation = cv2.INTER_AREA if a < 1 else cv2.INTER_CUBIC
            return cv2.resize(image, None, fx=a, fy=a, interpolation=interpolation)
        if self.kind == "exposure":
            return _to_uint8(image.astype(np.float32) * a)
        if self.kind == "white":
            return _to_uint8(image.astype(np.float32) * np.array([1 / a, 1.0, a], np.float32))
        if self.kind == "blur":
            return cv2.GaussianBlur(image, (0, 0), a)
        if self.kind == "noise":
            rng = np.random.default_rng(zlib.crc32(name.encode()))
            return _to_uint8(image.astype(np.float32) + rng.normal(0.0, a, image.shape).astype(np.float32))
        if self.kind == "jpeg":
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, round(a)])
            if not ok:  # pragma: no cover - OpenCV encodes any uint8 BGR image
                raise ConditionError(f"could not encode the photo {name} as JPEG")
            return cv2.imdecode(data, cv2.IMREAD_COLOR)
        raise ConditionError(f"unknown condition kind {self.kind!r}")  # pragma: no cover - parse_condition checks

    def record(self, record: dict[str, Any]) -> dict[str, Any]:
        """A manifest record with its boxes (and size) where they lie in the changed photo."""
        if self.kind != "scale":
            return record
        a = self.amount
        changed = {**record, "dice": [{**d, "box": [float(v) * a for v in d["box"]]} for d in record["dice"]]}
        for key in ("width", "height"):
            if key in record:
                changed[key] = round(float(record[key]) * a)
        return changed


def parse_condition(text: str) -> Condition:
    """``KIND:AMOUNT`` as a :class:`Condition`, or :class:`ConditionError` saying what is wrong with it."""
    kind, sep, amount_text = text.partition(":")
    if not sep or kind not in KINDS:
        raise ConditionError(f"condition {text!r} is not KIND:AMOUNT with a known kind: {known_kinds()}")
    try:
        amount = float(amount_text)
    except ValueError:
        raise ConditionError(f"condition {text!r}: {amount_text!r} is not a number") from None
    _, lo, hi = KINDS[kind]
    if not lo <= amount <= hi:
        raise ConditionError(f"condition {text!r}: {kind} takes an amount from {lo:g} to {hi:g}")
    return Condition(kind, amount)


def _to_uint8(image: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(image), 0, 255).astype(np.uint8)
