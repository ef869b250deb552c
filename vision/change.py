"""What changed on a settled table since the table the game last agreed with.

The board games' readers see the same settled table over and over, and between two settled tables a turn
changes only a few places: one quarry position and one slot, a domino's cells, the dice on a card. A reader that
reads every place afresh each time doubts about all of them each time, and pays for all of them; one that knows
which places did not change can keep the game's belief there (sure: the table is as it was when the game agreed
with it) and read only the rest.

`ChangeGate` owns that comparison. It holds, per place (any hashable key the reader chooses), the *reference*
patch: the place as it looked in the frame the game's belief describes. Each new frame's patches are compared
with it; a reader proposes the patches it just read, and when the game's belief is updated from that frame (a
turn explained, the players' answer, a correction) the adapter accepts them as the new reference.

The comparison errs towards "changed": a false "unchanged" would carry the belief over a die that was turned, a
silent misread, while a false "changed" only costs a reading. So the score is the largest *local* difference
(a pip-sized window), not a mean that a small change hides in; and the measured nuisances are taken out first:
sensor noise and JPEG (a light blur), a small misplacement of the patch (the best of a few pixel shifts), a change
of exposure or white balance across the table (one gain per channel from all the places), and a smooth change of
light over one place (its mean difference). A die of another colour with the same face still shows as a change,
because its pips keep their colour while its body moves. Patches of one key must have one shape.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

import cv2
import numpy as np

Key = TypeVar("Key", bound=Hashable)

#: Default score above which a place counts as changed (levels of 0-255, the largest mean difference over a
#: window of WINDOW px).
#: a pip appearing or going gives 40 or more.
THRESHOLD = 32.0
#: The window of the local difference, in px of the patch (about a pip at the readers' 2 px/mm).
WINDOW = 5
#: The largest misplacement, in px, that is forgiven.
SHIFT = 2
#: How many whole shifts, ranked by correlation, get a local score when the patch in place differs.
RANKED_SHIFTS = 3
#: Above this many thresholds after the whole shifts, the half-pixel shifts are not tried (the place changed).
HALF_SHIFT_CUTOFF = 2.0
#: A global gain per channel is estimated only from at least this many places (too few: no gain is taken).
MIN_PLACES_FOR_GAIN = 4


def _prepare(patch: np.ndarray) -> np.ndarray:
    """A patch as float32 with three channels, lightly blurred (noise and JPEG blocks averaged away)."""
    array = np.asarray(patch)
    if array.ndim == 2:
        array = array[:, :, None]
    out = array.astype(np.float32)
    return cv2.GaussianBlur(out, (0, 0), 0.8).reshape(out.shape)


class ChangeGate:
    """Which places of a table changed since the reference frame (see the module docstring)."""

    def __init__(self, threshold: float = THRESHOLD, window: int = WINDOW, shift: int = SHIFT) -> None:
        if threshold <= 0 or window < 1 or shift < 0:
            raise ValueError("threshold must be positive, window at least 1 and shift not negative")
        self.threshold = threshold
        self.window = window
        self.shift = shift
        self._shifts = sorted(
            ((dx, dy) for dy in range(-shift, shift + 1) for dx in range(-shift, shift + 1)),
            key=lambda d: abs(d[0]) + abs(d[1]),
        )
        self._reference: dict[Hashable, np.ndarray] = {}
        self._pending: dict[Hashable, np.ndarray] = {}

    def has_reference(self, key: Hashable) -> bool:
        return key in self._reference

    def _gain(self, current: Mapping[Key, np.ndarray]) -> np.ndarray:
        """One gain per channel that maps the reference's light to the current frame's (median over places)."""
        ratios = []
        for key, patch in current.items():
            ref = self._reference.get(key)
            if ref is None or ref.shape != patch.shape:
                continue
            mean_ref = np.array(cv2.mean(ref)[: ref.shape[2]])
            mean_now = np.array(cv2.mean(patch)[: patch.shape[2]])
            if np.all(mean_ref > 8):
                ratios.append(mean_now / mean_ref)
        if len(ratios) < MIN_PLACES_FOR_GAIN:
            return np.ones(1, np.float32)
        return np.clip(np.median(np.array(ratios), axis=0), 0.5, 2.0).astype(np.float32)

    def _local(self, now: np.ndarray, moved: np.ndarray) -> float:
        # OpenCV's arithmetic on the (strided) patches: numpy's over their last axis of three channels takes twice
        # as long; the float32 operations are the same.
        diff = cv2.subtract(now, moved)
        if diff.ndim == 2:
            diff = diff[:, :, None]
        # A smooth change of light over the place moves every pixel alike: its mean difference.
        mean = np.asarray(cv2.mean(diff)[: diff.shape[2]], np.float32)
        diff = cv2.subtract(diff, (*(float(v) for v in mean), 0.0)).reshape(diff.shape)
        np.abs(diff, out=diff)
        channels = cv2.split(diff)
        largest = channels[0]
        for channel in channels[1:]:
            largest = cv2.max(largest, channel)
        return float(cv2.minMaxLoc(cv2.blur(largest, (self.window, self.window)))[1])

    def _score(self, now: np.ndarray, ref: np.ndarray, gain: np.ndarray) -> float:
        s = min(self.shift, (min(now.shape[:2]) - 1) // 4)
        h, w = now.shape[:2]
        inner = now[s : h - s, s : w - s]
        scaled = ref if bool(np.all(gain == 1.0)) else cv2.multiply(ref, (*(float(g) for g in gain), 0.0))
        scaled = scaled.reshape(ref.shape)
        # Unchanged places are the common case: in place first. The search stops as soon as a shift shows the place
        # unchanged (its score then bounds the lowest from above: the verdict is the same).
        best, at = self._local(inner, scaled[s : h - s, s : w - s]), (0, 0)
        if best <= self.threshold or s == 0:
            return best
        # Then the whole shifts the patches' correlation ranks best (one matchTemplate for all of them, instead of
        # a local score for each). Ranking may skip the shift that would score lowest, which can only call a
        # place changed that is not: a reading wasted, never a change missed.
        match = cv2.matchTemplate(scaled, np.ascontiguousarray(inner), cv2.TM_CCOEFF_NORMED)
        order = np.argsort(-match, axis=None)
        tried = 0
        for flat in order.tolist():
            dy, dx = divmod(flat, match.shape[1])
            dx, dy = dx - s, dy - s
            if (dx, dy) == (0, 0):
                continue
            score = self._local(inner, scaled[s + dy : h - s + dy, s + dx : w - s + dx])
            if score < best:
                best, at = score, (dx, dy)
            if best <= self.threshold:
                return best
            tried += 1
            if tried == RANKED_SHIFTS:
                break
        # A patch cut half a pixel from where it was leaves a band at every edge: try the half-pixel shifts
        # around the best whole one before calling it changed, unless no half pixel could explain the difference
        # (on renders the half shifts brought at most 49 down to the threshold; another face scores 140 or more).
        if best > HALF_SHIFT_CUTOFF * self.threshold:
            return best
        for hy in (-0.5, 0.0, 0.5):
            for hx in (-0.5, 0.0, 0.5):
                if hx == hy == 0.0:
                    continue
                m = np.array([[1, 0, -(at[0] + hx)], [0, 1, -(at[1] + hy)]], np.float32)
                moved = cv2.warpAffine(scaled, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                moved = moved.reshape(scaled.shape)[s : h - s, s : w - s]
                best = min(best, self._local(inner, moved))
                if best <= self.threshold:
                    return best
        return best

    def compare(self, patches: Mapping[Key, np.ndarray]) -> dict[Key, float]:
        """Each place's change score against the reference (0: the same); inf for a place with no reference. A
        score above the threshold is the lowest over every shift tried; one at or under it is the first shift
        found under it (the place is unchanged, whatever the other shifts would give)."""
        current = {key: _prepare(patch) for key, patch in patches.items()}
        gain = self._gain(current)
        scores: dict[Key, float] = {}
        for key, now in current.items():
            ref = self._reference.get(key)
            scores[key] = np.inf if ref is None or ref.shape != now.shape else self._score(now, ref, gain)
        return scores

    def changed(self, patches: Mapping[Key, np.ndarray]) -> dict[Key, bool]:
        """Each place: changed (or never seen) since the reference frame?"""
        return {key: score > self.threshold for key, score in self.compare(patches).items()}

    def propose(self, patches: Mapping[Key, np.ndarray]) -> None:
        """The patches of the frame just read; they become the reference only when `accept` says so."""
        self._pending.update({key: _prepare(patch) for key, patch in patches.items()})

    def accept(self) -> None:
        """The game's belief now describes the frame last proposed: its patches are the reference."""
        self._reference.update(self._pending)
        self._pending = {}

    def discard(self) -> None:
        """Forget the proposed patches (the frame they came from was not agreed with)."""
        self._pending = {}

    def reset(self, keys: Iterable[Hashable] | None = None) -> None:
        """Forget the reference of these places (all when None): a board moved, the mats re-registered, a new game."""
        if keys is None:
            self._reference.clear()
            self._pending.clear()
            return
        for key in list(keys):
            self._reference.pop(key, None)
            self._pending.pop(key, None)
