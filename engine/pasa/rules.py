"""Kept for compatibility: Paša's scoring (the categories' points and the valid sheet entries) moved to
:mod:`engine.pasa.scoring`. Every name of that module is still importable from here."""

from __future__ import annotations

from typing import Any

from engine.pasa import scoring as _module


def __getattr__(name: str) -> Any:
    return getattr(_module, name)
