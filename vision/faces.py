"""Reading a die's top face: the ONNX face model, the classical pip count that second-guesses it, and the rule
that turns the two into a value or an honest "unsure".

The face model (``models/dice-face.onnx``, card ``dice-face.card.json``) reads a square crop (its side is in
the card) cut by :func:`vision.crop.crop_die` and gives a probability per face. The pip count is independent: it
looks for round blobs that differ from the die's body colour on a larger crop of the same die and abstains
(``None``) when what it sees is not a clean set of 1 to 6 pips. A die is *unsure* when the model's confidence
is below :data:`CONFIDENCE_FLOOR`, when the pip count disagrees with the model, or when the die is cocked.
A die the model is not quite sure of (top probability below :data:`SECOND_LOOK_BELOW`) or whose pip count
disagrees gets a *second look* (:func:`second_look`): the model reads its crop in its 4 quarter turns (they keep a
face's value; the model was trained with them), and the same die cut tighter (:data:`TIGHT_SIDE`) in its 4 turns,
and the average of the 8 views is what :func:`decide` sees.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import MODELS_DIR
from vision.modelcard import ModelCard, load_model
from vision.types import PIP_LAYOUT  # the layout the renderer draws: one definition, in the runtime

MODEL_NAME = "dice-face"
#: Below this top probability the model's answer is not trusted on its own. Chosen on the tune fold with three
#: seeds of the held-out model (``docs/vision.md``): from 0.90 to 0.95 the wrong values left sure fall from 13 to 4
#: (labelled boxes, detector finds and jittered crops together) for about 2 more points of unsure dice.
CONFIDENCE_FLOOR = 0.95
#: The die reader's floor (``DiceRecognizer``'s default; issue 25): below it a die is unsure. Chosen on the
#: trade-off curve (``docs/vision-results/tradeoff.csv``, ``docs/vision.md`` "Asking less"): the lowest floor at
#: which every confidence bin above it read 100% right on the Byler val and train dice and on 1,200 plain rendered
#: dice no model saw, with a margin of 0.16 over the most confident wrong value on val (0.64). The games' own
#: readers keep :data:`CONFIDENCE_FLOOR` until measured on their renders.
SURE_FLOOR = 0.80
#: A pip count that disagrees with a model at least this sure after its second look (8 views averaged) is the
#: counter's mistake, not the model's: on the Byler photos the counter disagreed with such a model 8 times
#: (val 3, train 5) and was wrong all 8; on 2,402 held-out rendered dice this rule makes no wrong value sure. The
#: Dice Treasure reader's rule (and the die reader's until session 15: :data:`PIPS_HEARD_BELOW`).
PIPS_OVERRULED_ABOVE = 0.999
#: The die reader (:class:`vision.recognize.DiceRecognizer`) hears a disagreeing pip count only from a model less
#: sure than this after its second look (the games' floor, :data:`CONFIDENCE_FLOOR`); the Dice Treasure reader
#: keeps :data:`PIPS_OVERRULED_ABOVE`. Session 15, chosen on the Byler train split and rendered seeds 25001 (plain)
#: and 25002 (hard), checked on fresh seeds 25201 and 25202: of the 33 dice where the counter disagreed with a
#: model at 0.95 or more (22 on the tuning sets, 11 on the check seeds) the model was right every time and the
#: counter never, so the rule leaves no wrong value sure on any of them while the train split's labelled dice ask
#: 18 instead of 30 (of 805) and the renders 2 to 8 fewer of 1,200. Below 0.95 the counter still earns its place:
#: two hard rendered dice the model read wrong at 0.82 and 0.89 were kept unsure by it alone.
PIPS_HEARD_BELOW = CONFIDENCE_FLOOR
#: A pip count of one (a lone blob) that disagrees with a model at least this sure is the counter's miss, and the die
#: reader does not hear it (session 19; below this floor the die is unsure for its confidence anyway). On faint,
#: dark or swirled pips the counter often sees only the most contrasted one: chosen on the Byler train split and the
#: rendered tuning seeds 25001 to 25003 (plain and hard) and 27501 (hard), before val was read: of the 23 dice where
#: the counter said 1 against a model at 0.80 to 0.95 the model was right every time and the counter never (train 2,
#: renders 21), while a count of 2 or more was once right against such a model (a hard render of a 2 read 5), so
#: only the lone blob is overruled (``docs/vision.md``, "Session 19").
LONE_PIP_HEARD_BELOW = SURE_FLOOR
#: A candidate the model says is not a die with at least this probability is dropped (a detector's false find).
NOT_A_DIE_FLOOR = 0.90
#: A top face this much longer than wide means the die leans steeply (tipped by 50 degrees: 1.56x). Milder
#: leans (15..35 degrees: 1.04..1.22x) are within what flat dice measure, so they are not flagged by this. Measured
#: (session 15, ``python -m vision.lab.evaluate``): it flags 2% of rendered dice at 45 degrees and 4% at 50 (the
#: patch of body colour takes in side faces and breaks at pips), and 7 of 1,026 flat labelled Byler dice.
COCKED_ELONGATION = 1.6
#: Below this top probability (or when the pip count disagrees) a die is read again in its other 3 quarter turns
#: and the mean of all 4 kept. Chosen on the Byler train split and on held-out rendered dice (never on val): a
#: second look at these dice only (6% of train dice, 5% of rendered ones) fixes the same errors as reading every
#: die several times, where a floor of 0.99 looks at 2.5x as many dice for nothing more. With one network the 8
#: turns and mirrors fixed a little more than the 4 turns (train 4 and 5 wrong of 806, rendered 18 and 20 of
#: 1207); with the two averaged networks of the seventh round the 4 turns do as well as the 8 on the tune fold
#: (8 held-out pairs: 43 against 44 labelled dice wrong, 22 and 22 finds, 4 and 4 wrong and sure) for half the
#: reads. It follows the confidence floor, so that no die is marked unsure without its second look.
SECOND_LOOK_BELOW = CONFIDENCE_FLOOR
#: The second look also reads the die cut at this share of the side it was found with: the tightest crop the
#: model is trained on (``vision.lab.read_train.jittered_candidate``: side x 0.9..1.12). A labelled or found box bounds
#: the die's side faces too when the camera is not straight above it, and their pips, or a neighbour's, in the
#: crop are a kind of error every model made. Chosen on the tune fold with the 8 held-out pairs of the seventh
#: round (``docs/vision.md``, "The tighter second look"): labelled boxes 43 -> 29 wrong, detector finds 22 -> 16
#: (29 -> 26 behind a detector that never saw those photos), rendered dice 115 -> 106, no more wrong and sure.
TIGHT_SIDE = 0.9
#: The pip counter reads a larger crop than the model (pips are 4 to 7 px on the smallest dice).
PIP_CROP_SIZE = 48
#: The tilt model (issue 25's learnt cocked flag, ``models/dice-tilt.onnx``, trained by ``vision.lab.read_tilt``)
#: reads this loose crop (the square of 1.8 x the die's side, so that side faces are in view); its side in pixels is
#: the model's own (its card's input shape, :attr:`TiltModel.size`): 32 until session 17, 48 since session 18.
TILT_MODEL_NAME = "dice-tilt"
TILT_MARGIN = 0.8
TILT_CROP_SIZE = 48
#: A die whose tilt stands out of its table's field by more than this is cocked (:func:`table_field_residuals`;
#: sin(15 degrees) is 0.26). Chosen on rendered scenes of seed 27102 (``python -m vision.lab.evaluate
#: --tilt-thresholds``) and the Byler train split's labelled dice (nearly all flat), sessions 17 and 18 (27002 in
#: session 16, the same limit each time): the lowest limit that flags at most 2% of the flat rendered dice (1.25% with
#: session 18's 48 px model) and under 1% of the real ones (5 of 806); 0.15 would catch 94% of rendered leans of 15 to
#: 20 degrees instead of 69%, but flag 9% and 5% of flat dice.
COCKED_TILT = 0.25
#: Fraction of the pip crop's side that the die itself spans (the crop rule adds CROP_MARGIN around it).
_DIE_SPAN = 1.0 / 1.25


class FaceModel:
    """The face CNN, loaded once. :meth:`read` takes (N, S, S, 3) uint8 BGR crops.

    Its labels are the faces ``"1"``..``"6"`` and, in models trained with non-dice crops, ``"none"``: the crop
    is not centred on a die (bare table, a tray edge, a detector's false find)."""

    def __init__(self, threads: int = 1, models_dir: Path = MODELS_DIR) -> None:
        self.session, self.card = load_model(MODEL_NAME, models_dir, threads=threads)
        self.input_name = self.session.get_inputs()[0].name
        # The crop side is the model's own (its card says it); the crop rule is the same at every size.
        self.size = int(self.card.input_shape[-1])
        if self.size < 16 or self.card.input_shape[-2] != self.size:
            raise ValueError(f"face model input {list(self.card.input_shape)} is not a square crop of 16 px or more")
        labels = self.card.labels
        if [label for label in labels if label != "none"] != [str(v) for v in range(1, 7)]:
            raise ValueError(f"face model labels {list(labels)} are not the faces 1..6 (and 'none')")
        self.values = (1, 2, 3, 4, 5, 6)
        self.face_columns = [i for i, label in enumerate(labels) if label != "none"]
        self.none_column = labels.index("none") if "none" in labels else None

    @property
    def model_card(self) -> ModelCard:
        return self.card

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, 6) face probabilities, columns in the order of ``values`` (1..6). With a "none" label they are
        the faces' shares of the whole softmax, so they add up to 1 - p(not a die)."""
        return self.read(crops)[0]

    def label_probabilities(self, inputs: np.ndarray) -> np.ndarray:
        """(N, labels) the network's softmax for an input batch made by :func:`crops_to_input`."""
        return softmax(np.asarray(self.session.run(None, {self.input_name: inputs})[0], np.float32))

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 6) face probabilities as :meth:`probabilities`, and (N,) the probability of "not a die"."""
        if len(crops) == 0:
            return np.zeros((0, 6), np.float32), np.zeros(0, np.float32)
        p = self.label_probabilities(crops_to_input(crops))
        not_die = p[:, self.none_column] if self.none_column is not None else np.zeros(len(p), np.float32)
        return p[:, self.face_columns], not_die


class TiltModel:
    """The tilt model (issue 25's learnt cocked flag), loaded once: :meth:`read` takes (N, S, S, 3) uint8 BGR crops
    cut at :data:`TILT_MARGIN` and gives (N, 2) where each die's top face points as the camera sees it, in the
    crop's frame (:func:`vision.lab.render.apparent_tilt`); :func:`cocked_from_tilts` turns a frame's readings into
    flags. Trained on rendered dice only (``vision.lab.read_tilt``)."""

    def __init__(self, threads: int = 1, models_dir: Path = MODELS_DIR) -> None:
        self.session, self.card = load_model(TILT_MODEL_NAME, models_dir, threads=threads)
        self.input_name = self.session.get_inputs()[0].name
        # The crop side is the model's own (its card says it), as the face model's.
        self.size = int(self.card.input_shape[-1])
        if self.size < 16 or self.card.input_shape[-2] != self.size:
            raise ValueError(f"tilt model input {list(self.card.input_shape)} is not a square crop of 16 px or more")

    def read(self, crops: np.ndarray) -> np.ndarray:
        if len(crops) == 0:
            return np.zeros((0, 2), np.float32)
        return np.asarray(self.session.run(None, {self.input_name: crops_to_input(crops)})[0], np.float32)


def load_tilt_model(threads: int = 1, models_dir: Path = MODELS_DIR) -> TiltModel | None:
    """The tilt model, or ``None`` where this build has none (then only the elongation rule flags cocked dice)."""
    if not (models_dir / f"{TILT_MODEL_NAME}.card.json").exists():
        return None
    return TiltModel(threads=threads, models_dir=models_dir)


def to_image_frame(tilts: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Tilts (N, 2) read in crops cut at ``angles`` (degrees) in the image's frame: crop_die maps a crop offset d
    to the image offset R(angle) d."""
    theta = np.radians(angles)
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([c * tilts[:, 0] - s * tilts[:, 1], s * tilts[:, 0] + c * tilts[:, 1]], axis=1)


def table_field_residuals(
    positions: np.ndarray, tilts: np.ndarray, image_size: tuple[int, int], limit: float = COCKED_TILT
) -> np.ndarray:
    """How far each die's tilt (image frame, (N, 2)) stands out of the field that flat dice on one table follow
    (``a + k * (position - image centre)``: a camera a little askew, and perspective; ``k`` is about one over the
    camera's height in pixels). Each die is measured against the field fitted to the *other* dice (so a leaning die
    cannot pull the field to itself), twice: the second fit leaves out the dice the first found past ``limit``
    (several leaning dice). The fit is held towards a level camera (a = 0) and a middle height (k = 1 / (2 x the
    image's longer side)) by the weight of one die each, so one or two dice are judged against that camera."""
    n = len(positions)
    if n == 0:
        return np.zeros(0)
    scale = float(max(image_size))
    d = (positions - np.array([image_size[0] / 2, image_size[1] / 2])) / scale  # k is then per image side
    # Rows of the least squares: x component [1, 0, dx], y component [0, 1, dy]; parameters (ax, ay, k * scale).
    rows = np.zeros((n, 2, 3))
    rows[:, 0, 0] = 1.0
    rows[:, 1, 1] = 1.0
    rows[:, 0, 2], rows[:, 1, 2] = d[:, 0], d[:, 1]
    gram_i = np.einsum("nri,nrj->nij", rows, rows)
    rhs_i = np.einsum("nri,nr->ni", rows, tilts)
    prior_gram = np.diag([1.0, 1.0, 0.25])  # one die at half a side from the centre
    prior_rhs = prior_gram @ np.array([0.0, 0.0, 0.5])
    weights = np.ones(n)
    residual = np.zeros(n)
    for _ in range(2):
        gram = prior_gram + np.einsum("n,nij->ij", weights, gram_i)
        rhs = prior_rhs + np.einsum("n,ni->i", weights, rhs_i)
        params = np.linalg.solve(gram[None] - weights[:, None, None] * gram_i, rhs[None] - weights[:, None] * rhs_i)
        fitted = np.einsum("nri,ni->nr", rows, params)
        residual = np.linalg.norm(tilts - fitted, axis=1)
        weights = (residual <= limit).astype(np.float64)
    return residual


def cocked_from_tilts(
    positions: np.ndarray, tilts: np.ndarray, angles: np.ndarray, image_size: tuple[int, int],
    limit: float = COCKED_TILT,
) -> np.ndarray:  # fmt: skip
    """(N,) bool: which dice of one frame lean, from the tilt model's readings (crop frame) of every die in it."""
    residual = table_field_residuals(positions, to_image_frame(tilts, angles), image_size, limit)
    return np.asarray(residual > limit, bool)


def square_turns(crops: np.ndarray) -> np.ndarray:
    """(4 * N, S, S, 3): the crops (N, S, S, 3) turned by 0, 90, 180 and 270 degrees; view ``k`` of crop ``i``
    is row ``k * N + i``. A face's value is the same in every one, and a die turned on the table by a quarter
    turn gives the same four views in another order."""
    return np.ascontiguousarray(np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)]))


def doubtful_dice(
    model: FaceModel, probabilities: np.ndarray, pip_counts: list[int | None], below: float = SECOND_LOOK_BELOW
) -> np.ndarray:
    """Indices of the dice that get a second look: top probability below ``below``, or a pip count that is not
    the model's top face."""
    top = probabilities.argmax(axis=1)
    disagree = np.array([c is not None and c != model.values[t] for c, t in zip(pip_counts, top, strict=True)], bool)
    return np.nonzero((probabilities.max(axis=1) < below) | disagree)[0]


def second_look(
    model: FaceModel,
    crops: np.ndarray,
    probabilities: np.ndarray,
    pip_counts: list[int | None],
    below: float = SECOND_LOOK_BELOW,
    tight: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The face probabilities (N, 6) with each doubtful die's row (:func:`doubtful_dice`) replaced by the mean
    over more views of it: the 4 quarter turns of its crop (the first, the crop as it is, is the row already
    given) and, when ``tight`` is given, the 4 turns of the crops ``tight(indices)`` returns for those dice: the
    same dice cut at :data:`TIGHT_SIDE` of their side. Only doubtful dice are read again (one batched call), so a
    clear photo costs nothing more."""
    doubtful = doubtful_dice(model, probabilities, pip_counts, below)
    if len(doubtful) == 0:
        return probabilities
    n = len(doubtful)
    views = [square_turns(crops[doubtful])[n:]]
    if tight is not None:
        views.append(square_turns(tight(doubtful)))
    others = model.probabilities(np.concatenate(views)).reshape(-1, n, probabilities.shape[1])
    out = probabilities.copy()
    out[doubtful] = (probabilities[doubtful] + others.sum(axis=0)) / (1 + len(others))
    return out


def crops_to_input(crops: np.ndarray) -> np.ndarray:
    """(N, S, S, 3) uint8 BGR -> (N, 3, S, S) float32 in 0..1, the model's input (it standardises itself)."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255.0)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


@dataclass(frozen=True, slots=True)
class PipReading:
    """What the classical reader saw on one die: the pip count (``None`` when it cannot tell), whether the
    die looks cocked (its top face clearly oblong), the mask of pip pixels and the crop in 8-bit CIELAB
    (OpenCV's scaling), which the colour measure reuses."""

    count: int | None
    cocked: bool
    pip_mask: Any  # np.ndarray of bool, (S, S)
    contrast: float
    lab: Any  # np.ndarray of uint8, (S, S, 3)


def count_pips(crop: np.ndarray) -> PipReading:
    """Count the pips on one upright die crop cut with the crop rule (see :func:`count_pips_batch`)."""
    return count_pips_batch(crop[None])[0]


def count_pips_batch(crops: np.ndarray) -> list[PipReading]:
    """Count the pips on upright die crops (N, S, S, 3) cut with the crop rule (S = 48 intended).

    A pip is a small round blob that differs from its neighbourhood: the crop's CIELAB minus a blurred copy
    (wide enough to wash pips out but keep the body's shading) is thresholded (Otsu, with a floor), and
    blobs of pip size and roundness that lie on the top face and do not touch its edge are counted. The
    count is kept only when the blobs sit where that many pips sit on a die (centred, spread over the
    face, the layout's shape); anything else of pip size on the face (merged pips, glare, a logo) makes the
    reader abstain rather than guess. All crops go through the colour conversion and blur as one image.
    """
    n, size = len(crops), crops.shape[1]
    if n == 0:
        return []
    die = size * _DIE_SPAN
    c = (size - 1) / 2.0
    lab8 = cv2.cvtColor(np.ascontiguousarray(crops).reshape(n * size, size, 3), cv2.COLOR_BGR2LAB)
    lab = lab8.astype(np.float32)
    lab[:, :, 0] *= 100.0 / 255.0  # L to 0..100 so a unit of L weighs like a unit of a or b
    window = max(5, round(die * 0.45) | 1)
    background = cv2.blur(lab, (window, window), borderType=cv2.BORDER_REPLICATE)
    distance = _norm(lab - background).reshape(n, size, size)

    # Threshold each die's face at its own Otsu level (with a floor), all dice at once.
    face_half = die * 0.44
    lo, hi = math.ceil(c - face_half), math.floor(c + face_half) + 1
    face = distance[:, lo:hi, lo:hi]
    peak = np.maximum(face.reshape(n, -1).max(axis=1), 1.0)
    scaled = np.minimum((face * (255.0 / peak)[:, None, None]).astype(np.int64), 255)
    hist = np.bincount((scaled + 256 * np.arange(n)[:, None, None]).ravel(), minlength=256 * n).reshape(n, 256)
    threshold = np.maximum(_otsu(hist) * peak / 255.0, 12.0)
    mask = np.zeros((n, size, size), np.uint8)
    mask[:, lo:hi, lo:hi] = face > threshold[:, None, None]
    mask[peak < 16.0] = 0  # nothing stands out: a blank face (or no die)
    # Faces never reach their tile's edge, so one labelling of the stacked tiles keeps dice apart.
    _, labels, stats, centroids = cv2.connectedComponentsWithStats(mask.reshape(n * size, size), connectivity=4)
    x, y, w, h, area = (stats[1:, i].astype(np.int64) for i in range(5))
    tile = y // size
    ly = y - tile * size
    touches = (x <= lo) | (ly <= lo) | (x + w >= hi) | (ly + h >= hi)  # the outline, a side face, the table
    round_enough = (area >= 0.5 * w * h) & (np.maximum(w, h) <= 2 * np.maximum(np.minimum(w, h), 1))
    area_min, area_max = 0.006 * die * die, 0.07 * die * die
    is_pip = ~touches & round_enough & (area >= area_min) & (area <= area_max)
    is_odd = ~touches & ~is_pip & (area >= area_min)
    pips_per_die = np.bincount(tile[is_pip], minlength=n)
    odd_per_die = np.bincount(tile[is_odd], minlength=n)
    table = np.concatenate([[False], is_pip])
    pip_masks = table[labels].reshape(n, size, size)
    cocked = _cocked_batch(lab, n, size, die)
    lab_tiles = lab8.reshape(n, size, size, 3)
    pip_index = np.nonzero(is_pip)[0]
    by_die = np.split(pip_index, np.cumsum(pips_per_die)[:-1]) if len(pip_index) else [pip_index] * n
    # Components are numbered top to bottom, so the pips of die i come before those of die i + 1.
    readings = []
    for i in range(n):
        mine = by_die[i]
        areas = area[mine]
        clean = not odd_per_die[i] and 1 <= len(mine) <= 6 and not (len(mine) > 1 and areas.max() > 2.5 * areas.min())
        fits = clean and _fits_layout(centroids[mine + 1] - [0.0, i * size], (c, c), die)
        count = len(mine) if fits else None
        readings.append(PipReading(count, bool(cocked[i]), pip_masks[i], float(peak[i]), lab_tiles[i]))
    return readings


_SUM_CHANNELS = np.ones((1, 3), np.float32)


def _norm(diff: np.ndarray) -> np.ndarray:
    """Per-pixel Euclidean length of an (H, W, 3) float32 image (OpenCV: much faster than numpy's sum)."""
    return np.sqrt(cv2.transform(diff * diff, _SUM_CHANNELS))


def _otsu(hist: np.ndarray) -> np.ndarray:
    """Otsu's threshold of each row of 256-bin histograms: values above it are the foreground."""
    p = hist / np.maximum(hist.sum(axis=1, keepdims=True), 1)
    omega = np.cumsum(p, axis=1)
    mu = np.cumsum(p * np.arange(256), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mu[:, -1:] * omega - mu) ** 2 / (omega * (1 - omega))
    return np.argmax(np.nan_to_num(between, nan=0.0, posinf=0.0), axis=1).astype(np.float64)


def _cocked_batch(lab: np.ndarray, n: int, size: int, die: float) -> np.ndarray:
    """For each die: does its top face look clearly oblong? The patch of the body's colour around the centre
    (at half resolution, plenty for an outline) is measured by its second moments: for a w x h rectangle the
    spreads are w^2/12 and h^2/12, so the square root of their ratio is long side over short side."""
    half = size // 2
    small = cv2.resize(lab, (half, n * half), interpolation=cv2.INTER_AREA).reshape(n, half, half, 3)
    d2, ci, r = die / 2, (half - 1) // 2, max(1, int(die / 2 * 0.2))
    body = small[:, ci - r : ci + r + 2, ci - r : ci + r + 2].reshape(n, -1, 3).mean(axis=1)
    near = (_norm((small - body[:, None, None, :]).reshape(n * half, half, 3)) < 18.0).astype(np.uint8)
    near = near.reshape(n, half, half)
    near[:, 0, :] = 0  # keep tiles apart in the joint labelling
    near[:, -1, :] = 0
    _, labels = cv2.connectedComponents(near.reshape(n * half, half), connectivity=4)
    centre = labels.reshape(n, half, half)[:, ci, ci]
    flat = labels.ravel()
    xs, ys, xx, yy, xy = _tile_moments(n, half)
    k = int(flat.max()) + 1
    m00 = np.bincount(flat, minlength=k)[centre].astype(np.float64)
    mx = np.bincount(flat, xs, k)[centre] / np.maximum(m00, 1)
    my = np.bincount(flat, ys, k)[centre] / np.maximum(m00, 1)
    cxx = np.bincount(flat, xx, k)[centre] / np.maximum(m00, 1) - mx * mx
    cyy = np.bincount(flat, yy, k)[centre] / np.maximum(m00, 1) - my * my
    cxy = np.bincount(flat, xy, k)[centre] / np.maximum(m00, 1) - mx * my
    mean, gap = (cxx + cyy) / 2, np.sqrt(((cxx - cyy) / 2) ** 2 + cxy**2)
    small_spread, large_spread = mean - gap, mean + gap
    ok = (centre > 0) & (m00 >= 0.25 * d2 * d2) & (m00 <= 1.3 * d2 * d2) & (small_spread > 0)
    elongation = np.sqrt(large_spread / np.where(small_spread > 0, small_spread, 1.0))
    return ok & (elongation > COCKED_ELONGATION)


@functools.lru_cache(maxsize=16)
def _tile_moments(n: int, half: int) -> tuple[np.ndarray, ...]:
    """x, y, x^2, y^2 and x*y of every pixel of ``n`` stacked ``half``-px tiles (each tile's own coordinates), as
    flat float64 arrays: the same for every frame of as many dice, so made once (issue 25's speed, session 19)."""
    yy, xx = np.mgrid[0 : n * half, 0:half]
    xs, ys = xx.ravel().astype(np.float64), (yy.ravel() % half).astype(np.float64)
    out = (xs, ys, xs * xs, ys * ys, xs * ys)
    for a in out:
        a.flags.writeable = False
    return out


def _pair_distances(points: np.ndarray) -> np.ndarray:
    """Sorted distances between every two points."""
    i, j = _PAIRS[len(points)]
    return np.sort(np.hypot(points[i, 0] - points[j, 0], points[i, 1] - points[j, 1]))


_PAIRS = {k: np.triu_indices(k, 1) for k in range(2, 7)}
#: Each layout's pair distances over the largest: the same at any rotation and size.
_PROFILES = {k: d / d[-1] for k, d in ((k, _pair_distances(np.array(p))) for k, p in PIP_LAYOUT.items() if k > 1)}


def _fits_layout(centres: np.ndarray, middle: tuple[float, float], die: float) -> bool:
    """Do the blobs sit where the pips of that many would (centred, spread right, right shape)?"""
    count = len(centres)
    mean_x, mean_y = centres.mean(axis=0)
    if math.hypot(mean_x - middle[0], mean_y - middle[1]) > 0.16 * die:
        return False
    if count == 1:
        return True
    distances = _pair_distances(centres)
    spread = float(distances[-1])
    if not 0.4 * die <= spread <= 0.95 * die:
        return False
    return float(np.abs(distances / spread - _PROFILES[count]).max()) <= 0.15


@dataclass(frozen=True, slots=True)
class FaceDecision:
    value: int
    confidence: float
    unsure: bool
    reason: str


def valid_floor(floor: float) -> float:
    """``floor`` if a reader can use it as its confidence floor (a probability above 0, at most 1)."""
    if not 0.0 < floor <= 1.0:
        raise ValueError(f"confidence floor {floor} is not in (0, 1]")
    return floor


def pips_disagree(
    count: int | None,
    value: int,
    confidence: float,
    overruled_above: float | None = None,
    lone_overruled_above: float | None = None,
) -> bool:
    """Does a pip count make a die whose model reads ``value`` at ``confidence`` unsure? Not when the counter
    abstained or agrees, not from a model at least ``overruled_above`` sure, and a count of one pip not from a
    model at least ``lone_overruled_above`` sure (:data:`LONE_PIP_HEARD_BELOW`)."""
    if count is None or count == value:
        return False
    if overruled_above is not None and confidence >= overruled_above:
        return False
    return not (count == 1 and lone_overruled_above is not None and confidence >= lone_overruled_above)


def decide(
    probabilities: np.ndarray,
    pips: PipReading,
    values: tuple[int, ...] = (1, 2, 3, 4, 5, 6),
    floor: float = CONFIDENCE_FLOOR,
    pips_overruled_above: float | None = None,
    lone_pip_overruled_above: float | None = None,
) -> FaceDecision:
    """The value to report for one die, and whether to mark it unsure (and why, for the annotation); below
    ``floor`` (:data:`CONFIDENCE_FLOOR`) the model's confidence is too low. With ``pips_overruled_above``
    (the die reader passes :data:`PIPS_HEARD_BELOW`), a disagreeing pip count no longer makes a die the
    model is at least that sure of unsure; with ``lone_pip_overruled_above`` (the die reader passes
    :data:`LONE_PIP_HEARD_BELOW`) a count of one pip does not from a model at least that sure."""
    best = int(np.argmax(probabilities))
    value, confidence = values[best], float(probabilities[best])
    if confidence < floor:
        return FaceDecision(value, confidence, True, "low confidence")
    if pips_disagree(pips.count, value, confidence, pips_overruled_above, lone_pip_overruled_above):
        return FaceDecision(value, confidence, True, f"pip count says {pips.count}")
    if pips.cocked:
        return FaceDecision(value, confidence, True, "cocked")
    return FaceDecision(value, confidence, False, "")
