"""A Pyradice game set up as on a real table (the ``setup`` option's words): the board and cards the players type,
a quarry the camera has not read yet; every mistake in the words named; the game kept by the device's log."""

from __future__ import annotations

from pathlib import Path

import pytest

from device.eventlog import EventLog
from device.hub import Hub
from device.session import GameSession, SetupError
from engine.errors import InvalidActionError
from engine.pyradice import PyradiceGame, Reveal
from engine.pyradice.tablesetup import SETUP_EXAMPLE, parse_setup, setup_words

G = PyradiceGame()


@pytest.mark.parametrize("seed", range(12))
def test_the_words_of_every_seeded_set_up_read_back_as_that_board_and_those_cards(seed: int) -> None:
    dealt = G.initial_state(["ana", "ben", "cleo"], seed=seed)
    words = setup_words(dealt.board, dealt.cards)
    assert parse_setup(words) == (dealt.board, dealt.cards)
    table = G.initial_state(["ana", "ben", "cleo"], {"setup": words})
    assert (table.board, table.cards) == (dealt.board, dealt.cards)
    # The quarry: every die there, none known; the camera is to read the uncovered ones first.
    assert len(table.quarry) == len(dealt.quarry) == 92 and not table.quarry.dice
    uncovered = sorted(p for p in dealt.quarry.dice if not dealt.quarry.covered(p))
    assert G.reveals_needed(table) == uncovered
    assert not G.legal_actions(G.apply(table, G.parse_action("roll-off 6 1 2", table)))  # nothing known to take


def test_the_quarry_learnt_die_by_die_becomes_the_tables() -> None:
    dealt = G.initial_state(["ana", "ben"], seed=3)
    state = G.initial_state(["ana", "ben"], {"setup": setup_words(dealt.board, dealt.cards)})
    state = G.apply(state, G.parse_action("roll-off 6 2", state))
    prompt = G.chance_prompt(state)
    assert prompt is not None and "q2,0,0" in prompt.what and "not read yet" in prompt.what
    example = G.parse_action(prompt.example)
    assert isinstance(example, Reveal) and example.position == (2, 0, 0)
    for p in G.reveals_needed(state):
        state = G.apply(state, Reveal(p, dealt.quarry.dice[p]))
    assert not G.reveals_needed(state)
    assert G.chance_prompt(state) is None  # nothing left to enter: the players take
    assert sorted(str(a) for a in G.legal_actions(state)) == sorted(
        str(a) for a in G.legal_actions(G.apply(dealt, G.parse_action("roll-off 6 2", dealt))))


def test_words_in_any_order_and_case_name_the_same_table() -> None:
    board, cards = parse_setup(SETUP_EXAMPLE)
    again = parse_setup("a6, b5 / A4; b3 A2  c1 d4 c2 c6 d7  MANY:White Height:gray pairs:maroon big:orange")
    assert again[0] == board and [c.title for c in again[1]] == [c.title for c in cards]
    assert board.skills == ("A2", "B3", "A4", "B5", "A6") and board.objectives == ("C1", "D4", "C2", "C6", "D7")


@pytest.mark.parametrize(("words", "named"), [
    ("table", "needs what lies on the table"),
    ("A2 B3 A4 B5 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:orange", "none given for level 6"),
    ("A2 A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:orange", "two given for level 2"),
    ("A2 B3 A4 B5 A6 C1 D4 C2 C6 many:white height:gray pairs:maroon big:orange", "5 objective tokens"),
    ("A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon", "4 objective cards"),
    ("A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:orange x9", "'x9' is not"),
    ("A2 B3 A4 B5 A6 C1 D4 C2 C6 C1 many:white height:gray pairs:maroon big:orange", "token number twice"),
    ("A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:purple", "'purple' on Big"),
    ("A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon tall:orange", "'tall' is not known"),
    ("A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:white pairs:maroon big:orange", "disc colours repeat"),
])
def test_a_mistake_in_the_words_is_named(words: str, named: str) -> None:
    with pytest.raises(InvalidActionError, match=named):
        G.resolve_options({"setup": words})


def test_the_device_keeps_a_table_set_up_game_and_logs_nothing_for_bad_words(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.sqlite3")
    session = GameSession(log, Hub())
    with pytest.raises(SetupError, match="none given for level 6"):
        session.new_game(["ana", "ben"], {"setup": "A2 B3 A4 B5 C1 D4 C2 C6 D7 many:white height:gray "
                                          "pairs:maroon big:orange"}, game="pyradice")
    assert session.record is None  # nothing logged
    session.new_game(["ana", "ben"], {"setup": SETUP_EXAMPLE}, game="pyradice")
    session.apply_text("roll-off 5 2", "page")
    log.close()
    again = GameSession(EventLog(tmp_path / "events.sqlite3"), Hub())
    assert again.resume()
    assert again.state.board.skills == ("A2", "B3", "A4", "B5", "A6") and not again.state.quarry.dice
    assert again.state.turn == 0 and len(again.history) == 1
