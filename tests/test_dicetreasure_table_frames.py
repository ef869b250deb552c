"""Dice Treasure replayed from rendered frames alone: the start of a seeded solo game rendered by the lab
(device.record_dicetreasure, the stand-in deck in the project's own print design; no real photo of a Dice
Treasure card exists to us) and read by the device's reader (``--reader model``). The device may ask (the
replay's players answer from the true record, counted); it must never take an action the players did not take.
Kept short for the suite; whole games are measured in docs/dicetreasure-table.md."""

from __future__ import annotations

import json
from pathlib import Path

from device.commands import replay
from device.record_dicetreasure import make


def test_the_start_of_a_rendered_solo_game_replays_from_its_frames(tmp_path: Path) -> None:
    # Seed 61: never used while writing the reader, the adapter or the engine's explain_table.
    data = make(tmp_path / "rec", 61, 1, actions=10)
    assert data["table"]["lessons"]["die"].keys() == {"red", "yellow", "green", "blue", "purple"}
    result = replay(tmp_path / "rec", reader_name="model")
    expected = data["expected"]["actions"]
    taken = result["actions"]
    # Every action taken is the true one, in order (asked or read), and most come from the camera.
    assert taken == expected[: len(taken)]
    assert len(taken) >= len(expected) - 2  # the last actions may wait for frames after the recording ends
    camera = result["origins"].count("camera")
    assert camera >= 0.5 * len(taken), result["origins"]
    assert result["players_answered"] + result["players_decided"] == result["origins"].count("players")
    json.dumps(result)  # what companion replay --json prints
