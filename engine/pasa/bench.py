"""``companion bench pasa``: how fast the advisor is built and answers, and how fast games are simulated.

Prints medians of ``--repeat`` runs: the time to build the advisor's full table from nothing (dice tables
included), the time per advice query (a mix of category rankings, hold rankings and whole-state advice
for states met in real games), and simulated games per second, vectorised and through the game engine.
numpy may use more than one thread for the matrix product; set OPENBLAS_NUM_THREADS=1 for one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from engine.pasa.scoring import DEFAULT_RULE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options beyond ``--repeat`` (added by the ``bench`` command itself)."""


def _median_time(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(args: argparse.Namespace) -> int:
    from engine.pasa.advice import Advisor, dice_tables, simulate
    from engine.pasa.game import PasaGame, PasaState
    from engine.simulate import play

    print(f"figures are medians of {max(1, int(getattr(args, 'repeat', 5)))} runs")
    repeat = max(1, int(getattr(args, "repeat", 5)))

    def build() -> Advisor:
        dice_tables.cache_clear()
        return Advisor(DEFAULT_RULE)

    build_s = _median_time(build, repeat)
    advisor = build()

    # States met in real play, collected from seeded engine games.
    game = PasaGame()
    states: list[PasaState] = []
    for seed in range(20):
        playout = play(game, ["A", "B"], seed, policy=advisor.policy)
        states += [s for s in playout.states if s.phase in ("choose", "hold")]
    random.Random(0).shuffle(states)
    queries = states[:1000]

    def rankings() -> None:
        for s in queries:
            if s.phase == "choose":
                advisor.rank_categories(s.used(), s.dice)
            else:
                assert s.category is not None
                advisor.rank_holds(s.used(), s.category, s.dice, s.rolls_left)

    def advice() -> None:
        for s in queries:
            advisor.advise(s)

    rank_s = _median_time(rankings, repeat) / len(queries)
    advise_s = _median_time(advice, repeat) / len(queries)

    games = 20_000
    sim_s = _median_time(lambda: simulate(advisor, games, seed=1), repeat)
    engine_games = 50
    engine_s = _median_time(
        lambda: [play(game, ["solo"], seed, policy=advisor.policy, keep_states=False) for seed in range(engine_games)],
        repeat,
    )
    print(f"pasa advisor full table build (462 rolls, 9 categories, 512 sheets): {build_s * 1e3:.1f} ms")
    print(f"pasa advice query, rank categories or holds: {rank_s * 1e6:.1f} µs per query ({len(queries)} states)")
    print(f"pasa advice query, advise(state) as JSON-able dict: {advise_s * 1e6:.1f} µs per query")
    print(f"pasa simulated games, vectorised (numpy): {games / sim_s:,.0f} games/s")
    print(f"pasa simulated games, action by action through the engine: {engine_games / engine_s:,.0f} games/s")
    return 0
