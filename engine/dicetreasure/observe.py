"""From what the camera saw on the cards to the legal actions that explain it.

The camera reports, for the cards it can see, the dice on each space. Given the state before (which holds the
dice already on the cards) and such a report after the player has placed, :func:`explain_placements` lists the
sequences of legal actions that lead there: which new die came from the current dice, which from the personal
reserve, and which was first taken from the common reserve by an exchange. The device shows the shortest ones and
asks the players when those disagree. A die that moved or vanished from a card, or a placement no source or rule
allows, raises an error naming the card, the space and the reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from engine.dice import Die
from engine.dicetreasure.game import GAME
from engine.dicetreasure.placement import target_cards
from engine.dicetreasure.state import (
    Action,
    Deal,
    DiceTreasureState,
    EndTurn,
    Exchange,
    FinishSetup,
    Phase,
    Place,
    Reserve,
    Roll,
    Source,
)
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
    claimed = {c.id for p in state.players for c in p.claimed}
    out = []
    for card_id, dice in seen.items():
        cip = cards.get(card_id)
        if cip is None and card_id in claimed:
            continue  # a claimed card still in view is no error: its dice stay until the round ends
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
        raise IllegalActionError(first_error or _unsourced(state, todo))
    return sorted(out.values(), key=lambda e: len(e.actions))


def _unsourced(state: DiceTreasureState, todo: Sequence[tuple[str, int, Die]]) -> str:
    """Why no sequence of legal actions can source the new dice ``todo``, naming a card, a space and the die."""
    hand, reserve, common = state.hand, state.players[state.active].reserve, state.common
    if state.phase is Phase.SOLO_FILL:
        pools: tuple[tuple[str, Sequence[Die]], ...] = (("the common reserve", common),)
    elif state.solo:
        pools = (("the current dice", hand), ("the personal reserve", reserve))
    else:
        pools = (("the current dice", hand), ("the personal reserve", reserve), ("the common reserve", common))
    held = Counter(d for _, pool in pools for d in pool)
    wanted = Counter(die for _, _, die in todo)
    where = ", ".join(name for name, _ in pools[:-1]) + (" or " if len(pools) > 1 else "") + pools[-1][0]
    for card_id, space, die in todo:
        if held[die] == 0:
            return f"card {card_id} space {space}: {die} is not among {where}"
    for card_id, space, die in todo:
        if wanted[die] > held[die]:
            return (f"card {card_id} space {space}: {wanted[die]} dice {die} are new on the cards, but {where} "
                    f"hold only {held[die]}")
    # Every die is there, but those from the common reserve must each be paid with another die.
    from_common = [t for t in todo if t[2] not in (*hand, *reserve)]
    payers = len(hand) + len(reserve) - sum(1 for t in todo if t[2] in (*hand, *reserve))
    if from_common and payers < len(from_common):
        card_id, space, die = from_common[0]
        return (f"card {card_id} space {space}: {die} can only come from the common reserve, and no current or "
                "reserve die is left to pay the exchange")
    card_id, space, die = todo[0]
    return f"card {card_id} space {space}: the dice seen on the cards cannot all have come from {where}"


def explain_one(state: DiceTreasureState, seen: SeenCards, before: SeenCards | None = None) -> Explanation:
    """The one shortest explanation; AmbiguousActionError listing them when several shortest ones lead to
    different states (for instance a die that could have come from the hand or from the reserve)."""
    options = explain_placements(state, seen, before)
    shortest = [e for e in options if len(e.actions) == len(options[0].actions)]
    if len({GAME.state_to_json(e.state) for e in shortest}) > 1:
        listed = " | ".join(str(e) for e in shortest[:6])
        raise AmbiguousActionError(f"{len(shortest)} ways explain what was seen; say which: {listed}")
    return shortest[0]


# --- the whole table: deals, rolls, exchanges, the end of a turn, the solo fill ----------------------------


@dataclass(frozen=True)
class TableSeen:
    """What the camera saw on a still table, as far as it was read surely (``None``: not read, so not used).

    ``cards``: card id -> the die on each space (every card identified, wherever it lies); ``mats``: seat
    (0-based) -> the ids of the cards on that player's card spots (for deals); ``tray``: the dice in the tray;
    ``reserves``: seat -> the dice in that player's personal reserve; ``common``: the common reserve."""

    cards: Mapping[str, Sequence[Die | None]]
    mats: Mapping[int, Sequence[str]] | None = None
    tray: Sequence[Die] | None = None
    reserves: Mapping[int, Sequence[Die]] | None = None
    common: Sequence[Die] | None = None


def _roll_of(state: DiceTreasureState, tray: Sequence[Die]) -> Roll:
    """The tray's dice as the roll (colours in the game's order, then faces: the order dice lie in is no fact)."""
    order = {c: i for i, c in enumerate(state.dice_colours)}
    return Roll(tuple(sorted(tray, key=lambda d: (order.get(d.colour or "", 99), d.value))))


def _apply_all(state: DiceTreasureState, actions: Sequence[Action]) -> DiceTreasureState:
    for action in actions:
        state = GAME.apply(state, action)
    return state


def _keep(state: DiceTreasureState, seen: TableSeen, now: DiceTreasureState) -> tuple[Die, ...] | None:
    """The dice the active player keeps at the end of the turn: the personal reserve seen (None: not read)."""
    if seen.reserves is None or now.active not in seen.reserves:
        return None
    order = {c: i for i, c in enumerate(state.dice_colours)}
    return tuple(sorted(seen.reserves[now.active], key=lambda d: (order.get(d.colour or "", 99), d.value)))


def _mine(state: DiceTreasureState, seen: TableSeen) -> dict[str, Sequence[Die | None]]:
    """The cards seen that the active player may place on now."""
    targets = {c.card.id for c in target_cards(state)}
    return {card: dice for card, dice in seen.cards.items() if card in targets}


def _same(a: Sequence[Die], b: Sequence[Die]) -> bool:
    return Counter(a) == Counter(b)


def _swaps(now: DiceTreasureState, tray: Sequence[Die], reserve: Sequence[Die] | None) -> list[Action] | None:
    """Exchanges with the common reserve that turn ``now``'s current dice into the ``tray`` seen and its personal
    reserve into ``reserve`` (None: not read, unchanged); None when no exchanges do (or nothing changed)."""
    hand_gives = list((Counter(now.hand) - Counter(tray)).elements())
    hand_takes = list((Counter(tray) - Counter(now.hand)).elements())
    mine = now.players[now.active].reserve
    res_gives = list((Counter(mine) - Counter(reserve)).elements()) if reserve is not None else []
    res_takes = list((Counter(reserve) - Counter(mine)).elements()) if reserve is not None else []
    if now.solo or len(hand_gives) != len(hand_takes) or len(res_gives) != len(res_takes):
        return None
    if not hand_gives and not res_gives:
        return None
    from_hand: list[Action] = [Exchange(g, t) for g, t in zip(hand_gives, hand_takes, strict=True)]
    from_reserve: list[Action] = [Exchange(g, t, Source.RESERVE) for g, t in zip(res_gives, res_takes, strict=True)]
    # A die given with one exchange may be the one taken with the other: try both orders.
    for actions in ([*from_hand, *from_reserve], [*from_reserve, *from_hand]):
        try:
            _apply_all(now, actions)
        except IllegalActionError:
            continue
        return actions
    return None


def _end_with(now: DiceTreasureState, keep: Sequence[Die]) -> list[Action] | None:
    """The end of the turn keeping ``keep``: a kept die that was neither current nor in the personal reserve was
    taken from the common reserve, paid with a die that goes there anyway (which one makes no difference)."""
    mine = now.players[now.active].reserve
    pool = Counter([*now.hand, *mine])
    needed = list((Counter(keep) - pool).elements())
    spare = list((pool - Counter(keep)).elements())
    actions: list[Action] = []
    for take in needed:
        if now.solo or not spare:
            return None
        give = spare.pop(0)
        actions.append(Exchange(give, take, Source.HAND if give in now.hand else Source.RESERVE))
    actions.append(EndTurn(tuple(keep)))
    try:
        _apply_all(now, actions)
    except IllegalActionError:
        return None
    return actions


def explain_table(state: DiceTreasureState, seen: TableSeen, *, depth: int = 0) -> Explanation:
    """The legal actions that turn ``state`` into the table seen: cards dealt to the players' mats, the roll in
    the tray, dice placed (from the tray, the personal reserve, or taken from the common reserve), exchanges, the
    end of the turn (the tray empty: what lies in the personal reserve is kept, the rest went to the common
    reserve), and in the solo game's last turns the fill of the new cards and the dice taken into the reserve.

    What the camera cannot see (the leprechaun cards laid out at setup, a claim) is not explained: the state
    reached waits for it. Nothing new gives ``Explanation((), state)``. Raises IllegalActionError naming what
    is wrong when the table cannot have come from ``state`` by legal actions, and AmbiguousActionError when
    what was seen leaves several different states possible."""
    if depth > 12:
        return Explanation((), state)
    phase = state.phase
    if phase in (Phase.OVER, Phase.BONUS):
        return Explanation((), state)
    if phase in (Phase.DEAL, Phase.SOLO_DEAL):
        return _explain_deal(state, seen, depth)
    if phase is Phase.ROLL:
        return _explain_roll(state, seen, depth)
    if phase is Phase.SOLO_FILL:
        return _explain_fill(state, seen, depth)
    return _explain_turn(state, seen, depth)


def _then(first: Sequence[Action], state: DiceTreasureState, seen: TableSeen, depth: int) -> Explanation:
    rest = explain_table(state, seen, depth=depth + 1)
    return Explanation((*first, *rest.actions), rest.state)


def _explain_deal(state: DiceTreasureState, seen: TableSeen, depth: int) -> Explanation:
    from engine.dicetreasure.game import deal_count, dealt_player

    seat = dealt_player(state)
    if seen.mats is None or seat not in seen.mats:
        return Explanation((), state)
    count = deal_count(state)
    # The pile, and the discards too when the pile runs short (they are shuffled in); cards claimed or still in
    # play are no deal, and last round's cards may still lie on the mat (they are not counted).
    dealable = {c.id for c in state.draw_pile}
    if len(state.draw_pile) < count:
        dealable |= {c.id for c in state.discards}
    fresh = [c for c in dict.fromkeys(seen.mats[seat]) if c in dealable]
    if len(fresh) < count:
        return Explanation((), state)  # the cards are not all laid out yet
    if len(fresh) > count:
        raise IllegalActionError(f"{len(fresh)} new motif cards lie on {state.players[seat].name}'s mat "
                                 f"({' '.join(fresh)}); {count} are dealt")
    action = Deal(state.players[seat].name, tuple(fresh))
    return _then([action], GAME.apply(state, action), seen, depth)


def _explain_roll(state: DiceTreasureState, seen: TableSeen, depth: int) -> Explanation:
    if not seen.tray:
        return Explanation((), state)
    want = state.dice_to_roll()
    if len(seen.tray) != want:
        raise IllegalActionError(f"the tray holds {len(seen.tray)} dice; {state.players[state.active].name} draws "
                                 f"{want} now: roll them all in the tray")
    action = _roll_of(state, seen.tray)
    return _then([action], GAME.apply(state, action), seen, depth)


def _explain_fill(state: DiceTreasureState, seen: TableSeen, depth: int) -> Explanation:
    """Solo, before the last turns: dice from the common reserve on the new cards, then up to 2 into the
    personal reserve; the roll in the tray says the fill is over."""
    mine = _mine(state, seen)
    actions: list[Action] = list(explain_one(state, mine).actions) if mine else []
    now = _apply_all(state, actions)
    if now.phase is not Phase.SOLO_FILL:
        return Explanation(tuple(actions), now)
    keep = _keep(state, seen, now)
    if keep is not None and not _same(keep, now.players[0].reserve):
        extra = list((Counter(keep) - Counter(now.players[0].reserve)).elements())
        if Counter(now.players[0].reserve) - Counter(keep):
            raise IllegalActionError("a die left the personal reserve while the new cards are being filled")
        for die in extra:
            action: Action = Reserve(die)
            now = GAME.apply(now, action)
            actions.append(action)
    if seen.tray:
        action = FinishSetup()
        now = GAME.apply(now, action)
        return _then([*actions, action], now, seen, depth)
    return Explanation(tuple(actions), now)


def _explain_turn(state: DiceTreasureState, seen: TableSeen, depth: int) -> Explanation:
    """A turn: placements (with the exchanges they need), exchanges seen in the tray or the personal reserve, and
    the end of the turn (the tray emptied; or the next player's roll lies in it)."""
    mine = _mine(state, seen)
    options = explain_placements(state, mine) if mine else [Explanation((), state)]
    tray = seen.tray
    reserve = _keep(state, seen, state)  # sorted as a keep is named
    fits: list[Explanation] = []
    for option in options:
        now = option.state
        if now.phase is not Phase.TURN or tray is None:
            fits.append(option)  # the game ended on this placement (solo goal), or the tray was not read
            continue
        held = now.players[now.active].reserve
        if _same(tray, now.hand) and (reserve is None or _same(reserve, held)):
            fits.append(option)
            continue
        shrunk = reserve is not None and not Counter(reserve) - Counter(held) and len(reserve) < len(held)
        ends = (bool(now.hand) and not tray) or (not tray and shrunk)
        if not ends:
            swaps = _swaps(now, tray, reserve)
            if swaps is not None:
                fits.append(Explanation((*option.actions, *swaps), _apply_all(now, swaps)))
                continue
        # The turn ended: what lies in the personal reserve is kept (the next roll may already lie in the tray).
        if reserve is None:
            continue
        actions = _end_with(now, reserve)
        if actions is None:
            continue
        after = _apply_all(now, actions)
        if tray and seen.common is not None and not _same(after.common, seen.common):
            continue  # the dice left in the tray did not go to the common reserve: no end, no new roll
        fits.append(Explanation((*option.actions, *actions), after))
    if not fits:
        now = options[0].state
        if reserve is None:
            raise IllegalActionError(
                f"the tray holds {' '.join(map(str, tray or ())) or 'nothing'} and "
                f"{now.players[now.active].name}'s personal reserve is not read: check the tray and the reserve"
            )
        raise IllegalActionError(
            f"the tray holds {' '.join(map(str, tray or ())) or 'nothing'} and {now.players[now.active].name}'s "
            f"personal reserve {' '.join(map(str, reserve)) or 'nothing'}, which this turn's current dice "
            f"({' '.join(map(str, now.hand)) or 'none'}), reserve and exchanges cannot give: check them"
        )
    fits = sorted(fits, key=lambda e: len(e.actions))
    shortest = [e for e in fits if len(e.actions) == len(fits[0].actions)]
    if len({GAME.state_to_json(e.state) for e in shortest}) > 1:
        listed = " | ".join(str(e) for e in shortest[:6])
        raise AmbiguousActionError(f"{len(shortest)} ways explain what was seen; say which: {listed}")
    best = shortest[0]
    now = best.state
    if now.phase is Phase.TURN and not now.hand and tray is not None and not tray:
        # Every current die placed and the reserve as it was: the end of the turn changes nothing on the table.
        # It is taken only when what follows it shows (the next cards dealt, the next roll).
        held = now.players[now.active].reserve
        ended = _end_with(now, held)
        if ended is not None:
            after = _apply_all(now, ended)
            try:
                rest = explain_table(after, seen, depth=depth + 1)
            except (IllegalActionError, AmbiguousActionError):
                rest = Explanation((), after)
            # At a round's (or the game's) end the table is cleared: none of the cards in play is seen any more.
            cleared = after.phase in (Phase.DEAL, Phase.OVER) and not set(in_play(now)) & set(seen.cards)
            if rest.actions or cleared:
                return Explanation((*best.actions, *ended, *rest.actions), rest.state)
    if now.phase is Phase.TURN or not best.actions:
        return best
    return _then(best.actions, now, seen, depth)


def in_play(state: DiceTreasureState) -> dict[str, tuple[Die | None, ...]]:
    """Card id -> its dice, for every card in play (the players' and the middle's)."""
    out = {cip.card.id: cip.dice for p in state.players for cip in p.cards}
    out.update({cip.card.id: cip.dice for cip in state.middle})
    return out


def newly_claimed(before: DiceTreasureState, action: Action, after: DiceTreasureState
                  ) -> dict[str, tuple[Die | None, ...]]:
    """The cards ``action`` made someone claim, with the dice they were filled with (they stay on the table,
    filled, until the round ends: the camera still sees them)."""
    was = in_play(before)
    now = in_play(after)
    out = {}
    for card_id, dice in was.items():
        if card_id in now or not any(c.id == card_id for p in after.players for c in p.claimed):
            continue
        filled = list(dice)
        if isinstance(action, Place) and action.card == card_id:
            filled[action.space - 1] = action.die
        out[card_id] = tuple(filled)
    return out


def table_seen(state: DiceTreasureState, claimed: Mapping[str, Sequence[Die | None]] | None = None) -> TableSeen:
    """What a perfect camera sees of ``state``'s table: every card in play with its dice, each player's cards on
    their mat (the middle's are not on a mat), the current dice in the tray, both reserves; ``claimed`` is the
    claimed cards still in view (:func:`newly_claimed`), others and discarded cards are off the table. The truth
    of a recorded frame, and the check that :func:`explain_table` follows a game."""
    cards: dict[str, Sequence[Die | None]] = dict(claimed or {})
    for player in state.players:
        for cip in player.cards:
            cards[cip.card.id] = cip.dice
    for cip in state.middle:
        cards[cip.card.id] = cip.dice
    return TableSeen(
        cards=cards,
        mats={seat: tuple(c.card.id for c in p.cards) for seat, p in enumerate(state.players)},
        tray=tuple(state.hand),
        reserves={seat: tuple(p.reserve) for seat, p in enumerate(state.players)},
        common=tuple(state.common),
    )
