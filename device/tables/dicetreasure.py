"""Dice Treasure at the table: dice rolled in the tray and placed on the players' motif cards.

The observation is :class:`CardsView`: for each card seen, the die on each of its spaces, and for each space
how sure the reader was (:class:`SeenSpace`). :meth:`DiceTreasureTable.observe` builds it from what
:class:`vision.dicetreasure_read.DiceTreasureReader` read (the cards identified against the enrolled deck and
the dice on their spaces); a space the reader is unsure of makes the adapter ask, naming the card and the
space, until a player corrects it on the page or presses CONFIRM. :func:`engine.dicetreasure.observe.explain_one`
says which legal placements (and exchanges) put the dice there; a die that appeared on a card that is not the
active player's (or the middle's, in the steal phase) is a problem, never an action.

The camera's reading is not yet followed through whole games (the roll in the tray, the end-of-turn split
between reserves and the claims are not observations of the engine yet), so games are still played on the page
(``live = "offline"``); the buttons are the generic ones (NEXT points at the next legal action, CONFIRM takes it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from device.errors import SessionError
from device.tables import Explained, TableAdapter, explained_by
from engine.dice import Die
from engine.dicetreasure.observe import explain_one, explain_placements
from engine.dicetreasure.placement import target_cards
from engine.dicetreasure.state import DiceTreasureState, Exchange, Place
from engine.errors import AmbiguousActionError, GameError, InvalidActionError

#: Below this an identification or a die reading is doubtful (the reader's own line, vision.dicetreasure_read.SURE).
SURE = 0.8


@dataclass(frozen=True)
class SeenSpace:
    """One space of a card seen: the die on it (None: empty), whether the reader was sure, why not, where it is
    in the frame, and whether a player corrected it."""

    card: str
    space: int  # 1-based, the deck file's order
    die: Die | None
    sure: bool = True
    why: str = ""
    centre: tuple[float, float] = (0.0, 0.0)
    corrected: bool = False


@dataclass(frozen=True)
class CardsView:
    """The cards seen: card id -> the die on each space in the deck file's order (None: empty); the spaces one
    by one (the readings a player can correct, in the order shown); what keeps the reading from being taken
    (cards not identified, a hand over a card); whether the table was seen moving; whether a player accepted
    the doubtful readings as read."""

    cards: Mapping[str, Sequence[Die | None]]
    spaces: tuple[SeenSpace, ...] = ()
    problems: tuple[str, ...] = ()
    moved: bool = False
    confirmed: bool = False
    #: Seat (1-based) -> the dice seen in that player's personal reserve, where all of them were read surely.
    reserves: Mapping[int, tuple[Die, ...]] = field(default_factory=dict)

    def doubts(self, settled: frozenset[tuple[str, int]] = frozenset()) -> list[str]:
        """The questions to put to the players, one per doubtful space (but those in ``settled``)."""
        if self.confirmed:
            return []
        return [f"card {s.card} space {s.space}: {s.why or 'hard to read'} (looks {s.die or 'empty'}): "
                "correct it or press CONFIRM" for s in self.spaces
                if not s.sure and not s.corrected and (s.card, s.space) not in settled]


def _parse_die(value: Any) -> Die | None:
    """A player's correction: a Die, ``"COLOUR:VALUE"``, or None / ``""`` / ``"empty"`` for no die."""
    if value is None or isinstance(value, Die):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("", "empty", "none"):
            return None
        if ":" in text:
            try:
                return Die.parse(text)
            except InvalidActionError as exc:
                raise SessionError(str(exc)) from None
    raise SessionError(f"{value!r} is not a die (COLOUR:VALUE) or 'empty'")


def _cards_of(readings: Sequence[Any]) -> list[Any]:
    """The cards in ``readings``: :class:`vision.dicetreasure_read.TableReading` objects (their cards) or the
    cards themselves (:class:`vision.dicetreasure_read.CardOnTable`)."""
    out: list[Any] = []
    for r in readings:
        cards = getattr(r, "cards", None)
        if isinstance(cards, tuple):
            out.extend(cards)
        else:
            out.append(r)
    return out


class DiceTreasureTable(TableAdapter):
    name = "dicetreasure"

    # --- what the camera saw -------------------------------------------------------------------
    def observe(self, readings: Sequence[Any], *, moved: bool) -> CardsView:
        cards: dict[str, tuple[Die | None, ...]] = {}
        spaces: list[SeenSpace] = []
        problems: list[str] = []
        for item in _cards_of(readings):
            reading, identity = item.reading, item.identity
            where = f"{reading.zone} card {reading.spot + 1}"
            if identity.card is None:
                problems.append(f"{where}: not a card of the enrolled deck; show it to the camera or enrol it")
                continue
            if identity.confidence < SURE:
                problems.append(f"{where}: looks like {identity.card} but could be {identity.runner_up}: "
                                "straighten it or press CONFIRM")
            if identity.card in cards:
                problems.append(f"card {identity.card} is seen twice ({where} too)")
                continue
            cards[identity.card] = tuple(d.die for d in item.dice)
            spaces.extend(SeenSpace(d.card, d.space, d.die, not d.unsure, d.why, d.centre_px) for d in item.dice)
        reserves: dict[int, tuple[Die, ...]] = {}
        for r in readings:
            for zone, dice in getattr(r, "loose", {}).items():
                if zone.startswith("reserve-") and all(not d.unsure for d in dice):
                    reserves[int(zone.split("-")[1])] = tuple(d.die for d in dice)
        return CardsView(cards, tuple(spaces), tuple(problems), moved, reserves=reserves)

    def correct(self, seen: Any, index: int, value: Any) -> CardsView:
        view = _view(seen)
        if not 0 <= index < len(view.spaces):
            raise SessionError(f"there is no space {index + 1} read on the cards ({len(view.spaces)} read)")
        die = _parse_die(value)
        space = view.spaces[index]
        dice = list(view.cards[space.card])
        dice[space.space - 1] = die
        spaces = list(view.spaces)
        spaces[index] = replace(space, die=die, sure=True, corrected=True)
        cards = {**view.cards, space.card: tuple(dice)}
        return replace(view, cards=cards, spaces=tuple(spaces))

    def confirm(self, seen: Any) -> CardsView:
        view = _view(seen)
        return replace(view, confirmed=True)

    def explain(self, state: Any, seen: Any) -> Explained:
        if not isinstance(seen, CardsView):
            return Explained(problems=("nothing read of the motif cards",))
        targets = {c.card.id for c in target_cards(state)}
        seen, settled = _settle(state, seen, targets)
        problems = [] if seen.confirmed else list(seen.problems)
        problems += seen.doubts(settled)
        if problems:
            return Explained(problems=tuple(problems))
        strangers = _changed_elsewhere(state, seen, targets)
        if strangers:
            return Explained(problems=tuple(strangers))
        mine = {card: dice for card, dice in seen.cards.items() if card in targets}
        try:
            explanation = explain_one(state, mine)
        except AmbiguousActionError as exc:
            # A die that could have come from the hand or the personal reserve: the reserve seen says which.
            chosen = _by_reserve(state, mine, seen.reserves.get(state.active + 1))
            if chosen is None:
                return Explained(problems=(str(exc),))
            return explained_by(self.game, state, chosen)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        except StopIteration:  # the engine cannot yet say why some dice cannot be sourced (see the report)
            return Explained(problems=("the dice on the cards cannot all have come from this turn's dice and "
                                       "reserves: check the cards",))
        return explained_by(self.game, state, explanation.actions)

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, (Place, Exchange))

    def seen_json(self, seen: Any) -> dict[str, Any]:
        view = _view(seen)
        return {
            "cards": [{"card": card, "dice": [str(d) if d else None for d in dice]}
                      for card, dice in view.cards.items()],
            "spaces": [{"card": s.card, "space": s.space, "die": str(s.die) if s.die else None,
                        "unsure": not s.sure and not view.confirmed, "why": s.why,
                        "centre": [round(v, 1) for v in s.centre], "corrected": s.corrected} for s in view.spaces],
            "problems": list(view.problems),
            "confirmed": view.confirmed,
        }

    def reading_at(self, seen: Any, x: float, y: float) -> int:
        view = _view(seen)
        if not view.spaces:
            raise SessionError("no spaces of motif cards are read")
        distances = [(s.centre[0] - x) ** 2 + (s.centre[1] - y) ** 2 for s in view.spaces]
        return distances.index(min(distances))


def _view(seen: Any) -> CardsView:
    if not isinstance(seen, CardsView):
        raise SessionError("nothing is read of the motif cards")
    return seen


def _by_reserve(state: DiceTreasureState, seen: Mapping[str, Sequence[Die | None]],
                reserve: tuple[Die, ...] | None) -> tuple[Any, ...] | None:
    """The shortest explanation whose personal reserve is the one seen, if exactly one state fits."""
    if reserve is None:
        return None
    options = explain_placements(state, seen)
    shortest = [e for e in options if len(e.actions) == len(options[0].actions)]
    fits = [e for e in shortest if Counter(e.state.players[state.active].reserve) == Counter(reserve)]
    states = {repr(e.state.players[state.active]) for e in fits}
    return fits[0].actions if len(states) == 1 else None


def _held(state: DiceTreasureState) -> dict[str, tuple[Die | None, ...]]:
    """Card id -> the dice the game has on it, for every card in play (the players' and the middle's)."""
    held = {cip.card.id: cip.dice for player in state.players for cip in player.cards}
    held.update({cip.card.id: cip.dice for cip in state.middle})
    return held


def _settle(state: DiceTreasureState, seen: CardsView, targets: set[str]) -> tuple[CardsView,
                                                                                   frozenset[tuple[str, int]]]:
    """``seen`` with the doubtful spaces the game already knows taken from the game: dice stay on their card all
    round, and only the active player's cards (or the middle's) can change now. What is left to ask is a
    doubtful space of those cards that the game has empty (a die may just have arrived there), unless only its
    face was doubtful and the one die of its colour the player could have placed has the face read."""
    held = _held(state)
    cards = dict(seen.cards)
    settled = set()
    # The dice the active player can place now (after exchanges, the common reserve's too).
    available = [*state.hand, *state.players[state.active].reserve, *state.common]
    for s in seen.spaces:
        if s.sure or s.corrected or s.card not in held:
            continue
        have = held[s.card][s.space - 1]
        if have is None and s.card in targets:
            # A die just placed whose face alone was doubtful: sure after all when the game has exactly one
            # value of that colour to place, and it is the value read (the reading and the game agree).
            values = {d.value for d in available if s.die is not None and d.colour == s.die.colour}
            if s.die is not None and s.why.startswith("face") and ";" not in s.why and values == {s.die.value}:
                settled.add((s.card, s.space))
            continue
        dice = list(cards[s.card])
        dice[s.space - 1] = have
        cards[s.card] = tuple(dice)
        settled.add((s.card, s.space))
    return replace(seen, cards=cards), frozenset(settled)


def _changed_elsewhere(state: DiceTreasureState, seen: CardsView, targets: set[str]) -> list[str]:
    """Cards seen that the active player may not place on now whose dice differ from the game's."""
    held: dict[str, tuple[str, tuple[Die | None, ...]]] = {}
    for player in state.players:
        for cip in player.cards:
            held[cip.card.id] = (player.name, cip.dice)
    for cip in state.middle:
        held[cip.card.id] = ("the middle", cip.dice)
    claimed = {c.id for player in state.players for c in player.claimed}
    out = []
    for card, dice in seen.cards.items():
        if card in targets or card in claimed:  # a claimed card still in view is no error
            continue
        if card not in held:
            out.append(f"card {card} is on the table but not in this round of the game: was it dealt?")
            continue
        owner, have = held[card]
        for i, (was, now) in enumerate(zip(have, dice, strict=False), 1):
            if was != now:
                out.append(f"card {card} space {i} ({owner}'s): the game has {was or 'nothing'}, the camera sees "
                           f"{now or 'nothing'}; only the player whose turn it is places now")
    return out


ADAPTER = DiceTreasureTable
