"""Move counts from fixed positions (chess-style perft), pinned in engine/pyradice/data/perft.json.

A change to the rules code that alters what is legal changes a count here. If the change is a deliberate
rules fix, regenerate the file with ``python -m engine.pyradice.perft --write`` and say why in the commit.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.pyradice import Phase, PyradiceGame
from engine.pyradice.perft import load_positions, perft, position_state

G = PyradiceGame()
POSITIONS = load_positions()


@pytest.mark.parametrize("entry", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_perft_counts_match_the_committed_data(entry: dict[str, Any]) -> None:
    state = position_state(entry)
    assert G.status(state).defects == ()
    for depth, count in entry["counts"].items():
        assert perft(state, int(depth)) == count, f"{entry['name']} depth {depth}"


def test_hand_checked_counts_from_the_start() -> None:
    """4 corners; 6 level-1 slots; after a corner is taken 5 dice are available (RULES.md 1.2); 6 slots."""
    start = position_state(next(p for p in POSITIONS if p["name"] == "2p start"))
    assert start.phase is Phase.TAKE
    assert [perft(start, d) for d in (1, 2, 3, 4)] == [4, 4 * 6, 4 * 6 * 5, 4 * 6 * 5 * 6]
    roll_off = position_state(next(p for p in POSITIONS if p["name"] == "2p roll-off"))
    # 36 outcomes: 30 decide the first player (then 4 takes), 6 ties roll again (36 outcomes)
    assert perft(roll_off, 2) == 30 * 4 + 6 * 36


def test_the_data_covers_every_phase_and_player_count() -> None:
    states = [position_state(p) for p in POSITIONS]
    assert {s.phase for s in states} >= {Phase.ROLL_OFF, Phase.TAKE, Phase.SKILL}
    assert {len(s.players) for s in states} == {2, 3, 4}
    assert any(s.mover.reserve is not None for s in states if s.phase is not Phase.ROLL_OFF)
