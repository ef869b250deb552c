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

The camera's knowledge is partial: a slot or quarry position read in doubt is named in the observation
(``unsure_slots``, ``quarry_unsure``) and left out of the match, so a turn is explained without it when
that is unambiguous, and a die seen in the quarry whose value was not read is ``None``. A quarry die the
game does not know yet (a table set up from the camera, :meth:`Quarry.seen_at_setup`) is learned when the
observation first shows its top: a ``Reveal`` action is part of the explanation.

:func:`explain` also says which skill outcomes were *inferred*: a skill whose only visible effect is one
die of the pyramid showing another value, which a one-pip misread of that die would look exactly like.
Such an outcome is never to be accepted silently: the table shows it and waits for the player's CONFIRM.
A skill that changes two readings consistently (A4: a pyramid die and a quarry die exchanged; A5: two
dice exchanged; B3: a quarry die moved to the reserve), all read sure, is the only explanation and is
not inferred.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from engine.dice import Die
from engine.errors import AmbiguousActionError, GameError, IllegalActionError
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
    PlayerState,
    PyradiceState,
    Reveal,
    Roll,
    Skill,
    Take,
    UseReserve,
)

_GAME = instance(PyradiceGame)


@dataclass(frozen=True)
class Observation:
    """What the camera saw after the turn: the mover's pyramid, and the quarry and reserve if seen.

    ``quarry``: position -> die, or None for a die seen there whose value was not read (covered); positions
    absent are empty. ``unsure_slots`` (of the mover's pyramid) and ``quarry_unsure`` (read in doubt, or not
    seen at all, e.g. under a hand) are left out of the match. ``confidence``: how sure the reader was of
    each die (slot or position -> 0..1), for the players' messages.
    """

    pyramid: Mapping[pyr.Slot, Die]
    quarry: Mapping[Position, Die | None] | None = None
    reserve: Die | None = None
    reserve_seen: bool = False
    unsure_slots: frozenset[pyr.Slot] = frozenset()
    quarry_unsure: frozenset[Position] = frozenset()
    confidence: Mapping[object, float] = field(default_factory=dict)
    #: What the readings in doubt said, taken at face value (slot -> die or None for empty; position -> die,
    #: None for "a die, value not read", or EMPTY_READ): they never decide a match, but when several legal
    #: turns fit and exactly one of them agrees with every doubtful reading as read (the same presence, and a
    #: die's face or colour), that one is the turn.
    as_read: Mapping[object, object] = field(default_factory=dict)


#: A doubtful quarry reading that saw nothing there (:attr:`Observation.as_read`).
EMPTY_READ = "empty"


@dataclass(frozen=True)
class Explanation:
    """The actions that explain an observation, and the skill outcomes among them that were only inferred
    from one die reading another value (each in words): those need the player's CONFIRM."""

    actions: tuple[Action, ...]
    inferred: tuple[str, ...] = ()

    @property
    def needs_confirm(self) -> bool:
        return bool(self.inferred)


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
        q = before.quarry
        for p in sorted(set(q.dice) | q.unknown | set(seen.quarry)):
            if p in seen.quarry_unsure:
                continue
            was = "a die not seen yet" if p in q.unknown else _dice_text(q.dice.get(p))
            if q.present(p) != (p in seen.quarry):
                now = "a die" if seen.quarry.get(p) is None and p in seen.quarry else _dice_text(seen.quarry.get(p))
                out.append(f"quarry {position_text(p)}: {was} -> {now}")
            elif p in seen.quarry and seen.quarry[p] is not None and q.dice.get(p) != seen.quarry[p]:
                out.append(f"quarry {position_text(p)}: {was} -> {_dice_text(seen.quarry[p])}")
    return out


def board_changes(player: PlayerState, pyramid: Mapping[pyr.Slot, Die | None],
                  unsure: frozenset[pyr.Slot] = frozenset()) -> list[str]:
    """Another player's board as read against the game: each slot read sure that differs is a warning ("Ben's
    2,1 changed: bumped?"), since no turn but its owner's changes a pyramid."""
    out = []
    for s in pyr.SLOTS:
        if s in unsure or s not in pyramid:
            continue
        if pyramid[s] != player.pyramid.get(s):
            out.append(f"{player.name}'s {pyr.slot_text(s)} changed: bumped?")
    return out


def unchanged(state: PyradiceState, seen: Observation) -> bool:
    """Whether the observation shows the mover's table as the game has it (readings in doubt left out)."""
    if state.phase in (Phase.OVER, Phase.ROLL_OFF):
        return True
    return _matches(state, state.turn, seen)


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
    if seen.unsure_slots:
        if any(s not in seen.unsure_slots and p.pyramid.get(s) != seen.pyramid.get(s) for s in pyr.SLOTS):
            return False
        if any(s not in pyr.SLOT_SET for s in seen.pyramid):
            return False
    elif dict(p.pyramid) != dict(seen.pyramid):
        return False
    if seen.quarry is not None and not _quarry_matches(state, seen):
        return False
    return not (seen.reserve_seen and p.reserve != seen.reserve)


def _quarry_matches(state: PyradiceState, seen: Observation) -> bool:
    q, view = state.quarry, seen.quarry
    assert view is not None
    if not q.unknown and not seen.quarry_unsure and all(d is not None for d in view.values()):
        return dict(q.dice) == dict(view)  # the whole quarry seen and known: the plain comparison
    for p in q.geometry.positions:
        if p in seen.quarry_unsure:
            continue
        if q.present(p) != (p in view):
            return False
        die = view.get(p)
        if die is not None and q.dice.get(p) != die:
            return False
    return all(q.geometry.contains(p) for p in view)


def _reveal_seen(state: PyradiceState, seen: Observation) -> list[tuple[PyradiceState, tuple[Action, ...]]]:
    """``state`` with every unknown quarry die whose top is now uncovered learned from the observation: what the
    observation shows there, or (a die swapped into the pyramid by skill A4 in the same turn) one of the dice
    that changed in the mover's pyramid. Each way is one alternative; none when a die cannot be learned yet."""
    if not state.quarry.unknown or seen.quarry is None:
        return [(state, ())]
    uncovered = state.quarry.to_reveal()
    todo = [p for p in uncovered if seen.quarry.get(p) is not None and p not in seen.quarry_unsure]
    mine = state.mover.pyramid
    swapped = [d for s, d in seen.pyramid.items() if s in mine and mine[s] != d and s not in seen.unsure_slots]
    # An uncovered die not seen yet whose top reads in doubt, at a skill step whose skill swaps a pyramid die with
    # a quarry die (A4): it may be the die now in the pyramid (its place then shows the pyramid's old die, read in
    # doubt). Each such way is an alternative, and so is leaving it unknown: two that fit are asked about.
    swap_step = (state.phase is Phase.SKILL and state.placed is not None and bool(swapped)
                 and "A4" in usable_codes(state.board.skills, state.placed[0]))
    doubtful = [p for p in uncovered if p in seen.quarry_unsure] if swap_step else []
    if not todo and not doubtful:
        return [(state, ())]
    choices: list[list[Die | None]] = [list(dict.fromkeys([seen.quarry[p], *swapped])) for p in todo]
    choices += [[None, *dict.fromkeys(swapped)] for _ in doubtful]
    out: list[tuple[PyradiceState, tuple[Action, ...]]] = []
    for dice in itertools.product(*choices):
        now, done = state, []
        try:
            for p, die in zip((*todo, *doubtful), dice, strict=True):
                if die is None:
                    continue  # a doubtful top left unknown
                reveal = Reveal(p, die)
                now = _GAME.apply(now, reveal)
                done.append(reveal)
        except GameError:
            continue
        out.append((now, tuple(done)))
    return out


def _search(
    state: PyradiceState, seat: int, seen: Observation, path: tuple[Action, ...], partial: bool
) -> Iterator[tuple[tuple[Action, ...], PyradiceState]]:
    for known, revealed in _reveal_seen(state, seen):
        yield from _search_known(known, seat, seen, (*path, *revealed), partial)


def _search_known(
    state: PyradiceState, seat: int, seen: Observation, path: tuple[Action, ...], partial: bool
) -> Iterator[tuple[tuple[Action, ...], PyradiceState]]:
    moved = any(not isinstance(a, Reveal) for a in path)
    turn_over = state.phase is Phase.OVER or (state.turn != seat) or (moved and state.phase is Phase.TAKE)
    if turn_over or (partial and path):
        if _matches(state, seat, seen):
            yield path, state
        if turn_over:
            return
    me = state.players[seat]
    new_slots = [s for s in seen.pyramid if s not in me.pyramid and s not in seen.unsure_slots]
    # An unsure slot that is empty in the game may be where the die went.
    maybe = [s for s in seen.unsure_slots if s not in me.pyramid]
    for action in _expand(state):
        # Prune: the die acquired must be the die that appears in the one new slot (no skill can touch it).
        # (With ``partial`` and no new die yet, a take alone may be what was seen.)
        if isinstance(action, Take | UseReserve):
            if len(new_slots) > 1 or (not new_slots and not maybe and not partial):
                continue
            die = state.quarry.dice.get(action.position) if isinstance(action, Take) else me.reserve
            if new_slots and die != seen.pyramid[new_slots[0]]:
                continue
        if isinstance(action, Place) and action.slot not in new_slots and action.slot not in maybe:
            continue
        yield from _search(_GAME.apply(state, action), seat, seen, (*path, action), partial)


def _plainness(actions: Sequence[Action]) -> tuple[int, int, str]:
    # Fewest actions, then "pass" over a skill that changed nothing visible, then text order.
    return (len(actions), 0 if any(isinstance(a, Pass) for a in actions) else 1, " ; ".join(map(str, actions)))


def explain_turn(state: PyradiceState, seen: Observation, *, partial: bool = False) -> tuple[Action, ...]:
    """The actions of the mover's turn (from ``state``, usually at its start) that produce ``seen``.

    With ``partial=True`` the turn may still be under way: the shortest sequence that matches is
    returned (e.g. take and place, with the skill decision still to come). :func:`explain` also says
    which skill outcomes were only inferred.
    """
    return explain(state, seen, partial=partial).actions


def explain(state: PyradiceState, seen: Observation, *, partial: bool = False) -> Explanation:
    """:func:`explain_turn` with the inferred skill outcomes named (see the module's docstring)."""
    actions = _explain_actions(state, seen, partial)
    return Explanation(actions, tuple(_inferred(state, actions, seen)))


def _inferred(state: PyradiceState, actions: Sequence[Action], seen: Observation) -> Iterator[str]:
    """The skill uses among ``actions`` that only one die reading another value shows (or that touch a
    reading in doubt): a misread of that die would look the same."""
    for action in actions:
        after = _GAME.apply(state, action)
        if isinstance(action, Skill):
            before_p, after_p = state.mover.pyramid, after.players[state.turn].pyramid
            changed = [s for s in pyr.SLOTS if before_p.get(s) != after_p.get(s)]
            quarry_changed = [p for p in set(state.quarry.dice) | set(after.quarry.dice)
                              if state.quarry.dice.get(p) != after.quarry.dice.get(p)]
            reserve_changed = state.mover.reserve != after.players[state.turn].reserve
            doubtful = [s for s in changed if s in seen.unsure_slots] + [
                p for p in quarry_changed if p in seen.quarry_unsure]
            one_value = (len(changed) == 1 and not quarry_changed and not reserve_changed
                         and before_p[changed[0]].colour == after_p[changed[0]].colour)
            if one_value or doubtful:
                slot = changed[0] if changed else None
                what = (f"{pyr.slot_text(slot)} now reads {after_p[slot]} (was {before_p[slot]})"
                        if slot is not None and slot in before_p and slot in after_p else "a doubtful reading")
                yield f"skill {action}: {what}; a misread would look the same"
        state = after


def outcomes(state: PyradiceState, seen: Observation, *, partial: bool = False) -> list[tuple[Action, ...]]:
    """Every different outcome of the mover's turn that fits ``seen`` with the readings in doubt left out (the
    plainest actions of each), before :attr:`Observation.as_read` is consulted; empty when none fits."""
    if state.phase in (Phase.OVER, Phase.ROLL_OFF):
        return []
    return [_plainest(group) for _, group in _outcomes(state, seen, partial)]


def _outcomes(state: PyradiceState, seen: Observation, partial: bool
              ) -> list[tuple[PyradiceState, list[tuple[Action, ...]]]]:
    found = list(_search(state, state.turn, seen, (), partial))
    if partial and found:
        # A die in hand fits only because the slot it went to reads in doubt: when placing it there fits as
        # well, it was placed (with every slot read sure the two cannot both fit).
        if any(s.phase is not Phase.PLACE for _, s in found) and any(s.phase is Phase.PLACE for _, s in found):
            found = [(p, s) for p, s in found if s.phase is not Phase.PLACE]
        shortest = min(len(p) for p, _ in found)
        found = [(p, s) for p, s in found if len(p) == shortest]
    out: list[tuple[PyradiceState, list[tuple[Action, ...]]]] = []
    for path, end in found:
        for known, paths in out:
            if known == end:
                paths.append(path)
                break
        else:
            out.append((end, [path]))
    return out


def _explain_actions(state: PyradiceState, seen: Observation, partial: bool) -> tuple[Action, ...]:
    if state.phase is Phase.OVER:
        raise IllegalActionError("the game is over: no turn to explain")
    if state.phase is Phase.ROLL_OFF:
        raise IllegalActionError("the first player is not known yet: no turn to explain")
    seat = state.turn
    outcomes = _outcomes(state, seen, partial)
    if not outcomes:
        raise IllegalActionError(_why_not(state, seen, partial))
    if len(outcomes) > 1 and seen.as_read:
        agreeing = [o for o in outcomes if _agrees_as_read(o[0], seat, seen)]
        if len(agreeing) == 1:
            outcomes = agreeing
    if len(outcomes) > 1:
        options = [" ; ".join(str(a) for a in _plainest(group)) for _, group in outcomes]
        raise AmbiguousActionError(
            f"{len(outcomes)} different turns of {state.mover.name} fit what was seen: " + " | ".join(options[:8])
            + (f" and {len(options) - 8} more" if len(options) > 8 else "")
        )
    return _plainest(outcomes[0][1])


def _agrees_as_read(state: PyradiceState, seat: int, seen: Observation) -> bool:
    """Whether every doubtful reading, taken as read, agrees with ``state`` (the mover's pyramid, the quarry)."""
    mine = state.players[seat].pyramid
    q = state.quarry
    for where, read in seen.as_read.items():
        if isinstance(where, tuple) and len(where) == 2:  # a slot of the mover's pyramid
            if not alike(mine.get(where), read):
                return False
        elif isinstance(where, tuple) and len(where) == 3:
            pos: Position = where
            if read == EMPTY_READ:
                if q.present(pos):
                    return False
            elif not q.present(pos) or (read is not None and not alike(q.dice.get(pos), read)):
                return False
    return True


def alike(die: object, read: object) -> bool:
    """A doubtful reading agrees with a die when both say nothing is there, or both see a die and the reading
    has its face or its colour right (a reading in doubt is usually in doubt about one of the two)."""
    if die is None or read is None:
        return die is None and read is None
    if isinstance(die, Die) and isinstance(read, Die):
        return die.value == read.value or die.colour == read.colour
    return False


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
            sources = [position_text(p) for p in state.quarry.available() if state.quarry.dice.get(p) == die]
            if me.reserve == die:
                sources.append("the reserve")
            if not sources:
                avail = ", ".join(f"{position_text(p)}={state.quarry.dice.get(p, 'not seen yet')}"
                                  for p in state.quarry.available())
                return f"{head}: no available quarry die is {die} (available: {avail})"
        elif state.hand != die:
            return f"{head}: the die in hand is {state.hand}, but {die} was placed"
        if slot[0] == 1:
            return f"{head}: a die placed on level 1 allows no skill, so nothing else may change"
        codes = usable_codes(state.board.skills, slot[0])
        return f"{head}: no use of skill {' or '.join(codes)} (level {slot[0]}) gives that result"
    return f"{head}: nothing reachable this turn (phase {state.phase.value}) looks like that"
