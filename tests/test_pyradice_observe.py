"""Explaining what the camera saw: which legal turn turns one observed table into the next, or why none."""

from __future__ import annotations

import re

import pytest

from engine import AmbiguousActionError, IllegalActionError
from engine.dice import Die
from engine.pyradice import Observation, Pass, Phase, Place, PyradiceGame, PyradiceState, Skill, Take, explain_turn
from engine.pyradice.fixtures import filler, table
from engine.simulate import play

G = PyradiceGame()


def _after_turn(states: tuple[PyradiceState, ...], i: int) -> PyradiceState:
    before = states[i]
    return next(s for s in states[i + 1 :] if s.phase is Phase.OVER or s.turn != before.turn)


def _seen(after: PyradiceState, seat: int, quarry: bool = True) -> Observation:
    p = after.players[seat]
    return Observation(p.pyramid, after.quarry.dice if quarry else None, p.reserve, True)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (2, 3), (3, 4), (4, 5)])
def test_every_turn_of_a_random_game_is_explained(players: int, seed: int) -> None:
    playout = play(G, ["ana", "ben", "cleo", "dan"][:players], seed)
    starts = [i for i, s in enumerate(playout.states) if s.phase is Phase.TAKE]
    for i in starts:
        before, after = playout.states[i], _after_turn(playout.states, i)
        actions = explain_turn(before, _seen(after, before.turn))
        state = before
        for action in actions:
            state = G.apply(state, action)
        mine = state.players[before.turn]
        assert mine.pyramid == after.players[before.turn].pyramid
        assert state.quarry.dice == after.quarry.dice and mine.reserve == after.players[before.turn].reserve
        assert state.turn == after.turn and state.phase is after.phase


def _start() -> PyradiceState:
    # ana to move with 2 dice on level 1; the first available quarry dice are known
    return table([filler(2), filler(2)])


def test_a_plain_turn_is_take_place_pass_or_take_place() -> None:
    s = _start()
    pos = s.quarry.available()[0]
    die = s.quarry.dice[pos]
    seen = Observation({**s.mover.pyramid, (1, 2): die}, {p: d for p, d in s.quarry.dice.items() if p != pos})
    assert explain_turn(s, seen) == (Take(pos), Place((1, 2)))  # level 1: no skill step
    # on level 2 the skill step follows; seen unchanged otherwise: "pass"
    seen2 = Observation({**s.mover.pyramid, (2, 0): die}, seen.quarry)
    assert explain_turn(s, seen2) == (Take(pos), Place((2, 0)), Pass())
    assert explain_turn(s, seen2, partial=True) == (Take(pos), Place((2, 0)))
    # mid-turn: only the take has happened (the quarry shows it)
    assert explain_turn(s, Observation(s.mover.pyramid, seen.quarry), partial=True) == (Take(pos),)


def test_a_skill_and_an_a2_outcome_are_read_from_the_change() -> None:
    s = _start()  # default board: level 2 skill A2 (re-roll)
    pos = s.quarry.available()[0]
    die = s.quarry.dice[pos]
    rest = {p: d for p, d in s.quarry.dice.items() if p != pos}
    old = s.mover.pyramid[(1, 1)]
    new_value = 7 - old.value
    pyramid = {**s.mover.pyramid, (2, 0): die, (1, 1): Die(new_value, old.colour)}
    expected = (Take(pos), Place((2, 0)), Skill("A2", (1, 1), value=new_value))
    assert explain_turn(s, Observation(pyramid, rest)) == expected


def test_equal_dice_in_the_quarry_are_ambiguous_until_the_quarry_is_seen() -> None:
    probe = _start()
    a, b = probe.quarry.available()[:2]
    twin = Die(5, "gray")
    s = table([filler(2), filler(2)], quarry_values={a: twin, b: twin})
    seen_pyramid = {**s.mover.pyramid, (1, 2): twin}
    with pytest.raises(AmbiguousActionError, match=r"2 different turns of ana.*take q.*\| take q"):
        explain_turn(s, Observation(seen_pyramid))
    quarry = {p: d for p, d in s.quarry.dice.items() if p != b}
    assert explain_turn(s, Observation(seen_pyramid, quarry)) == (Take(b), Place((1, 2)))


def test_a_skill_that_changes_nothing_is_not_an_ambiguity() -> None:
    # level 2 A2 re-rolling a die to the value it had looks exactly like "pass": the plainest is returned
    s = _start()
    pos = s.quarry.available()[0]
    rest = {p: d for p, d in s.quarry.dice.items() if p != pos}
    seen = Observation({**s.mover.pyramid, (2, 0): s.quarry.dice[pos]}, rest)
    assert explain_turn(s, seen)[-1] == Pass()


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ("two", "a turn places exactly one die, but 2 new dice are seen"),
        ("gone", "dice never leave a pyramid, but 1,0 is now empty"),
        ("floating", "slot 2,1 needs dice under it at 1,2"),
        ("unknown die", "no available quarry die is white:6"),
        ("bad skill", "no use of skill A2 (level 2) gives that result"),
        ("level one skill", "a die placed on level 1 allows no skill"),
        ("nothing", "a turn places exactly one die, but 0 new dice are seen"),
    ],
)
def test_why_no_turn_explains_an_observation(change: str, needle: str) -> None:
    s = table([filler(2), filler(2)], quarry_values={})
    pos = s.quarry.available()[0]
    die = s.quarry.dice[pos]
    mine = dict(s.mover.pyramid)
    if change == "two":
        mine |= {(1, 2): die, (1, 3): die}
    elif change == "gone":
        del mine[(1, 0)]
        mine[(1, 2)] = die
    elif change == "floating":
        mine[(2, 1)] = die
    elif change == "unknown die":
        mine[(1, 2)] = Die(6, "white") if die != Die(6, "white") else Die(6, "gray")
        needle = needle if die != Die(6, "white") else "no available quarry die is gray:6"
    elif change == "bad skill":
        mine[(2, 0)] = die
        mine[(1, 0)] = Die(mine[(1, 0)].value, "maroon" if mine[(1, 0)].colour != "maroon" else "gray")
    elif change == "level one skill":
        mine[(1, 2)] = die
        mine[(1, 0)] = Die(7 - mine[(1, 0)].value, mine[(1, 0)].colour)
    with pytest.raises(IllegalActionError, match=re.escape(needle)):
        explain_turn(s, Observation(mine))


def test_explaining_needs_a_turn_to_explain() -> None:
    s = G.initial_state(["ana", "ben"], seed=1)
    with pytest.raises(IllegalActionError, match="first player is not known"):
        explain_turn(s, Observation({}))
    final = play(G, ["ana", "ben"], seed=1, keep_states=False).final
    with pytest.raises(IllegalActionError, match="game is over"):
        explain_turn(final, Observation({}))
