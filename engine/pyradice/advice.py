"""Pyradice's "Hint": the options of the decision now ranked by expected final score margin from seeded playouts.

The decisions ranked: which die to take (the available quarry dice, and the reserve die), where to place the die
in hand (its legal slots), and whether and how to use the skill of the level just placed on. Each option is
played out to the end of the game (:func:`engine.advice.rank`: common random numbers, whole rounds within the time
budget) by the playout policy below, and is worth the mover's final total minus the best other player's.

The playout policy is greedy-ish and fast: a uniformly random available die is taken, it goes on the open slot
where its level's objective token fares best (met, else still possible; ties at random), and no skill is used.
It is a stand-in for real players, not a model of them; it is the same for every option, so what differs
between options is the option.

A table read by the camera may not know the covered quarry dice yet (``Quarry.unknown``): each playout first
draws them from the dice the box(es) still hold, at random faces, so a playout never uses what nobody has seen.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

from engine.advice import Advice, Value, advice_of, margin, rank
from engine.pyradice import pyramid as pyr
from engine.pyradice.game import PyradiceGame, _colour_count, _open_slots
from engine.pyradice.objectives import outlook, solutions
from engine.pyradice.quarry import COLOURS, DICE_PER_COLOUR, Quarry, shared_die
from engine.pyradice.state import PASS, Action, Phase, PyradiceState, place

_GAME: PyradiceGame | None = None
#: Skill steps have up to about a hundred uses; only this many, by the score they give at once, are played out.
SKILL_WIDTH = 10
POLICY = "random take, greedy place (the slot's level objective: met > possible > impossible), no skills"


def _game() -> PyradiceGame:
    global _GAME
    if _GAME is None:
        from engine.game import find_game

        game = find_game("pyradice")
        assert isinstance(game, PyradiceGame)
        _GAME = game
    return _GAME


def determinize(state: PyradiceState, rng: random.Random) -> PyradiceState:
    """``state`` with every unknown quarry die drawn from the dice the box(es) still hold, at a random face."""
    quarry = state.quarry
    if not quarry.unknown:
        return state
    pool = [c for c in COLOURS for _ in range(max(0, DICE_PER_COLOUR * quarry.boxes - _colour_count(state, c)))]
    rng.shuffle(pool)
    dice = dict(quarry.dice)
    for k, pos in enumerate(sorted(quarry.unknown)):
        colour = pool[k] if k < len(pool) else COLOURS[k % len(COLOURS)]
        dice[pos] = shared_die(rng.randint(1, 6), colour)
    from dataclasses import replace

    return replace(state, quarry=Quarry(quarry.boxes, dice))


_OUTLOOK_POINTS = {"met": 5, "possible": 1, "impossible": 0}


@functools.lru_cache(maxsize=1 << 16)
def _level_points(token: str, values: tuple[int | None, ...], peak: str) -> int:
    # Memoised: playouts meet the same few level fillings over and over.
    return _OUTLOOK_POINTS[outlook(token, values, peak=peak)]


def clear_caches() -> None:
    """Forget what :func:`warm` and the playouts worked out (to time a first hint, as in a fresh process)."""
    solutions.cache_clear()
    _level_points.cache_clear()


def warm(state: PyradiceState) -> None:
    """Work out once per process what the board's objective tokens allow (``objectives.solutions``, cached):
    the first hint of a game would otherwise spend up to a second on it."""
    peak = state.options.get("peak", "unimodal")
    for level, token in enumerate(state.board.objectives, start=1):
        solutions(token, pyr.level_size(level), peak)


def greedy_place(game: PyradiceGame, state: PyradiceState, rng: random.Random) -> Action:
    """Where the playout policy puts the die in hand: the open slot whose level's objective token fares best
    with it (met 5 > still possible 1 > impossible 0; levels 6 has no token and counts 1), ties at random.

    Only the slot's own level is looked at, which keeps a playout cheap (the four cards are not scored on the
    way: they are scored at the end)."""
    me = state.players[state.turn]
    die = state.hand
    assert die is not None
    peak = state.options.get("peak", "unimodal")
    objectives = state.board.objectives
    best: list[pyr.Slot] = []
    top = -1
    for slot in _open_slots(me):
        level = slot[0]
        if level > 5:
            points = 1
        else:
            values = pyr.level_values(me.pyramid, level)
            values[slot[1]] = die.value
            points = _level_points(objectives[level - 1], tuple(values), peak)
        if points > top:
            top, best = points, [slot]
        elif points == top:
            best.append(slot)
    return place(best[0] if len(best) == 1 else rng.choice(best))


def playout(state: PyradiceState, rng: random.Random) -> PyradiceState:
    """Play on to the end of the game with the playout policy (chance from ``rng``)."""
    game = _game()
    while True:
        phase = state.phase
        if phase is Phase.OVER:
            return state
        if phase is Phase.ROLL_OFF or phase is Phase.ROLL:
            action = game.random_chance(state, rng)
        elif phase is Phase.SKILL:
            action = PASS
        elif phase is Phase.PLACE:
            action = greedy_place(game, state, rng)
        else:
            action = rng.choice(game.legal_actions(state))
        state = game.apply(state, action)


def policy(state: PyradiceState, legal: list[Action], rng: random.Random) -> Action:
    """The playout policy as a policy for :func:`engine.simulate.play` (for measuring the hint against it)."""
    if state.phase is Phase.PLACE:
        return greedy_place(_game(), state, rng)
    if state.phase is Phase.SKILL:
        return PASS
    return rng.choice(legal)


def _value_for(seat: int) -> Callable[[PyradiceState], Value]:
    def value(final: PyradiceState) -> Value:
        game = _game()
        totals = [float(game.player_score(final, p).total) for p in final.players]
        return totals[seat], margin(totals, seat)

    return value


def _after(state: PyradiceState, action: Action, rng: random.Random) -> PyradiceState:
    return _game().apply(determinize(state, rng), action)


def _prior(state: PyradiceState, action: Action) -> float:
    game = _game()
    after = game.apply(state, action)
    return float(game.player_score(after, after.players[state.turn]).total)


def advise(state: PyradiceState, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None) -> Advice | None:
    """The hint for the decision now, or None when there is none (game over, chance awaited, one option only is
    still a hint: it is shown with its value)."""
    game = _game()
    if game.status(state).awaiting != "decision":
        return None
    legal = game.legal_actions(state)
    if not legal:
        return None
    warm(state)  # outside the budget: once per board per process (see docs/pyradice.md)
    phase = state.phase
    seat = state.turn
    skill = phase is Phase.SKILL
    ranking = rank(
        state,
        legal,
        after=_after,
        playout=playout,
        value=_value_for(seat),
        seed=seed,
        budget_s=budget_s,
        playouts=playouts,
        prior=_prior if skill else None,
        width=SKILL_WIDTH if skill else None,
    )


    decision = {Phase.TAKE: "which die to take", Phase.PLACE: f"where to place {state.hand}",
                Phase.SKILL: "which skill use (or pass)"}.get(phase, phase.value)
    note = "measured on playouts of the engine's simulator (policy: " + POLICY + "), not on real players"
    if skill and len(legal) > SKILL_WIDTH:
        note += f"; only the {SKILL_WIDTH} uses scoring most at once were played out"
    return advice_of(
        ranking,
        game=game,
        state=state,
        player=state.players[seat].name,
        decision=decision,
        measure="expected margin",
        seed=seed,
        budget_s=budget_s,
        horizon="game end",
        policy=POLICY,
        note=note,
    )


__all__ = ["POLICY", "advise", "clear_caches", "determinize", "greedy_place", "playout", "policy"]
