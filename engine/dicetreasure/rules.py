"""Kept for compatibility: the Dice Treasure game moved to :mod:`engine.dicetreasure.game` (the same file name
as in every game package). Every name of that module is still importable from here."""

from __future__ import annotations

from typing import Any

from engine.dicetreasure import game as _game


def __getattr__(name: str) -> Any:
    return getattr(_game, name)
