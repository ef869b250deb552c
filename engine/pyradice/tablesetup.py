"""A Pyradice game set up as on a real table: the ``setup`` rule option's words, and the quarry the camera reads.

The engine's own set-up (``setup=random``, the default) draws the board's tokens, the cards' discs and every
quarry die from a seed: the demo, the simulator and the recorder use it. A real table was set up by its players,
so the device is told what lies there instead:

- the board's tokens and the cards' discs, typed once on the set-up page as the ``setup`` option's value, e.g.
  ``A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:orange`` (a skill token for each of
  levels 2-6, in any order since its number is its level; the five objective tokens in level order 1-5; each
  card's title and the colour of the disc on it);
- the quarry: every position holds a die whose face is not known (:func:`unseen_quarry`); the camera sees the
  uncovered tops at once and each covered die when it is first uncovered (``Reveal``, chance entering as an
  observation: :mod:`engine.pyradice.observe`).

This module reads and writes the words; :class:`engine.pyradice.game.PyradiceGame` checks what they describe
(the same rules as any state's board and cards) and builds the game from them.
"""

from __future__ import annotations

import re

from engine.errors import InvalidActionError
from engine.pyradice.cards import CARDS
from engine.pyradice.quarry import Quarry, boxes_for, geometry
from engine.pyradice.state import Board, Card

#: The ``setup`` option's value for the engine's own seeded set-up.
SETUP_RANDOM = "random"
#: The ``setup`` option's choice the page offers for a real table (its value is then the table's words).
SETUP_TABLE = "table"
#: An example of the words, for the page and for messages.
SETUP_EXAMPLE = "A2 B3 A4 B5 A6 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:orange"

_SKILL = re.compile(r"[AB][2-6]")
_OBJECTIVE = re.compile(r"[CD][1-7]")


def is_table_setup(value: str) -> bool:
    """Whether a ``setup`` option's value describes a real table (anything but the engine's own set-up)."""
    return value != SETUP_RANDOM


def parse_setup(text: str) -> tuple[Board, tuple[Card, ...]]:
    """The board and cards the words describe; every word that fits nowhere, or a part missing, is named.

    Only the form is checked here: that the tokens and cards make a legal table (one skill per level, five
    different objective numbers, four known cards with four different discs) is the game's check."""
    if text.strip().lower() == SETUP_TABLE:
        raise InvalidActionError(f"setup=table needs what lies on the table: the board's tokens and each card's "
                                 f"disc colour, e.g. {SETUP_EXAMPLE!r}")
    skills: list[str] = []
    objectives: list[str] = []
    cards: list[Card] = []
    unknown: list[str] = []
    for word in text.replace(",", " ").replace(";", " ").replace("/", " ").split():
        if _SKILL.fullmatch(word.upper()):
            skills.append(word.upper())
        elif _OBJECTIVE.fullmatch(word.upper()):
            objectives.append(word.upper())
        elif ":" in word:
            title, _, colour = word.partition(":")
            cards.append(Card(_card_title(title), colour.lower()))
        else:
            unknown.append(word)
    problems = []
    if unknown:
        problems.append(f"{', '.join(repr(w) for w in unknown)} {'is' if len(unknown) == 1 else 'are'} not a skill "
                        "token (A2-B6), an objective token (C1-D7) or a card and its disc (title:colour)")
    levels = sorted(int(s[1]) for s in skills)
    if levels != [2, 3, 4, 5, 6]:
        missing = sorted(set(range(2, 7)) - set(levels))
        twice = sorted({n for n in levels if levels.count(n) > 1})
        problems.append("the board shows one skill token on each of levels 2-6"
                        + (f"; none given for level {', '.join(map(str, missing))}" if missing else "")
                        + (f"; two given for level {', '.join(map(str, twice))}" if twice else ""))
    if len(objectives) != 5:
        problems.append(f"the board shows 5 objective tokens (levels 1-5, in that order), {len(objectives)} given")
    if len(cards) != 4:
        problems.append(f"4 objective cards are in play, each with a disc: {len(cards)} given (title:colour)")
    if problems:
        raise InvalidActionError(f"setup {text.strip()!r}: " + "; ".join(problems) + f" (e.g. {SETUP_EXAMPLE!r})")
    board = Board(tuple(sorted(skills, key=lambda s: int(s[1]))), tuple(objectives))
    return board, tuple(cards)


def setup_words(board: Board, cards: tuple[Card, ...]) -> str:
    """The words that describe ``board`` and ``cards`` (what :func:`parse_setup` reads back)."""
    return " ".join([*board.skills, *board.objectives, *(f"{c.title}:{c.colour}" for c in cards)])


def unseen_quarry(players: int) -> Quarry:
    """A full quarry for ``players`` whose every die is there but not seen yet: what the game knows of a quarry
    built at a table before the camera has looked at it."""
    geo = geometry(boxes_for(players))
    return Quarry(geo.boxes, {}, frozenset(geo.positions))


def _card_title(word: str) -> str:
    """A card's title as the game knows it (any case); an unknown one is kept as given for the game's check."""
    card = CARDS.get(word.lower())
    return card.title if card is not None else word
