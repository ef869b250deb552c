"""Random legal games from a seeded generator: the source of chance when nobody is at the table.

The engine never rolls; this module does, from ``random.Random(seed)``, so a game is reproducible from
its seed. A policy picks among legal decisions (uniformly at random unless one is given).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.game import Game

Policy = Callable[[Any, list[Any], random.Random], Any]


def uniform_policy(state: Any, actions: list[Any], rng: random.Random) -> Any:
    return rng.choice(actions)


@dataclass(frozen=True)
class Playout:
    """A finished game: its actions in order and every state (``states[0]`` is the initial one)."""

    actions: tuple[Any, ...]
    states: tuple[Any, ...]

    @property
    def final(self) -> Any:
        return self.states[-1]


def play(
    game: Game[Any, Any],
    players: Sequence[str],
    seed: int,
    *,
    options: dict[str, str] | None = None,
    policy: Policy = uniform_policy,
    max_actions: int = 100_000,
    keep_states: bool = True,
) -> Playout:
    """Play one game to its end with chance and decisions drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    state = game.initial_state(players, options, seed=rng.randrange(2**32))
    states = [state]
    actions = []
    for _ in range(max_actions):
        status = game.status(state)
        if status.finished:
            break
        if status.awaiting == "chance":
            action = game.random_chance(state, rng)
        else:
            legal = game.legal_actions(state)
            if not legal:
                raise RuntimeError(f"{game.name}: no legal action in a running game: {status}")
            action = policy(state, legal, rng)
        state = game.apply(state, action)
        actions.append(action)
        if keep_states:
            states.append(state)
    else:
        raise RuntimeError(f"{game.name}: game did not finish within {max_actions} actions")
    if not keep_states:
        states.append(state)
    return Playout(tuple(actions), tuple(states))
