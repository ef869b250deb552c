"""The engine core: JSON round trips, errors, the registry and the command line shell."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import pytest

from device import cli
from engine import Die, InvalidActionError, InvalidStateError, find_game, serial
from engine.errors import GameError, legal_hint


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Inner:
    colour: Colour
    values: tuple[int, ...]


@dataclass(frozen=True)
class Outer:
    name: str
    inner: Inner
    tags: frozenset[str]
    table: dict[tuple[int, int], str]
    maybe: int | None = None


def test_serial_round_trip_is_exact_and_canonical() -> None:
    value = Outer("a", Inner(Colour.BLUE, (3, 1)), frozenset({"z", "a"}), {(1, 2): "x"}, None)
    text = serial.dumps(value)
    assert serial.loads(Outer, text) == value
    assert '"tags":["a","z"]' in text
    assert serial.dumps(serial.loads(Outer, text)) == text


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("not json", "not valid JSON"),
        ('{"name": "a"}', "missing field 'inner'"),
        ('{"name": 1, "inner": {"colour": "red", "values": []}, "tags": [], "table": []}', "$.name"),
        ('{"name": "a", "inner": {"colour": "green", "values": []}, "tags": [], "table": []}', "'green'"),
        ('{"name": "a", "inner": {"colour": "red", "values": [true]}, "tags": [], "table": []}', "values[0]"),
        ('{"name": "a", "bogus": 1, "inner": {"colour": "red", "values": []}, "tags": [], "table": []}', "bogus"),
    ],
)
def test_serial_rejects_bad_json_naming_the_place(text: str, needle: str) -> None:
    with pytest.raises(InvalidStateError) as err:
        serial.loads(Outer, text)
    assert needle in str(err.value)


def test_die_text_round_trip_and_bad_faces() -> None:
    assert Die.parse(str(Die(4, "maroon"))) == Die(4, "maroon")
    assert Die.parse("6") == Die(6)
    for bad, needle in (("7", "value 7 "), ("x", "'x'"), ("red:0", "value 0 ")):
        with pytest.raises(InvalidActionError, match=needle):
            Die.parse(bad)


def test_errors_are_value_errors() -> None:
    assert issubclass(InvalidActionError, GameError) and issubclass(GameError, ValueError)
    assert legal_hint(range(20), limit=3) == "legal: 0, 1, 2 and 17 more"


def test_unknown_game_lists_known_games() -> None:
    with pytest.raises(ValueError, match="known games: dicetreasure, pasa, pyradice, pyramido"):
        find_game("chess")


def test_cli_help_lists_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    assert "bench" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--recording", "/nonexistent/recording"], "'/nonexistent/recording' is not a recording: recording.json is"),
    (["--frames", "0"], "--frames must be at least 1, got 0"),
])
def test_live_bench_refuses_bad_input_in_words(args: list[str], message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "live", *args]) == 2
    assert message in capsys.readouterr().err
