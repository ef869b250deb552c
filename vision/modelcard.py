"""Model cards: the JSON beside every ONNX file under ``models/``, and the loader that checks it.

A card ``models/NAME.card.json`` says what the model is and how to feed it::

    {"name": "dice-face", "file": "dice-face.onnx", "sha256": "...",
     "input": {"name": "input", "shape": [1, 1, 32, 32], "dtype": "float32",
               "layout": "NCHW", "normalisation": "x / 255"},
     "labels": ["1", "2", "3", "4", "5", "6"],
     "crop_rule": "how a crop is cut (vision.crop.crop_die), in words",
     "training": {"data": "...", "command": "make train", "seed": 0},
     "metrics": {...}}

:func:`load_model` refuses a model whose file is missing, whose sha256 differs from the card, or
whose input does not match the card, so a stale or swapped file is caught at start-up, not at the table.
A human-readable card ``models/NAME.md`` sits beside it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models import MODELS_DIR


class ModelCardError(ValueError):
    """A model file or its card is missing, damaged, or does not match."""


@dataclass(frozen=True)
class ModelCard:
    name: str
    file: str
    sha256: str
    input: dict[str, Any]
    labels: tuple[str, ...] = ()
    crop_rule: str = ""
    training: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.input["shape"])


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_card(name: str, models_dir: Path = MODELS_DIR) -> ModelCard:
    path = models_dir / f"{name}.card.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelCardError(f"model card {path} is missing") from None
    except json.JSONDecodeError as exc:
        raise ModelCardError(f"model card {path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    required = ("name", "file", "sha256", "input")
    missing = [k for k in required if k not in data]
    if missing:
        raise ModelCardError(f"model card {path} lacks {', '.join(missing)}")
    known = {f for f in ModelCard.__dataclass_fields__}
    extra = {k: v for k, v in data.items() if k not in known}
    card = ModelCard(**{k: v for k, v in data.items() if k in known})
    if "shape" not in card.input:
        raise ModelCardError(f"model card {path}: input has no shape")
    del extra  # free-form fields (notes, licences) are allowed and ignored here
    return ModelCard(**{**card.__dict__, "labels": tuple(card.labels)})


def check_model(name: str, models_dir: Path = MODELS_DIR) -> tuple[ModelCard, Path]:
    """Read the card and check the file's sha256 against it; return the card and the model path."""
    card = read_card(name, models_dir)
    path = models_dir / card.file
    if not path.is_file():
        raise ModelCardError(f"model file {path} named by the card of {name!r} is missing")
    actual = sha256_of(path)
    if actual != card.sha256:
        raise ModelCardError(
            f"model file {path} has sha256 {actual[:12]}..., but its card says {card.sha256[:12]}...: "
            "the file was changed without updating the card (retrain with `make train`)"
        )
    return card, path


def load_model(name: str, models_dir: Path = MODELS_DIR, threads: int = 1) -> tuple[Any, ModelCard]:
    """An ONNX Runtime session for a checked model, and its card. The input must match the card."""
    import onnxruntime as ort

    card, path = check_model(name, models_dir)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    if len(inputs) != 1:
        raise ModelCardError(f"model {path} has {len(inputs)} inputs; the card describes one")
    shape = [d if isinstance(d, int) else -1 for d in inputs[0].shape]
    expected = list(card.input_shape)
    if len(shape) != len(expected) or any(s not in (-1, e) and e != -1 for s, e in zip(shape, expected, strict=True)):
        raise ModelCardError(f"model {path} takes input of shape {shape}, but its card says {expected}")
    return session, card
