"""The fixed train/validation split of the real photographs, shared by every trainer and evaluator.

Byler photos are for measuring: a photo is in the validation split when the SHA-1 of its file name
falls in the first fifth of the hash range (about 30 of 150 photos), a rule that does not depend on
the order or number of photos, so a trainer and an evaluator can never disagree. Rune55 photos are all
for training, as their README asks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

Split = Literal["train", "val"]
VAL_FRACTION = 0.2


def split_of(image: str) -> Split:
    """'val' or 'train' for a Byler image path such as ``images/IMG_20191208_111228.jpg``."""
    name = Path(image).name
    h = int.from_bytes(hashlib.sha1(name.encode("utf-8")).digest()[:8], "big")
    return "val" if h < VAL_FRACTION * 2**64 else "train"


def read_manifest(path: Path) -> Iterator[dict[str, Any]]:
    """The manifest's records, with ``path`` resolved to the image file."""
    base = path.parent
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            record["path"] = str(base / record["image"])
            yield record


def byler_records(shared: Path, split: Split) -> list[dict[str, Any]]:
    manifest = shared / "data" / "dice-photos" / "byler" / "manifest.jsonl"
    return [r for r in read_manifest(manifest) if split_of(r["image"]) == split]
