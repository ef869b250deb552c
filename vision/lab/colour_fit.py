"""Colour names measured on real photographs, and the fit of the camera model behind the built-in palettes.

``python -m vision.lab.colour_fit [--check]`` reads the colour labels of Byler photos
(``vision/lab/labels/byler-colours.jsonl``), measures every labelled die's body colour as the reader does (its
labelled box, the reader's crop, pip mask and highlight rule), and

* fits :data:`vision.colour.CAMERA_MATRIX` on the *train* split's dice alone: the 3x3 matrix on linear RGB that
  best takes each colour's nominal value to the median of what was measured on dice of that colour (least
  squares, one row per colour, so a colour with many dice does not outweigh the others);
* prints how often the ``dice`` palette names a die right, on the train and the val split: with the nominal
  colours as they are, with the fitted camera model, and calibrated from one die of each colour (the
  calibration of ``companion recognize --calibrate``, drawn many times from the other split's dice); and each
  game's palette, ideal colours against the camera model, on the dice whose best name is in it.

``--lamps`` measures instead whether the kinds of real dice (fitted under the Byler photos' light) mislead a palette
taught under another light: rendered dice of each dice game's colours under six lamps (neutral, warm, cool, dim,
dim and warm, bright), taught from one rendered die of each colour (seeds 2501-2506), then named by the taught
colours alone and joined by the kinds (seeds 2601-2658): :func:`lamp_check`.

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
    DICE_KINDS,
    DICE_PALETTE,
    LIGHTNESS_WEIGHT,
    NOMINAL_RGB,
    Lab,
    Palette,
    distance,
    linear_of_srgb,
    linear_rgb,
    nominal_palette,
    with_kinds,
)
from vision.lab.evaluate import match, truth_candidates
from vision.lab.splits import byler_records, is_box, json_lines, same_box, split_of
from vision.recognize import DiceRecognizer, FixedDetector, load_image

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


#: At most this many kinds per name (:data:`vision.colour.DICE_KINDS`), and one more kind per this many dice.
KINDS_PER_NAME = 2
DICE_PER_KIND = 4


def fit_kinds(dice: list[LabelledDie], per_name: int = KINDS_PER_NAME) -> dict[str, tuple[Lab, ...]]:
    """Kinds of dice of each name (by each label's best name): k-means in the palette's distance (lightness
    weighted by LIGHTNESS_WEIGHT), ``per_name`` kinds where a name has ``DICE_PER_KIND * per_name`` dice or more,
    fewer below; seeded, so the fit is the same every run."""
    by_name: dict[str, list[Lab]] = defaultdict(list)
    for die in dice:
        by_name[die.colours[0]].append(die.lab)
    weight = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0])
    kinds = {}
    for name in sorted(by_name):
        points = np.array(by_name[name], np.float64)
        k = min(per_name, max(1, len(points) // DICE_PER_KIND))
        rng = np.random.default_rng(0)
        centres = points[rng.choice(len(points), k, replace=False)]
        for _ in range(50):
            nearest = np.argmin((((points[:, None] - centres[None]) * weight) ** 2).sum(axis=2), axis=1)
            centres = np.array(
                [points[nearest == j].mean(axis=0) if (nearest == j).any() else centres[j] for j in range(k)]
            )
        kinds[name] = tuple((float(c[0]), float(c[1]), float(c[2])) for c in centres)
    return kinds


def kind_of(die: LabelledDie, kinds: dict[str, tuple[Lab, ...]] = DICE_KINDS) -> int:
    """Which kind of its label's best name a die is (the nearest of ``kinds``; 0 where a name has none)."""
    own = kinds.get(die.colours[0], ())
    if not own:
        return 0
    return int(np.argmin([distance(kind, die.lab) for kind in own]))


def taught_right(
    dice: list[LabelledDie],
    names: tuple[str, ...],
    seed: int = 0,
    draws: int = CALIBRATION_DRAWS,
    join_kinds: bool = False,
    one_kind: bool = False,
) -> tuple[float, float, int]:
    """A game's colours taught from one die of each (drawn from ``dice`` with that single name, as at the table
    the game's own dice are taught), then the other dice whose best name is one of ``names`` named with the
    taught palette: mean share right, worst share, and how many dice are measured (per draw, on average).

    ``join_kinds`` names them with the taught colours and the kinds of real dice (:func:`vision.colour.with_kinds`)
    instead of the taught colours alone. ``one_kind`` measures only the dice of the taught die's kind
    (:func:`kind_of`): a game's dice of one colour are alike, and these photos mix several kinds under one name
    (plain green and swirled teal), so this is the nearer stand-in for a game's own set."""
    pool = {n: [d for d in dice if d.colours == (n,)] for n in names}
    taught_names = tuple(n for n in names if pool[n])
    own = [d for d in dice if d.colours[0] in taught_names]
    rng = np.random.default_rng(seed)
    shares, measured = [], []
    for _ in range(draws):
        taught = {n: pool[n][int(rng.integers(len(pool[n])))] for n in taught_names}
        palette = Palette("taught", tuple((n, t.lab) for n, t in taught.items()), True)
        if join_kinds:
            palette = with_kinds(palette)
        rest = [d for d in own if all(d is not t for t in taught.values())]
        if one_kind:
            rest = [d for d in rest if kind_of(d) == kind_of(taught[d.colours[0]])]
        shares.append(named_right(palette, rest) / max(len(rest), 1))
        measured.append(len(rest))
    return float(np.mean(shares)), float(np.min(shares)), round(float(np.mean(measured)))


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


#: The lamps of ``--lamps``: gains on B, G, R of a rendered scene.
LAMPS: dict[str, tuple[float, float, float]] = {
    "neutral": (1.0, 1.0, 1.0), "warm": (0.72, 0.9, 1.2), "cool": (1.2, 1.0, 0.8), "dim": (0.55, 0.55, 0.55),
    "dim and warm": (0.45, 0.55, 0.75), "bright": (1.3, 1.3, 1.3),
}  # fmt: skip


def _lamp_scene(seed: int, names: tuple[str, ...], gain: tuple[float, float, float]) -> tuple[Any, Any, list[str]]:
    """One rendered die of each of ``names`` (random order, faces, sizes, table colour) under the lamp ``gain``."""
    from vision.lab.render import DIE_COLOURS, PIP_COLOURS, DieSpec, SceneStyle, render_scene
    from vision.types import DieCandidate

    rng = np.random.default_rng(seed)
    order = [str(n) for n in rng.permutation(names)]
    specs = [DieSpec(value=int(rng.integers(1, 7)), body=DIE_COLOURS[n],
                     pips=PIP_COLOURS["black"] if n in ("white", "orange", "yellow") else PIP_COLOURS["white"],
                     centre=(60.0 + 110 * i, 80.0), side=float(rng.uniform(40, 60)), angle=float(rng.uniform(0, 90)),
                     colour_name=n) for i, n in enumerate(order)]  # fmt: skip
    surface = tuple(int(v) for v in rng.integers(90, 200, 3))
    style = SceneStyle(surface=surface, camera_height=40, blur=0.5, noise=2.0, jpeg_quality=90)  # type: ignore[arg-type]
    image, truth = render_scene(rng, (110 * len(order) + 20, 160), dice=specs, style=style)
    image = np.clip(image.astype(np.float32) * np.array(gain, np.float32), 0, 255).astype(np.uint8)
    return image, [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth], [d.colour_name or "" for d in truth]


def lamp_check(teachings: int = 6, rolls: int = 8) -> list[tuple[str, str, int, int, int]]:
    """Per dice game and lamp: (game, lamp, dice, named right by the taught colours alone, joined by the kinds).
    Each of ``teachings`` tables is taught from one rendered die of each colour, then ``rolls`` new scenes under
    the same lamp are named."""
    from vision.colour import calibrate

    reader = DiceRecognizer(detector=FixedDetector(), palette="dice")
    rows = []
    for game in ("pyradice", "dicetreasure"):
        names = PALETTES[game]
        for lamp, gain in LAMPS.items():
            alone = joined = total = 0
            for t in range(teachings):
                image, cands, _ = _lamp_scene(2501 + t, names, gain)
                measured = [(r.centre, r.lab) for r in reader.read_candidates(image, cands)]
                taught = calibrate(measured, nominal_palette(game, use_kinds=False)).palette
                kinded = with_kinds(taught)
                for s in range(rolls):
                    image, cands, truth = _lamp_scene(2601 + 10 * t + s, names, gain)
                    labs = [r.lab for r in reader.read_candidates(image, cands)]
                    alone += sum(taught.nearest(lab)[0] == n for lab, n in zip(labs, truth, strict=True))
                    joined += sum(kinded.nearest(lab)[0] == n for lab, n in zip(labs, truth, strict=True))
                    total += len(truth)
            rows.append((game, lamp, total, alone, joined))
    return rows


def main(argv: list[str] | None = None) -> int:
    from vision.lab.read_train import SHARED

    parser = argparse.ArgumentParser(prog="python -m vision.lab.colour_fit", description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder (default: %(default)s)")
    parser.add_argument("--labels", type=Path, default=BYLER_COLOURS, help="colour labels (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if CAMERA_MATRIX is not the fit")
    parser.add_argument("--lamps", action="store_true",
                        help="rendered dice under six lamps: taught colours alone against joined by the kinds")
    args = parser.parse_args(argv)
    if args.lamps:
        print("| game | lamp | rendered dice | taught colours alone | taught colours and the kinds |")
        print("|---|---|---|---|---|")
        for game, lamp, total, alone, joined in lamp_check():
            print(f"| {game} | {lamp} | {total} | {alone} | {joined} |")
        return 0
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
    kinds = fit_kinds(split["train"])
    print("kinds of dice fitted on the train split's labelled dice (CIELAB; vision.colour.DICE_KINDS):")
    for name, labs in kinds.items():
        print(f'    "{name}": (' + " ".join("(" + ", ".join(f"{v:.2f}" for v in lab) + ")," for lab in labs) + "),")
    nominal = nominal_palette("dice", np.eye(3), use_kinds=False)  # the ideal colours, until the eighth round
    fitted = nominal_palette("dice", matrix, use_kinds=False)
    fitted = Palette("dice", fitted.colours, kinds=tuple((n, k) for n in fitted.names for k in kinds.get(n, ())))
    print("\n| dice named right (`dice` palette, 12 colours) | train split (fitted on) | val split |")
    print("|---|---|---|")
    rows = [
        ("nominal colours, no camera model", nominal),
        ("the camera model, one reference per name (until issue 25)", nominal_palette("dice", use_kinds=False)),
        ("the fitted camera model and kinds of dice", fitted),
        ("the committed camera model and kinds (CAMERA_MATRIX, DICE_KINDS)", nominal_palette("dice")),
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
        ideal, seen = nominal_palette(game, np.eye(3), use_kinds=False), nominal_palette(game, use_kinds=False)
        kinded = nominal_palette(game)
        cells = []
        for d in split.values():
            own = [die for die in d if die.colours[0] in game_colours]
            cells.append(
                f"{named_right(ideal, own)} -> {named_right(seen, own)} -> {named_right(kinded, own)} of {len(own)}"
            )
        print(
            f"| {game} ({', '.join(game_colours)}): ideal colours -> camera model -> with kinds | "
            + " | ".join(cells)
            + " |"
        )
    print(
        "\n| a game's colours taught from one die of each of the same split (200 draws): the other dice of those "
        "colours, named by the taught palette: mean (worst draw) of N dice | train split | val split |"
    )
    print("|---|---|---|")
    for game, game_colours in PALETTES.items():
        for join_kinds, one_kind in ((False, False), (True, False), (False, True), (True, True)):
            cells = []
            for d in split.values():
                share, worst_share, measured = taught_right(d, game_colours, join_kinds=join_kinds, one_kind=one_kind)
                cells.append(f"{share:.1%} ({worst_share:.1%}) of {measured}")
            how = "taught colours and the kinds" if join_kinds else "taught colours alone"
            which = "dice of the taught die's kind" if one_kind else "every die of those names"
            print(f"| {game}: {how}, {which} | " + " | ".join(cells) + " |")
    failed = False
    if args.check and not np.allclose(matrix, np.asarray(CAMERA_MATRIX), atol=CHECK_TOLERANCE):
        print("CAMERA_MATRIX in vision/colour.py is not the fit above: copy the fit there", file=sys.stderr)
        failed = True
    same_kinds = kinds.keys() == DICE_KINDS.keys() and all(
        np.allclose(np.array(kinds[n]), np.array(DICE_KINDS[n]), atol=0.01) for n in kinds
    )
    if args.check and not same_kinds:
        print("DICE_KINDS in vision/colour.py is not the fit above: copy the fit there", file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
