"""The stability filter: a reading of the table counts only once the scene is still and several
consecutive frames agree.

Motion is measured cheaply: consecutive frames are shrunk to 80x60 grey and the cells whose grey level
changed by more than ``motion_delta`` are counted (a die of a 1280-pixel frame covers a few cells, and
averaging over 16x16 pixels hides sensor noise). While anything moves (dice tumbling, a hand over the
tray) nothing is read at all, which is
also what keeps hands out of the readings and the CPU free. Once still, each frame is read and its
reading compared with the previous one: the same faces, colours and cocked/unsure flags, each die within
a quarter of a die's side of where it was (detectors jitter by a pixel or two); after ``agree_frames``
agreeing frames the reading is *settled* and handed on once, and the dice are not read again until
something moves.

Motion counts only when it lasts: a frame that differs from the still picture before it is held back
until ``motion_frames`` consecutive frames differ from that picture, so one noise frame or one corrupted
JPEG between still frames is a spike, ignored. ``moved`` on a settled reading says that the dice were
*seen to move* since the previous settled reading: motion was seen, and the dice lie elsewhere or show
other faces, or the tray was seen empty or covered (a hand over it: at least ``cover_share`` of the cells
moved). The same dice lying still after a shadow or a bump are not a new roll. The start of the process
does not count as motion.

Frames that carry no picture (black, white, flat, noise, failed to decode) change nothing, and neither
does a frame whose whole picture changed at once unless the next frame shows the same new picture (the
lights came on, the camera was moved): a stream of such frames is a broken camera, and the appliance
counts them towards "camera lost".

The filter knows dice by default (:func:`agrees`, :func:`table_order`); a board game hands it its own
``same`` (its table adapter's ``readings_agree``) and ``arrange``, and its readings are opaque to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.types import DieReading

SMALL = (80, 60)


def small_grey(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.resize(grey, SMALL, interpolation=cv2.INTER_AREA).astype(np.int16)


def frame_problem(small: np.ndarray) -> str | None:
    """Why a frame holds no usable picture (None: it does)."""
    mean = float(small.mean())
    if mean < 12:
        return "black frame"
    if mean > 243:
        return "white frame"
    if float(small.std()) < 2.0:
        return "flat frame"
    # Neighbouring cells of a real picture are alike (a table's recorded frames: 0.65 and up); noise's are not.
    a, b = small[:, :-1].ravel().astype(np.float64), small[:, 1:].ravel().astype(np.float64)
    if float(np.corrcoef(a, b)[0, 1]) < 0.3:
        return "noise frame"
    return None


#: A frame where more than this share of the cells changed at once shows a whole new picture.
WHOLE_CHANGE = 0.8


def agrees(a: Sequence[DieReading], b: Sequence[DieReading], tolerance: float = 0.25, *, doubts: bool = True) -> bool:
    """Whether two readings say the same: equal labels, each die matched to one within ``tolerance`` sides.
    ``doubts=False`` leaves the unsure flags out (fused readings: the fusion decides them over every frame)."""
    if len(a) != len(b):
        return False
    left = list(b)
    for d in a:
        side = max(d.box[2] - d.box[0], d.box[3] - d.box[1], 1.0)
        match = next(
            (o for o in left
             if (o.value, o.colour, o.cocked) == (d.value, d.colour, d.cocked) and (not doubts or o.unsure == d.unsure)
             and abs(o.centre[0] - d.centre[0]) <= tolerance * side
             and abs(o.centre[1] - d.centre[1]) <= tolerance * side),
            None,
        )
        if match is None:
            return False
        left.remove(match)
    return True


def drop_overlaps(dice: Sequence[DieReading], overlap: float = 0.6) -> list[DieReading]:
    """Two dice cannot lie in one place: of readings whose centres are closer than ``overlap`` of a side,
    keep the one the detector is surest of (a detector may report one die twice)."""
    kept: list[DieReading] = []
    for d in sorted(dice, key=lambda r: -r.detector_score):
        side = max(d.box[2] - d.box[0], d.box[3] - d.box[1], 1.0)
        if all(abs(d.centre[0] - k.centre[0]) > overlap * side or abs(d.centre[1] - k.centre[1]) > overlap * side
               for k in kept):
            kept.append(d)
    return kept


def table_order(dice: Sequence[DieReading]) -> list[DieReading]:
    """Dice in reading order: rows from the top, left to right within a row (row = one die's height)."""
    if not dice:
        return []
    side = float(np.median([d.box[3] - d.box[1] for d in dice])) or 1.0
    return sorted(dice, key=lambda d: (round(d.centre[1] / side), d.centre[0]))


def arrange_dice(dice: Sequence[DieReading]) -> list[DieReading]:
    """Dice as the filter keeps them: one reading per place, in table order."""
    return table_order(drop_overlaps(dice))


@dataclass(frozen=True)
class Settled:
    dice: tuple[Any, ...]  # the readings (dice for Paša, a board game's own readings otherwise)
    moved: bool


@dataclass
class StepResult:
    """What the filter made of one frame."""

    tracking: str  # "moving", "still" or "bad"
    readings: tuple[Any, ...] | None  # None when the frame was not read
    settled: Settled | None
    motion: float
    problem: str | None = None


class StabilityFilter:
    def __init__(self, reader: Callable[[np.ndarray], Sequence[Any]], *, motion_threshold: float = 2,
                 agree_frames: int = 3, motion_delta: int = 18, motion_frames: int = 2,
                 cover_share: float = 0.15,
                 same: Callable[[Sequence[Any], Sequence[Any]], bool] = agrees,
                 arrange: Callable[[Sequence[Any]], Sequence[Any]] = arrange_dice,
                 fuse: Callable[[Sequence[Sequence[Any]]], Sequence[Any]] | None = None,
                 fuse_frames: int = 10) -> None:
        self.reader = reader
        #: Reads of the still frames since the last motion (at most ``fuse_frames``), fused into one reading
        #: (``vision.fuse.fuse_frames`` for dice: a die in doubt in one frame may be sure over several).
        self.fuse = fuse
        self.fuse_frames = max(1, fuse_frames)
        self._still_reads: list[Sequence[Any]] = []
        self.same = same
        self.arrange = arrange
        self.motion_threshold = motion_threshold
        self.motion_delta = motion_delta
        self.agree_frames = agree_frames
        self.motion_frames = max(1, motion_frames)
        self.cover_share = cover_share
        self._previous: np.ndarray | None = None
        self._candidate: tuple[Any, ...] | None = None
        self._agree = 0
        self._settled: tuple[Any, ...] | None = None
        #: The last settled reading, kept through motion: what the next one is compared with.
        self._last: tuple[Any, ...] | None = None
        self._moved = False
        self._run = 0  # consecutive frames that differ from the still picture before them
        self._tracking = "still"
        self._seen_gone = False  # the tray was seen empty or covered since the last settled reading
        self._whole: np.ndarray | None = None  # a whole new picture, waiting for a second frame to agree

    def _same(self, a: Sequence[Any], b: Sequence[Any]) -> bool:
        """Two still frames agree: by ``same``, or, for fused dice, on everything but the doubts, which the
        fusion decides over all the frames (a die in doubt in every other frame must not keep the tray from
        settling, nor settle it on three frames that happen to agree)."""
        if self.fuse is not None and self.same is agrees:
            return agrees(a, b, doubts=False)
        return self.same(a, b)

    def _changed(self, a: np.ndarray, b: np.ndarray) -> float:
        return float(np.count_nonzero(np.abs(a - b) > self.motion_delta))

    def step(self, image: np.ndarray | None, read: Callable[[], Sequence[Any]] | None = None) -> StepResult:
        """Feed one frame; ``read`` (default: ``reader(image)``) is called only when the table is still."""
        if image is None or image.size == 0:
            return StepResult("bad", None, None, 0.0, "no picture")
        small = small_grey(image)
        problem = frame_problem(small)
        if problem is not None:
            return StepResult("bad", None, None, 0.0, problem)
        previous = self._previous
        motion = 0.0 if previous is None else self._changed(small, previous)
        if motion > WHOLE_CHANGE * small.size:
            whole, self._whole = self._whole, small
            if whole is None or self._changed(small, whole) > self.motion_threshold:
                return StepResult("bad", None, None, motion, "the whole picture changed at once (noise or corrupt)")
            self._run = self.motion_frames  # the same new picture twice: the scene really changed
        else:
            self._whole = None
        if motion > self.motion_threshold:
            self._run += 1
            if self._run < self.motion_frames:  # perhaps a spike: keep the still picture, wait for the next
                return StepResult(self._tracking, self._settled, None, motion, "motion not yet confirmed")
            self._previous = small
            self._candidate, self._agree = None, 0
            self._still_reads = []
            self._moved = True
            self._seen_gone = self._seen_gone or motion >= self.cover_share * small.size
            self._settled = None
            self._tracking = "moving"
            return StepResult("moving", None, None, motion)
        self._run = 0
        self._previous = small
        self._tracking = "still"
        if self._settled is not None:
            # Settled and nothing moved since: the same picture needs no second reading (CPU for the Pi).
            return StepResult("still", self._settled, None, motion)
        raw = read() if read is not None else self.reader(image)
        if self.fuse is not None:
            self._still_reads = [*self._still_reads[1 - self.fuse_frames:], raw] if self.fuse_frames > 1 else [raw]
            raw = self.fuse(self._still_reads)
        readings = tuple(self.arrange(raw))
        if not readings:
            self._seen_gone = True
        if self._candidate is not None and self._same(readings, self._candidate):
            self._agree += 1
        else:
            self._agree = 1
        self._candidate = readings
        settled = None
        if self._agree >= self.agree_frames and (self._settled is None or not self.same(readings, self._settled)):
            # Seen to move: motion, and the dice lie elsewhere (other faces), or the tray was empty or covered.
            changed = self._last is None or not self.same(readings, self._last)
            settled = Settled(readings, self._moved and (changed or self._seen_gone))
            self._settled = self._last = readings
            self._moved = self._seen_gone = False
        return StepResult("still", readings, settled, motion)
