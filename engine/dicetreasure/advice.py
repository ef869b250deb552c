"""Dice Treasure's "Hint": the active player's placements, leprechaun claims and dice to keep (``end keep``)
ranked by expected gold from seeded playouts.

The options of the decision now are the legal actions but the exchanges (a player asks where a die goes and which
two to keep; exchanges are listed by the page, not ranked). Each is played out with common random numbers
(:func:`engine.advice.rank`) to the end of the current round (``horizon="round end"``): by then every card the
round can complete has been claimed, so the gold a player holds then is what the round earned them. With other
players the options are ranked by the margin of the player's gold over the best other player's then; solo, by
their own gold.

The playout policy is greedy-ish and fast: claim a leprechaun card when one can be claimed, place a die where it
completes a card (the most coins first), otherwise place a random die on a random legal space 9 times in 10,
else end the turn keeping two random dice (of the current and reserve dice); no exchanges. It is the same for
every option.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.advice import Advice, Value, advice_of, margin, rank
from engine.dicetreasure.game import GAME, RESERVE_LIMIT, DiceTreasure, _sorted, target_cards
from engine.dicetreasure.state import (
    Action,
    ClaimBonus,
    DiceTreasureState,
    EndTurn,
    Exchange,
    FinishSetup,
    Phase,
    Place,
    Source,
)

POLICY = "claim a bonus when possible, complete a card when possible, else a random placement 9 in 10; no exchanges"
#: Turns with many options (several dice, many spaces): only this many, by their static value, are played out.
WIDTH = 8


def _game() -> DiceTreasure:
    return GAME


def _completion_coins(state: DiceTreasureState) -> dict[str, int]:
    """Card id -> its coins, for the cards one more die completes (one empty space left)."""
    return {cip.card.id: cip.card.coins for cip in target_cards(state) if sum(d is None for d in cip.dice) == 1}


def _completes(state: DiceTreasureState, action: Place, coins: dict[str, int] | None = None) -> int:
    """The coins of the card ``action`` completes (0 if it completes none)."""
    return (coins if coins is not None else _completion_coins(state)).get(action.card, 0)


def choose(state: DiceTreasureState, legal: list[Action], rng: random.Random) -> Action:
    """The playout policy's choice among ``legal`` (see the module docstring)."""
    claims = [a for a in legal if isinstance(a, ClaimBonus)]
    if claims:
        return rng.choice(claims)
    places = [a for a in legal if isinstance(a, Place)]
    if places:
        table = _completion_coins(state)
        coins = [table.get(a.card, 0) for a in places] if table else [0]
        top = max(coins)
        if top:
            return rng.choice([a for a, c in zip(places, coins, strict=True) if c == top])
        if rng.random() < 0.9:
            return rng.choice(places)
    ends = [a for a in legal if isinstance(a, (EndTurn, FinishSetup))]
    if ends:
        return rng.choice(ends)
    others = [a for a in legal if not isinstance(a, Exchange)]
    return rng.choice(others or legal)


def _turn_choice(game: DiceTreasure, state: DiceTreasureState, rng: random.Random) -> Action:
    """:func:`choose` on a turn without listing every legal action: the exchanges, most of a turn's actions, are
    never chosen by the playout policy, so only claims and placements are listed, and a turn ends keeping up to
    two random dice of the current and reserve dice."""
    claims = game._bonus_claims(state)
    if claims:
        return rng.choice(claims)
    p = state.players[state.active]
    places = [*game._places(state, state.hand, Source.HAND), *game._places(state, p.reserve, Source.RESERVE)]
    if places:
        table = _completion_coins(state)
        if table:
            coins = [table.get(a.card, 0) if isinstance(a, Place) else 0 for a in places]
            top = max(coins)
            if top:
                return rng.choice([a for a, c in zip(places, coins, strict=True) if c == top])
        if rng.random() < 0.9:
            return rng.choice(places)
    pool = [*state.hand, *p.reserve]
    return EndTurn(_sorted(rng.sample(pool, min(RESERVE_LIMIT, len(pool)))))


def policy(state: DiceTreasureState, legal: list[Action], rng: random.Random) -> Action:
    """The playout policy as a policy for :func:`engine.simulate.play` (to measure the hint against it)."""
    if state.phase is Phase.TURN:
        return _turn_choice(_game(), state, rng)
    return choose(state, legal, rng)


def playout_to(round_end: bool) -> Callable[[DiceTreasureState, random.Random], DiceTreasureState]:
    """A playout to the end of the current round (``round_end``) or of the game."""

    def playout(state: DiceTreasureState, rng: random.Random) -> DiceTreasureState:
        game = _game()
        start = state.round
        while state.phase is not Phase.OVER and not (round_end and state.round != start):
            if state.phase is Phase.TURN:
                action = _turn_choice(game, state, rng)
            elif state.phase is Phase.SOLO_FILL:
                action = choose(state, game.legal_actions(state), rng)
            else:
                action = game.random_chance(state, rng)
            state = game.apply(state, action)
        return state

    return playout


def _value_for(seat: int) -> Callable[[DiceTreasureState], Value]:
    def value(final: DiceTreasureState) -> Value:
        totals = [float(p.gold) for p in final.players]
        return totals[seat], margin(totals, seat)

    return value


def _after(state: DiceTreasureState, action: Action, rng: random.Random) -> DiceTreasureState:
    return _game().apply(state, action)


def _static(state: DiceTreasureState, action: Action) -> float:
    """A cheap value to choose which options are played out: a claim's reward, the coins of a card a placement
    completes (plus a little for any placement: a die placed is a step towards a card), keeping dice a little."""
    if isinstance(action, ClaimBonus):
        return 10.0
    if isinstance(action, Place):
        return 1.0 + _completes(state, action)
    if isinstance(action, EndTurn):
        return 0.5 * len(action.keep)
    return 0.0


def advise(
    state: DiceTreasureState, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None
) -> Advice | None:
    """The hint for the active player's decision now, or None (chance awaited, game over, nothing to choose)."""
    game = _game()
    if state.phase not in (Phase.TURN, Phase.SOLO_FILL):
        return None
    legal = [a for a in game.legal_actions(state) if not isinstance(a, Exchange)]
    if not legal:
        return None
    seat = state.active
    ranking = rank(
        state,
        legal,
        after=_after,
        playout=playout_to(round_end=True),
        value=_value_for(seat),
        seed=seed,
        budget_s=budget_s,
        playouts=playouts,
        prior=_static,
        width=WIDTH,
    )


    note = "measured on playouts of the engine's simulator (" + POLICY + "), not on real players; exchanges not ranked"
    if len(legal) > WIDTH:
        note += f"; only the {WIDTH} options with the best static value were played out"
    return advice_of(
        ranking,
        game=game,
        state=state,
        player=state.players[seat].name,
        decision="placements, bonus claims and the dice to keep",
        measure="expected gold" if state.solo else "expected gold margin",
        seed=seed,
        budget_s=budget_s,
        horizon="round end",
        policy=POLICY,
        note=note,
    )


__all__ = ["POLICY", "WIDTH", "advise", "choose", "playout_to", "policy"]
