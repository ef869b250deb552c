"""Pyradice rules that stand alone: quarry availability, objective tokens and objective cards.

Checked against the rulebook's examples, RULES.md's derivations, independent re-implementations written
differently from the engine, and closed-form counts over every level of every size.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalActionError, InvalidActionError
from engine.dice import Die
from engine.pyradice import Quarry, card_score, objective_met
from engine.pyradice.cards import CARDS, CountCard, ObjectiveCard, card_from_data, groups, register_card
from engine.pyradice.objectives import TOKENS, outlook, solutions
from engine.pyradice.pyramid import NEIGHBOURS, SLOTS, legal_slots, slot_problem
from engine.pyradice.quarry import geometry

# --- quarry ----------------------------------------------------------------------------------------


def test_quarry_sizes_follow_the_rulebook() -> None:
    assert len(Quarry.full(2).dice) == 24 + 15 + 8
    for players in (3, 4):
        assert len(Quarry.full(players).dice) == 44 + 30 + 18
    with pytest.raises(InvalidActionError, match="2 to 4 players"):
        Quarry.full(5)


@pytest.mark.parametrize(("players", "corners"), [(2, 3), (3, 8), (4, 8)])
def test_only_the_four_top_corners_are_available_at_the_start(players: int, corners: int) -> None:
    """Rulebook: "At the start of the game, the 1st player has only 4 choices"."""
    assert Quarry.full(players).available() == [(2, 0, 0), (2, 0, corners), (2, 1, 0), (2, 1, corners)]


def test_rules_availability_example_after_taking_a_corner() -> None:
    q = Quarry.full(2).remove((2, 0, 0))
    assert q.available() == [(1, 0, 0), (2, 0, 1), (2, 0, 3), (2, 1, 0), (2, 1, 3)]
    assert (2, 0, 0) not in q.dice and len(q.dice) == 46
    assert len(Quarry.full(2).dice) == 47  # remove returned a new quarry


def _naive_visible(dice: set[tuple[int, int, int]], pos: tuple[int, int, int]) -> int:
    """Visible faces straight from the rule text, written independently of the engine."""
    layer, r, c = pos
    top_covered = any((layer + 1, r - dr, c - dc) in dice for dr in (0, 1) for dc in (0, 1))
    sides = sum((layer, r + dr, c + dc) not in dice for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    return sides + (0 if top_covered else 1)


@pytest.mark.parametrize(("players", "runs"), [(2, 200), (3, 50)])
def test_random_removals_keep_the_quarry_invariants(players: int, runs: int) -> None:
    """RULES.md 1.2: a covered die is never available, no die loses support, availability never jams."""
    rng = random.Random(players)
    geo = geometry(1 if players == 2 else 2)
    for run in range(runs):
        q = Quarry.full(players)
        while q.dice:
            present = set(q.dice)
            avail = q.available()
            assert avail, "the quarry jammed"
            assert avail == [p for p in geo.positions if p in present and _naive_visible(present, p) >= 3]
            for p in avail:
                assert not any(c in present for c in geo.covers[p]), f"{p} is covered but available"
            assert all(s in present for p in present for s in geo.supports[p]), "a die lost its support"
            # adversarial runs always take from the bottom-most available layer, others at random
            pick = min(avail) if run % 3 == 0 else rng.choice(avail)
            q = q.remove(pick)


@pytest.mark.parametrize("players", [2, 3])
def test_availability_of_any_camera_quarry_follows_the_rule(players: int) -> None:
    """Quarries in shapes no game reaches (floating dice, holes) are still judged by the >= 3 faces rule,
    both from scratch and after a removal."""
    rng = random.Random(10 + players)
    geo = geometry(1 if players == 2 else 2)
    full = Quarry.full(players).dice
    for _ in range(300):
        dice = {p: d for p, d in full.items() if rng.random() < 0.6}
        q = Quarry.from_layout(players, dice)
        expected = [p for p in geo.positions if p in dice and _naive_visible(set(dice), p) >= 3]
        assert q.available() == expected
        assert all(q.visible_faces(p) == _naive_visible(set(dice), p) for p in dice)
        if expected:
            pick = rng.choice(expected)
            rest = set(dice) - {pick}
            after = [p for p in geo.positions if p in rest and _naive_visible(rest, p) >= 3]
            assert q.remove(pick).available() == after


def test_taking_an_unavailable_die_names_the_position_and_reason() -> None:
    q = Quarry.full(2)
    with pytest.raises(IllegalActionError, match=r"q0,0,0: only 2 visible faces"):
        q.remove((0, 0, 0))
    with pytest.raises(IllegalActionError, match="not a position"):
        q.remove((3, 0, 0))
    with pytest.raises(IllegalActionError, match="empty"):
        q.remove((2, 0, 0)).remove((2, 0, 0))


def test_random_quarry_draws_from_the_box() -> None:
    a, b = Quarry.random(2, random.Random(5)), Quarry.random(2, random.Random(5))
    assert a == b and len(a.dice) == 47
    assert max(Counter(d.colour for d in a.dice.values()).values()) <= 12
    big = Quarry.random(4, random.Random(5))
    assert len(big.dice) == 92 and max(Counter(d.colour for d in big.dice.values()).values()) <= 24
    assert not a.defects()


def test_floating_quarry_die_is_a_defect() -> None:
    dice = dict(Quarry.full(2).dice)
    del dice[(0, 1, 1)]
    assert Quarry(1, dice).defects() == [
        "quarry die at q1,0,0 floats: nothing under it at q0,1,1",
        "quarry die at q1,0,1 floats: nothing under it at q0,1,1",
        "quarry die at q1,1,0 floats: nothing under it at q0,1,1",
        "quarry die at q1,1,1 floats: nothing under it at q0,1,1",
    ]


# --- pyramid ---------------------------------------------------------------------------------------


def test_pyramid_shape_and_slots() -> None:
    assert len(SLOTS) == 21
    assert [sum(1 for s in SLOTS if s[0] == k) for k in range(1, 7)] == [6, 5, 4, 3, 2, 1]
    assert legal_slots({}) == [(1, i) for i in range(6)]
    two = {(1, 0): Die(1), (1, 1): Die(2), (1, 3): Die(3)}
    assert legal_slots(two) == [(1, 2), (1, 4), (1, 5), (2, 0)]
    assert slot_problem(two, (2, 1)) == "slot 2,1 needs dice under it at 1,2"
    assert slot_problem(two, (1, 0)) == "slot 1,0 already holds a die"
    assert "not a slot" in str(slot_problem(two, (7, 0)))


def test_brick_adjacency_has_up_to_six_neighbours() -> None:
    assert set(NEIGHBOURS[(2, 1)]) == {(2, 0), (2, 2), (1, 1), (1, 2), (3, 0), (3, 1)}
    assert set(NEIGHBOURS[(1, 0)]) == {(1, 1), (2, 0)}
    assert set(NEIGHBOURS[(6, 0)]) == {(5, 0), (5, 1)}
    for s, ns in NEIGHBOURS.items():
        assert all(s in NEIGHBOURS[n] for n in ns), "adjacency must be symmetric"


# --- objective tokens ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "values"),
    [
        ("D6", [1, 2, 3, 2, 3, 4]),  # the reference sheet's example
        ("D3", [1, 4, 5, 5, 4, 1]),
        ("D3", [3, 4, 6, 4, 3]),
        ("D3", [2, 2]),
        ("C6", [3, 5, 5, 3, 5, 5]),
        ("C7", [2, 3, 4, 5]),
        ("C3", [6, 5, 4]),
        ("D5", [3, 4]),
        ("D5", [2, 1, 1, 1, 1, 1]),
        ("D7", [4, 6, 6]),
        ("C1", [2, 4, 6, 2]),
        ("D1", [1, 2, 2, 1, 1]),
        ("C2", [1, 2, 3, 3]),
        ("D2", [4, 4, 4]),
        ("C4", [4, 5, 6]),
        ("D4", [1, 6, 2, 5, 3, 4]),
        ("C5", [1, 3, 5, 5, 1]),
    ],
)
def test_reference_sheet_examples_meet_their_tokens(token: str, values: list[int]) -> None:
    assert objective_met(token, values)
    assert objective_met(token, values, peak="palindrome") or (token == "D3" and values != values[::-1])


@pytest.mark.parametrize(
    ("token", "values"),
    [
        ("D6", [1, 2, 3, 3]),
        ("D3", [3, 1, 3]),
        ("C7", [2, 3, 5]),
        ("C7", [4, 3, 2]),
        ("C3", [2, 3, 4]),
        ("D5", [3, 5]),
        ("C6", [3, 4]),
        ("D4", [1, 2, 1]),
        ("D2", [1, 2]),
    ],
)
def test_near_misses_do_not_meet_their_tokens(token: str, values: list[int]) -> None:
    assert not objective_met(token, values)


def test_peak_readings_differ_only_on_asymmetric_peaks() -> None:
    assert objective_met("D3", [1, 2, 3])
    assert not objective_met("D3", [1, 2, 3], peak="palindrome")
    assert objective_met("D3", [1, 3, 6, 3, 1], peak="palindrome")
    assert not objective_met("D3", [1, 3, 6, 2, 1], peak="palindrome")
    with pytest.raises(InvalidActionError, match="'steep'"):
        objective_met("D3", [1], peak="steep")


def _no_valley(d: tuple[int, ...]) -> bool:
    return not any(d[i] > d[j] < d[k] for i, j, k in itertools.combinations(range(len(d)), 3))


def _walks(n: int) -> int:
    counts = [1] * 6
    for _ in range(n - 1):
        counts = [(counts[v - 1] if v > 0 else 0) + (counts[v + 1] if v < 5 else 0) for v in range(6)]
    return sum(counts)


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6])
def test_every_token_against_every_level_size_exhaustively(size: int) -> None:
    """Closed-form counts of satisfying levels, plus an independent D3 reading, over all 6**size levels."""
    expected = {
        "C1": 3**size, "D1": 2**size, "C2": 3**size, "D2": 6, "C3": 7 - size,
        "C4": 3**size, "D4": math.perm(6, size), "C5": 3**size, "D5": math.comb(6, size - 1) if size > 1 else 0,
        "C6": 2**size, "D6": _walks(size), "C7": 7 - size, "D7": 2**size,
    }  # fmt: skip
    for token, count in expected.items():
        assert len(solutions(token, size)) == count, token
    every = list(itertools.product(range(1, 7), repeat=size))
    peaks = {d for d in every if _no_valley(d)}
    assert set(solutions("D3", size)) == peaks
    assert set(solutions("D3", size, "palindrome")) == {d for d in peaks if d == d[::-1]}
    # the two descending/ascending tokens are mirror images of each other
    assert {d[::-1] for d in solutions("C3", size)} == set(solutions("C7", size))


def test_objective_met_rejects_bad_input() -> None:
    with pytest.raises(InvalidActionError, match="'E1'"):
        objective_met("E1", [1])
    with pytest.raises(InvalidActionError, match="7"):
        objective_met("C1", [2, 7])
    assert set(TOKENS) == {f"{side}{n}" for side in "CD" for n in range(1, 8)}


def test_outlook_says_whether_a_part_built_level_can_still_be_met() -> None:
    assert outlook("C7", [1, None, None]) == "possible"
    assert outlook("C7", [1, 3, None]) == "impossible"
    assert outlook("D5", [2, None, None, None, None, None]) == "possible"
    assert outlook("D5", [3, None, None, None, None, None]) == "impossible"
    assert outlook("C6", [3, 5]) == "met"
    assert outlook("C6", [3, 4]) == "impossible"
    assert outlook("D3", [1, 3, None], peak="palindrome") == "possible"
    assert outlook("D3", [1, 3, 2, None], peak="palindrome") == "impossible"


# --- objective cards -------------------------------------------------------------------------------


def _dice(*entries: tuple[tuple[int, int], str, int]) -> dict[tuple[int, int], tuple[str, int]]:
    return {slot: (colour, value) for slot, colour, value in entries}


def test_many_scoring_table() -> None:
    """Rulebook table: 1, 2 -> 0; 3 -> 3; 4 -> 4; 5 -> 7; 6 -> 10; 7 -> 14; more than 7: +3 per die."""
    table = {0: 0, 1: 0, 2: 0, 3: 3, 4: 4, 5: 7, 6: 10, 7: 14, 8: 17, 9: 20, 21: 56}
    for n, points in table.items():
        dice = {s: ("white", 1) for s in SLOTS[:n]} | {s: ("gray", 1) for s in SLOTS[n:]}
        assert card_score("many", dice, "white") == points, n


def test_height_scoring_table() -> None:
    per_level = {1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 6: 4}
    for level, points in per_level.items():
        assert card_score("Height", _dice(((level, 0), "maroon", 3)), "maroon") == points
    full = {s: ("maroon", 1) for s in SLOTS}
    assert card_score("height", full, "maroon") == 0 * 6 + 1 * 5 + 2 * 4 + 2 * 3 + 3 * 2 + 4
    assert card_score("height", full, "white") == 0


def test_big_scoring_table() -> None:
    dice = _dice(((1, 0), "orange", 6), ((1, 1), "orange", 5), ((1, 2), "orange", 4), ((1, 3), "orange", 3),
                 ((1, 4), "white", 6))  # fmt: skip
    assert card_score("big", dice, "orange") == 3 + 2 + 1
    assert card_score("big", dice, "white") == 3


def test_pairs_counts_isolated_groups_of_exactly_two() -> None:
    pair = _dice(((1, 0), "gray", 1), ((1, 1), "gray", 1))
    assert card_score("pairs", pair, "gray") == 4
    diagonal = _dice(((1, 1), "gray", 1), ((2, 0), "gray", 1))  # brick neighbours
    assert card_score("pairs", diagonal, "gray") == 4
    apart = _dice(((1, 2), "gray", 1), ((2, 0), "gray", 1))  # (2,0) rests on (1,0) and (1,1) only
    assert card_score("pairs", apart, "gray") == 0
    three = pair | _dice(((2, 0), "gray", 1))
    assert card_score("pairs", three, "gray") == 0
    two_pairs = pair | _dice(((1, 4), "gray", 2), ((1, 5), "gray", 2), ((1, 2), "white", 1))
    assert card_score("pairs", two_pairs, "gray") == 8
    assert sorted(len(g) for g in groups({(1, 0), (1, 1), (1, 3)})) == [1, 2]


def test_rulebook_example_card_figures_are_reachable() -> None:
    """The final-score example: Many 7 (5 dice), Height 9, Pairs 12 (3 pairs), Big 1."""
    many = {s: ("white", 1) for s in SLOTS[:5]}
    assert card_score("many", many, "white") == 7
    height = _dice(((6, 0), "gray", 1), ((5, 0), "gray", 1), ((4, 0), "gray", 1))
    assert card_score("height", height, "gray") == 9
    pairs = _dice(((1, 0), "maroon", 1), ((1, 1), "maroon", 1), ((1, 3), "maroon", 1), ((1, 4), "maroon", 1),
                  ((3, 0), "maroon", 1), ((3, 1), "maroon", 1))  # fmt: skip
    assert card_score("pairs", pairs, "maroon") == 12
    assert card_score("big", _dice(((1, 0), "orange", 4)), "orange") == 1


def test_card_score_rejects_bad_input() -> None:
    with pytest.raises(InvalidActionError, match=r"'lucky'.*known cards: Many, Height, Pairs, Big"):
        card_score("lucky", {}, "white")
    with pytest.raises(InvalidActionError, match="'purple'"):
        card_score("many", {}, "purple")
    with pytest.raises(InvalidActionError, match="value 7"):
        card_score("many", {(1, 0): ("white", 7)}, "white")
    with pytest.raises(InvalidActionError, match=r"\(0, 0\)"):
        card_score("many", {(0, 0): ("white", 1)}, "white")


def test_cards_plug_in_as_data_or_as_a_class() -> None:
    class Corners(ObjectiveCard):
        title = "Corners (test)"

        def score(self, dice: dict[tuple[int, int], tuple[str, int]], colour: str) -> int:  # type: ignore[override]
            return 5 * sum(1 for s in ((1, 0), (1, 5), (6, 0)) if dice.get(s, ("", 0))[0] == colour)

    try:
        register_card(Corners())
        register_card(card_from_data({"title": "Few (test)", "kind": "count", "points": {"1": 5, "2": 2}}))
        assert card_score("corners (test)", _dice(((1, 0), "white", 3), ((6, 0), "white", 1)), "white") == 10
        assert card_score("few (test)", _dice(((1, 0), "white", 3)), "white") == 5
        assert isinstance(CARDS["few (test)"], CountCard)
    finally:
        CARDS.pop("corners (test)", None)
        CARDS.pop("few (test)", None)
    with pytest.raises(InvalidActionError, match="'shape'"):
        card_from_data({"title": "x", "kind": "shape", "points": {}})


@settings(max_examples=200, deadline=None)
@given(
    token=st.sampled_from(TOKENS),
    level=st.lists(st.one_of(st.none(), st.integers(1, 6)), min_size=2, max_size=6).filter(
        lambda values: sum(v is None for v in values) <= 3
    ),
    peak=st.sampled_from(["unimodal", "palindrome"]),
)
def test_outlook_agrees_with_trying_every_completion(token: str, level: list[int | None], peak: str) -> None:
    empty = [i for i, v in enumerate(level) if v is None]
    met = []
    for fill in itertools.product(range(1, 7), repeat=len(empty)):
        values = list(level)
        for i, v in zip(empty, fill, strict=True):
            values[i] = v
        met.append(objective_met(token, [v for v in values if v is not None], peak=peak))
    expected = ("met" if met[0] else "impossible") if not empty else ("possible" if any(met) else "impossible")
    assert outlook(token, level, peak=peak) == expected
