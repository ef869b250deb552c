"""The Legend's turn in solo mode, step by step as RULES.md 2.7 writes it out (FT15, FT16).

The Legend wants the icon colours of the top domino of his pile, counted per icon (FT1): two icons on a
red block mean "red, red". He collects at most 2 gems:

1. Coloured search: the face-up spaces from left to right; in each, every coloured gem that fills a still
   unfilled slot (two from one space, even two alike); stop once both slots are filled.
2. Mythical search, only if fewer than 2 coloured gems were taken: the face-up spaces from left to right
   again, mythical gems until he has 2 gems in all.

He then takes the domino of the space where he took his last gem; with no gem, the leftmost face-up
domino and 1 random gem from the bag. This module only searches; the game applies the result.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.pyramido.dominoes import MYTHICAL, Colour, Domino, Gem
from engine.pyramido.exploration import Space


@dataclass(frozen=True)
class LegendSearch:
    """What the Legend takes: gems as (space 1-5, gem) in the order taken, and the space whose domino he takes."""

    gems: tuple[tuple[int, Gem], ...]
    domino_space: int | None
    draws_random_gem: bool

    def __str__(self) -> str:
        taken = ", ".join(f"{g.value} from space {s}" for s, g in self.gems) or "no gem"
        dom = f"the domino of space {self.domino_space}" if self.domino_space else "no domino"
        extra = " and draws 1 random gem" if self.draws_random_gem else ""
        return f"the Legend takes {taken}; {dom}{extra}"


def wanted_colours(domino: Domino) -> tuple[Colour, ...]:
    """The Legend's wishes: one colour per gem icon on the top domino of his pile."""
    return domino.icon_colours()


def legend_search(spaces: tuple[Space, ...], top: Domino | None) -> LegendSearch:
    """The Legend's search on this exploration area with ``top`` on his pile."""
    slots: Counter[Colour] = Counter(wanted_colours(top) if top is not None else ())
    face_up = [i for i, s in enumerate(spaces) if s.face_up is not None]
    remaining = [list(s.gems) for s in spaces]
    taken: list[tuple[int, Gem]] = []
    for i in face_up:
        if sum(slots.values()) == 0:
            break
        for colour in list(slots):
            n = min(slots[colour], remaining[i][colour.index])
            for _ in range(n):
                taken.append((i + 1, Gem.of(colour)))
            remaining[i][colour.index] -= n
            slots[colour] -= n
    coloured = len(taken)
    need = 2 - coloured
    if need > 0:
        for i in face_up:
            if need == 0:
                break
            n = min(need, remaining[i][MYTHICAL])
            for _ in range(n):
                taken.append((i + 1, Gem.MYTHICAL))
            remaining[i][MYTHICAL] -= n
            need -= n
    if taken:
        return LegendSearch(tuple(taken), taken[-1][0], False)
    return LegendSearch((), face_up[0] + 1 if face_up else None, True)


def legend_stage_score(inventory: tuple[int, ...], stage: int) -> int:
    """Coloured gems x stage number + mythical gems x 2."""
    return sum(inventory[:MYTHICAL]) * stage + inventory[MYTHICAL] * 2
