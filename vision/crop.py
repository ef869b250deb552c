"""The one crop rule for dice: cut a die out of an image, turned upright and scaled to a fixed square.

The same function makes the face model's training crops (from manifest boxes, jittered the way the detector
errs, and from rendered dice) and runs at inference on the detector's candidates, so the model never sees a
crop that was cut differently from the ones it learnt on (the chesscog rule).

Rule, in words: take the square of side ``side * (1 + margin)`` centred on the die's centre and turned by the
die's angle so the die's edges become horizontal and vertical; sample it onto ``size`` x ``size`` pixels
(area-averaged when shrinking a lot, bilinear otherwise; pixels outside the image repeat the border). An
axis-aligned box (x0, y0, x1, y1) is taken as a die at angle 0 whose crop is the box grown by ``margin`` on
each axis (a box that is not square is stretched to the square, which un-squashes photos stored squashed).
Grey-scale images give grey crops with three equal channels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from vision.types import DieCandidate

#: Side of the crop the face model reads, in pixels.
CROP_SIZE = 32
#: Extra border around the die, as a fraction of its side (room for detector error; shows a little table).
CROP_MARGIN = 0.25

Box = tuple[float, float, float, float]


class ImageInputError(ValueError):
    """What was handed to a vision stage as an image is not one (wrong type, shape or dtype, or empty)."""


def as_bgr(image: np.ndarray) -> np.ndarray:
    """The image as contiguous 8-bit 3-channel BGR: the one conversion every vision stage uses.

    Grey (2-D or one channel) is replicated, BGRA loses alpha, 16-bit keeps its top 8 bits (a camera's
    16-bit frame is the same picture, not 256 times brighter), float in 0..1 is scaled to 0..255 (other
    floats and integers are clipped into 0..255). Raises :class:`ImageInputError` for anything that is not
    a non-empty numeric array of shape HxW, HxWx1, HxWx3 or HxWx4.
    """
    if not isinstance(image, np.ndarray):
        raise ImageInputError(f"expected a numpy image array, got {type(image).__name__}")
    # The common case first: every crop of a frame passes the frame through here (about 70 times a 25-die
    # photo), and the checks below cost about 50 microseconds each time (issue 25's speed, session 18).
    if image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.size and image.flags.c_contiguous:
        return image
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
        raise ImageInputError(
            f"expected an image of shape HxW, HxWx3 or HxWx4, got shape {image.shape}: neither grey, BGR nor BGRA"
        )
    if image.size == 0:
        raise ImageInputError("expected an image, got an empty array")
    if (
        image.dtype == np.bool_
        or not np.issubdtype(image.dtype, np.number)
        or np.issubdtype(image.dtype, np.complexfloating)
    ):
        raise ImageInputError(f"expected a numeric image, got dtype {image.dtype}")
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        if np.issubdtype(image.dtype, np.floating):
            clean = np.nan_to_num(image.astype(np.float64))
            scale = 255.0 if float(clean.max()) <= 1.0 else 1.0
            image = np.clip(clean * scale, 0, 255).astype(np.uint8)
        else:
            image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(image)


def _geometry(target: DieCandidate | Sequence[float], margin: float) -> tuple[float, float, float, float, float]:
    """Centre x, centre y, crop width, crop height (source pixels) and angle in degrees."""
    if isinstance(target, DieCandidate):
        cx, cy = target.centre
        span = float(target.side) * (1.0 + margin)
        return float(cx), float(cy), span, span, float(target.angle)
    if len(target) != 4:
        raise ValueError(f"a die box is (x0, y0, x1, y1), not {tuple(target)!r}")
    x0, y0, x1, y1 = (float(v) for v in target)
    if not (x1 > x0 and y1 > y0):
        raise ValueError(f"die box {(x0, y0, x1, y1)!r} has no area")
    return (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * (1.0 + margin), (y1 - y0) * (1.0 + margin), 0.0


def crop_die(
    image: np.ndarray,
    target: DieCandidate | Sequence[float],
    size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
) -> np.ndarray:
    """The die at ``target`` (a detector candidate or an axis-aligned box) upright in a ``size`` square, BGR."""
    image = as_bgr(image)
    cx, cy, width, height, angle = _geometry(target, margin)
    if width < 1 or height < 1:
        raise ValueError(f"die of {width:.1f} x {height:.1f} px is too small to crop")
    # Shrinking by more than 2x with bilinear sampling aliases pips away: first area-average a region
    # around the die down to about twice the final size, then sample from that.
    shrink = min(width, height) / size
    if shrink > 2.0:
        factor = shrink / 2.0
        reach = math.hypot(width, height) / 2 + 2
        h_img, w_img = image.shape[:2]
        rx0, ry0 = max(int(cx - reach), 0), max(int(cy - reach), 0)
        rx1, ry1 = min(int(cx + reach) + 1, w_img), min(int(cy + reach) + 1, h_img)
        if rx1 - rx0 >= 2 and ry1 - ry0 >= 2:
            region = image[ry0:ry1, rx0:rx1]
            new_w = max(round(region.shape[1] / factor), 1)
            new_h = max(round(region.shape[0] / factor), 1)
            fx, fy = region.shape[1] / new_w, region.shape[0] / new_h
            image = cv2.resize(region, (new_w, new_h), interpolation=cv2.INTER_AREA)
            cx, cy = (cx - rx0) / fx, (cy - ry0) / fy
            width, height = width / fx, height / fy
    # Map each crop pixel (u, v) back to the source: centre + R(angle) . scaled offset.
    theta = math.radians(angle)
    cos_t, sin_t = math.cos(theta), math.sin(theta)
    sx, sy = width / size, height / size
    # Source x = cx + cos*dx - sin*dy, y = cy + sin*dx + cos*dy with d the offset from the crop centre:
    # the die's edges, turned by +angle (clockwise as seen, y pointing down, as vision.lab.render draws them),
    # come out axis-aligned.
    matrix = np.array(
        [
            [cos_t * sx, -sin_t * sy, 0.0],
            [sin_t * sx, cos_t * sy, 0.0],
        ],
        dtype=np.float64,
    )
    half = (size - 1) / 2.0
    # Pixel i covers [i, i+1), so its centre is i + 0.5.
    matrix[0, 2] = cx - 0.5 - (matrix[0, 0] * half + matrix[0, 1] * half)
    matrix[1, 2] = cy - 0.5 - (matrix[1, 0] * half + matrix[1, 1] * half)
    return cv2.warpAffine(
        image,
        matrix,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def crop_batch(
    image: np.ndarray,
    targets: Sequence[DieCandidate | Sequence[float]],
    size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
) -> np.ndarray:
    """Crops of every target stacked as (N, size, size, 3) uint8."""
    image = as_bgr(image)
    if not targets:
        return np.zeros((0, size, size, 3), np.uint8)
    return np.stack([crop_die(image, t, size, margin) for t in targets])


def folded_edges(
    image: np.ndarray, centre: tuple[float, float], half: int, weight: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> tuple[float, float, float] | None:
    """The edge orientations around ``centre``, as the sum of one vector per pixel: (cos, sin, total weight).

    In the square of half-width ``half`` the gradient orientations are folded onto 90 degrees (four times the
    angle) and added up, each weighted by its gradient's strength and by ``weight(dx, dy)`` of its offset from
    the centre: a die's straight edges agree, round pips add nothing. None when the window is too small. The
    one mechanism behind :func:`estimate_angle` and the detector's ``edge_angle``, which weight it differently.
    """
    return folded_edges_each(image, [centre], [half], [weight])[0]


def folded_edges_each(
    image: np.ndarray,
    centres: Sequence[tuple[float, float]],
    halves: Sequence[int],
    weights: Sequence[Callable[[np.ndarray, np.ndarray], np.ndarray]],
) -> list[tuple[float, float, float] | None]:
    """:func:`folded_edges` of many windows of one image (a frame's dice), to the bit the same as one at a time:
    each window's gradients (their borders are the window's own) and weights are made apart, the per-pixel
    arithmetic (strength, the folded angle, its cosine and sine) runs once over all windows laid end to end, and
    each window's sums are taken over its own run of pixels (the same additions in the same order). A frame's 25
    dice cost a quarter less than 25 calls (issue 25's speed, session 19)."""
    h, w = image.shape[:2]
    gxs: list[np.ndarray] = []
    gys: list[np.ndarray] = []
    ws: list[np.ndarray] = []
    spans: list[int | None] = []
    for (x, y), half, weight in zip(centres, halves, weights, strict=True):
        x0, x1 = max(0, int(x) - half), min(w, int(x) + half + 1)
        y0, y1 = max(0, int(y) - half), min(h, int(y) + half + 1)
        if x1 - x0 < 5 or y1 - y0 < 5:
            spans.append(None)
            continue
        patch = image[y0:y1, x0:x1]
        grey = (cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch).astype(np.float32)
        gxs.append(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3).ravel())
        gys.append(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3).ravel())
        # Offsets from the centre as a row and a column (broadcast by ``weight``): a full grid costs more.
        xx = np.arange(x0, x1, dtype=np.float32)[None, :]
        yy = np.arange(y0, y1, dtype=np.float32)[:, None]
        ws.append(np.broadcast_to(weight(xx - x, yy - y), grey.shape).ravel())
        spans.append(grey.size)
    if not gxs:
        return [None] * len(spans)
    gx, gy = np.concatenate(gxs), np.concatenate(gys)
    strength = np.hypot(gx, gy) * np.concatenate(ws)
    folded = 4 * np.arctan2(gy, gx)
    along_cos, along_sin = strength * np.cos(folded), strength * np.sin(folded)
    out: list[tuple[float, float, float] | None] = []
    start = 0
    for span in spans:
        if span is None:
            out.append(None)
            continue
        run = slice(start, start + span)
        start += span
        out.append((float(along_cos[run].sum()), float(along_sin[run].sum()), float(strength[run].sum())))
    return out


def folded_angle(c: float, s: float) -> float:
    """The angle (0..90 degrees) of a folded orientation vector from :func:`folded_edges`."""
    return (math.degrees(math.atan2(s, c)) / 4) % 90


def estimate_angle(image: np.ndarray, centre: tuple[float, float], extent: float) -> float:
    """The angle (0..90 degrees, the crop rule's sense) of the die's edges around ``centre``.

    :func:`folded_edges` in a window about the die's size, weighted by nearness to the centre. Used where
    only an axis-aligned box is known (manifest labels), so crops cut from labels are upright like the
    detector's.
    """
    spread = 2 * (extent * 0.5) ** 2
    edges = folded_edges(
        as_bgr(image), centre, max(4, int(extent * 0.6)), lambda dx, dy: np.exp(-(dx**2 + dy**2) / spread)
    )
    if edges is None or abs(edges[0]) + abs(edges[1]) < 1e-6:
        return 0.0
    return folded_angle(edges[0], edges[1])


def side_from_box(box_w: float, box_h: float, angle: float) -> float:
    """The side of a square whose axis-aligned box at ``angle`` degrees has this width and height."""
    a = math.radians(angle)
    return (box_w + box_h) / 2 / (abs(math.cos(a)) + abs(math.sin(a)))


def box_to_candidate(box: Sequence[float], angle: float = 0.0, score: float = 1.0) -> DieCandidate:
    """A candidate for an axis-aligned box: the largest square at ``angle`` whose bounding box it is."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = side_from_box(x1 - x0, y1 - y0, angle)
    return DieCandidate(centre=((x0 + x1) / 2, (y0 + y1) / 2), side=side, angle=angle, score=score)
