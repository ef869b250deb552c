"""ONNX models and their model cards, installed as package data. The device never needs torch."""

from __future__ import annotations

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent


def model_path(name: str) -> Path:
    """Path of a file shipped in this package (a model or its card)."""
    return MODELS_DIR / name
