"""Colour names measured on real photographs, and the fit of the camera model behind the built-in palettes.

``python -m vision.colour_fit [--check]`` reads the colour labels of Byler photos
(``vision/labels/byler-colours.jsonl``), measures every labelled die's body colour as the reader does (its
labelled box, the reader's crop, pip mask and highlight rule), and

* fits :data:`vision.colour.CAMERA_MATRIX` on the *train* split's dice alone: the 3x3 matrix on linear RGB that
  best takes each colour's nominal value to the median of what was measured on dice of that colour (least
  squares, one row per colour, so a colour with many dice does not outweigh the others);
* prints how often the ``dice`` palette names a die right, on the train and the val split: with the nominal
  colours as they are, with the fitted camera model, and calibrated from one die of each colour (the
  calibration of ``companion recognize --calibrate``, drawn many times from the other split's dice); and each
  game's palette, ideal colours against the camera model, on the dice whose best name is in it.

``--check`` exits 1 when the committed matrix is not the fit (so a change to the measure or the labels is
noticed). A label lists the names a person reading the crop accepts, best first: a swirled or translucent
die between two names (a dark red between red and maroon, a cream between white and ivory) accepts both.
The val split's labels measure only; nothing is fitted or chosen on them.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.dice import PALETTES
from vision.colour import (
    CAMERA_MATRIX,
    DICE_PALETTE,
    NOMINAL_RGB,
    Lab,
    Palette,
    linear_of_srgb,
    linear_rgb,
    nominal_palette,
)
from vision.evaluate import match, truth_candidates
from vision.recognize import DiceRecognizer, FixedDetector, load_image
from vision.splits import byler_records, is_box, json_lines, same_box, split_of

#: The colour labels of Byler photos (all 33 val photos, 34 of the train photos).
BYLER_COLOURS = Path(__file__).resolve().parent / "labels" / "byler-colours.jsonl"
#: The committed matrix and the fit agree to this much (it is written with three decimals).
CHECK_TOLERANCE = 0.002
#: Calibrations drawn per measure (each: one random labelled die of every colour from the other split).
CALIBRATION_DRAWS = 200


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: where it is, the names accepted for it (best first), and its measured body colour."""

    image: str
    box: tuple[float, float, float, float]
    colours: tuple[str, ...]
    lab: Lab


def read_colour_labels(path: Path = BYLER_COLOURS) -> list[dict[str, Any]]:
    """The labels in ``path``, each checked (ValueError naming the line otherwise)."""
    labels = []
    for where, label in json_lines(path):
        colours = label.get("colours") if isinstance(label, dict) else None
        if not (
            isinstance(label, dict)
            and isinstance(label.get("image"), str)
            and is_box(label.get("box"))
            and isinstance(colours, list)
            and colours
        ):
            raise ValueError(f"{where}: a label needs 'image', 'box' [x0, y0, x1, y1] and 'colours' (a list)")
        unknown = [c for c in colours if c not in DICE_PALETTE]
        if unknown:
            raise ValueError(f"{where}: {', '.join(map(repr, unknown))} is not a colour of the dice palette")
        labels.append(label)
    return labels


def measure_labelled(shared: Path, labels: list[dict[str, Any]], reader: DiceRecognizer) -> list[LabelledDie]:
    """Each labelled die's body colour, read by ``reader`` from its labelled box (a label whose box the
    manifest lacks is an error: the file was made for another manifest)."""
    by_image: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for label in labels:
        by_image[label["image"]].append(label)
    records = {r["image"]: r for split in ("train", "val") for r in byler_records(shared, split)}
    dice = []
    for image_name, image_labels in sorted(by_image.items()):
        record = records.get(image_name)
        if record is None:
            raise ValueError(f"colour label for {image_name}: no such photo in the Byler manifest")
        image = load_image(record["path"])
        reader.detector = FixedDetector(truth_candidates(record, image))
        readings = reader.read(image)
        boxes = [
            (float(d["box"][0]), float(d["box"][1]), float(d["box"][2]), float(d["box"][3])) for d in record["dice"]
        ]
        read_of = {ti: readings[ri] for ti, ri in match(readings, boxes)}
        for label in image_labels:
            index = next((i for i, b in enumerate(boxes) if same_box(b, label["box"])), None)
            if index is None:
                raise ValueError(f"colour label for {image_name}: no die at {label['box']} in the manifest")
            if index in read_of:  # the face model may call a die "not a die"; then there is no colour either
                dice.append(LabelledDie(image_name, boxes[index], tuple(label["colours"]), read_of[index].lab))
    return dice


def colour_medians(dice: list[LabelledDie]) -> dict[str, Lab]:
    """Per colour, the median measured CIELAB of the dice that accept that one name only."""
    by_name: dict[str, list[Lab]] = defaultdict(list)
    for die in dice:
        if len(die.colours) == 1:
            by_name[die.colours[0]].append(die.lab)
    medians = {name: np.median(labs, axis=0) for name, labs in by_name.items()}
    return {name: (float(m[0]), float(m[1]), float(m[2])) for name, m in medians.items()}


def fit_camera(medians: dict[str, Lab]) -> np.ndarray:
    """The 3x3 linear-RGB matrix taking each named colour's nominal value nearest (least squares) to its
    measured median."""
    if len(medians) < 3:
        raise ValueError(f"a camera fit needs at least 3 colours, not {len(medians)}")
    names = sorted(medians)
    nominal = np.array([linear_of_srgb(NOMINAL_RGB[n]) for n in names])
    seen = np.array([linear_rgb(medians[n]) for n in names])
    solution, *_ = np.linalg.lstsq(nominal, seen, rcond=None)
    return np.asarray(solution.T)


def named_right(palette: Palette, dice: list[LabelledDie]) -> int:
    """How many dice ``palette`` names with a name their label accepts."""
    return sum(palette.nearest(d.lab)[0] in d.colours for d in dice)


def calibrated_right(
    calibration: list[LabelledDie], dice: list[LabelledDie], seed: int = 0, draws: int = CALIBRATION_DRAWS
) -> tuple[float, int, list[str]]:
    """Mean and worst number of ``dice`` named right with a palette calibrated from one die of each colour of
    ``calibration`` (its dice with a single name), drawn ``draws`` times; and the palette's names. A die is
    right when the palette's name for it is one its label accepts (names outside the palette do not count)."""
    pool: dict[str, list[Lab]] = defaultdict(list)
    for die in calibration:
        if len(die.colours) == 1:
            pool[die.colours[0]].append(die.lab)
    names = sorted(pool)
    rng = np.random.default_rng(seed)
    counts = []
    for _ in range(draws):
        palette = Palette("drawn", tuple((n, pool[n][int(rng.integers(len(pool[n])))]) for n in names), True)
        counts.append(named_right(palette, dice))
    return float(np.mean(counts)), int(np.min(counts)), names


def main(argv: list[str] | None = None) -> int:
    from vision.read_train import SHARED

    parser = argparse.ArgumentParser(prog="python -m vision.colour_fit", description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder (default: %(default)s)")
    parser.add_argument("--labels", type=Path, default=BYLER_COLOURS, help="colour labels (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if CAMERA_MATRIX is not the fit")
    args = parser.parse_args(argv)
    try:
        labels = read_colour_labels(args.labels)
        dice = measure_labelled(args.shared, labels, DiceRecognizer(detector=FixedDetector()))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    split = {
        "train": [d for d in dice if split_of(d.image) == "train"],
        "val": [d for d in dice if split_of(d.image) == "val"],
    }
    matrix = fit_camera(colour_medians(split["train"]))
    print("camera matrix fitted on the train split's labelled dice (linear RGB, rows R G B of the camera):")
    for row in matrix:
        print("    (" + ", ".join(f"{v:.3f}" for v in row) + "),")
    nominal = nominal_palette("dice", np.eye(3))  # the ideal colours, as the palettes were until the eighth round
    print("\n| dice named right (`dice` palette, 12 colours) | train split (fitted on) | val split |")
    print("|---|---|---|")
    rows = [
        ("nominal colours, no camera model", nominal),
        ("the fitted camera model", nominal_palette("dice", matrix)),
        ("the committed camera model (CAMERA_MATRIX)", nominal_palette("dice")),
    ]
    for what, palette in rows:
        cells = [
            f"{named_right(palette, d)} of {len(d)} ({named_right(palette, d) / len(d):.1%})" for d in split.values()
        ]
        print(f"| {what} | " + " | ".join(cells) + " |")
    cells = []
    for name, other in (("train", "val"), ("val", "train")):
        mean, worst, names = calibrated_right(split[other], split[name])
        cells.append(f"{mean:.1f} of {len(split[name])} ({mean / len(split[name]):.1%}; worst draw {worst})")
    print(
        f"| calibrated from one die of each of {len(names)} colours of the other split ({', '.join(names)}; "
        f"{CALIBRATION_DRAWS} draws) | " + " | ".join(cells) + " |"
    )
    print("\n| a game's palette, on the dice whose best name is in it | train split | val split |")
    print("|---|---|---|")
    for game, game_colours in PALETTES.items():
        ideal, seen = nominal_palette(game, np.eye(3)), nominal_palette(game)
        cells = []
        for d in split.values():
            own = [die for die in d if die.colours[0] in game_colours]
            cells.append(f"{named_right(ideal, own)} -> {named_right(seen, own)} of {len(own)}")
        print(f"| {game} ({', '.join(game_colours)}): ideal colours -> camera model | " + " | ".join(cells) + " |")
    if args.check and not np.allclose(matrix, np.asarray(CAMERA_MATRIX), atol=CHECK_TOLERANCE):
        print("CAMERA_MATRIX in vision/colour.py is not the fit above: copy the fit there", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
