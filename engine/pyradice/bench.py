"""``companion bench pyradice``: random full games per second and the time to list legal actions.

Figures (medians of ``--repeat`` runs, one core, this process only):
- random full 2-player games per second (seeded, uniform over legal actions, roll-off and re-rolls
  included), target >= 300, both by process CPU time and by wall time;
- time to list the legal actions in mid-game positions of each step (take, place, skill), target
  < 100 µs; and the time to explain an observed turn (the camera's question).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from engine.game import instance
from engine.pyradice.game import PyradiceGame
from engine.pyradice.observe import Observation, explain_turn
from engine.pyradice.state import Phase, PyradiceState
from engine.simulate import play

_GAME = instance(PyradiceGame)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options beyond ``--repeat`` (added by the ``bench`` command itself)."""


def games_per_second(games: int, seed: int = 0, players: int = 2) -> tuple[float, float]:
    """Random full games per second of this process's CPU time and of wall-clock time.

    CPU time is what the engine costs; wall time also counts the waits of a shared machine, so the two
    differ most when other jobs compete for the cores.
    """
    names = ["ana", "ben", "cleo", "dan"][:players]
    cpu, wall = time.process_time(), time.perf_counter()
    for i in range(games):
        play(_GAME, names, seed + i, keep_states=False)
    return games / (time.process_time() - cpu), games / (time.perf_counter() - wall)


def _mid_game(phase: Phase, seeds: range = range(10)) -> PyradiceState:
    """The mid-game position of ``phase`` with the most legal actions over a few seeded games."""
    middle: list[PyradiceState] = []
    for seed in seeds:
        states = play(_GAME, ["ana", "ben"], seed).states
        middle.extend(s for s in states[len(states) // 3 : 2 * len(states) // 3] if s.phase is phase)
    return max(middle, key=lambda s: len(_GAME.legal_actions(s)))


def legal_time_us(state: PyradiceState, calls: int = 2000) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        _GAME.legal_actions(state)
    return (time.perf_counter() - start) / calls * 1e6


def explain_time_ms(seed: int = 5, turns: int = 20) -> float:
    playout = play(_GAME, ["ana", "ben"], seed)
    starts = [i for i, s in enumerate(playout.states) if s.phase is Phase.TAKE][10 : 10 + turns]
    total = 0.0
    for i in starts:
        before = playout.states[i]
        after = next(s for s in playout.states[i + 1 :] if s.phase is Phase.OVER or s.turn != before.turn)
        seen = Observation(after.players[before.turn].pyramid, after.quarry.dice)
        start = time.perf_counter()
        explain_turn(before, seen)
        total += time.perf_counter() - start
    return total / len(starts) * 1e3


def run(args: argparse.Namespace) -> int:
    repeat = max(1, int(getattr(args, "repeat", 5) or 5))
    # Figures from a shared machine mean little without its load at the time.
    print("pyradice: load average (1, 5, 15 min) at start: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))
    rates = [games_per_second(100, seed=1000 * r) for r in range(repeat)]
    cpu = statistics.median(r[0] for r in rates)
    wall = statistics.median(r[1] for r in rates)
    print(f"pyradice: random full 2-player games per second (one core): {cpu:.0f} by process CPU time, "
          f"{wall:.0f} by wall time (target >= 300; medians of {repeat})")
    for phase in (Phase.TAKE, Phase.PLACE, Phase.SKILL):
        state = _mid_game(phase)
        n = len(_GAME.legal_actions(state))
        times = [legal_time_us(state) for _ in range(repeat)]
        print(f"pyradice: legal actions, mid-game {phase.value} step ({n} actions): "
              f"{statistics.median(times):.1f} µs (target < 100 µs)")
    times = [explain_time_ms() for _ in range(repeat)]
    print(f"pyradice: explain an observed turn (take, place, skill): {statistics.median(times):.2f} ms")
    return 0
