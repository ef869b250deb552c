"""Paša-řada-pyramida scoring: the rulebook's examples, RULES.md 4.2/4.3, and a brute force over every ordered roll."""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import pytest

from engine.errors import InvalidActionError
from engine.pasa import CATEGORIES, RULES, check_entry, max_total, score, valid_scores

# --- the rulebook's own examples ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("category", "dice", "points"),
    [
        ("fours", (4, 4, 4, 2, 6, 6), 12),  # "in Fours = 12 (3x4)"
        ("sixes", (4, 4, 4, 2, 6, 6), 12),  # "in Sixes = 12 (2x6)"
        ("pasa", (2, 2, 4, 4, 6, 6), 24),  # classic Paša
        ("pasa", (2, 2, 2, 2, 4, 4), 16),  # two pairs of 2s + a pair of 4s
        ("pasa", (1, 2, 3, 4, 5, 6), 0),  # no three even pairs
        ("rada", (1, 2, 3, 4, 5, 6), 21),
        ("rada", (6, 5, 4, 3, 2, 1), 21),  # order on the table does not matter
        ("pyramida", (6, 6, 6, 4, 4, 5), 31),
        ("pyramida", (1, 1, 1, 2, 2, 3), 10),  # minimum pyramid
        ("pyramida", (6, 6, 6, 6, 4, 4), 0),  # quad + pair is no pyramid
        ("pyramida", (6, 6, 6, 5, 5, 4), 32),  # RULES.md 4.2 maximum
    ],
)
def test_rulebook_examples(category: str, dice: tuple[int, ...], points: int) -> None:
    assert score(category, dice) == points


def test_five_in_twos_is_refused_with_the_possible_values() -> None:
    # "If you enter an invalid value (e.g. 5 in Twos), the app warns you and won't save."
    with pytest.raises(InvalidActionError, match=r"5 is not a possible score in Twos; possible: 0, 2, 4, 6, 8, 10, 12"):
        check_entry("twos", 5)


@pytest.mark.parametrize(
    ("rule", "dice", "points"),
    [
        ("even-pairs", (2, 2, 2, 2, 2, 2), 12),
        ("even-pairs", (6, 6, 6, 6, 6, 6), 36),
        ("even-pairs", (1, 1, 3, 3, 5, 5), 0),
        ("distinct-pairs", (1, 1, 3, 3, 5, 5), 18),
        ("distinct-pairs", (2, 2, 2, 2, 4, 4), 0),  # the reading that loses the rulebook's 16 example
        ("distinct-pairs", (4, 4, 5, 5, 6, 6), 30),
        ("strict-246", (2, 2, 4, 4, 6, 6), 24),
        ("strict-246", (2, 2, 2, 2, 4, 4), 0),
    ],
)
def test_pasa_readings(rule: str, dice: tuple[int, ...], points: int) -> None:
    assert score("pasa", dice, rule) == points


def test_theoretical_maximum_per_reading() -> None:
    # RULES.md 4.3 point 3: 209 only under distinct-pairs.
    assert {r: max_total(r) for r in RULES} == {"even-pairs": 215, "distinct-pairs": 209, "strict-246": 203}


# --- RULES.md 4.2 / 4.3 tables --------------------------------------------------------------------

EXPECTED_VALID = {
    "ones": list(range(0, 7)),
    "twos": list(range(0, 13, 2)),
    "threes": list(range(0, 19, 3)),
    "fours": list(range(0, 25, 4)),
    "fives": list(range(0, 31, 5)),
    "sixes": list(range(0, 37, 6)),
    "rada": [0, 21],
    "pyramida": [0, *range(10, 33)],
}
EXPECTED_PASA = {
    "even-pairs": [0, 12, 16, 20, 24, 28, 32, 36],
    "distinct-pairs": [0, *range(12, 31, 2)],
    "strict-246": [0, 24],
}


@pytest.mark.parametrize("rule", RULES)
def test_valid_scores_match_the_rules_table(rule: str) -> None:
    for category in CATEGORIES:
        expected = EXPECTED_PASA[rule] if category == "pasa" else EXPECTED_VALID[category]
        assert valid_scores(category, rule) == expected, category


# --- an independent brute force over all 46,656 ordered rolls -------------------------------------


def _brute_scores(roll: tuple[int, ...]) -> dict[tuple[str, str], int]:
    """Scores written from the rule text again, directly on an ordered roll, for every category and rule."""
    total = sum(roll)
    pattern = sorted(roll.count(v) for v in set(roll))
    out: dict[tuple[str, str], int] = {}
    for rule in RULES:
        for k, name in enumerate(CATEGORIES[:6], start=1):
            out[name, rule] = sum(d for d in roll if d == k)
        out["rada", rule] = 21 if set(roll) == {1, 2, 3, 4, 5, 6} else 0
        out["pyramida", rule] = total if pattern == [1, 2, 3] else 0
    out["pasa", "even-pairs"] = total if all(d % 2 == 0 and roll.count(d) % 2 == 0 for d in roll) else 0
    out["pasa", "distinct-pairs"] = total if pattern == [2, 2, 2] else 0
    out["pasa", "strict-246"] = total if sorted(roll) == [2, 2, 4, 4, 6, 6] else 0
    return out


@cache
def _brute_force() -> tuple[dict[tuple[str, str], set[int]], Counter[tuple[str, str]]]:
    seen: dict[tuple[str, str], set[int]] = {}
    hits: Counter[tuple[str, str]] = Counter()
    for roll in itertools.product(range(1, 7), repeat=6):
        brute = _brute_scores(roll)
        for key, pts in brute.items():
            seen.setdefault(key, set()).add(pts)
            hits[key] += pts > 0
        if list(roll) == sorted(roll, reverse=True):  # each multiset once, in descending order, for the engine
            for (c, rule), pts in brute.items():
                assert score(c, roll, rule) == pts, (c, rule, roll)
    return seen, hits


def test_valid_scores_equal_the_brute_force_over_ordered_rolls() -> None:
    seen, _ = _brute_force()
    for (category, rule), values in seen.items():
        assert valid_scores(category, rule) == sorted(values), (category, rule)


def test_special_category_frequencies_from_rules_md() -> None:
    # RULES.md 4.2: P(Řada) = 720/46656, P(Pyramida) = 7200, Paša 183 / 1800 / 90 per reading.
    _, hits = _brute_force()
    assert hits["rada", "even-pairs"] == 720
    assert hits["pyramida", "even-pairs"] == 7200
    assert hits["pasa", "even-pairs"] == 183
    assert hits["pasa", "distinct-pairs"] == 1800
    assert hits["pasa", "strict-246"] == 90


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: score("fours", [4, 4, 4, 2, 6, 7]), "value 7 is not a face"),
        (lambda: score("fours", [4, 4, 4, 2, 6, 0]), "value 0 is not a face"),
        (lambda: score("fours", [4, 4, 4, 2, 6]), "six dice, got 5 (4 4 4 2 6)"),
        (lambda: score("fours", [4, 4, 4, 2, 6, 6, 6]), "six dice, got 7"),
        (lambda: score("fours", []), "six dice, got 0 (nothing)"),
        (lambda: score("fourz", [4, 4, 4, 2, 6, 6]), "unknown category 'fourz'"),
        (lambda: score("pasa", [2, 2, 4, 4, 6, 6], "odd-pairs"), "unknown Paša rule 'odd-pairs'"),
        (lambda: valid_scores("chance"), "unknown category 'chance'; categories: ones"),
        (lambda: valid_scores("pasa", "x"), "rules: even-pairs, distinct-pairs, strict-246"),
        (lambda: check_entry("pasa", 14), "possible: 0, 12, 16, 20, 24, 28, 32, 36"),
        (lambda: check_entry("rada", True), "True is not a possible score in Řada"),
        (lambda: check_entry("ones", -1), "possible: 0, 1, 2, 3, 4, 5, 6"),
    ],
)
def test_bad_input_is_named(call: object, needle: str) -> None:
    with pytest.raises(InvalidActionError) as err:
        call()  # type: ignore[operator]
    assert needle in str(err.value)


def test_category_spellings() -> None:
    assert score("Paša", [2, 2, 4, 4, 6, 6]) == 24
    assert score("ŘADA", [1, 2, 3, 4, 5, 6]) == 21
    assert check_entry("pasa", 14, "distinct-pairs") == 14
