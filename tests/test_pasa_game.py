"""Paša-řada-pyramida under the engine contract: turns, legality, errors, JSON/text round trips, random games."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalActionError, InvalidActionError, InvalidStateError, find_game
from engine.game import Game
from engine.pasa import (
    CATEGORIES,
    RULES,
    Choose,
    Enter,
    PasaAction,
    PasaGame,
    PasaState,
    Reroll,
    Roll,
    Stop,
    parse_action,
    sub_multisets,
    valid_scores,
)
from engine.simulate import play

GAME = PasaGame()


def run(state: PasaState, *texts: str) -> PasaState:
    for text in texts:
        state = GAME.apply(state, GAME.parse_action(text, state))
    return state


def new(*players: str, rule: str = "even-pairs") -> PasaState:
    return GAME.initial_state(players or ("Ann",), {"pasa": rule})


def test_registered_with_metadata() -> None:
    game = find_game("pasa")
    assert isinstance(game, PasaGame)
    assert find_game("Paša-řada-pyramida") is game
    assert (game.min_players, game.max_players) == (1, 8)
    assert game.options[0].name == "pasa" and game.options[0].choices == RULES
    assert game.options[0].default == "even-pairs"


def test_a_whole_turn() -> None:
    s = new("Ann", "Bob")
    st = GAME.status(s)
    assert (st.to_move, st.phase, st.awaiting) == ("Ann", "roll", "chance")
    assert GAME.legal_actions(s) == []
    s = run(s, "roll 4 4 4 2 6 6")
    assert s.dice == (2, 4, 4, 4, 6, 6) and s.rolls == 1
    assert GAME.status(s).phase == "choose"
    assert GAME.legal_actions(s) == [Choose(c) for c in CATEGORIES]
    s = run(s, "choose fours")
    assert GAME.status(s).awaiting == "decision"
    legal = GAME.legal_actions(s)
    assert legal[0] == Stop() and Reroll((4, 4, 4)) in legal and Reroll(()) in legal
    assert Reroll((2, 4, 4, 4, 6, 6)) not in legal  # keeping all six is Stop
    assert len(legal) == 1 + 2 * 4 * 3 - 1  # stop + every sub-multiset of {2, 4x3, 6x2} but all of them
    s = run(s, "reroll keep 4 4 4")
    assert GAME.status(s).awaiting == "chance" and GAME.status(s).phase == "reroll"
    s = run(s, "roll 4 4 4 4 1 5")
    assert s.rolls == 2 and s.keep is None
    s = run(s, "reroll keep 4 4 4 4", "roll 4 4 4 4 4 3")
    assert s.rolls == 3 and GAME.legal_actions(s) == [Stop()]
    s = run(s, "stop")
    assert s.sheets == {"Ann": {"fours": 20}, "Bob": {}}
    assert (s.to_move, s.dice, s.rolls, s.category, s.keep) == (1, (), 0, None, None)
    assert GAME.score(s).players["Ann"].total == 20


def test_early_stop_after_roll_one() -> None:
    s = run(new(), "roll 1 2 3 4 5 6", "choose rada", "stop")
    assert s.sheets["Ann"] == {"rada": 21}


def test_camera_roll_in_the_hold_phase_counts_as_the_next_roll() -> None:
    s = run(new(), "roll 1 1 2 3 5 6", "choose ones", "roll 1 1 1 4 4 2")
    assert s.rolls == 2 and s.dice == (1, 1, 1, 2, 4, 4)
    s = run(s, "roll 1 1 1 1 3 3")
    assert s.rolls == 3
    with pytest.raises(IllegalActionError, match="a 4th is not allowed; legal: stop"):
        run(s, "roll 1 1 1 1 1 1")
    assert run(s, "stop").sheets["Ann"] == {"ones": 4}


def test_offline_entries_and_legal_entries() -> None:
    s = new("Ann", "Bob")
    entries = GAME.legal_entries(s)
    assert Enter("twos", 4) in entries and Enter("twos", 5) not in entries
    assert len(entries) == sum(len(valid_scores(c)) for c in CATEGORIES)
    s = run(s, "enter twos 4", "enter pasa 36")
    assert s.sheets == {"Ann": {"twos": 4}, "Bob": {"pasa": 36}}
    assert GAME.legal_entries(run(s, "roll 1 1 1 1 1 1")) == []


def test_entry_validated_against_the_games_rule() -> None:
    with pytest.raises(InvalidActionError, match="possible: 0, 12, 16, 20, 24, 28, 32, 36"):
        run(new(), "enter pasa 14")
    s = run(new(rule="distinct-pairs"), "enter pasa 14")
    assert s.sheets["Ann"] == {"pasa": 14}
    with pytest.raises(InvalidActionError, match=r"possible: 0, 12, 14, 16, .*, 30$"):
        run(new(rule="distinct-pairs"), "enter pasa 32")


def test_shared_victory_on_ties_and_the_end() -> None:
    s = new("Ann", "Bob", "Cy")
    for c in CATEGORIES:
        s = run(s, f"enter {c} 0", f"enter {c} 0", f"enter {c} {valid_scores(c)[1]}")
    st = GAME.status(s)
    assert st.finished and st.awaiting == "nothing" and st.winners == ("Cy",)
    s = new("Ann", "Bob")
    for c in CATEGORIES:
        s = run(s, f"enter {c} 0", f"enter {c} 0")
    assert GAME.status(s).winners == ("Ann", "Bob")
    with pytest.raises(IllegalActionError, match="the game is over, every sheet is complete"):
        run(s, "enter ones 1")
    with pytest.raises(IllegalActionError, match="the game is over"):
        run(s, "roll 1 2 3 4 5 6")
    assert GAME.legal_actions(s) == [] and GAME.legal_entries(s) == []


# --- every illegal move, named ---------------------------------------------------------------------

AFTER_ROLL = ("roll 1 2 2 4 6 6",)
HOLDING = (*AFTER_ROLL, "choose twos")


@pytest.mark.parametrize(
    ("setup", "bad", "error", "needle"),
    [
        ((), "roll 1 2 3 4 5 7", InvalidActionError, "'7' is not a die face 1..6"),
        ((), "roll 1 2 3 4 5", InvalidActionError, "six dice, got 5"),
        ((), "roll 1 2 3 4 5 6 6", InvalidActionError, "six dice, got 7"),
        ((), "choose twos", IllegalActionError, "roll 1 comes first"),
        ((), "stop", IllegalActionError, "no dice have been rolled"),
        ((), "reroll keep 2", IllegalActionError, "roll 1 comes first"),
        ((), "choose chance", InvalidActionError, "unknown category 'chance'"),
        ((), "enter twos 5", InvalidActionError, "5 is not a possible score in Twos; possible: 0, 2, 4"),
        ((), "enter chance 5", InvalidActionError, "unknown category 'chance'"),
        (AFTER_ROLL, "roll 1 1 1 1 1 1", IllegalActionError, "must choose a category after roll 1"),
        (AFTER_ROLL, "reroll keep 2 2", IllegalActionError, "choose a category first"),
        (AFTER_ROLL, "stop", IllegalActionError, "choose a category first"),
        (AFTER_ROLL, "enter twos 4", IllegalActionError, "being played with dice"),
        (HOLDING, "choose fours", IllegalActionError, "chosen once, right after roll 1, and is twos"),
        (HOLDING, "reroll keep 3", IllegalActionError, "cannot hold 3, the dice on the table are 1 2 2 4 6 6"),
        (HOLDING, "reroll keep 2 2 2", IllegalActionError, "cannot hold 2 2 2"),
        (HOLDING, "reroll keep 1 2 2 4 6 6", IllegalActionError, "keeping all six dice re-rolls nothing"),
        (HOLDING, "reroll keep 0", InvalidActionError, "'0' is not a die face"),
        ((*HOLDING, "reroll keep 2 2"), "roll 1 1 1 1 1 1", IllegalActionError, "kept dice 2 2 must still be"),
        ((*HOLDING, "reroll keep 2 2"), "stop", IllegalActionError, "waiting for its throw"),
        ((*HOLDING, "reroll keep 2 2"), "reroll keep 2", IllegalActionError, "already waiting for its throw"),
        ((*HOLDING, "roll 2 2 2 3 3 3", "roll 2 2 2 2 3 3"), "reroll keep 2", IllegalActionError, "a 4th is not"),
        ((*HOLDING, "roll 2 2 2 3 3 3", "roll 2 2 2 2 3 3"), "roll 2 2 2 2 2 2", IllegalActionError, "a 4th is not"),
        (("enter twos 4",), "enter twos 2", IllegalActionError, "Twos is already used on Ann's sheet; open: ones,"),
        (("enter twos 4", "roll 2 2 2 2 1 1"), "choose twos", IllegalActionError, "Twos is already used"),
    ],
)
def test_illegal_actions_are_named_and_nothing_is_recorded(
    setup: tuple[str, ...], bad: str, error: type[Exception], needle: str
) -> None:
    state = run(new(), *setup)
    snapshot = copy.deepcopy(state)
    with pytest.raises(error) as err:
        run(state, bad)
    assert needle in str(err.value)
    assert state == snapshot


@pytest.mark.parametrize(
    ("setup", "action", "needle"),
    [
        ((), Roll((1, 2, 3, 4, 5, 7)), "die value 7 is not a face of a six-sided die (1..6)"),
        ((), Roll((1, 2, 3, 4, 5)), "a roll is six dice, got 5 (1 2 3 4 5)"),
        (HOLDING, Reroll((0,)), "kept die value 0 is not a face"),
        ((), Choose("chance"), "unknown category 'chance'"),
        ((), Enter("twos", 5), "5 is not a possible score in Twos"),
    ],
)
def test_bad_action_objects_from_the_camera_or_json(setup: tuple[str, ...], action: PasaAction, needle: str) -> None:
    with pytest.raises(InvalidActionError) as err:
        GAME.apply(run(new(), *setup), action)
    assert needle in str(err.value)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "is not a Paša-řada-pyramida action"),
        ("roll", "is not a Paša-řada-pyramida action"),
        ("roll 1 x 3 4 5 6", "'x' is not a die face"),
        ("reroll 1 2", "is not a Paša-řada-pyramida action; forms: roll D D D D D D"),
        ("enter twos four", "points 'four' are not a whole number"),
        ("choose", "is not a Paša-řada-pyramida action"),
        ("stop now", "is not a Paša-řada-pyramida action"),
        ("fly 1", "'fly 1' is not"),
    ],
)
def test_unparsable_text(text: str, needle: str) -> None:
    with pytest.raises(InvalidActionError) as err:
        parse_action(text)
    assert needle in str(err.value)


def test_action_text_shorthands() -> None:
    assert parse_action("roll 123456") == Roll((1, 2, 3, 4, 5, 6))
    assert parse_action("Roll 1,2,3,4,5,6") == Roll((1, 2, 3, 4, 5, 6))
    assert parse_action("choose Paša") == Choose("pasa")
    assert parse_action("reroll keep -") == Reroll(())
    assert str(Reroll(())) == "reroll keep -"
    assert parse_action("enter řada 21") == Enter("rada", 21)


def test_bad_players_and_options() -> None:
    with pytest.raises(InvalidActionError, match="1 to 8 players, got 9"):
        GAME.initial_state([str(i) for i in range(9)])
    with pytest.raises(InvalidActionError, match="1 to 8 players, got 0"):
        GAME.initial_state([])
    with pytest.raises(InvalidActionError, match="distinct"):
        GAME.initial_state(["Ann", "Ann"])
    with pytest.raises(InvalidActionError, match="pasa='odd' is not one of even-pairs"):
        GAME.initial_state(["Ann"], {"pasa": "odd"})


# --- states read from outside ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"rule": "odd"}, "unknown Paša rule"),
        ({"sheets": {"Ann": {"twos": 5}, "Bob": {}}}, "impossible 5 in Twos"),
        ({"sheets": {"Ann": {"chance": 5}, "Bob": {}}}, "unknown category 'chance'"),
        ({"sheets": {"Ann": {}, "Bob": {"ones": 1}}}, "do not fit Ann being to move"),
        ({"sheets": {"Ann": {}}}, "sheets are for"),
        ({"dice": (1, 2, 3), "rolls": 1}, "are not six faces"),
        ({"dice": (1, 2, 3, 4, 5, 6)}, "0 rolls made does not fit"),
        ({"category": "ones"}, "chosen before roll 1"),
        ({"dice": (1, 1, 1, 1, 1, 1), "rolls": 1, "category": "twos", "keep": (2,)}, "pending re-roll"),
        ({"to_move": 5}, "is not a seat"),
    ],
)
def test_inconsistent_states_are_reported(changes: dict[str, object], needle: str) -> None:
    base = new("Ann", "Bob")
    state = PasaState(**{**base.__dict__, **changes})
    status = GAME.status(state)
    assert not status.valid and any(needle in d for d in status.defects), status.defects
    with pytest.raises(InvalidStateError, match="inconsistent"):
        GAME.check_state(state)


def test_bad_json_is_named() -> None:
    with pytest.raises(InvalidStateError, match="missing field 'players'"):
        GAME.state_from_json('{"rule": "even-pairs", "sheets": {}}')
    with pytest.raises(InvalidActionError, match="not valid JSON"):  # an action's JSON: an action error
        GAME.action_from_json("{")


def test_sub_multisets() -> None:
    assert sub_multisets((1, 1, 2)) == [(), (1,), (2,), (1, 1), (1, 2), (1, 1, 2)]
    assert len(sub_multisets((1, 2, 3, 4, 5, 6))) == 64
    assert len(sub_multisets((3,) * 6)) == 7


# --- seeded random games -----------------------------------------------------------------------------


def _random_policy(state: PasaState, legal: list[PasaAction], rng: random.Random) -> PasaAction:
    return rng.choice(legal)


def _check_round_trips(game: Game[PasaState, PasaAction], state: PasaState, action: PasaAction) -> None:
    assert game.state_from_json(game.state_to_json(state)) == state
    assert game.action_from_json(game.action_to_json(action)) == action
    assert game.parse_action(str(action), state) == action


@pytest.mark.parametrize("seed", range(12))
def test_random_games_keep_the_invariants(seed: int) -> None:
    rng = random.Random(seed)
    players = [f"P{i}" for i in range(rng.randint(1, 8))]
    rule = RULES[seed % 3]
    state = GAME.initial_state(players, {"pasa": rule})
    steps = 0
    while not GAME.status(state).finished:
        st = GAME.status(state)
        assert st.valid, st.defects
        assert st.to_move == state.player
        if st.phase == "roll" and rng.random() < 0.3:
            action: PasaAction = rng.choice(GAME.legal_entries(state))  # offline entry
        elif st.phase == "hold" and rng.random() < 0.2:
            action = Roll(tuple(rng.randint(1, 6) for _ in range(6)))  # camera: re-roll of unseen holds
        elif st.awaiting == "chance":
            action = GAME.random_chance(state, rng)
        else:
            action = _random_policy(state, GAME.legal_actions(state), rng)
        _check_round_trips(GAME, state, action)
        before = GAME.score(state).totals()
        state = GAME.apply(state, action)
        after = GAME.score(state).totals()
        assert sum(after.values()) >= sum(before.values())
        steps += 1
    assert steps <= len(players) * 9 * 7  # roll, choose, reroll, roll, reroll, roll, stop at most
    st = GAME.status(state)
    for p in players:
        sheet = state.sheets[p]
        assert sorted(sheet) == sorted(CATEGORIES)
        assert all(sheet[c] in valid_scores(c, rule) for c in CATEGORIES)
        score = GAME.score(state).players[p]
        assert score.total == sum(sheet.values()) == sum(score.breakdown.values())
    best = max(GAME.score(state).totals().values())
    assert st.winners == tuple(p for p in players if GAME.score(state).totals()[p] == best)
    assert GAME.state_from_json(GAME.state_to_json(state)) == state


def test_simulator_plays_whole_games() -> None:
    for seed in range(5):
        playout = play(GAME, ["Ann", "Bob", "Cy"], seed, options={"pasa": RULES[seed % 3]})
        final = playout.final
        assert GAME.status(final).finished
        assert all(len(final.sheets[p]) == 9 for p in final.players)
        assert play(GAME, ["Ann", "Bob", "Cy"], seed, options={"pasa": RULES[seed % 3]}) == playout


faces = st.integers(min_value=1, max_value=6)
actions = st.one_of(
    st.builds(Roll, st.tuples(faces, faces, faces, faces, faces, faces)),
    st.builds(Choose, st.sampled_from(CATEGORIES)),
    st.builds(Reroll, st.lists(faces, max_size=5).map(tuple)),
    st.just(Stop()),
    st.builds(Enter, st.sampled_from(CATEGORIES), st.integers(min_value=-5, max_value=40)),
)


@settings(max_examples=200, deadline=None)
@given(actions)
def test_every_action_round_trips_through_text_and_json(action: PasaAction) -> None:
    assert parse_action(str(action)) == action
    assert GAME.action_from_json(GAME.action_to_json(action)) == action
