"""``companion bench hint``: how fast the "Hint" answers and how good it is, for Pyradice, Pyramido and Dice Treasure.

Speed: the hint (:meth:`engine.game.Game.advise`, budget 0.3 s) on ``--positions`` decision points taken from seeded
games (seeds 5000 and up, never used by the tests or to tune the advice), after one hint of the same game has warmed
the caches (Pyradice's objective tables), as at a running table; the cold first hint of a fresh process is printed
on its own. Medians of the wall time, of the playouts per option and of the options ranked.

Quality (``--games N``): N seeded 2-player games (seeds 7000 and up) in which one seat follows the hint's first
option (with ``--playouts`` playouts per option, not the clock, so the figure does not depend on the machine's load)
and the other the playout policy the hint itself plays out with; the hinted seat alternates. Prints the hinted
seat's win rate (ties count half) and mean final margin.

Run it pinned to one core (``taskset -c 0 companion bench hint``) and say the machine's load with the figures;
``python -m engine.bench_advice --games 20`` also plays the games (the ``bench`` command takes no options).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import time
from typing import Any

from engine.game import find_game
from engine.simulate import play

GAMES = ("pyradice", "pyramido", "dicetreasure")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES, action="append", help="only this game (repeatable; default all)")
    parser.add_argument("--positions", type=int, default=30, metavar="N", help="positions timed per game (30)")
    parser.add_argument("--budget", type=float, default=0.3, metavar="SECONDS", help="the hint's budget (0.3)")
    parser.add_argument("--agreement", type=int, default=0, metavar="N",
                        help="also compare N budgeted hints with long runs (default 0)")
    parser.add_argument("--long", type=int, default=100, metavar="N",
                        help="playouts per option of those long runs, on other seeds (default 100)")
    parser.add_argument("--games", type=int, default=0, metavar="N",
                        help="also play N games hint against the playout policy (default 0: speed only)")
    parser.add_argument("--playouts", type=int, default=8, metavar="N",
                        help="playouts per option of the hinted seat in those games (default 8)")


def _module(name: str) -> Any:
    return importlib.import_module(f"engine.{name}.advice")


def positions(name: str, count: int, seed: int = 5000) -> list[Any]:
    """``count`` decision points the game hints at, one from each seeded game of its playout policy."""
    game, module = find_game(name), _module(name)
    out: list[Any] = []
    k = 0
    while len(out) < count:
        states = play(game, game.default_players(2), seed + k, policy=module.policy).states
        rng = random.Random(seed + k)
        candidates = [s for s in states if game.status(s).awaiting == "decision" and len(game.legal_actions(s)) > 1]
        rng.shuffle(candidates)
        for state in candidates:
            if module.advise(state, playouts=1) is not None:  # not a flip or a discard (Pyramido)
                out.append(state)
                break
        k += 1
    return out


def speed(name: str, count: int, budget: float) -> dict[str, float]:
    game = find_game(name)
    states = positions(name, count + 1)
    clear = getattr(_module(name), "clear_caches", None)
    if clear is not None:
        clear()  # as in a fresh process: the first hint of a board builds its tables
    start = time.perf_counter()
    game.advise(states[0], seed=0, budget_s=budget)
    cold = (time.perf_counter() - start) * 1000
    walls, rounds, options = [], [], []
    for i, state in enumerate(states[1:]):
        game.advise(state, seed=i, playouts=1)  # this game's caches warm, as at a table that follows it
        start = time.perf_counter()
        advice = game.advise(state, seed=i, budget_s=budget)
        walls.append((time.perf_counter() - start) * 1000)
        assert advice is not None
        rounds.append(advice.rounds)
        options.append(len(advice.options))
    return {"median_ms": statistics.median(walls), "max_ms": max(walls), "cold_ms": cold,
            "median_playouts_per_option": statistics.median(rounds), "min_playouts_per_option": min(rounds),
            "median_options": statistics.median(options)}


def agreement(name: str, count: int, budget: float, long: int) -> dict[str, float]:
    """How often the budgeted hint's first choice is the best of a long run (``long`` playouts per option on seeds
    the hint does not use), and the mean regret: the long run's best value minus its value of the hint's choice,
    over ``count`` positions (seeds 6000 and up)."""
    game = find_game(name)
    same, regrets = 0, []
    for i, state in enumerate(positions(name, count, seed=6000)):
        hint = game.advise(state, seed=i, budget_s=budget)
        truth = game.advise(state, seed=10**6 + i, playouts=long)
        assert hint is not None and truth is not None
        values = {o.text: o.value for o in truth.options if o.playouts or o.exact}
        if not values or hint.options[0].text not in values:
            continue  # the long run did not play that option out (beyond the width): not counted
        best = max(values.values())
        same += values[hint.options[0].text] == best
        regrets.append(best - values[hint.options[0].text])
    n = len(regrets)
    return {"positions": n, "same_best": same / n if n else 0.0,
            "mean_regret": statistics.mean(regrets) if n else 0.0, "max_regret": max(regrets, default=0.0)}


def duel(name: str, games: int, playouts: int, seed: int = 7000) -> dict[str, float]:
    """The hinted seat against the playout policy, ``games`` seeded games, the hinted seat alternating."""
    game, module = find_game(name), _module(name)
    names = game.default_players(2)
    wins, margins = 0.0, []
    for k in range(games):
        hinted = k % 2
        rng = random.Random(seed + k)
        state = game.initial_state(names, seed=rng.randrange(2**32))
        steps = 0
        while not game.status(state).finished:
            status = game.status(state)
            if status.awaiting == "chance":
                action = game.random_chance(state, rng)
            else:
                legal = game.legal_actions(state)
                action = None
                if status.to_move == names[hinted]:
                    advice = game.advise(state, seed=seed + k * 1000 + steps, playouts=playouts)
                    if advice is not None and advice.options:
                        action = game.parse_action(advice.options[0].text, state)
                if action is None:
                    action = module.policy(state, legal, rng)
            state = game.apply(state, action)
            steps += 1
        totals = game.score(state).totals()
        mine, theirs = totals[names[hinted]], totals[names[1 - hinted]]
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        margins.append(mine - theirs)
    return {"games": games, "win_rate": wins / games, "mean_margin": statistics.mean(margins),
            "stdev_margin": statistics.stdev(margins) if games > 1 else 0.0}


def _defaults(args: argparse.Namespace) -> argparse.Namespace:
    """``companion bench`` passes only ``--repeat``: the options this module adds take their defaults."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    filled = vars(parser.parse_args([]))
    filled.update({k: v for k, v in vars(args).items() if k in filled})
    return argparse.Namespace(**filled)


def run(args: argparse.Namespace) -> int:
    args = _defaults(args)
    names = args.game or list(GAMES)
    print(f"hint benchmark: budget {args.budget} s, {args.positions} positions per game (seeds 5000+), "
          f"cpus allowed {len(os.sched_getaffinity(0))}, load {os.getloadavg()[0]:.2f}")
    for name in names:
        if args.positions > 0:
            s = speed(name, args.positions, args.budget)
            print(f"{name}: median {s['median_ms']:.0f} ms (max {s['max_ms']:.0f}, first hint of a fresh process "
                  f"{s['cold_ms']:.0f}), playouts per option median {s['median_playouts_per_option']:g} "
                  f"(min {s['min_playouts_per_option']:g}), options ranked median {s['median_options']:g}")
        if args.agreement:
            a = agreement(name, args.agreement, args.budget, args.long)
            print(f"{name}: against {args.long}-playout runs on other seeds, {a['positions']:g} positions "
                  "(seeds 6000+): "
                  f"the same first choice {a['same_best']:.2f}, mean regret {a['mean_regret']:.2f} "
                  f"(max {a['max_regret']:.2f})", flush=True)
        if args.games:
            d = duel(name, args.games, args.playouts)
            print(f"{name}: hint ({args.playouts} playouts per option) against the playout policy, {args.games} games "
                  f"(seeds 7000+): win rate {d['win_rate']:.2f}, mean margin {d['mean_margin']:+.1f} "
                  f"(stdev {d['stdev_margin']:.1f})", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    import sys

    _parser = argparse.ArgumentParser(prog="python -m engine.bench_advice", description=__doc__,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(_parser)
    sys.exit(run(_parser.parse_args()))
