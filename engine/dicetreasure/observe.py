"""From what the camera saw on the cards to the legal actions that explain it.

The camera reports, for the cards it can see, the dice on each space. Given the state before (which holds the
dice already on the cards) and such a report after the player has placed, :func:`explain_placements` lists the
sequences of legal actions that lead there: which new die came from the current dice, which from the personal
reserve, and which was first taken from the common reserve by an exchange. The device shows the shortest ones and
asks the players when those disagree. A die that moved or vanished from a card, or a placement no source or rule
allows, raises an error naming the card, the space and the reason.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from engine.dice import Die
from engine.dicetreasure.game import GAME
from engine.dicetreasure.placement import target_cards
from engine.dicetreasure.state import Action, DiceTreasureState, Exchange, Phase, Place, Source
from engine.errors import AmbiguousActionError, IllegalActionError, InvalidActionError

#: What the camera reports: card id -> the die on each space, in the deck file's order (None = empty).
SeenCards = Mapping[str, Sequence[Die | None]]
MAX_EXPLANATIONS = 200
MAX_TRIES = 5000  # sequences tried; exchanges paid with any die multiply quickly


@dataclass(frozen=True)
class Explanation:
    """A legal sequence of actions that turns the state into what was seen, and the state it leads to."""

    actions: tuple[Action, ...]
    state: DiceTreasureState

    def __str__(self) -> str:
        return "; ".join(str(a) for a in self.actions)


def new_dice(state: DiceTreasureState, seen: SeenCards) -> list[tuple[str, int, Die]]:
    """``(card id, space number, die)`` for every die seen that was not there before; raise if a die was moved,
    changed or removed (dice stay on their card until the round ends) or a card is unknown."""
    cards = {c.card.id: c for c in target_cards(state)}
    out = []
    for card_id, dice in seen.items():
        cip = cards.get(card_id)
        if cip is None:
            raise InvalidActionError(
                f"card {card_id!r} was seen, but the player may place only on {', '.join(cards) or 'no cards'} now"
            )
        if len(dice) != len(cip.dice):
            raise InvalidActionError(f"card {card_id}: {len(dice)} spaces seen, the card has {len(cip.dice)}")
        for i, (was, now) in enumerate(zip(cip.dice, dice, strict=True), 1):
            if was is not None and now != was:
                what = "is gone" if now is None else f"became {now}"
                raise IllegalActionError(
                    f"card {card_id} space {i}: {was} {what}; dice stay on their card until the round ends"
                )
            if was is None and now is not None:
                out.append((card_id, i, now))
    return out


def _sources(
    state: DiceTreasureState, todo: list[tuple[str, int, Die]], hand: list[Die], reserve: list[Die], common: list[Die]
) -> Iterator[list[Action]]:
    """Every way to source the placements in ``todo`` from the remaining dice."""
    if not todo:
        yield []
        return
    (card_id, space, die), rest = todo[0], todo[1:]
    if state.phase is Phase.SOLO_FILL:
        if die in common:
            left = list(common)
            left.remove(die)
            for tail in _sources(state, rest, hand, reserve, left):
                yield [Place(die, card_id, space, Source.COMMON), *tail]
        return
    for source, pool in ((Source.HAND, hand), (Source.RESERVE, reserve)):
        if die in pool:
            left = list(pool)
            left.remove(die)
            h, r = (left, reserve) if source is Source.HAND else (hand, left)
            for tail in _sources(state, rest, h, r, common):
                yield [Place(die, card_id, space, source), *tail]
    if state.solo or die not in common:
        return
    # Taken from the common reserve first, paid with a current or reserve die.
    for source, pool in ((Source.HAND, hand), (Source.RESERVE, reserve)):
        for give in dict.fromkeys(pool):
            if give == die:
                continue
            left = list(pool)
            left.remove(give)
            c = list(common)
            c.remove(die)
            c.append(give)
            h, r = (left, reserve) if source is Source.HAND else (hand, left)
            for tail in _sources(state, rest, h, r, c):
                yield [Exchange(give, die, source), Place(die, card_id, space, source), *tail]


def check_before(state: DiceTreasureState, before: SeenCards) -> None:
    """Raise InvalidActionError naming the card and space where what the camera saw before the turn differs from
    the dice the game has on the cards (the table and the game disagree; the players must fix one)."""
    cards = {c.card.id: c for c in target_cards(state)}
    for card_id, dice in before.items():
        cip = cards.get(card_id)
        if cip is None:
            raise InvalidActionError(f"card {card_id!r} was seen before the turn, but is not in play for this player")
        for i, (have, saw) in enumerate(zip(cip.dice, dice, strict=False), 1):
            if have != saw:
                raise InvalidActionError(
                    f"card {card_id} space {i}: the camera saw {saw or 'nothing'} before the turn, "
                    f"the game has {have or 'nothing'}"
                )


def explain_placements(state: DiceTreasureState, seen: SeenCards, before: SeenCards | None = None) -> list[Explanation]:
    """Every legal action sequence (shortest first) that puts the dice seen on the cards; an empty list is never
    returned: nothing new gives ``[Explanation((), state)]`` and an impossible change raises an error.

    ``before``, if given, is what the camera saw on the cards before the turn; it must agree with ``state``."""
    if state.phase not in (Phase.TURN, Phase.SOLO_FILL):
        raise IllegalActionError(f"no placement is possible now (phase {state.phase.value})")
    if before is not None:
        check_before(state, before)
    todo = new_dice(state, seen)
    if not todo:
        return [Explanation((), state)]
    hand, reserve, common = list(state.hand), list(state.players[state.active].reserve), list(state.common)
    out: dict[tuple[Action, ...], Explanation] = {}
    first_error: str | None = None
    for tries, actions in enumerate(_sources(state, todo, hand, reserve, common)):
        if tries >= MAX_TRIES:
            break
        key = tuple(actions)
        if key in out:
            continue
        now = state
        try:
            for action in actions:
                now = GAME.apply(now, action)
        except IllegalActionError as exc:
            first_error = first_error or str(exc)
            continue
        out[key] = Explanation(key, now)
        if len(out) >= MAX_EXPLANATIONS:
            break
    if not out:
        if first_error is None:
            card_id, space, die = next(
                t for t in todo if t[2] not in (*hand, *reserve) and not (t[2] in common and not state.solo)
            )
            raise IllegalActionError(
                f"card {card_id} space {space}: {die} is not among the current dice, the personal reserve"
                + ("" if state.solo else " or the common reserve")
            )
        raise IllegalActionError(first_error)
    return sorted(out.values(), key=lambda e: len(e.actions))


def explain_one(state: DiceTreasureState, seen: SeenCards, before: SeenCards | None = None) -> Explanation:
    """The one shortest explanation; AmbiguousActionError listing them when several shortest ones lead to
    different states (for instance a die that could have come from the hand or from the reserve)."""
    options = explain_placements(state, seen, before)
    shortest = [e for e in options if len(e.actions) == len(options[0].actions)]
    if len({GAME.state_to_json(e.state) for e in shortest}) > 1:
        listed = " | ".join(str(e) for e in shortest[:6])
        raise AmbiguousActionError(f"{len(shortest)} ways explain what was seen; say which: {listed}")
    return shortest[0]
