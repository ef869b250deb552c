"""Finding dice: the learned heat-map detector (``models/dice-detect.onnx``) and its decoding.

The network is a small fully convolutional CenterNet-style model (see :mod:`vision.lab.detect_train`). It
sees the image letterboxed so that its longer side is ``max_side`` pixels (384), and answers at stride 4
with seven maps: a die-centre heat map, the sub-cell offset of the centre, the log width and height of
the die's axis-aligned box, and the die's rotation as (cos 4a, sin 4a) — a square looks the same every
90 degrees, so the angle is learnt on the circle of 4a. Dice are the local maxima of the heat map
above a threshold (a 3x3 peak test keeps touching dice apart), then any two candidates whose centres
lie closer than half a die are merged.

The rotation reported is the classical estimate from the die's own edges (:func:`edge_angle`): image
gradient orientations folded onto 90 degrees, where round pips cancel out and the straight edges add up.
On rendered scenes it is several times closer to the truth than the network's angle head, which stays as
the fallback where the edges disagree. The side is the network's, moved halfway toward a measure of the
die's own edges on a small upright patch (:func:`edge_sides`, :func:`blend_side`; fitted on the Byler train
split only), which recovers some of the dice found in the right place with a box too large or small.

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
from vision.crop import ImageInputError, as_bgr, folded_angle, folded_edges_each, side_from_box
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
#: Side refinement (see refine_side): how far the side moves toward the edges' measure (0 = not at all)
#: and the log-ratio added. Both fitted on the Byler *train* split only (least squares on log side);
#: the bias is there because the edges measure the top face, while a die's box (as labelled) also holds
#: the sides seen in perspective.
SIDE_BLEND = 0.5
SIDE_BIAS = 0.05
#: The edges' measure is trusted at most this far (log ratio) from the network's side.
SIDE_MAX_LOG_CHANGE = 0.4
#: Resolution (pixels) of the upright patch the edges are measured on.
EDGE_PATCH = 32


#: The error for something that is not an image: the one of :func:`vision.crop.as_bgr`, which every stage shares
#: (the detector kept its own conversion until issue 25; a 16-bit frame then read 256 times too bright here).
DetectorInputError = ImageInputError


def letterbox(image_bgr: np.ndarray, max_side: int, scale: float | None = None) -> tuple[np.ndarray, float]:
    """Resize so the longer side is ``max_side`` (or by ``scale`` when given) and pad right/bottom to a multiple of 16.

    Returns the padded image and the scale (network pixels per image pixel).
    """
    h, w = image_bgr.shape[:2]
    if scale is None:
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
    """NCHW float32 in 0..1, the network's input (BGR channel order, as OpenCV loads images), contiguous: handed a
    transposed view, ONNX Runtime copies it element by element first, which cost the 384 px input about 2 ms of
    the network's 9 here (session 19; the same values, so the same maps to the bit)."""
    tensor = np.ascontiguousarray(image_bgr.transpose(2, 0, 1)[None], dtype=np.float32)
    tensor /= 255.0
    return tensor


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


def edge_angle(image_bgr: np.ndarray, centre: tuple[float, float], size: float) -> tuple[float, float]:
    """Classical rotation estimate of the die around ``centre`` of a BGR or grey image: (angle 0..90 degrees,
    strength 0..1).

    :func:`vision.crop.folded_edges` in a window of ``size`` pixels. Strength is the length of the mean
    vector (1 = every edge agrees).
    """
    return edge_angles(image_bgr, [centre], [size])[0]


def edge_angles(
    image_bgr: np.ndarray, centres: list[tuple[float, float]], sizes: list[float]
) -> list[tuple[float, float]]:
    """:func:`edge_angle` of every die of a frame, to the bit the same, in one pass
    (:func:`vision.crop.folded_edges_each`)."""

    def ring(size: float) -> Any:
        # Weight a ring where the die's outline lies (half a side to a half-diagonal from the centre): the
        # pips inside and the neighbours' edges outside count less.
        def weight(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
            radius = np.sqrt(dx**2 + dy**2)
            return np.exp(-((radius - size * 0.58) ** 2) / (2 * (size * 0.16) ** 2))

        return weight

    halves = [max(4, round(size * 0.6)) for size in sizes]
    out = []
    for edges in folded_edges_each(image_bgr, centres, halves, [ring(size) for size in sizes]):
        if edges is None or edges[2] <= 1e-6:
            out.append((0.0, 0.0))
            continue
        c, s, total = edges
        out.append((folded_angle(c, s), math.hypot(c, s) / total))
    return out


#: The patch is 1.8 sides wide, so a side always spans EDGE_PATCH / 1.8 patch pixels: the band the
#: profiles are summed over and the prior on where an edge lies are fixed, computed once here.
_SIDE_PX = EDGE_PATCH / 1.8
_POS = np.arange(EDGE_PATCH) - EDGE_PATCH / 2 + 0.5
_BAND = slice(int(EDGE_PATCH / 2 - 0.3 * _SIDE_PX), int(EDGE_PATCH / 2 + 0.3 * _SIDE_PX) + 1)
# Where an edge may lie: 0.3 to 0.8 sides from the centre, most likely at half a side. Pips lie within
# about a third of a side, so they count little.
_PRIORS = tuple(
    np.where((d > 0.3) & (d < 0.8), np.exp(-((d - 0.5) ** 2) / (2 * 0.1**2)), 0.0).astype(np.float32)
    for d in (-_POS / _SIDE_PX, _POS / _SIDE_PX)
)


def edge_sides(image_bgr: np.ndarray, centres: list[tuple[float, float]], sides: list[float],
               angles: list[float]) -> list[float | None]:
    """Each die's top-face side measured from its own edges, or None where no edge is found.

    Each die is turned upright on a small patch (1.8 sides wide, :data:`EDGE_PATCH` pixels); along each of
    its two axes the gradient summed across a central band is searched for the strongest edge on either
    side, weighted toward half a side from the centre. The side is the mean of the two measured widths.
    All dice are measured together (one stack of patches) to keep the per-die cost small.
    """
    res = EDGE_PATCH
    if not centres:
        return []
    patches = []
    scales = []
    for (x, y), side, angle in zip(centres, sides, angles, strict=True):
        k = res / (1.8 * side)
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        # Patch pixel (u, v) samples the image at centre + R(angle) (u - res/2, v - res/2) / k.
        warp = np.array([[c / k, -s / k, x - (c - s) * res / 2 / k], [s / k, c / k, y - (s + c) * res / 2 / k]],
                        np.float32)
        patches.append(cv2.warpAffine(image_bgr, warp, (res, res), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                      borderMode=cv2.BORDER_REPLICATE))
        scales.append(k)
    p = np.stack(patches).astype(np.float32)  # (n, v, u, channel)
    # 3x3 Sobel by slicing, over the central band only; summed over the colour channels (a white die on
    # a white sheet may differ only in hue). Profiles are indexed 1..res-2; the ends lie outside the prior.
    rows = p[:, _BAND.start - 1:_BAND.stop + 1]
    smooth = rows[:, :-2] + 2 * rows[:, 1:-1] + rows[:, 2:]
    across_u = np.abs(smooth[:, :, 2:] - smooth[:, :, :-2]).sum(axis=(1, 3))
    cols = p[:, :, _BAND.start - 1:_BAND.stop + 1]
    smooth = cols[:, :, :-2] + 2 * cols[:, :, 1:-1] + cols[:, :, 2:]
    across_v = np.abs(smooth[:, 2:] - smooth[:, :-2]).sum(axis=(2, 3))
    ends = np.zeros((len(centres), 2, 2))
    found = np.ones(len(centres), bool)
    for axis, profile in enumerate((across_u, across_v)):
        profile = np.pad(profile, ((0, 0), (1, 1)))
        for side_index, prior in enumerate(_PRIORS):
            score = profile * prior
            i = score.argmax(axis=1)
            n = np.arange(len(centres))
            peak = score[n, i]
            found &= peak > 0
            # Parabola through the peak and its neighbours: the edge to a fraction of a pixel.
            left = score[n, np.clip(i - 1, 0, res - 1)]
            right = score[n, np.clip(i + 1, 0, res - 1)]
            curve = left - 2 * peak + right
            ok = (curve < 0) & (i > 0) & (i < res - 1)
            offset = np.where(ok, 0.5 * (left - right) / np.where(ok, curve, -1.0), 0.0)
            ends[:, axis, side_index] = _POS[i] + offset
    widths = (ends[:, :, 1] - ends[:, :, 0]).mean(axis=1) / np.array(scales)
    return [float(w) if f else None for w, f in zip(widths, found, strict=True)]


def edge_side(image_bgr: np.ndarray, centre: tuple[float, float], side: float, angle: float) -> float | None:
    """One die's top-face side from its own edges (see :func:`edge_sides`), or None."""
    return edge_sides(image_bgr, [centre], [side], [angle])[0]


def blend_side(side: float, measured: float | None) -> float:
    """The network's side moved halfway (in log) toward the edges' measure, with the fitted bias.

    On the Byler train split the network's box size is the main source of IoU misses, and the edges'
    measure, alone noisier, carries independent information; the blend of the two was fitted there.
    """
    if measured is None or measured <= 0:
        return side
    change = max(-SIDE_MAX_LOG_CHANGE, min(SIDE_MAX_LOG_CHANGE, math.log(measured / side)))
    return side * math.exp(SIDE_BIAS + SIDE_BLEND * change)


def refine_side(image_bgr: np.ndarray, centre: tuple[float, float], side: float, angle: float) -> float:
    """One die's side refined from its own edges (:func:`edge_side`, :func:`blend_side`)."""
    return blend_side(side, edge_side(image_bgr, centre, side, angle))


class DiceDetector:
    """Loads the detector once; :meth:`find` returns every die in a BGR (or grey) image.

    ``threshold`` is the heat-map score above which a peak counts as a die (chosen on training data,
    see ``models/dice-detect.md``). ``refine`` moves each side toward the die's own edges (refine_side).
    """

    def __init__(self, threads: int = 1, models_dir: Path = MODELS_DIR, threshold: float | None = None,
                 refine: bool = True) -> None:
        session, card = load_model(MODEL_NAME, models_dir, threads=threads)
        self.session: Any = session
        self.card: ModelCard = card
        self.input_name: str = session.get_inputs()[0].name
        self.max_side = int(card.input.get("max_side", 384))
        default = float(card.metrics.get("threshold", 0.35)) if isinstance(card.metrics, dict) else 0.35
        self.threshold = default if threshold is None else float(threshold)
        #: Refine each die's side from its own edges (refine_side); False gives the network's box.
        self.refine = refine

    def maps(self, image_bgr: np.ndarray) -> tuple[np.ndarray, float]:
        """The network's raw output maps (7, H, W) for an image, and the letterbox scale."""
        boxed, scale = letterbox(as_bgr(image_bgr), self.max_side)
        return self._run(boxed), scale

    def _run(self, boxed: np.ndarray) -> np.ndarray:
        out = self.session.run(None, {self.input_name: to_tensor(boxed)})[0]
        return np.asarray(out[0], np.float32)

    def find(self, image_bgr: np.ndarray, scale: float | None = None) -> list[DieCandidate]:
        """Every die found: centre and side in image pixels, angle 0..90 degrees, score 0..1.

        ``scale`` (network pixels per image pixel) reads the image at that scale instead of the one that fits its
        longer side to the network's input: a window cut from a zone is then seen as in the whole zone.
        Returns [] for an empty array, a frame too small to hold a die, or a flat (black, white, grey)
        frame; raises :class:`DetectorInputError` (a ValueError) for something that is not an image.
        """
        if isinstance(image_bgr, np.ndarray) and image_bgr.size == 0 and image_bgr.ndim in (2, 3):
            return []
        image = as_bgr(image_bgr)
        h, w = image.shape[:2]
        if min(h, w) < 8:
            return []
        boxed, scale = letterbox(image, self.max_side, scale)
        shown = boxed[: max(1, round(h * scale)), : max(1, round(w * scale))]
        if float(shown[::4, ::4].std()) < FLAT_FRAME_STD:
            return []
        found = []
        peaks = decode(self._run(boxed), scale, self.threshold, (w, h))
        # Grey once for every die's edges (the same values as converting each die's window: per pixel), every
        # die's edges in one pass.
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        edges = edge_angles(grey, [(p[0], p[1]) for p in peaks], [(p[2] + p[3]) / 2 / 1.2 for p in peaks])
        for (cx, cy, bw, bh, net_angle, score), (angle, strength) in zip(peaks, edges, strict=True):
            # The die's own edges give its rotation better than the network (see docs/vision-detect.md);
            # the network's estimate stands in where the edges say little (a blurred or low-contrast die).
            if strength < MIN_EDGE_STRENGTH:
                angle = net_angle
            found.append(((cx, cy), side_from_box(bw, bh, angle), angle, score))
        if self.refine and found:
            measured = edge_sides(image, [f[0] for f in found], [f[1] for f in found], [f[2] for f in found])
            found = [(c, blend_side(side, m), a, sc) for (c, side, a, sc), m in zip(found, measured, strict=True)]
        dice = [DieCandidate(centre=c, side=side, angle=a, score=sc) for c, side, a, sc in found]
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
