"""The Pyradice game: setup, turn steps, every skill, scoring, status and defects, JSON, random games."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

import pytest

from engine import IllegalActionError, InvalidActionError, InvalidStateError, find_game
from engine.dice import Die
from engine.pyradice import (
    Board,
    Card,
    Pass,
    Phase,
    Place,
    PlayerState,
    PyradiceGame,
    PyradiceState,
    Roll,
    RollOff,
    Skill,
    Take,
    UseReserve,
    level_results,
    setup,
)
from engine.pyradice.fixtures import DEFAULT_BOARD, filler, table
from engine.pyradice.pyramid import SLOTS, Slot
from engine.pyradice.quarry import COLOURS, Quarry
from engine.simulate import play

G = PyradiceGame()


def base_for(level: int) -> dict[Slot, Die]:
    """The smallest pyramid on which a die can go to (level, 0): a triangle at the left; values 1..6 and
    colours cycling."""
    slots = [(j, i) for j in range(1, level) for i in range(level - j + 1)]
    return {s: Die(SLOTS.index(s) % 6 + 1, COLOURS[SLOTS.index(s) % 4]) for s in slots}


WHITE_4 = Die(4, "white")


def skill_state(
    code: str, hand: Die = WHITE_4, skills: tuple[str, ...] | None = None, reserve: Die | None = None
) -> PyradiceState:
    """Ana (first, seat 0) has just placed ``hand`` on (level of ``code``, 0); board skills A2 A3 A4 A5 A6
    with ``code`` on its level unless ``skills`` are given."""
    level = int(code[1])
    if skills is None:
        board = list(DEFAULT_BOARD.skills)
        board[level - 2] = code
        skills = tuple(board)
    mine = base_for(level)
    state = table(
        [mine, filler(len(mine))], board=Board(skills, DEFAULT_BOARD.objectives), phase=Phase.PLACE,
        hand=hand, reserves={0: reserve} if reserve else None,
    )
    return G.apply(state, Place((level, 0)))


# --- registry, setup and turn order ----------------------------------------------------------------


def test_registered_with_its_rule_options() -> None:
    game = find_game("pyradice")
    assert isinstance(game, PyradiceGame)
    assert {o.name: o.default for o in game.options} == {"peak": "unimodal", "first_tie": "reroll_tied",
                                                         "setup": "random"}
    with pytest.raises(InvalidActionError, match="peak='steep'"):
        game.initial_state(["a", "b"], {"peak": "steep"})
    with pytest.raises(InvalidActionError, match="2 to 4 players"):
        game.initial_state(["a"])


def test_random_setup_is_reproducible_and_legal() -> None:
    a = G.initial_state(["ana", "ben", "cleo"], seed=3)
    assert a == G.initial_state(["ana", "ben", "cleo"], seed=3)
    assert a != G.initial_state(["ana", "ben", "cleo"], seed=4)
    assert a.quarry.boxes == 2 and len(a.quarry.dice) == 92
    assert [int(s[1]) for s in a.board.skills] == [2, 3, 4, 5, 6]
    assert len({t[1] for t in a.board.objectives}) == 5
    assert sorted(c.title for c in a.cards) == ["Big", "Height", "Many", "Pairs"]
    assert len({c.colour for c in a.cards}) == 4
    st = G.status(a)
    assert (st.phase, st.awaiting, st.to_move, st.defects) == ("roll-off", "chance", None, ())
    assert G.legal_actions(a) == []


@pytest.mark.parametrize(
    ("option", "rolls", "rolling"),
    [("reroll_tied", (5, 5, 2), (0, 1)), ("reroll_all", (5, 5, 2), (0, 1, 2))],
)
def test_first_player_roll_ties_under_both_readings(
    option: str, rolls: tuple[int, ...], rolling: tuple[int, ...]
) -> None:
    s = G.initial_state(["ana", "ben", "cleo"], {"first_tie": option}, seed=1)
    s = G.apply(s, RollOff(rolls))
    assert s.phase is Phase.ROLL_OFF and s.rolling == rolling
    with pytest.raises(InvalidActionError, match="one roll for each"):
        G.apply(s, RollOff((1, 2, 3, 4)))
    s = G.apply(s, RollOff((2, 6, 1)[: len(rolling)]))
    assert s.phase is Phase.TAKE and s.first == 1 and G.status(s).to_move == "ben"


def test_turns_go_round_from_the_first_player_and_level_one_allows_no_skill() -> None:
    s = setup(["ana", "ben", "cleo"], quarry=Quarry.full(3), board=DEFAULT_BOARD,
              cards=table([{}, {}]).cards, first="ben")  # fmt: skip
    order = []
    for _ in range(4):
        order.append(G.status(s).to_move)
        s = G.apply(s, G.legal_actions(s)[0])
        assert s.phase is Phase.PLACE
        s = G.apply(s, G.legal_actions(s)[0])
        assert s.phase is Phase.TAKE  # level 1: straight on to the next player
    assert order == ["ben", "cleo", "ana", "ben"]


def test_take_and_place_errors_name_the_position_and_the_reason() -> None:
    s = table([{}, {}])
    with pytest.raises(IllegalActionError, match=r"q0,0,0: only 2 visible faces.*; legal: take q2,0,0, take q2,0,3"):
        G.apply(s, Take((0, 0, 0)))
    with pytest.raises(IllegalActionError, match="has no reserve"):
        G.apply(s, UseReserve())
    with pytest.raises(IllegalActionError, match="must take"):
        G.apply(s, Place((1, 0)))
    s = G.apply(s, G.legal_actions(s)[0])
    assert G.legal_actions(s) == [Place((1, i)) for i in range(6)]
    with pytest.raises(IllegalActionError, match=r"2,0 needs dice under it at 1,0 and 1,1; legal: place 1,0"):
        G.apply(s, Place((2, 0)))
    with pytest.raises(IllegalActionError, match="not a slot"):
        G.apply(s, Place((0, 3)))


# --- skills ----------------------------------------------------------------------------------------


def test_rulebook_skill_example_a3_turns_a_two_into_a_five() -> None:
    """Placed on level 3 (A3), the player turns a level-1 die 2 -> 5 and so meets C6 on level 1."""
    level1 = {(1, i): Die(v, "white") for i, v in enumerate([3, 5, 5, 3, 2, 5])}
    mine = level1 | {(2, 0): Die(1, "gray"), (2, 1): Die(1, "gray")}
    s = table([mine, filler(8)], phase=Phase.PLACE, hand=Die(6, "gray"))
    assert level_results(s, s.mover)[1] == "impossible"
    s = G.apply(s, Place((3, 0)))
    assert s.phase is Phase.SKILL
    s = G.apply(s, Skill("A3", (1, 4)))
    ana = s.player("ana")
    assert ana.pyramid[(1, 4)] == Die(5, "white")
    assert level_results(s, ana)[1] == "met"
    assert G.score(s).players["ana"].breakdown["level 1 C6"] == 5
    assert s.phase is Phase.TAKE and s.turn == 1  # one skill per turn, then the next player


def test_a_skill_never_targets_the_die_just_placed_and_only_once() -> None:
    s = skill_state("A3")
    assert all(a.target != (3, 0) for a in G.legal_actions(s) if isinstance(a, Skill))
    with pytest.raises(IllegalActionError, match="3,0: that is the die just placed"):
        G.apply(s, Skill("A3", (3, 0)))
    with pytest.raises(IllegalActionError, match="no die there"):
        G.apply(s, Skill("A3", (2, 4)))
    with pytest.raises(IllegalActionError, match="whose skill allows A3"):
        G.apply(s, Skill("A6", (1, 0), value=3))
    after = G.apply(s, Skill("A3", (1, 0)))
    with pytest.raises(IllegalActionError, match="ben must take"):
        G.apply(after, Skill("A3", (1, 1)))
    passed = G.apply(s, Pass())
    assert passed.phase is Phase.TAKE and passed.player("ana").pyramid == s.player("ana").pyramid


def test_a2_reroll_waits_for_chance_or_takes_the_observed_value() -> None:
    s = skill_state("A2")
    assert G.legal_actions(s)[:2] == [Skill("A2", (1, 0)), Skill("A2", (1, 1))]
    waiting = G.apply(s, Skill("A2", (1, 1)))
    st = G.status(waiting)
    assert (st.phase, st.awaiting, st.to_move) == ("roll", "chance", "ana")
    assert G.legal_actions(waiting) == []
    assert isinstance(G.random_chance(waiting, random.Random(1)), Roll)
    rolled = G.apply(waiting, Roll(6))
    assert rolled.player("ana").pyramid[(1, 1)] == Die(6, "gray") and rolled.turn == 1
    direct = G.apply(s, Skill("A2", (1, 1), value=6))
    assert direct == rolled
    with pytest.raises(InvalidActionError, match=r"value 1\.\.6, got 0"):
        G.apply(s, Skill("A2", (1, 1), value=0))


def test_b2_copies_the_placed_value() -> None:
    before = skill_state("B2", hand=Die(6, "white"))
    s = G.apply(before, Skill("B2", (1, 0)))
    assert s.player("ana").pyramid[(1, 0)] == Die(6, before.player("ana").pyramid[(1, 0)].colour)
    with pytest.raises(IllegalActionError, match="placed die's value 6, not 2"):
        G.apply(skill_state("B2", hand=Die(6, "white")), Skill("B2", (1, 0), value=2))


def test_b3_reserve_holds_one_die_and_replaces_a_later_take() -> None:
    s = skill_state("B3")
    uses = [a for a in G.legal_actions(s) if isinstance(a, Skill)]
    assert [a.quarry for a in uses] == s.quarry.available()
    pos = uses[0].quarry
    assert pos is not None
    die = s.quarry.dice[pos]
    s = G.apply(s, uses[0])
    assert s.player("ana").reserve == die and pos not in s.quarry.dice
    # ben's turn, then ana may use the reserve instead of the quarry
    s = G.apply(s, G.legal_actions(s)[0])
    s = G.apply(s, G.legal_actions(s)[0])
    assert s.turn == 0 and UseReserve() in G.legal_actions(s)
    s = G.apply(s, UseReserve())
    assert s.hand == die and s.player("ana").reserve is None
    # a full reserve makes B3 unusable: the B3 level then offers no skill step at all
    full = skill_state("B3", reserve=Die(2, "orange"))
    assert full.phase is Phase.TAKE and full.turn == 1  # no skill step: ben to take


def test_b3_with_a_full_reserve_is_refused() -> None:
    s = skill_state("B6", skills=("A2", "B3", "A4", "A5", "B6"), reserve=Die(2, "orange"))  # B6 borrows B3
    assert s.phase is Phase.SKILL and not any(isinstance(a, Skill) and a.code == "B3" for a in G.legal_actions(s))
    with pytest.raises(IllegalActionError, match="reserve already holds orange:2"):
        G.apply(s, Skill("B3", quarry=s.quarry.available()[0]))


def test_a4_swaps_with_an_available_quarry_die_in_place() -> None:
    s = skill_state("A4")
    pos = s.quarry.available()[0]
    incoming, outgoing = s.quarry.dice[pos], s.player("ana").pyramid[(1, 2)]
    after = G.apply(s, Skill("A4", (1, 2), quarry=pos))
    assert after.player("ana").pyramid[(1, 2)] == incoming
    assert after.quarry.dice[pos] == outgoing and after.quarry.is_available(pos)
    assert set(after.quarry.dice) == set(s.quarry.dice)
    covered = next(p for p in s.quarry.dice if not s.quarry.is_available(p))
    with pytest.raises(IllegalActionError, match="visible faces"):
        G.apply(s, Skill("A4", (1, 2), quarry=covered))
    with pytest.raises(InvalidActionError, match="needs a quarry die"):
        G.apply(s, Skill("A4", (1, 2)))


def test_b4_moves_one_step_without_wrapping() -> None:
    s = skill_state("B4")
    ana = s.player("ana").pyramid
    one, six = (1, 0), (3, 0)
    assert ana[one].value == 1 and ana[six].value == 6
    uses = {(a.target, a.value) for a in G.legal_actions(s) if isinstance(a, Skill)}
    assert (one, 2) in uses and (one, 6) not in uses and (six, 5) in uses and (six, 1) not in uses
    assert len(uses) == sum(2 if 1 < d.value < 6 else 1 for slot, d in ana.items() if slot != (4, 0))
    with pytest.raises(IllegalActionError, match=r"\(1\) by 1, so to 2, not 6"):
        G.apply(s, Skill("B4", one, value=6))


def test_a5_swaps_two_other_dice() -> None:
    s = skill_state("A5")
    before = s.player("ana").pyramid
    after = G.apply(s, Skill("A5", (1, 0), (3, 1))).player("ana").pyramid
    assert after[(1, 0)] == before[(3, 1)] and after[(3, 1)] == before[(1, 0)]
    n = len(before) - 1
    assert sum(isinstance(a, Skill) for a in G.legal_actions(s)) == n * (n - 1) // 2
    with pytest.raises(IllegalActionError, match="two different dice"):
        G.apply(s, Skill("A5", (1, 0), (1, 0)))
    with pytest.raises(IllegalActionError, match="just placed"):
        G.apply(s, Skill("A5", (1, 0), (5, 0)))


def test_b5_copies_a_value_shown_by_an_available_quarry_die() -> None:
    s = skill_state("B5")
    shown = sorted({s.quarry.dice[p].value for p in s.quarry.available()})
    assert sorted({a.value for a in G.legal_actions(s) if isinstance(a, Skill)}) == shown
    missing = next(v for v in range(1, 7) if v not in shown)
    with pytest.raises(IllegalActionError, match=f"none shows {missing}"):
        G.apply(s, Skill("B5", (1, 0), value=missing))
    assert G.apply(s, Skill("B5", (1, 0), value=shown[0])).player("ana").pyramid[(1, 0)].value == shown[0]


def test_a6_and_b6_at_the_apex() -> None:
    s = skill_state("A6")
    assert sum(isinstance(a, Skill) for a in G.legal_actions(s)) == 20 * 6
    assert G.apply(s, Skill("A6", (2, 3), value=6)).player("ana").pyramid[(2, 3)].value == 6
    b6 = skill_state("B6")  # board below: A2 A3 A4 A5
    codes = Counter(a.code for a in G.legal_actions(b6) if isinstance(a, Skill))
    assert set(codes) == {"A2", "A3", "A4", "A5"}
    assert codes["A3"] == 20 and codes["A5"] == 190
    after = G.apply(b6, Skill("A3", (1, 2)))
    assert after.player("ana").pyramid[(1, 2)].value == 7 - b6.player("ana").pyramid[(1, 2)].value
    with pytest.raises(IllegalActionError, match="allows A2 or A3 or A4 or A5"):
        G.apply(b6, Skill("A6", (1, 2), value=1))
    with pytest.raises(InvalidActionError, match="no other"):
        G.apply(b6, Skill("A3", (1, 2), (1, 3)))


# --- end of game, scoring, tie-breaks ---------------------------------------------------------------


def _final(mine: dict[Slot, Die], theirs: dict[Slot, Die], board: Board = DEFAULT_BOARD) -> PyradiceState:
    return table([mine, theirs], board=board, phase=Phase.OVER)


def _rows(values: dict[int, list[int]], colours: dict[int, str]) -> dict[Slot, Die]:
    return {(k, i): Die(v, colours[k]) for k, row in values.items() for i, v in enumerate(row)}


def test_scoring_a_hand_built_final_pyramid() -> None:
    # tokens C6 D2 C3 D4 C5 on levels 1-5; cards Many white, Height gray, Pairs maroon, Big orange
    ana = _rows(
        {1: [3, 5, 5, 3, 3, 5], 2: [4, 4, 4, 4, 4], 3: [6, 5, 4, 2], 4: [1, 2, 3], 5: [1, 3], 6: [6]},
        {1: "white", 2: "gray", 3: "maroon", 4: "orange", 5: "orange", 6: "white"},
    )
    ben = _rows(
        {k: [2] * (7 - k) for k in range(1, 7)},
        {1: "maroon", 2: "orange", 3: "gray", 4: "white", 5: "gray", 6: "maroon"},
    )
    scores = G.score(_final(ana, ben)).players
    assert scores["ana"].breakdown == {
        "level 1 C6": 5, "level 2 D2": 5, "level 3 C3": 0, "level 4 D4": 5, "level 5 C5": 5,
        "card Many (white)": 14,  # 6 on level 1 + the apex = 7 dice
        "card Height (gray)": 5,  # five gray dice on level 2
        "card Pairs (maroon)": 0,  # four maroon dice in one row: a group of 4
        "card Big (orange)": 0,  # orange 1 2 3 1 3
    }  # fmt: skip
    assert scores["ana"].total == 39
    assert scores["ben"].breakdown == {
        "level 1 C6": 0, "level 2 D2": 5, "level 3 C3": 0, "level 4 D4": 0, "level 5 C5": 0,
        "card Many (white)": 3, "card Height (gray)": 4 * 2 + 2 * 3, "card Pairs (maroon)": 0, "card Big (orange)": 0,
    }  # fmt: skip
    st = G.status(_final(ana, ben))
    assert st.finished and st.awaiting == "nothing" and st.winners == ("ana",)


def _balanced(value: int = 1) -> dict[Slot, Die]:
    colours = ("white", "gray", "maroon", "orange")
    return {s: Die(value, colours[n % 4]) for n, s in enumerate(SLOTS)}


def test_ties_go_to_more_tokens_met_then_are_shared() -> None:
    board = Board(DEFAULT_BOARD.skills, ("D2", "D1", "C3", "D4", "C5"))  # all-ones meets D2, D1 and C5
    same = _final(_balanced(), _balanced(), board)
    assert G.score(same).totals()["ana"] == G.score(same).totals()["ben"]
    assert G.status(same).winners == ("ana", "ben")
    ben = _balanced()
    ben[(3, 0)], ben[(4, 0)] = Die(6, "orange"), Die(5, "orange")  # Big (orange) +3 +2, no token changes
    ben[(5, 0)] = Die(2, "maroon")  # level 5 no longer all odd: C5 lost, -5
    s = _final(_balanced(), ben, board)
    totals = G.score(s).totals()
    assert totals["ana"] == totals["ben"]
    assert G.score(s).players["ben"].breakdown["card Big (orange)"] == 5
    assert G.status(s).winners == ("ana",)


def test_the_game_ends_when_every_pyramid_is_full() -> None:
    playout = play(G, ["ana", "ben", "cleo", "dan"], seed=9)
    final = playout.final
    assert G.status(final).finished and final.phase is Phase.OVER
    assert all(len(p.pyramid) == 21 for p in final.players)
    before = next(s for s in reversed(playout.states) if not G.status(s).finished)
    assert before.turn == (final.first - 1) % 4  # the last turn is the last seat's in the round
    with pytest.raises(IllegalActionError, match="game is over"):
        G.apply(final, Pass())


# --- JSON, text, defects ---------------------------------------------------------------------------


def test_states_and_actions_round_trip_through_json_and_text() -> None:
    playout = play(G, ["ana", "ben"], seed=21)
    for action in playout.actions:
        text = G.action_to_json(action)
        assert G.action_from_json(text) == action
        assert G.parse_action(str(action)) == action
    for state in playout.states[::7]:
        back = G.state_from_json(G.state_to_json(state))
        assert back == state and G.score(back) == G.score(state)
        assert G.state_to_json(back) == G.state_to_json(state)


@pytest.mark.parametrize(
    ("text", "needle"),
    [("", "empty"), ("take 2,0", "quarry position"), ("place x", "pyramid slot"), ("B6 1,0", "not a Pyradice"),
     ("A6 1,0 =x", "not a value"), ("A5 1,0 1,1 1,2", "at most two"), ("dance", "'dance'")],
)  # fmt: skip
def test_bad_action_text_is_named(text: str, needle: str) -> None:
    with pytest.raises(InvalidActionError, match=needle):
        G.parse_action(text)


def test_defects_of_a_camera_state_are_reported_not_raised() -> None:
    good = table([filler(3), filler(3)])
    assert G.status(good).defects == ()
    floating = dict(good.players[0].pyramid)
    floating[(2, 0)] = floating.pop((1, 1))
    bad = replace(good, players=(PlayerState("ana", floating), good.players[1]))
    assert G.status(bad).defects == ("ana's die at 2,0 floats: nothing under it at 1,1",)
    assert G.legal_actions(bad) == []
    with pytest.raises(InvalidStateError, match="floats"):
        G.apply(bad, Take((2, 0, 0)))
    with pytest.raises(InvalidStateError, match="floats"):
        G.check_state(bad)

    white = {s: Die(1, "white") for s in SLOTS[:13]}
    crowded = replace(good, players=(PlayerState("ana", white), good.players[1]))
    assert any(re.fullmatch(r"\d+ white dice on the table; one box has 12", d) for d in G.status(crowded).defects)

    odd = replace(good, players=(good.players[0], PlayerState("ben", filler(5))))
    assert "ben has 5 dice but 3 are expected when it is ana's turn to take (first player ana)" in G.status(odd).defects

    boards = replace(good, board=Board(("A3", "A3", "A4", "A5", "A6"), ("C1", "D1", "C2", "D4", "X")))
    found = " | ".join(G.status(boards).defects)
    assert "skill token 'A3' cannot lie on level 2" in found and "'X'" in found and "number twice" in found

    cards = replace(good, cards=(Card("Many", "white"), Card("Many", "pink")))
    found = " | ".join(G.status(cards).defects)
    assert "4 objective cards" in found and "repeat" in found and "'pink'" in found


def test_a_state_read_from_json_is_checked_once_and_cached() -> None:
    s = table([filler(2), filler(2)])
    back = G.state_from_json(G.state_to_json(s))
    assert "_defects" not in back.__dict__
    assert G.status(back).defects == ()
    assert back.__dict__["_defects"] == ()


# --- random games ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "games", "options"),
    [(2, 800, {}), (2, 100, {"peak": "palindrome", "first_tie": "reroll_all"}), (3, 60, {}), (4, 60, {})],
)
def test_invariants_over_seeded_random_games(players: int, games: int, options: dict[str, str]) -> None:
    names = ["ana", "ben", "cleo", "dan"][:players]
    total_dice = 47 if players == 2 else 92
    for seed in range(games):
        playout = play(G, names, seed, options=options)
        for state in playout.states[1::5]:
            on_table = len(state.quarry.dice) + sum(len(p.pyramid) + (p.reserve is not None) for p in state.players)
            assert on_table + (state.hand is not None) == total_dice
            dice = state.quarry.dice
            for pos in state.quarry.available():
                assert not any(c in dice for c in state.quarry.geometry.covers[pos])
        final = playout.final
        assert all(len(p.pyramid) == 21 for p in final.players)
        assert G.defects(final) == []
        back = G.state_from_json(G.state_to_json(final))
        assert G.score(back) == G.score(final) and G.status(back) == G.status(final)


def test_the_peak_option_changes_the_d3_score() -> None:
    board = Board(DEFAULT_BOARD.skills, ("D3", "C2", "C7", "D4", "C5"))
    ana = _balanced()
    for i, v in enumerate([1, 2, 3, 4, 5, 6]):  # rises only: a peak at the right end, not a palindrome
        ana[(1, i)] = Die(v, ana[(1, i)].colour)
    unimodal = table([ana, _balanced()], board=board, phase=Phase.OVER)
    palindrome = table([ana, _balanced()], board=board, phase=Phase.OVER, options={"peak": "palindrome"})
    assert G.score(unimodal).players["ana"].breakdown["level 1 D3"] == 5
    assert G.score(palindrome).players["ana"].breakdown["level 1 D3"] == 0
    assert level_results(palindrome, palindrome.players[0])[1] == "impossible"


def test_setup_from_what_the_camera_saw() -> None:
    seen = {pos: Die(6 if pos[0] == 2 else 3, die.colour) for pos, die in Quarry.full(2).dice.items()}
    quarry = Quarry.from_layout(2, seen)
    s = setup(["ana", "ben"], quarry=quarry, board=DEFAULT_BOARD, cards=table([{}, {}]).cards, first="ben")
    assert G.status(s).to_move == "ben" and G.legal_actions(s) == [Take((2, 0, 0)), Take((2, 0, 3)),
                                                                   Take((2, 1, 0)), Take((2, 1, 3))]  # fmt: skip
    with pytest.raises(InvalidActionError, match=r"\(3, 0, 0\) is not on the 2-player board"):
        Quarry.from_layout(2, {(3, 0, 0): Die(1, "white")})
    too_many = {pos: Die(1, "white") for pos in Quarry.full(2).dice}
    with pytest.raises(InvalidStateError, match="47 white dice on the table; one box has 12"):
        setup(["ana", "ben"], quarry=Quarry.from_layout(2, too_many), board=DEFAULT_BOARD, cards=s.cards)
    with pytest.raises(InvalidActionError, match="'cleo' is not one of"):
        setup(["ana", "ben"], quarry=quarry, board=DEFAULT_BOARD, cards=s.cards, first="cleo")
