"""Ranking the legal options of a decision by seeded playouts: the shared machinery behind every game's "Hint".

A game's advice module (``engine/<game>/advice.py``) says which options the decision now has, how a playout goes
on from each (a fast, greedy-ish policy of the game's own simulator, up to a horizon: the end of the game, a
stage or a round) and what a finished playout is worth to the player to move (their score, and their margin over
the best other player). This module runs the playouts and ranks:

* **Common random numbers.** Round ``r`` plays one playout from every option with a generator seeded by
  ``(seed, r)``: every option meets the same dice, draws and opponents' random choices as far as the games stay
  alike, so the differences between options are measured with far less noise than independent playouts give.
* **Seeded and deterministic.** The ranking is a function of the state, the seed and the number of rounds; no
  clock and no global generator enters a playout. ``playouts=N`` asks for exactly N rounds (the same answer on
  any machine); otherwise the time budget decides how many whole rounds fit, and a round that the budget cuts
  short is dropped, so the options still played all have the same number of playouts and the same answer comes
  for the same number of rounds.
* **Rejecting.** After a few rounds an option that trails the leader by clearly more than the noise of their
  paired difference (common random numbers make it small) stops being played out; the rounds left go to the
  options still in question (``RankedOption.playouts`` says how many each had).
* **Budgeted.** ``budget_s`` bounds the wall time: a round is begun only if, as long as the last one took, it
  would end within the budget (one round always runs; ``width`` keeps a round cheap: only the
  ``width`` options a cheap static value (``prior``) rates best get playouts, the rest are listed after them with
  their static value and no playouts).

Nothing here knows a game, and it imports nothing of the rest of the project (the games' modules import it).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

S = TypeVar("S")
A = TypeVar("A")

#: What a finished playout is worth to the player the advice is for: (their own score, the measure the options are
#: ranked by: their margin over the best other player, or their own score where the game says so, as in solo).
Value = tuple[float, float]


@dataclass(frozen=True)
class RankedOption:
    """One legal option with what its playouts gave: ``value`` is the expected measure (the margin, or the score
    where ``Advice.measure`` says so), ``score`` the expected own score, ``stderr`` the standard error of
    ``value`` over ``playouts`` playouts; ``prior`` is the cheap static value used to choose which options get
    playouts (None where every option got them); ``exact`` marks a value worked out exactly, without playouts (an
    optimiser's, an advisor's)."""

    text: str
    label: str
    group: str
    value: float
    score: float
    stderr: float
    playouts: int
    prior: float | None = None
    exact: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "label": self.label,
            "group": self.group,
            "value": round(self.value, 3),
            "score": round(self.score, 3),
            "stderr": round(self.stderr, 3),
            "playouts": self.playouts,
            "prior": None if self.prior is None else round(self.prior, 3),
            "exact": self.exact,
        }


@dataclass(frozen=True)
class Advice:
    """A hint for the decision now: the options, best first, and how they were measured.

    ``measure`` names what ``RankedOption.value`` is, in words the page shows after "ranked by" ("expected margin":
    final score minus the best other player's; "expected gold" in a solo game; "points" of an exact optimiser).
    ``horizon`` says where playouts stop ("game end", "stage end", "round end"); ``extra`` carries a game's exact
    advice next to the ranking (Pyramido's best stage-end activation)."""

    game: str
    player: str
    decision: str
    measure: str
    options: tuple[RankedOption, ...]
    rounds: int
    elapsed_ms: float
    seed: int
    budget_s: float
    horizon: str
    policy: str
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> RankedOption | None:
        return self.options[0] if self.options else None

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "player": self.player,
            "decision": self.decision,
            "measure": self.measure,
            "options": [o.to_json() for o in self.options],
            "best": self.options[0].text if self.options else None,
            "rounds": self.rounds,
            "playouts": sum(o.playouts for o in self.options),
            "elapsed_ms": round(self.elapsed_ms, 1),
            "seed": self.seed,
            "budget_s": self.budget_s,
            "horizon": self.horizon,
            "policy": self.policy,
            "note": self.note,
            "extra": dict(self.extra),
        }

    def text(self) -> str:
        """The hint as lines for a terminal."""
        how = (f"{self.rounds} playouts per option to {self.horizon}, {self.elapsed_ms:.0f} ms, seed {self.seed}"
               if self.rounds else f"{self.policy}, to {self.horizon}")
        head = f"{self.player}: {self.decision}, ranked by {self.measure} ({how})"
        lines = [head]
        for i, o in enumerate(self.options, start=1):
            if o.exact:
                lines.append(f"{i:>3}. {o.text:<28} {o.value:7.2f} (exact)  {o.label}")
            elif o.playouts:
                lines.append(f"{i:>3}. {o.text:<28} {o.value:+7.2f} ± {o.stderr:.2f}  (score {o.score:.1f})  {o.label}")
            else:
                lines.append(f"{i:>3}. {o.text:<28}   not played out (static {o.prior})  {o.label}")
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)


@dataclass
class _Tally:
    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    score: float = 0.0
    values: list[float] = field(default_factory=list)  # round by round, for paired differences

    def add(self, value: Value) -> None:
        self.values.append(value[1])
        self.n += 1
        self.score += value[0]
        self.total += value[1]
        self.squares += value[1] * value[1]

    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    def stderr(self) -> float:
        if self.n < 2:
            return 0.0
        var = max(0.0, (self.squares - self.total * self.total / self.n) / (self.n - 1))
        return math.sqrt(var / self.n)


#: Rounds before an option may be left behind, and how many standard errors of the paired difference it must trail.
REJECT_AFTER = 4
REJECT_Z = 2.5


def _behind(leader: _Tally, other: _Tally) -> bool:
    """Whether ``other`` trails ``leader`` by more than ``REJECT_Z`` standard errors of their paired difference.

    The two met the same random numbers round by round (as long as both were played), so the difference of each
    round's values is what the option changes; its spread is much smaller than either option's own."""
    n = min(leader.n, other.n)
    diffs = [a - b for a, b in zip(leader.values[-n:], other.values[-n:], strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean > 0 and mean > REJECT_Z * math.sqrt(var / n)


def round_rng(seed: int, round_: int) -> random.Random:
    """The generator of playout round ``round_`` (the same for every option: common random numbers)."""
    return random.Random(f"advice:{seed}:{round_}")


@dataclass(frozen=True)
class Ranking(Generic[A]):
    """What :func:`rank` measured, option by option, in the order the options were given."""

    options: tuple[A, ...]
    means: tuple[float, ...]
    scores: tuple[float, ...]
    stderrs: tuple[float, ...]
    playouts: tuple[int, ...]
    priors: tuple[float | None, ...]
    rounds: int
    elapsed_ms: float

    def order(self) -> list[int]:
        """Indices best first: played-out options, those played to the end first, by mean value (then prior, then
        the given order), then the options left out by their prior."""
        def key(i: int) -> tuple[int, int, float, float, int]:
            prior = self.priors[i]
            if self.playouts[i]:  # those still in question at the end first (left behind ones had fewer rounds)
                return (0, -self.playouts[i], -self.means[i], -(prior if prior is not None else 0.0), i)
            return (1, 0, -(prior if prior is not None else 0.0), 0.0, i)

        return sorted(range(len(self.options)), key=key)


def rank(
    state: S,
    options: Sequence[A],
    *,
    after: Callable[[S, A, random.Random], S],
    playout: Callable[[S, random.Random], S],
    value: Callable[[S], Value],
    seed: int = 0,
    budget_s: float = 0.3,
    playouts: int | None = None,
    prior: Callable[[S, A], float] | None = None,
    width: int | None = None,
    reject: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> Ranking[A]:
    """Play out every option (or the ``width`` best by ``prior``) round by round with common random numbers.

    ``after(state, option, rng)`` is the state once the option is taken (it may draw chance from ``rng``),
    ``playout(state, rng)`` plays on to the horizon, ``value(final)`` is what the end is worth to the player.
    ``playouts`` fixes the number of rounds (no clock); otherwise rounds run while ``budget_s`` lasts, at least one.
    With ``reject``, an option clearly behind the leader (see :func:`_behind`) stops being played out, so the
    rounds left go to the options still in question.
    """
    start = clock()
    opts = tuple(options)
    priors: tuple[float | None, ...] = (None,) * len(opts)
    if prior is not None:
        priors = tuple(prior(state, o) for o in opts)
    chosen = list(range(len(opts)))
    if width is not None and prior is not None and len(opts) > width:
        chosen = sorted(chosen, key=lambda i: (-(priors[i] or 0.0), i))[: max(1, width)]
        chosen.sort()
    tallies = {i: _Tally() for i in chosen}
    rounds = 0
    deadline = start + budget_s
    last = 0.0  # how long the last round took: a round that would end past the deadline is not begun
    while chosen and (rounds < playouts if playouts is not None else (rounds == 0 or clock() + last <= deadline)):
        began = clock()
        results: list[tuple[int, Value]] = []
        cut = False
        for i in chosen:
            rng = round_rng(seed, rounds)
            final = playout(after(state, opts[i], rng), rng)
            results.append((i, value(final)))
            if playouts is None and rounds > 0 and clock() > deadline:
                cut = True  # the budget ran out mid-round: drop the round so every option has as many playouts
                break
        if cut:
            break
        for i, v in results:
            tallies[i].add(v)
        rounds += 1
        last = clock() - began
        if reject and rounds >= REJECT_AFTER and len(chosen) > 2:
            leader = max(chosen, key=lambda i: (tallies[i].mean(), -i))
            behind = sorted((i for i in chosen if i != leader and _behind(tallies[leader], tallies[i])),
                            key=lambda i: (-tallies[i].mean(), i))
            keep = max(0, 2 - (len(chosen) - len(behind)))  # at least two stay: the leader and its best rival
            dropped = set(behind[keep:])
            chosen = [i for i in chosen if i not in dropped]
    elapsed = (clock() - start) * 1000.0
    n = len(opts)
    means = {i: t.mean() for i, t in tallies.items()}
    if chosen and any(tallies[i].n < rounds for i in tallies):
        # An option left behind is valued on the leader's footing: the leader's mean over every round minus
        # their paired difference over the rounds both were played (its own mean covers fewer, other rounds).
        best = max(chosen, key=lambda i: (means[i], -i))
        lead = tallies[best]
        for i, t in tallies.items():
            if 0 < t.n < rounds:
                means[i] = lead.mean() - sum(a - b for a, b in zip(lead.values[: t.n], t.values, strict=True)) / t.n
    return Ranking(
        opts,
        tuple(means.get(i, 0.0) for i in range(n)),
        tuple(tallies[i].score / tallies[i].n if i in tallies and tallies[i].n else 0.0 for i in range(n)),
        tuple(tallies[i].stderr() if i in tallies else 0.0 for i in range(n)),
        tuple(tallies[i].n if i in tallies else 0 for i in range(n)),
        priors if prior is not None else (None,) * n,
        rounds,
        elapsed,
    )


def ranked_options(ranking: Ranking[A], describe: Callable[[A], tuple[str, str, str]]) -> tuple[RankedOption, ...]:
    """The ranking as :class:`RankedOption` values, best first; ``describe(option)`` gives (text, label, group)."""
    out = []
    for i in ranking.order():
        text, label, group = describe(ranking.options[i])
        out.append(RankedOption(text, label, group, ranking.means[i], ranking.scores[i], ranking.stderrs[i],
                                ranking.playouts[i], ranking.priors[i]))
    return tuple(out)


def advice_of(ranking: Ranking[A], *, game: Any, state: Any, player: str, decision: str, measure: str, seed: int,
              budget_s: float, horizon: str, policy: str, note: str) -> Advice:
    """The ranking as the hint for ``state``: every option in ``game``'s own words (``Game.describe``)."""

    def describe(action: A) -> tuple[str, str, str]:
        d = game.describe(state, action)
        return d.text, d.label, d.group

    return Advice(game=game.name, player=player, decision=decision, measure=measure,
                  options=ranked_options(ranking, describe), rounds=ranking.rounds, elapsed_ms=ranking.elapsed_ms,
                  seed=seed, budget_s=budget_s, horizon=horizon, policy=policy, note=note)


def margin(totals: Sequence[float], seat: int) -> float:
    """``seat``'s total minus the best other total (its own total where it plays alone)."""
    others = [t for i, t in enumerate(totals) if i != seat]
    return totals[seat] - (max(others) if others else 0.0)


def no_hint(reason: str) -> str:
    """The words for "no hint now" (a game over, chance awaited, no choice to make)."""
    return f"no hint now: {reason}"


__all__ = ["Advice", "RankedOption", "Ranking", "Value", "advice_of", "margin", "no_hint", "rank", "ranked_options",
           "round_rng"]
