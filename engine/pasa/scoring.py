"""Scoring of Paša-řada-pyramida: the nine categories, the three readings of Paša, and the valid entries.

Everything here is a pure function of six dice (RULES.md section 4). The offline scorekeeper's valid
entries are *computed* from the scoring function over every possible roll, never written as ranges,
because the rulebook's stated ranges disagree with its own Paša examples (RULES.md 4.3).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache

from engine.dice import check_face
from engine.errors import InvalidActionError

#: The nine categories in the rulebook's order ("levels" 1-9 are only labels: any order may be played).
CATEGORIES: tuple[str, ...] = ("ones", "twos", "threes", "fours", "fives", "sixes", "pasa", "rada", "pyramida")

#: The number categories and the face each one counts.
NUMBER_FACES: dict[str, int] = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}

#: Names shown to people (the rulebook's spelling).
TITLES: dict[str, str] = {
    "ones": "Ones",
    "twos": "Twos",
    "threes": "Threes",
    "fours": "Fours",
    "fives": "Fives",
    "sixes": "Sixes",
    "pasa": "Paša",
    "rada": "Řada",
    "pyramida": "Pyramida",
}

#: The readings of the Paša condition (RULES.md 4.3), default first.
#: even-pairs: every die even and every value an even count (2 2 4 4 6 6 = 24, 2 2 2 2 4 4 = 16);
#: distinct-pairs: three pairs of three different values, any parity (the published 12..30 validator);
#: strict-246: exactly 2 2 4 4 6 6.
RULES: tuple[str, ...] = ("even-pairs", "distinct-pairs", "strict-246")
DEFAULT_RULE = RULES[0]

#: Accepted spellings of category names (the rulebook writes Paša and Řada with diacritics).
_ALIASES: dict[str, str] = {"paša": "pasa", "řada": "rada", "pyramid": "pyramida"}

DICE_PER_ROLL = 6


def check_category(name: object) -> str:
    """The canonical category name for ``name`` (case-insensitive, diacritics allowed) or InvalidActionError."""
    if isinstance(name, str):
        key = name.strip().lower()
        key = _ALIASES.get(key, key)
        if key in CATEGORIES:
            return key
    raise InvalidActionError(f"unknown category {name!r}; categories: {', '.join(CATEGORIES)}")


def check_rule(rule: object) -> str:
    """Return ``rule`` if it is a Paša reading, else InvalidActionError listing them."""
    if rule not in RULES:
        raise InvalidActionError(f"unknown Paša rule {rule!r}; rules: {', '.join(RULES)}")
    assert isinstance(rule, str)
    return rule


def check_dice(dice: Iterable[object], what: str = "roll") -> tuple[int, ...]:
    """Six faces 1..6, sorted, or InvalidActionError saying what is wrong with them."""
    values = [check_face(v) for v in dice]
    if len(values) != DICE_PER_ROLL:
        shown = " ".join(str(v) for v in values) or "nothing"
        raise InvalidActionError(f"a {what} is six dice, got {len(values)} ({shown})")
    return tuple(sorted(values))


def pasa_holds(counts: Counter[int], rule: str = DEFAULT_RULE) -> bool:
    """Whether six dice with these face counts make a Paša under ``rule``."""
    if rule == "even-pairs":
        return all(face % 2 == 0 and n % 2 == 0 for face, n in counts.items())
    if rule == "distinct-pairs":
        return sorted(counts.values()) == [2, 2, 2]
    if rule == "strict-246":
        return counts == Counter({2: 2, 4: 2, 6: 2})
    raise InvalidActionError(f"unknown Paša rule {rule!r}; rules: {', '.join(RULES)}")


def _score_sorted(category: str, dice: tuple[int, ...], rule: str) -> int:
    counts = Counter(dice)
    if category in NUMBER_FACES:
        face = NUMBER_FACES[category]
        return face * counts[face]
    if category == "rada":
        return 21 if sorted(counts.values()) == [1] * 6 else 0
    if category == "pyramida":
        return sum(dice) if sorted(counts.values()) == [1, 2, 3] else 0
    return sum(dice) if pasa_holds(counts, rule) else 0


def score(category: str, dice: Sequence[int], rule: str = DEFAULT_RULE) -> int:
    """Points that six dice are worth in ``category`` under the Paša ``rule``.

    >>> score("fours", [4, 4, 4, 2, 6, 6])
    12
    >>> score("pyramida", [6, 6, 6, 4, 4, 5])
    31
    """
    return _score_sorted(check_category(category), check_dice(dice), check_rule(rule))


@cache
def all_rolls() -> tuple[tuple[int, ...], ...]:
    """The 462 distinct rolls of six dice as sorted tuples, in lexicographic order."""
    return tuple(itertools.combinations_with_replacement(range(1, 7), DICE_PER_ROLL))


@cache
def _valid(category: str, rule: str) -> tuple[int, ...]:
    return tuple(sorted({_score_sorted(category, d, rule) for d in all_rolls()}))


def valid_scores(category: str, rule: str = DEFAULT_RULE) -> list[int]:
    """Every score some roll gives in ``category`` (0 included), ascending: the offline validator."""
    return list(_valid(check_category(category), check_rule(rule)))


def check_entry(category: str, points: object, rule: str = DEFAULT_RULE) -> int:
    """Return ``points`` if some roll scores it in ``category``, else InvalidActionError listing the valid ones."""
    category = check_category(category)
    valid = _valid(category, check_rule(rule))
    if isinstance(points, bool) or not isinstance(points, int) or points not in valid:
        raise InvalidActionError(
            f"{points!r} is not a possible score in {TITLES[category]}"
            f"{' (Paša rule ' + rule + ')' if category == 'pasa' else ''}; "
            f"possible: {', '.join(map(str, valid))}"
        )
    return points


def max_total(rule: str = DEFAULT_RULE) -> int:
    """The highest total a whole sheet can reach under ``rule`` (209 only for distinct-pairs)."""
    return sum(max(_valid(c, check_rule(rule))) for c in CATEGORIES)
