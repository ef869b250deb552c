"""``companion bench dicetreasure``: random full 2-player games per second on one core, and the time to list the
legal spaces of 6 dice on 4 cards (the device asks this for every roll; target under 200 µs). Prints medians."""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time

from engine.dice import Die
from engine.dicetreasure.game import GAME, new_game
from engine.dicetreasure.placement import legal_spaces
from engine.dicetreasure.simulate import play_game
from engine.dicetreasure.state import DiceTreasureState, Phase

GAMES_PER_RUN = 10
SPACES_CALLS = 2000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No extra arguments; ``--repeat`` (runs per figure) comes from ``companion bench``."""


def four_cards_six_dice(seed: int = 1) -> DiceTreasureState:
    """A 2-player turn: 4 cards in front of the player with a few dice on them, 6 dice in hand."""
    rng = random.Random(seed)
    state = new_game(["Ann", "Bob"], options={"leprechauns": "off"})
    while state.phase is not Phase.TURN:
        state = GAME.apply(state, GAME.random_chance(state, rng))
    for _ in range(2):  # two dice placed already, so neighbour checks have work to do
        places = [a for a in GAME.legal_actions(state) if type(a).__name__ == "Place"]
        state = GAME.apply(state, rng.choice(places))
    hand = tuple(Die(rng.randint(1, 6), rng.choice(state.dice_colours)) for _ in range(6))
    return dataclasses.replace(state, hand=hand)


def run(args: argparse.Namespace) -> int:
    repeat = max(1, int(getattr(args, "repeat", 5) or 5))
    rates = []
    seed = 0
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(GAMES_PER_RUN):
            play_game(2, seed)
            seed += 1
        rates.append(GAMES_PER_RUN / (time.perf_counter() - start))
    print(
        f"dicetreasure: random 2-player games (one core): {statistics.median(rates):.1f} games/s "
        f"(median of {repeat} runs of {GAMES_PER_RUN})"
    )

    state = four_cards_six_dice()
    assert len(state.players[0].cards) == 4 and len(state.hand) == 6
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(SPACES_CALLS):
            for die in state.hand:
                legal_spaces(state, die)
        times.append((time.perf_counter() - start) / SPACES_CALLS * 1e6)
    print(
        f"dicetreasure: legal spaces for 6 dice on 4 cards: {statistics.median(times):.1f} µs "
        f"(median of {repeat} runs of {SPACES_CALLS}; target < 200 µs)"
    )
    return 0
