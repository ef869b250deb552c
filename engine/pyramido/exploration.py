"""The exploration area: 5 spaces, each a domino pile with a gem area in front of it (RULES.md 2.2, 2.3).

The device cannot see face-down dominoes, so a pile is a count of face-down dominoes and, on top, the
face-up domino if there is one. A gem area is a gem multiset. The back of a pile's face-down top shows
each block's colour and icon count (RULES.md 2.1); a space keeps it when the device has seen it. Which
domino is revealed and which gem is drawn are chance, supplied as actions (:mod:`engine.pyramido.game`).

Refilling an emptied pile (FT14): the bottom half of another pile moves there, face down. By default that
is floor(n/2) dominoes of a pile of n (rule option ``pile_refill=floor``); ``pile_refill=ceil`` reads
"half" as rounding up. Either way only face-down dominoes move; a face-up top stays where it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.pyramido.dominoes import Back, Domino, Gems

SPACES = 5
PILE_SIZE = 18  # 90 dominoes in 5 piles
GEMS_PER_AREA = 3
FIRST_FACE_UP = (1, 3, 5)  # piles flipped at setup


@dataclass(frozen=True, slots=True)
class Space:
    """One pile and its gem area: face-down dominoes, the face-up top (if any), the gems in front, and
    the back of the face-down top when it shows (no face-up domino on it) and has been seen."""

    face_down: int
    face_up: Domino | None
    gems: Gems
    back: Back | None = None

    @property
    def size(self) -> int:
        return self.face_down + (1 if self.face_up is not None else 0)

    def __str__(self) -> str:
        from engine.pyramido.dominoes import gems_text

        back = f"(face down, back {self.back})" if self.back is not None else "(face down)"
        top = str(self.face_up) if self.face_up is not None else back if self.face_down else "(empty)"
        return f"{top} over {self.face_down} face down; gems {gems_text(self.gems)}"


def refill_count(source: Space, rule: str) -> int:
    """How many face-down dominoes move from ``source`` to an emptied pile under rule ``floor`` or ``ceil``."""
    n = source.size
    half = n // 2 if rule == "floor" else (n + 1) // 2
    return min(half, source.face_down)


def refill_sources(spaces: tuple[Space, ...], emptied: int, rule: str) -> list[int]:
    """Piles (1-5) that can refill pile ``emptied`` (they would give at least one domino)."""
    return [i + 1 for i, s in enumerate(spaces) if i + 1 != emptied and refill_count(s, rule) > 0]
