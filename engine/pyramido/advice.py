"""Pyramido's "Hint": the domino in hand's legal placements (and the dominoes to take) ranked by seeded playouts,
and at a stage's end the best gem activation as the optimiser (:mod:`engine.pyramido.activation`) computes it.

Placements: a domino has up to about fifty legal placements, and a playout costs milliseconds, so the ranking
has two steps. First every placement gets a static value: the points the player's pyramid would score if the
stage ended now with the gems in hand (the optimiser's best activation over the areas after the placement).
Then the ``WIDTH`` best by that value are played out with common random numbers (:func:`engine.advice.rank`) to
the end of the current stage's scoring (``horizon="stage end"``) and ranked by the expected margin of the
player's total then over the best other player's (the Legend in solo). Placements left out of the playouts are
listed after, by their static value.

The playout policy is fast and greedy where it matters: dominoes taken, piles flipped and gems discarded at
random, placements at random, and every stage-end scoring with the optimiser's best activation (a random
activation would throw points away and drown the differences between options).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.advice import Advice, RankedOption, Value, advice_of, margin, rank
from engine.pyramido.activation import best_activation
from engine.pyramido.areas import areas
from engine.pyramido.game import GAME, Pyramido
from engine.pyramido.state import Activate, EndScoring, Phase, Place, PyramidoAction, PyramidoState, Take

#: How many placements (by their static value) are played out; the rest are ranked by that value alone.
WIDTH = 8
POLICY = "random takes, flips, placements and discards; the optimiser's best activation at every stage end"


def _game() -> Pyramido:
    return GAME


def scoring_actions(state: PyramidoState, seat: int) -> list[PyramidoAction]:
    """The optimiser's activation for ``seat`` as actions (activations then end), from what is activated so far."""
    e = state.explorers[seat]
    done = {a.anchor for a in e.activated}
    result = best_activation([a for a in areas(e.pyramid) if a.anchor not in done], e.inventory)
    return [*(Activate(a) for a in result.activations), EndScoring()]


def playout_to(stage_end: bool) -> Callable[[PyramidoState, random.Random], PyramidoState]:
    """A playout to the end of the current stage's scoring (``stage_end``) or of the game."""

    def playout(state: PyramidoState, rng: random.Random) -> PyramidoState:
        game = _game()
        stage = state.stage
        plan: list[PyramidoAction] = []
        while state.phase is not Phase.OVER and not (stage_end and state.stage != stage):
            if state.pending:
                action = game.random_chance(state, rng)
            elif state.phase is Phase.SCORE:
                seat = game.to_move(state)
                assert seat is not None
                if len(state.explorers[seat].stage_scores) < state.stage:
                    if not plan:
                        plan = scoring_actions(state, seat)
                    action = plan.pop(0)
                else:
                    action = rng.choice(game.legal_actions(state))  # a discard down to the limit
            else:
                action = rng.choice(game.legal_actions(state))
            state = game.apply(state, action)
        return state

    return playout


def policy(state: PyramidoState, legal: list[PyramidoAction], rng: random.Random) -> PyramidoAction:
    """The playout policy as a policy for :func:`engine.simulate.play` (to measure the hint against it)."""
    if state.phase is Phase.SCORE:
        seat = _game().to_move(state)
        if seat is not None and len(state.explorers[seat].stage_scores) < state.stage:
            return scoring_actions(state, seat)[0]
    return rng.choice(legal)


def _totals(state: PyramidoState) -> list[float]:
    totals = [float(e.total) for e in state.explorers]
    if state.legend is not None:
        totals.append(float(state.legend.total))
    return totals


def _value_for(seat: int) -> Callable[[PyramidoState], Value]:
    def value(final: PyramidoState) -> Value:
        totals = _totals(final)
        return totals[seat], margin(totals, seat)

    return value


def _after(state: PyramidoState, action: PyramidoAction, rng: random.Random) -> PyramidoState:
    return _game().apply(state, action)


def _static(state: PyramidoState, action: PyramidoAction) -> float:
    """Points the mover's pyramid would score if the stage ended now, after ``action`` (a placement)."""
    seat = _game().to_move(state)
    assert seat is not None and isinstance(action, Place) and state.holding is not None
    e = state.explorers[seat]
    pyramid = e.pyramid.place(state.holding, action.placement)
    return float(best_activation(areas(pyramid), e.inventory).points)


def _activation_advice(state: PyramidoState, seat: int, seed: int, budget_s: float) -> Advice:
    game = _game()
    e = state.explorers[seat]
    done = {a.anchor for a in e.activated}
    result = best_activation([a for a in areas(e.pyramid) if a.anchor not in done], e.inventory)
    actions: list[PyramidoAction] = [*(Activate(a) for a in result.activations), EndScoring()]
    options = []
    for action in actions[:1]:  # the next step of the best activation; the whole plan is in extra
        d = game.describe(state, action)
        options.append(RankedOption(d.text, d.label, d.group, float(result.points), float(result.points), 0.0, 0,
                                    exact=True))
    return Advice(
        game="pyramido",
        player=e.name,
        decision="stage-end gem activation",
        measure="points",
        options=tuple(options),
        rounds=0,
        elapsed_ms=0.0,
        seed=seed,
        budget_s=budget_s,
        horizon="this scoring",
        policy="exact optimiser (engine.pyramido.activation)",
        note=f"the best activation scores {result.points}: {result}",
        extra={"activation": [str(a) for a in result.activations], "actions": [str(a) for a in actions],
               "points": result.points, "area_points": result.area_points, "mythical_left": result.mythical_left},
    )


def advise(state: PyramidoState, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None) -> Advice | None:
    """The hint for the decision now: placements or takes ranked by playouts, the activation at a scoring, or
    None (chance awaited, game over, a flip or a discard: nothing worth ranking)."""
    game = _game()
    if game.status(state).awaiting != "decision":
        return None
    seat = game.to_move(state)
    if seat is None:
        return None
    phase = state.phase
    if phase is Phase.SCORE:
        if len(state.explorers[seat].stage_scores) < state.stage:
            return _activation_advice(state, seat, seed, budget_s)
        return None
    if phase not in (Phase.PLACE, Phase.TAKE):
        return None
    legal = game.legal_actions(state)
    if not legal:
        return None
    placing = phase is Phase.PLACE
    ranking = rank(
        state,
        legal,
        after=_after,
        playout=playout_to(stage_end=True),
        value=_value_for(seat),
        seed=seed,
        budget_s=budget_s,
        playouts=playouts,
        prior=_static if placing else None,
        width=WIDTH if placing else None,
    )

    note = "measured on playouts of the engine's simulator (" + POLICY + "), not on real players"
    if placing and len(legal) > WIDTH:
        note += (f"; only the {WIDTH} placements whose pyramid would score most now were played out, the rest are"
                 " ranked by that static value")
    decision = f"where to place {state.holding}" if placing else "which domino to take"
    assert all(isinstance(a, (Place, Take)) for a in legal)
    return advice_of(
        ranking,
        game=game,
        state=state,
        player=state.explorers[seat].name,
        decision=decision,
        measure="expected margin",
        seed=seed,
        budget_s=budget_s,
        horizon="stage end",
        policy=POLICY,
        note=note,
    )


__all__ = ["POLICY", "WIDTH", "advise", "playout_to", "policy", "scoring_actions"]
