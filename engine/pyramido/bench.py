"""``companion bench pyramido``: how fast the Pyramido engine answers what the device asks most.

Prints medians over ``--repeat`` runs, in CPU time of this process, of:

* legal placements of a domino in stage 1 mid-game (5 dominoes placed; target under 1 ms), for a pyramid
  whose blocks are already known (as in a running game) and for one rebuilt from its placement list;
* the activation optimiser on a full 4-stage pyramid with an inventory of 8 gems (target under 20 ms),
  with and without working out the areas first;
* random full 4-player games per second on one core (uniform random decisions, seeded chance).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from engine.pyramido.activation import best_activation
from engine.pyramido.areas import areas
from engine.pyramido.dominoes import generate_deck, parse_gems
from engine.pyramido.game import GAME
from engine.pyramido.geometry import Pyramid, legal_placements

MID_STAGE_ONE = (
    "r0-r3 @ s1 0,0 E",
    "b02-b @ s1 2,0 E",
    "r2-r1 @ s1 0,1 E",
    "b3-g0 @ s1 2,1 E",
    "g0-g1 @ s1 0,2 E",
)
INVENTORY_8 = "o2 b1 p1 r1 g1 m2"


def _per_call(fn: Callable[[], object], calls: int, repeat: int) -> float:
    """Median over ``repeat`` runs of the mean CPU seconds per call of ``fn`` (CPU time, because the
    machines these run on are often shared and wall time then measures the neighbours)."""
    runs = []
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(calls):
            fn()
        runs.append((time.process_time() - start) / calls)
    return statistics.median(runs)


def full_pyramid(seed: int = 1) -> Pyramid:
    """A full 4-stage pyramid on a 4x5 frame: seeded deck dominoes, each domino turned at random."""
    import random

    from engine.pyramido.geometry import Direction, Placement

    rng = random.Random(seed)
    deck = list(generate_deck(seed))
    tiling = {  # (stage, x, y, direction of block B): rows of stage 1, columns of stage 2, and so on
        1: [(x, y, Direction.E) for y in range(5) for x in (0, 2)],
        2: [(x, y, Direction.S) for x in range(3) for y in (0, 2)],
        3: [(0, y, Direction.E) for y in range(3)],
        4: [(0, 0, Direction.S)],
    }
    flip = {Direction.E: (1, 0, Direction.W), Direction.S: (0, 1, Direction.N)}
    p = Pyramid()
    for stage, cells in tiling.items():
        if stage > 1:
            p = p.next_stage()
        for x, y, d in cells:
            if p.placed and rng.random() < 0.5:  # the same cells, blocks A and B swapped
                dx, dy, d = flip[d]
                x, y = x + dx, y + dy
            p = p.place(deck.pop(), Placement(stage, x, y, d))
    return p


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options beyond the shared ``--repeat``."""


def run(args: argparse.Namespace) -> int:
    repeat = max(1, int(getattr(args, "repeat", 5) or 5))
    print(f"pyramido benchmarks (median of {repeat} runs)")

    mid = Pyramid.build(1, MID_STAGE_ONE)
    placed = mid.placed
    n = len(legal_placements(mid))

    def known_blocks() -> Pyramid:
        # The pyramid as a running game holds it: blocks and frame known, placements not yet asked for
        # (they are cached on the pyramid once asked, so asking the same one again would time a lookup).
        fresh = Pyramid(1, placed)
        fresh.__dict__.update(blocks=mid.blocks, frame=mid.frame)
        return fresh

    t = _per_call(lambda: legal_placements(known_blocks()), 2000, repeat)
    print(f"  legal placements, stage 1 mid-game ({len(placed)} dominoes, {n} placements): {t * 1e3:.3f} ms")
    t = _per_call(lambda: legal_placements(Pyramid(1, placed)), 1000, repeat)
    print(f"  same, pyramid rebuilt from its placement list each time: {t * 1e3:.3f} ms")

    full = full_pyramid()
    found = areas(full)
    inventory = parse_gems(INVENTORY_8)
    best = best_activation(found, inventory)
    t = _per_call(lambda: best_activation(found, inventory), 200, repeat)
    print(
        f"  activation optimiser, full 4-stage pyramid ({len(found)} areas), 8 gems: {t * 1e3:.3f} ms "
        f"(best {best.points} points)"
    )
    t = _per_call(lambda: best_activation(areas(Pyramid(full.stage, full.placed)), inventory), 100, repeat)
    print(f"  same, with the top view and areas worked out first: {t * 1e3:.3f} ms")

    from engine.simulate import play

    games = 10
    rates = []
    for r in range(repeat):
        start = time.process_time()
        for k in range(games):
            play(GAME, ["A", "B", "C", "D"], seed=1000 * r + k, keep_states=False)
        rates.append(games / (time.process_time() - start))
    print(f"  random full 4-player games: {statistics.median(rates):.1f} games/s on one core (CPU time)")
    return 0
