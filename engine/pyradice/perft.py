"""Move counts from fixed positions, in the style of chess perft, to pin the rules down.

The counting is :mod:`engine.perft`'s, the same for every game. ``perft(state, depth)`` counts the action
sequences of length ``depth`` from ``state``: decisions are the legal actions, chance steps count every outcome
(each value of an A2 re-roll, every roll-off result), a finished game ends a sequence early and counts nothing.
``data/perft.json`` holds positions with their counts; the tests recompute them, so a change to the rules code
that alters legality shows up there.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from engine import perft as _perft
from engine.game import instance
from engine.pyradice.game import PyradiceGame
from engine.pyradice.state import Action, Phase, PyradiceState

_GAME = instance(PyradiceGame)


def steps(state: PyradiceState) -> list[Action]:
    """Every next step: the legal decisions, or every outcome of the chance awaited
    (:meth:`PyradiceGame.chance_outcomes`)."""
    return _perft.steps(_GAME, state) or []


def perft(state: PyradiceState, depth: int) -> int:
    """:func:`engine.perft.perft` for Pyradice."""
    return _perft.perft(_GAME, state, depth)


def load_positions() -> list[dict[str, Any]]:
    """The committed positions: name, why, state (JSON object) and counts by depth."""
    text = resources.files("engine.pyradice").joinpath("data/perft.json").read_text(encoding="utf-8")
    positions: list[dict[str, Any]] = json.loads(text)["positions"]
    return positions


def position_state(entry: dict[str, Any]) -> PyradiceState:
    return _GAME.state_from_json(json.dumps(entry["state"]))


# --- regenerating data/perft.json (python -m engine.pyradice.perft --write) ----------------------------
#: (name, why, players, game seed, index of the state in that seeded random game, deepest depth).
#: Index -1: the first state after the roll-off (the first player's first take).
STANDARD: tuple[tuple[str, str, int, int, int, int], ...] = (
    ("2p roll-off", "first-player roll, ties re-rolled among the tied", 2, 7, 0, 2),
    ("2p start", "only the 4 top corners are available; level 1 only; no skill", 2, 7, -1, 5),
    ("3p start", "the 3-4 player quarry", 3, 11, -1, 5),
    ("3p mid-game", "three seats, mid-game, two boxes of dice", 3, 11, 150, 3),
    ("4p start", "the 3-4 player quarry, four seats", 4, 13, -1, 5),
    ("2p reserve", "B3 reserve held: take or use the reserve; skills B2 B3 B4 A5 B6", 2, 1, 49, 3),
    ("2p mid-game A4", "skills B2 B3 A4 B5 A6 in mid-game", 2, 3, 40, 3),
    ("2p apex B6", "the apex skill B6 borrows B2 B3 B4 A5", 2, 1, 107, 2),
    ("2p apex A6", "last die of the first player, A6 at the apex", 2, 0, 120, 3),
    ("2p last turn", "the last turn of the game: take, apex, B6; then the game is over", 2, 1, 108, 4),
)


def build_positions() -> list[dict[str, Any]]:
    from engine.simulate import play

    out = []
    for name, why, players, seed, index, depth in STANDARD:
        names = ["ana", "ben", "cleo", "dan"][:players]
        states = play(_GAME, names, seed).states
        state = next(s for s in states if s.phase is Phase.TAKE) if index == -1 else states[index]
        counts = {str(d): perft(state, d) for d in range(1, depth + 1)}
        out.append({"name": name, "why": why, "state": json.loads(_GAME.state_to_json(state)), "counts": counts})
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(description="Regenerate engine/pyradice/data/perft.json (after a rules fix).")
    parser.add_argument("--write", action="store_true", help="write the file (otherwise print the counts)")
    args = parser.parse_args(argv)
    positions = build_positions()
    for p in positions:
        print(p["name"], p["counts"])
    if args.write:
        path = Path(__file__).with_name("data") / "perft.json"
        path.write_text(json.dumps({"positions": positions}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
