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
something moves. ``moved`` says
whether anything moved since the previous settled reading (the start of the process does not count).

Frames that carry no picture (black, white, flat, or failed to decode) change nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
    return None


def agrees(a: Sequence[DieReading], b: Sequence[DieReading], tolerance: float = 0.25) -> bool:
    """Whether two readings say the same: equal labels, each die matched to one within ``tolerance`` sides."""
    if len(a) != len(b):
        return False
    left = list(b)
    for d in a:
        side = max(d.box[2] - d.box[0], d.box[3] - d.box[1], 1.0)
        match = next(
            (o for o in left
             if (o.value, o.colour, o.cocked, o.unsure) == (d.value, d.colour, d.cocked, d.unsure)
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


@dataclass(frozen=True)
class Settled:
    dice: tuple[DieReading, ...]
    moved: bool


@dataclass
class StepResult:
    """What the filter made of one frame."""

    tracking: str  # "moving", "still" or "bad"
    readings: tuple[DieReading, ...] | None  # None when the frame was not read
    settled: Settled | None
    motion: float
    problem: str | None = None


class StabilityFilter:
    def __init__(self, reader: Callable[[np.ndarray], Sequence[DieReading]], *, motion_threshold: float = 2,
                 agree_frames: int = 3, motion_delta: int = 18) -> None:
        self.reader = reader
        self.motion_threshold = motion_threshold
        self.motion_delta = motion_delta
        self.agree_frames = agree_frames
        self._previous: np.ndarray | None = None
        self._candidate: tuple[DieReading, ...] | None = None
        self._agree = 0
        self._settled: tuple[DieReading, ...] | None = None
        self._moved = False

    def step(self, image: np.ndarray | None, read: Callable[[], Sequence[DieReading]] | None = None) -> StepResult:
        """Feed one frame; ``read`` (default: ``reader(image)``) is called only when the table is still."""
        if image is None or image.size == 0:
            return StepResult("bad", None, None, 0.0, "no picture")
        small = small_grey(image)
        problem = frame_problem(small)
        if problem is not None:
            return StepResult("bad", None, None, 0.0, problem)
        previous, self._previous = self._previous, small
        motion = 0.0 if previous is None else float(np.count_nonzero(np.abs(small - previous) > self.motion_delta))
        if motion > self.motion_threshold:
            self._candidate, self._agree = None, 0
            self._moved = True
            self._settled = None
            return StepResult("moving", None, None, motion)
        if self._settled is not None:
            # Settled and nothing moved since: the same picture needs no second reading (CPU for the Pi).
            return StepResult("still", self._settled, None, motion)
        readings = tuple(table_order(drop_overlaps(read() if read is not None else self.reader(image))))
        if self._candidate is not None and agrees(readings, self._candidate):
            self._agree += 1
        else:
            self._agree = 1
        self._candidate = readings
        settled = None
        if self._agree >= self.agree_frames and (self._settled is None or not agrees(readings, self._settled)):
            settled = Settled(readings, self._moved)
            self._settled = readings
            self._moved = False
        return StepResult("still", readings, settled, motion)
