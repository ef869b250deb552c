"""The exact optimal advisor for Paša-řada-pyramida: the strategy that maximises a player's expected total.

Dynamic programming, exact up to floating point. Two observations keep it small:

* The rest of the game after a turn depends only on the set of used categories, not on the dice, and the
  total is a plain sum (this game has no upper bonus). So once a category is chosen, playing the turn
  optimally means maximising the expected score *in that category* alone: the turn tables ``S[r][d, c]``
  (expected score in category ``c`` from dice ``d`` with ``r`` re-rolls left) do not depend on the sheet.
* The sheet value ``V[used]`` (expected points still to come, from the start of a turn with ``used``
  categories filled) over 2**9 bitmasks follows from ``V[used] = sum_d P(d) max_c (S[2][d, c] + V[used | c])``.

Dice are multisets: 462 six-dice rolls and 924 kept sub-multisets (0..6 dice). The transition from a kept
sub-multiset to the roll after throwing the rest is one dense 924 x 462 probability matrix, so each turn
table is one matrix product and a max over the <= 64 sub-multisets of each roll, vectorised with numpy.

Values reported are *expected points still to come* (this turn included, points already on the sheet
excluded); :meth:`Advisor.advise` also adds the sheet so far for the expected final total.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import IllegalActionError, InvalidActionError
from engine.pasa.game import MAX_ROLLS, Choose, PasaAction, PasaGame, PasaState, Reroll, Stop
from engine.pasa.scoring import CATEGORIES, DEFAULT_RULE, TITLES, _score_sorted, check_category, check_dice, check_rule

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

N_CAT = len(CATEGORIES)
FULL = (1 << N_CAT) - 1
REROLLS = MAX_ROLLS - 1  # re-rolls after roll 1
_POW7 = np.array([7**i for i in range(6)], dtype=np.int64)  # a multiset's counts as a base-7 code
POLICIES = ("optimal", "greedy")
_GAME = PasaGame()


def _code(counts: Sequence[int]) -> int:
    return int(np.dot(counts, _POW7))


def _counts(dice: Iterable[int]) -> list[int]:
    c = [0] * 6
    for d in dice:
        c[d - 1] += 1
    return c


@dataclass(frozen=True)
class _Tables:
    """Dice bookkeeping shared by every rule: indices, probabilities and the keep -> roll transition."""

    rolls: tuple[tuple[int, ...], ...]  # 462 sorted six-dice rolls
    keeps: tuple[tuple[int, ...], ...]  # 924 sorted kept sub-multisets, by size then lexicographic
    roll_index: dict[tuple[int, ...], int]
    keep_index: dict[tuple[int, ...], int]
    roll_prob: FloatArray  # (462,) probability of each roll from six fresh dice
    transition: FloatArray  # (924, 462) P(roll after throwing the rest | kept)
    subkeeps: IntArray  # (462, 64) keep indices of each roll's sub-multisets, keep-all first, padded with 924
    code_to_roll: IntArray  # (7**6,) base-7 count code -> roll index (-1 if not a six-dice roll)
    keep_code: IntArray  # (924,) base-7 code of each keep
    keep_size: IntArray  # (924,)
    keep_all: IntArray  # (462,) keep index of keeping every die of each roll


def _multinomial_prob(counts: Sequence[int]) -> float:
    n = sum(counts)
    return math.factorial(n) / math.prod(math.factorial(c) for c in counts) / 6**n


@lru_cache(maxsize=1)
def dice_tables() -> _Tables:
    rolls = tuple(itertools.combinations_with_replacement(range(1, 7), 6))
    keeps = tuple(k for n in range(7) for k in itertools.combinations_with_replacement(range(1, 7), n))
    roll_index = {r: i for i, r in enumerate(rolls)}
    keep_index = {k: i for i, k in enumerate(keeps)}
    code_to_roll = np.full(7**6, -1, dtype=np.int64)
    for i, r in enumerate(rolls):
        code_to_roll[_code(_counts(r))] = i
    keep_code = np.array([_code(_counts(k)) for k in keeps], dtype=np.int64)
    keep_size = np.array([len(k) for k in keeps], dtype=np.int64)
    # Outcomes of throwing n dice, as count codes with their multinomial probabilities.
    outcomes: dict[int, tuple[IntArray, FloatArray]] = {}
    for n in range(7):
        outs = [_counts(o) for o in itertools.combinations_with_replacement(range(1, 7), n)]
        outcomes[n] = (
            np.array([_code(c) for c in outs], dtype=np.int64),
            np.array([_multinomial_prob(c) for c in outs], dtype=np.float64),
        )
    transition = np.zeros((len(keeps), len(rolls)), dtype=np.float64)
    for ki in range(len(keeps)):
        codes, probs = outcomes[6 - int(keep_size[ki])]
        transition[ki, code_to_roll[keep_code[ki] + codes]] = probs  # counts add without carry (<= 6 each)
    roll_prob = np.array([_multinomial_prob(_counts(r)) for r in rolls], dtype=np.float64)
    # Sub-multisets by counts: keep k fits roll d when every face count of k is at most d's. Reversed keep
    # order puts keep-all first (ties then prefer stopping), then larger holds before smaller ones.
    keep_counts = np.array([_counts(k) for k in keeps], dtype=np.int64)
    roll_counts = np.array([_counts(r) for r in rolls], dtype=np.int64)
    fits = (keep_counts[None, :, :] <= roll_counts[:, None, :]).all(axis=2)  # (462, 924)
    subkeeps = np.full((len(rolls), 64), len(keeps), dtype=np.int64)
    for i in range(len(rolls)):
        subs = np.flatnonzero(fits[i])[::-1]
        subkeeps[i, : len(subs)] = subs
    keep_all = np.array([keep_index[r] for r in rolls], dtype=np.int64)
    return _Tables(
        rolls, keeps, roll_index, keep_index, roll_prob, transition, subkeeps, code_to_roll, keep_code, keep_size,
        keep_all,
    )  # fmt: skip


def _mask(used: Iterable[str]) -> int:
    m = 0
    for c in used:
        m |= 1 << CATEGORIES.index(check_category(c))
    return m


class Advisor:
    """Exact optimal play for one Paša rule. Build once (well under a second); queries are table look-ups.

    ``rolls_left`` everywhere means re-rolls still allowed this turn: 2 after roll 1, 0 after roll 3.
    """

    def __init__(self, rule: str = DEFAULT_RULE) -> None:
        self.rule = check_rule(rule)
        t = self.tables = dice_tables()
        n_rolls, n_keeps = len(t.rolls), len(t.keeps)
        self.scores = np.array(
            [[_score_sorted(c, r, self.rule) for c in CATEGORIES] for r in t.rolls], dtype=np.float64
        )  # (462, 9)
        # Turn tables. turn[r][d, c]: expected score in c from roll d with r re-rolls left, played optimally.
        # keep_value[r][k, c]: expected score in c after keeping k with r re-rolls left (r >= 1, this re-roll
        # included); keeping all six is stopping, worth the score now.
        self.turn: list[FloatArray] = [self.scores]
        self.keep_value: list[FloatArray] = [np.empty((0, N_CAT))]
        self.best_keep: list[IntArray] = [t.keep_all[:, None].repeat(N_CAT, axis=1)]
        for _ in range(REROLLS):
            kv = np.empty((n_keeps + 1, N_CAT), dtype=np.float64)
            kv[:n_keeps] = t.transition @ self.turn[-1]
            kv[t.keep_all] = self.scores
            kv[n_keeps] = -np.inf  # padding of subkeeps
            options = kv[t.subkeeps]  # (462, 64, 9)
            best = options.argmax(axis=1)  # first maximum: keep-all is first, so ties stop
            self.best_keep.append(t.subkeeps[np.arange(n_rolls)[:, None], best])  # (462, 9) keep indices
            self.turn.append(options.max(axis=1))
            self.keep_value.append(kv[:n_keeps])
        first = self.turn[REROLLS]  # (462, 9): expected score of a turn in c after roll 1
        # Sheet values over bitmasks of used categories (value[FULL] = 0: nothing left to score).
        bits = np.array([1 << c for c in range(N_CAT)], dtype=np.int64)
        self.value = np.zeros(FULL + 1, dtype=np.float64)
        # Masks with the same number of used categories do not depend on each other: one level at a time,
        # from 8 used down to none, each level in one vectorised step (categories on the middle axis, so
        # the max runs over contiguous rows of 462).
        first_t = np.ascontiguousarray(first.T)  # (9, 462)
        masks = np.arange(FULL + 1, dtype=np.int64)
        used_count = np.array([bin(m).count("1") for m in masks])
        self._levels = [masks[used_count == level] for level in range(N_CAT + 1)]
        for level in range(N_CAT - 1, -1, -1):
            ms = self._levels[level]
            after = np.where((ms[:, None] & bits) == 0, self.value[ms[:, None] | bits], -np.inf)  # (n, 9)
            self.value[ms] = (first_t[None, :, :] + after[:, :, None]).max(axis=1) @ t.roll_prob
        self._greedy_value: FloatArray | None = None

    @property
    def greedy_value(self) -> FloatArray:
        """Sheet values of the greedy player (best expected score this turn, blind to the rest of the sheet),
        computed on first use since advice never needs them."""
        if self._greedy_value is None:
            first_t = np.ascontiguousarray(self.turn[REROLLS].T)  # (9, 462)
            bits = np.array([1 << c for c in range(N_CAT)], dtype=np.int64)
            g = np.zeros(FULL + 1, dtype=np.float64)
            for level in range(N_CAT - 1, -1, -1):
                ms = self._levels[level]
                open_ = (ms[:, None] & bits) == 0
                pick = np.where(open_[:, :, None], first_t[None, :, :], -np.inf).argmax(axis=1)  # (n, 462)
                gain = first_t[pick, np.arange(first_t.shape[1])[None, :]] + g[ms[:, None] | bits[pick]]
                g[ms] = gain @ self.tables.roll_prob
            self._greedy_value = g
        return self._greedy_value

    # --- queries ----------------------------------------------------------------------------------
    def expected_total(self, used: Iterable[str] = frozenset()) -> float:
        """Expected points still to come from the start of a turn with ``used`` categories filled."""
        return float(self.value[_mask(used)])

    def greedy_expected_total(self, used: Iterable[str] = frozenset()) -> float:
        """The same for the greedy player (see :func:`simulate`)."""
        return float(self.greedy_value[_mask(used)])

    def _roll(self, dice: Sequence[int]) -> int:
        return self.tables.roll_index[check_dice(dice)]

    def rank_categories(self, used: Iterable[str], dice: Sequence[int]) -> list[tuple[str, float]]:
        """After roll 1: every open category with the expected points still to come if chosen now, best first."""
        m = _mask(used)
        if m == FULL:
            raise IllegalActionError("every category is used: the sheet is complete")
        d = self._roll(dice)
        ranked = [
            (c, float(self.turn[REROLLS][d, i] + self.value[m | 1 << i]))
            for i, c in enumerate(CATEGORIES)
            if not m & 1 << i
        ]
        return sorted(ranked, key=lambda cv: -cv[1])

    def rank_holds(
        self, used: Iterable[str], category: str, dice: Sequence[int], rolls_left: int
    ) -> list[tuple[tuple[int, ...], float]]:
        """Every distinct hold with the expected points still to come, best first; keeping all six is stopping."""
        m = _mask(used)
        ci = CATEGORIES.index(check_category(category))
        if m & 1 << ci:
            raise IllegalActionError(f"{TITLES[CATEGORIES[ci]]} is already used; it cannot be this turn's category")
        if rolls_left not in range(REROLLS + 1):
            raise InvalidActionError(f"re-rolls left {rolls_left!r} must be 0, 1 or 2")
        d = self._roll(dice)
        rest = float(self.value[m | 1 << ci])
        t = self.tables
        stop = float(self.scores[d, ci]) + rest
        if rolls_left == 0:
            return [(t.rolls[d], stop)]
        subs = t.subkeeps[d]
        subs = subs[subs < len(t.keeps)]
        values = (self.keep_value[rolls_left][subs, ci] + rest).tolist()
        ranked = [(t.keeps[k], v) for k, v in zip(subs.tolist(), values, strict=True)]
        return sorted(ranked, key=lambda kv: -kv[1])  # stable: ties keep subkeeps' order (stop, then larger holds)

    def greedy_category(self, used: Iterable[str], dice: Sequence[int]) -> str:
        """The greedy player's choice: the open category with the best expected score for this turn alone."""
        m = _mask(used)
        if m == FULL:
            raise IllegalActionError("every category is used: the sheet is complete")
        row = self.turn[REROLLS][self._roll(dice)]
        return CATEGORIES[int(np.where([not m & 1 << i for i in range(N_CAT)], row, -np.inf).argmax())]

    def best_action(self, state: PasaState) -> PasaAction:
        """The optimal decision for the player to move (a Choose, a Reroll or Stop)."""
        self._check_state(state)
        phase = state.phase
        if phase == "choose":
            return Choose(self.rank_categories(state.used(), state.dice)[0][0])
        if phase == "hold":
            assert state.category is not None
            keep = self.rank_holds(state.used(), state.category, state.dice, state.rolls_left)[0][0]
            return Stop() if len(keep) == len(state.dice) else Reroll(keep)
        if phase == "stop":
            return Stop()
        raise IllegalActionError(f"no decision is due in phase {phase}: a roll or nothing is awaited")

    def policy(self, state: PasaState, legal: list[PasaAction], rng: Any) -> PasaAction:
        """A policy for :func:`engine.simulate.play`: every player plays optimally for their own total."""
        return self.best_action(state)

    def greedy_policy(self, state: PasaState, legal: list[PasaAction], rng: Any) -> PasaAction:
        """The greedy player as a policy for :func:`engine.simulate.play` (see :func:`simulate`)."""
        if state.phase == "choose":
            self._check_state(state)
            return Choose(self.greedy_category(state.used(), state.dice))
        return self.best_action(state)  # holds: optimal for the chosen category, as in the vectorised greedy

    def _check_state(self, state: PasaState) -> None:
        if state.rule != self.rule:
            raise InvalidActionError(f"this advisor is for Paša rule {self.rule}, the game uses {state.rule}")
        _GAME.check_state(state)

    def advise(self, state: PasaState) -> dict[str, Any]:
        """JSON-able advice for the player to move: rankings for the decision due, and what the dice score."""
        self._check_state(state)
        phase = state.phase
        out: dict[str, Any] = {"rule": self.rule, "phase": phase}
        if phase == "finished":
            return out
        used = state.used()
        sheet_total = sum(state.sheets[state.player].values())
        out.update(player=state.player, sheet_total=sheet_total, rolls=state.rolls, rolls_left=state.rolls_left)
        if state.dice:
            out["dice"] = list(state.dice)
            out["scores"] = {c: _score_sorted(c, state.dice, self.rule) for c in state.open_categories()}
        if phase == "roll":
            rest = self.expected_total(used)
            out.update(expected_rest=rest, expected_final=sheet_total + rest)
        elif phase == "choose":
            ranked = self.rank_categories(used, state.dice)
            out["categories"] = [
                {"category": c, "title": TITLES[c], "score_now": out["scores"][c], "expected_rest": v}
                for c, v in ranked
            ]
            out.update(best=f"choose {ranked[0][0]}", expected_rest=ranked[0][1])
        elif phase == "reroll":
            out["keep"] = list(state.keep or ())
        else:
            assert state.category is not None
            out["category"] = state.category
            ranked_holds = self.rank_holds(used, state.category, state.dice, state.rolls_left)
            holds = [{"keep": list(k), "stop": len(k) == 6, "expected_rest": v} for k, v in ranked_holds]
            out["holds"] = holds
            best = ranked_holds[0][0]
            out.update(
                best="stop" if len(best) == 6 else f"reroll keep {' '.join(map(str, best)) or '-'}",
                expected_rest=ranked_holds[0][1],
            )
        if "expected_rest" in out and phase != "roll":
            out["expected_final"] = sheet_total + out["expected_rest"]
        return out


@cache
def get_advisor(rule: str = DEFAULT_RULE) -> Advisor:
    """The advisor for ``rule``, built once per process."""
    return Advisor(rule)


def simulate(advisor: Advisor, games: int, seed: int, policy: str = "optimal") -> FloatArray:
    """Final totals of ``games`` seeded one-player games, all played at once with numpy.

    ``optimal`` follows the advisor. ``greedy`` picks the category with the best expected score for this
    turn alone (blind to the rest of the sheet), then plays the turn's holds optimally for it.
    """
    if policy not in POLICIES:
        raise InvalidActionError(f"unknown policy {policy!r}; policies: {', '.join(POLICIES)}")
    if games < 1:
        raise InvalidActionError(f"number of games must be at least 1, got {games}")
    t = advisor.tables
    rng = np.random.default_rng(seed)
    mask = np.zeros(games, dtype=np.int64)
    total = np.zeros(games, dtype=np.float64)
    bits = np.array([1 << c for c in range(N_CAT)], dtype=np.int64)
    first = advisor.turn[REROLLS]
    for _ in range(N_CAT):
        d = t.code_to_roll[_POW7[rng.integers(0, 6, size=(games, 6))].sum(axis=1)]
        open_ = (mask[:, None] & bits) == 0
        gain = first[d] if policy == "greedy" else first[d] + advisor.value[mask[:, None] | bits]
        c = np.where(open_, gain, -np.inf).argmax(axis=1)
        stopped = np.zeros(games, dtype=bool)
        for r in range(REROLLS, 0, -1):
            k = advisor.best_keep[r][d, c]
            stopped |= k == t.keep_all[d]
            thrown = _POW7[rng.integers(0, 6, size=(games, 6))]
            thrown[np.arange(6)[None, :] >= (6 - t.keep_size[k])[:, None]] = 0  # only 6 - |keep| dice fly
            d = np.where(stopped, d, t.code_to_roll[t.keep_code[k] + thrown.sum(axis=1)])
        total += advisor.scores[d, c]
        mask |= bits[c]
    return total
