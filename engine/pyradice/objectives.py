"""The 14 objective token sides (C1..D7): what each asks of one level's dice, and what can still be met.

A token on level k scores 5 VP when *all* dice of that complete level satisfy it (RULES.md 1.6); values
are read left to right as the owner sees them. D3 ("peak") has two readings (PY9): by default a
non-strict unimodal run (rises then falls, either part may be empty); the ``peak="palindrome"`` rule
option also requires the level to read the same both ways.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence

from engine.errors import InvalidActionError

TOKEN_POINTS = 5
PEAK_READINGS: tuple[str, ...] = ("unimodal", "palindrome")


def _steps(d: Sequence[int], step: int) -> bool:
    return all(b - a == step for a, b in itertools.pairwise(d))


def _unimodal(d: Sequence[int]) -> bool:
    i, n = 0, len(d)
    while i + 1 < n and d[i + 1] >= d[i]:
        i += 1
    while i + 1 < n and d[i + 1] <= d[i]:
        i += 1
    return i >= n - 1


_PREDICATES: dict[str, Callable[[Sequence[int]], bool]] = {
    "C1": lambda d: all(v % 2 == 0 for v in d),
    "D1": lambda d: all(v in (1, 2) for v in d),
    "C2": lambda d: all(v <= 3 for v in d),
    "D2": lambda d: len(set(d)) <= 1,
    "C3": lambda d: _steps(d, -1),
    "D3": _unimodal,
    "C4": lambda d: all(v >= 4 for v in d),
    "D4": lambda d: len(set(d)) == len(d),
    "C5": lambda d: all(v % 2 == 1 for v in d),
    "D5": lambda d: sum(d) == 7,
    "C6": lambda d: all(v in (3, 5) for v in d),
    "D6": lambda d: all(abs(b - a) == 1 for a, b in itertools.pairwise(d)),
    "C7": lambda d: _steps(d, 1),
    "D7": lambda d: all(v in (4, 6) for v in d),
}

#: Every token side, in reference-sheet order by number.
TOKENS: tuple[str, ...] = tuple(_PREDICATES)

#: The reference sheet's wording, for the page and for messages.
TOKEN_TEXT: dict[str, str] = {
    "C1": "all even",
    "D1": "all 1 and/or 2",
    "C2": "all 3 or less",
    "D2": "all equal",
    "C3": "consecutive, descending left to right",
    "D3": "a peak (rises then falls)",
    "C4": "all 4 or more",
    "D4": "all different",
    "C5": "all odd",
    "D5": "sum is 7",
    "C6": "all 3 and/or 5",
    "D6": "neighbours differ by exactly 1",
    "C7": "consecutive, ascending left to right",
    "D7": "all 4 and/or 6",
}


def check_token(token: str) -> str:
    if token not in _PREDICATES:
        raise InvalidActionError(f"objective token {token!r} is not one of {', '.join(TOKENS)}")
    return token


def objective_met(token: str, values: Sequence[int], *, peak: str = "unimodal") -> bool:
    """Whether one level's dice values (left to right) satisfy objective token ``token`` (e.g. "D3")."""
    pred = _PREDICATES[check_token(token)]
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise InvalidActionError(f"die value {v!r} in {list(values)!r} is not a face 1..6")
    if peak not in PEAK_READINGS:
        raise InvalidActionError(f"peak reading {peak!r} is not one of {', '.join(PEAK_READINGS)}")
    if token == "D3" and peak == "palindrome" and list(values) != list(values)[::-1]:
        return False
    return pred(values)


@functools.cache
def solutions(token: str, size: int, peak: str = "unimodal") -> tuple[tuple[int, ...], ...]:
    """Every tuple of ``size`` faces that meets ``token`` (exhaustive; at most 6**6 candidates)."""
    return tuple(
        d for d in itertools.product(range(1, 7), repeat=size) if objective_met(token, d, peak=peak)
    )


def outlook(token: str, values: Sequence[int | None], *, peak: str = "unimodal") -> str:
    """"met", "possible" or "impossible" for a level whose empty slots are None.

    "possible" means some values for the empty slots would meet the token with the placed dice as they
    are; skills may still change placed dice, which this does not assume.
    """
    if all(v is not None for v in values):
        return "met" if objective_met(token, [v for v in values if v is not None], peak=peak) else "impossible"
    fixed = [(i, v) for i, v in enumerate(values) if v is not None]
    for sol in solutions(token, len(values), peak):
        if all(sol[i] == v for i, v in fixed):
            return "possible"
    return "impossible"
