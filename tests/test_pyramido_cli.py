"""``companion pyramido ...`` and ``companion bench pyramido`` from the command line.

``new``, ``apply`` and ``simulate`` are ``companion game pyramido``'s since the one command line for every game:
the state goes to ``--state FILE`` (``-``: printed), ``apply --out -`` prints the new state.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from device import cli
from engine import find_game
from engine.pyramido import bench
from tests.test_pyramido_rules import EXAMPLE_23


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["pyramido", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def pyramid_file(tmp_path: Path) -> Path:
    path = tmp_path / "pyramid.txt"
    path.write_text("# the rulebook's stage-1 example\n" + "\n".join(EXAMPLE_23) + "\n")
    return path


def test_new_apply_and_placements_from_a_state(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "new", "--players", "Ann", "Bob", "--seed", "3", "--state", "-")
    assert code == 0
    state_file = tmp_path / "state.json"
    state_file.write_text(out)
    game = find_game("pyramido")
    state = game.state_from_json(out)
    take = str(game.legal_actions(state)[0])
    code, out, _ = run(capsys, "apply", "--state", str(state_file), take, "flip 2", "--out", "-")
    assert code == 0
    state = game.state_from_json(out)
    assert state.holding is not None and game.status(state).awaiting == "chance"
    code, out, _ = run(capsys, "placements", "--state", str(state_file), "--domino", "r0-b1", "--json")
    assert code == 0 and json.loads(out) == ["s1 0,0 E", "s1 0,0 S", "s1 0,0 W", "s1 0,0 N"]


def test_backs_seen_at_the_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = find_game("pyramido")
    code, out, _ = run(capsys, "new", "--players", "Ann", "Bob", "--state", "-")  # the table's game: deck unknown
    state = game.state_from_json(out)
    for _ in range(15):
        state = game.apply(state, game.parse_action("draw m"))
    for _ in range(3):
        state = game.apply(state, game.parse_action("reveal o0-b1"))
    state_file = tmp_path / "state.json"
    state_file.write_text(game.state_to_json(state))
    code, out, _ = run(capsys, "back", "--state", str(state_file), "2", "r2-b0")
    assert code == 0 and str(game.state_from_json(out).spaces[1].back) == "b0-r2"
    state_file.write_text(out)
    take = str(game.legal_actions(game.state_from_json(out))[0])
    code, _out, err = run(capsys, "apply", "--state", str(state_file), take, "flip 2", "reveal r0-b1")
    assert code == 2 and "a misread? pile 2's top showed the back b0-r2" in err and len(err.splitlines()) == 1
    code, out, _ = run(capsys, "apply", "--state", str(state_file), take, "flip 2", "reveal b-r03", "--out", "-")
    assert code == 0 and str(game.state_from_json(out).spaces[1].face_up) == "b-r03"
    code, _out, err = run(capsys, "back", "--state", str(state_file), "1", "r2-b0")
    assert code == 2 and "that pile shows the face-up o0-b1, not a back" in err


def test_areas_and_activate_on_a_pyramid_file(capsys: pytest.CaptureFixture[str], pyramid_file: Path) -> None:
    code, out, _ = run(capsys, "areas", "--pyramid", str(pyramid_file))
    assert code == 0 and "orange area at 2,6: 16 quarter cells, 5 icons" in out
    code, out, _ = run(capsys, "activate", "--pyramid", str(pyramid_file), "--inventory", "o3 b1 p1 g1 r1 m1")
    assert code == 0 and out.strip().endswith("22 from areas + 1 mythical left = 23 points")
    code, out, _ = run(capsys, "activate", "--pyramid", str(pyramid_file), "--inventory", "o3 m2", "--json")
    assert json.loads(out)["points"] == 10 + 4  # orange doubled; the 2 mythical gems on the 4-icon red area
    code, out, _ = run(capsys, "placements", "--pyramid", str(pyramid_file))
    assert code == 0 and out.startswith("0 legal placements")


def test_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--games", "3", "--players", "1", "--option", "legend=the-legend")
    assert code == 0 and "3 random games of Pyramido: Forgotten Treasures, ana" in out and "Legend: mean score" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["areas"], "give --state FILE"),
        (["areas", "--pyramid", "/nonexistent/p.txt"], "No such file"),
        (["placements", "--pyramid", "{p}", "--domino", "r9-b"], "'r9'"),
        (["activate", "--pyramid", "{p}", "--inventory", "x3"], "'x3'"),
        (["activate", "--pyramid", "{p}", "--inventory", "r1", "--keep", "b1"], "cannot keep b1"),
        (["simulate", "--games", "0"], "--games must be at least 1"),
        (["new", "--players", "A", "--option", "legend", "--state", "-"], "'legend' is not NAME=VALUE"),
        (["new", "--players", "A", "--option", "legend=thelegend", "--state", "-"], "legend='thelegend' is not one of"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], pyramid_file: Path, argv: list[str], needle: str
) -> None:
    code, _out, err = run(capsys, *(a.replace("{p}", str(pyramid_file)) for a in argv))
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_bad_pyramid_file_names_the_placement(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("r-r @ s1 0,0 E\n# a comment\nr-r @ s1 5,5 E\n")
    code, _, err = run(capsys, "areas", "--pyramid", str(path))
    assert code == 2 and f"{path}, line 3: placement s1 5,5 E: not connected" in err
    assert len(err.strip().splitlines()) == 1
    path.write_text("stage five\n")
    code, _, err = run(capsys, "areas", "--pyramid", str(path))
    assert code == 2 and "line 1: 'stage five' is not 'stage N'" in err
    path.write_text("r-r @ s1 0,0 E\n\nr0 s1\n")
    code, _, err = run(capsys, "placements", "--pyramid", str(path))
    assert code == 2 and "line 3: " in err and "'r0 s1'" in err


def test_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.run(argparse.Namespace(repeat=1)) == 0
    out = capsys.readouterr().out
    assert "legal placements, stage 1 mid-game" in out and "games/s" in out
    full = bench.full_pyramid()
    assert [full.stage_count(k) for k in range(1, 5)] == [10, 6, 3, 1]
