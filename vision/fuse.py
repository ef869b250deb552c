"""Several still frames of the same settled dice, read as one: the multi-frame fusion of issue 25.

At the table the camera sees the same settled dice in many frames, and a die whose pips are only 4 to 7 px is
read a little differently in each (sensor noise, the auto-exposure's flicker, a pixel's shift of the sampling).
:func:`fuse_frames` takes the die reader's readings of a few still frames (each a list of
:class:`vision.types.DieReading`, oldest first), pairs each die of the latest frame with the nearest die of every
other frame (its centre within half a die's side), and averages their face probabilities: the fused value is
the most probable face of the mean and its confidence that mean's share. A die is *unsure* when

* the fused confidence is below ``floor`` (the die reader's :data:`vision.faces.SURE_FLOOR`);
* two frames read it surely as different faces (the table changed, or the reader cannot tell);
* it is missing from half the frames or more (it moved, or it is a find of one frame only);
* in any frame it was unsure for another reason than confidence (a pip count that disagreed, cocked, a twin box),
  or any frame's pip count is not the fused face (unless the fused confidence passes
  :data:`vision.faces.PIPS_HEARD_BELOW`, or the count is a lone pip against a fused confidence of
  :data:`vision.faces.LONE_PIP_HEARD_BELOW`, as in one frame: :func:`vision.faces.pips_disagree`).

So fusion can only turn a die that was doubtful for lack of confidence into a sure one when the frames agree,
never a doubt of another kind. Readings without probabilities (older producers) are fused by their value and
confidence alone. The stability filter of the device (``device/stability.py``) decides when the table is still;
this module only fuses what it is handed::

    from vision.fuse import fuse_frames
    dice = fuse_frames([reader.read(frame) for frame in still_frames[-3:]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.faces import LONE_PIP_HEARD_BELOW, PIPS_HEARD_BELOW, SURE_FLOOR, pips_disagree
from vision.types import DieReading

#: Two readings in consecutive frames are the same die when their centres are closer than this share of its side.
SAME_DIE_REACH = 0.5


def _side(reading: DieReading) -> float:
    x0, y0, x1, y1 = reading.box
    return max(min(x1 - x0, y1 - y0), 1.0)


def _probabilities(reading: DieReading) -> np.ndarray:
    """The six face probabilities of a reading, or a stand-in from its value and confidence."""
    if len(reading.probabilities) == 6:
        return np.asarray(reading.probabilities, np.float64)
    p = np.full(6, (1.0 - reading.confidence) / 5.0)
    p[reading.value - 1] = reading.confidence
    return p


def _doubted_otherwise(reading: DieReading, floor: float) -> bool:
    """Was the reading unsure for another reason than its confidence (which the fusion re-decides)? Its
    ``doubts`` say; a reading without them (an older producer) that is unsure while confident was."""
    if reading.doubts:
        return any(d != "low confidence" for d in reading.doubts)
    return reading.unsure and reading.confidence >= floor


def match_frames(frames: Sequence[Sequence[DieReading]]) -> list[list[DieReading | None]]:
    """For each die of the latest frame, its reading in every frame (oldest first; ``None`` where it is missing):
    the nearest reading within :data:`SAME_DIE_REACH` of its side, each reading used once per frame."""
    if not frames:
        return []
    latest = list(frames[-1])
    tracks: list[list[DieReading | None]] = [[None] * len(frames) for _ in latest]
    for i, die in enumerate(latest):
        tracks[i][-1] = die
    for f, frame in enumerate(frames[:-1]):
        pairs = []
        for i, die in enumerate(latest):
            reach = SAME_DIE_REACH * _side(die)
            for j, other in enumerate(frame):
                d = math.hypot(die.centre[0] - other.centre[0], die.centre[1] - other.centre[1])
                if d <= reach:
                    pairs.append((d, i, j))
        used_i: set[int] = set()
        used_j: set[int] = set()
        for _, i, j in sorted(pairs):
            if i not in used_i and j not in used_j:
                used_i.add(i)
                used_j.add(j)
                tracks[i][f] = frame[j]
    return tracks


def fuse_frames(frames: Sequence[Sequence[DieReading]], floor: float = SURE_FLOOR) -> list[DieReading]:
    """The dice of the latest of ``frames`` (each one frame's readings, oldest first), each with its face fused
    over every frame it is seen in (see the module's rules). One frame gives its readings back re-decided only
    by the same rules (a reading is never made surer than it was by fusing it with itself alone)."""
    if not frames:
        return []
    if len(frames) == 1:
        return list(frames[0])
    fused = []
    for track in match_frames(frames):
        seen = [r for r in track if r is not None]
        latest = track[-1]
        assert latest is not None
        mean = np.mean([_probabilities(r) for r in seen], axis=0)
        best = int(np.argmax(mean))
        confidence = float(mean[best])
        sure_values = {r.value for r in seen if not r.unsure}
        unsure = (
            confidence < floor
            or len(sure_values) > 1
            or 2 * len(seen) <= len(frames)
            or any(_doubted_otherwise(r, floor) for r in seen)
            or any(pips_disagree(r.pips, best + 1, confidence, PIPS_HEARD_BELOW, LONE_PIP_HEARD_BELOW) for r in seen)
        )
        cocked = sum(r.cocked for r in seen) * 2 > len(seen)
        fused.append(
            replace(
                latest,
                value=best + 1,
                confidence=confidence,
                unsure=bool(unsure or cocked),
                cocked=bool(cocked),
                probabilities=tuple(float(v) for v in mean),
            )
        )
    return fused
