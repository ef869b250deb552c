"""The Pyradice quarry: its three-layer geometry, which dice are available, and building it.

Coordinates follow RULES.md 1.2: a position is ``(layer, row, col)`` with layer 0 the bottom. A die of
layer L >= 1 rests on the four dice ``(L-1, r..r+1, c..c+1)``. The two-player side of the board is
4x6 / 3x5 / 2x4 (one box of dice); the three-and-four-player side is 4x11 / 3x10 / 2x9 (two boxes).

A die is *available* when at least three of its five counting faces (top and four sides) are visible:
the top is covered when any die of the layer above rests on it, even partly; a side is covered when
the orthogonal neighbour in the same layer is present. RULES.md shows this is the only reading that
gives the rulebook's "only 4 choices" at the start, and that in any reachable quarry a covered die is
never available (the tests check both).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from engine.dice import PALETTES, Die
from engine.errors import IllegalActionError, InvalidActionError

Position = tuple[int, int, int]

COLOURS: tuple[str, ...] = PALETTES["pyradice"]
DICE_PER_COLOUR = 12  # per box
#: (rows, cols) of layers 0, 1, 2 for one box (2 players) and two boxes (3-4 players).
LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((4, 6), (3, 5), (2, 4)),
    2: ((4, 11), (3, 10), (2, 9)),
}


def boxes_for(players: int) -> int:
    """Boxes of dice (and quarry side) a game of ``players`` uses: one for 2, two for 3 or 4."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise InvalidActionError(f"Pyradice takes 2 to 4 players, got {players!r}")
    return 1 if players == 2 else 2


def position_text(pos: Position) -> str:
    return f"q{pos[0]},{pos[1]},{pos[2]}"


@dataclass(frozen=True)
class Geometry:
    """The fixed shape of one quarry side, precomputed once: positions, supports, covers, neighbours."""

    boxes: int
    positions: tuple[Position, ...]
    supports: Mapping[Position, tuple[Position, ...]]  # the dice a die rests on
    covers: Mapping[Position, tuple[Position, ...]]  # the dice that would rest on it (cover its top)
    sides: Mapping[Position, tuple[Position, ...]]  # orthogonal neighbours in the same layer
    edges: Mapping[Position, int]  # sides at the board edge (always visible)
    order: Mapping[Position, int]  # index in ``positions``

    def contains(self, pos: object) -> bool:
        return pos in self.supports


@functools.cache
def geometry(boxes: int) -> Geometry:
    if boxes not in LAYOUTS:
        raise InvalidActionError(f"a quarry uses 1 or 2 boxes of dice, got {boxes!r}")
    dims = LAYOUTS[boxes]
    positions = [(layer, r, c) for layer, (rows, cols) in enumerate(dims) for r in range(rows) for c in range(cols)]
    present = set(positions)
    supports: dict[Position, tuple[Position, ...]] = {}
    covers: dict[Position, tuple[Position, ...]] = {}
    sides: dict[Position, tuple[Position, ...]] = {}
    edges: dict[Position, int] = {}
    for layer, r, c in positions:
        supports[(layer, r, c)] = (
            ((layer - 1, r, c), (layer - 1, r + 1, c), (layer - 1, r, c + 1), (layer - 1, r + 1, c + 1))
            if layer
            else ()
        )
        covers[(layer, r, c)] = tuple(
            p for p in ((layer + 1, r - 1, c - 1), (layer + 1, r - 1, c), (layer + 1, r, c - 1), (layer + 1, r, c))
            if p in present
        )
        around = ((layer, r - 1, c), (layer, r + 1, c), (layer, r, c - 1), (layer, r, c + 1))
        sides[(layer, r, c)] = tuple(p for p in around if p in present)
        edges[(layer, r, c)] = sum(p not in present for p in around)
    order = {p: i for i, p in enumerate(positions)}
    return Geometry(boxes, tuple(positions), supports, covers, sides, edges, order)


@dataclass(frozen=True)
class Quarry:
    """The dice on the quarry board: ``dice`` maps each filled position to its die.

    ``boxes`` is 1 for the two-player side and 2 for the three-and-four-player side. A quarry is a value:
    :meth:`remove` and :meth:`replace` return new quarries. Which dice are available is cached on the
    object and updated incrementally by :meth:`remove`, since only the neighbours and the dice under a
    removed die can change.
    """

    boxes: int
    dice: dict[Position, Die]

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def full(cls, players: int, dice: Sequence[Die] | None = None) -> Quarry:
        """A quarry with every position filled, in position order (layer, row, col).

        Without ``dice`` the positions get placeholder dice (colours and values cycling), which is
        enough for geometry and availability.
        """
        geo = geometry(boxes_for(players))
        if dice is None:
            dice = [Die(i % 6 + 1, COLOURS[i % 4]) for i in range(len(geo.positions))]
        if len(dice) != len(geo.positions):
            raise InvalidActionError(
                f"a {players}-player quarry holds {len(geo.positions)} dice, got {len(dice)}"
            )
        return cls(geo.boxes, dict(zip(geo.positions, dice, strict=True)))

    @classmethod
    def random(cls, players: int, rng: random.Random) -> Quarry:
        """Setup as the rulebook says: dice drawn at random from the box(es), each rolled."""
        boxes = boxes_for(players)
        pool = [colour for colour in COLOURS for _ in range(DICE_PER_COLOUR * boxes)]
        rng.shuffle(pool)
        size = len(geometry(boxes).positions)
        return cls.full(players, [Die(rng.randint(1, 6), colour) for colour in pool[:size]])

    @classmethod
    def from_layout(cls, players: int, dice: Mapping[Position, Die]) -> Quarry:
        """A quarry as the camera saw it; positions off the board raise InvalidActionError."""
        geo = geometry(boxes_for(players))
        for pos in dice:
            if not geo.contains(pos):
                raise InvalidActionError(f"quarry position {pos!r} is not on the {players}-player board")
        return cls(geo.boxes, dict(dice))

    # --- geometry and availability -------------------------------------------------------------
    @cached_property
    def geometry(self) -> Geometry:
        return geometry(self.boxes)

    def visible_faces(self, pos: Position) -> int:
        """How many of the five counting faces of the die at ``pos`` are visible (0 if empty)."""
        if pos not in self.dice:
            return 0
        geo = self.geometry
        top = 0 if any(p in self.dice for p in geo.covers[pos]) else 1
        return top + geo.edges[pos] + sum(p not in self.dice for p in geo.sides[pos])

    def _is_available(self, pos: Position, geo: Geometry) -> bool:
        # The definition itself (>= 3 visible faces), not the equivalent "uncovered and 2 free sides",
        # so that a quarry read from the camera in an impossible shape is still judged by the rule.
        dice = self.dice
        if pos not in dice:
            return False
        visible = geo.edges[pos]
        for p in geo.sides[pos]:
            if p not in dice:
                visible += 1
        for p in geo.covers[pos]:
            if p in dice:
                return visible >= 3
        return visible >= 2

    @cached_property
    def _available(self) -> tuple[Position, ...]:
        geo = self.geometry
        return tuple(p for p in geo.positions if self._is_available(p, geo))

    def available(self) -> list[Position]:
        """Positions of the available dice, in position order."""
        return list(self._available)

    def is_available(self, pos: Position) -> bool:
        return pos in self._available

    def __len__(self) -> int:
        return len(self.dice)

    # --- changes -----------------------------------------------------------------------------
    def _problem(self, pos: Position, what: str) -> IllegalActionError:
        if not self.geometry.contains(pos):
            return IllegalActionError(f"cannot {what} {pos!r}: not a position on this quarry board")
        if pos not in self.dice:
            return IllegalActionError(f"cannot {what} {position_text(pos)}: that position is empty")
        return IllegalActionError(
            f"cannot {what} {position_text(pos)}: only {self.visible_faces(pos)} visible faces, "
            f"a die needs 3 to be available"
        )

    def _derived(self, dice: dict[Position, Die], available: tuple[Position, ...]) -> Quarry:
        # Build without re-running __init__ (hot path): same boxes, new dice, known availability.
        new = object.__new__(Quarry)
        new.__dict__.update(boxes=self.boxes, dice=dice, geometry=self.geometry, _available=available)
        return new

    def remove(self, position: Position) -> Quarry:
        """The quarry after taking the available die at ``position`` (IllegalActionError otherwise)."""
        avail = self._available
        if position not in avail:
            raise self._problem(position, "take")
        dice = self.dice.copy()
        del dice[position]
        # Removing a die only frees faces of its side neighbours and of the dice under it.
        geo = self.geometry
        new = self._derived(dice, ())
        kept = [p for p in avail if p != position]
        for p in geo.sides[position] + geo.supports[position]:
            if p not in avail and new._is_available(p, geo):
                kept.append(p)
        kept.sort(key=geo.order.__getitem__)
        new.__dict__["_available"] = tuple(kept)
        return new

    def replace(self, position: Position, die: Die) -> Quarry:
        """The quarry with the available die at ``position`` exchanged for ``die`` (skill A4)."""
        if position not in self._available:
            raise self._problem(position, "swap with")
        dice = self.dice.copy()
        dice[position] = die
        return self._derived(dice, self._available)  # same shape, same availability

    # --- consistency (for states read from the camera or JSON) ----------------------------------
    def defects(self) -> list[str]:
        """What is physically impossible about this quarry: positions off the board, floating dice."""
        out: list[str] = []
        if self.boxes not in LAYOUTS:
            return [f"quarry boxes={self.boxes!r} is not 1 (2 players) or 2 (3-4 players)"]
        geo = geometry(self.boxes)
        for pos in self.dice:
            if not geo.contains(pos):
                out.append(f"quarry position {pos!r} is not on the board")
                continue
            missing = [p for p in geo.supports[pos] if p not in self.dice]
            if missing:
                out.append(
                    f"quarry die at {position_text(pos)} floats: nothing under it at "
                    + ", ".join(position_text(p) for p in missing)
                )
        return out


def positions_text(positions: Iterable[Position]) -> str:
    return ", ".join(position_text(p) for p in positions)
