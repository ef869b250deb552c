"""``companion pasa``: every sub-command, bad input as exit 2 with one line, and the terminal scorekeeper."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest

from device import cli
from engine.pasa import CATEGORIES, PasaGame, valid_scores
from engine.pasa.cli import interpret, play_loop


def companion(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["pasa", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_score_and_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert companion(capsys, "score", "fours", "4", "4", "4", "2", "6", "6") == (0, "12\n", "")
    assert companion(capsys, "score", "pasa", "222244") == (0, "16\n", "")
    assert companion(capsys, "score", "pasa", "2", "2", "2", "2", "4", "4", "--rule", "distinct-pairs")[1] == "0\n"
    assert companion(capsys, "valid", "twos") == (0, "0 2 4 6 8 10 12\n", "")
    assert companion(capsys, "valid", "pasa", "--rule", "strict-246")[1] == "0 24\n"


def test_ev(capsys: pytest.CaptureFixture[str]) -> None:
    assert companion(capsys, "ev") == (0, "101.5975\n", "")
    assert companion(capsys, "ev", "--rule", "distinct-pairs")[1] == "106.3498\n"
    status, out, _ = companion(capsys, "ev", "--all")
    assert status == 0
    assert out.split() == ["even-pairs", "101.5975", "distinct-pairs", "106.3498", "strict-246", "100.2380"]


def test_advise_categories_and_holds(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = companion(capsys, "advise", "--dice", "1", "2", "3", "4", "6", "6")
    assert status == 0 and "best: choose sixes" in out and out.count("\n") == 12
    status, out, _ = companion(capsys, "advise", "--dice", "123466", "--used", "sixes,rada", "--json")
    data = json.loads(out)
    assert [c["category"] for c in data["categories"]][-1] != "sixes" and len(data["categories"]) == 7
    assert data["used"] == ["sixes", "rada"] and data["best"].startswith("choose ")
    status, out, _ = companion(capsys, "advise", "--dice", "1 2 3 4 6 6", "--category", "sixes", "--json")
    data = json.loads(out)
    assert data["best"] == "reroll keep 6 6" and data["rolls_left"] == 2 and len(data["holds"]) == 48
    status, out, _ = companion(capsys, "advise", "--dice", "666666", "--category", "sixes", "--rolls-left", "1")
    assert status == 0 and "best: stop" in out and "stop (keep all)" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("score", "fours", "4", "4", "4", "2", "6", "7"), "die value 7 is not a face"),
        (("score", "fours", "4", "4", "4", "2", "6"), "a roll is six dice, got 5"),
        (("score", "fours", "4", "4", "x", "2", "6", "6"), "'x' is not a die face"),
        (("score", "chance", "4", "4", "4", "2", "6", "6"), "unknown category 'chance'"),
        (("score", "pasa", "222244", "--rule", "odd"), "unknown Paša rule 'odd'"),
        (("valid", "chance"), "unknown category 'chance'"),
        (("ev", "--rule", "odd"), "unknown Paša rule 'odd'"),
        (("advise", "--dice", "1234567"), "die value 7"),
        (("advise", "--dice", "123456", "--used", "ones,ones"), "names a category twice"),
        (("advise", "--dice", "123456", "--used", "ones,chance"), "unknown category 'chance'"),
        (("advise", "--dice", "123456", "--used", ",".join(CATEGORIES)), "the sheet is complete"),
        (("advise", "--dice", "123456", "--rolls-left", "1"), "--rolls-left needs --category"),
        (("advise", "--dice", "123456", "--category", "ones", "--rolls-left", "3"), "re-rolls left 3"),
        (("advise", "--dice", "123456", "--category", "ones", "--used", "ones"), "Ones is already used"),
        (("simulate", "--games", "1"), "--games must be at least 2"),
        (("play", "--players", "A", "A"), "distinct"),
        (("play", "--players", *"ABCDEFGHI"), "1 to 8 players, got 9"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], needle: str
) -> None:
    status, out, err = companion(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and err.startswith("companion pasa: error: ")


def test_simulate_reports_mean_se_and_the_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = companion(capsys, "simulate", "--games", "3000", "--seed", "5")
    assert status == 0
    lines = out.splitlines()
    assert lines[1].startswith("optimal  mean") and "exact expectation 101.5975" in lines[1]
    assert lines[2].startswith("greedy   mean") and "optimal - greedy:" in lines[3]
    for line in lines[1:3]:
        assert abs(float(line.split("difference ")[1].split()[0])) < 4  # within 4 standard errors
    again = companion(capsys, "simulate", "--games", "3000", "--seed", "5")[1]
    assert again == out
    status, out, _ = companion(capsys, "simulate", "--games", "20", "--policy", "greedy", "--engine")
    assert status == 0 and "through the game engine" in out and "greedy" in out and "optimal" not in out


# --- the terminal scorekeeper ---------------------------------------------------------------------


def _feeder(lines: list[str]) -> tuple[Callable[[str], str], list[str]]:
    prompts: list[str] = []
    it = iter(lines)

    def read(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read, prompts


def test_offline_game_refuses_impossible_entries() -> None:
    lines = [
        "twos 5",  # Ann: refused, 5 is impossible in Twos
        "twos 4",  # Ann
        "sixes 36",  # Bob
        "twos 2",  # Ann: refused, Twos is used
        "sixes 30",  # Ann
        "undo",  # takes back Ann's Sixes 30
        "sixes 36",  # Ann
        "sheet",
        "help",
        "twos 0",  # Bob
    ]
    for c in ("ones", "threes", "fours", "fives", "pasa", "rada", "pyramida"):
        lines += [f"{c} {valid_scores(c)[-1]}", f"{c} 0"]  # Ann the best score, Bob nothing
    read, prompts = _feeder(lines)
    out = io.StringIO()
    assert play_loop(["Ann", "Bob"], "even-pairs", "offline", read=read, out=out) == 0
    text = out.getvalue()
    assert "refused: 5 is not a possible score in Twos; possible: 0, 2, 4, 6, 8, 10, 12" in text
    assert "refused: enter twos 2 refused: Twos is already used on Ann's sheet" in text
    assert "Ann: Sixes = 30" in text and "undone" in text and "commands: sheet" in text
    assert "winner: Ann (*) with 207" in text  # 4 + 36 + 6 + 18 + 24 + 30 + 36 + 21 + 32
    assert text.splitlines()[-2].split() == ["total", "207", "36"]
    assert prompts[0] == "Ann (turn 1/9) category and points: "
    assert len(prompts) == len(lines)


def test_online_game_with_dice_and_advice() -> None:
    read, _ = _feeder(
        [
            "1 2 3 4 6 6",
            "sixes",
            "keep 6 6",
            "1 2 6 3",  # only the four re-rolled dice
            "keep 6 6 6",
            "666666",
            "123457",
            "stop",
            "keep 6",
        ]
    )
    out = io.StringIO()
    assert play_loop(["Ann"], "even-pairs", "online", read=read, out=out) == 1
    text = out.getvalue()
    assert "dice 1 2 3 4 6 6: Ones 1  Twos 2  Threes 3  Fours 4  Fives 0  Sixes 12" in text
    assert "advice: choose sixes" in text and "advice: reroll keep 6 6" in text
    assert "refused: a roll is six dice" not in text and "refused: die value 7" in text
    assert "Ann: Sixes = 36" in text
    assert "refused: reroll keep 6 refused: roll 1 comes first" in text
    assert "input ended before the game did" in text


def test_interpret_shorthands() -> None:
    game = PasaGame()
    s = game.initial_state(["Ann"])
    assert str(interpret("444266", s)) == "roll 4 4 4 2 6 6"
    assert str(interpret("twos 4", s)) == "enter twos 4"
    s = game.apply(s, interpret("444266", s))
    assert str(interpret("Fours", s)) == "choose fours"
    s = game.apply(s, interpret("fours", s))
    assert str(interpret("keep -", s)) == "reroll keep -"
    s = game.apply(s, interpret("keep 4 4 4", s))
    assert str(interpret("1 2 3", s)) == "roll 4 4 4 1 2 3"
    assert str(interpret("4 4 4 1 2 3", s)) == "roll 4 4 4 1 2 3"
    for bad in ("", "twos four", "a b c"):
        with pytest.raises(ValueError):
            interpret(bad, s)
