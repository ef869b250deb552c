"""Pyramido's pieces: block colours, gems, blocks with gem icons, dominoes, and decks.

A domino is two blocks, A and B. Written in its own frame, A is on the left and B on the right. Each
block has one of 5 colours and 0-2 gem icons. An icon sits in one quadrant of its block (RULES.md 2.1):
0 = top-left, 1 = top-right, 2 = bottom-left, 3 = bottom-right, in the domino's own frame. An icon's
colour is the colour of its block (FT1).

Text forms (what :func:`parse_domino` reads and ``str()`` prints): a block is a colour letter followed
by its icon quadrants, e.g. ``r03`` is a red block with icons top-left and bottom-right; a domino is
``A-B``, e.g. ``r03-b`` for that red block beside a blue block without icons. Gems are written
``o b p g r`` (coloured) and ``m`` (mythical); a gem multiset is written ``o2 b1 m3``.

The box's exact deck list is not published (FT13). :func:`generate_deck` makes a seeded deck that
meets the published totals (90 dominoes, 36 blocks and 36 icons per colour, 2 icons per domino), and
:func:`check_deck` checks a deck that was given or observed against them.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.errors import InvalidActionError, InvalidStateError


class _Lettered(enum.Enum):
    """A colour-like member: its position in definition order and its one-letter code."""

    #: Position in the enum (COLOURS, GEMS, a gem-count tuple); a plain attribute, not a lookup, because it
    #: is read in every hot loop.
    index: int
    _value_: str

    def __init__(self, value: str) -> None:
        self.index = len(type(self).__members__)

    @property
    def letter(self) -> str:
        return self.value[0]


class Colour(_Lettered):
    """The 5 block and gem colours, in the rulebook's order."""

    ORANGE = "orange"
    BLUE = "blue"
    PURPLE = "purple"
    GREEN = "green"
    RED = "red"


COLOURS: tuple[Colour, ...] = tuple(Colour)
_COLOUR_BY_LETTER = {c.letter: c for c in COLOURS}


class Gem(_Lettered):
    """A gem from the bag: one of the 5 colours, or mythical (worth half a coloured gem of any colour)."""

    ORANGE = "orange"
    BLUE = "blue"
    PURPLE = "purple"
    GREEN = "green"
    RED = "red"
    MYTHICAL = "mythical"

    @classmethod
    def of(cls, colour: Colour) -> Gem:
        return GEMS[colour.index]

    @classmethod
    def parse(cls, text: str) -> Gem:
        t = text.strip().lower()
        for g in GEMS:
            if t in (g.letter, g.value):
                return g
        raise InvalidActionError(f"gem {text!r} is not one of o, b, p, g, r (coloured) or m (mythical)")


GEMS: tuple[Gem, ...] = tuple(Gem)
MYTHICAL = 5  # index of the mythical gem in a gem-count tuple

#: A multiset of gems: counts indexed like GEMS (orange, blue, purple, green, red, mythical).
Gems = tuple[int, ...]
NO_GEMS: Gems = (0, 0, 0, 0, 0, 0)


def gems_of(items: Iterable[Gem]) -> Gems:
    counts = [0] * 6
    for g in items:
        counts[g.index] += 1
    return tuple(counts)


def gems_add(a: Gems, b: Gems) -> Gems:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def gems_sub(a: Gems, b: Gems) -> Gems:
    """``a - b``; raises InvalidActionError if ``b`` is not contained in ``a``."""
    out = tuple(x - y for x, y in zip(a, b, strict=True))
    if min(out) < 0:
        raise InvalidActionError(f"gems {gems_text(b)} are not all in {gems_text(a)}")
    return out


def gems_text(g: Gems) -> str:
    parts = [f"{GEMS[i].letter}{n}" for i, n in enumerate(g) if n]
    return " ".join(parts) if parts else "none"


def parse_gems(text: str) -> Gems:
    """Read ``o2 b1 m3`` (or ``o o b m m m``, or ``none``) as gem counts."""
    counts = [0] * 6
    t = text.replace(",", " ").strip()
    if t.lower() in ("", "none", "-"):
        return NO_GEMS
    for word in t.split():
        rest = word[1:]
        if (rest and not rest.isdigit()) or word[0].lower() not in "obpgrm":
            raise InvalidActionError(
                f"gems {text!r}: {word!r} is not a gem letter (o, b, p, g, r or m) followed by a count"
            )
        gem = Gem.parse(word[0])
        counts[gem.index] += int(rest) if rest else 1
    return tuple(counts)


@dataclass(frozen=True, slots=True)
class Block:
    """One half of a domino: its colour and the quadrants (0-3) holding its gem icons."""

    colour: Colour
    icons: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        icons = self.icons
        if len(icons) > 2 or len(set(icons)) != len(icons) or any(q not in (0, 1, 2, 3) for q in icons):
            raise InvalidActionError(
                f"block {self.colour.value} with icons {list(icons)}: a block has 0-2 icons in distinct quadrants 0-3"
            )
        if tuple(sorted(self.icons)) != self.icons:
            object.__setattr__(self, "icons", tuple(sorted(self.icons)))

    def __str__(self) -> str:
        return self.colour.letter + "".join(str(q) for q in self.icons)


@dataclass(frozen=True, slots=True)
class Domino:
    """Two blocks, A (left in the domino's own frame) and B (right)."""

    a: Block
    b: Block

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"

    @property
    def icon_count(self) -> int:
        return len(self.a.icons) + len(self.b.icons)

    def icon_colours(self) -> tuple[Colour, ...]:
        """The colour of each icon, counted per icon (what the Legend wants, FT1)."""
        return (self.a.colour,) * len(self.a.icons) + (self.b.colour,) * len(self.b.icons)

    def back(self) -> Back:
        """What the back shows: each block's colour and icon count, not where the icons are."""
        return Back.of((self.a.colour, len(self.a.icons)), (self.b.colour, len(self.b.icons)))


@dataclass(frozen=True, slots=True)
class Back:
    """The back of a face-down domino (RULES.md 2.1): each block's colour and icon count, not the icon
    quadrants. A back does not say which block is A, so its two blocks are kept in a fixed order and a
    domino matches a back whichever way round it lies. Written like a domino with counts: ``r2-b0``."""

    blocks: tuple[tuple[Colour, int], tuple[Colour, int]]

    @classmethod
    def of(cls, first: tuple[Colour, int], second: tuple[Colour, int]) -> Back:
        pair = (first, second) if (first[0].index, first[1]) <= (second[0].index, second[1]) else (second, first)
        return cls(pair)

    def __str__(self) -> str:
        return "-".join(f"{c.letter}{n}" for c, n in self.blocks)


def parse_back(text: str) -> Back:
    """Read a back written ``A-B``, each block a colour letter and its icon count 0-2 (e.g. ``r2-b0``)."""
    parts = text.strip().lower().split("-")
    if len(parts) != 2 or any(len(p) != 2 or p[0] not in _COLOUR_BY_LETTER or p[1] not in "012" for p in parts):
        raise InvalidActionError(
            f"domino back {text!r} is not two blocks written A-B, each a colour letter (o, b, p, g, r) and its "
            "icon count 0-2, e.g. r2-b0"
        )
    (ca, na), (cb, nb) = ((_COLOUR_BY_LETTER[p[0]], int(p[1])) for p in parts)
    if na + nb != ICONS_PER_DOMINO:
        raise InvalidActionError(f"domino back {text!r} shows {na + nb} gem icons; every domino has {ICONS_PER_DOMINO}")
    return Back.of((ca, na), (cb, nb))


def parse_block(text: str) -> Block:
    t = text.strip().lower()
    if not t or t[0] not in _COLOUR_BY_LETTER or not all(ch in "0123" for ch in t[1:]):
        raise InvalidActionError(
            f"block {text!r} is not a colour letter (o, b, p, g, r) followed by icon quadrants 0-3"
        )
    return Block(_COLOUR_BY_LETTER[t[0]], tuple(int(ch) for ch in t[1:]))


def parse_domino(text: str) -> Domino:
    """Read a domino written ``A-B`` (e.g. ``r03-b``); raise InvalidActionError quoting the text."""
    parts = text.strip().split("-")
    if len(parts) != 2:
        raise InvalidActionError(f"domino {text!r} is not two blocks written A-B, e.g. r03-b")
    try:
        return Domino(parse_block(parts[0]), parse_block(parts[1]))
    except InvalidActionError as exc:
        raise InvalidActionError(f"domino {text!r}: {exc}") from None


DECK_SIZE = 90
BLOCKS_PER_COLOUR = 36
ICONS_PER_COLOUR = 36
ICONS_PER_DOMINO = 2


def deck_problems(deck: Sequence[Domino]) -> list[str]:
    """What keeps ``deck`` from meeting the published totals (empty if it meets them)."""
    problems = []
    if len(deck) != DECK_SIZE:
        problems.append(f"deck has {len(deck)} dominoes, not {DECK_SIZE}")
    blocks = [0] * len(COLOURS)  # per colour index
    icons = [0] * len(COLOURS)
    for d in deck:
        if d.icon_count != ICONS_PER_DOMINO:
            problems.append(f"domino {d} has {d.icon_count} gem icons, not {ICONS_PER_DOMINO}")
        for blk in (d.a, d.b):
            blocks[blk.colour.index] += 1
            icons[blk.colour.index] += len(blk.icons)
    for c in COLOURS:
        if blocks[c.index] != BLOCKS_PER_COLOUR:
            problems.append(f"deck has {blocks[c.index]} {c.value} blocks, not {BLOCKS_PER_COLOUR}")
        if icons[c.index] != ICONS_PER_COLOUR:
            problems.append(f"deck has {icons[c.index]} {c.value} gem icons, not {ICONS_PER_COLOUR}")
    return problems


def check_deck(deck: Sequence[Domino]) -> tuple[Domino, ...]:
    problems = deck_problems(deck)
    if problems:
        raise InvalidStateError("; ".join(problems))
    return tuple(deck)


def generate_deck(seed: int) -> tuple[Domino, ...]:
    """A seeded deck that meets the published totals, in shuffled order.

    Per colour, 36 blocks carry 36 icons, so the number of 2-icon blocks equals the number of blank
    ones; each 2-icon block is paired with a blank block and the 1-icon blocks are paired together, which
    gives every domino exactly 2 icons.
    """
    rng = random.Random(seed)
    twos: list[Block] = []
    ones: list[Block] = []
    blanks: list[Block] = []
    for c in COLOURS:
        n2 = rng.randint(6, 12)
        n1 = BLOCKS_PER_COLOUR - 2 * n2
        twos += [Block(c, tuple(rng.sample(range(4), 2))) for _ in range(n2)]
        ones += [Block(c, (rng.randrange(4),)) for _ in range(n1)]
        blanks += [Block(c) for _ in range(n2)]
    rng.shuffle(blanks)
    rng.shuffle(ones)
    deck = [Domino(*((t, z) if rng.random() < 0.5 else (z, t))) for t, z in zip(twos, blanks, strict=True)]
    deck += [Domino(ones[i], ones[i + 1]) for i in range(0, len(ones), 2)]
    rng.shuffle(deck)
    return check_deck(deck)
