"""The optimal advisor against an independent brute force, closed forms, and seeded simulation."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

from engine import IllegalActionError, InvalidActionError, InvalidStateError
from engine.pasa import CATEGORIES, RULES, Choose, PasaGame, PasaState, Reroll, Stop, score
from engine.pasa.advisor import Advisor, get_advisor, simulate
from engine.simulate import play

GAME = PasaGame()

# --- an independent, differently structured brute force ---------------------------------------------
# Ordered rolls and ordered re-roll outcomes (6**n each, no multinomial coefficients), holds as subsets of
# dice *positions* (duplicates and all), memoised recursion over frozensets of used categories.

ORDERED = list(itertools.product(range(1, 7), repeat=6))


@cache
def _dice_space() -> tuple[list[tuple[int, ...]], dict[tuple[int, ...], int], np.ndarray]:
    rolls = sorted({tuple(sorted(r)) for r in ORDERED})
    index = {r: i for i, r in enumerate(rolls)}
    weight = np.zeros(len(rolls))
    for r in ORDERED:
        weight[index[tuple(sorted(r))]] += 1
    return rolls, index, weight / len(ORDERED)


@cache
def _results(keep: tuple[int, ...]) -> np.ndarray:
    """Index of the roll after every ordered outcome of throwing the dice not in ``keep``."""
    _, index, _ = _dice_space()
    throws = itertools.product(range(1, 7), repeat=6 - len(keep))
    return np.array([index[tuple(sorted(keep + t))] for t in throws])


@cache
def brute_turn(rule: str) -> list[np.ndarray]:
    """turn[r][roll, category]: expected score with r re-rolls left, each category played for itself."""
    rolls, _, _ = _dice_space()
    now = np.array([[score(c, r, rule) for c in CATEGORIES] for r in rolls], dtype=float)
    tables = [now]
    for _ in range(2):
        later = tables[-1]
        expect: dict[tuple[int, ...], np.ndarray] = {}
        table = np.empty_like(now)
        for i, roll in enumerate(rolls):
            best = now[i].copy()  # stop
            for positions in range(63):  # 63 = all six positions kept, which is stopping
                keep = tuple(roll[p] for p in range(6) if positions >> p & 1)
                if keep not in expect:
                    expect[keep] = later[_results(keep)].mean(axis=0)
                best = np.maximum(best, expect[keep])
            table[i] = best
        tables.append(table)
    return tables


def brute_ev(rule: str) -> Callable[[frozenset[str]], float]:
    first = brute_turn(rule)[2]
    _, _, weight = _dice_space()

    @cache
    def value(used: frozenset[str]) -> float:
        open_ = [i for i, c in enumerate(CATEGORIES) if c not in used]
        if not open_:
            return 0.0
        rest = np.array([value(used | {CATEGORIES[i]}) for i in open_])
        return float(weight @ (first[:, open_] + rest).max(axis=1))

    return value


@pytest.mark.parametrize("rule", RULES)
def test_optimal_ev_equals_the_brute_force(rule: str) -> None:
    advisor = Advisor(rule)
    value = brute_ev(rule)
    assert advisor.expected_total() == pytest.approx(value(frozenset()), rel=1e-12)
    rng = random.Random(rule)
    rolls, index, _ = _dice_space()
    turn = brute_turn(rule)
    for _ in range(40):
        used = frozenset(rng.sample(CATEGORIES, rng.randint(0, 8)))
        assert advisor.expected_total(used) == pytest.approx(value(used), rel=1e-12)
        dice = rng.choice(rolls)
        ranked = advisor.rank_categories(used, dice)
        assert sorted(c for c, _ in ranked) == sorted(c for c in CATEGORIES if c not in used)
        assert all(a[1] >= b[1] for a, b in itertools.pairwise(ranked))
        for c, v in ranked:
            assert v == pytest.approx(turn[2][index[dice], CATEGORIES.index(c)] + value(used | {c}), rel=1e-12)
        category = rng.choice([c for c in CATEGORIES if c not in used])
        for rolls_left in (0, 1, 2):
            holds = advisor.rank_holds(used, category, dice, rolls_left)
            best = turn[rolls_left][index[dice], CATEGORIES.index(category)] + value(used | {category})
            assert holds[0][1] == pytest.approx(best, rel=1e-12)
            assert all(a[1] >= b[1] for a, b in itertools.pairwise(holds))


def test_published_figures() -> None:
    # The figures in docs/pasa.md (4 decimals) for the three readings.
    assert [f"{get_advisor(r).expected_total():.4f}" for r in RULES] == ["101.5975", "106.3498", "100.2380"]


def test_one_number_category_left_has_a_closed_form() -> None:
    # Only Sixes open: keep every six, throw the rest; each die ends a six with probability 1 - (5/6)**3.
    advisor = get_advisor()
    for k, name in enumerate(CATEGORIES[:6], start=1):
        used = set(CATEGORIES) - {name}
        assert advisor.expected_total(used) == pytest.approx(6 * k * (1 - (5 / 6) ** 3), rel=1e-12)
    assert advisor.expected_total(CATEGORIES) == 0.0
    # Only Řada open with 1 2 3 4 5 6 on the table: stop, 21 points, nothing else to come.
    holds = advisor.rank_holds(set(CATEGORIES) - {"rada"}, "rada", (6, 5, 4, 3, 2, 1), 2)
    assert holds[0] == ((1, 2, 3, 4, 5, 6), pytest.approx(21.0))


def test_rank_holds_lists_every_distinct_hold_once() -> None:
    advisor = get_advisor()
    holds = advisor.rank_holds([], "sixes", (1, 2, 3, 4, 6, 6), 2)
    keeps = [k for k, _ in holds]
    assert len(keeps) == len(set(keeps)) == 2 * 2 * 2 * 2 * 3
    assert holds[0][0] == (6, 6)  # keep the sixes, throw the rest
    assert ((1, 2, 3, 4, 6, 6), pytest.approx(12 + advisor.expected_total({"sixes"}))) in holds  # stop
    assert advisor.rank_holds([], "sixes", (1, 2, 3, 4, 6, 6), 0) == [
        ((1, 2, 3, 4, 6, 6), pytest.approx(12 + advisor.expected_total({"sixes"})))
    ]


@pytest.mark.parametrize(
    ("call", "error", "needle"),
    [
        (lambda a: a.rank_holds(["sixes"], "sixes", (6,) * 6, 2), IllegalActionError, "Sixes is already used"),
        (lambda a: a.rank_holds([], "sixes", (6,) * 6, 3), InvalidActionError, "re-rolls left 3 must be 0, 1 or 2"),
        (lambda a: a.rank_holds([], "sixes", (6,) * 5, 1), InvalidActionError, "six dice, got 5"),
        (lambda a: a.rank_categories(CATEGORIES, (6,) * 6), IllegalActionError, "the sheet is complete"),
        (lambda a: a.rank_categories(["chance"], (6,) * 6), InvalidActionError, "unknown category 'chance'"),
        (lambda a: a.rank_categories([], (6, 6, 6, 6, 6, 9)), InvalidActionError, "value 9"),
        (lambda a: Advisor("odd"), InvalidActionError, "unknown Paša rule 'odd'"),
        (lambda a: simulate(a, 10, 1, "lazy"), InvalidActionError, "unknown policy 'lazy'"),
        (lambda a: simulate(a, 0, 1), InvalidActionError, "at least 1"),
    ],
)
def test_bad_queries(call: Callable[[Advisor], object], error: type[Exception], needle: str) -> None:
    with pytest.raises(error) as err:
        call(get_advisor())
    assert needle in str(err.value)


# --- advice on game states ---------------------------------------------------------------------------


def _run(state: PasaState, *texts: str) -> PasaState:
    for text in texts:
        state = GAME.apply(state, GAME.parse_action(text, state))
    return state


def test_advise_every_phase_is_json() -> None:
    advisor = get_advisor()
    s = GAME.initial_state(["Ann", "Bob"])
    a = advisor.advise(s)
    assert a["phase"] == "roll" and a["expected_final"] == pytest.approx(advisor.expected_total())
    s = _run(s, "roll 1 2 3 4 6 6")
    a = json.loads(json.dumps(advisor.advise(s)))
    assert a["phase"] == "choose" and a["best"] == "choose sixes"
    assert a["categories"][0]["category"] == "sixes" and len(a["categories"]) == 9
    assert a["scores"]["sixes"] == 12 and a["scores"]["rada"] == 0
    assert advisor.best_action(s) == Choose("sixes")
    s = _run(s, "choose sixes")
    a = json.loads(json.dumps(advisor.advise(s)))
    assert a["best"] == "reroll keep 6 6" and a["category"] == "sixes" and a["rolls_left"] == 2
    assert a["holds"][0]["keep"] == [6, 6] and not a["holds"][0]["stop"]
    assert sum(h["stop"] for h in a["holds"]) == 1
    assert advisor.best_action(s) == Reroll((6, 6))
    s = _run(s, "reroll keep 6 6")
    assert advisor.advise(s)["keep"] == [6, 6]
    s = _run(s, "roll 6 6 6 6 6 6")
    assert advisor.best_action(s) == Stop() and advisor.advise(s)["best"] == "stop"
    s = _run(s, "stop", "enter ones 3")
    a = advisor.advise(s)
    assert a["player"] == "Ann" and a["sheet_total"] == 36
    assert a["expected_final"] == pytest.approx(36 + advisor.expected_total({"sixes"}))
    with pytest.raises(IllegalActionError, match="no decision is due"):
        advisor.best_action(s)
    with pytest.raises(InvalidActionError, match="advisor is for Paša rule even-pairs"):
        advisor.advise(GAME.initial_state(["Ann"], {"pasa": "strict-246"}))


# --- simulation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
def test_seeded_games_agree_with_the_exact_expectation(rule: str) -> None:
    advisor = get_advisor(rule)
    for policy, exact in (("optimal", advisor.expected_total()), ("greedy", advisor.greedy_expected_total())):
        totals = simulate(advisor, 4000, seed=7, policy=policy)
        se = totals.std(ddof=1) / math.sqrt(len(totals))
        assert abs(totals.mean() - exact) < 4 * se, (policy, totals.mean(), exact, se)
        assert np.array_equal(totals, simulate(advisor, 4000, seed=7, policy=policy))  # seeded
    assert advisor.expected_total() > advisor.greedy_expected_total() + 10


def test_engine_games_by_the_advisor_agree_with_the_expectation() -> None:
    advisor = get_advisor()
    totals = []
    for seed in range(40):
        final = play(GAME, ["Ann", "Bob", "Cy"], seed, policy=advisor.policy, keep_states=False).final
        assert GAME.status(final).finished
        totals += list(GAME.score(final).totals().values())
    mean = sum(totals) / len(totals)
    se = float(np.std(totals, ddof=1)) / math.sqrt(len(totals))
    assert abs(mean - advisor.expected_total()) < 4 * se


def test_greedy_policy_in_the_engine_and_defective_states() -> None:
    advisor = get_advisor()
    final = play(GAME, ["Ann"], 3, policy=advisor.greedy_policy, keep_states=False).final
    assert GAME.status(final).finished
    s = GAME.initial_state(["Ann"])
    s = _run(s, "roll 1 2 3 4 6 6")
    assert advisor.greedy_policy(s, [], None) == Choose(advisor.greedy_category(set(), s.dice))
    broken = PasaState(s.players, s.rule, {"Ann": {"twos": 5}}, dice=s.dice, rolls=1)
    with pytest.raises(InvalidStateError, match="impossible 5 in Twos"):
        advisor.advise(broken)
