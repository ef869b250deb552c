"""The Pyradice quarry: its three-layer geometry, which dice are available, and building it.

Coordinates follow RULES.md 1.2: a position is ``(layer, row, col)`` with layer 0 the bottom. A die of
layer L >= 1 rests on the four dice ``(L-1, r..r+1, c..c+1)``. The two-player side of the board is
4x6 / 3x5 / 2x4 (one box of dice); the three-and-four-player side is 4x11 / 3x10 / 2x9 (two boxes).

A die is *available* when at least three of its five counting faces (top and four sides) are visible:
the top is covered when any die of the layer above rests on it, even partly; a side is covered when
the orthogonal neighbour in the same layer is present. RULES.md shows this is the only reading that
gives the rulebook's "only 4 choices" at the start, and that in any reachable quarry a covered die is
never available (the tests check both).

A quarry read from the camera may hold dice whose value is not known yet (``unknown``: present, covered at
set-up, so never seen). Such a die takes part in availability like any other; its value enters the game as
an observation when it is first seen (:meth:`Quarry.reveal`, the ``Reveal`` action), and until then it can
be neither taken nor used by a skill. A simulated quarry knows every die (``unknown`` is empty).
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
#: A position's availability facts as bit masks: (bit, side neighbours, covers, most visible faces).
Faces = tuple[int, int, int, int]

COLOURS: tuple[str, ...] = PALETTES["pyradice"]
DICE_PER_COLOUR = 12  # per box
#: (rows, cols) of layers 0, 1, 2 for one box (2 players) and two boxes (3-4 players).
LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((4, 6), (3, 5), (2, 4)),
    2: ((4, 11), (3, 10), (2, 9)),
}


_DICE: dict[tuple[int, str | None], Die] = {}


def shared_die(value: int, colour: str | None) -> Die:
    """The die showing ``value`` (a face 1..6) in ``colour``: one shared object per face and colour.

    Dice are immutable values, and a new ``Die`` checks its face again, which is a noticeable part of
    setting up a quarry and of every skill use.
    """
    die = _DICE.get((value, colour))
    if die is None:
        die = _DICE[(value, colour)] = Die(value, colour)
    return die


def boxes_for(players: int) -> int:
    """Boxes of dice (and quarry side) a game of ``players`` uses: one for 2, two for 3 or 4."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise InvalidActionError(f"Pyradice takes 2 to 4 players, got {players!r}")
    return 1 if players == 2 else 2


def position_text(pos: Position) -> str:
    return f"q{pos[0]},{pos[1]},{pos[2]}"


@dataclass(frozen=True)
class Geometry:
    """The fixed shape of one quarry side, precomputed once: positions, supports, covers, neighbours.

    Besides the position tables it holds the same facts as bit masks over ``order`` (bit i stands for
    ``positions[i]``), so that availability is a few integer operations on the mask of filled positions
    instead of a walk over neighbours (the hot path of every random game).
    """

    boxes: int
    positions: tuple[Position, ...]
    supports: Mapping[Position, tuple[Position, ...]]  # the dice a die rests on
    covers: Mapping[Position, tuple[Position, ...]]  # the dice that would rest on it (cover its top)
    sides: Mapping[Position, tuple[Position, ...]]  # orthogonal neighbours in the same layer
    edges: Mapping[Position, int]  # sides at the board edge (always visible)
    order: Mapping[Position, int]  # index in ``positions``
    #: position -> (its bit, mask of its side neighbours, mask of the dice that would cover it, visible
    #: faces when every neighbour and cover is present: the edge sides plus the top).
    faces: Mapping[Position, Faces]
    #: position -> the positions whose visible faces change when a die there is removed (its side
    #: neighbours and the dice under it), each with its ``faces``.
    freed: Mapping[Position, tuple[tuple[Position, Faces], ...]]

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

    def mask(ps: Iterable[Position]) -> int:
        return sum(1 << order[p] for p in ps)

    faces = {p: (1 << order[p], mask(sides[p]), mask(covers[p]), edges[p] + 1) for p in positions}
    freed = {p: tuple((q, faces[q]) for q in sides[p] + supports[p]) for p in positions}
    return Geometry(boxes, tuple(positions), supports, covers, sides, edges, order, faces, freed)


def _available_in(filled: int, faces: Faces) -> bool:
    """The rule itself: a die is available when at least 3 of its 5 counting faces are visible.

    ``filled`` is the mask of filled positions. Visible faces: the edge sides, each side whose
    neighbour is missing, and the top unless any die of the layer above rests on it. This is the
    definition, not the equivalent "uncovered with two free sides", so that a quarry read from the
    camera in an impossible shape is still judged by the rule.
    """
    bit, side_mask, cover_mask, most = faces
    if not filled & bit:
        return False
    visible = most + (side_mask & ~filled).bit_count() - (1 if filled & cover_mask else 0)
    return visible >= 3


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
    #: Positions holding a die whose value is not known yet (never seen: covered since set-up).
    unknown: frozenset[Position] = frozenset()

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
        return cls.full(players, [shared_die(rng.randint(1, 6), colour) for colour in pool[:size]])

    @classmethod
    def from_layout(cls, players: int, dice: Mapping[Position, Die | None]) -> Quarry:
        """A quarry as the camera saw it: position -> die, or None for a die seen there whose value is not
        known (covered); positions off the board raise InvalidActionError."""
        geo = geometry(boxes_for(players))
        for pos in dice:
            if not geo.contains(pos):
                raise InvalidActionError(f"quarry position {pos!r} is not on the {players}-player board")
        known = {p: d for p, d in dice.items() if d is not None}
        return cls(geo.boxes, known, frozenset(p for p, d in dice.items() if d is None))

    @classmethod
    def seen_at_setup(cls, players: int, tops: Mapping[Position, Die]) -> Quarry:
        """A full quarry as the camera sees it at set-up: the dice whose top is uncovered are ``tops`` (every
        one of them must be given), the covered ones unknown until they are uncovered and seen."""
        geo = geometry(boxes_for(players))
        covered = frozenset(p for p in geo.positions if geo.covers[p])
        missing = [p for p in geo.positions if p not in covered and p not in tops]
        if missing:
            raise InvalidActionError(f"the uncovered quarry dice {positions_text(missing)} were not seen")
        extra = [p for p in tops if p in covered or not geo.contains(p)]
        if extra:
            raise InvalidActionError(f"quarry positions {extra!r} are covered or off the board: their top is not seen")
        return cls(geo.boxes, dict(tops), covered)

    # --- geometry and availability -------------------------------------------------------------
    @cached_property
    def geometry(self) -> Geometry:
        return geometry(self.boxes)

    def present(self, pos: Position) -> bool:
        """Whether a die lies at ``pos`` (known or not)."""
        return pos in self.dice or pos in self.unknown

    def covered(self, pos: Position) -> bool:
        """Whether a die of the layer above rests on ``pos`` (its top cannot be seen)."""
        return any(self.present(p) for p in self.geometry.covers.get(pos, ()))

    def to_reveal(self) -> list[Position]:
        """Unknown dice whose top is uncovered now: the camera sees them, and the game needs their value."""
        return sorted(p for p in self.unknown if not self.covered(p))

    def visible_faces(self, pos: Position) -> int:
        """How many of the five counting faces of the die at ``pos`` are visible (0 if empty)."""
        if not self.present(pos):
            return 0
        geo = self.geometry
        top = 0 if self.covered(pos) else 1
        return top + geo.edges[pos] + sum(not self.present(p) for p in geo.sides[pos])

    @cached_property
    def _filled(self) -> int:
        """The mask of filled positions on the board (see :class:`Geometry`)."""
        order = self.geometry.order
        filled = sum(1 << order[p] for p in self.dice if p in order)
        if self.unknown:
            filled |= sum(1 << order[p] for p in self.unknown if p in order)
        return filled

    @cached_property
    def _available_mask(self) -> int:
        """The mask of available positions; :meth:`remove` hands it on updated instead of recomputing."""
        filled = self._filled
        faces = self.geometry.faces
        return sum(faces[p][0] for p in self.geometry.positions if _available_in(filled, faces[p]))

    @cached_property
    def _available(self) -> tuple[Position, ...]:
        """The available positions in position order (``remove`` hands it on updated)."""
        mask = self._available_mask
        faces = self.geometry.faces
        return tuple(p for p in self.geometry.positions if mask & faces[p][0])

    def available(self) -> list[Position]:
        """Positions of the available dice, in position order."""
        return list(self._available)

    def is_available(self, pos: Position) -> bool:
        faces = self.geometry.faces.get(pos)
        return faces is not None and bool(self._available_mask & faces[0])

    def known_available(self) -> list[Position]:
        """Available positions whose die is known (only those can be taken or used by a skill)."""
        if not self.unknown:
            return list(self._available)
        return [p for p in self._available if p not in self.unknown]

    def __len__(self) -> int:
        return len(self.dice) + len(self.unknown)

    # --- changes -----------------------------------------------------------------------------
    def _problem(self, pos: Position, what: str) -> IllegalActionError:
        if not self.geometry.contains(pos):
            return IllegalActionError(f"cannot {what} {pos!r}: not a position on this quarry board")
        if pos in self.unknown:
            return IllegalActionError(f"cannot {what} {position_text(pos)}: its die has not been seen yet")
        if pos not in self.dice:
            return IllegalActionError(f"cannot {what} {position_text(pos)}: that position is empty")
        return IllegalActionError(
            f"cannot {what} {position_text(pos)}: only {self.visible_faces(pos)} visible faces, "
            f"a die needs 3 to be available"
        )

    def _derived(
        self, dice: dict[Position, Die], filled: int, mask: int, available: tuple[Position, ...]
    ) -> Quarry:
        # Build without re-running __init__ (hot path): same boxes, new dice, known masks and listing.
        new = object.__new__(Quarry)
        new.__dict__.update(
            boxes=self.boxes,
            dice=dice,
            unknown=self.unknown,
            geometry=self.geometry,
            _filled=filled,
            _available_mask=mask,
            _available=available,
        )
        return new

    def remove(self, position: Position) -> Quarry:
        """The quarry after taking the available die at ``position`` (IllegalActionError otherwise)."""
        geo = self.geometry
        faces = geo.faces.get(position)
        if faces is None or not self._available_mask & faces[0] or (self.unknown and position in self.unknown):
            raise self._problem(position, "take")
        dice = self.dice.copy()
        del dice[position]
        filled = self._filled & ~faces[0]
        mask = self._available_mask & ~faces[0]
        kept = list(self._available)
        kept.remove(position)
        # Removing a die only frees faces of its side neighbours and of the dice under it; a die that
        # was available stays so (removing dice never hides a face).
        grown = False
        for q, (bit, side_mask, cover_mask, most) in geo.freed[position]:
            # A die there but not yet available, then _available_in(filled, ...) written out (this loop
            # runs on every take of every game).
            if (
                filled & bit
                and not mask & bit
                and most + (side_mask & ~filled).bit_count() - (1 if filled & cover_mask else 0) >= 3
            ):
                mask |= bit
                kept.append(q)
                grown = True
        if grown:
            kept.sort()  # (layer, row, col) tuples sort in position order
        return self._derived(dice, filled, mask, tuple(kept))

    def replace(self, position: Position, die: Die) -> Quarry:
        """The quarry with the available die at ``position`` exchanged for ``die`` (skill A4)."""
        if not self.is_available(position) or position in self.unknown:
            raise self._problem(position, "swap with")
        dice = self.dice.copy()
        dice[position] = die
        # same shape, same availability
        return self._derived(dice, self._filled, self._available_mask, self._available)

    def reveal(self, position: Position, die: Die) -> Quarry:
        """The quarry with the unknown die at ``position`` now seen as ``die`` (its top must be uncovered)."""
        if position not in self.unknown:
            known = self.dice.get(position)
            if known is not None:
                raise IllegalActionError(f"quarry {position_text(position)} is already known: {known}")
            raise IllegalActionError(f"quarry {position_text(position)} holds no unseen die")
        if self.covered(position):
            raise IllegalActionError(f"quarry {position_text(position)} is still covered: its top cannot be seen")
        dice = self.dice.copy()
        dice[position] = die
        new = self._derived(dice, self._filled, self._available_mask, self._available)
        new.__dict__["unknown"] = self.unknown - {position}
        return new

    # --- consistency (for states read from the camera or JSON) ----------------------------------
    def defects(self) -> list[str]:
        """What is physically impossible about this quarry: positions off the board, floating dice."""
        out: list[str] = []
        if self.boxes not in LAYOUTS:
            return [f"quarry boxes={self.boxes!r} is not 1 (2 players) or 2 (3-4 players)"]
        geo = geometry(self.boxes)
        both = sorted(set(self.dice) & self.unknown)
        if both:
            out.append(f"quarry positions {positions_text(both)} are both known and unknown")
        for pos in [*self.dice, *sorted(self.unknown)]:
            if not geo.contains(pos):
                out.append(f"quarry position {pos!r} is not on the board")
                continue
            missing = [p for p in geo.supports[pos] if not self.present(p)]
            if missing:
                out.append(
                    f"quarry die at {position_text(pos)} floats: nothing under it at "
                    + ", ".join(position_text(p) for p in missing)
                )
        return out


def positions_text(positions: Iterable[Position]) -> str:
    return ", ".join(position_text(p) for p in positions)
