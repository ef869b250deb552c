"""Small helpers the games' command lines share: rule options and state files given on the command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from engine.errors import InvalidActionError
from engine.game import Game


def rule_options(pairs: list[str] | None) -> dict[str, str]:
    """``["pasa=even-pairs", ...]`` as a dict; an item without ``=`` is refused, quoted."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep:
            raise InvalidActionError(f"rule option {pair!r} is not NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def read_state(game: Game[Any, Any], path: str) -> Any:
    """A game state from a JSON file, or from standard input when ``path`` is ``-``."""
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    return game.state_from_json(text)
