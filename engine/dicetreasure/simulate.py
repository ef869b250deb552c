"""Seeded random Dice Treasure games: a playing policy, invariant checks and move counts ("perft").

A uniform choice among legal decisions mostly exchanges dice back and forth and ends turns with nothing
placed, so games would take hundreds of rounds; :func:`eager_policy` is still random but prefers to claim a
leprechaun card, then to place a die, then to end the turn, which gives games of a realistic length.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine import perft as _perft
from engine.dicetreasure.cards import Deck
from engine.dicetreasure.game import GAME, card_gold, new_game
from engine.dicetreasure.state import (
    Action,
    ClaimBonus,
    DiceTreasureState,
    EndTurn,
    FinishSetup,
    Phase,
    Place,
)


def eager_policy(state: Any, actions: list[Any], rng: random.Random) -> Any:
    """Random, but claims a bonus card when it can, places 9 times in 10, and rarely exchanges."""
    claims = [a for a in actions if isinstance(a, ClaimBonus)]
    if claims:
        return rng.choice(claims)
    places = [a for a in actions if isinstance(a, Place)]
    if places and rng.random() < 0.9:
        return rng.choice(places)
    ends = [a for a in actions if isinstance(a, (EndTurn, FinishSetup))]
    if ends and rng.random() < 0.8:
        return rng.choice(ends)
    return rng.choice(actions)


def invariant_problems(state: DiceTreasureState) -> list[str]:
    """The properties every reachable state keeps: dice conserved, gold = cards + chips + bonus, no die next to
    one of the same colour or value, reserves of at most 2 (a quick subset of :meth:`DiceTreasure.defects`)."""
    out = []
    counts: Counter[str | None] = Counter(dict(zip(state.dice_colours, state.bag, strict=True)))
    loose = [*state.hand, *state.common, *state.on_claimed, *state.set_aside]
    cards = list(state.middle)
    for p in state.players:
        loose.extend(p.reserve)
        cards.extend(p.cards)
        if len(p.reserve) > 2:
            out.append(f"{p.name} reserve {p.reserve}")
        if p.gold != sum(card_gold(p).values()):
            out.append(f"{p.name} gold {p.gold} != {card_gold(p)}")
    for cip in cards:
        for i, die in enumerate(cip.dice):
            if die is None:
                continue
            loose.append(die)
            if not cip.card.spaces[i].accepts(die):
                out.append(f"{cip.card.id} space {i + 1}: {die} breaks the requirement")
            for j in cip.card.adjacent[i]:
                other = cip.dice[j]
                if other is not None and (other.colour == die.colour or other.value == die.value):
                    out.append(f"{cip.card.id} space {i + 1}: {die} next to {other}")
    counts.update(d.colour for d in loose)
    if any(counts[c] != state.dice_per_colour for c in state.dice_colours) or len(counts) != len(state.dice_colours):
        out.append(f"dice not conserved: {dict(counts)}")
    return out


def play_game(
    players: int | Sequence[str],
    seed: int,
    *,
    deck: Deck | None = None,
    options: dict[str, str] | None = None,
    check: bool = False,
    max_actions: int = 20_000,
) -> tuple[DiceTreasureState, int]:
    """Play one game with :func:`eager_policy`; returns the final state and the number of actions.

    With ``check`` every state is checked with :func:`invariant_problems` (AssertionError on a failure)."""
    names = [f"P{i + 1}" for i in range(players)] if isinstance(players, int) else list(players)
    rng = random.Random(seed)
    state = new_game(names, deck, options)
    for n in range(max_actions):
        if state.phase is Phase.OVER:
            return state, n
        if state.phase in (Phase.TURN, Phase.SOLO_FILL):
            action: Action = eager_policy(state, GAME.legal_actions(state), rng)
        else:
            action = GAME.random_chance(state, rng)
        state = GAME.apply(state, action)
        if check:
            problems = invariant_problems(state)
            if problems:
                raise AssertionError(f"seed {seed} after {action}: {problems}")
    raise RuntimeError(f"seed {seed}: the game did not end within {max_actions} actions")


def perft(state: DiceTreasureState, depth: int) -> int:
    """Number of step sequences of length ``depth`` from ``state``, by :func:`engine.perft.perft`: Dice
    Treasure does not list its chance outcomes (a handful of dice from a bag), so a chance step cuts a sequence
    short and counts once."""
    return _perft.perft(GAME, state, depth)


def move_counts(players: int, seed: int, every: int = 40, depth: int = 2) -> list[dict[str, Any]]:
    """Move counts along one seeded game: at every ``every``-th decision point, the number of legal actions and
    :func:`perft` to ``depth``. Checked in by tests as a data file, so any change to the rules shows up."""
    names = [f"P{i + 1}" for i in range(players)]
    rng = random.Random(seed)
    state = new_game(names)
    out: list[dict[str, Any]] = []
    decisions = 0
    while state.phase is not Phase.OVER:
        if state.phase in (Phase.TURN, Phase.SOLO_FILL):
            actions = GAME.legal_actions(state)
            if decisions % every == 0:
                out.append(
                    {
                        "step": decisions,
                        "phase": GAME.status(state).phase,
                        "legal": len(actions),
                        f"perft{depth}": perft(state, depth),
                    }
                )
            decisions += 1
            action: Action = eager_policy(state, actions, rng)
        else:
            action = GAME.random_chance(state, rng)
        state = GAME.apply(state, action)
    return out
