"""Kept for compatibility: Paša's optimal advisor moved to :mod:`engine.pasa.advice` (the file name of advice
in every game package). Every name of that module is still importable from here."""

from __future__ import annotations

from typing import Any

from engine.pasa import advice as _module


def __getattr__(name: str) -> Any:
    return getattr(_module, name)
