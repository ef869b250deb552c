"""Reading a Dice Treasure table: motif cards on the mats' card spots, the dice on their spaces, the loose dice.

This module owns what the camera makes of the cards. It works on the zones that registration located
(:mod:`vision.registration`): each card spot of a player's ``motif-cards`` zone (and of the ``middle``) is
rectified on its own at :data:`CARD_PX_PER_MM`, white-balanced on the mat's paper around it, and read:

- **the card** (:func:`read_card`): found as the largest region that is not paper, its rectangle fitted
  (the card's size is measured, not assumed), turned upright by its layout of spaces (which sits below the
  card's middle) or else its coins (printed in the top-left corner), its background colour named, its coins
  counted, and its spaces found by the grid layout whose squares best cover what is not background
  (:func:`find_spaces`). Each space's requirement is read from its print: the
  fill colour (a dice colour, or white for any colour) and the pips on its white badge (none: any value).
- **enrolment** (:func:`enrol`): such a reading as an entry of the deck file (``cards.py``'s format), so an
  owner can teach their own deck card by card; adjacency is the spaces' geometry (one pitch apart in a row
  or column), checked against the grid positions the file holds.
- **identification** (:func:`identify`): the reading against an enrolled deck, by background, coins, the
  layout of spaces and every requirement that is visible (a die hides its space's print), with a margin
  over the next-best card. On a table (:meth:`DiceTreasureReader.read`) each card goes to one spot at most,
  best matches first, either way round, and a spot keeps the card it showed clearly (at the deal, when the
  cards are empty) while its background agrees: :meth:`DiceTreasureReader.forget` at each new round.
- **the dice on the spaces** (:func:`read_space_dice`): for each space of the identified card, whether a die
  lies there is a classical measure against the print the deck says is under it (a white middle that is not
  white, a plain coloured space that has spots); the face model's "not a die" class takes printed pips for a
  die, so it is not asked. The die's face and colour (the five Dice Treasure colours, nominal or taught with
  :func:`teach_palette`) come from the die reader (:class:`vision.recognize.DiceRecognizer` on a candidate at
  the space), and a die is sure only when its pips agree with the face model. Anything doubtful makes the
  space *unsure*, with the reason: the device asks rather than guesses.
- **loose dice** (the tray's roll, the personal and common reserves): the die reader on the rectified zone.

:class:`DiceTreasureReader` does all of this for one frame and returns a :class:`TableReading` (frozen
dataclasses, no arrays). The print design the reader assumes (sizes in mm, nominal print colours) is
:data:`CARD_MM` and the constants next to it; the lab renderer (:mod:`vision.lab.dicetreasure_render`) draws it.
Run ``python -m vision.lab.dicetreasure_measure --measure`` for the figures in ``docs/dicetreasure-table.md``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from engine.dice import Die
from engine.dicetreasure import Deck, MotifCard
from vision.colour import (
    LIGHTNESS_WEIGHT,
    Palette,
    PaletteError,
    bgr_to_lab,
    calibrate,
    distance,
    nominal_palette,
)
from vision.crop import estimate_angle
from vision.faces import CONFIDENCE_FLOOR, PIPS_OVERRULED_ABOVE
from vision.mats import NOMINAL_MM, Rect, Zone
from vision.recognize import DiceRecognizer, FixedDetector
from vision.registration import KeptWarps, MatFit, Registration, plain_warp
from vision.types import DieCandidate, DieReading

# --- the print the reader assumes (mm on the card, origin at its top-left corner, long side down) -------------

#: Nominal motif card size; a card's own size is measured (a card more than 12% off is not taken for one).
CARD_MM: tuple[float, float] = (NOMINAL_MM["card_w"], NOMINAL_MM["card_h"])
DIE_MM = NOMINAL_MM["die"]
#: A space's printed square, the light rim around it, and the distance between neighbouring spaces' centres.
SPACE_MM = 17.0
SPACE_RIM_MM = 0.8
SPACE_PITCH_MM = 20.0
#: The spaces' layout is centred on this height of the card (the coins take the top).
SPACES_CENTRE_Y_MM = 54.0
#: A value requirement: pips on a white badge of this radius in the middle of the space.
BADGE_RADIUS_MM = 6.0
PIP_RADIUS_MM = 0.85
PIP_SPAN_MM = 10.0
COIN_RADIUS_MM = 2.8
COIN_STEP_MM = 8.0
#: How high (in coins) a coin's blob may read: blur spreads its dark rim (see :func:`_coins`).
COIN_BLOB_HIGH = 2.0
#: The middle of a coin (mm radius) that :func:`_coins_in_place` looks at where the print puts each coin.
COIN_CORE_MM = 1.5
#: How far (CIELAB, as :func:`_distance` measures) a coin's middle lies from the background, at least, on average.
COIN_IN_PLACE = 10.0
#: Where a space's outline lies round a slot's middle (shares of the space's half side with its rim, Chebyshev).
RIM_RING = (0.85, 1.05)
#: Nominal print colours (BGR) of the seven backgrounds and of the spaces (the five dice colours, white = any).
BACKGROUND_BGR: dict[str, tuple[int, int, int]] = {
    "red": (50, 45, 200),
    "orange": (30, 130, 240),
    "yellow": (50, 215, 240),
    "green": (60, 160, 50),
    "blue": (205, 130, 40),
    "indigo": (125, 45, 55),
    "purple": (150, 60, 160),
}
SPACE_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 215),
    "yellow": (40, 225, 250),
    "green": (70, 185, 70),
    "blue": (215, 100, 25),
    "purple": (140, 35, 125),
    "white": (246, 246, 246),
}
PAPER_BGR: tuple[int, int, int] = (242, 244, 246)
#: Rectified card spots are read at this scale (the frame has 1.3 to 3 px/mm; finer sampling keeps the
#: card's edges and the spaces' rims where they are, it adds no detail).
CARD_PX_PER_MM = 4.0
#: Loose dice zones are rectified at this scale: a die is then ~32 px, what the detector was trained on.
ZONE_PX_PER_MM = 2.0
#: Paper is white-balanced to this grey level.
PAPER_LEVEL = 240.0
#: A die whose colour is farther than this (CIELAB, lightness halved) from every palette colour is unsure.
COLOUR_FAR = 30.0
#: A die (on a space, in a zone) is sure only when the pip counter agrees with the face model (not just fails to
#: disagree): at the ~1.3 px/mm of a whole table the model alone was sure and wrong on spaces and in the tray.
PIPS_MUST_AGREE = True
#: ...except that a loose die (tray, reserves) whose pips the counter cannot count at all (it returns no count: a
#: pip is ~2 px at a whole table's 1.2-1.4 px/mm) is sure on the face model alone when the model is at least this
#: sure: the die reader's own line past which the model overrules a disagreeing count (``vision.faces``). On
#: rendered tables of tuning seeds 6000-6139 (nominal and five camera conditions) and the development recordings
#: (seeds 41, 42) nearly every unsure tray die was "no count", none of them wrong, most with the model past that
#: line. A count that disagrees still makes the die unsure; dice on spaces keep the strict rule (there the printed
#: outline round a die fooled the model).
LOOSE_MODEL_ALONE_ABOVE = PIPS_OVERRULED_ABOVE
#: A sure die is also nearer its palette colour than the next one by at least this much: a colour between two palette
#: colours is asked about (exposure 0.6 gave two sure dice of the wrong colour in the tray without this).
COLOUR_MARGIN = 8.0
#: Below this confidence a reading is unsure (a die on a space, a card identified, an enrolled space).
SURE = 0.8
#: Spots and zones are glanced at this scale, and read again only where some patch changed by more than
#: GLANCE_CHANGE grey levels since they were read (the reader's reuse of unchanged readings).
GLANCE_PX_PER_MM = 2.0
GLANCE_CHANGE = 35.0
#: A glance sums each pixel with its neighbours over this many (3 x 3: about 1.5 mm; :func:`_box_sums`).
GLANCE_BOX_AREA = 9
#: The paper round a spot or zone that its glance takes in (mm, :meth:`DiceTreasureReader._glance`).
GLANCE_MARGIN_MM = 2.0
#: The paper round a card spot that its region takes in (mm, :func:`_cut_region`): the card's white reference.
REGION_MARGIN_MM = 5.0
#: A changed glance pixel within this (mm) of a space's centre is that space's picture: a 16 mm die laid on it
#: turned reaches 11.3 mm from its own centre, laid off the space's centre by a few mm more (bench seed 9101: a die
#: placed changed pixels up to 15 mm from its space's centre). On a card known on its spot whose picture changed on
#: its spaces only, the card (identity, layout, way up) is carried and only its dice are read again; a pixel changed
#: farther from every space (the card moved: its coins and edges; a hand; a card laid over it) reads the spot whole.
SPACE_REACH_MM = 16.0
#: A die on a plain coloured space is told from the print by its pips, looked for on the space smoothed over this
#: much (mm: about a pip's radius): pixels whose lightness (CIELAB L, 0..100) differs from the space's median by more
#: than :data:`PIP_LIGHTNESS`, or whose colour differs by more than 14. On tuning seeds 4901 (noise 6 and 9, blur 1.2
#: applied to its frames) and 4904 (blur 1.2) the share of such pixels was 0 on every empty plain space but one
#: under a hand (0.29), and at least 0.127 under a die of the space's colour but two of 137.
PIP_SMOOTH_MM = 0.375
PIP_LIGHTNESS = 8.0


def coin_centre(index: int) -> tuple[float, float]:
    """Centre (mm on the card) of coin ``index`` (0-based), in a row along the top-left."""
    return (7.0 + COIN_STEP_MM * index, 9.0)


def space_centre(card: MotifCard, pos: tuple[int, int]) -> tuple[float, float]:
    """Centre (mm on the card) of the space at grid ``pos``: the card's layout is centred on the card."""
    cols = max(s.pos[0] for s in card.spaces) + 1
    rows = max(s.pos[1] for s in card.spaces) + 1
    return _slot(pos, cols, rows)


def _slot(pos: tuple[int, int], cols: int, rows: int) -> tuple[float, float]:
    return (CARD_MM[0] / 2 + (pos[0] - (cols - 1) / 2) * SPACE_PITCH_MM,
            SPACES_CENTRE_Y_MM + (pos[1] - (rows - 1) / 2) * SPACE_PITCH_MM)


def card_spots(zone: Zone) -> tuple[Rect, ...]:
    """The printed card spots of a zone (a player's motif cards, the middle), in the mat's order."""
    return tuple(o.rect for o in zone.outlines if o.label == "motif card")


def reserve_rect(zone: Zone) -> Rect:
    """Where loose dice lie in a zone (the tray, a reserve): its printed outline, else the zone."""
    return zone.outlines[0].rect if zone.outlines else zone.rect


# --- colours ------------------------------------------------------------------------------------------------

Lab = tuple[float, float, float]


def _lab_table() -> np.ndarray:
    """OpenCV's 8-bit CIELAB levels -> float CIELAB (L 0..100, a and b about 0), one row per level, for ``cv2.LUT``:
    each entry the float32 product and difference the conversion makes pixel by pixel."""
    level = np.arange(256, dtype=np.float32)
    return np.stack([level * np.float32(100.0 / 255.0), level - 128.0, level - 128.0], axis=1).reshape(256, 1, 3)


_LAB_LEVELS = _lab_table()


def _lab8(bgr: np.ndarray) -> np.ndarray:
    """OpenCV's 8-bit CIELAB of a BGR uint8 image (:func:`_lab_of` makes it float; its histograms give medians)."""
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)


def _lab_of(lab8: np.ndarray) -> np.ndarray:
    """Float CIELAB (L 0..100) of an 8-bit CIELAB image: a table look-up (numpy's arithmetic on the three channels
    of each pixel takes several times as long on a Pi's cores)."""
    return cv2.LUT(lab8, _LAB_LEVELS)


def _lab_image(bgr: np.ndarray) -> np.ndarray:
    """Float CIELAB (L 0..100) of a BGR uint8 image."""
    return _lab_of(_lab8(bgr))


def _ranked_levels(image: np.ndarray, mask: np.ndarray | None, ranks: Sequence[int],
                   channels: Sequence[int] = (0, 1, 2)) -> np.ndarray:
    """The levels of the ``ranks``-th smallest pixel (0-based) of ``channels`` of a uint8 ``image`` where ``mask``
    is set (None: every pixel), from each channel's histogram: the order statistics a sort would give, without
    sorting (rows: ranks, columns: channels)."""
    m = None if mask is None else mask.astype(np.uint8)
    out = np.empty((len(ranks), len(channels)), np.int64)
    for n, c in enumerate(channels):
        counts = np.cumsum(cv2.calcHist([image], [c], m, [256], [0, 256]).ravel())
        out[:, n] = np.searchsorted(counts, np.asarray(ranks, np.float64), side="right")
    return out


def _median_levels(image: np.ndarray, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The two middle levels (equal for an odd count) of each channel of a uint8 ``image`` where ``mask`` is set:
    ``np.median`` of those pixels is their mean, taken by the caller in the dtype ``np.median`` would use."""
    n = int(image.shape[0] * image.shape[1]) if mask is None else int(np.count_nonzero(mask))
    if n == 0:
        raise ValueError("no pixels to take a median of")
    lo, hi = _ranked_levels(image, mask, ((n - 1) // 2, n // 2))
    return lo, hi


def _lab_median(lab8: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``np.median`` over the pixels (``mask``) of the float CIELAB of ``lab8``, bit for bit: the mean, in float32, of
    the two middle levels' float values (the float CIELAB is a rising function of each 8-bit channel)."""
    lo, hi = _median_levels(lab8, mask)
    table = _LAB_LEVELS[:, 0, :]
    both = table[lo, np.arange(3)] + table[hi, np.arange(3)]
    return np.asarray(both / np.float32(2.0), np.float32)


def _distance(lab: np.ndarray, ref: Sequence[float] | np.ndarray) -> np.ndarray:
    """Colour distances of every pixel of ``lab`` to ``ref`` (lightness weighted as the die palettes weigh it)."""
    r = np.asarray(ref, np.float32)
    # Channel by channel (each a long run of pixels) rather than over a last axis of three: the same float32
    # operations in the same order, several times faster.
    d = lab[..., 0] - r[0]
    d *= np.float32(LIGHTNESS_WEIGHT)
    total = d * d
    for c in (1, 2):
        d = lab[..., c] - r[c]
        total += d * d
    return np.asarray(np.sqrt(total))


@dataclass(frozen=True)
class CardColours:
    """Reference CIELAB colours of the card print (white-balanced): backgrounds and spaces. Nominal by default;
    :func:`teach_colours` makes them from cards read at the table."""

    backgrounds: tuple[tuple[str, Lab], ...]
    spaces: tuple[tuple[str, Lab], ...]
    taught: bool = False

    @staticmethod
    def nominal() -> CardColours:
        return CardColours(tuple((n, bgr_to_lab(c)) for n, c in BACKGROUND_BGR.items()),
                           tuple((n, bgr_to_lab(c)) for n, c in SPACE_BGR.items()))

    def to_json(self) -> dict[str, Any]:
        return {"taught": self.taught,
                "backgrounds": {n: [round(v, 2) for v in lab] for n, lab in self.backgrounds},
                "spaces": {n: [round(v, 2) for v in lab] for n, lab in self.spaces}}


def _nearest(lab: Sequence[float] | np.ndarray, refs: Sequence[tuple[str, Lab]]) -> tuple[str, float, float]:
    """The nearest reference's name, its distance, and a confidence from the margin to the second nearest."""
    d: list[tuple[float, str]] = sorted((float(_distance(np.asarray(lab, np.float32)[None], ref)[0]), name)
                                        for name, ref in refs)
    best = d[0]
    second = d[1] if len(d) > 1 else (best[0] + 100.0, "")
    margin = second[0] - best[0]
    return best[1], best[0], float(min(1.0, margin / max(8.0, 0.6 * (best[0] + second[0]) / 2)))


def white_balance(image: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """``image`` with the paper pixels (a boolean mask) brought to neutral grey :data:`PAPER_LEVEL`."""
    if paper.sum() < 20:
        return image
    lo, hi = _median_levels(image, paper)
    ref = (lo.astype(np.float32) + hi.astype(np.float32)) / np.float32(2.0)  # np.median of the float32 pixels
    gains = PAPER_LEVEL / np.maximum(ref, 8.0)
    # Each channel's 256 levels scaled once and looked up (the same float32 product, clipped and truncated).
    table = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains, 0, 255).astype(np.uint8)
    return cv2.LUT(image, table.reshape(256, 1, 3))


# --- one card -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpaceReading:
    """One space as read from the print: grid position, centre (mm on the card), requirement (``None`` = any)
    and how sure each part is. ``covered``: something (a die) hides the print, so the requirement is unknown."""

    pos: tuple[int, int]
    centre_mm: tuple[float, float]
    colour: str | None
    value: int | None
    colour_confidence: float
    value_confidence: float
    covered: bool = False

    @property
    def confidence(self) -> float:
        return min(self.colour_confidence, self.value_confidence)


@dataclass(frozen=True)
class CardReading:
    """A card on a spot as read. ``found`` False: the spot is empty (or what lies there is no card)."""

    zone: str
    spot: int
    found: bool
    background: str | None = None
    background_confidence: float = 0.0
    coins: int = 0
    coins_confidence: float = 0.0
    spaces: tuple[SpaceReading, ...] = ()
    layout_confidence: float = 0.0
    upside_down: bool = False
    coins_other_end: int = 0  # coin-like marks at the other end (a card read the wrong way round has its coins there)
    orientation_confidence: float = 1.0  # how sure the reader is which way up the card lies
    size_mm: tuple[float, float] = (0.0, 0.0)
    corners_px: tuple[tuple[float, float], ...] = ()  # the card's corners in the frame (TL, TR, BR, BL upright)
    problems: tuple[str, ...] = ()

    @property
    def confidence(self) -> float:
        if not self.found:
            return 0.0
        parts = [self.background_confidence, self.coins_confidence, self.layout_confidence,
                 self.orientation_confidence]
        parts += [s.confidence for s in self.spaces if not s.covered]
        return float(min(parts))

    def to_json(self) -> dict[str, Any]:
        return {
            "zone": self.zone, "spot": self.spot, "found": self.found, "background": self.background,
            "coins": self.coins, "upside_down": self.upside_down, "confidence": round(self.confidence, 3),
            "spaces": [{"at": list(s.pos), "colour": s.colour or "any", "value": s.value or "any",
                        "covered": s.covered, "confidence": round(s.confidence, 3)} for s in self.spaces],
            "corners": [[round(v, 1) for v in p] for p in self.corners_px], "problems": list(self.problems),
        }


#: A card's background colour and its layout of spaces as :func:`find_spaces` found them.
_Found = tuple[np.ndarray, tuple[list[tuple[int, int]], int, int, float]]


@dataclass(frozen=True)
class _Card:
    """A card's upright image (white-balanced BGR and its Lab) and where it came from (not a value: arrays)."""

    bgr: np.ndarray
    lab: np.ndarray
    card_to_frame: np.ndarray  # card px (at CARD_PX_PER_MM) -> frame px
    orientation: float = 1.0  # how sure the way up is (see _upside_down)
    #: The background and the layout of spaces (:func:`find_spaces`) found on ``lab`` while deciding which way up it
    #: lies, kept so :func:`read_card` need not find them again (None: not found on this very image).
    found: _Found | None = None
    #: How it was cut from the frame (:func:`_find_card`): frame -> region px, the fitted card -> region px before any
    #: half turn, and whether it was turned: what :func:`_recut` needs to cut the same card from a later frame.
    to_region: np.ndarray | None = None
    card_to_region: np.ndarray | None = None
    flipped: bool = False


def spot_transform(fit: MatFit, rect: Rect, px_per_mm: float) -> np.ndarray:
    """Frame pixels -> pixels of a rectified image of ``rect`` (mm on the sheet) at ``px_per_mm``."""
    s = px_per_mm
    scale = np.array([[s, 0, -s * rect.x], [0, s, -s * rect.y], [0, 0, 1]], np.float64)
    return scale @ fit.image_to_mat


def _grow(r: Rect, mm: float) -> Rect:
    return Rect(r.x - mm, r.y - mm, r.w + 2 * mm, r.h + 2 * mm)


def _find_card(frame: np.ndarray, fit: MatFit, spot: Rect) -> tuple[_Card | None, tuple[float, float], bool, str]:
    """The card on ``spot`` rectified upright, its measured size (mm), whether it was upside down, and why not."""
    fitted, size_mm, why = _fit_card(frame, fit, spot)
    if fitted is None:
        return None, size_mm, False, why
    img, to_region, card_to_region, out_size = fitted
    upright = cv2.warpPerspective(img, card_to_region, out_size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
    upright_lab = _lab_image(upright)
    flip, orientation, up = _upside_down(upright_lab)
    card, against_mat = _upright(upright, upright_lab, to_region, card_to_region, flip, orientation)
    # The layout found on this very image (not when found on the other way round).
    return replace(card, found=None if flip else up), size_mm, against_mat, ""


#: The fit of a card on its spot (:func:`_fit_card`): the white-balanced region, frame -> region px, the fitted
#: upright card -> region px (its half turn arbitrary), and the upright image's size.
_Fit = tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]


def _fit_card(frame: np.ndarray, fit: MatFit, spot: Rect) -> tuple[_Fit | None, tuple[float, float], str]:
    """The card on ``spot`` fitted by its outline on the spot's region (:func:`_cut_region`), its measured size (mm),
    and why there is none."""
    k = CARD_PX_PER_MM
    to_region = spot_transform(fit, _grow(spot, REGION_MARGIN_MM), k)
    img, inner, bright = _cut_region(frame, fit, spot)
    lab8 = _lab8(img)
    lab = _lab_of(lab8)
    paper = _lab_median(lab8, ~inner & bright)
    mask = (_distance(lab, paper) > 25.0).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    if count <= 1:
        return None, (0.0, 0.0), "no card"
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    card_area = CARD_MM[0] * CARD_MM[1] * k * k
    if stats[best, cv2.CC_STAT_AREA] < 0.5 * card_area:
        return None, (0.0, 0.0), "no card"
    contours, _ = cv2.findContours((labels == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    (cx, cy), (w, h), angle = cv2.minAreaRect(hull)
    if w > h:
        w, h, angle = h, w, angle + 90.0
    size_mm = (w / k, h / k)
    if abs(size_mm[0] / CARD_MM[0] - 1) > 0.12 or abs(size_mm[1] / CARD_MM[1] - 1) > 0.12:
        return None, size_mm, (f"what lies on the spot is {size_mm[0]:.0f} x {size_mm[1]:.0f} mm, not a motif "
                               f"card ({CARD_MM[0]:.0f} x {CARD_MM[1]:.0f} mm): a hand or something else?")
    # Upright card px (at k, nominal size) -> region px: the fitted rectangle, scaled to the card's own size.
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    sx, sy = w / (CARD_MM[0] * k), h / (CARD_MM[1] * k)
    m = rot @ np.diag([sx, sy])
    t = np.array([cx, cy]) - m @ np.array([CARD_MM[0] * k / 2, CARD_MM[1] * k / 2])
    card_to_region = np.vstack([np.column_stack([m, t]), [0, 0, 1]])
    out_size = (round(CARD_MM[0] * k), round(CARD_MM[1] * k))
    return (img, to_region, card_to_region, out_size), size_mm, ""


def _turn(size: tuple[int, int]) -> np.ndarray:
    """Upright card px -> the same card's px half a turn round (``size``: the image's width and height)."""
    return np.array([[-1, 0, size[0] - 1], [0, -1, size[1] - 1], [0, 0, 1]], np.float64)


def _upright(upright: np.ndarray, upright_lab: np.ndarray, to_region: np.ndarray, fitted: np.ndarray, flip: bool,
             orientation: float) -> tuple[_Card, bool]:
    """The card cut by ``fitted`` (``upright`` and its Lab), half a turn round when ``flip``; and whether it lies
    upside down on the mat."""
    card_to_region = fitted
    if flip:
        card_to_region = fitted @ _turn((upright.shape[1], upright.shape[0]))
        upright = cv2.rotate(upright, cv2.ROTATE_180)
        upright_lab = np.ascontiguousarray(upright_lab[::-1, ::-1])
    card_to_frame = np.linalg.inv(to_region) @ card_to_region
    # Upside down on the mat: the card's "down" (its y axis) points up the sheet. (The fitted rectangle's own
    # orientation is arbitrary; only the coins and the layout say which way the card lies.)
    against_mat = bool(card_to_region[1, 1] < 0)
    return _Card(upright, upright_lab, card_to_frame, orientation, None, to_region, fitted, flip), against_mat


def _cut_region(frame: np.ndarray, fit: MatFit, spot: Rect) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The spot and 5 mm of paper round it rectified at :data:`CARD_PX_PER_MM` and white-balanced on that paper,
    with the masks of the spot's inside and of the bright paper (:func:`_find_card`, :func:`_recut`)."""
    k = CARD_PX_PER_MM
    region = _grow(spot, REGION_MARGIN_MM)
    size = (round(region.w * k), round(region.h * k))
    img = plain_warp(frame, spot_transform(fit, region, k), size)
    # The paper around the spot is the white reference: the ring outside the spot's own outline.
    inner = _inside_ring(size)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    bright = grey >= np.percentile(grey[~inner][::4], 40)  # >=: an overexposed paper is one flat level
    return white_balance(img, ~inner & bright), inner, bright


@functools.lru_cache(maxsize=8)
def _inside_ring(size: tuple[int, int]) -> np.ndarray:
    """The mask of a spot's region (:func:`_cut_region`, ``size`` its width and height) inside the ring of paper
    3.5 mm wide round it (every spot of a mat has the same size: worked out once, read-only)."""
    k = CARD_PX_PER_MM
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    inner = (xx > 3.5 * k) & (xx < size[0] - 3.5 * k) & (yy > 3.5 * k) & (yy < size[1] - 3.5 * k)
    inner.flags.writeable = False
    return inner


def _recut(frame: np.ndarray, fit: MatFit, spot: Rect, last: _Card) -> _Card | None:
    """The card of ``last`` cut from ``frame`` as :func:`_find_card` cuts it (the same region, white balance and
    fit by its outline), the way up it lay in ``last`` kept instead of judged again (None: no card fits, or it lies
    turned from where it was: read the spot whole). :meth:`DiceTreasureReader.read` uses this only where nothing
    changed but the card's spaces."""
    if last.to_region is None or last.card_to_region is None:
        return None
    fitted, _, _ = _fit_card(frame, fit, spot)
    if fitted is None:
        return None
    img, to_region, card_to_region, out_size = fitted
    # The fitted rectangle's half turn is arbitrary: the one nearer the way the card lay last time.
    before = _card_to_region(last)
    corners = np.array([[(0, 0), (out_size[0], out_size[1])]], np.float64)
    at_last = cv2.perspectiveTransform(corners, before)[0]
    gap = {flip: float(np.abs(cv2.perspectiveTransform(corners, card_to_region @ _turn(out_size) if flip
                                                       else card_to_region)[0] - at_last).max())
           for flip in (False, True)}
    flip = gap[True] < gap[False]
    if gap[flip] > 2.0 * CARD_PX_PER_MM:  # the card moved (more than 2 mm): not the card as it lay
        return None
    upright = cv2.warpPerspective(img, card_to_region, out_size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
    card, _ = _upright(upright, _lab_image(upright), to_region, card_to_region, flip, last.orientation)
    return card


def _card_to_region(image: _Card) -> np.ndarray:
    """Upright card px -> px of the region it was cut from (:func:`_cut_region`), the half turn included."""
    assert image.card_to_region is not None
    if not image.flipped:
        return image.card_to_region
    return image.card_to_region @ _turn((image.bgr.shape[1], image.bgr.shape[0]))


def changed_spaces(card: MotifCard, image: _Card, changed: np.ndarray) -> set[int] | None:
    """The spaces (0-based, the deck file's order) of ``card`` lying on ``image`` whose picture changed, from the
    spot's glance pixels that changed (:meth:`DiceTreasureReader._glance`: the spot and 2 mm round it at
    :data:`GLANCE_PX_PER_MM`); None when some pixel changed away from every space (within :data:`SPACE_REACH_MM`
    of none), or the card's cut is not known: then the whole spot must be read."""
    if image.card_to_region is None:
        return None
    ys, xs = np.nonzero(changed)
    if not len(xs):
        return set()
    k = CARD_PX_PER_MM
    centres = np.array([[space_centre(card, s.pos) for s in card.spaces]], np.float64) * k
    region_px = cv2.perspectiveTransform(centres, _card_to_region(image))[0]
    # Region px (the spot and 5 mm round it at k) -> glance px (the spot and 2 mm round it at GLANCE_PX_PER_MM).
    at = (region_px / k - (REGION_MARGIN_MM - GLANCE_MARGIN_MM)) * GLANCE_PX_PER_MM
    pixels = np.column_stack([xs, ys]).astype(np.float64) + 0.5
    dist = np.linalg.norm(pixels[:, None, :] - at[None, :, :], axis=2) / GLANCE_PX_PER_MM
    near = dist <= SPACE_REACH_MM
    if not near.any(axis=1).all():
        return None
    return {int(i) for i in np.nonzero(near.any(axis=0))[0]}


def _background(lab: np.ndarray) -> np.ndarray:
    """The card's background colour: the colour most of the card is. The median of the card inside a 2 mm border,
    then twice the median of the pixels near that (spaces and coins cover about a third of a card)."""
    k = CARD_PX_PER_MM
    b = round(2.0 * k)
    pixels = lab[b:-b:2, b:-b:2].reshape(-1, 3)  # every other pixel: a median of a quarter is as good
    centre = np.median(pixels, axis=0)
    for _ in range(2):
        near = pixels[_distance(pixels, centre) < 25.0]
        if len(near) < 100:
            break
        centre = np.median(near, axis=0)
    return np.asarray(centre)


def _blobs(mask: np.ndarray, min_area: float, max_area: float, max_side: float) -> list[tuple[float, float]]:
    count, _, stats, centroids = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
    out = []
    for i in range(1, count):
        area, bw, bh = stats[i, cv2.CC_STAT_AREA], stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if min_area <= area <= max_area and max(bw, bh) <= max_side and area >= 0.45 * bw * bh:
            out.append((float(centroids[i][0]), float(centroids[i][1])))
    return out


def _coins(lab: np.ndarray, background: np.ndarray) -> int:
    """The coins in the card's top-left row: blobs of a coin's height that differ from the background, each
    counted by its width (neighbouring coins merge when the frame is coarse)."""
    k = CARD_PX_PER_MM
    # A coin differs from the background, or at least its dark rim does (gold on a yellow card).
    mask = (_distance(lab, background) > 15.0) | (lab[..., 0] < background[0] - 15.0)
    mask[round(15 * k):] = False
    mask[:, round(CARD_MM[0] / 2 * k):] = False
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, _, stats, centroids = cv2.connectedComponentsWithStats(mask)
    coins = 0
    d = 2 * COIN_RADIUS_MM * k
    for i in range(1, count):
        x, y, w, h = (stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP], stats[i, cv2.CC_STAT_WIDTH],
                      stats[i, cv2.CC_STAT_HEIGHT])
        # A coin's blob grows by the blur of a card seen at 1.2-1.4 px/mm and drawn at 4 (its dark rim's halo:
        # up to 1.7 coins high, seeds 4402-4404: a card read with no coins was in doubt at every deal); what touches
        # the picture's edge is the card's corner or the mat, never a coin (which lies 4 mm in).
        if x == 0 or y == 0:
            continue
        if 0.6 * d <= h <= COIN_BLOB_HIGH * d and 0.6 * d <= w and 4 * k <= centroids[i][1] <= 14 * k:
            coins += max(1, round((w - d) / (COIN_STEP_MM * k)) + 1)
    return max(coins, _coins_in_place(lab, background))


def _coins_in_place(lab: np.ndarray, background: np.ndarray) -> int:
    """The coins counted where the print puts them (:func:`coin_centre`): the first places in the row whose middle
    (a disc of :data:`COIN_CORE_MM`) is, on average, unlike the background by :data:`COIN_IN_PLACE`. A blob count
    misses coins that blur merges with the card's dark edge (indigo, purple), or that show only their gold middle
    (gold on orange, which differs by 12-20): seeds 4405, 4409, 4804, 4904, 5001 read too few coins at their deals.
    The disc's mean colour, not its pixels one by one: a plain background stays within a few levels of itself."""
    k = CARD_PX_PER_MM
    r = COIN_CORE_MM * k
    yy, xx = np.mgrid[-math.ceil(r):math.ceil(r) + 1, -math.ceil(r):math.ceil(r) + 1]
    disc = xx * xx + yy * yy <= r * r
    coins = 0
    for index in range(4):
        cx, cy = (round(v * k) for v in coin_centre(index))
        patch = lab[cy + yy.min():cy + yy.max() + 1, cx + xx.min():cx + xx.max() + 1]
        if patch.shape[:2] != disc.shape:
            break
        mean = patch[disc].reshape(-1, 3).mean(axis=0)
        if float(_distance(mean[None, :], background)[0]) <= COIN_IN_PLACE:
            break
        coins += 1
    return coins


def _upside_down(lab: np.ndarray) -> tuple[bool, float, _Found]:
    """Whether the card lies turned by half a turn, and how sure that is (0..1): its spaces' layout fits better
    the other way round (the layout sits below the card's middle, under the coins), or, when both ways fit as
    well, its coins are at the bottom (a weaker sign: coins are small). Also the background and the layout found
    on ``lab`` as it is (read_card's own, when the card is not turned)."""
    background = _background(lab)
    other = np.ascontiguousarray(lab[::-1, ::-1])
    up = find_spaces(lab, background)
    fit_up, fit_down = up[3], find_spaces(other, background)[3]
    if abs(fit_up - fit_down) > 0.08:
        return fit_down > fit_up, float(min(1.0, abs(fit_up - fit_down) / 0.15)), (background, up)
    top, bottom = _coins(lab, background), _coins(other, background)
    return bottom > top, 0.6 if top != bottom else 0.3, (background, up)


def find_spaces(lab: np.ndarray, background: np.ndarray) -> tuple[list[tuple[int, int]], int, int, float]:
    """The grid layout whose space squares best cover what is not background on the card: positions (column,
    row), the layout's columns and rows, and how well it fits (intersection over union, 0..1)."""
    k = CARD_PX_PER_MM
    area = np.zeros(lab.shape[:2], bool)
    area[round(17 * k):round((CARD_MM[1] - 1.2) * k), round(1.2 * k):round((CARD_MM[0] - 1.2) * k)] = True
    mask = ((_distance(lab, background) > 20.0) & area).astype(np.uint8)
    # Closed over ~2 mm: a die's pips and the bits of rim around it join into one shape.
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((round(2 * k) | 1,) * 2, np.uint8))
    # Fill the holes: a space whose fill is the background's colour shows only its rim.
    filled = mask.copy()
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 1, -1)
    seen = (filled > 0) & area
    half = (SPACE_MM / 2 + SPACE_RIM_MM) * k
    _rims_filled(seen, mask, half)
    best: tuple[float, list[tuple[int, int]], int, int] = (-1.0, [], 0, 0)
    for cols in (1, 2, 3):
        for rows in (1, 2, 3):
            occupied = []
            union = np.zeros_like(seen)
            for c in range(cols):
                for r in range(rows):
                    x, y = _slot((c, r), cols, rows)
                    x0, x1 = round(x * k - half * 0.75), round(x * k + half * 0.75)
                    y0, y1 = round(y * k - half * 0.75), round(y * k + half * 0.75)
                    if seen[y0:y1, x0:x1].mean() > 0.5:
                        occupied.append((c, r))
                        union[round(y * k - half):round(y * k + half), round(x * k - half):round(x * k + half)] = True
            spans = {c for c, _ in occupied} == set(range(cols)) and {r for _, r in occupied} == set(range(rows))
            if not spans:  # a layout is as wide and tall as its spaces
                continue
            iou = float((union & seen).sum() / max((union | seen).sum(), 1))
            if iou > best[0]:
                best = (iou, occupied, cols, rows)
    return best[1], best[2], best[3], max(best[0], 0.0)


def _rims_filled(seen: np.ndarray, mask: np.ndarray, half: float) -> None:
    """Marks as seen (in place) each space of any layout's slot that shows only its rim: a space whose fill is the
    card's own colour, with no pips, is an outline round the background, and blur and JPEG break the outline, so
    the holes are not filled (solo seed 5003: a yellow space on a yellow card, a green one on a green card; both
    cards had no layout and were asked at their deals). A slot counts when the ring where its outline lies is
    mostly unlike the background and its middle mostly like it (a slot between two spaces has their prints in
    its middle)."""
    k = CARD_PX_PER_MM
    r = math.ceil(RIM_RING[1] * half)
    # The ring, the middle and the space are squares about the slot's middle (Chebyshev distance on whole pixels):
    # their sums come from one integral image, four look-ups each.
    ring_out, ring_in = math.floor(RIM_RING[1] * half), math.ceil(RIM_RING[0] * half) - 1
    middle, square = math.ceil(0.6 * half) - 1, math.ceil(half) - 1
    total = cv2.integral(mask)

    def box(cx: int, cy: int, n: int) -> tuple[int, int]:
        """The mask's sum over the square of half side ``n`` px about (cx, cy), and its pixel count."""
        return (int(total[cy + n + 1, cx + n + 1] - total[cy - n, cx + n + 1] - total[cy + n + 1, cx - n]
                    + total[cy - n, cx - n]), (2 * n + 1) ** 2)

    slots = {_slot((c, rr), cols, rows) for cols in (1, 2, 3) for rows in (1, 2, 3)
             for c in range(cols) for rr in range(rows)}
    for x, y in slots:
        cx, cy = round(x * k), round(y * k)
        if cy - r < 0 or cx - r < 0 or cy + r + 1 > mask.shape[0] or cx + r + 1 > mask.shape[1]:
            continue
        (outer, outer_n), (inner, inner_n), (mid, mid_n) = box(cx, cy, ring_out), box(cx, cy, ring_in), box(
            cx, cy, middle)
        if (outer - inner) / (outer_n - inner_n) > 0.5 and mid / mid_n < 0.2:
            seen[cy - square:cy + square + 1, cx - square:cx + square + 1] = True


def _space_print(lab: np.ndarray, centre_px: tuple[float, float], colours: CardColours) -> SpaceReading:
    """A space's requirement from its print: the fill colour (between the badge and the outline) and the pips on
    the badge."""
    k = CARD_PX_PER_MM
    cx, cy = centre_px
    half = round(8.6 * k)
    x0, y0 = round(cx) - half, round(cy) - half
    patch = lab[max(y0, 0):y0 + 2 * half + 1, max(x0, 0):x0 + 2 * half + 1]
    yy, xx = np.mgrid[0:patch.shape[0], 0:patch.shape[1]]
    dx, dy = (xx + max(x0, 0) - cx) / k, (yy + max(y0, 0) - cy) / k
    cheb = np.maximum(abs(dx), abs(dy))
    ring = (cheb > 6.7) & (cheb < 7.7) & (np.hypot(dx, dy) > BADGE_RADIUS_MM + 0.5)
    fill = np.median(patch[ring].reshape(-1, 3), axis=0)
    colour, _, colour_conf = _nearest(fill, colours.spaces)
    badge = np.hypot(dx, dy) < BADGE_RADIUS_MM - 0.6
    badge_lab = patch[badge].reshape(-1, 3)
    level = float(np.percentile(badge_lab[:, 0], 75))
    chroma = float(np.hypot(*np.median(badge_lab[:, 1:], axis=0)))
    value: int | None = None
    value_conf = 1.0
    if level > 70 and chroma < 20:
        dark = badge & (patch[..., 0] < level - 28)
        pip_area = math.pi * (PIP_RADIUS_MM * k) ** 2
        pips = _blobs(dark, 0.35 * pip_area, 2.2 * pip_area, 3.6 * PIP_RADIUS_MM * k)
        odd = int(cv2.connectedComponents(dark.astype(np.uint8))[0]) - 1 - len(pips)
        # Second opinion: the dark area in pips (merged pips still count by their area).
        by_area = round(float(dark.sum()) / pip_area)
        if pips and not odd and len(pips) <= 6:
            value = len(pips)
            # Blur spreads dark ink: the area may count up to twice the pips, but not fewer than half of them.
            value_conf = 1.0 if 0.5 * value <= by_area <= 2 * value + 1 else 0.6
        elif 1 <= by_area <= 6:
            value, value_conf = by_area, 0.5
        elif odd or pips:
            value_conf = 0.3
    return SpaceReading((0, 0), (cx / k, cy / k), None if colour == "white" else colour, value, colour_conf, value_conf)


def read_card(frame: np.ndarray, fit: MatFit, zone: Zone, spot: int, colours: CardColours | None = None) -> tuple[
        CardReading, _Card | None]:
    """Read the card on spot ``spot`` of ``zone`` (the frame's mat ``fit``), and its upright image."""
    colours = colours or CardColours.nominal()
    rect = card_spots(zone)[spot]
    card, size_mm, flip, why = _find_card(frame, fit, rect)
    if card is None:
        return CardReading(zone.key, spot, False, size_mm=size_mm, problems=(why,) if why != "no card" else ()), None
    k = CARD_PX_PER_MM
    if card.found is not None:  # found while deciding which way up it lies, on this very image
        background_lab, (positions, cols, rows, fit_iou) = card.found
    else:
        background_lab = _background(card.lab)
        positions, cols, rows, fit_iou = find_spaces(card.lab, background_lab)
    background, _, background_conf = _nearest(background_lab, colours.backgrounds)
    coins = _coins(card.lab, background_lab)
    spaces = []
    for pos in sorted(positions, key=lambda p: (p[1], p[0])):
        x, y = _slot(pos, cols, rows)
        read = _space_print(card.lab, (x * k, y * k), colours)
        spaces.append(SpaceReading(pos, (x, y), read.colour, read.value, read.colour_confidence, read.value_confidence))
    problems = []
    # The published composition: a card with n coins has n + 2 spaces; a mismatch is a misreading.
    coins_conf = 1.0 if coins + 2 == len(spaces) else 0.3
    if coins_conf < 1:
        problems.append(f"{coins} coins but {len(spaces)} spaces read")
    layout_conf = float(np.clip((fit_iou - 0.55) / 0.25, 0, 1))
    corners = cv2.perspectiveTransform(np.array([[(0, 0), (CARD_MM[0] * k, 0), (CARD_MM[0] * k, CARD_MM[1] * k),
                                                  (0, CARD_MM[1] * k)]], np.float64), card.card_to_frame)[0]
    other = _coins(np.ascontiguousarray(card.lab[::-1, ::-1]), background_lab)
    reading = CardReading(zone.key, spot, True, background, background_conf, coins, coins_conf, tuple(spaces),
                          layout_conf, flip, other, card.orientation, size_mm,
                          tuple((float(x), float(y)) for x, y in corners), tuple(problems))
    return reading, card


def turned(reading: CardReading, image: _Card) -> tuple[CardReading, _Card]:
    """The reading and image of the same card taken the other way round (half a turn), for when the coins were
    too faint to say which way it lies."""
    if not reading.spaces:
        cols = rows = 1
    else:
        cols = max(s.pos[0] for s in reading.spaces) + 1
        rows = max(s.pos[1] for s in reading.spaces) + 1
    spaces = tuple(sorted((SpaceReading((cols - 1 - s.pos[0], rows - 1 - s.pos[1]),
                                        (CARD_MM[0] - s.centre_mm[0], CARD_MM[1] - s.centre_mm[1]), s.colour, s.value,
                                        s.colour_confidence, s.value_confidence, s.covered) for s in reading.spaces),
                          key=lambda s: (s.pos[1], s.pos[0])))
    h, w = image.bgr.shape[:2]
    flipped = _Card(cv2.rotate(image.bgr, cv2.ROTATE_180), np.ascontiguousarray(image.lab[::-1, ::-1]),
                    image.card_to_frame @ _turn((w, h)), image.orientation, None, image.to_region, image.card_to_region,
                    not image.flipped)
    corners = reading.corners_px[2:] + reading.corners_px[:2]
    again = replace(reading, coins=reading.coins_other_end, coins_other_end=reading.coins, spaces=spaces,
                    upside_down=not reading.upside_down, corners_px=corners)
    return again, flipped


# --- enrolment and identification ---------------------------------------------------------------------------


def adjacency_problems(reading: CardReading) -> list[str]:
    """Where the grid positions would make neighbours of spaces that are not one pitch apart on the card, or
    not make neighbours of spaces that are (the deck file holds grid positions; the card holds geometry)."""
    out = []
    spaces = reading.spaces
    for i, a in enumerate(spaces):
        for b in spaces[i + 1:]:
            grid = abs(a.pos[0] - b.pos[0]) + abs(a.pos[1] - b.pos[1]) == 1
            dx, dy = abs(a.centre_mm[0] - b.centre_mm[0]), abs(a.centre_mm[1] - b.centre_mm[1])
            near = min(dx, dy) < 0.25 * SPACE_PITCH_MM and max(dx, dy) < 1.25 * SPACE_PITCH_MM
            if grid != near:
                out.append(f"spaces {list(a.pos)} and {list(b.pos)}: the grid says {'' if grid else 'not '}next to "
                           f"each other, the card {'' if near else 'not '}")
    return out


@dataclass(frozen=True)
class Enrolment:
    """A card read for the deck file: the entry (the deck file's format), how sure, and what to check."""

    entry: dict[str, Any]
    confidence: float
    doubts: tuple[str, ...]

    @property
    def sure(self) -> bool:
        return self.confidence >= SURE and not self.doubts


def enrol(reading: CardReading, card_id: str) -> Enrolment:
    """The deck file entry for a card read on the enrolment spot (spaces listed row by row), and the doubts the
    owner should check on the page before it is saved."""
    if not reading.found or reading.background is None:
        raise ValueError(f"spot {reading.spot + 1} of {reading.zone}: no card to enrol"
                         + (f" ({'; '.join(reading.problems)})" if reading.problems else ""))
    doubts = list(reading.problems) + adjacency_problems(reading)
    if reading.background_confidence < SURE:
        doubts.append(f"background looks {reading.background}, but not clearly")
    for s in reading.spaces:
        if s.colour_confidence < SURE:
            doubts.append(f"space {list(s.pos)}: colour looks {s.colour or 'white (any)'}, but not clearly")
        if s.value_confidence < SURE:
            doubts.append(f"space {list(s.pos)}: value looks {s.value or 'any'}, but not clearly")
    entry = {
        "id": card_id,
        "background": reading.background,
        "coins": reading.coins,
        "spaces": [{"at": list(s.pos), "colour": s.colour or "any", "value": "any" if s.value is None else s.value}
                   for s in reading.spaces],
    }
    return Enrolment(entry, reading.confidence, tuple(doubts))


def canonical_entry(card: MotifCard) -> dict[str, Any]:
    """A deck card as :func:`enrol` writes it (spaces row by row), for comparing an enrolment with a file."""
    spaces = sorted(card.spaces, key=lambda s: (s.pos[1], s.pos[0]))
    return {"id": card.id, "background": card.background, "coins": card.coins,
            "spaces": [{"at": list(s.pos), "colour": s.colour or "any", "value": "any" if s.value is None else s.value}
                       for s in spaces]}


@dataclass(frozen=True)
class Identification:
    """Which deck card a reading is: the best card, its score (0..1), the runner-up and a confidence from the
    margin between them. ``card`` is None when nothing in the deck fits."""

    card: str | None
    score: float
    runner_up: str | None
    confidence: float
    upside_down: bool = False


def _match(reading: CardReading, card: MotifCard, covered: frozenset[tuple[int, int]]) -> float:
    """How well a reading fits a deck card (0..1): background, coins, the spaces' layout, visible requirements."""
    positions = {s.pos for s in card.spaces}
    seen = {s.pos for s in reading.spaces}
    # A space missed or seen extra (a die of the background's colour hides its rim) costs part of the layout.
    layout = len(positions & seen) / max(len(positions | seen), 1)
    score = 0.3 * layout + 0.25 * (reading.background == card.background) + 0.15 * (reading.coins == card.coins)
    by_pos = {s.pos: s for s in card.spaces}
    checks = 0
    good = 0.0
    for s in reading.spaces:
        want = by_pos.get(s.pos)
        if want is None or s.pos in covered:
            continue
        checks += 2
        good += (s.colour == want.colour) + (s.value == want.value)
    score += 0.3 * (good / checks if checks else 0.5)
    # A background read clearly rules a card out (the majority colour of the card reads reliably; a layout or a
    # requirement can be misread where dice hide the print, so they only lower the score).
    if reading.background != card.background and reading.background_confidence >= SURE:
        return min(score, 0.35)
    return score


def identify(reading: CardReading, deck: Deck | Sequence[MotifCard],
             covered: frozenset[tuple[int, int]] = frozenset()) -> Identification:
    """The deck card ``reading`` is (``covered``: positions whose print a die hides, ignored)."""
    cards = deck.motif_cards if isinstance(deck, Deck) else tuple(deck)
    if not reading.found or not cards:
        return Identification(None, 0.0, None, 0.0)
    covered = covered | {s.pos for s in reading.spaces if s.covered}
    scored = sorted(((_match(reading, c, covered), c.id) for c in cards), reverse=True)
    best, second = scored[0], scored[1] if len(scored) > 1 else (0.0, None)
    margin = best[0] - second[0]
    if best[0] < 0.55 and not (best[0] >= 0.4 and margin >= 0.15):
        return Identification(None, best[0], best[1], 0.0, reading.upside_down)
    # A reading that contradicts itself (coins that do not go with the spaces, a layout that fits badly) is not
    # trusted however well it matches: a misread layout can match a wrong card best.
    confidence = float(min(1.0, margin / 0.15, reading.coins_confidence, 0.4 + reading.layout_confidence))
    return Identification(best[1], best[0], second[1], confidence, reading.upside_down)


# --- the dice on the spaces ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpaceDie:
    """What lies on one space of an identified card: the die (``None`` = empty), how sure, and why not."""

    card: str
    space: int  # 1-based, the deck file's order
    die: Die | None
    confidence: float
    unsure: bool
    why: str = ""
    centre_px: tuple[float, float] = (0.0, 0.0)
    reading: DieReading | None = None


def colour_margin(palette: Palette, lab: Sequence[float]) -> float:
    """How much nearer a die's colour is to its palette colour than to the next one (CIELAB, lightness halved)."""
    d = sorted(distance(lab, ref) for _, ref in palette.colours)
    return d[1] - d[0] if len(d) > 1 else 100.0


def _runner_up_colour(palette: Palette, lab: Sequence[float], colour: str) -> str:
    """The palette colour next nearest to ``lab`` after ``colour`` (the one a die read ``colour`` in doubt may be)."""
    ranked = sorted((distance(lab, ref), name) for name, ref in palette.colours if name != colour)
    return ranked[0][1] if ranked else ""


def dicetreasure_palette() -> Palette:
    """The five Dice Treasure dice colours, nominal (taught at the table with ``vision.colour.calibrate``)."""
    return nominal_palette("dicetreasure")


def _occupied_classical(card: _Card, centre: tuple[float, float], colour: str | None, value: int | None) -> float:
    """Evidence (0..1) that something covers the space's print, from what the print would show there: a white
    middle (a value badge, or a white space) that is not white, or a plain coloured space that has spots."""
    k = CARD_PX_PER_MM
    cx, cy = centre
    r = round(5.2 * k)
    patch = card.lab[max(round(cy) - r, 0):round(cy) + r + 1, max(round(cx) - r, 0):round(cx) + r + 1]
    yy, xx = np.mgrid[0:patch.shape[0], 0:patch.shape[1]]
    inside = np.hypot(xx - min(r, round(cx)), yy - min(r, round(cy))) <= r
    pixels = patch[inside].reshape(-1, 3)
    if value is not None or colour is None:
        white = (pixels[:, 0] > 72) & (np.hypot(pixels[:, 1], pixels[:, 2]) < 18)
        share = float(white.mean())
        # Empty: white but for printed pips (at most ~20%); a die: its pips at most (white pips on a dark die).
        return float(np.clip((0.62 - share) / 0.3, 0, 1))
    # A plain coloured space: a die's pips (anywhere on its top face) stand out from its body.
    r = round(5.5 * k)  # inside the printed outline (8 mm out) even where the card is fitted 1 mm off
    square = card.lab[max(round(cy) - r, 0):round(cy) + r + 1, max(round(cx) - r, 0):round(cx) + r + 1]
    median = np.median(square.reshape(-1, 3), axis=0)
    # Smoothed over about a pip's radius first: camera noise is a pixel's grain, a pip is a blob (noise 9 on tuning
    # seed 4901's frames: 12 of 93 empty plain spaces read as covered when single pixels counted). Pips differ from
    # the die's body in colour (dark pips on a yellow die) or in lightness alone: a green die's light green pips on
    # a green space, under a 1.2 px blur, lay within the colour distance's line (lightness is halved there) and the
    # die was read surely as no die (2 players, tuning seed 4904: 28 of 59 dice of the space's own colour).
    smooth = cv2.GaussianBlur(square, (0, 0), PIP_SMOOTH_MM * k).reshape(-1, 3)
    spots = max(float((_distance(smooth, median) > 14).mean()),
                float((np.abs(smooth[:, 0] - median[0]) > PIP_LIGHTNESS).mean()))
    return float(np.clip((spots - 0.02) / 0.04, 0, 1))


def read_space_dice(frame: np.ndarray, card: MotifCard, reading: CardReading, image: _Card,
                    recognizer: DiceRecognizer) -> tuple[SpaceDie, ...]:
    """The die on each space of ``card`` (identified from ``reading``), in the deck file's order.

    Whether a space holds a die is the classical stage's answer (the print expected there from the deck, or
    not): the face model's "not a die" class was trained on table clutter and takes a printed space with pips
    for a die. The die reader then reads the face and colour of the dice found; its doubts make the space
    unsure, and so does a classical answer near its threshold."""
    k = CARD_PX_PER_MM
    centres = [(x * k, y * k) for x, y in (space_centre(card, s.pos) for s in card.spaces)]
    evidence = [_occupied_classical(image, centres[i], s.colour, s.value) for i, s in enumerate(card.spaces)]
    occupied = [i for i, e in enumerate(evidence) if e >= 0.5]
    candidates = [DieCandidate(centres[i], DIE_MM * k, estimate_angle(image.bgr, centres[i], DIE_MM * k), 1.0)
                  for i in occupied]
    found: dict[int, DieReading] = {}
    if candidates:
        recognizer.detector = FixedDetector(candidates)
        for d in recognizer.read_candidates(image.bgr, candidates):
            i = min(occupied, key=lambda j: math.dist(centres[j], d.centre))
            found[i] = d
    frame_px = cv2.perspectiveTransform(np.array([centres], np.float64), image.card_to_frame)[0]
    out = []
    for i in range(len(card.spaces)):
        centre = (float(frame_px[i][0]), float(frame_px[i][1]))
        sure_of_place = abs(evidence[i] - 0.5) * 2  # 0 at the threshold, 1 far from it
        if i not in occupied:
            unsure = sure_of_place < SURE
            out.append(SpaceDie(card.id, i + 1, None, sure_of_place, unsure,
                                "looks empty, but not clearly" if unsure else "", centre))
            continue
        die_read = found.get(i)
        if die_read is None:
            out.append(SpaceDie(card.id, i + 1, None, 0.3, True, "something covers the space, but no die is read",
                                centre))
            continue
        d = die_read
        colour_ok = d.colour_distance < COLOUR_FAR and colour_margin(recognizer.palette, d.lab) >= COLOUR_MARGIN
        why = []
        if d.unsure or d.confidence < CONFIDENCE_FLOOR:
            why.append(f"face hard to read (looks like {d.value})")
        elif PIPS_MUST_AGREE and d.pips != d.value:
            # A die on a printed space is seen at ~1.3 px/mm with the space's outline round it: the model alone
            # was sure and wrong there (docs/dicetreasure-table.md), so the pip count must agree too.
            why.append(f"face not confirmed by its pips (looks like {d.value})")
        if not colour_ok:
            why.append(f"colour unclear (looks {d.colour})")
        if sure_of_place < SURE:
            why.append("the space may be empty")
        conf = min(sure_of_place, d.confidence, 1.0 if colour_ok else 0.5)
        out.append(SpaceDie(card.id, i + 1, Die(d.value, d.colour), conf, bool(why), "; ".join(why), centre, d))
    return tuple(out)


# --- loose dice ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LooseDie:
    """A die lying in a zone (the tray, a reserve): the die, how sure, and its centre in the frame."""

    zone: str
    die: Die
    confidence: float
    unsure: bool
    centre_px: tuple[float, float]
    lab: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: The other colour the die may be when its colour is its only doubt (the face confirmed, the colour near
    #: two palette colours: blue and purple mostly); "" otherwise. The game may know which of the two it is.
    could_be: str = ""


def _pips_confirm(d: DieReading) -> bool:
    """Whether a loose die's face is confirmed: the pip count agrees with the face model, or the counter found no
    count at all and the model is at least :data:`LOOSE_MODEL_ALONE_ABOVE` sure (not cocked)."""
    if not PIPS_MUST_AGREE or d.pips == d.value:
        return True
    return d.pips is None and not d.cocked and d.confidence >= LOOSE_MODEL_ALONE_ABOVE


def read_loose(frame: np.ndarray, fit: MatFit, zone: Zone, recognizer: DiceRecognizer,
               detector: Any, rectified: np.ndarray | None = None) -> tuple[LooseDie, ...]:
    """The dice in a zone, from the die reader on the zone rectified at :data:`ZONE_PX_PER_MM` (``rectified``: that
    picture, already cut from ``frame``)."""
    k = ZONE_PX_PER_MM
    rect = zone.rect
    to_zone = spot_transform(fit, rect, k)
    size = (round(rect.w * k), round(rect.h * k))
    if rectified is not None and rectified.shape[:2] == (size[1], size[0]):
        img = rectified
    else:
        img = plain_warp(frame, to_zone, size)
    lab8 = _lab8(img)
    lab = _lab_of(lab8)
    # Lighter than the 60th percentile: on levels, lighter than the level at or below it (np.percentile lies between
    # two neighbouring levels of the data, and no pixel lies between them).
    rank = int(0.6 * (lab8.shape[0] * lab8.shape[1] - 1))
    light = lab8[..., 0] > _ranked_levels(lab8, None, (rank,), (0,))[0, 0]
    paper = light & (np.hypot(lab[..., 1], lab[..., 2]) < 15)
    img = white_balance(img, paper)
    recognizer.detector = detector
    dice = recognizer.read(img)
    dice += _second_look(img, dice, recognizer, k)
    back = np.linalg.inv(to_zone)
    out = []
    for d in dice:
        p = cv2.perspectiveTransform(np.array([[d.centre]], np.float64), back)[0, 0]
        colour_ok = d.colour_distance < COLOUR_FAR and colour_margin(recognizer.palette, d.lab) >= COLOUR_MARGIN
        conf = d.confidence if colour_ok else min(d.confidence, 0.5)
        face_ok = not d.unsure and _pips_confirm(d) and d.confidence >= SURE
        unsure = not face_ok or not colour_ok or conf < SURE
        out.append(LooseDie(zone.key, Die(d.value, d.colour), conf, unsure,
                            (float(p[0]), float(p[1])), d.lab,
                            _runner_up_colour(recognizer.palette, d.lab, d.colour)
                            if face_ok and not colour_ok and d.colour_distance < COLOUR_FAR else ""))
    return tuple(out)


#: Something on a loose zone's paper, once the dice read are painted over, this share of a die's square or larger is
#: looked at again (:func:`_second_look`).
MISSED_DIE_AREA = 0.4


def _second_look(img: np.ndarray, dice: Sequence[DieReading], recognizer: DiceRecognizer,
                 k: float) -> list[DieReading]:
    """Dice the die reader missed in a loose zone: the dice it read painted over with the paper's colour, what is
    left that is not paper and as large as a good part of a die is read again on that picture. Two dice lying side
    by side were read as one (the die reader keeps one of two finds that overlap), and the tray was short of a die
    at the roll: asked on 4 of the 11 questions of solo seed 5003."""
    lab8 = _lab8(img)
    lab = _lab_of(lab8)
    paper = _lab_median(lab8)
    ink = (_distance(lab, paper) > 25.0).astype(np.uint8)
    painted = img.copy()
    lo, hi = _median_levels(img)
    fill = tuple(float(v) for v in (lo + hi) / 2.0)  # np.median of uint8 pixels: the float64 mean of the middle two
    for d in dice:
        # The die's own square (its nominal side, a little more for its shadow), not the reader's box, which may
        # reach over the die beside it.
        corners = cv2.boxPoints(((d.centre[0], d.centre[1]), (1.1 * DIE_MM * k,) * 2, d.angle))
        corners = np.round(corners).astype(np.int32)
        cv2.fillConvexPoly(ink, corners, 0)
        cv2.fillConvexPoly(painted, corners, fill)
    ink = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink)
    big = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= MISSED_DIE_AREA * (DIE_MM * k) ** 2]
    if not big:
        return []
    out: list[DieReading] = []
    side = DIE_MM * k
    for d in recognizer.read(painted):
        x, y = (min(max(round(v), 0), n - 1) for v, n in zip(d.centre, (img.shape[1], img.shape[0]), strict=True))
        # A find on what is left of a die read already (its square painted a little off) is that die again.
        again = any(math.dist(d.centre, e.centre) < 0.8 * side for e in (*dice, *out))
        if labels[y, x] in big and not again:
            out.append(d)
    return out


#: A loose die in doubt between two colours this near (CIELAB, lightness halved) to the same frame's sure dice of the
#: colour read is that colour, when the frame has no sure die of the other: on the tuning seeds' renders (4801-4804,
#: every other still frame) the dice of the colour read lay 2-17 from them, the dice truly of the other colour 18.5
#: or more (blue and purple, which lie 25 apart in the taught palettes).
FRAME_SAME_COLOUR = 10.0


def by_frame_colours(loose: Mapping[str, tuple[LooseDie, ...]]) -> dict[str, tuple[LooseDie, ...]]:
    """The loose dice of one frame, each die whose colour was its only doubt (between the colour read and its
    ``could_be``) named surely where the dice read surely *in this frame* (every loose zone: one light, one white
    balance) show both colours and it is nearer to one's mean by at least :data:`COLOUR_MARGIN`, or show only the
    colour read and it lies within :data:`FRAME_SAME_COLOUR` of their mean.

    A taught palette is one die per colour seen once; a blue die lying otherwise (a face with more pips, another
    tilt) came out between the taught blue and purple on many rolls (solo seed 4803, a tuning seed: blue dice at
    15-20 from the taught blue, 19-22 from purple), while the same frame's sure blue and purple dice were 7-12 and
    23-26 from it. Nothing is named where the colour read has no sure die in the frame."""
    sure: dict[str, list[tuple[float, float, float]]] = {}
    for dice in loose.values():
        for d in dice:
            if not d.unsure and d.die.colour:
                sure.setdefault(d.die.colour, []).append(d.lab)
    refs = {colour: tuple(float(v) for v in np.mean(labs, axis=0)) for colour, labs in sure.items()}
    out: dict[str, tuple[LooseDie, ...]] = {}
    for zone, dice in loose.items():
        named = []
        for d in dice:
            if d.could_be and d.die.colour in refs and d.could_be in refs:
                ranked = sorted((distance(d.lab, refs[c]), c) for c in (d.die.colour, d.could_be))
                (near, colour), (far, _) = ranked
                if far - near >= COLOUR_MARGIN and near < COLOUR_FAR:
                    d = replace(d, die=Die(d.die.value, colour), confidence=SURE, unsure=False, could_be="")
            elif d.could_be and d.die.colour in refs and distance(d.lab, refs[d.die.colour]) <= FRAME_SAME_COLOUR:
                # Only the colour read has sure dice in this frame, and the die looks like them.
                d = replace(d, confidence=SURE, unsure=False, could_be="")
            named.append(d)
        out[zone] = tuple(named)
    return out


def teach_palette(reader: DiceTreasureReader, frame: np.ndarray, registration: Registration) -> Palette:
    """The dice colours of this table, from one die of each of the five colours laid in the tray (any order):
    :func:`vision.colour.calibrate` on the tray's dice as the reader sees them (white-balanced on the mat).
    Raises :class:`vision.colour.PaletteError` when the tray does not show exactly one die per colour."""
    view = registration.zone("tray")
    if view is None:
        raise PaletteError("the tray is not in view: the palette is taught from dice laid in the tray")
    dice = read_loose(frame, view.fit, view.zone, reader.recognizer, reader.detector)
    reader.recognizer.detector = reader.detector
    base = dicetreasure_palette()
    return calibrate([(d.centre_px, d.lab) for d in dice], base).palette


# --- a whole table ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardOnTable:
    """A card spot of the table: what was read, which deck card it is, and the dice on its spaces."""

    reading: CardReading
    identity: Identification
    dice: tuple[SpaceDie, ...] = ()


@dataclass(frozen=True)
class TableReading:
    """One frame of a Dice Treasure table: every card found, the loose dice per zone, and every problem."""

    cards: tuple[CardOnTable, ...]
    loose: Mapping[str, tuple[LooseDie, ...]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def card(self, card_id: str) -> CardOnTable | None:
        return next((c for c in self.cards if c.identity.card == card_id), None)


class DiceTreasureReader:
    """Reads Dice Treasure tables. Load once (the die reader's models load in the constructor), then :meth:`read`
    per frame with the frame's registration. ``deck`` is the enrolled deck the cards are identified against."""

    def __init__(self, deck: Deck, recognizer: DiceRecognizer | None = None, palette: Palette | None = None,
                 colours: CardColours | None = None, threads: int = 1) -> None:
        self.deck = deck
        self.colours = colours or CardColours.nominal()
        if recognizer is None:
            recognizer = DiceRecognizer(palette=palette or dicetreasure_palette(), threads=threads)
        elif palette is not None:
            recognizer.palette = palette
        self.recognizer = recognizer
        self.detector = recognizer.detector
        #: Card spot (zone key, spot) -> the card identified there with confidence and its background: a dealt
        #: card stays on its spot all round, so dice hiding its print later do not make it doubtful again.
        self.known: dict[tuple[str, int], tuple[str, str, bool]] = {}
        #: Card spot or loose zone -> its picture at :data:`GLANCE_PX_PER_MM` when last read, and what was read:
        #: a spot whose picture has not changed is not read again (most of a table lies still from turn to turn).
        self._glances: dict[Any, tuple[np.ndarray, Any]] = {}
        #: Reuse readings of unchanged spots and zones (:meth:`read`); off: every frame is read from scratch.
        self.reuse = True
        #: Card spot or loose zone -> its picture at :data:`GLANCE_PX_PER_MM` in the frame last read (rectified
        #: on the mat: the patches a caller's change gate compares, see ``vision.change``).
        self.pictures: dict[Any, np.ndarray] = {}
        #: Card spot -> the card last identified there (sure or not), its background read and which way up it
        #: lay: what :meth:`settle` keeps when the caller learns that the card is that one.
        self._identified: dict[tuple[str, int], tuple[str, str, bool]] = {}
        #: Card spot -> the upright image of the card last identified surely there (its cut: :func:`_recut`).
        self._images: dict[tuple[str, int], _Card] = {}
        #: The frame's warps into glances, their sample maps kept while the mats' homographies are (a still camera).
        self._warps = KeptWarps()

    def forget(self) -> None:
        """Forget which card lies on which spot (a new round: new cards are dealt)."""
        self.known.clear()
        self._glances.clear()
        self._identified.clear()
        self._images.clear()

    def settle(self, key: tuple[str, int], card_id: str) -> bool:
        """The caller knows that the card last identified in doubt on spot ``key`` is ``card_id`` (the players
        confirmed it, or the dice lying on it are the game's on that card and not on its look-alike): the spot keeps
        it from now on, as a card seen clearly, while its background agrees (until :meth:`forget`). Only the card
        the reader itself named there is kept (True); another (a swap) is not taken on the caller's word."""
        last = self._identified.get(key)
        if last is None or last[0] != card_id:
            return False
        self.known[key] = last
        self._glances.pop(key, None)  # read again (with the card known) the next time
        return True

    def _glance(self, key: Any, frame: np.ndarray, fit: MatFit, rect: Rect) -> tuple[np.ndarray, Any]:
        """A coarse picture of ``rect`` (3 x 3 sums, :func:`_box_sums`) and the reading made of it last time, if it has
        not changed since (None otherwise). Changed: some 1.5 mm patch differs by more than :data:`GLANCE_CHANGE`
        grey levels in a colour channel (a die placed or taken, a card laid: far more; light noise and JPEG: far
        less)."""
        k = GLANCE_PX_PER_MM
        region = _grow(rect, GLANCE_MARGIN_MM)
        picture = self._warps(frame, spot_transform(fit, region, k), (round(region.w * k), round(region.h * k)))
        self.pictures[key] = picture
        small = _box_sums(picture)
        last = self._glances.get(key)
        if not self.reuse or last is None or last[0].shape != small.shape:
            return small, None
        if cv2.norm(small, last[0], cv2.NORM_INF) > GLANCE_CHANGE * GLANCE_BOX_AREA:  # the largest difference
            return small, None
        return small, last[1]

    def set_palette(self, palette: Palette) -> None:
        """Use a taught palette (:func:`teach_palette`) for the dice from now on."""
        self.recognizer.palette = palette

    def read(self, frame: np.ndarray, registration: Registration, loose: bool = True,
             among: Sequence[str] | Mapping[str, Sequence[str]] | None = None) -> TableReading:
        """Every card on the located card spots, the dice on them, and (``loose``) the loose dice. ``among``
        limits identification to these card ids (the cards the game has dealt), or, as a mapping, each zone's
        spots to that zone's ids (the cards the game has on that mat: a look-alike card on another player's mat
        is no rival; a zone not named takes any of them)."""
        per_zone = {key: frozenset(ids) for key, ids in among.items()} if isinstance(among, Mapping) else None
        if per_zone is not None:
            wanted: set[str] | None = set().union(*per_zone.values())
        else:
            wanted = set(among) if among is not None else None
        self.pictures = {}
        self._warps.sweep()  # the glances' maps of homographies no longer in use go
        deck_cards = tuple(c for c in self.deck.motif_cards if wanted is None or c.id in wanted)
        problems = _table_problems(registration)
        loose_dice: dict[str, tuple[LooseDie, ...]] = {}
        seen: list[tuple[tuple[str, int], Zone, CardReading, _Card | None]] = []
        reused: dict[tuple[str, int], CardOnTable] = {}
        carried: set[tuple[str, int]] = set()  # spots read again keeping their card (_spaces_again)
        glances: dict[Any, np.ndarray] = {}
        for view in registration.zones:
            zone = view.zone
            if card_spots(zone):
                for spot, rect in enumerate(card_spots(zone)):
                    glances[(zone.key, spot)], last = self._glance((zone.key, spot), frame, view.fit, rect)
                    if last is not None:
                        last_problems, last_card = last
                        problems.extend(last_problems)
                        if last_card is not None:
                            reused[(zone.key, spot)] = last_card
                        continue
                    again = self._spaces_again((zone.key, spot), frame, view.fit, rect, glances[(zone.key, spot)],
                                               among is not None, wanted, per_zone)
                    if again is not None:
                        problems.extend(again[0])
                        reused[(zone.key, spot)] = again[1]
                        carried.add((zone.key, spot))
                        continue
                    if _paper_only(glances[(zone.key, spot)]):
                        # Nothing but paper on the spot: no card to look for (the middle is empty most of a game).
                        self._glances[(zone.key, spot)] = (glances[(zone.key, spot)], ([], None))
                        continue
                    reading, image = read_card(frame, view.fit, zone, spot, self.colours)
                    spot_problems = [f"{zone.label}, card {spot + 1}: {p}" for p in reading.problems]
                    problems.extend(spot_problems)
                    if reading.found and image is not None:
                        seen.append(((zone.key, spot), zone, reading, image))
                    else:
                        self._glances[(zone.key, spot)] = (glances[(zone.key, spot)], (spot_problems, None))
            elif loose and zone.name in ("tray", "common-reserve", "reserve"):
                glance, last = self._glance(zone.key, frame, view.fit, zone.rect)
                if last is None:
                    last = read_loose(frame, view.fit, zone, self.recognizer, self.detector,
                                      _inside_glance(self.pictures[zone.key]))
                    self._glances[zone.key] = (glance, last)
                loose_dice[zone.key] = last
        loose_dice = by_frame_colours(loose_dice)
        cards: list[CardOnTable] = list(reused.values())
        # Cards reused are surely where they were: no other spot may take them.
        for card in cards:
            if card.identity.card is not None:
                deck_cards = tuple(c for c in deck_cards if c.id != card.identity.card)
        identities = self._assign(seen, deck_cards, wanted is not None, per_zone, len(carried))
        for (key, zone, reading, image), identity in zip(seen, identities, strict=True):
            assert image is not None
            if identity.upside_down != reading.upside_down:
                reading, image = turned(reading, image)
            spot_problems = [p for p in problems if p.startswith(f"{zone.label}, card {key[1] + 1}: ")]
            if identity.card is None:
                problems.append(f"{zone.label}, card {key[1] + 1}: not a card of the deck "
                                f"'{self.deck.name}' (closest {identity.runner_up})")
                cards.append(CardOnTable(reading, identity))
                continue
            dice = read_space_dice(frame, self.deck.card(identity.card), reading, image, self.recognizer)
            cards.append(CardOnTable(reading, identity, dice))
            # Kept for reuse once the card is identified surely, doubtful spaces too: the same picture read again
            # gives the same dice (the players are asked instead); any change on the spot reads it afresh. A card
            # identified doubtfully is read again: what the game knows (``among``) may settle it next time.
            if identity.confidence >= SURE:
                self._glances[key] = (glances[key], (spot_problems, cards[-1]))
                self._images[key] = image
            else:
                self._glances.pop(key, None)
                self._images.pop(key, None)
        self.recognizer.detector = self.detector
        cards.sort(key=lambda c: (c.reading.zone, c.reading.spot))
        return TableReading(tuple(cards), loose_dice, tuple(problems))

    def _spaces_again(self, key: tuple[str, int], frame: np.ndarray, fit: MatFit, rect: Rect, glance: np.ndarray,
                      among: bool, wanted: AbstractSet[str] | None,
                      per_zone: Mapping[str, frozenset[str]] | None) -> tuple[list[str], CardOnTable] | None:
        """A changed spot whose picture changed on its card's spaces only: the card carried, its dice read again
        (None: read the spot whole). Only where the card read there last is the one the spot keeps (:attr:`known`,
        among the cards the caller names, as :meth:`_assign` would keep it: sure, whatever dice now hide its print)
        and every pixel that changed lies on its spaces (:func:`changed_spaces`): the card's reading, identity and
        problems are carried, and its dice read (:func:`read_space_dice`) on the card cut as the whole read cuts
        it, the way up it lay kept (:func:`_recut`)."""
        entry, image, known = self._glances.get(key), self._images.get(key), self.known.get(key)
        if not (self.reuse and among) or entry is None or image is None or known is None:
            return None
        last_glance, (last_problems, last_card) = entry
        if last_card is None or last_card.identity.card != known[0] or last_glance.shape != glance.shape:
            return None
        allowed = per_zone.get(key[0]) if per_zone is not None else None
        if (wanted is not None and known[0] not in wanted) or (allowed is not None and known[0] not in allowed):
            return None
        card = self.deck.card(known[0])
        changed = cv2.absdiff(glance, last_glance).max(axis=2) > GLANCE_CHANGE * GLANCE_BOX_AREA
        hit = changed_spaces(card, image, changed)
        cut = _recut(frame, fit, rect, image) if hit else None
        if cut is None:
            return None
        # Every die on the card is read again, not only the changed spaces': the die reader reads a card's dice as
        # one batch and its pip check of a die depends on the others read with it (tuning recording 5003: reading
        # the changed spaces alone made 2 of 53 dice readings differ from the whole read's). The face model on a
        # card's few dice is cheap; what is skipped is finding the card's layout, way up and identity again.
        dice = read_space_dice(frame, card, last_card.reading, cut, self.recognizer)
        # What _assign gives a known card: sure, no runner-up (its match score is carried: nothing acts on it).
        identity = replace(last_card.identity, confidence=1.0, runner_up=None)
        now = CardOnTable(last_card.reading, identity, dice)
        self._glances[key] = (glance, (last_problems, now))
        self._images[key] = cut
        return list(last_problems), now

    def _assign(self, seen: Sequence[tuple[tuple[str, int], Zone, CardReading, _Card | None]],
                deck_cards: Sequence[MotifCard], among: bool = False,
                per_zone: Mapping[str, frozenset[str]] | None = None, carried: int = 0) -> list[Identification]:
        """Which deck card lies on each spot seen: each card on one spot at most, best matches first (either
        way round), and a spot that showed a card clearly before keeps it while its background agrees; a spot
        of a zone ``per_zone`` names is matched only against that zone's cards. ``carried``: how many spots read
        again this frame kept their known card without being seen here (:meth:`_spaces_again`): each counts as a
        spot seen keeping it, sure, as it would have been."""
        out: list[Identification | None] = [None] * len(seen)
        taken: set[str] = set()
        options: list[tuple[float, int, bool, str]] = []
        scores: list[dict[tuple[bool, str], float]] = []
        for n, (key, _, reading, image) in enumerate(seen):
            assert image is not None
            ways = {False: reading, True: turned(reading, image)[0]}
            allowed = per_zone.get(key[0]) if per_zone is not None else None
            spot_cards = [c for c in deck_cards if allowed is None or c.id in allowed]
            mine = {(flip, c.id): _match(ways[flip], c, frozenset()) for flip in ways for c in spot_cards}
            scores.append(mine)
            # A spot keeps its card only while that card may be there (a new card of the same background laid on
            # the spot, the solo game's new cards, is another card: the caller's ``among`` says which may), and only
            # when the caller names the cards that may lie here at all: while cards are dealt (no ``among``) a new
            # card on a spot is read afresh (held-out seed 4404: a new red card dealt where last round's red card had
            # been remembered was taken surely for it).
            known = self.known.get(key) if among else None
            if (known is not None and known[1] == reading.background and known[0] not in taken
                    and any(c.id == known[0] for c in spot_cards)):
                if reading.orientation_confidence >= SURE:
                    flip = mine.get((True, known[0]), 0.0) > mine.get((False, known[0]), 0.0) + 0.1
                else:  # which way up is unclear now: the way the card lay when it was seen clearly
                    flip = reading.upside_down != known[2]
                out[n] = Identification(known[0], mine.get((flip, known[0]), 0.0), None, 1.0,
                                        reading.upside_down != flip)
                taken.add(known[0])
                continue
            # The other way round only when it fits clearly better (the reader's own orientation comes first).
            for (flip, card_id), score in mine.items():
                options.append((score - (0.1 if flip else 0.0), n, flip, card_id))
        surely_elsewhere = {i.card for i in out if i is not None}  # remembered spots
        by_elimination: dict[int, float] = {}
        chosen: dict[int, tuple[float, bool, str]] = {}
        poor: set[int] = set()  # spots whose card is a poor match kept in doubt (never sure by elimination)

        def margin(n: int, score: float, flip: bool, card_id: str,
                   rivals_out: AbstractSet[str | None]) -> tuple[float, str | None, list[str]]:
            """The confidence of ``card_id`` on spot ``n`` from its margin over every other card but
            ``rivals_out`` (cards surely on another spot), the runner-up, and the rivals left."""
            reading = seen[n][2]
            rest = [(v - (0.1 if f else 0.0), c) for (f, c), v in scores[n].items()
                    if c != card_id and c not in rivals_out]
            second, runner = max(rest, default=(0.0, None))
            confidence = float(min(1.0, (score - second) / 0.15, reading.coins_confidence,
                                   0.4 + reading.layout_confidence))
            if score < 0.6:
                confidence = min(confidence, 0.5)  # a poor match stays doubtful whatever the others score
            background = self.deck.card(card_id).background
            if (among and score >= 0.5 and reading.background == background and reading.background_confidence >= SURE
                    and not any(self.deck.card(c).background == background for _, c in rest)):
                # Among the cards that may lie here (``among``: the game's), the only one of the colour read clearly:
                # the card is known whatever its coins and spaces looked like (seed 42: a purple card whose coins
                # were not seen was asked about all round).
                confidence = max(confidence, 0.9)
            if not flip and reading.orientation_confidence < SURE:
                confidence = min(confidence, reading.orientation_confidence)  # the spaces would be mistaken
            if score < 0.55 and not (score >= 0.4 and score - second >= 0.15):
                if (per_zone is not None and seen[n][0][0] in per_zone and score >= 0.4
                        and reading.background == background and reading.background_confidence >= SURE):
                    # A poor match among the few cards the game has on this mat, of the colour read clearly: that
                    # card in doubt, not "not a card of the deck" (a card whose layout was misread, 2 players under
                    # exposure 0.7, seed 4604: asked on every table of a round). Never sure: the caller settles it.
                    confidence = min(confidence, 0.5)
                    poor.add(n)
                else:
                    confidence = -1.0  # no match at all
            return confidence, runner, [c for _, c in rest]

        for score, n, flip, card_id in sorted(options, reverse=True):
            if out[n] is not None or card_id in taken:
                continue
            reading = seen[n][2]
            # The margin is over every other card but those surely on another spot: a card taken by a spot
            # that was itself unsure must not make this one look sure.
            confidence, runner, rivals = margin(n, score, flip, card_id, surely_elsewhere)
            if confidence < 0:
                continue
            free = [c for c in rivals if c not in taken]
            if (not free and reading.background == self.deck.card(card_id).background and confidence < 0.9
                    and n not in poor):
                # The one card left for this spot, and its colour agrees: sure if every other spot is sure.
                by_elimination[n] = confidence
                confidence = 0.9
            out[n] = Identification(card_id, score, runner, confidence, reading.upside_down != flip)
            chosen[n] = (score, flip, card_id)
            taken.add(card_id)
            if confidence >= SURE and n not in by_elimination:
                surely_elsewhere.add(card_id)
        # A second look at the spots left in doubt, once every spot is assigned: a rival that another spot holds
        # surely (found after this spot in the first pass) is no rival, a card lies on one spot only (seed 42: a
        # claimed card aside in the middle doubted as a card on the mat identified surely). One pass: a spot made
        # sure here makes no other sure.
        sure_now = {n for n, i in enumerate(out) if i is not None and i.confidence >= SURE and n not in by_elimination}
        for n, (score, flip, card_id) in chosen.items():
            identity = out[n]
            if identity is None or n in sure_now or n in by_elimination:
                continue
            elsewhere = {i.card for m, i in enumerate(out) if m in sure_now and m != n and i is not None}
            confidence, runner, _ = margin(n, score, flip, card_id, elsewhere)
            if confidence > identity.confidence:
                out[n] = replace(identity, confidence=confidence, runner_up=runner)
        for n, before in by_elimination.items():
            others = [i for m, i in enumerate(out) if m != n]
            if not all(i is not None and i.confidence >= SURE and m not in by_elimination
                       for m, i in enumerate(out) if m != n) or not (others or carried):
                identity = out[n]
                assert identity is not None
                out[n] = replace(identity, confidence=before)
        result = []
        for n, identity in enumerate(out):
            if identity is None:
                identity = self._left_for(seen[n], scores[n], per_zone, {c.id for c in deck_cards} - taken)
                if identity is not None:
                    taken.add(str(identity.card))
            if identity is None:
                best = max(scores[n].items(), key=lambda kv: kv[1], default=((False, None), 0.0))
                identity = Identification(None, best[1], best[0][1], 0.0, seen[n][2].upside_down)
            else:
                self._identified[seen[n][0]] = (str(identity.card), seen[n][2].background or "", identity.upside_down)
                if identity.confidence >= SURE:
                    self.known[seen[n][0]] = self._identified[seen[n][0]]
            result.append(identity)
        return result

    def _left_for(self, spot: tuple[tuple[str, int], Zone, CardReading, _Card | None],
                  scores: Mapping[tuple[bool, str], float], per_zone: Mapping[str, frozenset[str]] | None,
                  free: AbstractSet[str]) -> Identification | None:
        """A spot that matched no card well enough, on a mat whose cards the caller names (``per_zone``): the one card
        of that mat of the colour read clearly that is still ``free`` (no other spot took it), in doubt (never sure:
        the game or the players settle it). Dice covering most of a card's print under blur left its match too poor,
        and the spot was "not a card of the deck" on every table of a round (tuning 5004, blur 1.2: Anna's orange-1
        beside her orange-9, 47 tables); None where no card or more than one is left of that colour."""
        key, _, reading, _ = spot
        allowed = per_zone.get(key[0]) if per_zone is not None else None
        if allowed is None or not reading.background or reading.background_confidence < SURE:
            return None
        left = [c for c in sorted(allowed & free) if self.deck.card(c).background == reading.background]
        if len(left) != 1:
            return None
        card_id = left[0]
        flip = scores.get((True, card_id), 0.0) - 0.1 > scores.get((False, card_id), 0.0)
        return Identification(card_id, scores.get((flip, card_id), 0.0), None, 0.5, reading.upside_down != flip)


#: A mat located with some markers missing, or with the markers seen to one side, is still read when its mapping is
#: unsure by at most this much (mm) and its markers agree: a card spot is rectified with 5 mm of paper round it and
#: the card is then fitted by its own outline, the dice on a space from the card's fit, and a loose zone is read
#: whole. (At 1280x960 a 3-player table, and a 2-player table under exposure 0.7, drew such warnings on every frame,
#: and the table was not read at all.)
READ_DESPITE_MM = 4.0


def _table_problems(registration: Registration) -> list[str]:
    """The registration's problems that keep the table from being read: all but a mat's own warnings (markers
    missing, or lying to one side) where its mapping is unsure by at most :data:`READ_DESPITE_MM` and its markers
    agree."""
    from vision.registration import _mat_problems, fit_disagrees

    tolerated: set[str] = set()
    for fit in registration.fits:
        if fit.unsure_mm <= READ_DESPITE_MM and not fit_disagrees(fit) and not fit.outliers:
            tolerated.update(_mat_problems(fit))
    return [p for p in registration.problems if p not in tolerated]


def _inside_glance(picture: np.ndarray) -> np.ndarray | None:
    """A loose zone's glance picture without its margin: the zone rectified as :func:`read_loose` rectifies it, when
    the two scales are the same and the margin a whole number of pixels (None otherwise). Its sample points are the
    zone's own, a whole number of pixels along (on the bench's tables every pixel was the same as a warp of the zone
    alone); one warp of the tray a frame is saved."""
    margin = GLANCE_MARGIN_MM * GLANCE_PX_PER_MM
    if GLANCE_PX_PER_MM != ZONE_PX_PER_MM or margin != round(margin):
        return None
    m = round(margin)
    return np.ascontiguousarray(picture[m:picture.shape[0] - m, m:picture.shape[1] - m])


def _box_sums(picture: np.ndarray) -> np.ndarray:
    """A glance: each pixel of ``picture`` summed with its neighbours (3 x 3, :data:`GLANCE_BOX_AREA` pixels), in
    uint16. The sums are exact, so comparing them with the thresholds times the box's area is comparing the 3 x 3
    means, without a float image (a third of a glance's time on one core)."""
    return cv2.boxFilter(picture, cv2.CV_16U, (3, 3), normalize=False)


def _paper_only(glance: np.ndarray) -> bool:
    """Whether a spot's glance (:meth:`DiceTreasureReader._glance`: the spot and 2 mm of paper around it, 3 x 3 sums)
    shows nothing but the mat's paper and print: its middle is the colour of the paper around it, with hardly a
    pixel far from it (a motif card's background is a strong colour, a die has pips and edges)."""
    h, w = glance.shape[:2]
    ring = max(2, round(2 * GLANCE_PX_PER_MM))
    border = np.concatenate([glance[:ring].reshape(-1, 3), glance[-ring:].reshape(-1, 3),
                             glance[:, :ring].reshape(-1, 3), glance[:, -ring:].reshape(-1, 3)])
    paper = np.median(border, axis=0)
    middle = glance[h // 5: h - h // 5, w // 5: w - w // 5].reshape(-1, 3)
    far = np.abs(middle - paper).max(axis=1) > 45.0 * GLANCE_BOX_AREA
    return bool(np.abs(np.median(middle, axis=0) - paper).max() < 25.0 * GLANCE_BOX_AREA and far.mean() < 0.03)


def teach_colours(readings: Sequence[tuple[CardReading, _Card]], names: Sequence[str]) -> CardColours:
    """Background references measured from cards whose backgrounds the owner named (one per colour at least);
    the space colours stay nominal. The table's own print, as the die palette is taught from its own dice."""
    measured: dict[str, list[np.ndarray]] = {}
    for (_, image), name in zip(readings, names, strict=True):
        if image is not None:
            measured.setdefault(name, []).append(_background(image.lab))
    base = dict(CardColours.nominal().backgrounds)
    for name, labs in measured.items():
        m = np.mean(labs, axis=0)
        base[name] = (float(m[0]), float(m[1]), float(m[2]))
    return CardColours(tuple(base.items()), CardColours.nominal().spaces, taught=True)
