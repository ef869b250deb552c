"""Which legal turn explains what the camera saw (or why none does).

The camera sees the mover's pyramid and the quarry before and after a turn; the take, the placement and
the skill are not seen as separate events. :func:`explain_turn` searches the rest of the mover's turn
(take or reserve -> place -> skill or pass; an A2 re-roll is tried with every outcome and returned as one
skill action carrying the observed value) for the action sequences whose result matches the observation.

- exactly one outcome fits: its actions are returned (sequences with the same result are the same
  turn as far as anyone can tell, e.g. "A6 to the value it already had" and "pass"; the plainest is chosen);
- several different outcomes fit (say the quarry was not observed and two equal dice were available):
  :class:`AmbiguousActionError` listing them, so the players can say which;
- nothing fits: :class:`IllegalActionError` naming what changed and why no legal turn does that.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from engine.dice import Die
from engine.errors import AmbiguousActionError, IllegalActionError
from engine.game import instance
from engine.pyradice import pyramid as pyr
from engine.pyradice.game import PyradiceGame
from engine.pyradice.quarry import Position, position_text
from engine.pyradice.skills import usable_codes
from engine.pyradice.state import (
    Action,
    Pass,
    Phase,
    Place,
    PyradiceState,
    Roll,
    Skill,
    Take,
    UseReserve,
)

_GAME = instance(PyradiceGame)


@dataclass(frozen=True)
class Observation:
    """What the camera saw after the turn: the mover's pyramid, and the quarry and reserve if seen."""

    pyramid: Mapping[pyr.Slot, Die]
    quarry: Mapping[Position, Die] | None = None
    reserve: Die | None = None
    reserve_seen: bool = False


def _dice_text(d: Die | None) -> str:
    return str(d) if d is not None else "nothing"


def describe_change(before: PyradiceState, seen: Observation) -> list[str]:
    """Plain-words differences between the state and the observation (mover's pyramid and quarry)."""
    mine = before.mover.pyramid
    out = []
    for s in pyr.SLOTS:
        a, b = mine.get(s), seen.pyramid.get(s)
        if a != b:
            if a is None:
                out.append(f"new die {b} at {pyr.slot_text(s)}")
            elif b is None:
                out.append(f"die {a} gone from {pyr.slot_text(s)}")
            else:
                out.append(f"{pyr.slot_text(s)} changed from {a} to {b}")
    for s in seen.pyramid:
        if s not in pyr.SLOT_SET:
            out.append(f"a die at {s!r}, which is not a slot")
    if seen.quarry is not None:
        q = before.quarry.dice
        for p in sorted(set(q) | set(seen.quarry)):
            a, b = q.get(p), seen.quarry.get(p)
            if a != b:
                out.append(f"quarry {position_text(p)}: {_dice_text(a)} -> {_dice_text(b)}")
    return out


def _expand(state: PyradiceState) -> list[Action]:
    """Legal next steps, with A2 re-rolls expanded into every outcome (the camera sees the outcome)."""
    if state.phase is Phase.ROLL:
        return [Roll(v) for v in range(1, 7)]
    out: list[Action] = []
    for a in _GAME.legal_actions(state):
        if isinstance(a, Skill) and a.code == "A2" and a.value is None:
            out.extend(Skill("A2", a.target, value=v) for v in range(1, 7))
        else:
            out.append(a)
    return out


def _matches(state: PyradiceState, seat: int, seen: Observation) -> bool:
    p = state.players[seat]
    if dict(p.pyramid) != dict(seen.pyramid):
        return False
    if seen.quarry is not None and dict(state.quarry.dice) != dict(seen.quarry):
        return False
    return not (seen.reserve_seen and p.reserve != seen.reserve)


def _search(
    state: PyradiceState, seat: int, seen: Observation, path: tuple[Action, ...], partial: bool
) -> Iterator[tuple[tuple[Action, ...], PyradiceState]]:
    turn_over = state.phase is Phase.OVER or (state.turn != seat) or (path and state.phase is Phase.TAKE)
    if turn_over or (partial and path):
        if _matches(state, seat, seen):
            yield path, state
        if turn_over:
            return
    me = state.players[seat]
    new_slots = [s for s in seen.pyramid if s not in me.pyramid]
    for action in _expand(state):
        # Prune: the die acquired must be the die that appears in the one new slot (no skill can touch it).
        # (With ``partial`` and no new die yet, a take alone may be what was seen.)
        if isinstance(action, Take | UseReserve):
            if len(new_slots) > 1 or (not new_slots and not partial):
                continue
            die = state.quarry.dice.get(action.position) if isinstance(action, Take) else me.reserve
            if new_slots and die != seen.pyramid[new_slots[0]]:
                continue
        if isinstance(action, Place) and action.slot not in new_slots:
            continue
        yield from _search(_GAME.apply(state, action), seat, seen, (*path, action), partial)


def _plainness(actions: Sequence[Action]) -> tuple[int, int, str]:
    # Fewest actions, then "pass" over a skill that changed nothing visible, then text order.
    return (len(actions), 0 if any(isinstance(a, Pass) for a in actions) else 1, " ; ".join(map(str, actions)))


def explain_turn(state: PyradiceState, seen: Observation, *, partial: bool = False) -> tuple[Action, ...]:
    """The actions of the mover's turn (from ``state``, usually at its start) that produce ``seen``.

    With ``partial=True`` the turn may still be under way: the shortest sequence that matches is
    returned (e.g. take and place, with the skill decision still to come).
    """
    if state.phase is Phase.OVER:
        raise IllegalActionError("the game is over: no turn to explain")
    if state.phase is Phase.ROLL_OFF:
        raise IllegalActionError("the first player is not known yet: no turn to explain")
    seat = state.turn
    found = list(_search(state, seat, seen, (), partial))
    if partial and found:
        shortest = min(len(p) for p, _ in found)
        found = [(p, s) for p, s in found if len(p) == shortest]
    if not found:
        raise IllegalActionError(_why_not(state, seen, partial))
    outcomes: list[tuple[PyradiceState, list[tuple[Action, ...]]]] = []
    for path, end in found:
        for known, paths in outcomes:
            if known == end:
                paths.append(path)
                break
        else:
            outcomes.append((end, [path]))
    if len(outcomes) > 1:
        options = [" ; ".join(str(a) for a in _plainest(group)) for _, group in outcomes]
        raise AmbiguousActionError(
            f"{len(outcomes)} different turns of {state.mover.name} fit what was seen: " + " | ".join(options[:8])
            + (f" and {len(options) - 8} more" if len(options) > 8 else "")
        )
    return _plainest(outcomes[0][1])


def _plainest(paths: list[tuple[Action, ...]]) -> tuple[Action, ...]:
    return sorted(paths, key=_plainness)[0]


def _why_not(state: PyradiceState, seen: Observation, partial: bool) -> str:
    me = state.mover
    changes = describe_change(state, seen)
    head = f"no legal turn of {me.name} explains what was seen ({'; '.join(changes) or 'no change'})"
    gone = [s for s in me.pyramid if s not in seen.pyramid]
    if gone:
        return f"{head}: dice never leave a pyramid, but {', '.join(pyr.slot_text(s) for s in gone)} is now empty"
    new_slots = [s for s in pyr.SLOTS if s in seen.pyramid and s not in me.pyramid]
    if state.phase in (Phase.TAKE, Phase.PLACE) and not partial:
        if len(new_slots) != 1:
            return f"{head}: a turn places exactly one die, but {len(new_slots)} new dice are seen"
        slot = new_slots[0]
        problem = pyr.slot_problem(me.pyramid, slot)
        if problem:
            return f"{head}: {problem}"
        die = seen.pyramid[slot]
        if state.phase is Phase.TAKE:
            sources = [position_text(p) for p in state.quarry.available() if state.quarry.dice[p] == die]
            if me.reserve == die:
                sources.append("the reserve")
            if not sources:
                avail = ", ".join(f"{position_text(p)}={state.quarry.dice[p]}" for p in state.quarry.available())
                return f"{head}: no available quarry die is {die} (available: {avail})"
        elif state.hand != die:
            return f"{head}: the die in hand is {state.hand}, but {die} was placed"
        if slot[0] == 1:
            return f"{head}: a die placed on level 1 allows no skill, so nothing else may change"
        codes = usable_codes(state.board.skills, slot[0])
        return f"{head}: no use of skill {' or '.join(codes)} (level {slot[0]}) gives that result"
    return f"{head}: nothing reachable this turn (phase {state.phase.value}) looks like that"
