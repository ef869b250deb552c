"""Die colours: named palettes in CIELAB, measuring a die's body colour, and calibration from a photo.

A palette maps colour names to reference CIELAB values (L 0..100, a and b about -128..127). The built-in
palettes are the games' (:data:`engine.dice.PALETTES`: Pyradice white, gray, maroon, orange; Pyramido;
Dice Treasure) plus ``dice``, a general palette of common die colours. Their references are nominal sRGB
colours as a camera over a table sees them (:data:`CAMERA_MATRIX`, fitted on labelled real photos by
:mod:`vision.lab.colour_fit`): darker than the ideal colours, which named half of the real dice wrong. The light at
a real table differs, so a palette can be calibrated: photograph one die of each colour of the palette, and
:func:`calibrate` measures each and pairs dice with names by the closest overall match to the built-in
references (so the dice may lie in any order). A calibration is a small JSON file.

A die's colour is the mean CIELAB of its top face without its pips (the pip mask comes from the pip
counter) and without specular highlights. The reported name is the nearest reference; lightness counts
half as much as hue in the distance, since lighting changes lightness most. A colour the palette does not
know is still reported: its nearest name, the measured value and the distance, never dropped.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.dice import PALETTES

Lab = tuple[float, float, float]

#: Nominal colours (sRGB as R, G, B) of die bodies by name, turned into CIELAB for the built-in palettes.
NOMINAL_RGB: dict[str, tuple[int, int, int]] = {
    "white": (236, 236, 232),
    "ivory": (236, 228, 200),
    "gray": (128, 128, 128),
    "black": (36, 36, 38),
    "red": (200, 30, 36),
    "maroon": (120, 28, 40),
    "orange": (240, 120, 30),
    "yellow": (240, 210, 40),
    "gold": (190, 150, 70),
    "green": (40, 150, 70),
    "blue": (30, 70, 170),
    "purple": (100, 40, 120),
}
#: How the camera sees those nominal colours: a 3x3 matrix on linear RGB (rows: the camera's R, G, B; columns:
#: the nominal colour's), fitted by least squares on the labelled dice of the Byler train photos
#: (``python -m vision.lab.colour_fit``, which also checks that these numbers are its fit). Mostly a gain of about
#: 0.45: a die's top face, lit from above and exposed for a light table, is less than half as bright as the
#: ideal colour, so the ideal references named half of the real dice wrong (white read as gray, red as maroon).
CAMERA_MATRIX: tuple[tuple[float, float, float], ...] = (
    (0.438, 0.016, 0.112),
    (0.010, 0.499, 0.038),
    (-0.004, 0.092, 0.449),
)
#: The general palette for dice of any colour (used when no game palette is given).
DICE_PALETTE: tuple[str, ...] = (
    "white", "ivory", "gray", "black", "red", "maroon", "orange", "yellow", "gold", "green", "blue", "purple",
)  # fmt: skip
#: Lightness counts this much relative to a and b in colour distances.
LIGHTNESS_WEIGHT = 0.5
#: Kinds of real dice of each name, as the camera measures them (CIELAB): one name covers plain and swirled,
#: bright and smoky dice (``green`` is plain green and swirled teal, ``blue`` bright and navy), and one reference
#: per name sat between them (82% of the labelled val dice named right). Fitted by :mod:`vision.lab.colour_fit` on
#: the Byler *train* split's labelled dice alone: k-means in this distance, per name of the label's best name,
#: 2 kinds where a name has 8 dice or more (the number chosen by 5-fold cross-validation over train photos:
#: 1, 2, 3 kinds named 204, 211, 209 of 220 right); val measured once: 213 of 220 (96.8%). The built-in
#: palettes name a die by its nearest kind, and by the nominal colour where a name has no kind (gray, orange).
#: A calibrated (taught) palette has no kinds: what the table's own dice look like replaces them (unless
#: :func:`with_kinds` adds them back beside the taught colours).
DICE_KINDS: dict[str, tuple[Lab, ...]] = {
    "black": ((16.99, 1.63, 1.24), (19.08, 7.62, 5.14)),
    "blue": ((18.97, 22.44, -38.18), (20.23, 6.19, -12.49)),
    "gold": ((38.51, 8.86, 32.15), (30.83, 6.17, 20.36)),
    "green": ((44.12, -39.43, 24.85), (34.72, -17.26, 8.74)),
    "ivory": ((69.22, -0.91, 9.1),),
    "maroon": ((23.57, 22.55, 6.74), (30.78, 18.83, 5.44)),
    "purple": ((15.97, 9.54, -7.24), (25.83, 30.45, -20.5)),
    "red": ((32.13, 24.44, 8.54), (35.5, 41.97, 27.96)),
    "white": ((75.43, -1.38, 8.74), (74.13, 0.56, 0.18)),
    "yellow": ((65.52, -9.23, 55.23), (59.7, 5.56, 55.13)),
}


class PaletteError(ValueError):
    """An unknown palette, a bad calibration file, or a calibration photo that does not fit the palette."""


def bgr_to_lab(bgr: Sequence[float]) -> Lab:
    """CIELAB (L 0..100) of one 8-bit BGR colour."""
    pixel = np.array([[bgr]], np.uint8)
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    return (lab[0] * 100.0 / 255.0, lab[1] - 128.0, lab[2] - 128.0)


def _linear(srgb: np.ndarray) -> np.ndarray:
    """The sRGB transfer curve undone: gamma-encoded 0..1 values to linear light."""
    return np.where(srgb <= 0.04045, srgb / 12.92, ((np.maximum(srgb, 0) + 0.055) / 1.055) ** 2.4)


def linear_rgb(lab: Sequence[float]) -> np.ndarray:
    """Linear-light R, G, B (0..1, unclipped) of a CIELAB colour."""
    pixel = np.array([[lab]], np.float32)
    return _linear(cv2.cvtColor(pixel, cv2.COLOR_LAB2RGB)[0, 0].astype(np.float64))


def lab_of_linear(rgb: Sequence[float] | np.ndarray) -> Lab:
    """CIELAB of a linear-light R, G, B colour (clipped to 0..1)."""
    lin = np.clip(np.asarray(rgb, np.float64), 0.0, 1.0)
    srgb = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    lab = cv2.cvtColor(srgb.astype(np.float32)[None, None], cv2.COLOR_RGB2LAB)[0, 0]
    return (float(lab[0]), float(lab[1]), float(lab[2]))


def linear_of_srgb(rgb: Sequence[float]) -> np.ndarray:
    """Linear-light R, G, B (0..1) of an 8-bit sRGB colour (R, G, B)."""
    return _linear(np.asarray(rgb, np.float64) / 255.0)


def as_seen(rgb: Sequence[int], matrix: Sequence[Sequence[float]] | np.ndarray = CAMERA_MATRIX) -> Lab:
    """CIELAB of the nominal sRGB colour ``rgb`` (R, G, B) as the camera model ``matrix`` sees it."""
    return lab_of_linear(np.asarray(matrix, np.float64) @ linear_of_srgb(rgb))


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Colour distance with lightness weighted by :data:`LIGHTNESS_WEIGHT` (CIE76 otherwise)."""
    return math.sqrt(((a[0] - b[0]) * LIGHTNESS_WEIGHT) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


@dataclass(frozen=True)
class Palette:
    """Named reference colours in CIELAB (one per name). ``calibrated`` says they were measured, not built in.
    ``kinds`` are further references of some names (:data:`DICE_KINDS`): a name with kinds is matched by its
    kinds instead of its one reference."""

    name: str
    colours: tuple[tuple[str, Lab], ...]
    calibrated: bool = False
    kinds: tuple[tuple[str, Lab], ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.colours)

    def references(self) -> tuple[tuple[str, Lab], ...]:
        """What :meth:`nearest` compares with: each name's kinds, or its one colour where it has none."""
        kinded = {name for name, _ in self.kinds}
        return tuple((n, ref) for n, ref in self.colours if n not in kinded) + self.kinds

    def nearest(self, lab: Sequence[float]) -> tuple[str, float]:
        """The closest colour's name and its distance."""
        named = self.references()
        references = np.array([ref for _, ref in named], np.float64)
        delta = (references - np.asarray(lab, np.float64)) * [LIGHTNESS_WEIGHT, 1.0, 1.0]
        distances = np.sqrt((delta**2).sum(axis=1))
        best = int(np.argmin(distances))
        return named[best][0], float(distances[best])

    def nearest_each(self, labs: Sequence[Sequence[float]]) -> list[tuple[str, float]]:
        """:meth:`nearest` of every colour of ``labs`` at once (the same names and distances; the references are
        gathered once per frame instead of once per die)."""
        if len(labs) == 0:
            return []
        named = self.references()
        references = np.array([ref for _, ref in named], np.float64)
        delta = (references[None] - np.asarray(labs, np.float64)[:, None]) * [LIGHTNESS_WEIGHT, 1.0, 1.0]
        distances = np.sqrt((delta**2).sum(axis=2))
        best = np.argmin(distances, axis=1)
        return [(named[int(b)][0], float(distances[i, b])) for i, b in enumerate(best)]

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "palette": self.name,
            "calibrated": self.calibrated,
            "colours": {name: [round(v, 2) for v in lab] for name, lab in self.colours},
        }
        if self.kinds:
            data["kinds"] = [[name, [round(v, 2) for v in lab]] for name, lab in self.kinds]
        return data


def nominal_palette(
    name: str, matrix: Sequence[Sequence[float]] | np.ndarray = CAMERA_MATRIX, use_kinds: bool = True
) -> Palette:
    """A built-in palette (``dice`` or a game's): its nominal colours as the camera model ``matrix`` sees them
    (the identity gives the ideal colours), and the kinds of real dice of its names (:data:`DICE_KINDS`; not
    with ``use_kinds=False``, the palette as it was before issue 25)."""
    names = DICE_PALETTE if name == "dice" else PALETTES.get(name)
    if names is None:
        known = ", ".join(["dice", *PALETTES])
        raise PaletteError(f"palette {name!r} is unknown (known: {known}; or give a calibration file)")
    kinds = tuple((n, kind) for n in names for kind in DICE_KINDS.get(n, ())) if use_kinds else ()
    return Palette(name, tuple((n, as_seen(NOMINAL_RGB[n], matrix)) for n in names), kinds=kinds)


def with_kinds(taught: Palette) -> Palette:
    """A taught palette that keeps the kinds of real dice (:data:`DICE_KINDS`) of its names beside the taught
    colours: a die is named by the nearest of its taught colour and the kinds. One taught die stands for one kind
    of its name; where a table's dice of one name are of several kinds (plain and swirled green), the kinds name
    the others. Measured on the labelled Byler dice (``python -m vision.lab.colour_fit``, issue 25): taught alone 79-82%
    of the dice of a game's colours, with the kinds 97-98%. The kinds were fitted under one light (the Byler
    photos'), so under a very different light they can mislead where the taught colours alone would not."""
    kinded = {name for name, _ in taught.kinds} | set(DICE_KINDS)
    kinds = list(taught.kinds)
    for name, lab in taught.colours:
        if name in kinded:
            kinds += [(name, k) for k in (lab, *DICE_KINDS.get(name, ())) if (name, k) not in kinds]
    return Palette(taught.name, taught.colours, taught.calibrated, tuple(kinds))


def load_palette(spec: str) -> Palette:
    """A palette by name, or from a calibration JSON file written by ``companion recognize --calibrate``."""
    if not spec.endswith(".json") and "/" not in spec:
        return nominal_palette(spec)
    path = Path(spec)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PaletteError(f"calibration file {path} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PaletteError(f"calibration file {path} is not valid JSON ({exc})") from None
    try:
        colours = tuple((str(n), _lab(v)) for n, v in dict(data["colours"]).items())
        kinds = tuple((str(n), _lab(v)) for n, v in data.get("kinds", []))
        unknown = sorted({n for n, _ in kinds} - {n for n, _ in colours})
        if unknown:
            raise ValueError(f"kinds of {', '.join(unknown)}, which are not among its colours")
        return Palette(str(data["palette"]), colours, bool(data.get("calibrated", True)), kinds)
    except (KeyError, TypeError, ValueError) as exc:
        raise PaletteError(f"calibration file {path} is not a palette ({exc})") from None


def _lab(value: object) -> Lab:
    if not isinstance(value, list | tuple) or len(value) != 3:
        raise ValueError(f"colour {value!r} is not [L, a, b]")
    return (float(value[0]), float(value[1]), float(value[2]))


def measure_body(crop: np.ndarray, pip_mask: np.ndarray | None = None, span: float = 1.0 / 1.25) -> Lab:
    """CIELAB of the top face of an upright BGR die crop (crop rule), without pips or highlights."""
    return measure_body_lab(cv2.cvtColor(crop, cv2.COLOR_BGR2LAB), pip_mask, span)


def measure_body_lab(lab8: np.ndarray, pip_mask: np.ndarray | None = None, span: float = 1.0 / 1.25) -> Lab:
    """As :func:`measure_body` on a crop already in 8-bit CIELAB (see :func:`measure_bodies`)."""
    masks = None if pip_mask is None else pip_mask[None]
    return measure_bodies(lab8[None], masks, span)[0]


def measure_bodies(lab8: np.ndarray, pip_masks: np.ndarray | None = None, span: float = 1.0 / 1.25) -> list[Lab]:
    """Body colours of (N, S, S, 3) upright crops in 8-bit CIELAB: the mean of each top face's pixels that are
    not pips nor next to one (unless that leaves under 30% of the face) and not among its brightest tenth
    (specular highlights), all dice at once."""
    n, size = lab8.shape[:2]
    if n == 0:
        return []
    c = (size - 1) / 2.0
    half = size * span * 0.40
    lo, hi = math.ceil(c - half), math.floor(c + half) + 1
    face = lab8[:, lo:hi, lo:hi].reshape(n, -1, 3).astype(np.float32)
    keep = np.ones(face.shape[:2], bool)
    if pip_masks is not None:
        stacked = pip_masks.astype(np.uint8).reshape(n * size, size)
        grown = cv2.dilate(stacked, np.ones((3, 3), np.uint8)).reshape(n, size, size)[:, lo:hi, lo:hi]
        body = grown.reshape(n, -1) == 0
        enough = body.sum(axis=1) >= 0.3 * face.shape[1]
        keep = np.where(enough[:, None], body, keep)
    lightness = face[:, :, 0]
    cut = np.partition(lightness, int(face.shape[1] * 0.9), axis=1)[:, int(face.shape[1] * 0.9)]
    unlit = keep & (lightness < cut[:, None])
    keep = np.where((unlit.sum(axis=1) >= 10)[:, None], unlit, keep)
    mean = (face * keep[:, :, None]).sum(axis=1) / np.maximum(keep.sum(axis=1), 1)[:, None]
    return [(float(m[0]) * 100.0 / 255.0, float(m[1]) - 128.0, float(m[2]) - 128.0) for m in mean]


@dataclass(frozen=True)
class CalibrationResult:
    palette: Palette
    #: For each die in the photo: its centre, the measured Lab and the name it was given.
    dice: tuple[tuple[tuple[float, float], Lab, str], ...]


def calibrate(measured: Sequence[tuple[tuple[float, float], Lab]], base: Palette) -> CalibrationResult:
    """Pair the dice measured on a calibration photo with ``base``'s names (one die per colour).

    The pairing minimises the summed distance to the built-in references over every assignment, so the
    dice may lie in any order; a photo with a different number of dice than colours is refused.
    """
    names = base.names
    if len(measured) != len(names):
        raise PaletteError(
            f"the calibration photo shows {len(measured)} dice, but palette {base.name!r} has {len(names)} colours "
            f"({', '.join(names)}): lay out exactly one die of each colour"
        )
    if len(names) > 8:
        raise PaletteError(f"palette {base.name!r} has {len(names)} colours; calibrate at most 8 at a time")
    references = dict(base.colours)
    best: tuple[float, tuple[int, ...]] | None = None
    for order in itertools.permutations(range(len(names))):
        cost = sum(distance(measured[i][1], references[names[j]]) for i, j in enumerate(order))
        if best is None or cost < best[0]:
            best = (cost, order)
    assert best is not None
    order = best[1]
    by_name = {names[j]: measured[i][1] for i, j in enumerate(order)}
    palette = Palette(base.name, tuple((n, by_name[n]) for n in names), calibrated=True)
    dice = tuple((measured[i][0], measured[i][1], names[j]) for i, j in enumerate(order))
    return CalibrationResult(palette, dice)


def palette_names() -> Mapping[str, tuple[str, ...]]:
    """Every built-in palette's colour names, for help texts."""
    return {"dice": DICE_PALETTE, **PALETTES}
