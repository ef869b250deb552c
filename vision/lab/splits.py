"""The fixed train/validation split of the real photographs, shared by every trainer and evaluator.

Byler photos are for measuring: a photo is in the validation split when the SHA-1 of its file name
falls in the first fifth of the hash range (about 30 of 150 photos), a rule that does not depend on
the order or number of photos, so a trainer and an evaluator can never disagree. A quarter of the rest, by
the same kind of rule, is the *tune* fold (:func:`fold_of`) that trainers can hold out while developing.
Rune55 photos are all for training, as their README asks.

Label corrections: a manifest's labels are somebody's reading of the photos and a few are wrong. A
corrections file (JSON lines, ``vision/lab/labels/byler-corrections.jsonl`` for the Byler set) names each
labelled die it changes by its image, box and value as the manifest has them, and gives the ``fix`` (the
box and value it should have, or ``null`` to drop it) and ``why``; ``box`` and ``value`` ``null`` adds a die
the manifest lacks. :func:`apply_corrections` refuses a file that does not fit the manifest, so a fix can
never land on the wrong die. ``companion eval-dice --corrections FILE`` reports figures against them; the
figures against the manifest as given are always reported too.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

Split = Literal["train", "val"]
VAL_FRACTION = 0.2


def split_of(image: str) -> Split:
    """'val' or 'train' for a Byler image path such as ``images/IMG_20191208_111228.jpg``."""
    name = Path(image).name
    h = int.from_bytes(hashlib.sha1(name.encode("utf-8")).digest()[:8], "big")
    return "val" if h < VAL_FRACTION * 2**64 else "train"


#: The share of the Byler train photos held out as the *tune* fold while developing (trainers' --hold-out-tune).
TUNE_FRACTION = 0.25


def fold_of(image: str) -> str:
    """'val' (Byler val split), 'tune' (held-out part of Byler train) or 'train'."""
    if split_of(image) == "val":
        return "val"
    name = Path(image).name
    h = int.from_bytes(hashlib.sha1(("tune:" + name).encode("utf-8")).digest()[:8], "big")
    return "tune" if h < TUNE_FRACTION * 2**64 else "train"


def json_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """Each non-blank line of a JSON-lines file, parsed, with where it is (``path:line``, for messages)."""
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield f"{path}:{lineno}", json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None


def read_manifest(path: Path) -> Iterator[dict[str, Any]]:
    """The manifest's records, with ``path`` resolved to the image file."""
    base = path.parent
    for _, record in json_lines(path):
        record["path"] = str(base / record["image"])
        yield record


def manifest_path(shared: Path, photo_set: Literal["byler", "rune55"]) -> Path:
    """The manifest of one set of photographs in the shared folder."""
    return shared / "data" / "dice-photos" / photo_set / "manifest.jsonl"


def byler_records(shared: Path, split: Split) -> list[dict[str, Any]]:
    return [r for r in read_manifest(manifest_path(shared, "byler")) if split_of(r["image"]) == split]


#: The audited corrections of the Byler manifest (see the module's doc and ``docs/vision.md``).
BYLER_CORRECTIONS = Path(__file__).resolve().parent / "labels" / "byler-corrections.jsonl"

#: Rune55 dice that a face model trained on them still read otherwise than their label, or called not a die:
#: every line drops the die (``fix`` null). ``python -m vision.lab.read_train --rune55-dropped`` leaves them out;
#: the recipe does not (it did worse that way, see ``docs/vision.md``).
RUNE55_DROPPED = Path(__file__).resolve().parent / "labels" / "rune55-dropped.jsonl"


def read_corrections(path: Path) -> list[dict[str, Any]]:
    """The corrections in ``path``, each checked for its fields (ValueError naming the line otherwise)."""
    corrections = []
    for where, fix in json_lines(path):
        if not isinstance(fix, dict) or not isinstance(fix.get("image"), str) or not fix.get("why"):
            raise ValueError(f"{where}: a correction needs 'image', 'box', 'value', 'fix' and 'why'")
        if (fix.get("box") is None) != (fix.get("value") is None):
            raise ValueError(f"{where}: 'box' and 'value' are both the manifest's, or both null (a die it lacks)")
        new = fix.get("fix")
        if new is not None and not (
            isinstance(new, dict) and is_box(new.get("box")) and new.get("value") in (1, 2, 3, 4, 5, 6)
        ):
            raise ValueError(f"{where}: 'fix' is null (drop the die) or {{'box': [x0, y0, x1, y1], 'value': 1..6}}")
        if fix.get("box") is None and new is None:
            raise ValueError(f"{where}: a correction with no die and no fix changes nothing")
        corrections.append(fix)
    return corrections


def apply_corrections(
    records: Iterable[dict[str, Any]], corrections: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], int]:
    """Copies of ``records`` with the corrections applied, and how many applied (the ones whose image is not
    among the records are skipped, so a split can be corrected). A correction whose die is not in its image
    as the manifest has it is an error: the file was made for another manifest."""
    out = [copy.deepcopy(r) for r in records]
    by_image = {r["image"]: r for r in out}
    applied = 0
    for fix in corrections:
        record = by_image.get(fix["image"])
        if record is None:
            continue
        dice = record["dice"]
        if fix.get("box") is not None:
            index = next(
                (i for i, d in enumerate(dice) if d["value"] == fix["value"] and same_box(d["box"], fix["box"])), None
            )
            if index is None:
                raise ValueError(
                    f"correction for {fix['image']}: no die {fix['value']} at {fix['box']} in the manifest"
                )
            if fix["fix"] is None:
                del dice[index]
            else:
                dice[index] = {**dice[index], "box": list(fix["fix"]["box"]), "value": fix["fix"]["value"]}
        else:
            dice.append({"box": list(fix["fix"]["box"]), "value": fix["fix"]["value"]})
        applied += 1
    return out, applied


def is_box(box: Any) -> bool:
    """``[x0, y0, x1, y1]``: four numbers, right of and below their start."""
    return (
        isinstance(box, list)
        and len(box) == 4
        and all(isinstance(v, int | float) for v in box)
        and box[2] > box[0]
        and box[3] > box[1]
    )


def same_box(a: Sequence[float], b: Sequence[float]) -> bool:
    """The same labelled box, to half a pixel (as written in a JSON file)."""
    return all(abs(float(x) - float(y)) <= 0.5 for x, y in zip(a, b, strict=True))
