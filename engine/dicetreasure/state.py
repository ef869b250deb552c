"""The state of a Dice Treasure game and the actions that change it, with their text forms.

A state is a frozen dataclass that holds everything, including the motif cards themselves (not just ids), so
that a state read back from JSON needs no deck file. Dice are :class:`engine.dice.Die` (colour and value);
two dice of the same colour and value are interchangeable, so actions name dice by colour and value.

Chance actions (the table supplies them, or the simulator): :class:`RevealBonus` (leprechaun cards laid out at
setup), :class:`Deal` (motif cards dealt to one player), :class:`Roll` (dice drawn from the bag and rolled).
Decisions: :class:`Place`, :class:`Exchange`, :class:`ClaimBonus`, :class:`EndTurn`, and in the solo game's
last turns :class:`Reserve` and :class:`FinishSetup`.

Space numbers in actions and text are 1-based, in the order the deck file lists a card's spaces.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

from engine.dice import Die
from engine.dicetreasure.cards import BonusCard, MotifCard
from engine.errors import InvalidActionError


class Phase(enum.Enum):
    """Where a game stands; the chance phases wait for the table (or the simulator)."""

    BONUS = "bonus"  # chance: leprechaun cards laid out (setup, leprechaun module only)
    DEAL = "deal"  # chance: motif cards dealt to the next player
    ROLL = "roll"  # chance: the active player draws and rolls their dice
    TURN = "turn"  # decisions of the active player
    SOLO_DEAL = "solo-deal"  # chance: the solo player's 2 new cards before the second-to-last turn
    SOLO_FILL = "solo-fill"  # decisions: fill them from the common reserve, keep up to 2 reserve dice
    OVER = "over"


class Source(enum.Enum):
    """Where a die comes from."""

    HAND = "hand"  # the dice rolled this turn (and dice taken from the common reserve by an exchange)
    RESERVE = "reserve"  # the active player's personal reserve
    COMMON = "common"  # the common reserve (only when the solo game fills its new cards)


@dataclass(frozen=True)
class CardInPlay:
    """A motif card on the table this round, with the dice on its spaces (``None`` = empty)."""

    card: MotifCard
    dice: tuple[Die | None, ...]

    @property
    def complete(self) -> bool:
        return all(d is not None for d in self.dice)

    @staticmethod
    def fresh(card: MotifCard) -> CardInPlay:
        return CardInPlay(card, (None,) * len(card.spaces))


@dataclass(frozen=True)
class PlayerState:
    """One player: cards in front of them this round, personal reserve, score pile, chips, bonus card, gold.

    ``gold`` is kept as a running count (cards + 2 per chip + bonus reward); :func:`status` checks that it
    agrees with what the player holds."""

    name: str
    cards: tuple[CardInPlay, ...] = ()
    reserve: tuple[Die, ...] = ()
    claimed: tuple[MotifCard, ...] = ()
    chips: tuple[str, ...] = ()
    bonus: BonusCard | None = None
    gold: int = 0


@dataclass(frozen=True)
class DiceTreasureState:
    """A whole game. Seats are indices into ``players``; the round's turn order starts at ``start``."""

    players: tuple[PlayerState, ...]
    dice_colours: tuple[str, ...]
    dice_per_colour: int
    goal: int
    cards_per_round: int
    turns: int  # T: turn-cycles per round
    leprechauns: bool
    chip_tie: str
    phase: Phase
    round: int = 1
    start: int = 0
    cycle: int = 1  # 1..T; in cycle t each player rolls T - t + 1 dice
    turn: int = 0  # position in this round's turn order
    dealt: int = 0  # players dealt this round (DEAL phase)
    bag: tuple[int, ...] = ()  # dice in the bag, per colour in ``dice_colours`` order
    hand: tuple[Die, ...] = ()  # the active player's current dice
    common: tuple[Die, ...] = ()  # the common reserve
    middle: tuple[CardInPlay, ...] = ()  # steal phase: everyone's incomplete cards
    on_claimed: tuple[Die, ...] = ()  # dice on cards claimed this round (they stay until the round ends)
    set_aside: tuple[Die, ...] = ()  # solo: dice of discarded cards, out until the round ends (DT9)
    draw_pile: tuple[MotifCard, ...] = ()
    discards: tuple[MotifCard, ...] = ()
    bonus_box: tuple[BonusCard, ...] = ()  # leprechaun cards not yet laid out
    bonus_offer: tuple[BonusCard, ...] = ()  # laid out and not yet claimed
    steal: bool = False  # the steal phase (solo: the last turns) has begun this round
    # Solo, filling the 2 new cards: the most dice the common reserve could put on them when they were dealt,
    # and the dice placed so far ("as far as possible" is this count, whatever the order or the reserve taken).
    fill_target: int = 0
    fill_placed: int = 0
    last_round: bool = False
    end_reason: str = ""

    @property
    def solo(self) -> bool:
        return len(self.players) == 1

    def order(self) -> tuple[int, ...]:
        """Seats in this round's turn order."""
        n = len(self.players)
        return tuple((self.start + i) % n for i in range(n))

    @property
    def active(self) -> int:
        return (self.start + self.turn) % len(self.players)

    def dice_to_roll(self) -> int:
        return self.turns - self.cycle + 1


# --- actions ---------------------------------------------------------------------------------------


def _dice_text(dice: tuple[Die, ...]) -> str:
    return " ".join(str(d) for d in dice)


@dataclass(frozen=True)
class RevealBonus:
    """Chance: the leprechaun bonus cards laid out face up at setup (2 per player)."""

    kind: ClassVar[str] = "reveal"

    bonus: tuple[str, ...]

    def __str__(self) -> str:
        return "reveal " + " ".join(self.bonus)


@dataclass(frozen=True)
class Deal:
    """Chance: motif cards dealt face up to ``player`` (by card id)."""

    kind: ClassVar[str] = "deal"

    player: str
    cards: tuple[str, ...]

    def __str__(self) -> str:
        return f"deal {self.player}: {' '.join(self.cards)}"


@dataclass(frozen=True)
class Roll:
    """Chance: the dice the active player drew from the bag, as rolled."""

    kind: ClassVar[str] = "roll"

    dice: tuple[Die, ...]

    def __str__(self) -> str:
        return "roll " + _dice_text(self.dice)


@dataclass(frozen=True)
class Place:
    """Put a die from ``source`` on space ``space`` (1-based) of card ``card``."""

    kind: ClassVar[str] = "place"

    die: Die
    card: str
    space: int
    source: Source = Source.HAND

    def __str__(self) -> str:
        src = "" if self.source is Source.HAND else f"{self.source.value} "
        return f"place {src}{self.die} {self.card}#{self.space}"


@dataclass(frozen=True)
class Exchange:
    """Give a current (or personal-reserve) die to the common reserve and take ``take`` from it into hand."""

    kind: ClassVar[str] = "exchange"

    give: Die
    take: Die
    source: Source = Source.HAND

    def __str__(self) -> str:
        src = "" if self.source is Source.HAND else f"{self.source.value} "
        return f"exchange {src}{self.give} for {self.take}"


@dataclass(frozen=True)
class ClaimBonus:
    """Claim a leprechaun bonus card whose requirements the active player's claimed cards meet."""

    kind: ClassVar[str] = "claim"

    bonus: str

    def __str__(self) -> str:
        return f"claim {self.bonus}"


@dataclass(frozen=True)
class EndTurn:
    """End the turn keeping ``keep`` (at most 2 of the current and reserve dice) as the personal reserve;
    every other unplaced die goes to the common reserve."""

    kind: ClassVar[str] = "end"

    keep: tuple[Die, ...] = ()

    def __str__(self) -> str:
        return ("end keep " + _dice_text(self.keep)) if self.keep else "end"


@dataclass(frozen=True)
class Reserve:
    """Solo, before the last turns: move a common-reserve die to the personal reserve."""

    kind: ClassVar[str] = "reserve"

    reserve: Die

    def __str__(self) -> str:
        return f"reserve {self.reserve}"


@dataclass(frozen=True)
class FinishSetup:
    """Solo: done filling the new cards and taking reserve dice; the last turns begin."""

    kind: ClassVar[str] = "continue"

    finish: bool = True

    def __str__(self) -> str:
        return "continue"


Action = RevealBonus | Deal | Roll | Place | Exchange | ClaimBonus | EndTurn | Reserve | FinishSetup

SYNTAX = (
    "reveal ID..., deal PLAYER: ID..., roll COLOUR:VALUE..., place [reserve|common] COLOUR:VALUE CARD#SPACE, "
    "exchange [reserve] COLOUR:VALUE for COLOUR:VALUE, claim BONUS, end [keep COLOUR:VALUE...], "
    "reserve COLOUR:VALUE, continue"
)


def _die(text: str, whole: str) -> Die:
    if ":" not in text:
        raise InvalidActionError(f"{whole!r}: die {text!r} is not COLOUR:VALUE")
    try:
        return Die.parse(text)
    except InvalidActionError as exc:
        raise InvalidActionError(f"{whole!r}: {exc}") from None


def _source(words: list[str], allowed: tuple[Source, ...]) -> Source:
    if words and words[0] in {s.value for s in allowed}:
        return Source(words.pop(0))
    return Source.HAND


def parse_action(text: str) -> Action:
    """The action ``text`` names (the form ``str(action)`` prints); raise InvalidActionError quoting it."""
    words = text.strip().split()
    if not words:
        raise InvalidActionError(f"empty action; expected one of: {SYNTAX}")
    verb, rest = words[0].lower(), words[1:]
    if verb == "reveal" and rest:
        return RevealBonus(tuple(rest))
    if verb == "deal" and rest:
        player, _, first = " ".join(rest).partition(":")
        if not player.strip():
            raise InvalidActionError(f"{text!r}: expected 'deal PLAYER: CARD...'")
        return Deal(player.strip(), tuple(first.split()))
    if verb == "roll" and rest:
        return Roll(tuple(_die(w, text) for w in rest))
    if verb == "place":
        source = _source(rest, (Source.RESERVE, Source.COMMON, Source.HAND))
        if len(rest) == 2 and "#" in rest[1]:
            card, _, number = rest[1].rpartition("#")
            if card and number.isdigit():
                return Place(_die(rest[0], text), card, int(number), source)
        raise InvalidActionError(f"{text!r}: expected 'place [reserve|common] COLOUR:VALUE CARD#SPACE'")
    if verb == "exchange":
        source = _source(rest, (Source.RESERVE, Source.HAND))
        if len(rest) == 3 and rest[1] == "for":
            return Exchange(_die(rest[0], text), _die(rest[2], text), source)
        raise InvalidActionError(f"{text!r}: expected 'exchange [reserve] COLOUR:VALUE for COLOUR:VALUE'")
    if verb == "claim" and len(rest) == 1:
        return ClaimBonus(rest[0])
    if verb == "end":
        if not rest:
            return EndTurn(())
        if rest[0] == "keep":
            return EndTurn(tuple(_die(w, text) for w in rest[1:]))
    if verb == "reserve" and len(rest) == 1:
        return Reserve(_die(rest[0], text))
    if verb == "continue" and not rest:
        return FinishSetup()
    raise InvalidActionError(f"{text!r} is not a Dice Treasure action; expected one of: {SYNTAX}")
