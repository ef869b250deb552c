"""``companion pyradice ...``: Pyradice's own command, ``explain``, and the subcommands every game has.

    companion pyradice explain --state game.json --seen seen.json [--partial]   # which turn explains what was seen

``new``, ``status``, ``legal``, ``apply``, ``score``, ``simulate``, ``perft`` and ``help`` are those of
``companion game pyradice`` (:mod:`engine.cli`), registered here too so that the game's own command has them.
Bad input (a missing file, bad JSON, an illegal action) raises ValueError/OSError, which the ``companion`` entry
point prints as one line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engine.cli import add_game_commands
from engine.cli_support import read_state
from engine.dice import Die
from engine.errors import InvalidStateError
from engine.game import instance
from engine.pyradice.game import PyradiceGame
from engine.pyradice.observe import Observation, explain_turn
from engine.pyradice.state import PyradiceState
from engine.serial import from_jsonable

_GAME = instance(PyradiceGame)


def _read_state(path: str) -> PyradiceState:
    state: PyradiceState = read_state(_GAME, path)
    return state


def _explain(args: argparse.Namespace) -> int:
    state = _GAME.check_state(_read_state(args.state))
    data = json.loads(Path(args.seen).read_text(encoding="utf-8"))
    seen = _observation(data)
    for action in explain_turn(state, seen, partial=args.partial):
        print(action)
    return 0


def _observation(data: Any) -> Observation:
    """Observation JSON: {"pyramid": [[[level, index], {"value": v, "colour": c}], ...],
    "quarry": [[[layer, row, col], die], ...] (optional), "reserve": die or null (optional)}."""
    if not isinstance(data, dict) or "pyramid" not in data:
        raise InvalidStateError("an observation is a JSON object with a 'pyramid' (and optional 'quarry', 'reserve')")
    unknown = set(data) - {"pyramid", "quarry", "reserve"}
    if unknown:
        raise InvalidStateError(f"unknown observation field(s) {sorted(unknown)}")
    pyramid = from_jsonable(dict[tuple[int, int], Die], data["pyramid"], "$.pyramid")
    quarry = from_jsonable(dict[tuple[int, int, int], Die], data["quarry"], "$.quarry") if "quarry" in data else None
    reserve = from_jsonable(Die | None, data.get("reserve"), "$.reserve")
    return Observation(pyramid, quarry, reserve, "reserve" in data)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "pyradice", help="Pyradice: which turn explains an observation; and what every game has (new, legal, ...)",
        description="Pyradice's own command (explain) and those of 'companion game pyradice' (state files in JSON; "
        "'-' reads stdin).",
    )
    sub = parser.add_subparsers(dest="pyradice_command", metavar="ACTION", required=True)
    add_game_commands(sub, _GAME)

    p = sub.add_parser("explain", help="which legal turn explains an observed pyramid (and quarry)")
    p.add_argument("--state", required=True, help="the state before the turn")
    p.add_argument("--seen", required=True, help="observation JSON: pyramid, optional quarry and reserve")
    p.add_argument("--partial", action="store_true", help="the turn may still be under way")
    p.set_defaults(func=_explain)
