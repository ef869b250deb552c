"""Comparing face models on data none of them chose: ``python -m vision.lab.tune_check DIR [DIR ...]``.

A recipe change is judged by models trained with ``python -m vision.lab.read_train --hold-out-tune --out DIR`` (and
better, several ``--seed`` values each: the seed moves these figures about as much as a recipe does). Each model
folder (holding ``dice-face.onnx`` and its card), or pair of folders ``DIR1+DIR2`` read as one model that averages
their probabilities (as the committed graph averages its two networks: one-network runs of two seeds measured as
the pair the recipe would commit), is measured, with the reader's own rules (floor, second look, pip counter), on:

* the *tune* fold of the Byler train split (:func:`vision.lab.splits.fold_of`), never the val split: the whole
  reader on the labelled boxes, and behind a detector (its finds matched to the labels): the committed one,
  which trained on the tune photos and so finds them better than it finds new photos, or with ``--detector DIR``
  one trained without them (``python -m vision.lab.detect_train --hold-out-tune --models-dir DIR``);
* jittered crops of the tune dice, cut as an imperfect detector would (a fixed seed, so every model sees the
  same crops): wrong readings, wrong readings at or above the confidence floor (those the floor would let
  through), and mean log-loss, after the second look (with its tighter crops, cut from the same candidates);
* rendered dice no trainer draws (plain dice of :func:`vision.lab.render.render_scene`, seed 777), read from their
  true position.

One line per model comes out, as a Markdown table, so rounds of experiments can be written down as measured.
With ``--condition KIND:AMOUNT`` (:mod:`vision.conditions`) the tune photos are read as taken under other camera
conditions, on the labelled boxes and behind the detector only (the other two parts are not photos).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from vision.conditions import Condition, ConditionError, parse_condition
from vision.crop import crop_die
from vision.faces import CONFIDENCE_FLOOR, TIGHT_SIDE, FaceModel, second_look, valid_floor
from vision.lab.evaluate import evaluate
from vision.lab.read_train import SHARED, real_dice
from vision.lab.render import render_scene
from vision.lab.splits import byler_records, fold_of, manifest_path
from vision.recognize import Detector, DiceRecognizer, FixedDetector, default_detector
from vision.types import DieCandidate

#: Seeds of the jittered tune crops and of the rendered scenes: fixed, so every model is measured on the same data.
JITTER_SEED = 4242
RENDER_SEED = 777


def tune_records(shared: Path) -> list[dict[str, Any]]:
    """The Byler photos of the tune fold (a part of the train split)."""
    return [r for r in byler_records(shared, "train") if fold_of(r["image"]) == "tune"]


class MeanOfModels(FaceModel):
    """Face models read as one: the mean of their probabilities (the first one's card names the labels)."""

    def __init__(self, folders: list[Path]) -> None:
        super().__init__(models_dir=folders[0])
        self.others = [FaceModel(models_dir=folder) for folder in folders[1:]]
        for folder, other in zip(folders[1:], self.others, strict=True):
            if other.card.labels != self.card.labels or other.size != self.size:
                raise ValueError(f"{folder}: its model reads other crops or labels than {folders[0]}'s")

    def label_probabilities(self, inputs: np.ndarray) -> np.ndarray:
        members = [super().label_probabilities(inputs)] + [m.label_probabilities(inputs) for m in self.others]
        return np.mean(members, axis=0)


def model_folders(spec: str | Path) -> list[Path]:
    """The folders of a model spec: one folder, or several joined by ``+`` (read as their mean)."""
    return [Path(part) for part in str(spec).split("+")]


def load_faces(spec: str | Path) -> FaceModel:
    folders = model_folders(spec)
    return FaceModel(models_dir=folders[0]) if len(folders) == 1 else MeanOfModels(folders)


def whole_reader(
    recognizer: DiceRecognizer,
    records: list[dict[str, Any]],
    truth_boxes: bool,
    condition: Condition | None = None,
) -> dict[str, Any]:
    """Dice matched, readings matching no label (false), wrong values, wrong and sure, unsure share: on the
    labelled boxes, or behind the recognizer's detector (with ``condition``, on the photos as taken under it)."""
    summary = evaluate(records, recognizer, truth_boxes=truth_boxes, condition=condition).summary()
    return {
        "dice": summary["matched"],
        "false": summary["found"] - summary["matched"],
        "wrong": summary["wrong_values"],
        "sure_wrong": summary["wrong_values_not_unsure"],
        "unsure": summary["unsure_rate"],
    }


def jittered(faces: FaceModel, shared: Path, floor: float = CONFIDENCE_FLOOR, repeats: int = 8) -> dict[str, Any]:
    """The tune dice cut ``repeats`` times each as a detector might; read once, then the second look with its
    tighter crops (here triggered by the confidence alone: these crops are the model's size, too small for the pip
    counter)."""
    dice = list(real_dice(shared, {"tune"}, {"tune": repeats}, np.random.default_rng(JITTER_SEED)))
    crops = np.stack([crop_die(image, candidate, faces.size) for image, candidate, _ in dice])
    labels = np.array([label for _, _, label in dice], np.int64)

    def tight(indices: np.ndarray) -> np.ndarray:
        return np.stack([crop_die(dice[i][0], dice[i][1].scaled(TIGHT_SIDE), faces.size) for i in indices])

    first = faces.probabilities(crops)
    p = second_look(faces, crops, first, [None] * len(crops), floor, tight)
    wrong = p.argmax(axis=1) != labels
    truth_p = np.clip(p[np.arange(len(labels)), labels], 1e-6, 1.0)
    return {
        "crops": len(labels),
        "wrong": int(wrong.sum()),
        "sure_wrong": int((wrong & (p.max(axis=1) >= floor)).sum()),
        "log_loss": float(-np.log(truth_p).mean()),
    }


def rendered(recognizer: DiceRecognizer, dice: int = 1200) -> dict[str, Any]:
    """Plain rendered dice (seed 777), read from their true centre, side and angle."""
    rng = np.random.default_rng(RENDER_SEED)
    total = wrong = sure_wrong = 0
    while total < dice:
        image, truth = render_scene(rng, size=(320, 320), n_dice=(6, 14), side_range=(18, 60))
        candidates = [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
        readings = recognizer.read_candidates(image, candidates)
        # A die the model drops as "not a die" has no reading and counts as wrong; a reading keeps its
        # candidate's centre, which pairs it with its die.
        by_centre = {r.centre: r for r in readings}
        for die, candidate in zip(truth, candidates, strict=True):
            reading = by_centre.get(candidate.centre)
            total += 1
            if reading is None or reading.value != die.value:
                wrong += 1
                sure_wrong += int(reading is not None and not reading.unsure)
    return {"dice": total, "wrong": wrong, "sure_wrong": sure_wrong}


def measure(
    models: str | Path,
    shared: Path,
    floor: float = CONFIDENCE_FLOOR,
    rendered_dice: int = 1200,
    detector: Detector | None = None,
    condition: Condition | None = None,
) -> dict[str, Any]:
    """Every figure of one model (a folder, or folders joined by ``+``: :func:`load_faces`), with this confidence
    floor (and second-look trigger), behind ``detector`` (the committed one unless given). Under ``condition``
    only the photos are measured; the jittered crops and rendered dice are then ``None``."""
    faces = load_faces(models)
    members = [faces, *faces.others] if isinstance(faces, MeanOfModels) else [faces]
    records = tune_records(shared)
    on_boxes = DiceRecognizer(detector=FixedDetector(), faces=faces, floor=floor)
    behind_detector = DiceRecognizer(detector=detector or default_detector(), faces=faces, floor=floor)
    return {
        "model": str(models),
        "seed": "+".join(str(m.card.training.get("seed")) for m in members),
        "held_out": all(bool(m.card.metrics.get("tune_fold_held_out", False)) for m in members),
        "floor": floor,
        "condition": str(condition) if condition is not None else None,
        "boxes": whole_reader(on_boxes, records, truth_boxes=True, condition=condition),
        "detector": whole_reader(behind_detector, records, truth_boxes=False, condition=condition),
        "jittered": jittered(faces, shared, floor) if condition is None else None,
        "rendered": rendered(on_boxes, rendered_dice) if condition is None else None,
    }


def held_out_detector(folder: Path) -> Detector:
    """The detector in ``folder``, which must have been trained without the tune fold (its card says so)."""
    from vision.detect import DiceDetector
    from vision.modelcard import ModelCardError

    if not (folder / "dice-detect.onnx").is_file():
        raise ValueError(f"{folder} holds no dice-detect.onnx")
    try:
        detector = DiceDetector(models_dir=folder)
    except ModelCardError as exc:
        raise ValueError(f"{folder}: {exc}") from None
    if not detector.card.training.get("tune_fold_held_out"):
        raise ValueError(f"{folder}: its detector was trained on the tune fold (train it with --hold-out-tune)")
    return detector


def header(floor: float = CONFIDENCE_FLOOR) -> str:
    return (
        f"| model (seed), floor {floor:.2f} | tune boxes: wrong (sure) / unsure | behind the detector: wrong (sure) "
        f"of the dice found, false finds / unsure | jittered crops: wrong / wrong at >= {floor:.2f} / log-loss | "
        "rendered: wrong (sure) |\n|---|---|---|---|---|"
    )


def table_row(m: dict[str, Any]) -> str:
    b, d, j, r = m["boxes"], m["detector"], m["jittered"], m["rendered"]
    held = "" if m["held_out"] else " (trained on the tune fold: flattered)"
    under = f" under {m['condition']}" if m.get("condition") else ""
    jittered_cell = "-" if j is None else f"{j['wrong']} / {j['sure_wrong']} of {j['crops']} / {j['log_loss']:.4f}"
    rendered_cell = "-" if r is None else f"{r['wrong']} ({r['sure_wrong']}) of {r['dice']}"
    return (
        f"| {m['model']} ({m['seed']}){held}{under} | {b['wrong']} ({b['sure_wrong']}) of {b['dice']} / "
        f"{b['unsure']:.1%} | {d['wrong']} ({d['sure_wrong']}) of {d['dice']}, {d.get('false', 0)} false / "
        f"{d['unsure']:.1%} | "
        f"{jittered_cell} | {rendered_cell} |"
    )


#: The parts of :func:`measure`'s figures that hold counts (the rest name the model).
PARTS = ("boxes", "detector", "jittered", "rendered")


def recipe_of(models_dir: Path | str) -> str:
    """The recipe a model folder was trained with, by the sweep's naming: ``combo-s3`` is seed 3 of ``combo`` (of
    a pair ``combo-s2+combo-s3``, its last member's)."""
    return re.sub(r"-s\d+$", "", Path(models_dir).name)


def recipe_rows(measures: list[dict[str, Any]]) -> list[str]:
    """One Markdown row per recipe (folders grouped by :func:`recipe_of`), in the order first seen: counts summed
    over its seeds, unsure shares and log-loss averaged, and "wrong and sure" the sum of the three sure counts."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for m in measures:
        groups.setdefault(recipe_of(m["model"]), []).append(m)
    rows = [
        "| recipe | seeds | tune boxes wrong (sure) | unsure | behind the detector wrong (sure) | unsure | "
        "jittered crops wrong / at the floor | log-loss | wrong and sure | rendered wrong |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for recipe, ms in groups.items():
        # Every figure of every part measured, summed over the recipe's seeds: {"boxes": {"wrong": ..., ...}, ...}.
        t = {part: {key: sum(m[part][key] for m in ms) for key in ms[0][part]} for part in PARTS if ms[0][part]}
        n = len(ms)
        j = t.get("jittered")
        sure = t["boxes"]["sure_wrong"] + t["detector"]["sure_wrong"] + (j["sure_wrong"] if j else 0)
        jittered_cells = f"{j['wrong']} / {j['sure_wrong']} | {j['log_loss'] / n:.4f}" if j else "- | -"
        rendered_cell = str(t["rendered"]["wrong"]) if "rendered" in t else "-"
        rows.append(
            f"| {recipe} | {n} | {t['boxes']['wrong']} ({t['boxes']['sure_wrong']}) | {t['boxes']['unsure'] / n:.1%} | "
            f"{t['detector']['wrong']} ({t['detector']['sure_wrong']}) | {t['detector']['unsure'] / n:.1%} | "
            f"{jittered_cells} | {sure} | {rendered_cell} |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.lab.tune_check", description=__doc__.splitlines()[0])
    parser.add_argument(
        "models",
        nargs="+",
        help="folders holding dice-face.onnx and its card; DIR1+DIR2 reads two folders' models as one (their mean)",
    )
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (with data/dice-photos)")
    parser.add_argument(
        "--floor",
        type=_floor,
        default=CONFIDENCE_FLOOR,
        help=f"confidence floor and second-look trigger to measure with (default {CONFIDENCE_FLOOR}, the device's)",
    )
    parser.add_argument(
        "--detector",
        type=Path,
        help="a folder holding dice-detect.onnx to read the tune photos behind (one trained with --hold-out-tune); "
        "default: the committed detector",
    )
    parser.add_argument(
        "--condition",
        type=_condition,
        metavar="KIND:AMOUNT",
        help="read the tune photos as taken under other camera conditions (vision.conditions), e.g. scale:0.5",
    )
    parser.add_argument(
        "--by-recipe",
        action="store_true",
        help="also print one row per recipe, summed over its seeds (folders named RECIPE-sSEED, e.g. combo-s3)",
    )
    args = parser.parse_args(argv)
    manifest = manifest_path(args.shared, "byler")
    if not manifest.is_file():
        print(f"tune_check: no Byler manifest at {manifest}", file=sys.stderr)
        return 2
    for spec in args.models:  # every folder is checked before minutes go into measuring the first
        for folder in model_folders(spec):
            if not (folder / "dice-face.onnx").is_file():
                print(f"tune_check: {folder} holds no dice-face.onnx", file=sys.stderr)
                return 2
        try:
            load_faces(spec)  # the models of a pair must read the same crops and labels
        except ValueError as exc:
            print(f"tune_check: {exc}", file=sys.stderr)
            return 2
    detector = None
    if args.detector is not None:
        try:
            detector = held_out_detector(args.detector)
        except ValueError as exc:
            print(f"tune_check: {exc}", file=sys.stderr)
            return 2
    print(header(args.floor))
    measures = []
    for spec in args.models:
        measures.append(measure(spec, args.shared, args.floor, detector=detector, condition=args.condition))
        print(table_row(measures[-1]), flush=True)
    if args.by_recipe:
        print("\n" + "\n".join(recipe_rows(measures)))
    return 0


def _condition(text: str) -> Condition:
    try:
        return parse_condition(text)
    except ConditionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _floor(text: str) -> float:
    try:
        return valid_floor(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--floor takes a probability above 0 and at most 1, not {text!r}") from None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
