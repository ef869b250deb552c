"""``companion game GAME ...`` and ``companion play GAME``: the same command line for all four games.

Every subcommand for every game, on small seeds: the readable view says whose turn it is, what is awaited, the
board and the scores; ``--json`` parses; bad input is one line on stderr and exit 2; output piped into a
reader that stops early ends quietly; ``play`` undoes and resumes from its saved file.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from device import cli
from engine import find_game
from engine.cli import help_text

GAMES = ("pasa", "pyradice", "pyramido", "dicetreasure")
ROOT = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str) -> None:
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def new_game(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, *extra: str) -> Path:
    path = tmp_path / f"{name}.json"
    code, _, err = run(capsys, "game", name, "new", "--seed", "1", "--state", str(path), *extra)
    assert code == 0, err
    return path


def to_decision(capsys: pytest.CaptureFixture[str], name: str, path: Path) -> None:
    """Enter the example of each chance prompt until a decision is awaited (at most 20 steps)."""
    for _ in range(20):
        _, out, _ = run(capsys, "game", name, "status", "--json", "--state", str(path))
        data = json.loads(out)
        if data["awaiting"] != "chance":
            return
        assert run(capsys, "game", name, "apply", data["chance"]["example"], "--state", str(path))[0] == 0
    raise AssertionError(f"{name}: still chance after 20 steps")


@pytest.mark.parametrize("name", GAMES)
def test_new_status_legal_apply_score(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    game = find_game(name)
    path = new_game(capsys, tmp_path, name)
    assert game.state_from_json(path.read_text()) is not None  # the state file is the game's own JSON
    code, out, _ = run(capsys, "game", name, "status", "--state", str(path))
    assert code == 0
    assert out.startswith(f"{game.title}: ") and "to move:" in out and "score: ana 0, ben 0" in out
    assert "awaited" in out or "to decide" in out
    assert game.board_text(game.state_from_json(path.read_text())) in out  # the board in text

    # chance: legal says what is awaited, with an example that apply accepts
    state = game.state_from_json(path.read_text())
    if game.status(state).awaiting == "chance":
        code, out, _ = run(capsys, "game", name, "legal", "--state", str(path))
        prompt = game.chance_prompt(state)
        assert code == 0 and prompt is not None and "chance is awaited" in out and prompt.example in out
        code, out, _ = run(capsys, "game", name, "legal", "--json", "--state", str(path))
        data = json.loads(out)
        assert data["awaiting"] == "chance" and data["actions"] == [] and data["chance"]["example"] == prompt.example
    to_decision(capsys, name, path)

    code, out, _ = run(capsys, "game", name, "legal", "--state", str(path))
    state = game.state_from_json(path.read_text())
    legal = game.legal(state)
    assert code == 0 and f"{len(legal)} legal actions" in out
    assert f"{legal[0].group}:" in out and legal[0].text in out and legal[0].label in out
    code, out, _ = run(capsys, "game", name, "legal", "--json", "--state", str(path))
    data = json.loads(out)
    assert data["awaiting"] == "decision" and data["chance"] is None
    assert data["actions"][0] == {"text": legal[0].text, "label": legal[0].label, "group": legal[0].group}

    out_file = tmp_path / "next.json"
    code, out, _ = run(capsys, "game", name, "apply", legal[0].text, "--state", str(path), "--out", str(out_file))
    assert code == 0 and out.startswith(game.title)
    assert game.state_from_json(out_file.read_text()) == game.apply(state, game.parse_action(legal[0].text, state))
    code, out, _ = run(capsys, "game", name, "apply", legal[0].text, "--state", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and data["game"] == name and set(data["scores"]) == {"ana", "ben"}
    assert len(out) < 5000  # the view, not the state
    assert game.state_from_json(path.read_text()) == game.state_from_json(out_file.read_text())  # saved in place
    code, out, _ = run(capsys, "game", name, "apply", legal[0].text, "--state", str(out_file), "--out", "-")
    assert code in (0, 2)  # the same action again may be illegal; when legal, the state JSON is printed
    if code == 0:
        game.state_from_json(out)
    capsys.readouterr()

    code, out, _ = run(capsys, "game", name, "score", "--state", str(path))
    assert code == 0 and out.startswith("ana: ") and "\nben: " in out
    code, out, _ = run(capsys, "game", name, "score", "--json", "--state", str(path))
    data = json.loads(out)
    assert set(data["scores"]) == {"ana", "ben"} and data["finished"] is False
    code, out, _ = run(capsys, "game", name, "status", "--json", "--state", str(path))
    data = json.loads(out)
    assert {"to_move", "phase", "awaiting", "finished", "winners", "defects", "chance", "legal", "scores"} <= set(data)


@pytest.mark.parametrize("name", GAMES)
def test_new_players_and_defaults(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    game = find_game(name)
    path = tmp_path / "s.json"
    code, out, _ = run(capsys, "game", name, "new", "--players", "3", "--state", str(path), "--json")
    assert code == 0 and set(json.loads(out)["scores"]) == {"ana", "ben", "cleo"}
    code, out, _ = run(capsys, "game", name, "new", "--players", "Zoe", "Yan", "--state", str(path))
    assert code == 0 and "score: Zoe 0, Yan 0" in out
    code, out, _ = run(capsys, "game", name, "new", "--state", "-", "--seed", "2")
    assert code == 0 and game.state_from_json(out) is not None
    code, _, err = run(capsys, "game", name, "new", "--players", "9", "--state", str(path))
    one_line_error(code, err)
    assert f"takes {game.min_players} to {game.max_players} players" in err


@pytest.mark.parametrize("name", GAMES)
def test_help_lists_grammar_and_options(capsys: pytest.CaptureFixture[str], name: str) -> None:
    game = find_game(name)
    code, out, _ = run(capsys, "game", name, "help")
    assert code == 0 and out.strip() == help_text(game)
    assert game.title in out and "actions" in out and len(game.action_grammar) >= 5
    for form in game.action_grammar:
        assert form in out
    for option in game.options:
        assert f"{option.name}: one of {', '.join(option.choices)}; default {option.default}" in out
    assert tuple(game.action_groups) == tuple(__import__(f"engine.{name}.words", fromlist=["GROUPS"]).GROUPS)


@pytest.mark.parametrize("name", GAMES)
def test_simulate(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, _ = run(capsys, "game", name, "simulate", "--games", "1", "--seed", "3")
    assert code == 0 and "1 random game of" in out and "ana: mean score" in out and "games/s" in out
    code, _, err = run(capsys, "game", name, "simulate", "--games", "0")
    one_line_error(code, err)
    assert "--games must be at least 1, got 0" in err


def test_simulate_json_and_players(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "game", "pyradice", "simulate", "--games", "2", "--seed", "4", "--players", "3",
                       "--json")
    data = json.loads(out)
    assert code == 0 and data["games"] == 2 and data["players"] == ["ana", "ben", "cleo"]
    assert sum(row["wins"] for row in data["scores"].values()) == pytest.approx(2)
    code, out, _ = run(capsys, "game", "pyramido", "simulate", "--games", "1", "--players", "1",
                       "--option", "legend=the-legend", "--json")
    assert code == 0 and "Legend" in json.loads(out)["scores"]


@pytest.mark.parametrize(("name", "counts"), [("pasa", [462, 4158]), ("pyradice", [36, 336])])
def test_perft_counts_through_chance(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str,
                                     counts: list[int]) -> None:
    path = new_game(capsys, tmp_path, name)
    code, out, _ = run(capsys, "game", name, "perft", "--depth", "2", "--state", str(path))
    assert code == 0 and out.splitlines() == [f"depth {d}: {n}" for d, n in enumerate(counts, start=1)]
    code, out, _ = run(capsys, "game", name, "perft", "--depth", "1", "--json", "--state", str(path))
    assert json.loads(out) == {"counts": {"1": counts[0]}, "chance_listed": True}


@pytest.mark.parametrize("name", ["pyramido", "dicetreasure"])
def test_perft_from_a_decision(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    path = new_game(capsys, tmp_path, name)
    to_decision(capsys, name, path)
    game = find_game(name)
    state = game.state_from_json(path.read_text())
    code, out, _ = run(capsys, "game", name, "perft", "--depth", "1", "--state", str(path))
    assert code == 0 and out.splitlines()[0] == f"depth 1: {len(game.legal_actions(state))}"
    code, _, err = run(capsys, "game", name, "perft", "--depth", "0", "--state", str(path))
    one_line_error(code, err)


def test_finished_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from engine.simulate import play

    game = find_game("pyradice")
    final = play(game, ["ana", "ben"], 5, keep_states=False).final
    path = tmp_path / "over.json"
    path.write_text(game.state_to_json(final))
    code, out, _ = run(capsys, "game", "pyradice", "legal", "--state", str(path))
    assert code == 0 and "the game is over; winner" in out
    code, out, _ = run(capsys, "game", "pyradice", "score", "--state", str(path))
    assert "winner" in out and "level 1" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["game", "pasa", "status", "--state", "{missing}"], "no state file"),
        (["game", "pasa", "legal", "--state", "{bad}"], "not valid JSON"),
        (["game", "pyradice", "score", "--state", "{few}"], "needs 5 objective tokens"),
        (["game", "pyradice", "apply", "take q0,0,0", "--state", "{pyradice}"], "q0,0,0"),
        (["game", "pyradice", "apply", "hop", "--state", "{pyradice}"], "'hop'"),
        (["game", "pyradice", "new", "--option", "peak=steep", "--state", "{tmp}/x.json"], "peak='steep'"),
        (["game", "pyradice", "new", "--option", "peak", "--state", "{tmp}/x.json"], "NAME=VALUE"),
        (["game", "pyradice", "new", "--option", "colour=red", "--state", "{tmp}/x.json"], "unknown rule option"),
        (["game", "dicetreasure", "new", "--players", "ana", "ana", "--state", "{tmp}/x.json"], "distinct"),
        (["game", "pyramido", "simulate", "--games", "-1"], "at least 1"),
        (["game", "pasa", "perft", "--depth", "0", "--state", "{pyradice}"], "--depth must be at least 1"),
        (["play", "pasa", "--state", "{pyradice}"], "--resume continues it"),
        (["play", "pasa", "--resume", "--state", "{missing}"], "no state file"),
        (["play", "pasa", "--resume", "--seed", "3", "--state", "{pyradice}"], "do not apply"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str],
                                          needle: str) -> None:
    pyradice = new_game(capsys, tmp_path, "pyradice")
    run(capsys, "game", "pyradice", "apply", "roll-off 5 2", "--state", str(pyradice))
    few = tmp_path / "few.json"
    data = json.loads(pyradice.read_text())
    data["board"]["objectives"] = data["board"]["objectives"][:3]
    few.write_text(json.dumps(data))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    subs = {"{missing}": str(tmp_path / "missing.json"), "{bad}": str(bad), "{few}": str(few),
            "{pyradice}": str(pyradice), "{tmp}": str(tmp_path)}
    for key, value in subs.items():
        argv = [a.replace(key, value) for a in argv]
    code, _, err = run(capsys, *argv)
    one_line_error(code, err)
    assert needle in err


def test_status_of_a_state_with_defects_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = new_game(capsys, tmp_path, "pyradice")
    data = json.loads(path.read_text())
    data["board"]["objectives"] = data["board"]["objectives"][:3]
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "game", "pyradice", "status", "--state", str(path))
    assert code == 1 and "defect: the board needs 5 objective tokens" in out
    code, out, _ = run(capsys, "game", "pyradice", "status", "--json", "--state", str(path))
    assert code == 1 and json.loads(out)["defects"]


def test_state_from_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                   tmp_path: Path) -> None:
    path = new_game(capsys, tmp_path, "pasa")
    monkeypatch.setattr(sys, "stdin", io.StringIO(path.read_text()))
    code, out, _ = run(capsys, "game", "pasa", "apply", "roll 6 6 6 6 6 6", "--state", "-", "--out", "-")
    state = find_game("pasa").state_from_json(out)
    assert code == 0 and state.dice == (6, 6, 6, 6, 6, 6)


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COMPANION_DEBUG", None)
    command = [sys.executable, "-m", "device.cli"]
    for argv, early in ((["game", "pasa", "help"], True),
                        (["game", "pyradice", "simulate", "--games", "2", "--seed", "1"], False)):
        with subprocess.Popen([*command, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                              env=env) as proc:
            assert proc.stdout is not None and proc.stderr is not None
            if not early:
                proc.stdout.readline()  # what `| head -1` does
            proc.stdout.close()  # early: before the command has written anything
            err = proc.stderr.read().decode()
            proc.wait(timeout=60)
        assert err == "" and proc.returncode == 0, err
    shell = subprocess.run(f"{sys.executable} -m device.cli game pyramido new --seed 1 --state s.json | head -1",
                           shell=True, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert shell.stderr == "" and shell.stdout.startswith("Pyramido: Forgotten Treasures: stage 1: take")


# --- companion play GAME -------------------------------------------------------------------------------------


def play(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, lines: list[str],
         *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    return run(capsys, "play", *argv)


def test_play_undo_and_resume(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                              tmp_path: Path) -> None:
    game = find_game("pasa")
    path = tmp_path / "pasa.json"
    code, out, _ = play(capsys, monkeypatch, ["help", "roll 3 3 3 5 5 6", "1", "undo", "choose threes",
                                              "hop", "legal", "board", "score", "quit"],
                        "pasa", "--players", "ana", "ben", "--state", str(path))
    assert code == 1 and "type an action" in out and "chance is awaited" in out
    assert "Choose Ones" in out and "  undone" in out and "refused: 'hop'" in out
    assert "--resume" in out
    state = game.state_from_json(path.read_text())
    assert state.category == "threes" and state.dice == (3, 3, 3, 5, 5, 6)

    code, _, err = play(capsys, monkeypatch, [], "pasa", "--state", str(path))
    one_line_error(code, err)
    code, out, _ = play(capsys, monkeypatch, ["stop", "random", "undo", "undo", "undo"],
                        "pasa", "--resume", "--state", str(path))
    assert code == 1 and "input ended before the game did" in out and "nothing to undo" in out
    state = game.state_from_json(path.read_text())  # back where the resumed game started
    assert state.category == "threes" and state.rolls == 1


@pytest.mark.parametrize("name", GAMES)
def test_play_a_few_steps_of_every_game(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path, name: str) -> None:
    game = find_game(name)
    path = tmp_path / "g.json"
    state = game.initial_state(["ana", "ben"], seed=2)
    prompt = game.chance_prompt(state)
    first = prompt.example if prompt is not None else "1"  # chance by text, or the first legal action
    code, out, _ = play(capsys, monkeypatch, [first, "random", "random", "1", "2", "board", "quit"],
                        name, "--seed", "2", "--state", str(path))
    assert code == 1 and game.title in out and "score:" in out
    saved = game.state_from_json(path.read_text())
    assert saved != state


def test_play_a_whole_game_to_its_end(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                      tmp_path: Path) -> None:
    path = tmp_path / "solo.json"
    lines = []
    for _ in range(9):
        lines += ["random", "1", "stop"]  # roll, the first open category, stop
    code, out, _ = play(capsys, monkeypatch, lines, "pasa", "--players", "1", "--seed", "1", "--state", str(path))
    assert code == 0 and "winner: ana" in out
    assert find_game("pasa").status(find_game("pasa").state_from_json(path.read_text())).finished


@pytest.mark.parametrize(("name", "command"), [("pyradice", "status"), ("pyramido", "legal"),
                                                ("dicetreasure", "score"), ("pyramido", "help")])
def test_the_games_own_commands_are_the_same(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str,
                                            command: str) -> None:
    path = new_game(capsys, tmp_path, name)
    state = [] if command == "help" else ["--state", str(path)]
    assert run(capsys, name, command, *state) == run(capsys, "game", name, command, *state)


@pytest.mark.parametrize(("argv", "needle"), [
    (["game", "pasa", "simulate", "--games", "x"], "invalid int value: 'x'"),
    (["game", "chess", "new"], "invalid choice: 'chess'"),
    (["play"], "required: GAME"),
    (["game", "pyradice", "jump"], "invalid choice: 'jump'"),
])
def test_usage_errors_are_one_line_too(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_perft_through_pyramido_draws(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "table.json"  # no seed: the table's deck, unknown; the set-up draws gems from the bag
    assert run(capsys, "game", "pyramido", "new", "--state", str(path))[0] == 0
    code, out, _ = run(capsys, "game", "pyramido", "perft", "--depth", "2", "--json", "--state", str(path))
    assert code == 0 and json.loads(out) == {"counts": {"1": 6, "2": 36}, "chance_listed": True}  # six colours
