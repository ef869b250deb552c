"""Dice Treasure over whole games: invariants over 1,000 seeded random games, and move counts ("perft").

The move-count file ``tests/data/dicetreasure/move-counts.json`` pins the rules: any change to what is legal
changes a count. After a deliberate rule change, rewrite it with ``python -m tests.test_dicetreasure_games``
and review the diff.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from engine.dice import Die
from engine.dicetreasure import GAME, CardInPlay, Phase, Place, Source, legal_spaces
from engine.dicetreasure.simulate import eager_policy, invariant_problems, move_counts, perft, play_game
from engine.simulate import play

MOVE_COUNTS = Path(__file__).parent / "data" / "dicetreasure" / "move-counts.json"
MOVE_COUNT_GAMES = ((1, 11), (2, 12), (3, 13), (4, 14))  # (players, seed)
GAMES = {1: 400, 2: 200, 3: 200, 4: 200}


def options_for(seed: int) -> dict[str, str]:
    """Both readings of each rule option get played."""
    return {
        "chip_tie": "most-coins" if seed % 2 else "turn-order",
        "leprechauns": "off" if seed % 5 == 0 else "on",
    }


@pytest.mark.parametrize("players", sorted(GAMES))
def test_random_games_keep_the_invariants(players: int) -> None:
    finished_by_goal = 0
    for seed in range(GAMES[players]):
        # play_game checks after every action: dice conserved, gold = cards + chips + bonus, no die next to one
        # of the same colour or value, reserves of at most 2.
        state, _ = play_game(players, seed, options=options_for(seed), check=True)
        status = GAME.status(state)
        assert status.finished and status.defects == (), (seed, status)
        golds = [p.gold for p in state.players]
        if players == 1:
            assert state.round <= 4
            assert status.winners == (("P1",) if golds[0] >= 18 else ())
            finished_by_goal += golds[0] >= 18
        else:
            assert max(golds) >= state.goal, (seed, golds)  # the game ends only after someone reached the goal
            assert status.winners and all(
                state.players[[p.name for p in state.players].index(w)].gold == max(golds) for w in status.winners
            )
            finished_by_goal += 1
        assert sum(len(p.chips) for p in state.players) <= 7
        assert len({p.bonus.id for p in state.players if p.bonus}) == sum(1 for p in state.players if p.bonus)
    assert finished_by_goal > 0


def test_the_invariant_check_catches_broken_states() -> None:
    state, _ = play_game(2, 1)
    assert invariant_problems(state) == []
    ann = state.players[0]
    assert invariant_problems(dataclasses.replace(state, common=(*state.common, Die(3, "red"))))
    assert invariant_problems(
        dataclasses.replace(state, players=(dataclasses.replace(ann, gold=ann.gold + 1), *state.players[1:]))
    )
    assert invariant_problems(
        dataclasses.replace(
            state,
            players=(dataclasses.replace(ann, reserve=(Die(1, "red"),) * 3), *state.players[1:]),
            bag=tuple(n - 3 if c == "red" else n for c, n in zip(state.dice_colours, state.bag, strict=True)),
        )
    )


def test_generic_simulator_plays_to_the_end_with_json_round_trips() -> None:
    playout = play(GAME, ["Ann", "Bob", "Cid"], seed=7, policy=eager_policy)
    assert GAME.status(playout.final).finished
    for state in playout.states[::40]:
        assert GAME.state_from_json(GAME.state_to_json(state)) == state
        assert GAME.status(state).defects == ()
    for action in playout.actions[::7]:
        assert GAME.parse_action(GAME.action_text(action)) == action


def test_legal_spaces_agree_with_the_place_actions() -> None:
    rng = random.Random(3)
    checked = 0
    for seed in range(6):
        playout = play(GAME, ["Ann", "Bob"], seed=seed, policy=eager_policy)
        for state in playout.states:
            if state.phase is not Phase.TURN or rng.random() > 0.2:
                continue
            places = {(a.die, a.card, a.space) for a in GAME.legal_actions(state) if isinstance(a, Place)}
            for die in {*state.hand, *state.players[state.active].reserve}:
                assert {(die, c, s) for c, s in legal_spaces(state, die)} == {p for p in places if p[0] == die}
                checked += 1
    assert checked > 100


def test_move_count_by_hand_at_the_start_of_a_solo_turn() -> None:
    state = GAME.initial_state(["Ann"], {"leprechauns": "off"})
    state = GAME.apply(state, GAME.parse_action("deal Ann: red-1 red-2 red-3"))
    state = GAME.apply(state, GAME.parse_action("roll red:1 yellow:2 green:3 blue:4 purple:5 red:6"))
    spaces = sum(len(c.dice) for c in state.players[0].cards)
    fitting = sum(len(legal_spaces(state, die)) for die in state.hand)
    # No exchanges in the solo game; keeps: none, one of 6, or two of 6.
    assert len(GAME.legal_actions(state)) == fitting + 1 + 6 + 15
    assert spaces == 9 and fitting <= 6 * 9
    # After placing red:1 somewhere, that space is gone for everyone and its neighbours refuse red and 1.
    first = next(a for a in GAME.legal_actions(state) if isinstance(a, Place) and a.die == Die(1, "red"))
    after = GAME.apply(state, first)
    cip: CardInPlay = next(c for c in after.players[0].cards if c.card.id == first.card)
    for j in cip.card.adjacent[first.space - 1]:
        assert (first.card, j + 1) not in legal_spaces(after, Die(6, "red"))
        assert (first.card, j + 1) not in legal_spaces(after, Die(1, "yellow"))
    assert perft(state, 1) == len(GAME.legal_actions(state))
    assert all(a.source is Source.HAND for a in GAME.legal_actions(state) if isinstance(a, Place))


def current_move_counts() -> dict[str, list[dict[str, object]]]:
    return {f"{players} players, seed {seed}": move_counts(players, seed) for players, seed in MOVE_COUNT_GAMES}


def test_move_counts_match_the_data_file() -> None:
    expected = json.loads(MOVE_COUNTS.read_text(encoding="utf-8"))
    assert current_move_counts() == expected


if __name__ == "__main__":
    MOVE_COUNTS.write_text(json.dumps(current_move_counts(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {MOVE_COUNTS}")
