"""The vision commands of ``companion``: ``recognize`` (read dice in image files, calibrate a palette) and
``eval-dice`` (measure the reader against a labelled manifest)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2

from vision.colour import Lab, PaletteError, calibrate, load_palette, palette_names, with_kinds
from vision.conditions import known_kinds, parse_condition
from vision.recognize import DiceRecognizer, ImageError, annotate, load_image


def register(subparsers: Any) -> None:
    palettes = "; ".join(f"{name}: {', '.join(colours)}" for name, colours in palette_names().items())
    rec = subparsers.add_parser(
        "recognize",
        help="read the dice in image files",
        description="Find every die in each image and read its face and colour. With --calibrate, measure a photo "
        "of one die of each colour of --palette and write the calibrated palette to --out.",
    )
    rec.add_argument("images", nargs="*", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    rec.add_argument("--json", action="store_true", help="one JSON object per image per line")
    rec.add_argument("--annotate", type=Path, metavar="OUT_DIR", help="write each image with what was read drawn on it")
    rec.add_argument(
        "--palette", default="dice", metavar="NAME", help=f"colour names: a palette or a calibration file ({palettes})"
    )
    rec.add_argument("--calibrate", type=Path, metavar="IMAGE", help="photo of one die of each colour of --palette")
    rec.add_argument("--out", type=Path, metavar="FILE", help="where --calibrate writes the palette (JSON)")
    rec.add_argument("--threads", type=int, default=1, help="CPU threads for the models (default 1)")
    rec.set_defaults(func=run_recognize)

    ev = subparsers.add_parser(
        "eval-dice",
        help="measure the die reader against a labelled manifest",
        description="Detection precision and recall, face accuracy on matched dice, confusion matrix, worst images, "
        "and a contact sheet of every error, for the photos of a manifest (format of shared/data/dice-photos).",
    )
    ev.add_argument("manifest", type=Path, metavar="MANIFEST")
    ev.add_argument(
        "--split", choices=("val", "train", "all"), default="all", help="Byler split to use (default: all photos)"
    )
    ev.add_argument(
        "--out", type=Path, metavar="DIR", help="write results.csv, confusion.csv, summary.json and errors.png there"
    )
    ev.add_argument("--truth-boxes", action="store_true", help="read the labelled boxes instead of detecting")
    ev.add_argument(
        "--corrections",
        type=Path,
        metavar="FILE",
        help="measure against the manifest with these label corrections applied (JSON lines; the Byler set's "
        "audited ones are vision/lab/labels/byler-corrections.jsonl)",
    )
    ev.add_argument(
        "--condition",
        metavar="KIND:AMOUNT",
        help=f"measure on the photos as taken under other camera conditions: {known_kinds()} (vision/conditions.py)",
    )
    ev.add_argument(
        "--frames",
        type=int,
        default=1,
        metavar="N",
        help="read N proxy still frames of each photo (sub-pixel shifts and sensor noise) and fuse them, as the "
        "device fuses a settled table's frames (vision.fuse; default 1: the photo alone)",
    )
    ev.add_argument(
        "--colours",
        type=Path,
        metavar="FILE",
        help="also measure colour names on the labelled dice of FILE (vision/lab/labels/byler-colours.jsonl): the "
        "general palette, and each game's palette taught from one die of each colour",
    )
    ev.add_argument(
        "--tilt", action="store_true",
        help="read the learnt cocked flag too (models/dice-tilt.onnx; DiceRecognizer(tilt=True), off by default)",
    )  # fmt: skip
    ev.add_argument("--update-card", action="store_true", help="store the summary in the face model's card")
    ev.add_argument("--threads", type=int, default=1)
    ev.set_defaults(func=run_eval)


def run_recognize(args: argparse.Namespace) -> int:
    if args.calibrate is not None:
        return _calibrate(args)
    if not args.images:
        raise ValueError("give one or more IMAGE files (or --calibrate IMAGE)")
    if args.threads < 1:
        raise ValueError(f"--threads {args.threads} must be at least 1")
    recognizer = DiceRecognizer(palette=args.palette, threads=args.threads)
    if args.annotate is not None:
        args.annotate.mkdir(parents=True, exist_ok=True)
    for name in args.images:
        image = load_image(name)
        readings = recognizer.read(image)
        h, w = image.shape[:2]
        if args.json:
            record = {"image": name, "width": w, "height": h, "dice": [r.to_json() for r in readings]}
            print(json.dumps(record), flush=True)
        else:
            dice = ", ".join(f"{r.value}{'?' if r.unsure else ''} {r.colour}" for r in readings) or "no dice"
            print(f"{name}: {len(readings)} dice: {dice}", flush=True)
        if args.annotate is not None:
            out = args.annotate / (Path(name).stem + ".png")
            if not cv2.imwrite(str(out), annotate(image, readings)):
                raise OSError(f"could not write {out}")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    if args.out is None:
        raise ValueError("--calibrate needs --out FILE for the calibrated palette")
    if args.images:
        raise ValueError("--calibrate takes one photo and no other IMAGE")
    base = load_palette(args.palette)
    recognizer = DiceRecognizer(palette=base, threads=args.threads)
    image = load_image(args.calibrate)
    result = calibrate(measure_dice(recognizer, image), base)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # The file keeps the kinds of real dice beside the measured colours, as the device's teaching does
    # (vision.colour.with_kinds: 97-98% of a game's dice named right, against 79-82% by the measured colours alone).
    data = {**with_kinds(result.palette).to_json(), "image": str(args.calibrate)}
    args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    for centre, lab, name in sorted(result.dice, key=lambda d: (d[0][0], d[0][1])):
        print(f"die at ({centre[0]:.0f}, {centre[1]:.0f}): {name}  Lab {lab[0]:.1f} {lab[1]:.1f} {lab[2]:.1f}")
    print(f"wrote {args.out}")
    return 0


def measure_dice(recognizer: DiceRecognizer, image: Any) -> list[tuple[tuple[float, float], Lab]]:
    """Centre and body Lab of every die the recogniser finds (for calibration)."""
    image, found = recognizer.candidates(image)
    readings = recognizer.read_candidates(image, found)
    return [(r.centre, r.lab) for r in readings]


def run_eval(args: argparse.Namespace) -> int:
    from vision.lab.evaluate import evaluate, format_summary, write_results
    from vision.lab.splits import apply_corrections, read_corrections, read_manifest, split_of
    from vision.recognize import FixedDetector

    condition = parse_condition(args.condition) if args.condition is not None else None
    if condition is not None and args.update_card:
        raise ValueError("--update-card stores the figures of the photos as taken, not under --condition")
    if not args.manifest.is_file():
        raise ImageError(f"{args.manifest}: no such manifest")
    records = list(read_manifest(args.manifest))
    if args.split != "all":
        records = [r for r in records if split_of(r["image"]) == args.split]
    if not records:
        raise ValueError(f"{args.manifest}: no photos in split {args.split!r}")
    applied = 0
    if args.corrections is not None:
        if not args.corrections.is_file():
            raise ValueError(f"{args.corrections}: no such corrections file")
        records, applied = apply_corrections(records, read_corrections(args.corrections))
    detector = FixedDetector() if args.truth_boxes else None
    if args.tilt and args.update_card:
        raise ValueError("--update-card stores the figures of the reader as the games use it, not with --tilt")
    recognizer = DiceRecognizer(detector=detector, threads=args.threads, tilt=args.tilt)
    done = [0]

    def progress(image: str) -> None:
        done[0] += 1
        print(f"\r{done[0]}/{len(records)} {image}", end="", file=sys.stderr, flush=True)

    if args.frames != 1 and args.update_card:
        raise ValueError("--update-card stores the figures of single photos, not of --frames")
    evaluation = evaluate(
        records, recognizer, truth_boxes=args.truth_boxes, progress=progress, condition=condition, frames=args.frames
    )
    print(file=sys.stderr)
    extra = {
        "manifest": str(args.manifest),
        "split": args.split,
        "detector": "labelled boxes" if args.truth_boxes else "vision.detect.DiceDetector",
    }
    if condition is not None:
        extra["condition"] = str(condition)
    if args.frames != 1:
        extra["frames"] = args.frames
    extra["floor"] = recognizer.floor
    if args.tilt:
        extra["tilt"] = True
    extra["tradeoff"] = evaluation.tradeoff()
    if args.colours is not None:
        extra["colour"] = colour_figures(args.colours, {r["image"] for r in records}, args.manifest)
    if args.corrections is not None:
        extra["corrections"] = str(args.corrections)
        extra["corrections_applied"] = applied
    summary = {**evaluation.summary(), **extra}
    if args.out is not None:
        write_results(evaluation, args.out, extra)
        print(f"wrote results.csv, confusion.csv, summary.json and errors.png to {args.out}")
    print(format_summary(summary))
    if "colour" in summary:
        c = summary["colour"]
        print(
            f"colour: general palette names {c['general_right']} of {c['dice']} labelled dice right "
            f"({c['general_share']:.1%}; one reference per name: {c['general_right_one_reference']}); "
            + "; ".join(
                f"{game} {c[game]['right']} of {c[game]['dice']}, taught from one die of each "
                f"{c[game]['taught_share']:.1%} (worst {c[game]['taught_worst']:.1%}), with the kinds "
                f"{c[game]['taught_with_kinds_share']:.1%} (worst {c[game]['taught_with_kinds_worst']:.1%})"
                for game in c
                if isinstance(c[game], dict)
            )
        )
    if args.update_card:
        _update_card(summary)
    return 0


def colour_figures(labels_path: Path, images: set[str], manifest: Path) -> dict[str, Any]:
    """Colour names on the labelled dice of ``images`` (their labelled boxes): the general palette as it was
    (one reference per name) and as it is (with the kinds of real dice), each game's palette, and each game's
    colours taught from one die of each (mean and worst of 200 draws), alone and joined by the kinds of real dice
    (:func:`vision.colour.with_kinds`)."""
    from engine.dice import PALETTES
    from vision.colour import nominal_palette
    from vision.lab.colour_fit import measure_labelled, named_right, read_colour_labels, taught_right

    if not labels_path.is_file():
        raise ValueError(f"{labels_path}: no such colour labels file")
    labels = [label for label in read_colour_labels(labels_path) if label["image"] in images]
    if not labels:
        raise ValueError(f"{labels_path}: no colour labels for these photos")
    # The colour labels name Byler photos; their manifest sits at SHARED/data/dice-photos/byler/manifest.jsonl.
    if len(manifest.resolve().parents) < 4 or manifest.resolve().parent.name != "byler":
        raise ValueError(f"--colours measures the Byler photos; {manifest} is not the Byler manifest")
    dice = measure_labelled(manifest.resolve().parents[3], labels, DiceRecognizer(detector=_fixed()))
    figures: dict[str, Any] = {
        "dice": len(dice),
        "general_right": named_right(nominal_palette("dice"), dice),
        "general_right_one_reference": named_right(nominal_palette("dice", use_kinds=False), dice),
    }
    figures["general_share"] = round(figures["general_right"] / max(len(dice), 1), 4)
    for game, names in PALETTES.items():
        own = [d for d in dice if d.colours[0] in names]
        share, worst, measured = taught_right(dice, names)
        joined, joined_worst, _ = taught_right(dice, names, join_kinds=True)
        figures[game] = {
            "dice": len(own),
            "right": named_right(nominal_palette(game), own),
            "taught_share": round(share, 4),
            "taught_worst": round(worst, 4),
            "taught_measured": measured,
            "taught_with_kinds_share": round(joined, 4),
            "taught_with_kinds_worst": round(joined_worst, 4),
        }
    return figures


def _fixed() -> Any:
    from vision.recognize import FixedDetector

    return FixedDetector()


def _update_card(summary: dict[str, Any]) -> None:
    from models import MODELS_DIR

    path = MODELS_DIR / "dice-face.card.json"
    card = json.loads(path.read_text(encoding="utf-8"))
    key = "eval_dice_truth_boxes" if summary["detector"] == "labelled boxes" else "eval_dice"
    corrected = "_corrected" if "corrections" in summary else ""
    card.setdefault("metrics", {})[f"{key}_{summary['split']}{corrected}"] = {
        k: v for k, v in summary.items() if k not in ("worst_images", "manifest", "tradeoff")
    }
    path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(f"stored the figures in {path}")


__all__ = ["PaletteError", "register"]
