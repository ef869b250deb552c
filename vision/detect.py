"""Finding dice: the learned heat-map detector (``models/dice-detect.onnx``) and its decoding.

The network is a small fully convolutional CenterNet-style model (see :mod:`vision.detect_train`). It
sees the image letterboxed so that its longer side is ``max_side`` pixels (384), and answers at stride 4
with seven maps: a die-centre heat map, the sub-cell offset of the centre, the log width and height of
the die's axis-aligned box, and the die's rotation as (cos 4a, sin 4a) — a square looks the same every
90 degrees, so the angle is learnt on the circle of 4a. Dice are the local maxima of the heat map
above a threshold (a 3x3 peak test keeps touching dice apart), then any two candidates whose centres
lie closer than half a die are merged.

The rotation reported is the classical estimate from the die's own edges (:func:`edge_angle`): image
gradient orientations folded onto 90 degrees, where round pips cancel out and the straight edges add up.
On rendered scenes it is several times closer to the truth than the network's angle head, which stays as
the fallback where the edges disagree.

Run alone: ``python -m vision.detect IMAGE [OUT.png]`` prints the dice found and draws them.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import MODELS_DIR
from vision.modelcard import ModelCard, load_model
from vision.types import DieCandidate

MODEL_NAME = "dice-detect"
STRIDE = 4
#: Sides of the letterboxed input are padded to a multiple of this (the network's coarsest stride).
PAD_MULTIPLE = 16
PAD_VALUE = 114
#: A frame whose grey levels vary less than this (standard deviation) holds nothing to find.
FLAT_FRAME_STD = 2.0
#: Below this agreement of the edge orientations the network's angle is used instead (see edge_angle).
MIN_EDGE_STRENGTH = 0.02


class DetectorInputError(ValueError):
    """The image given to the detector is not an image (wrong type, shape or dtype)."""


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A uint8 BGR view of ``image``: grey (2-D or one channel) is replicated, BGRA loses alpha.

    Raises :class:`DetectorInputError` for anything that is not a 2-D or 3-D array of 1, 3 or 4
    channels; other numeric dtypes are clipped into 0..255.
    """
    if not isinstance(image, np.ndarray):
        raise DetectorInputError(f"expected a numpy image array, got {type(image).__name__}")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    elif image.ndim != 3 or image.shape[2] not in (3, 4):
        raise DetectorInputError(f"expected an image of shape HxW, HxWx3 or HxWx4, got shape {image.shape}")
    if image.shape[2] == 4:
        image = image[:, :, :3]
    if image.dtype != np.uint8:
        if not np.issubdtype(image.dtype, np.number) or np.issubdtype(image.dtype, np.complexfloating):
            raise DetectorInputError(f"expected a numeric image, got dtype {image.dtype}")
        image = np.clip(np.nan_to_num(image.astype(np.float64)), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(image)


def letterbox(image_bgr: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """Resize so the longer side is ``max_side`` and pad right/bottom to a multiple of 16.

    Returns the padded image and the scale (network pixels per image pixel).
    """
    h, w = image_bgr.shape[:2]
    scale = max_side / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image_bgr, (nw, nh), interpolation=interp)
    pw = -(-nw // PAD_MULTIPLE) * PAD_MULTIPLE
    ph = -(-nh // PAD_MULTIPLE) * PAD_MULTIPLE
    out = np.full((ph, pw, 3), PAD_VALUE, np.uint8)
    out[:nh, :nw] = resized
    return out, scale


def to_tensor(image_bgr: np.ndarray) -> np.ndarray:
    """NCHW float32 in 0..1, the network's input (BGR channel order, as OpenCV loads images)."""
    return (image_bgr.astype(np.float32) / 255.0).transpose(2, 0, 1)[None]


def decode(
    maps: np.ndarray, scale: float, threshold: float, image_size: tuple[int, int], max_dice: int = 200
) -> list[tuple[float, float, float, float, float, float]]:
    """Peaks of the network's maps as (cx, cy, w, h, angle, score) in original image pixels.

    ``maps`` is (7, H, W): heat (after sigmoid), dx, dy, log w, log h (in stride units), cos 4a, sin 4a.
    """
    heat = maps[0]
    peaks = heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero(peaks & (heat >= threshold))
    if len(ys) > max_dice:
        order = np.argsort(-heat[ys, xs])[:max_dice]
        ys, xs = ys[order], xs[order]
    width, height = image_size
    found = []
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        cx = (x + 0.5 + float(maps[1, y, x])) * STRIDE / scale
        cy = (y + 0.5 + float(maps[2, y, x])) * STRIDE / scale
        if not (0 <= cx < width and 0 <= cy < height):
            continue
        bw = math.exp(min(float(maps[3, y, x]), 6.0)) * STRIDE / scale
        bh = math.exp(min(float(maps[4, y, x]), 6.0)) * STRIDE / scale
        angle = (math.degrees(math.atan2(float(maps[6, y, x]), float(maps[5, y, x]))) / 4) % 90
        found.append((cx, cy, bw, bh, angle, float(heat[y, x])))
    return merge_close(found)


def merge_close(
    found: list[tuple[float, float, float, float, float, float]], fraction: float = 0.5
) -> list[tuple[float, float, float, float, float, float]]:
    """Drop any candidate whose centre lies within ``fraction`` of a die's size from a stronger one.

    Touching dice have centres a whole die apart, so they survive; two peaks on one die do not.
    """
    kept: list[tuple[float, float, float, float, float, float]] = []
    for cand in sorted(found, key=lambda c: -c[5]):
        cx, cy, bw, bh = cand[:4]
        size = (bw + bh) / 2
        if all(math.hypot(cx - k[0], cy - k[1]) >= fraction * min(size, (k[2] + k[3]) / 2) for k in kept):
            kept.append(cand)
    return kept


def side_from_box(box_w: float, box_h: float, angle: float) -> float:
    """The side of a square whose axis-aligned box at ``angle`` degrees has this width and height."""
    a = math.radians(angle)
    return (box_w + box_h) / 2 / (abs(math.cos(a)) + abs(math.sin(a)))


def edge_angle(image_bgr: np.ndarray, centre: tuple[float, float], size: float) -> tuple[float, float]:
    """Classical rotation estimate of the die around ``centre``: (angle 0..90 degrees, strength 0..1).

    The gradient orientations in a window of ``size`` pixels are folded onto 90 degrees (angle x 4) and
    averaged, weighted by gradient magnitude; round pips add nothing, straight edges add up. Strength
    is the length of the mean vector (1 = every edge agrees).
    """
    x, y = centre
    half = max(4, round(size * 0.6))
    h, w = image_bgr.shape[:2]
    x0, x1 = max(0, int(x) - half), min(w, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(h, int(y) + half + 1)
    if x1 - x0 < 5 or y1 - y0 < 5:
        return 0.0, 0.0
    patch = image_bgr[y0:y1, x0:x1]
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    grey = grey.astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    # Weight a ring where the die's outline lies (half a side to a half-diagonal from the centre): the
    # pips inside and the neighbours' edges outside count less.
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    radius = np.sqrt((xx - x) ** 2 + (yy - y) ** 2)
    weight = mag * np.exp(-((radius - size * 0.58) ** 2) / (2 * (size * 0.16) ** 2))
    theta = np.arctan2(gy, gx) * 4
    c, s, total = float((weight * np.cos(theta)).sum()), float((weight * np.sin(theta)).sum()), float(weight.sum())
    if total <= 1e-6:
        return 0.0, 0.0
    return (math.degrees(math.atan2(s, c)) / 4) % 90, math.hypot(c, s) / total


class DiceDetector:
    """Loads the detector once; :meth:`find` returns every die in a BGR (or grey) image.

    ``threshold`` is the heat-map score above which a peak counts as a die (chosen on training data,
    see ``models/dice-detect.md``).
    """

    def __init__(self, threads: int = 1, models_dir: Path = MODELS_DIR, threshold: float | None = None) -> None:
        session, card = load_model(MODEL_NAME, models_dir, threads=threads)
        self.session: Any = session
        self.card: ModelCard = card
        self.input_name: str = session.get_inputs()[0].name
        self.max_side = int(card.input.get("max_side", 384))
        default = float(card.metrics.get("threshold", 0.35)) if isinstance(card.metrics, dict) else 0.35
        self.threshold = default if threshold is None else float(threshold)

    def maps(self, image_bgr: np.ndarray) -> tuple[np.ndarray, float]:
        """The network's raw output maps (7, H, W) for an image, and the letterbox scale."""
        boxed, scale = letterbox(as_bgr(image_bgr), self.max_side)
        return self._run(boxed), scale

    def _run(self, boxed: np.ndarray) -> np.ndarray:
        out = self.session.run(None, {self.input_name: to_tensor(boxed)})[0]
        return np.asarray(out[0], np.float32)

    def find(self, image_bgr: np.ndarray) -> list[DieCandidate]:
        """Every die found: centre and side in image pixels, angle 0..90 degrees, score 0..1.

        Returns [] for an empty array, a frame too small to hold a die, or a flat (black, white, grey)
        frame; raises :class:`DetectorInputError` (a ValueError) for something that is not an image.
        """
        image = as_bgr(image_bgr)
        h, w = image.shape[:2]
        if min(h, w) < 8:
            return []
        boxed, scale = letterbox(image, self.max_side)
        shown = boxed[: max(1, round(h * scale)), : max(1, round(w * scale))]
        if float(shown[::4, ::4].std()) < FLAT_FRAME_STD:
            return []
        dice = []
        for cx, cy, bw, bh, net_angle, score in decode(self._run(boxed), scale, self.threshold, (w, h)):
            # The die's own edges give its rotation better than the network (see docs/vision-detect.md);
            # the network's estimate stands in where the edges say little (a blurred or low-contrast die).
            angle, strength = edge_angle(image, (cx, cy), (bw + bh) / 2 / 1.2)
            if strength < MIN_EDGE_STRENGTH:
                angle = net_angle
            dice.append(
                DieCandidate(centre=(cx, cy), side=side_from_box(bw, bh, angle), angle=angle, score=score)
            )
        return dice


def draw(image_bgr: np.ndarray, dice: list[DieCandidate]) -> np.ndarray:
    """A copy of the image with each die's rotated square and score drawn on it."""
    out = as_bgr(image_bgr).copy()
    for die in dice:
        rect = (die.centre, (die.side, die.side), die.angle)
        pts = cv2.boxPoints(rect).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 220, 0), 1, cv2.LINE_AA)
        x0, y0 = int(die.box[0]), int(die.box[1])
        cv2.putText(out, f"{die.score:.2f}", (x0, max(8, y0 - 2)), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 255), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m vision.detect IMAGE [OUT.png]", file=sys.stderr)
        return 2
    image = cv2.imread(args[0], cv2.IMREAD_COLOR)
    if image is None:
        print(f"cannot read an image from {args[0]}", file=sys.stderr)
        return 2
    dice = DiceDetector().find(image)
    for die in dice:
        print(f"centre=({die.centre[0]:.1f},{die.centre[1]:.1f}) side={die.side:.1f} "
              f"angle={die.angle:.1f} score={die.score:.3f}")
    if len(args) > 1:
        cv2.imwrite(args[1], draw(image, dice))
    return 0


if __name__ == "__main__":
    sys.exit(main())
