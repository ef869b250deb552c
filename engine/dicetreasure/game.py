"""The rules of Dice Treasure (RULES.md section 3): rounds, turns, reserves, the steal phase, gold, solo.

:class:`DiceTreasure` is the registered game. A round: each player is dealt motif cards (chance), then T
turn-cycles; in cycle t each player in turn order draws and rolls T - t + 1 dice (chance) and then, in any
order, places dice on legal spaces, exchanges dice 1:1 with the common reserve, may claim a leprechaun card,
and ends the turn keeping up to 2 dice as a personal reserve. Immediately before cycle T - 1 the steal phase
starts (:func:`_start_steal`): filled cards are claimed, colour chips checked, and every incomplete card goes to
the middle, where a card completed goes to whoever placed its last die. The round ends after cycle T; the
player who rolled its last single die starts the next one. The solo game changes the steal start (new cards
filled from the common reserve) and forbids exchanges.

Readings the rulebook leaves open are rule options (:data:`OPTIONS`); see docs/dicetreasure.md.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from engine.advice import Advice
from engine.dice import Die
from engine.dicetreasure.cards import BACKGROUNDS, BonusCard, Deck, MotifCard, parse_deck, sample_deck
from engine.dicetreasure.placement import card_defects, fitting, target_cards, why_not
from engine.dicetreasure.state import (
    Action,
    CardInPlay,
    ClaimBonus,
    Deal,
    DiceTreasureState,
    EndTurn,
    Exchange,
    FinishSetup,
    Phase,
    Place,
    PlayerState,
    Reserve,
    RevealBonus,
    Roll,
    Source,
    parse_action,
)
from engine.errors import IllegalActionError, InvalidActionError, legal_hint
from engine.game import ChancePrompt, Game, LegalAction, PlayerScore, RuleOption, Score, Status, instance, register

#: players -> (gold goal, motif cards dealt per round, turns per round T), RULES.md 3.2.
SETUP: dict[int, tuple[int, int, int]] = {1: (18, 3, 6), 2: (24, 4, 6), 3: (18, 3, 5), 4: (12, 2, 4)}
DICE_PER_COLOUR = 9
SOLO_DICE_PER_COLOUR = 5
SOLO_ROUNDS = 4
SOLO_NEW_CARDS = 2
CHIP_COINS = 3  # coins of one background colour that earn its chip
CHIP_GOLD = 2
RESERVE_LIMIT = 2

OPTIONS: tuple[RuleOption, ...] = (
    RuleOption(
        "leprechauns",
        ("on", "off"),
        "on",
        "Play with the leprechaun bonus cards (the expansion pack): 2 per player laid out at setup; each player "
        "may claim one per game. 'off' for a box without them.",
    ),
    RuleOption(
        "chip_tie",
        ("turn-order", "most-coins"),
        "turn-order",
        "DT6 (low confidence): several players reach 3 coins of one background colour at once (at the start of "
        "the steal phase). 'turn-order': the first of them in turn order from the round's start player gets the "
        "chip. 'most-coins': the one with most coins of that colour gets it, turn order breaking a tie.",
    ),
    RuleOption(
        "deck",
        ("stand-in", "own"),
        "stand-in",
        "Which motif cards: 'stand-in', the shipped deck (the real box's composition with invented patterns), or "
        "'own', the owners' box as enrolled on the device (companion deck enrol, or the page's set-up). A game "
        "played with its own deck keeps the deck itself in its record, so later enrolment never changes it.",
    ),
)
#: The ``deck`` option's value in a game's record when it was played with an own deck: the deck file's JSON.
DECK_JSON_START = "{"


T = TypeVar("T")


def replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for the state's frozen dataclasses, without re-running ``__init__``: the state
    has 30 fields and is replaced on every action, so the standard one dominated the simulator's time."""
    assert changes.keys() <= obj.__dict__.keys(), f"no such field: {set(changes) - set(obj.__dict__)}"
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


def _without(dice: tuple[Die, ...], die: Die) -> tuple[Die, ...] | None:
    """``dice`` less one ``die``, or ``None`` if it has none."""
    for i, d in enumerate(dice):
        if d == die:
            return dice[:i] + dice[i + 1 :]
    return None


def _sorted(dice: Iterable[Die]) -> tuple[Die, ...]:
    return tuple(sorted(dice, key=lambda d: (d.colour or "", d.value)))


def _distinct(dice: Iterable[Die]) -> list[Die]:
    return list(dict.fromkeys(dice))


def card_gold(player: PlayerState) -> dict[str, int]:
    """Where a player's gold comes from: claimed cards, colour chips, the bonus card."""
    return {
        "cards": sum(c.coins for c in player.claimed),
        "chips": CHIP_GOLD * len(player.chips),
        "bonus": player.bonus.reward if player.bonus else 0,
    }


def coins_of(player: PlayerState, background: str) -> int:
    return sum(c.coins for c in player.claimed if c.background == background)


def record_deck(data: Mapping[str, Any]) -> str:
    """A deck file's data as the ``deck`` option's value in a game's record (compact, stable JSON)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def recorded_deck(text: str) -> Deck:
    """The deck a game's record keeps (:func:`record_deck`); InvalidActionError naming what is wrong."""
    try:
        return parse_deck(json.loads(text), "the game's own deck")
    except json.JSONDecodeError as exc:
        raise InvalidActionError(f"rule option deck: not a deck ({exc.msg})") from None
    except ValueError as exc:
        raise InvalidActionError(f"rule option deck: {exc}") from None


def new_game(
    players: Sequence[str],
    deck: Deck | None = None,
    options: Mapping[str, str] | None = None,
) -> DiceTreasureState:
    """The state before the first action: every die in the bag, every card in the draw pile.

    The first player named is the youngest (who starts, RULES.md 3.2). ``deck`` defaults to the stand-in."""
    game = GAME
    names = game.check_players(players)
    opts = game.resolve_options(options)
    deck = deck or sample_deck()
    n = len(names)
    goal, dealt, turns = SETUP[n]
    per_colour = SOLO_DICE_PER_COLOUR if n == 1 else DICE_PER_COLOUR
    leprechauns = opts["leprechauns"] == "on"
    if leprechauns and len(deck.bonus_cards) < 2 * n:
        raise InvalidActionError(
            f"deck {deck.name!r} has {len(deck.bonus_cards)} leprechaun cards, {2 * n} are needed for {n} "
            "player(s); play with the rule option leprechauns=off"
        )
    return DiceTreasureState(
        players=tuple(PlayerState(name) for name in names),
        dice_colours=deck.dice_colours,
        dice_per_colour=per_colour,
        goal=goal,
        cards_per_round=dealt,
        turns=turns,
        leprechauns=leprechauns,
        chip_tie=opts["chip_tie"],
        phase=Phase.BONUS if leprechauns else Phase.DEAL,
        bag=(per_colour,) * len(deck.dice_colours),
        draw_pile=deck.motif_cards,
        bonus_box=deck.bonus_cards if leprechauns else (),
    )


# --- helpers that change a state -------------------------------------------------------------------


def _set_player(state: DiceTreasureState, seat: int, player: PlayerState) -> DiceTreasureState:
    players = list(state.players)
    players[seat] = player
    return replace(state, players=tuple(players))


def _claim(state: DiceTreasureState, seat: int, cip: CardInPlay) -> DiceTreasureState:
    """``seat`` claims a filled card: it joins their score pile, its dice stay out until the round ends."""
    p = state.players[seat]
    p = replace(p, claimed=(*p.claimed, cip.card), gold=p.gold + cip.card.coins)
    state = _set_player(state, seat, p)
    return replace(state, on_claimed=state.on_claimed + tuple(d for d in cip.dice if d is not None))


def _award_chips(state: DiceTreasureState) -> DiceTreasureState:
    """Give each unclaimed colour chip to the first player with 3 coins of its colour (DT6 for ties)."""
    taken = {c for p in state.players for c in p.chips}
    order = state.order()
    for bg in BACKGROUNDS:
        if bg in taken:
            continue
        eligible = [s for s in order if coins_of(state.players[s], bg) >= CHIP_COINS]
        if not eligible:
            continue
        if state.chip_tie == "most-coins":
            best = max(coins_of(state.players[s], bg) for s in eligible)
            eligible = [s for s in eligible if coins_of(state.players[s], bg) == best]
        seat = eligible[0]
        p = state.players[seat]
        state = _set_player(state, seat, replace(p, chips=(*p.chips, bg), gold=p.gold + CHIP_GOLD))
    return state


def _check_goal(state: DiceTreasureState) -> DiceTreasureState:
    """The goal reached: the last round begins (solo: the game ends at once)."""
    if not any(p.gold >= state.goal for p in state.players):
        return state
    if state.solo:
        return _finish(state, f"reached {state.goal} gold")
    return replace(state, last_round=True)


def _finish(state: DiceTreasureState, reason: str) -> DiceTreasureState:
    # Dice stay where they are (the solo game can end in the middle of a turn).
    return replace(state, phase=Phase.OVER, end_reason=reason)


def _start_round(state: DiceTreasureState) -> DiceTreasureState:
    if not state.draw_pile and not state.discards:
        return _finish(state, "no motif cards left to deal")
    return replace(state, phase=Phase.DEAL, cycle=1, turn=0, dealt=0, steal=False)


def _end_round(state: DiceTreasureState) -> DiceTreasureState:
    """Every die back to the bag, incomplete cards discarded; the next round or the end."""
    back: list[Die] = [*state.hand, *state.common, *state.on_claimed, *state.set_aside]
    discards = list(state.discards)
    players = []
    for p in state.players:
        back.extend(p.reserve)
        for cip in p.cards:
            back.extend(d for d in cip.dice if d is not None)
            discards.append(cip.card)
        players.append(replace(p, cards=(), reserve=()))
    for cip in state.middle:
        back.extend(d for d in cip.dice if d is not None)
        discards.append(cip.card)
    counts = Counter(d.colour for d in back)
    bag = tuple(n + counts[c] for c, n in zip(state.dice_colours, state.bag, strict=True))
    last = state.order()[-1]
    state = replace(
        state,
        players=tuple(players),
        bag=bag,
        hand=(),
        common=(),
        middle=(),
        on_claimed=(),
        set_aside=(),
        discards=tuple(discards),
    )
    if state.last_round:
        return _finish(state, "the last round is over")
    if state.solo and state.round >= SOLO_ROUNDS:
        return _finish(state, f"{SOLO_ROUNDS} rounds played")
    return _start_round(replace(state, round=state.round + 1, start=last))


def _start_steal(state: DiceTreasureState) -> DiceTreasureState:
    """Before cycle T - 1: claim filled cards, check chips, then the incomplete cards go to the middle (solo:
    they are discarded, their dice set aside, and 2 new cards are dealt)."""
    middle: list[CardInPlay] = []
    discards = list(state.discards)
    set_aside = list(state.set_aside)
    for seat in state.order():
        for cip in state.players[seat].cards:
            if cip.complete:
                state = _claim(state, seat, cip)
            elif state.solo:
                discards.append(cip.card)
                set_aside.extend(d for d in cip.dice if d is not None)
            else:
                middle.append(cip)
        state = _set_player(state, seat, replace(state.players[seat], cards=()))
    state = replace(state, middle=tuple(middle), steal=True, discards=tuple(discards), set_aside=tuple(set_aside))
    state = _check_goal(_award_chips(state))
    if state.phase is Phase.OVER:
        return state
    return replace(state, phase=Phase.SOLO_DEAL if state.solo else Phase.ROLL)


def _next_turn(state: DiceTreasureState) -> DiceTreasureState:
    turn, cycle = state.turn + 1, state.cycle
    if turn == len(state.players):
        if cycle == state.turns:
            return _end_round(replace(state, hand=()))
        turn, cycle = 0, cycle + 1
    state = replace(state, turn=turn, cycle=cycle, phase=Phase.ROLL, hand=())
    if cycle == state.turns - 1 and turn == 0:
        return _start_steal(state)
    return state


def deal_count(state: DiceTreasureState) -> int:
    """Cards the pending deal gives (fewer only if the draw pile and the discards together run short)."""
    need = SOLO_NEW_CARDS if state.phase is Phase.SOLO_DEAL else state.cards_per_round
    return min(need, len(state.draw_pile) + len(state.discards))


def dealt_player(state: DiceTreasureState) -> int:
    return state.order()[state.dealt] if state.phase is Phase.DEAL else state.active


def max_fill(cards: Sequence[CardInPlay], pool: Iterable[Die]) -> int:
    """The most dice of ``pool`` that can lie on the empty spaces of ``cards`` at once, legally (requirements and
    neighbours, the dice already there included): the solo game's "fill them as far as possible" (RULES.md 3.6).

    A depth-first search over the empty spaces, each given one of the distinct dice left or left empty, cut off
    as soon as it cannot beat the best found; two new cards have at most 10 spaces, so it stays small. (Spaces are
    taken in one order and equal dice once, so no node is reached twice: nothing to remember.)"""
    counts = Counter(pool)
    # A space no die of the pool meets on its own can never be filled: leave it out of the search (the bound
    # below is then tight enough that a fill short of every space is found quickly too).
    empties = [(k, i) for k, cip in enumerate(cards) for i, die in enumerate(cip.dice)
               if die is None and any(cip.card.spaces[i].accepts(d) for d in counts)]
    dice = [list(cip.dice) for cip in cards]
    best = 0

    def search(n: int, placed: int) -> bool:
        """True once every empty space is filled (nothing can beat that)."""
        nonlocal best
        if placed + len(empties) - n <= best:
            return False
        if n == len(empties):
            best = placed
            return placed == len(empties)
        k, i = empties[n]
        card = cards[k].card
        space = card.spaces[i]
        for die in list(counts):
            if counts[die] == 0 or not space.accepts(die):
                continue
            if any((o := dice[k][j]) is not None and (o.colour == die.colour or o.value == die.value)
                   for j in card.adjacent[i]):
                continue
            counts[die] -= 1
            dice[k][i] = die
            done = search(n + 1, placed + 1)
            counts[die] += 1
            dice[k][i] = None
            if done:
                return True
        return search(n + 1, placed)

    search(0, 0)
    return best


def bonus_offers(state: DiceTreasureState) -> tuple[BonusCard, ...]:
    """The leprechaun cards the active player may claim now (none held yet, the claimed cards meet every
    requirement): the device offers them, so a player who qualifies is asked rather than losing the card by
    not claiming it."""
    if state.phase not in (Phase.TURN, Phase.SOLO_FILL) or not state.leprechauns:
        return ()
    p = state.players[state.active]
    if p.bonus is not None:
        return ()
    backgrounds = [c.background for c in p.claimed]
    return tuple(b for b in state.bonus_offer if b.met_by(backgrounds))


# --- the game --------------------------------------------------------------------------------------


@register
class DiceTreasure(Game[DiceTreasureState, Action]):
    """Dice Treasure for 1 to 4 players (solo rules with 1).

    Action groups for the page (:meth:`describe`): ``place`` (a die on a card's space), ``exchange`` (with
    the common reserve), ``bonus`` (claim a leprechaun card), ``reserve`` (solo: a common die to the personal
    reserve), ``end`` (end the turn; solo: done filling the new cards) and ``chance`` (cards laid out or
    dealt, dice rolled).
    """

    name = "dicetreasure"
    title = "Dice Treasure"
    aliases = ("dice-treasure",)
    min_players = 1
    max_players = 4
    options = OPTIONS
    state_type = DiceTreasureState
    action_type = Action
    action_groups = ("place", "exchange", "bonus", "reserve", "end", "chance")
    action_grammar = (
        "place [reserve|common] COLOUR:VALUE CARD#SPACE   put a die on a space of a motif card (spaces from 1)",
        "exchange [reserve] COLOUR:VALUE for COLOUR:VALUE  swap a die with one of the common reserve",
        "claim BONUS               claim a leprechaun bonus card",
        "end [keep COLOUR:VALUE...]   end the turn, keeping up to two dice in the personal reserve",
        "reserve COLOUR:VALUE      solo, last turns: keep a die of the common reserve",
        "continue                  solo, last turns: the new cards are filled",
        "reveal ID...              chance: the leprechaun cards laid out at setup",
        "deal PLAYER: ID...        chance: the motif cards dealt to a player",
        "roll COLOUR:VALUE...      chance: the dice drawn from the bag and rolled",
    )

    def resolve_options(self, given: Mapping[str, str] | None = None) -> dict[str, str]:
        """As every game's, and ``deck`` may also be a deck file's JSON (how a game's record keeps the own deck
        it was played with; :func:`record_deck`)."""
        given = dict(given or {})
        deck = given.get("deck", "")
        if not deck.startswith(DECK_JSON_START):
            return super().resolve_options(given)
        recorded_deck(deck)  # every problem of the deck named
        return {**super().resolve_options({k: v for k, v in given.items() if k != "deck"}), "deck": deck}

    def initial_state(
        self, players: Sequence[str], options: Mapping[str, str] | None = None, *, seed: int | None = None
    ) -> DiceTreasureState:
        """The game with the deck the ``deck`` option names (the stand-in by default); every random part of
        setup is a chance action, so ``seed`` is unused."""
        deck = (options or {}).get("deck", "stand-in")
        if deck == "own":
            raise InvalidActionError("deck=own is the deck enrolled on the device: start the game on the device "
                                     "(or give the deck file: companion dicetreasure new --deck FILE)")
        return new_game(players, recorded_deck(deck) if deck.startswith(DECK_JSON_START) else None, options)

    # --- decisions ---------------------------------------------------------------------------
    def legal_actions(self, state: DiceTreasureState) -> list[Action]:
        if state.phase is Phase.TURN:
            return self._turn_actions(state)
        if state.phase is Phase.SOLO_FILL:
            return self._solo_fill_actions(state)
        return []

    def _places(self, state: DiceTreasureState, dice: Iterable[Die], source: Source) -> list[Action]:
        cards = target_cards(state)
        return [
            Place(die, cip.card.id, i + 1, source)
            for die in _distinct(dice)
            for cip, i in fitting(cards, die.colour, die.value)
        ]

    def _bonus_claims(self, state: DiceTreasureState) -> list[Action]:
        p = state.players[state.active]
        if p.bonus is not None:
            return []
        backgrounds = [c.background for c in p.claimed]
        return [
            ClaimBonus(b.id) for b in state.bonus_offer if len(b.requires) <= len(backgrounds) and b.met_by(backgrounds)
        ]

    def _turn_actions(self, state: DiceTreasureState) -> list[Action]:
        p = state.players[state.active]
        actions = self._places(state, state.hand, Source.HAND) + self._places(state, p.reserve, Source.RESERVE)
        if not state.solo:
            takes = _distinct(state.common)
            for source, dice in ((Source.HAND, state.hand), (Source.RESERVE, p.reserve)):
                for give in _distinct(dice):
                    actions.extend(Exchange(give, take, source) for take in takes if take != give)
        actions.extend(self._bonus_claims(state))
        pool = [*state.hand, *p.reserve]
        keeps: dict[tuple[Die, ...], None] = {(): None}
        for i, a in enumerate(pool):
            keeps[(a,)] = None
            for b in pool[i + 1 :]:
                keeps[_sorted((a, b))] = None
        actions.extend(EndTurn(k) for k in keeps)
        return actions

    def _solo_fill_actions(self, state: DiceTreasureState) -> list[Action]:
        if state.fill_placed < state.fill_target:
            # Fill first, and only with placements that keep the most dice possible within reach.
            places = [a for a in self._places(state, state.common, Source.COMMON)
                      if isinstance(a, Place) and self._fill_shortfall(state, a) is None]
            return places + self._bonus_claims(state)
        actions = self._bonus_claims(state)
        if len(state.players[0].reserve) < RESERVE_LIMIT:
            actions.extend(Reserve(d) for d in _distinct(state.common))
        actions.append(FinishSetup())
        return actions

    def _fill_shortfall(self, state: DiceTreasureState, action: Place) -> str | None:
        """Why ``action`` would leave the solo fill short of the most dice possible (``None``: it does not)."""
        cards = target_cards(state)
        index = next((k for k, c in enumerate(cards) if c.card.id == action.card), None)
        common = _without(state.common, action.die)
        if index is None or common is None or not 1 <= action.space <= len(cards[index].dice):
            return None  # _place names what is wrong
        dice = list(cards[index].dice)
        dice[action.space - 1] = action.die
        after = (*cards[:index], CardInPlay(cards[index].card, tuple(dice)), *cards[index + 1 :])
        reach = state.fill_placed + 1 + max_fill(after, common)
        if reach >= state.fill_target:
            return None
        return (f"the new cards could then hold only {reach} dice from the common reserve, but {state.fill_target} "
                "fit: fill them as far as possible")

    # --- applying ----------------------------------------------------------------------------
    def apply(self, state: DiceTreasureState, action: Action) -> DiceTreasureState:
        if state.phase is Phase.OVER:
            raise IllegalActionError(f"{action}: the game is over")
        handlers = {
            RevealBonus: (self._reveal, (Phase.BONUS,)),
            Deal: (self._deal, (Phase.DEAL, Phase.SOLO_DEAL)),
            Roll: (self._roll, (Phase.ROLL,)),
            Place: (self._place, (Phase.TURN, Phase.SOLO_FILL)),
            Exchange: (self._exchange, (Phase.TURN,)),
            ClaimBonus: (self._claim_bonus, (Phase.TURN, Phase.SOLO_FILL)),
            EndTurn: (self._end_turn, (Phase.TURN,)),
            Reserve: (self._reserve, (Phase.SOLO_FILL,)),
            FinishSetup: (self._finish_setup, (Phase.SOLO_FILL,)),
        }
        entry = handlers.get(type(action))
        if entry is None:
            raise InvalidActionError(f"{action!r} is not a Dice Treasure action")
        handler, phases = entry
        if state.phase not in phases:
            raise IllegalActionError(f"{action}: not now; {self._awaited(state)}")
        result: DiceTreasureState = handler(state, action)  # type: ignore[operator]
        return result

    def _awaited(self, state: DiceTreasureState) -> str:
        who = state.players[state.active].name
        return {
            Phase.BONUS: f"the {2 * len(state.players)} leprechaun cards to lay out are awaited",
            Phase.DEAL: f"the motif cards dealt to {state.players[dealt_player(state)].name} are awaited",
            Phase.ROLL: f"{who}'s roll of {state.dice_to_roll()} dice is awaited",
            Phase.TURN: f"it is {who}'s turn to place, exchange or end the turn",
            Phase.SOLO_DEAL: f"the {SOLO_NEW_CARDS} new motif cards are awaited",
            Phase.SOLO_FILL: "the new cards are being filled from the common reserve",
            Phase.OVER: "the game is over",
        }[state.phase]

    def _reveal(self, state: DiceTreasureState, action: RevealBonus) -> DiceTreasureState:
        want = 2 * len(state.players)
        box = {b.id: b for b in state.bonus_box}
        if len(action.bonus) != want or len(set(action.bonus)) != want:
            raise IllegalActionError(f"{action}: lay out {want} different leprechaun cards")
        missing = [b for b in action.bonus if b not in box]
        if missing:
            raise IllegalActionError(f"{action}: no leprechaun card {missing[0]!r} in the box; {legal_hint(box)}")
        offer = tuple(box[b] for b in action.bonus)
        rest = tuple(b for b in state.bonus_box if b.id not in set(action.bonus))
        return replace(state, bonus_offer=offer, bonus_box=rest, phase=Phase.DEAL)

    def _deal(self, state: DiceTreasureState, action: Deal) -> DiceTreasureState:
        seat = dealt_player(state)
        name = state.players[seat].name
        if action.player != name:
            raise IllegalActionError(f"{action}: the cards go to {name} now, not {action.player}")
        count = deal_count(state)
        if len(action.cards) != count or len(set(action.cards)) != count:
            raise IllegalActionError(f"{action}: deal {count} different motif cards to {name}")
        pile = {c.id: c for c in state.draw_pile}
        discards = state.discards
        if len(state.draw_pile) < count:
            # The draw pile runs out: the rest of it is dealt, then the shuffled discards become the pile.
            short = [c for c in pile if c not in action.cards]
            if short:
                raise IllegalActionError(f"{action}: the draw pile's last cards {short} must be dealt first")
            pile.update({c.id: c for c in discards})
            discards = ()
        unknown = [c for c in action.cards if c not in pile]
        if unknown:
            raise IllegalActionError(f"{action}: motif card {unknown[0]!r} is not in the draw pile")
        cards = tuple(CardInPlay.fresh(pile.pop(c)) for c in action.cards)
        state = replace(state, draw_pile=tuple(pile.values()), discards=discards)
        state = _set_player(state, seat, replace(state.players[seat], cards=cards))
        if state.phase is Phase.SOLO_DEAL:
            target = max_fill(cards, state.common)
            return replace(state, phase=Phase.SOLO_FILL, fill_target=target, fill_placed=0)
        if state.dealt + 1 < len(state.players):
            return replace(state, dealt=state.dealt + 1)
        return replace(state, dealt=0, phase=Phase.ROLL)

    def _roll(self, state: DiceTreasureState, action: Roll) -> DiceTreasureState:
        want = state.dice_to_roll()
        if len(action.dice) != want:
            raise IllegalActionError(f"{action}: {state.players[state.active].name} draws {want} dice now")
        counts = Counter(d.colour for d in action.dice)
        bag = list(state.bag)
        for colour, n in counts.items():
            if colour not in state.dice_colours:
                raise InvalidActionError(f"{action}: {colour!r} is not a dice colour ({', '.join(state.dice_colours)})")
            k = state.dice_colours.index(colour)
            if bag[k] < n:
                raise IllegalActionError(f"{action}: the bag holds only {bag[k]} {colour} dice")
            bag[k] -= n
        return replace(state, hand=action.dice, bag=tuple(bag), phase=Phase.TURN)

    def _source_dice(self, state: DiceTreasureState, source: Source) -> tuple[Die, ...]:
        if source is Source.HAND:
            return state.hand
        if source is Source.RESERVE:
            return state.players[state.active].reserve
        return state.common

    def _take(self, state: DiceTreasureState, source: Source, die: Die, what: object) -> DiceTreasureState:
        """``state`` with ``die`` taken out of ``source``; IllegalActionError if it is not there."""
        dice = self._source_dice(state, source)
        rest = _without(dice, die)
        if rest is None:
            where = {Source.HAND: "the current dice", Source.RESERVE: "the personal reserve"}.get(
                source, "the common reserve"
            )
            raise IllegalActionError(f"{what}: no {die} in {where} ({' '.join(map(str, dice)) or 'empty'})")
        if source is Source.HAND:
            return replace(state, hand=rest)
        if source is Source.RESERVE:
            return _set_player(state, state.active, replace(state.players[state.active], reserve=rest))
        return replace(state, common=rest)

    def _place(self, state: DiceTreasureState, action: Place) -> DiceTreasureState:
        allowed = (Source.COMMON,) if state.phase is Phase.SOLO_FILL else (Source.HAND, Source.RESERVE)
        if action.source not in allowed:
            raise IllegalActionError(
                f"{action}: dice come from {' or '.join(s.value for s in allowed)} now, not {action.source.value}"
            )
        cards = target_cards(state)
        index = next((k for k, c in enumerate(cards) if c.card.id == action.card), None)
        if index is None:
            where = "in the middle" if state.steal and not state.solo else "in front of the player"
            raise IllegalActionError(
                f"{action}: no card {action.card!r} {where}; {legal_hint(c.card.id for c in cards)}"
            )
        cip = cards[index]
        if not 1 <= action.space <= len(cip.dice):
            raise IllegalActionError(f"{action}: card {cip.card.id} has spaces 1..{len(cip.dice)}")
        reason = why_not(cip, action.space - 1, action.die)
        if reason:
            raise IllegalActionError(f"{action}: card {cip.card.id} {reason}")
        if state.phase is Phase.SOLO_FILL:
            if state.fill_placed >= state.fill_target:
                raise IllegalActionError(f"{action}: the new cards hold already as many dice as the common reserve "
                                         "can give them")
            short = self._fill_shortfall(state, action)
            if short is not None and action.die in state.common:
                raise IllegalActionError(f"{action}: {short}")
        state = self._take(state, action.source, action.die, action)
        if state.phase is Phase.SOLO_FILL:
            state = replace(state, fill_placed=state.fill_placed + 1)
        dice = list(cip.dice)
        dice[action.space - 1] = action.die
        cip = CardInPlay(cip.card, tuple(dice))
        seat = state.active
        if state.steal and cip.complete:
            # Steal phase (and the solo game's last turns): a card completed is claimed at once (DT4, DT5).
            rest = cards[:index] + cards[index + 1 :]
            state = self._set_targets(state, rest)
            return _check_goal(_award_chips(_claim(state, seat, cip)))
        return self._set_targets(state, (*cards[:index], cip, *cards[index + 1 :]))

    def _set_targets(self, state: DiceTreasureState, cards: tuple[CardInPlay, ...]) -> DiceTreasureState:
        if state.steal and not state.solo:
            return replace(state, middle=cards)
        return _set_player(state, state.active, replace(state.players[state.active], cards=cards))

    def _exchange(self, state: DiceTreasureState, action: Exchange) -> DiceTreasureState:
        if state.solo:
            raise IllegalActionError(f"{action}: the solo game does not allow exchanges with the common reserve")
        if action.source is Source.COMMON:
            raise IllegalActionError(f"{action}: pay with a current or personal-reserve die")
        if action.give == action.take:
            raise IllegalActionError(f"{action}: exchanging a die for an identical one changes nothing")
        if action.take not in state.common:
            raise IllegalActionError(
                f"{action}: no {action.take} in the common reserve ({' '.join(map(str, state.common)) or 'empty'})"
            )
        state = self._take(state, action.source, action.give, action)
        common = _without(state.common, action.take)
        assert common is not None
        state = replace(state, common=(*common, action.give))
        # The die taken goes where the die given came from, so hand and reserve keep their sizes.
        if action.source is Source.HAND:
            return replace(state, hand=(*state.hand, action.take))
        p = state.players[state.active]
        return _set_player(state, state.active, replace(p, reserve=(*p.reserve, action.take)))

    def _claim_bonus(self, state: DiceTreasureState, action: ClaimBonus) -> DiceTreasureState:
        p = state.players[state.active]
        if not state.leprechauns:
            raise IllegalActionError(f"{action}: this game is played without leprechaun cards")
        if p.bonus is not None:
            raise IllegalActionError(f"{action}: {p.name} already has leprechaun card {p.bonus.id} (one per game)")
        card = next((b for b in state.bonus_offer if b.id == action.bonus), None)
        if card is None:
            raise IllegalActionError(
                f"{action}: no leprechaun card {action.bonus!r} on offer; {legal_hint(b.id for b in state.bonus_offer)}"
            )
        if not card.met_by([c.background for c in p.claimed]):
            have = ", ".join(c.background for c in p.claimed) or "no cards"
            raise IllegalActionError(f"{action}: {card} needs more than {p.name}'s claimed cards ({have})")
        state = replace(state, bonus_offer=tuple(b for b in state.bonus_offer if b.id != card.id))
        state = _set_player(state, state.active, replace(p, bonus=card, gold=p.gold + card.reward))
        return _check_goal(state)

    def _end_turn(self, state: DiceTreasureState, action: EndTurn) -> DiceTreasureState:
        p = state.players[state.active]
        if len(action.keep) > RESERVE_LIMIT:
            raise IllegalActionError(f"{action}: the personal reserve holds at most {RESERVE_LIMIT} dice")
        pool: tuple[Die, ...] | None = (*state.hand, *p.reserve)
        for die in action.keep:
            assert pool is not None
            pool = _without(pool, die)
            if pool is None:
                raise IllegalActionError(f"{action}: no {die} among the current and reserve dice to keep")
        assert pool is not None
        state = replace(state, common=(*state.common, *pool), hand=())
        state = _set_player(state, state.active, replace(p, reserve=action.keep))
        return _next_turn(state)

    def _reserve(self, state: DiceTreasureState, action: Reserve) -> DiceTreasureState:
        p = state.players[0]
        if state.fill_placed < state.fill_target:
            raise IllegalActionError(
                f"{action}: fill the new cards from the common reserve first ({state.fill_placed} of "
                f"{state.fill_target} dice placed); then up to {RESERVE_LIMIT} dice may go to the personal reserve"
            )
        if len(p.reserve) >= RESERVE_LIMIT:
            raise IllegalActionError(f"{action}: the personal reserve already holds {RESERVE_LIMIT} dice")
        state = self._take(state, Source.COMMON, action.reserve, action)
        return _set_player(state, 0, replace(state.players[0], reserve=(*p.reserve, action.reserve)))

    def _finish_setup(self, state: DiceTreasureState, action: FinishSetup) -> DiceTreasureState:
        places = self._places(state, state.common, Source.COMMON)
        if places or state.fill_placed < state.fill_target:
            raise IllegalActionError(
                f"{action}: fill the new cards from the common reserve as far as is legal first ({state.fill_placed} "
                f"of {state.fill_target} dice placed); {legal_hint(places)}"
            )
        return replace(state, phase=Phase.ROLL, fill_target=0, fill_placed=0)

    # --- chance ------------------------------------------------------------------------------
    def random_chance(self, state: DiceTreasureState, rng: random.Random) -> Action:
        if state.phase is Phase.BONUS:
            return RevealBonus(tuple(b.id for b in rng.sample(state.bonus_box, 2 * len(state.players))))
        if state.phase in (Phase.DEAL, Phase.SOLO_DEAL):
            count = deal_count(state)
            pile = [c.id for c in state.draw_pile]
            if len(pile) >= count:
                ids = rng.sample(pile, count)
            else:
                ids = pile + rng.sample([c.id for c in state.discards], count - len(pile))
            return Deal(state.players[dealt_player(state)].name, tuple(ids))
        if state.phase is Phase.ROLL:
            bag = [c for c, n in zip(state.dice_colours, state.bag, strict=True) for _ in range(n)]
            drawn = rng.sample(bag, state.dice_to_roll())
            return Roll(tuple(Die(rng.randint(1, 6), c) for c in drawn))
        raise IllegalActionError(f"no chance is awaited: {self._awaited(state)}")

    # --- reading the state -------------------------------------------------------------------
    def score(self, state: DiceTreasureState) -> Score:
        players = {}
        for p in state.players:
            parts = card_gold(p)
            players[p.name] = PlayerScore(sum(parts.values()), parts)
        return Score(players)

    def winners(self, state: DiceTreasureState) -> tuple[str, ...]:
        """Highest gold wins, ties to fewer motif cards (RULES.md 3.5); solo: the player if they reached the goal."""
        if state.solo:
            p = state.players[0]
            return (p.name,) if p.gold >= state.goal else ()
        best = max((p.gold, -len(p.claimed)) for p in state.players)
        return tuple(p.name for p in state.players if (p.gold, -len(p.claimed)) == best)

    def status(self, state: DiceTreasureState) -> Status:
        defects = tuple(self.defects(state))
        if state.phase is Phase.OVER:
            return Status(None, "over", "nothing", True, self.winners(state), defects)
        chance = state.phase in (Phase.BONUS, Phase.DEAL, Phase.ROLL, Phase.SOLO_DEAL)
        if state.phase is Phase.BONUS:
            to_move = None
        elif state.phase is Phase.DEAL:
            to_move = state.players[dealt_player(state)].name
        else:
            to_move = state.players[state.active].name
        phase = state.phase.value
        if state.steal and state.phase in (Phase.ROLL, Phase.TURN):
            phase = f"steal-{phase}" if not state.solo else f"last-{phase}"
        return Status(to_move, phase, "chance" if chance else "decision", False, (), defects)

    def defects(self, state: DiceTreasureState) -> list[str]:
        """Everything inconsistent in ``state`` (read from JSON or the camera), naming the card and space."""
        out: list[str] = []
        n = len(state.players)
        if n not in SETUP:
            return [f"{n} players; Dice Treasure takes 1 to 4"]
        if (state.goal, state.cards_per_round, state.turns) != SETUP[n]:
            out.append(
                f"goal, cards per round and turns {state.goal, state.cards_per_round, state.turns} "
                f"are not {SETUP[n]} for {n} player(s)"
            )
        if len({p.name for p in state.players}) != n:
            out.append("player names repeat")
        if not (1 <= state.cycle <= state.turns and 0 <= state.turn < n and 0 <= state.start < n):
            out.append(f"turn-cycle {state.cycle}, turn {state.turn}, start seat {state.start} are out of range")
            return out
        if len(state.bag) != len(state.dice_colours) or any(b < 0 for b in state.bag):
            out.append(f"bag {state.bag} does not fit the dice colours {state.dice_colours}")
            return out
        # Dice are conserved: bag + hands + reserves + cards + common + set aside = the dice of the game.
        seen: Counter[str | None] = Counter(dict(zip(state.dice_colours, state.bag, strict=True)))
        loose = [*state.hand, *state.common, *state.on_claimed, *state.set_aside]
        for p in state.players:
            loose.extend(p.reserve)
            if len(p.reserve) > RESERVE_LIMIT:
                out.append(f"{p.name}'s personal reserve holds {len(p.reserve)} dice, at most {RESERVE_LIMIT}")
            for cip in p.cards:
                loose.extend(d for d in cip.dice if d is not None)
                out.extend(card_defects(cip, f"{p.name}'s"))
        for cip in state.middle:
            loose.extend(d for d in cip.dice if d is not None)
            out.extend(card_defects(cip, "middle"))
            if cip.complete:
                out.append(f"middle card {cip.card.id} is filled but not claimed")
        seen.update(d.colour for d in loose)
        for colour in sorted(set(seen) - set(state.dice_colours), key=str):
            out.append(f"dice of colour {colour!r}, which is not a dice colour ({', '.join(state.dice_colours)})")
        for colour in state.dice_colours:
            if seen[colour] != state.dice_per_colour:
                out.append(f"{seen[colour]} {colour} dice in the game, there are {state.dice_per_colour}")
        if state.phase not in (Phase.TURN, Phase.SOLO_FILL, Phase.OVER) and state.hand:
            out.append(f"current dice {' '.join(map(str, state.hand))} outside a turn")
        if len(state.hand) > state.dice_to_roll():
            out.append(f"{len(state.hand)} current dice, but {state.dice_to_roll()} are rolled in this turn-cycle")
        if state.steal and not state.solo and any(p.cards for p in state.players):
            out.append("players still hold cards in the steal phase (they belong in the middle)")
        if not state.steal and state.middle:
            out.append("cards in the middle before the steal phase")
        # Gold is cards + chips + bonus; chips and bonus cards are held once and earned.
        ids: Counter[str] = Counter()
        chips: Counter[str] = Counter()
        bonus_ids: Counter[str] = Counter(b.id for b in (*state.bonus_offer, *state.bonus_box))
        for p in state.players:
            total = sum(card_gold(p).values())
            if p.gold != total:
                out.append(f"{p.name} has {p.gold} gold but cards + chips + bonus make {total}")
            ids.update(c.id for c in p.claimed)
            ids.update(c.card.id for c in p.cards)
            chips.update(p.chips)
            for chip in p.chips:
                if chip not in BACKGROUNDS:
                    out.append(f"{p.name} holds a chip {chip!r}, which is not a background colour")
                elif coins_of(p, chip) < CHIP_COINS:
                    out.append(f"{p.name} holds the {chip} chip with {coins_of(p, chip)} {chip} coins (needs 3)")
            if p.bonus is not None:
                bonus_ids[p.bonus.id] += 1
                if not p.bonus.met_by([c.background for c in p.claimed]):
                    out.append(f"{p.name} holds leprechaun card {p.bonus} without the cards it needs")
        ids.update(c.card.id for c in state.middle)
        ids.update(c.id for c in (*state.draw_pile, *state.discards))
        out.extend(f"motif card {i} is in the game {k} times" for i, k in sorted(ids.items()) if k > 1)
        out.extend(f"colour chip {c} is held {k} times" for c, k in sorted(chips.items()) if k > 1)
        out.extend(f"leprechaun card {b} appears {k} times" for b, k in sorted(bonus_ids.items()) if k > 1)
        return out

    # --- text --------------------------------------------------------------------------------
    def parse_action(self, text: str, state: DiceTreasureState | None = None) -> Action:
        return parse_action(text)

    # --- what the players read (engine.dicetreasure.words) --------------------------------------
    def describe(self, state: DiceTreasureState, action: Action) -> LegalAction:
        """``action`` in words; groups: place, exchange, bonus, reserve, end, chance (see
        :mod:`engine.dicetreasure.words`)."""
        from engine.dicetreasure import words  # words reads this module's helpers

        label, group = words.label(state, action)
        return LegalAction(self.action_text(action), label, group)

    def chance_prompt(self, state: DiceTreasureState) -> ChancePrompt | None:
        from engine.dicetreasure import words

        return words.chance_prompt(state)

    def playout_policy(self) -> Callable[[DiceTreasureState, list[Action], random.Random], Action]:
        """Random but eager (:func:`engine.dicetreasure.simulate.eager_policy`): a uniform choice mostly
        exchanges dice back and forth."""
        from engine.dicetreasure.simulate import eager_policy

        return eager_policy

    def advise(
        self, state: DiceTreasureState, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None
    ) -> Advice | None:
        """The hint for the decision now, ranked by seeded playouts (:mod:`engine.dicetreasure.advice`)."""
        from engine.dicetreasure import advice  # advice plays the game: imported when asked

        return advice.advise(state, seed=seed, budget_s=budget_s, playouts=playouts)

    def board_text(self, state: DiceTreasureState) -> str:
        from engine.dicetreasure import words

        return words.board_text(state)


GAME = instance(DiceTreasure)


def describe_card(card: MotifCard) -> str:
    return f"{card}: " + ", ".join(f"{i + 1}={s}" for i, s in enumerate(card.spaces))


def bonus_by_id(state: DiceTreasureState, bonus_id: str) -> BonusCard | None:
    return next((b for b in (*state.bonus_offer, *state.bonus_box) if b.id == bonus_id), None)
