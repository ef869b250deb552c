"""Training of the face model ``models/dice-face.onnx`` (``make train``; needs the ``train`` extra: torch, CPU).

Data, all cut by :func:`vision.crop.crop_die` (the rule the recogniser uses at inference):

* real photos: every die of ``../shared/data/dice-photos/rune55`` and of the Byler *train* split except a
  *tune* fold (a quarter of the train photos, by a salted hash of the name) that is held out to measure the
  model while developing; the Byler *val* split is never seen here. A label is a box without an angle, so
  the die's angle is measured (:func:`vision.crop.estimate_angle`, edge orientation, as the detector does)
  and each die is cut several times as the detector would report it, with its kind of error: the square
  the box bounds at that angle, centre, side and angle a little off, any quarter turn;
* not-a-die crops (label ``none``, the seventh output): die-sized squares of the same photos away from every
  labelled die or well off a die's centre, so the reader can drop a detector's false finds;
* rendered dice from :mod:`vision.lab.render` (random sizes, colours, pip colours, lighting, shadows, blur,
  noise, JPEG, side faces, touching neighbours, a few cocked, half the dark ones with faint pips like the
  dark translucent dice of the photos, 30% with marbled bodies like their swirled dice; ``--translucent``
  draws a share see-through, the far face's pips showing, which the recipe leaves out), cut from their box
  and true angle the same way.

``--rune55-dropped`` leaves out the Rune55 dice listed in ``vision/lab/labels/rune55-dropped.jsonl`` (read otherwise
than labelled by a model trained on them), and ``--centre-contrast`` gives the network a second view of each crop,
standardised by its top face; the recipe uses neither, as both did worse on the tune fold.

Photometric augmentation (channel swaps, brightness, contrast, noise, and 30% of the crops *softened*: shrunk to
40-80% and enlarged back, like a softer photo) and the eight symmetries of the square (which keep a face's value)
are drawn per batch. No crop is made grey (``--grey``): the red pips of the blue and smoky dice can differ from
their body more in colour than in brightness, and colour is what grey crops teach the network to do without. Those
two choices and twice the rendered dice of earlier rounds were chosen in the sixth round with eight seeds of each
recipe (``docs/vision.md``); ``--device cuda`` trains such experiments on a GPU.

The model is two such networks (``--members 2``): each trained exactly as a one-network run with its own seed
(``--seed`` and the next), data and all, and exported as one graph that gives the log of their mean probabilities,
so the device reads one file as before. Networks of other seeds make their sure mistakes on different crops: over
sixteen seeds on the tune fold the mean of two left a quarter as many wrong readings sure as one network, for as
many wrong values (seventh round, ``docs/vision.md``).

The file written has that graph's convolutional layers in 8-bit integers (:func:`quantise`: int8 weights per
output channel, uint8 activations whose ranges are measured on the labelled dice of the Byler photos it trains on;
the head stays in float): it reads 25 dice in about half the time of the float graph, with the same values
(eighth round, ``docs/vision.md``); ``--float32`` writes the float graph instead.

Seeds are fixed and torch always uses two threads (the thread count changes the order of floating-point sums, so
it is part of the recipe): a run gives the same model.
Writes ``models/dice-face.onnx``, ``models/dice-face.card.json`` and prints the measured accuracies.

The code is in three parts, and this module is the command that runs them: the data (:mod:`vision.lab.read_data`), the
network and its training (:mod:`vision.lab.read_network`) and the export (:mod:`vision.lab.read_export`); every name is
also importable from here, where callers found it before the split.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from models import MODELS_DIR
from vision.crop import CROP_MARGIN, CROP_SIZE
from vision.lab.read_data import (
    NOT_A_DIE,
    SEED,
    SHARED,
    TrainingData,
    background_crops,
    jittered_candidate,
    real_crops,
    real_dice,
    rendered_crops,
    token_crops,
    training_data,
)
from vision.lab.read_export import (
    MAX_QUANTISED_CHANGE,
    MIN_QUANTISED_AGREEMENT,
    QUANTISED_OPS,
    _check_export,
    _check_quantised,
    export,
    quantise,
)
from vision.lab.read_network import (
    CHANNELS,
    accuracy,
    as_uint8_tensor,
    augment,
    build_ensemble,
    build_model,
    to_tensor,
    train_network,
)
from vision.lab.splits import RUNE55_DROPPED, read_corrections
from vision.modelcard import sha256_of

# The trainer is three parts (issue 25): the data (vision.lab.read_data), the network (vision.lab.read_network) and the
# export (vision.lab.read_export); this module is the command, and every name stays where its callers found it.


def _four_channels(text: str) -> tuple[int, int, int, int]:
    """``--channels``: checked when the command line is read, not after minutes of cutting crops."""
    parts = text.split(",")
    if len(parts) != 4 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"--channels takes four positive whole numbers, not {text!r}")
    return int(parts[0]), int(parts[1]), int(parts[2]), int(parts[3])


def _members(text: str) -> int:
    """``--members``: a count of networks, checked when the command line is read."""
    if not text.isdigit() or not 1 <= int(text) <= 8:
        raise argparse.ArgumentTypeError(f"takes a count of networks from 1 to 8, not {text!r}")
    return int(text)


def count_arg(text: str) -> int:
    """A count (``--tokens``), 0 or more: checked when the command line is read."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"takes a count (0 or more), not {text!r}")
    return int(text)


def share_arg(text: str) -> float:
    """A share from 0 to 1 (``--grey``, ``--soften``, ...): checked when the command line is read."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"takes a share from 0 to 1, not {text!r}")
    return value


def options() -> argparse.ArgumentParser:
    """The trainer's command line; its defaults are the recipe ``make train`` runs (the card records them)."""
    parser = argparse.ArgumentParser(prog="python -m vision.lab.read_train", description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (with data/dice-photos)")
    parser.add_argument("--out", type=Path, default=MODELS_DIR, help="where to write the model and its card")
    parser.add_argument("--epochs", type=int, default=18)
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the data, the weights and the batches")
    parser.add_argument(
        "--rendered",
        type=int,
        default=24000,
        help="rendered crops to train on (default 24000; was 12000 until the sixth round)",
    )
    parser.add_argument(
        "--tokens",
        type=count_arg,
        default=0,
        help="rendered round things with no pips (tokens, coins, a tray's holes) to train as not a die (default 0: "
        "3000 was tried in the tenth round and not kept, docs/vision.md)",
    )
    parser.add_argument(
        "--threads", type=int, default=2, help="torch threads (default 2; another count gives another model)"
    )
    parser.add_argument(
        "--faint-pips",
        type=share_arg,
        default=0.5,
        help="share of dark rendered dice drawn with low-contrast pips (default 0.5: chosen on the tune fold)",
    )
    parser.add_argument(
        "--swirled",
        type=share_arg,
        default=0.3,
        help="share of rendered dice drawn with marbled bodies (default 0.3: chosen on the tune fold)",
    )
    parser.add_argument(
        "--translucent",
        type=share_arg,
        default=0.0,
        help="share of rendered dice drawn see-through, the far face's pips showing through the top face "
        "(default 0: 0.3 was tried with three seeds on the tune fold and did not help)",
    )
    parser.add_argument(
        "--channels",
        type=_four_channels,
        help="channels of the four conv blocks, e.g. 24,48,64,96 (default: the crop size's)",
    )
    parser.add_argument(
        "--byler-repeats", type=int, default=32, help="jittered crops per Byler train die (rune55 dice get 4)"
    )
    parser.add_argument(
        "--rune55-dropped",
        type=Path,
        nargs="?",
        const=RUNE55_DROPPED,
        help="leave out the Rune55 dice this corrections file drops"
        " (without FILE: vision/lab/labels/rune55-dropped.jsonl;"
        " default: train on every Rune55 die: leaving those out was tried with three seeds and did worse)",
    )
    parser.add_argument(
        "--centre-contrast",
        action="store_true",
        help="also feed the crop standardised by its central half (the top face), so faint pips count as much "
        "(off in the recipe: tried with three seeds on the tune fold and did worse)",
    )
    parser.add_argument(
        "--grey",
        type=share_arg,
        default=0.0,
        help="share of each batch's crops shown without colour (default 0: keeps the colour of red pips on blue; "
        "was 0.25 until the sixth round)",
    )
    parser.add_argument(
        "--soften",
        type=share_arg,
        default=0.3,
        help="share of each batch's crops shrunk and enlarged back, like a softer photo (default 0.3; was 0 until "
        "the sixth round)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="torch device to train on (default cpu, the recipe; 'cuda' trains faster for experiments but gives "
        "another model than the committed one)",
    )
    parser.add_argument(
        "--members",
        type=_members,
        default=2,
        help="networks trained with seeds SEED, SEED+1, ..., each on its own draw of the data, whose mean the "
        "model gives (default 2: on the tune fold a quarter of one network's wrong readings are left sure; "
        "seventh round)",
    )
    parser.add_argument("--crop-size", type=int, default=CROP_SIZE, choices=sorted(CHANNELS), help="crop side in px")
    parser.add_argument(
        "--float32",
        action="store_true",
        help="write the float graph (by default it is quantised to 8 bits, as the device reads it)",
    )
    parser.add_argument(
        "--hold-out-tune",
        action="store_true",
        help="keep the tune fold out of training (to measure while developing); by default the final model "
        "trains on the whole Byler train split",
    )
    return parser


def missing_modules(float32: bool) -> str | None:
    """What the run cannot import, said before any work: the train extra's torch, tqdm and onnx, and unless the
    float graph is asked for, ONNX Runtime's quantiser (which needs ml_dtypes); None when all load."""
    import importlib

    wanted = ["torch", "tqdm", "onnx"] + ([] if float32 else ["onnxruntime.quantization"])
    for name in wanted:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            return f"{name} cannot be imported ({exc})"
    return None


def main(argv: list[str] | None = None) -> int:
    args = options().parse_args(argv)
    missing = missing_modules(args.float32)
    if missing:
        print(f"read_train: {missing}; install the train extra (pip install -e '.[train]')", file=sys.stderr)
        return 2

    import torch

    if args.device != "cpu" and not (args.device.startswith("cuda") and torch.cuda.is_available()):
        print(f"read_train: torch cannot train on {args.device!r} here (use cpu)", file=sys.stderr)
        return 2

    torch.set_num_threads(max(1, args.threads))
    started = time.time()
    rune55_fixes = read_corrections(args.rune55_dropped) if args.rune55_dropped else []
    seeds = [args.seed + k for k in range(args.members)]
    networks = []
    for k, seed in enumerate(seeds):
        # Each member is the network a one-member run with its seed would train, data and all: seeding torch
        # here, before anything draws from it, keeps the first member the model of a plain run.
        torch.manual_seed(seed)
        name = f"member {k + 1}/{len(seeds)} (seed {seed}) " if len(seeds) > 1 else ""
        member_data = training_data(args, seed, rune55_fixes)
        networks.append(train_network(args, member_data, seed, name))
        if k == 0:  # its counts go on the card, and the model is measured on its tune and val crops
            data = replace(member_data, train_x=member_data.train_x[:0], train_y=member_data.train_y[:0])
        del member_data  # the next member's crops take its place in memory
    model = build_ensemble(networks)
    size = args.crop_size
    tune_x, tune_y = data.tune_x, data.tune_y

    tune_acc, tune_probs = accuracy(model, tune_x, tune_y, args.device)
    plain_acc, _ = accuracy(model, data.tune_plain_x, data.tune_plain_y, args.device)
    val_acc, _ = accuracy(model, data.val_x, data.val_y, args.device)
    confident = tune_probs.max(1) >= 0.9
    wrong_confident = int(((tune_probs.argmax(1) != tune_y) & confident).sum())
    print(f"tune accuracy: jittered {tune_acc:.4f}, plain {plain_acc:.4f}; val (plain crops) {val_acc:.4f}")
    print(f"tune: {confident.mean():.3f} of crops at >= 0.9 confidence, {wrong_confident} of them wrong")

    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / "dice-face.onnx"
    quantisation = None
    with tempfile.TemporaryDirectory() as tmp:
        float_path = onnx_path if args.float32 else Path(tmp) / "float32.onnx"
        export(model, float_path, size)
        _check_export(model, float_path, tune_x[:64])
        if not args.float32:
            # Activation ranges from the labelled dice of the Byler photos the networks trained on, cut plainly.
            byler_folds = {"train"} if args.hold_out_tune else {"train", "tune"}
            calibration, _ = real_crops(
                args.shared, byler_folds, {}, np.random.default_rng(SEED), jitter=False, size=size
            )
            quantisation = quantise(float_path, onnx_path, calibration)
            quantisation |= _check_quantised(float_path, onnx_path, tune_x[:256])
    prefix = ""
    if args.members > 1:
        prefix = f"each of {args.members} networks (seeds {seeds[0]}..{seeds[-1]}) on its own draw of "
    rune55_used = f"less the {len(rune55_fixes)} in {args.rune55_dropped.name}" if args.rune55_dropped else "all"
    card: dict[str, Any] = {
        "name": "dice-face",
        "file": onnx_path.name,
        "sha256": sha256_of(onnx_path),
        "input": {
            "name": "input",
            "shape": [-1, 3, size, size],
            "dtype": "float32",
            "layout": "NCHW, BGR",
            "normalisation": "x / 255; the graph standardises each crop (mean 0, std 1) itself",
        },
        "output": {
            "name": "logits",
            "shape": [-1, 7],
            "meaning": (
                "one logit per face and one for 'not a die'; softmax gives p"
                if args.members == 1
                else f"the log of the {args.members} networks' mean p per face and for 'not a die'; softmax gives it"
            ),
        },
        "labels": ["1", "2", "3", "4", "5", "6", "none"],
        "quantisation": quantisation,
        "crop_rule": (
            f"vision.crop.crop_die: the square of side {1 + CROP_MARGIN:g} x the die's side centred on the die and "
            f"turned by its angle so its edges are axis-aligned, sampled to {size}x{size} BGR "
            "(area-averaged when shrinking more than 2x, border pixels repeated)"
        ),
        "training": {
            "data": (
                f"{prefix}{data.real} jittered crops of real dice (rune55 x4, {rune55_used}, "
                f"Byler train split x{args.byler_repeats}"
                f"{' minus the tune fold' if args.hold_out_tune else ''}) and {data.rendered} crops of dice drawn by "
                f"vision.lab.render, and {data.not_a_die} not-a-die crops of the same photos"
                f"{f' and of {args.tokens} rendered tokens' if args.tokens else ''} (label none); "
                "Byler val never seen"
            ),
            "command": "make train (python -m vision.lab.read_train)",
            "seed": args.seed,
            "members": args.members,
            "member_seeds": seeds,
            "epochs": args.epochs,
            "faint_pips": args.faint_pips,
            "swirled": args.swirled,
            "translucent": args.translucent,
            "threads": args.threads,
            "tokens": args.tokens,
            "byler_repeats": args.byler_repeats,
            "rune55_dropped": len(rune55_fixes),
            "channels": list(args.channels or CHANNELS[size]),
            "centre_contrast": args.centre_contrast,
            "rendered": args.rendered,
            "grey": args.grey,
            "soften": args.soften,
            "device": args.device,
            "seconds": round(time.time() - started),
        },
        "metrics": {
            "tune_fold_held_out": bool(args.hold_out_tune),
            "tune_fold_accuracy_jittered_crops": round(tune_acc, 4),
            "tune_fold_accuracy_box_crops": round(plain_acc, 4),
            "byler_val_accuracy_box_crops": round(val_acc, 4),
            "tune_fold_dice": len(data.tune_plain_y),
            "byler_val_dice": len(data.val_y),
        },
    }
    # Figures measured on the previous model (eval-dice, bench) do not describe this one: they are left out
    # until `companion eval-dice ... --update-card` and the bench are run again.
    (args.out / "dice-face.card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print("now run: companion eval-dice ../shared/data/dice-photos/byler/manifest.jsonl --split val --update-card")
    size = onnx_path.stat().st_size
    print(f"wrote {onnx_path} ({size / 1024:.0f} KiB) and its card in {time.time() - started:.0f} s")
    return 0


__all__ = [
    "CHANNELS", "MAX_QUANTISED_CHANGE", "MIN_QUANTISED_AGREEMENT", "NOT_A_DIE", "QUANTISED_OPS", "SEED", "SHARED",
    "TrainingData", "_check_export", "_check_quantised", "accuracy", "as_uint8_tensor", "augment", "background_crops",
    "build_ensemble", "build_model", "count_arg", "export", "jittered_candidate", "main", "missing_modules",
    "options", "quantise", "real_crops", "real_dice", "rendered_crops", "share_arg", "to_tensor", "token_crops",
    "train_network", "training_data",
]  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
