"""The die reader: every die in a BGR image of dice seen from above, with its face, colour and confidences.

:class:`DiceRecognizer` wires the stages together: the detector (``vision.detect.DiceDetector`` unless one is
injected) finds candidates; :func:`vision.crop.crop_die` cuts each die upright; the face model reads the
32 px crop, the pip counter and the colour measure read a 48 px crop of the same die; doubtful dice get a
second look in the 4 quarter turns of their crop and of a tighter crop (:func:`vision.faces.second_look`), and
a die still under the floor a third look in the 4 turns of a looser crop (:meth:`DiceRecognizer._third_look`);
:func:`vision.faces.decide` turns model and pips into a value or an *unsure* die. Grey-scale, BGRA and 16-bit
images are accepted; a huge image is shrunk for the detector (dice are still cut from the full image); a frame
with nothing in it (black, white, one flat colour) gives no dice. :func:`load_image` reads a file or says clearly
why it cannot.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import replace
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.colour import Palette, load_palette, measure_bodies
from vision.crop import as_bgr, crop_die
from vision.faces import (
    LONE_PIP_HEARD_BELOW,
    NOT_A_DIE_FLOOR,
    PIP_CROP_SIZE,
    PIPS_HEARD_BELOW,
    SECOND_LOOK_BELOW,
    SURE_FLOOR,
    TIGHT_SIDE,
    TILT_MARGIN,
    FaceModel,
    PipReading,
    TiltModel,
    cocked_from_tilts,
    count_pips_batch,
    decide,
    load_tilt_model,
    pips_disagree,
    second_look,
    square_turns,
    valid_floor,
)
from vision.types import DieCandidate, DieReading

#: The views a doubtful die's second look averages (:func:`vision.faces.second_look`: its crop's 4 quarter turns and
#: the 4 of its crop cut at TIGHT_SIDE).
SECOND_LOOK_VIEWS = 8
#: The third look (issue 25): a die still under the floor after its second look is also read cut at this share of
#: its side (4 quarter turns), and the mean of its 12 views decides. The loosest crop the model is trained on
#: (side x 0.9..1.12), so it sees the die whole where the detector's box is a little tight. Chosen on rendered
#: dice (seeds 25001, 25002) and the Byler train split, never on val (``docs/vision.md``, "The third look").
LOOSE_SIDE = 1.1
#: The detector never sees an image with a longer side than this; larger ones are shrunk first.
MAX_DETECT_SIDE = 1600
#: Images whose grey values vary less than this (standard deviation) are empty frames.
FLAT_FRAME_STD = 3.0
#: Two finds are one die when the better one covers this share of the other's (or its own) footprint. On the
#: Byler photos two real dice's axis-aligned boxes share at most 0.38 of the smaller (train and val, issue 25);
#: their turned squares share less.
TWIN_OVERLAP = 0.5
#: A find the face model gives at least this chance of not being a die, with no pip layout on it, is dropped
#: (issue 25's die-ness check). Real dice on the Byler photos stay under 0.07 (train; val under 0.01); the tray's
#: round holes that the detector took for dice score 0.39 and 0.41.
DOUBTFUL_DIE = 0.3
#: A find with a side under this share of the other dice's median is marked unsure (the smallest real die on
#: the Byler photos is 0.61 of its photo's median, train; 0.68 val; a pip or a die's corner taken for a die is
#: about a third of one). Rendered scenes that mix dice of 18 and 60 px cross it; real tables do not.
SMALL_DIE_SHARE = 0.4
#: A find under this share of the side of a find it overlaps is a piece of that die, not a second box on it...
PIECE_SHARE = 0.75
#: ... when that die covers at least this share of the find's square: a phantom centred on a die's corner shares a
#: quarter. Of the detector's finds on all 150 Byler photos, a smaller die beside a larger one (side ratio under
#: 0.75) shares at most 0.16 of its square with it, and two dice of one size at most 0.25.
PIECE_OVERLAP = 0.2


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

    ``floor`` is the confidence below which a die is marked unsure (the device uses :data:`vision.faces.SURE_FLOOR`;
    other values are for measuring: ``python -m vision.lab.tune_check``, the trade-off curve of ``eval-dice``). Dice
    below :data:`vision.faces.SECOND_LOOK_BELOW` (or below ``floor``, if higher) get their second look first."""

    def __init__(
        self,
        detector: Detector | None = None,
        palette: str | Palette = "dice",
        threads: int = 1,
        faces: FaceModel | None = None,
        floor: float = SURE_FLOOR,
        third_look: tuple[float, ...] = (LOOSE_SIDE,),
        tilt: TiltModel | bool = False,
    ) -> None:
        self.floor = valid_floor(floor)
        #: The crops of the third look (:data:`LOOSE_SIDE`): shares of the side, each read in its 4 quarter turns;
        #: ``()`` reads none (the reader before issue 25's third look, for measuring).
        self.third_look = third_look
        self.palette = palette if isinstance(palette, Palette) else load_palette(palette)
        self.faces = faces if faces is not None else FaceModel(threads=threads)
        self.detector = detector if detector is not None else default_detector(threads)
        #: Issue 25's learnt cocked flag (``models/dice-tilt.onnx``), read when ``tilt`` is ``True`` or a model. Off by
        #: default (sessions 16 to 18): it catches about 65% of rendered dice leaning 15 degrees and flags 1.9% of
        #: the real train dice behind the detector (2 of val's 220 with session 18's model), and every game's reader
        #: was measured without it; whether a game wants leaning dice asked about at that price is the game's choice
        #: (``docs/vision.md``, "Session 18").
        self.tilt = tilt if isinstance(tilt, TiltModel) else (load_tilt_model(threads) if tilt else None)

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
            small, probabilities, not_die = small[keep], probabilities[keep], not_die[keep]
            if not found:
                return []
        # One die gives one reading: of two finds whose footprints overlap, the detector's better one is kept.
        twin_of = one_per_die(found)
        # A second box that read another face than the kept one makes that die unsure; a piece does not.
        twins = [(int(twin_of[j]), probabilities[j]) for j in np.nonzero((twin_of >= 0) & ~pieces(found, twin_of))[0]]
        if (twin_of >= 0).any():
            index = np.nonzero(twin_of < 0)[0]
            renumber = {int(old): new for new, old in enumerate(index)}
            twins = [(renumber[k], p) for k, p in twins]
            found = [found[i] for i in index]
            small, probabilities, not_die = small[index], probabilities[index], not_die[index]
        # A face model that reads pip-counter-sized crops shares them (one crop per die instead of two).
        if self.faces.size == PIP_CROP_SIZE:
            large = small
        else:
            large = np.stack([crop_die(image, c, PIP_CROP_SIZE) for c in found])
        pip_readings = count_pips_batch(large)
        # The die-ness check: a find the model gives a fair chance of not being a die (a tray's hole, a token),
        # with no pips in a die's layout on it, is not reported at all (real dice stay far below this share).
        die_like = (not_die < DOUBTFUL_DIE) | np.array([p.count is not None for p in pip_readings], bool)
        if not die_like.all():
            index = np.nonzero(die_like)[0]
            renumber = {int(old): new for new, old in enumerate(index)}
            twins = [(renumber[k], p) for k, p in twins if k in renumber]
            found = [found[i] for i in index]
            small, probabilities, not_die = small[die_like], probabilities[die_like], not_die[die_like]
            pip_readings = [pip_readings[i] for i in index]
            if not found:
                return []
        small_die = smaller_than_the_others(found)
        leaning = self._leaning(image, found)

        def tight(indices: np.ndarray) -> np.ndarray:
            return np.stack([crop_die(image, found[i].scaled(TIGHT_SIDE), self.faces.size) for i in indices])

        # The second look follows the floor (as SECOND_LOOK_BELOW does CONFIDENCE_FLOOR): no die is marked unsure
        # for low confidence before its other views were read.
        counts = [p.count for p in pip_readings]
        probabilities = second_look(self.faces, small, probabilities, counts, max(self.floor, SECOND_LOOK_BELOW), tight)
        probabilities = self._third_look(image, found, probabilities)
        # A die whose dropped twin box read another face is unsure: which box was the die is not certain.
        disputed = {k for k, p in twins if int(np.argmax(p)) != int(np.argmax(probabilities[k]))}
        labs = measure_bodies(np.stack([p.lab for p in pip_readings]), np.stack([p.pip_mask for p in pip_readings]))
        named = self.palette.nearest_each(labs)
        readings = []
        for i, (candidate, probs, pips, lab, none) in enumerate(
            zip(found, probabilities, pip_readings, labs, not_die, strict=True)
        ):
            if leaning[i] and not pips.cocked:  # cocked only ever adds a doubt
                pips = replace(pips, cocked=True)
            decision = decide(probs, pips, self.faces.values, self.floor, PIPS_HEARD_BELOW, LONE_PIP_HEARD_BELOW)
            doubts = doubts_of(decision.confidence, decision.value, pips, self.floor)
            doubts += ("a second box read another face",) if i in disputed else ()
            doubts += ("smaller than the other dice",) if small_die[i] else ()
            colour, colour_distance = named[i]
            readings.append(
                DieReading(
                    box=candidate.box,
                    centre=candidate.centre,
                    angle=candidate.angle,
                    value=decision.value,
                    colour=colour,
                    confidence=decision.confidence,
                    unsure=decision.unsure or bool(doubts),
                    cocked=pips.cocked,
                    colour_distance=colour_distance,
                    lab=lab,
                    pips=pips.count,
                    detector_score=candidate.score,
                    probabilities=tuple(float(p) for p in probs),
                    not_die=float(none),
                    doubts=doubts,
                )
            )
        return readings

    def _leaning(self, image: np.ndarray, found: list[DieCandidate]) -> np.ndarray:
        """(N,) bool: the dice that the tilt model sees standing out of their table's field (cocked), read in one
        batch of loose crops; all ``False`` without a tilt model."""
        if self.tilt is None or not found:
            return np.zeros(len(found), bool)
        crops = np.stack([crop_die(image, c, self.tilt.size, TILT_MARGIN) for c in found])
        positions = np.array([c.centre for c in found], np.float64)
        angles = np.array([c.angle for c in found], np.float64)
        return cocked_from_tilts(positions, self.tilt.read(crops), angles, (image.shape[1], image.shape[0]))

    def _third_look(self, image: np.ndarray, found: list[DieCandidate], probabilities: np.ndarray) -> np.ndarray:
        """The face probabilities with each die still under the floor after its second look (8 views) read in
        the 4 quarter turns of each crop of :attr:`third_look` too, and the mean of all the views kept. Every die
        under the floor had its second look (it follows the floor), so its row is a mean of 8 views. A die under
        0.80 after 8 views cannot reach 0.95 with 4 more, so a reader that trusts only 0.95 (the games') decides
        as before."""
        below = np.nonzero(probabilities.max(axis=1) < self.floor)[0]
        if len(below) == 0 or not self.third_look:
            return probabilities
        crops = np.stack([crop_die(image, found[i].scaled(s), self.faces.size) for s in self.third_look for i in below])
        more = self.faces.probabilities(square_turns(crops)).reshape(-1, len(below), probabilities.shape[1])
        out = probabilities.copy()
        out[below] = (probabilities[below] * SECOND_LOOK_VIEWS + more.sum(axis=0)) / (SECOND_LOOK_VIEWS + len(more))
        return out


def doubts_of(confidence: float, value: int, pips: PipReading, floor: float) -> tuple[str, ...]:
    """Every reason :func:`vision.faces.decide` has to mark a die unsure, not only the first."""
    doubts: tuple[str, ...] = ("low confidence",) if confidence < floor else ()
    if pips_disagree(pips.count, value, confidence, PIPS_HEARD_BELOW, LONE_PIP_HEARD_BELOW):
        doubts += (f"pip count says {pips.count}",)
    return doubts + (("cocked",) if pips.cocked else ())


def footprint(candidate: DieCandidate) -> np.ndarray:
    """The four corners (4, 2) of the square a die covers, as found."""
    rect = (candidate.centre, (candidate.side, candidate.side), candidate.angle)
    return cv2.boxPoints(rect).astype(np.float32)


def one_per_die(found: list[DieCandidate], overlap: float = TWIN_OVERLAP) -> np.ndarray:
    """Footprint non-maximum suppression: for each find, the index of the find kept in its place, or -1 when it
    is kept. A find clearly smaller than another (under :data:`PIECE_SHARE` of its side) that shares at least
    :data:`PIECE_OVERLAP` of its square with it is a piece of that die (a pip or a corner read as a "1") and goes
    whatever its score; of two finds of about one size whose squares share at least ``overlap`` of the smaller,
    the one the detector scores higher stays (a second box on a die). Dice side by side, or one leaning on
    another, share a sliver."""
    n = len(found)
    twin_of = np.full(n, -1, np.int64)
    if n < 2:
        return twin_of
    centres = np.array([c.centre for c in found], np.float64)
    sides = np.array([c.side for c in found], np.float64)
    # Squares farther apart than their half diagonals cannot touch: most photos have no pair that is near.
    reach = (sides[:, None] + sides[None, :]) * 0.71
    near = ((centres[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2) < reach * reach
    np.fill_diagonal(near, False)
    if not near.any():
        return twin_of
    corners: dict[int, np.ndarray] = {}

    def overlaps(i: int, k: int, share: float = overlap) -> bool:
        if not near[i, k]:
            return False
        for j in (i, k):
            if j not in corners:
                corners[j] = footprint(found[j])
        shared, _ = cv2.intersectConvexConvex(corners[i], corners[k])
        return bool(shared >= share * min(sides[i], sides[k]) ** 2)

    by_size = sorted(range(n), key=lambda i: (-found[i].side, i))
    for rank, i in enumerate(by_size):
        for k in by_size[:rank]:
            piece = near[i, k] and twin_of[k] < 0 and found[i].side < PIECE_SHARE * found[k].side
            if piece and overlaps(i, k, PIECE_OVERLAP):
                twin_of[i] = k
                break
    kept: list[int] = []
    for i in sorted(range(n), key=lambda i: (-found[i].score, i)):
        if twin_of[i] >= 0:
            continue
        twin = next((k for k in kept if overlaps(i, k)), -1)
        if twin >= 0:
            twin_of[i] = twin
        else:
            kept.append(i)
    return twin_of


def pieces(found: list[DieCandidate], twin_of: np.ndarray) -> np.ndarray:
    """Which finds :func:`one_per_die` dropped as a piece of a larger die (not as a second box of one size)."""
    return np.array([k >= 0 and found[i].side < PIECE_SHARE * found[k].side for i, k in enumerate(twin_of)], bool)


def smaller_than_the_others(found: list[DieCandidate], share: float = SMALL_DIE_SHARE) -> np.ndarray:
    """For each find: is its side under ``share`` of the median side of the finds (needs 4 or more)? Dice at one
    table are one size, so a much smaller find is a piece of something (a pip, a corner) or not a die."""
    sides = np.array([c.side for c in found], np.float64)
    if len(sides) < 4:
        return np.zeros(len(sides), bool)
    return np.asarray(sides < share * float(np.median(sides)), bool)


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
