"""``companion pyradice ...`` and ``companion bench pyradice`` on real files; bad input is one line, exit 2.

Since the one command line for every game, ``new``, ``status``, ``legal``, ``apply``, ``score``, ``simulate`` and
``perft`` here are ``companion game pyradice``'s (state in ``--state FILE``, a readable view).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device import cli
from engine.pyradice import PyradiceGame, bench
from engine.pyradice.fixtures import filler, table

G = PyradiceGame()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["pyradice", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_new_apply_legal_status_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """These are companion game pyradice's subcommands (engine/cli.py): the state file is --state, updated in
    place by apply (--out elsewhere), and status, legal and score print the readable view."""
    game = tmp_path / "game.json"
    assert run(capsys, "new", "--players", "ana", "ben", "--seed", "7", "--state", str(game))[0] == 0
    code, out, _ = run(capsys, "status", "--state", str(game))
    assert code == 0 and out.startswith("Pyradice: roll-off; to move: -\nchance is awaited: Roll-off")
    nxt = tmp_path / "next.json"
    assert run(capsys, "apply", "--state", str(game), "roll-off 5 2", "take q2,0,0", "--out", str(nxt))[0] == 0
    code, out, _ = run(capsys, "legal", "--state", str(nxt))
    assert out.splitlines()[:3] == ["ana to decide: 6 legal actions", "place:",
                                    "  place 1,0  Place the gray 2 on level 1, slot 1"]
    code, out, _ = run(capsys, "legal", "--json", "--state", str(nxt))
    assert [a["text"] for a in json.loads(out)["actions"]][:2] == ["place 1,0", "place 1,1"]
    code, out, _ = run(capsys, "status", "--state", str(nxt))
    assert "Pyradice: place; to move: ana" in out and "ana to decide (6 legal actions)" in out
    code, out, _ = run(capsys, "score", "--state", str(nxt))
    assert code == 0 and "ana: 0" in out and "  level 1 " in out
    code, out, _ = run(capsys, "perft", "--state", str(nxt), "--depth", "2")
    assert out.splitlines() == ["depth 1: 6", "depth 2: 30"]


def test_explain_reads_an_observation_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = table([filler(2), filler(2)])
    before = tmp_path / "before.json"
    before.write_text(G.state_to_json(s))
    pos = s.quarry.available()[0]
    die = s.quarry.dice[pos]
    pyramid = [[list(k), {"value": d.value, "colour": d.colour}] for k, d in {**s.mover.pyramid, (1, 2): die}.items()]
    seen = tmp_path / "seen.json"
    quarry = [[list(k), {"value": d.value, "colour": d.colour}] for k, d in s.quarry.dice.items() if k != pos]
    seen.write_text(json.dumps({"pyramid": pyramid, "quarry": quarry}))
    code, out, _ = run(capsys, "explain", "--state", str(before), "--seen", str(seen))
    assert code == 0 and out.splitlines() == [f"take q{pos[0]},{pos[1]},{pos[2]}", "place 1,2"]
    seen.write_text(json.dumps({"pyramid": pyramid[:1]}))
    code, _, err = run(capsys, "explain", "--state", str(before), "--seen", str(seen))
    assert code == 2 and "dice never leave a pyramid" in err and len(err.splitlines()) == 1
    seen.write_text(json.dumps({"pyramid": [], "colour": "red"}))
    code, _, err = run(capsys, "explain", "--state", str(before), "--seen", str(seen))
    assert code == 2 and "unknown observation field(s) ['colour']" in err


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "legal", "--state", str(bad))
    assert code == 2 and err.startswith(f"companion pyradice: error: {bad}: not valid JSON")
    assert len(err.splitlines()) == 1
    code, _, err = run(capsys, "legal", "--state", str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json" in err
    state = tmp_path / "s.json"
    state.write_text(G.state_to_json(table([{}, {}])))
    code, _, err = run(capsys, "apply", "--state", str(state), "take q0,0,0")
    assert code == 2 and "cannot take q0,0,0: only 2 visible faces" in err
    code, _, err = run(capsys, "new", "--option", "peak=steep", "--state", str(tmp_path / "new.json"))
    assert code == 2 and "peak='steep'" in err


def test_status_lists_defects_of_a_camera_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(G.state_to_json(table([filler(3), filler(3)])))
    data["players"][0]["pyramid"][0][0] = [2, 4]  # a die moved up onto nothing
    state = tmp_path / "camera.json"
    state.write_text(json.dumps(data))
    code, out, _ = run(capsys, "status", "--state", str(state))
    assert code == 1 and "defect: ana's die at 2,4 floats: nothing under it at 1,4 and 1,5" in out
    code, _, err = run(capsys, "legal", "--state", str(state))
    assert code == 2 and "inconsistent" in err


def test_simulate_and_bench(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--games", "3", "--seed", "4", "--players", "3")
    assert code == 0 and out.startswith("3 random games of Pyradice, ana, ben, cleo, seeds 4..6")
    cpu, wall = bench.games_per_second(2)
    assert cpu > 0 and wall > 0
    state = bench._mid_game(bench.Phase.SKILL, range(1))
    assert bench.legal_time_us(state, calls=10) > 0
