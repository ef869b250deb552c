"""Objective cards: each scores the dice of one disc colour in a pyramid (RULES.md 1.6).

Only four of the box's nine cards are known (Many, Height, Pairs, Big, PY17). Cards are plug-ins: a
card is an :class:`ObjectiveCard` with a ``title`` and ``score(dice, colour)``. Most cards are data: the
four known ones are rows of ``data/cards.json`` of four kinds (``count``, ``level``, ``value``,
``groups``), so another card of those shapes is one more row; any other shape is a small subclass
passed to :func:`register_card`.

``dice`` maps a slot ``(level, index)`` to ``(colour, value)``; reserve dice never count.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.errors import InvalidActionError
from engine.pyradice.pyramid import NEIGHBOURS, SLOT_SET, Slot
from engine.pyradice.quarry import COLOURS

DiceView = Mapping[Slot, tuple[str, int]]


class ObjectiveCard(ABC):
    """One objective card. Subclass it (or add a data row) to add a card of the box."""

    title: str
    text: str = ""

    @abstractmethod
    def score(self, dice: DiceView, colour: str) -> int:
        """Points for the dice of ``colour`` in one pyramid."""

    @staticmethod
    def matching(dice: DiceView, colour: str) -> dict[Slot, int]:
        return {s: v for s, (c, v) in dice.items() if c == colour}


@dataclass(frozen=True)
class CountCard(ObjectiveCard):
    """Points by how many dice match; beyond the table, ``extra`` per further die (Many)."""

    title: str
    points: Mapping[int, int]
    extra: int = 0
    text: str = ""

    def score(self, dice: DiceView, colour: str) -> int:
        n = len(self.matching(dice, colour))
        top = max(self.points)
        if n > top:
            return self.points[top] + self.extra * (n - top)
        return self.points.get(n, 0)


@dataclass(frozen=True)
class LevelCard(ObjectiveCard):
    """Points per matching die by the level it is on (Height)."""

    title: str
    points: Mapping[int, int]
    text: str = ""

    def score(self, dice: DiceView, colour: str) -> int:
        return sum(self.points.get(s[0], 0) for s in self.matching(dice, colour))


@dataclass(frozen=True)
class ValueCard(ObjectiveCard):
    """Points per matching die by its face (Big)."""

    title: str
    points: Mapping[int, int]
    text: str = ""

    def score(self, dice: DiceView, colour: str) -> int:
        return sum(self.points.get(v, 0) for v in self.matching(dice, colour).values())


@dataclass(frozen=True)
class GroupCard(ObjectiveCard):
    """Points per connected group of matching dice, by group size, under brick adjacency (Pairs)."""

    title: str
    points: Mapping[int, int]
    text: str = ""

    def score(self, dice: DiceView, colour: str) -> int:
        return sum(self.points.get(len(g), 0) for g in groups(set(self.matching(dice, colour))))


def groups(slots: set[Slot]) -> list[set[Slot]]:
    """Connected components of ``slots`` under the pyramid's brick adjacency."""
    left = set(slots)
    out = []
    while left:
        start = left.pop()
        group, todo = {start}, [start]
        while todo:
            for n in NEIGHBOURS[todo.pop()]:
                if n in left:
                    left.remove(n)
                    group.add(n)
                    todo.append(n)
        out.append(group)
    return out


_KINDS: dict[str, type[ObjectiveCard]] = {
    "count": CountCard,
    "level": LevelCard,
    "value": ValueCard,
    "groups": GroupCard,
}


def card_from_data(row: Mapping[str, Any]) -> ObjectiveCard:
    """Build a card from one data row (see ``data/cards.json``)."""
    kind = row.get("kind")
    if kind not in _KINDS:
        raise InvalidActionError(f"card kind {kind!r} is not one of {', '.join(_KINDS)}")
    points = {int(k): int(v) for k, v in row["points"].items()}
    if kind == "count":
        return CountCard(str(row["title"]), points, int(row.get("extra", 0)), str(row.get("text", "")))
    maker: type[LevelCard | ValueCard | GroupCard] = _KINDS[kind]  # type: ignore[assignment]
    return maker(str(row["title"]), points, str(row.get("text", "")))


CARDS: dict[str, ObjectiveCard] = {}


def register_card(card: ObjectiveCard) -> ObjectiveCard:
    """Make ``card`` known by its title (case-insensitive look-up)."""
    CARDS[card.title.lower()] = card
    return card


def _load() -> None:
    text = resources.files("engine.pyradice").joinpath("data/cards.json").read_text(encoding="utf-8")
    for row in json.loads(text)["cards"]:
        register_card(card_from_data(row))


_load()


def find_card(card: str) -> ObjectiveCard:
    try:
        return CARDS[card.lower()]
    except KeyError:
        known = ", ".join(c.title for c in CARDS.values())
        raise InvalidActionError(f"objective card {card!r} is not known; known cards: {known}") from None


def card_score(card: str, dice: DiceView, colour: str) -> int:
    """Points card ``card`` ("many", "height", "pairs", "big", ...) gives for the ``colour`` dice."""
    found = find_card(card)
    if colour not in COLOURS:
        raise InvalidActionError(f"disc colour {colour!r} is not one of {', '.join(COLOURS)}")
    for slot, (c, v) in dice.items():
        if slot not in SLOT_SET:
            raise InvalidActionError(f"{slot!r} is not a pyramid slot (level 1-6, index 0..6-level)")
        if c not in COLOURS:
            raise InvalidActionError(f"die at {slot!r} has colour {c!r}, not one of {', '.join(COLOURS)}")
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise InvalidActionError(f"die at {slot!r} has value {v!r}, not a face 1..6")
    return found.score(dice, colour)


__all__ = [
    "CARDS",
    "CountCard",
    "GroupCard",
    "LevelCard",
    "ObjectiveCard",
    "ValueCard",
    "card_from_data",
    "card_score",
    "find_card",
    "groups",
    "register_card",
]
