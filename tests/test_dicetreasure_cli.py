"""The ``companion dicetreasure`` commands and the benchmark, through the real CLI entry point.

``apply`` (and ``status``, ``legal``, ``score``, ``perft``, ``help``) are ``companion game dicetreasure``'s since
the one command line for every game: ``apply`` updates the state file in place and prints the view, not 15 KB of
JSON.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from device import cli
from engine.dicetreasure import bench
from engine.dicetreasure.cards import SAMPLE_DECK_PATH

DATA = Path(__file__).parent / "data" / "dicetreasure"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["dicetreasure", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_validate_deck_good_and_broken(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "validate-deck", str(SAMPLE_DECK_PATH))
    assert status == 0 and "ok (63 motif cards, 21 leprechaun cards; a STAND-IN" in out
    status, out, _ = run(capsys, "validate-deck", str(SAMPLE_DECK_PATH), str(DATA / "many-problems.json"))
    assert status == 2
    assert "many-problems.json: 22 problem(s)" in out
    assert "  motif card 'red-never' (#9): can never be completed" in out
    assert "  bonus card 'b-2' (#2): field 'reward' is 0" in out
    status, out, _ = run(capsys, "validate-deck", str(DATA / "not-json.json"))
    assert status == 2 and "not valid JSON" in out


def test_new_apply_and_spaces(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, _ = run(capsys, "new", "--players", "Ann", "Bob", "--option", "leprechauns=off")
    assert status == 0
    path = tmp_path / "state.json"
    path.write_text(out)
    status, out, _ = run(
        capsys,
        "apply",
        "--state",
        str(path),
        "deal Ann: red-1 red-2 red-3 red-4",
        "deal Bob: blue-1 blue-2 blue-3 blue-4",
        "roll red:1 red:2 yellow:3 green:4 blue:5 purple:6",
    )
    assert status == 0 and out.startswith("Dice Treasure: turn; to move: Ann") and len(out) < 5000  # the view
    status, out, _ = run(capsys, "legal", "--state", str(path))
    assert status == 0 and "Ann to decide: " in out and "place red:1 red-1#" in out
    status, out, _ = run(capsys, "score", "--json", "--state", str(path))
    assert status == 0 and set(json.loads(out)["scores"]) == {"Ann", "Bob"}
    status, out, _ = run(capsys, "spaces", "--state", str(path), "--die", "red:1", "--die", "purple:6")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("red:1: ") and "red-1#" in lines[0] and lines[1].startswith("purple:6: ")
    status, out, _ = run(capsys, "spaces", "--state", str(path))
    assert status == 0 and len(out.splitlines()) == 6
    status, _, err = run(capsys, "apply", "--state", str(path), "place red:1 blue-1#1")
    assert status == 2 and "no card 'blue-1' in front of the player" in err and "Traceback" not in err


def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "new", "--players", "Ann", "--deck", str(DATA / "many-problems.json"))
    assert status == 2 and "22 problem(s)" in err and len(err.splitlines()) == 1
    status, out, _ = run(capsys, "new", "--players", "Ann", "Bob")
    state = json.loads(out)
    state["bag"][0] = 8  # one red die fewer than the game has
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(state))
    status, _, err = run(capsys, "spaces", "--state", str(bad))
    assert status == 2 and "8 red dice in the game, there are 9" in err
    status, _, err = run(capsys, "spaces", "--state", str(tmp_path / "missing.json"))
    assert status == 2 and "missing.json" in err
    bad.write_text(out)
    status, _, err = run(capsys, "spaces", "--state", str(bad))
    assert status == 2 and "no die can be placed now" in err
    status, _, err = run(capsys, "new", "--players", "Ann", "--option", "chip_tie")
    assert status == 2 and "NAME=VALUE" in err


def test_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "simulate", "--players", "3", "--games", "2", "--seed", "5", "--check")
    assert status == 0 and "2 game(s), 3 player(s), seeds 5..6" in out and "games/s" in out


def test_bench_runs_and_prints_both_figures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "GAMES_PER_RUN", 1)
    monkeypatch.setattr(bench, "SPACES_CALLS", 10)
    assert bench.run(argparse.Namespace(repeat=1)) == 0
    out = capsys.readouterr().out
    assert "games/s" in out and "legal spaces for 6 dice on 4 cards" in out
