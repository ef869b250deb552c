"""Motif cards, leprechaun bonus cards and the deck file that holds them.

The box's card list is not published (RULES.md 3.1, DT10), so the cards are data: a deck file in JSON (or TOML)
that owners write for their own box. This module owns the card types, the file format, :func:`load_deck` and
:func:`validate_deck`. The format is described in ``docs/dicetreasure.md``; in short::

    {
      "format": "dicetreasure-deck/1",
      "name": "my box",
      "stand_in": false,
      "dice_colours": ["red", "yellow", "green", "blue", "purple"],
      "motif_cards": [
        {"id": "red-1", "background": "red", "coins": 1,
         "spaces": [{"at": [0, 0], "colour": "any", "value": 3},
                    {"at": [1, 0], "colour": "blue", "value": "any"},
                    {"at": [2, 0], "colour": "any", "value": "any"}]}
      ],
      "bonus_cards": [{"id": "blue", "requires": ["red", "blue", "any"], "reward": 2}]
    }

A space's ``colour`` is a dice colour or ``"any"`` (a white space), its ``value`` a face 1..6 or ``"any"``
(no pips). ``at`` is the space's column and row on the card; spaces one step apart in a row or column are
neighbours. The validator checks the published composition (63 cards: per background colour 4 three-dice cards
worth 1, 3 four-dice cards worth 2, 2 five-dice cards worth 3; 0 or 21 bonus cards) and that every card can be
filled at all, and lists every problem, naming the card and the field.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from engine.dice import PALETTES, Die
from engine.errors import GameError

FORMAT = "dicetreasure-deck/1"
#: The seven background colours (colour symbols) of the motif cards, in the rulebook's order of RULES.md 3.1.
BACKGROUNDS: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "indigo", "purple")
#: Default names of the 5 dice colours; a deck file may name its own (RULES.md: the real colours are unknown).
DEFAULT_DICE_COLOURS: tuple[str, ...] = PALETTES["dicetreasure"]
ANY = "any"
#: Spaces on a card of each coin value (3-dice cards are worth 1, 4-dice 2, 5-dice 3).
SPACES_FOR_COINS: dict[int, int] = {1: 3, 2: 4, 3: 5}
#: Cards per background colour, by coin value (the published composition).
CARDS_PER_BACKGROUND: dict[int, int] = {1: 4, 2: 3, 3: 2}
MOTIF_CARD_COUNT = 63
BONUS_CARD_COUNT = 21
MAX_POS = 9


class DeckError(GameError):
    """A deck file is missing, unreadable or breaks the format; ``problems`` lists every problem found."""

    def __init__(self, path: str, problems: Sequence[str]) -> None:
        self.path = path
        self.problems = tuple(problems)
        shown = "; ".join(self.problems[:5])
        more = f" (and {len(self.problems) - 5} more)" if len(self.problems) > 5 else ""
        super().__init__(f"deck {path}: {len(self.problems)} problem(s): {shown}{more}")


@dataclass(frozen=True, slots=True)
class Space:
    """One space of a motif card: where it is, and its colour and value requirements (``None`` = any)."""

    pos: tuple[int, int]
    colour: str | None = None
    value: int | None = None

    def accepts(self, die: Die) -> bool:
        """Whether ``die`` meets this space's own requirements (neighbours aside)."""
        return (self.colour is None or self.colour == die.colour) and (self.value is None or self.value == die.value)

    def __str__(self) -> str:
        colour = self.colour or ANY
        value = ANY if self.value is None else str(self.value)
        return f"({self.pos[0]},{self.pos[1]}) {colour}/{value}"


@dataclass(frozen=True)
class MotifCard:
    """A motif card: its id in the deck, background colour, coins, and spaces (3, 4 or 5)."""

    id: str
    background: str
    coins: int
    spaces: tuple[Space, ...]

    def __post_init__(self) -> None:
        # Neighbour lists are asked for on every legality check; work them out once. Not a dataclass field,
        # so equality, hashing and JSON ignore it.
        adjacent = tuple(
            tuple(j for j, t in enumerate(self.spaces) if abs(t.pos[0] - s.pos[0]) + abs(t.pos[1] - s.pos[1]) == 1)
            for s in self.spaces
        )
        object.__setattr__(self, "adjacent", adjacent)

    adjacent: ClassVar[tuple[tuple[int, ...], ...]]

    def neighbours(self, index: int) -> tuple[int, ...]:
        """Indices of the spaces orthogonally next to space ``index`` on this card (DT1)."""
        return self.adjacent[index]

    def __str__(self) -> str:
        return f"{self.id} ({self.background}, {self.coins} coin{'s' if self.coins != 1 else ''})"


@dataclass(frozen=True)
class BonusCard:
    """A leprechaun bonus card: background colours it needs among a player's claimed cards (``None`` = any
    colour, each requirement met by a different card) and the gold it gives."""

    id: str
    requires: tuple[str | None, ...]
    reward: int

    def __str__(self) -> str:
        need = ", ".join(r or ANY for r in self.requires)
        return f"{self.id} ({need} -> {self.reward})"

    def met_by(self, backgrounds: Sequence[str]) -> bool:
        """Whether distinct cards with these background colours meet every requirement."""
        have = Counter(backgrounds)
        named = Counter(r for r in self.requires if r is not None)
        if any(have[c] < n for c, n in named.items()):
            return False
        spare = sum(have.values()) - sum(named.values())
        return spare >= sum(1 for r in self.requires if r is None)


@dataclass(frozen=True)
class Deck:
    """Everything a deck file holds."""

    name: str
    dice_colours: tuple[str, ...]
    motif_cards: tuple[MotifCard, ...]
    bonus_cards: tuple[BonusCard, ...] = ()
    stand_in: bool = False
    #: Enrolled over several sittings and not complete yet: the composition is not checked, the deck plays
    #: with the cards it has (:func:`deck_warnings` says what is missing).
    partial: bool = False

    def card(self, card_id: str) -> MotifCard:
        for c in self.motif_cards:
            if c.id == card_id:
                return c
        raise KeyError(card_id)


# --- reading -------------------------------------------------------------------------------------


def _read(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise DeckError(str(path), [f"not valid TOML ({exc})"]) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeckError(str(path), [f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"]) from None


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class _Checker:
    """Walks the parsed file once, building cards and collecting every problem on the way."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.partial = False

    def bad(self, text: str) -> None:
        self.problems.append(text)

    def deck(self, data: Any) -> Deck | None:
        if not isinstance(data, dict):
            self.bad(f"the file must hold an object with motif_cards, got {type(data).__name__}")
            return None
        known = {"format", "name", "stand_in", "partial", "note", "dice_colours", "motif_cards", "bonus_cards"}
        for key in sorted(set(data) - known):
            self.bad(f"unknown top-level field {key!r} (known: {', '.join(sorted(known))})")
        if data.get("format", FORMAT) != FORMAT:
            self.bad(f"field 'format' is {data['format']!r}, expected {FORMAT!r}")
        name = data.get("name", "")
        if not isinstance(name, str):
            self.bad(f"field 'name' must be text, got {name!r}")
            name = ""
        stand_in = data.get("stand_in", False)
        if not isinstance(stand_in, bool):
            self.bad(f"field 'stand_in' must be true or false, got {stand_in!r}")
            stand_in = False
        partial = data.get("partial", False)
        if not isinstance(partial, bool):
            self.bad(f"field 'partial' must be true or false, got {partial!r}")
            partial = False
        self.partial = partial
        colours = self.dice_colours(data.get("dice_colours", list(DEFAULT_DICE_COLOURS)))
        cards = self.motif_cards(data.get("motif_cards"), colours)
        bonus = self.bonus_cards(data.get("bonus_cards", []))
        if self.problems:
            return None
        return Deck(name, colours, cards, bonus, stand_in, partial)

    def dice_colours(self, raw: Any) -> tuple[str, ...]:
        if not isinstance(raw, list) or not all(isinstance(c, str) and c.strip() for c in raw):
            self.bad(f"field 'dice_colours' must be a list of 5 colour names, got {raw!r}")
            return DEFAULT_DICE_COLOURS
        if len(raw) != 5 or len(set(raw)) != 5:
            self.bad(f"field 'dice_colours' must name 5 different colours, got {raw!r}")
        if ANY in raw:
            self.bad(f"field 'dice_colours' may not use the word {ANY!r} (it means a white space)")
        return tuple(raw)

    def motif_cards(self, raw: Any, colours: tuple[str, ...]) -> tuple[MotifCard, ...]:
        if not isinstance(raw, list):
            self.bad(f"field 'motif_cards' must be a list of cards, got {raw!r}")
            return ()
        cards: list[MotifCard] = []
        seen: dict[str, int] = {}
        for n, item in enumerate(raw, 1):
            card = self.motif_card(n, item, colours)
            if card is None:
                continue
            if card.id in seen:
                self.bad(f"motif card {card.id!r} (#{n}): id already used by card #{seen[card.id]}")
            seen.setdefault(card.id, n)
            cards.append(card)
        if not raw and self.partial:
            self.bad("a partial deck needs at least one motif card")
        if len(raw) != MOTIF_CARD_COUNT and not self.partial:
            self.bad(f"the deck has {len(raw)} motif cards; the game has {MOTIF_CARD_COUNT}")
        counts = Counter((c.background, c.coins) for c in cards)
        for bg in BACKGROUNDS:
            if self.partial:
                over = [f"{counts[bg, coins]} worth {coins}" for coins, want in CARDS_PER_BACKGROUND.items()
                        if counts[bg, coins] > want]
                if over:
                    self.bad(f"background {bg}: the deck has {', '.join(over)}; the game has at most 4 worth 1, "
                             "3 worth 2, 2 worth 3")
                continue
            if any(counts[bg, coins] != want for coins, want in CARDS_PER_BACKGROUND.items()):
                have = ", ".join(f"{counts[bg, coins]} worth {coins}" for coins in CARDS_PER_BACKGROUND)
                self.bad(f"background {bg}: the deck has {have}; the game has 4 worth 1, 3 worth 2, 2 worth 3")
        return tuple(cards)

    def motif_card(self, n: int, item: Any, colours: tuple[str, ...]) -> MotifCard | None:
        where = f"motif card #{n}"
        if not isinstance(item, dict):
            self.bad(f"{where}: must be an object with id, background, coins, spaces, got {item!r}")
            return None
        card_id = item.get("id")
        if isinstance(card_id, str) and card_id.strip():
            where = f"motif card {card_id!r} (#{n})"
        else:
            self.bad(f"{where}: field 'id' must be non-empty text, got {card_id!r}")
            card_id = f"#{n}"
        before = len(self.problems)
        for key in sorted(set(item) - {"id", "background", "coins", "spaces", "note"}):
            self.bad(f"{where}: unknown field {key!r}")
        background: Any = item.get("background")
        if background not in BACKGROUNDS:
            self.bad(f"{where}: field 'background' is {background!r}, not one of {', '.join(BACKGROUNDS)}")
        coins = item.get("coins")
        if not _is_int(coins) or coins not in SPACES_FOR_COINS:
            self.bad(f"{where}: field 'coins' is {coins!r}, not 1, 2 or 3")
            coins = None
        raw_spaces = item.get("spaces")
        spaces: list[Space] = []
        if not isinstance(raw_spaces, list):
            self.bad(f"{where}: field 'spaces' must be a list of spaces, got {raw_spaces!r}")
        else:
            if coins is not None and len(raw_spaces) != SPACES_FOR_COINS[coins]:
                self.bad(
                    f"{where}: has {len(raw_spaces)} spaces, a card worth {coins} coin(s) has {SPACES_FOR_COINS[coins]}"
                )
            positions: dict[tuple[int, int], int] = {}
            for k, raw_space in enumerate(raw_spaces, 1):
                space = self.space(f"{where} space {k}", raw_space, colours)
                if space is None:
                    continue
                if space.pos in positions:
                    self.bad(
                        f"{where} space {k}: position {list(space.pos)} already used by space {positions[space.pos]}"
                    )
                positions.setdefault(space.pos, k)
                spaces.append(space)
        if len(self.problems) > before:
            return None
        card = MotifCard(card_id, background, coins or 0, tuple(spaces))
        if not can_fill(card, colours):
            self.bad(
                f"{where}: can never be completed (its requirements force two neighbours to share a colour or value)"
            )
            return None
        return card

    def space(self, where: str, raw: Any, colours: tuple[str, ...]) -> Space | None:
        if not isinstance(raw, dict):
            self.bad(f"{where}: must be an object with at, colour, value, got {raw!r}")
            return None
        before = len(self.problems)
        for key in sorted(set(raw) - {"at", "colour", "value"}):
            self.bad(f"{where}: unknown field {key!r}")
        at: Any = raw.get("at")
        if not (isinstance(at, list) and len(at) == 2 and all(_is_int(v) and 0 <= v <= MAX_POS for v in at)):
            self.bad(f"{where}: field 'at' must be [column, row] with whole numbers 0..{MAX_POS}, got {at!r}")
        colour = raw.get("colour", ANY)
        if colour != ANY and colour not in colours:
            self.bad(f"{where}: field 'colour' is {colour!r}, not 'any' or a dice colour ({', '.join(colours)})")
        value = raw.get("value", ANY)
        if value != ANY and not (_is_int(value) and 1 <= value <= 6):
            self.bad(f"{where}: field 'value' is {value!r}, not 'any' or a face 1..6")
        if len(self.problems) > before:
            return None
        return Space((at[0], at[1]), None if colour == ANY else colour, None if value == ANY else value)

    def bonus_cards(self, raw: Any) -> tuple[BonusCard, ...]:
        if not isinstance(raw, list):
            self.bad(f"field 'bonus_cards' must be a list of cards, got {raw!r}")
            return ()
        cards: list[BonusCard] = []
        seen: set[str] = set()
        for n, item in enumerate(raw, 1):
            where = f"bonus card #{n}"
            if not isinstance(item, dict):
                self.bad(f"{where}: must be an object with id, requires, reward, got {item!r}")
                continue
            card_id = item.get("id")
            if isinstance(card_id, str) and card_id.strip():
                where = f"bonus card {card_id!r} (#{n})"
            else:
                self.bad(f"{where}: field 'id' must be non-empty text, got {card_id!r}")
            before = len(self.problems)
            if card_id in seen:
                self.bad(f"{where}: id already used")
            for key in sorted(set(item) - {"id", "requires", "reward", "note"}):
                self.bad(f"{where}: unknown field {key!r}")
            requires = item.get("requires")
            if not isinstance(requires, list) or not 1 <= len(requires) <= 7:
                self.bad(f"{where}: field 'requires' must list 1 to 7 background colours or 'any', got {requires!r}")
                requires = []
            for r in requires:
                if r != ANY and r not in BACKGROUNDS:
                    self.bad(f"{where}: requirement {r!r} is not 'any' or one of {', '.join(BACKGROUNDS)}")
            reward: Any = item.get("reward")
            if not _is_int(reward) or not 1 <= reward <= 20:
                self.bad(f"{where}: field 'reward' is {reward!r}, not a whole number of coins 1..20")
            if len(self.problems) == before and isinstance(card_id, str):
                seen.add(card_id)
                cards.append(BonusCard(card_id, tuple(None if r == ANY else r for r in requires), reward))
        if raw and len(raw) != BONUS_CARD_COUNT and not self.partial:
            self.bad(f"the deck has {len(raw)} bonus cards; the expansion has {BONUS_CARD_COUNT} (or give none)")
        return tuple(cards)


def can_fill(card: MotifCard, colours: Sequence[str]) -> bool:
    """Whether some dice meet every space of ``card`` with no two neighbours sharing a colour or value."""
    choices = [
        [Die(v, c) for c in ([s.colour] if s.colour else colours) for v in ([s.value] if s.value else range(1, 7))]
        for s in card.spaces
    ]
    neighbours = [card.neighbours(i) for i in range(len(card.spaces))]
    chosen: list[Die] = []

    def fill(i: int) -> bool:
        if i == len(choices):
            return True
        for die in choices[i]:
            if all(chosen[j].colour != die.colour and chosen[j].value != die.value for j in neighbours[i] if j < i):
                chosen.append(die)
                if fill(i + 1):
                    return True
                chosen.pop()
        return False

    return fill(0)


def parse_deck(data: Any, source: str = "<deck>") -> Deck:
    """A :class:`Deck` from already-parsed file data; raise :class:`DeckError` listing every problem."""
    checker = _Checker()
    deck = checker.deck(data)
    if deck is None:
        raise DeckError(source, checker.problems)
    return deck


def deck_problems(data: Any) -> list[str]:
    """Every problem in already-parsed deck data (empty if the deck is good)."""
    checker = _Checker()
    checker.deck(data)
    return checker.problems


def load_deck(path: str | Path) -> Deck:
    """Read a deck file (``.json`` or ``.toml``); raise :class:`DeckError` (a ValueError) listing every problem,
    or OSError if the file cannot be read."""
    p = Path(path)
    return parse_deck(_read(p), str(p))


def validate_deck(path: str | Path) -> list[str]:
    """Every problem in the deck file at ``path``, each naming the card and field; empty if it is good."""
    p = Path(path)
    try:
        data = _read(p)
    except DeckError as exc:
        return list(exc.problems)
    except OSError as exc:
        return [f"cannot read {p}: {exc.strerror or exc}"]
    except UnicodeDecodeError:
        return [f"{p} is not UTF-8 text"]
    return deck_problems(data)


SAMPLE_DECK_PATH = Path(__file__).resolve().parent / "data" / "sample-deck.json"


def sample_deck() -> Deck:
    """The shipped stand-in deck (published composition, invented patterns); owners replace it with their own."""
    return _sample()


_SAMPLE: list[Deck] = []


def _sample() -> Deck:
    if not _SAMPLE:
        _SAMPLE.append(load_deck(SAMPLE_DECK_PATH))
    return _SAMPLE[0]


def deck_to_data(deck: Deck, note: str = "") -> dict[str, Any]:
    """The file data of ``deck`` (what :func:`parse_deck` reads back)."""

    def space(s: Space) -> dict[str, Any]:
        return {"at": list(s.pos), "colour": s.colour or ANY, "value": ANY if s.value is None else s.value}

    data: dict[str, Any] = {"format": FORMAT, "name": deck.name, "stand_in": deck.stand_in}
    if deck.partial:
        data["partial"] = True
    if note:
        data["note"] = note
    data["dice_colours"] = list(deck.dice_colours)
    data["motif_cards"] = [
        {"id": c.id, "background": c.background, "coins": c.coins, "spaces": [space(s) for s in c.spaces]}
        for c in deck.motif_cards
    ]
    data["bonus_cards"] = [
        {"id": b.id, "requires": [r or ANY for r in b.requires], "reward": b.reward} for b in deck.bonus_cards
    ]
    return data


def with_colours(deck: Deck, mapping: Mapping[str, str]) -> Deck:
    """The same deck with dice colours renamed (``old -> new``), for tables whose dice are other colours."""
    rename = {c: mapping.get(c, c) for c in deck.dice_colours}
    if len(set(rename.values())) != len(rename):
        raise DeckError(deck.name, [f"renaming dice colours {dict(mapping)} would make two colours the same"])
    cards = tuple(
        MotifCard(
            c.id, c.background, c.coins, tuple(Space(s.pos, s.colour and rename[s.colour], s.value) for s in c.spaces)
        )
        for c in deck.motif_cards
    )
    return Deck(deck.name, tuple(rename[c] for c in deck.dice_colours), cards, deck.bonus_cards, deck.stand_in)


def deck_warnings(deck: Deck) -> list[str]:
    """What a player should know before playing ``deck``: a stand-in, a partial deck (what it lacks), leprechaun
    card ids that are also motif card ids (a file enrolled here never has them: its leprechaun cards are
    ``leprechaun-N``)."""
    out = []
    if deck.stand_in:
        out.append(f"deck {deck.name!r} is a stand-in (invented patterns), not the cards of a real box")
    if deck.partial:
        counts = Counter((c.background, c.coins) for c in deck.motif_cards)
        missing = sum(max(0, want - counts[bg, coins]) for bg in BACKGROUNDS
                      for coins, want in CARDS_PER_BACKGROUND.items())
        out.append(f"deck {deck.name!r} is partial: {len(deck.motif_cards)} of {MOTIF_CARD_COUNT} motif cards "
                   f"({missing} still to enrol); it plays with the cards it has")
    clash = sorted({b.id for b in deck.bonus_cards} & {c.id for c in deck.motif_cards})
    if clash:
        out.append(f"leprechaun card ids {', '.join(clash)} are also motif card ids")
    return out
