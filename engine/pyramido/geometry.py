"""A player's pyramid: where dominoes go, stage by stage (RULES.md 2.4).

Coordinates. Stage-1 blocks sit on an integer grid; the first domino's block A is block (0, 0), so a
pyramid's coordinates start at its first block and may run negative. The stage-1 *frame* is the bounding
box of the stage-1 blocks (5x4 or 4x5 once the stage is complete); with its top-left block at (fx, fy)
and size W x H, the stage-k grid is the blocks (x, y) with fx <= x <= fx + W - k and fy <= y <= fy + H - k.
Every block, whatever its stage, covers the *quarter cells* (half-block units)
[2x + k - 1, 2x + k + 1) x [2y + k - 1, 2y + k + 1): a stage-k block is inset half a block per stage, so
its corners sit on the centres of the blocks below it.

A placement puts block A at (x, y) of the current stage's grid and block B one step in its direction:
E (east, the domino's own frame), S, W or N, i.e. the domino turned 0, 90, 180 or 270 degrees clockwise.
Turning the domino turns its icon quadrants with it.

Stage 1: no overlap, every domino after the first shares a full block edge with a stage-1 block, and the
union fits a 5x4 or 4x5 box. Stages 2-4: any two empty adjacent blocks of the stage grid; no support or
contact needed (FT4). *No room* means no legal placement exists, whatever the domino (FT6).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property

from engine.errors import IllegalActionError, InvalidActionError
from engine.pyramido.dominoes import Colour, Domino, parse_domino

STAGES = 4
#: Blocks per stage once complete: 20, 12, 6, 2 (10, 6, 3 and 1 dominoes).
STAGE_BLOCKS = (20, 12, 6, 2)


class Direction(enum.Enum):
    """Where block B lies from block A: the domino turned 0, 90, 180, 270 degrees clockwise."""

    E = "E"
    S = "S"
    W = "W"
    N = "N"

    #: Quarter turns clockwise from E; a plain attribute because placements sort by it.
    turns: int

    def __init__(self, value: str) -> None:
        self.turns = len(type(self).__members__)

    @property
    def step(self) -> tuple[int, int]:
        return _STEPS[self]


DIRECTIONS: tuple[Direction, ...] = tuple(Direction)
_STEPS = {Direction.E: (1, 0), Direction.S: (0, 1), Direction.W: (-1, 0), Direction.N: (0, -1)}
_OPPOSITE = {Direction.E: Direction.W, Direction.W: Direction.E, Direction.S: Direction.N, Direction.N: Direction.S}


def turn_quadrant(q: int, turns: int) -> int:
    """Quadrant ``q`` (0 TL, 1 TR, 2 BL, 3 BR) after turning its block ``turns`` x 90 degrees clockwise."""
    qx, qy = q % 2, q // 2
    for _ in range(turns % 4):
        qx, qy = 1 - qy, qx
    return qy * 2 + qx


@dataclass(frozen=True, slots=True)
class Placement:
    """Block A at (x, y) of the given stage's grid, block B one step in ``direction``."""

    stage: int
    x: int
    y: int
    direction: Direction

    def cells(self) -> tuple[tuple[int, int], tuple[int, int]]:
        dx, dy = self.direction.step
        return (self.x, self.y), (self.x + dx, self.y + dy)

    def __str__(self) -> str:
        return f"s{self.stage} {self.x},{self.y} {self.direction.value}"

    @classmethod
    def parse(cls, text: str) -> Placement:
        """Read ``s1 2,3 E`` (stage, block A's x,y, direction of block B)."""
        words = text.replace(":", " ").split()
        try:
            stage_w, xy, dir_w = words
            if not stage_w.lower().startswith("s"):
                raise ValueError
            xs, ys = xy.split(",")
            return cls(int(stage_w[1:]), int(xs), int(ys), Direction(dir_w.upper()))
        except ValueError:
            raise InvalidActionError(
                f"placement {text!r} is not 'sSTAGE X,Y DIR' (e.g. 's1 2,3 E'; DIR is E, S, W or N)"
            ) from None


@dataclass(frozen=True, slots=True)
class Laid:
    """One block as it lies in a pyramid: its stage, colour and icon quadrants after turning."""

    stage: int
    colour: Colour
    icons: tuple[int, ...]


_TURNED: tuple[tuple[int, ...], ...] = tuple(tuple(turn_quadrant(q, t) for q in range(4)) for t in range(4))


def lay(domino: Domino, placement: Placement) -> tuple[tuple[tuple[int, int], Laid], ...]:
    """The two blocks of ``domino`` as ``placement`` lays them: ((cell, laid block), ...)."""
    table = _TURNED[placement.direction.turns]
    dx, dy = placement.direction.step
    x, y, k = placement.x, placement.y, placement.stage
    a, b = domino.a, domino.b
    return (
        ((x, y), Laid(k, a.colour, tuple(sorted(table[q] for q in a.icons)))),
        ((x + dx, y + dy), Laid(k, b.colour, tuple(sorted(table[q] for q in b.icons)))),
    )


@dataclass(frozen=True, slots=True)
class PlacedDomino:
    domino: Domino
    placement: Placement

    def __str__(self) -> str:
        return f"{self.domino} @ {self.placement}"

    @classmethod
    def parse(cls, text: str) -> PlacedDomino:
        dom, sep, where = text.partition("@")
        if not sep:
            raise InvalidActionError(f"placed domino {text!r} is not 'DOMINO @ sSTAGE X,Y DIR'")
        return cls(parse_domino(dom), Placement.parse(where))


@dataclass(frozen=True, slots=True)
class Frame:
    """The stage-1 frame: top-left block (x, y) and size in blocks."""

    x: int
    y: int
    width: int
    height: int

    def grid(self, stage: int) -> frozenset[tuple[int, int]]:
        return frozenset(
            (self.x + i, self.y + j) for i in range(self.width - stage + 1) for j in range(self.height - stage + 1)
        )


def fits_stage_one(width: int, height: int) -> bool:
    return (width <= 5 and height <= 4) or (width <= 4 and height <= 5)


@dataclass(frozen=True)
class Pyramid:
    """The dominoes a player has placed, in order, and the stage being built now (1-4)."""

    stage: int = 1
    placed: tuple[PlacedDomino, ...] = ()

    # --- derived data (cached; not part of equality or JSON) ------------------------------------
    @cached_property
    def blocks(self) -> tuple[dict[tuple[int, int], Laid], ...]:
        """Per stage (index 0 = stage 1), block cell -> the block laid there."""
        per: tuple[dict[tuple[int, int], Laid], ...] = ({}, {}, {}, {})
        for pd in self.placed:
            if 1 <= pd.placement.stage <= STAGES:
                for cell, laid in lay(pd.domino, pd.placement):
                    per[pd.placement.stage - 1][cell] = laid
        return per

    @cached_property
    def frame(self) -> Frame | None:
        """The bounding box of the stage-1 blocks, or None before the first domino."""
        cells = self.blocks[0]
        if not cells:
            return None
        xs = [c[0] for c in cells]
        ys = [c[1] for c in cells]
        return Frame(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)

    @cached_property
    def top_view(self) -> dict[tuple[int, int], tuple[Colour, bool, int]]:
        """Quarter cell -> (colour, shows a gem icon, stage) of the highest block covering it (2.5)."""
        view: dict[tuple[int, int], tuple[Colour, bool, int]] = {}
        for k, stage_blocks in enumerate(self.blocks, start=1):
            for (x, y), laid in stage_blocks.items():
                ox, oy = 2 * x + k - 1, 2 * y + k - 1
                c, icons = laid.colour, laid.icons
                # The 4 quadrants written out: this runs for every block of every scoring.
                view[(ox, oy)] = (c, 0 in icons, k)
                view[(ox + 1, oy)] = (c, 1 in icons, k)
                view[(ox, oy + 1)] = (c, 2 in icons, k)
                view[(ox + 1, oy + 1)] = (c, 3 in icons, k)
        return view

    @cached_property
    def defects(self) -> tuple[str, ...]:
        """What is wrong with this pyramid if it was read rather than built by legal placements."""
        return tuple(pyramid_defects(self))

    def stage_count(self, stage: int) -> int:
        """Dominoes placed in ``stage``."""
        return sum(1 for pd in self.placed if pd.placement.stage == stage)

    def place(self, domino: Domino, placement: Placement) -> Pyramid:
        """The pyramid with ``domino`` laid at ``placement``; IllegalActionError says why it cannot go there."""
        check_placement(self, placement)
        new = Pyramid(self.stage, (*self.placed, PlacedDomino(domino, placement)))
        # Hand the derived data on instead of recomputing it: placing is the hot path of every search.
        blocks = list(self.blocks)
        stage_blocks = dict(blocks[placement.stage - 1])
        stage_blocks.update(lay(domino, placement))
        blocks[placement.stage - 1] = stage_blocks
        new.__dict__["blocks"] = tuple(blocks)
        if placement.stage > 1 and "frame" in self.__dict__:
            new.__dict__["frame"] = self.frame
        if not self.defects:
            new.__dict__["defects"] = ()
        return new

    def next_stage(self) -> Pyramid:
        new = Pyramid(self.stage + 1, self.placed)
        new.__dict__["blocks"] = self.blocks
        frame = self.frame
        if not self.defects and (self.stage > 1 or (frame is not None and {frame.width, frame.height} == {4, 5})):
            new.__dict__["defects"] = ()
        return new

    def __str__(self) -> str:
        return f"stage {self.stage}: " + "; ".join(str(p) for p in self.placed)

    @classmethod
    def build(cls, stage: int, placed: list[str] | tuple[str, ...]) -> Pyramid:
        """A pyramid from 'DOMINO @ sK X,Y DIR' texts, each checked in order (for tests and the CLI)."""
        p = cls(1)
        for text in placed:
            pd = PlacedDomino.parse(text)
            while p.stage < pd.placement.stage:
                p = p.next_stage()
            p = p.place(pd.domino, pd.placement)
        while p.stage < stage:
            p = p.next_stage()
        return p


_PAIRS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))


def _stage_one_pairs(occupied: dict[tuple[int, int], Laid]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Unordered empty cell pairs that touch a stage-1 block by a full edge and keep the union in 5x4/4x5."""
    xs = [c[0] for c in occupied]
    ys = [c[1] for c in occupied]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    # Every cell of a legal pair lies in a box at most 5 wide and 5 tall around the current blocks.
    lo_x, hi_x, lo_y, hi_y = x1 - 4, x0 + 4, y1 - 4, y0 + 4
    free = {
        (cx + dx, cy + dy)
        for cx, cy in occupied
        for dx, dy in _PAIRS
        if (cx + dx, cy + dy) not in occupied
    }
    pairs: set[tuple[tuple[int, int], tuple[int, int]]] = set()
    for p in free:
        px, py = p
        for q in ((px + 1, py), (px, py + 1), (px - 1, py), (px, py - 1)):
            qx, qy = q
            if q in occupied or not (lo_x <= qx <= hi_x and lo_y <= qy <= hi_y):
                continue
            w = max(x1, px, qx) - min(x0, px, qx) + 1
            h = max(y1, py, qy) - min(y0, py, qy) + 1
            if (w <= 5 and h <= 4) or (w <= 4 and h <= 5):
                pairs.add((p, q) if p < q else (q, p))
    return sorted(pairs)


def _pair_placements(stage: int, pairs: list[tuple[tuple[int, int], tuple[int, int]]]) -> list[Placement]:
    # Sort plain (y, x, turns) tuples first and make the Placements after: sorting is the costly part.
    E, S, W, N = DIRECTIONS
    keys = []
    for (px, py), (qx, qy) in pairs:
        if qx > px:
            keys.append((py, px, 0, E))
            keys.append((qy, qx, 2, W))
        else:
            keys.append((py, px, 1, S))
            keys.append((qy, qx, 3, N))
    keys.sort()
    return [Placement(stage, x, y, d) for y, x, _t, d in keys]


def _grid_pairs(grid: frozenset[tuple[int, int]], occupied: dict[tuple[int, int], Laid]) -> list[
    tuple[tuple[int, int], tuple[int, int]]
]:
    pairs = []
    for x, y in grid:
        if (x, y) in occupied:
            continue
        for q in ((x + 1, y), (x, y + 1)):
            if q in grid and q not in occupied:
                pairs.append(((x, y), q))
    return pairs


def placement_pairs(pyramid: Pyramid) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The empty block pairs a domino may cover in the current stage (each unordered pair once)."""
    cached: list[tuple[tuple[int, int], tuple[int, int]]] | None = pyramid.__dict__.get("pairs")
    if cached is None:
        # Cached on the pyramid (which never changes): has_room and legal_placements ask for the same one.
        cached = pyramid.__dict__["pairs"] = _placement_pairs(pyramid)
    return cached


def _placement_pairs(pyramid: Pyramid) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    stage = pyramid.stage
    if not 1 <= stage <= STAGES:
        return []
    occupied = pyramid.blocks[stage - 1]
    if stage == 1:
        if not occupied:
            return [((0, 0), (1, 0)), ((0, 0), (0, 1)), ((-1, 0), (0, 0)), ((0, -1), (0, 0))]
        return _stage_one_pairs(occupied)
    frame = pyramid.frame
    if frame is None:
        return []
    return _grid_pairs(frame.grid(stage), occupied)


def legal_placements(pyramid: Pyramid, domino: Domino | None = None) -> list[Placement]:
    """Every legal position and turn for a domino in the pyramid's current stage.

    The domino does not change where a domino may go; it is accepted so that callers can say what they
    are placing. The first domino of stage 1 goes with block A on (0, 0) in any of the 4 turns.
    """
    cached: tuple[Placement, ...] | None = pyramid.__dict__.get("placements")
    if cached is None:
        stage = pyramid.stage
        if stage == 1 and not pyramid.blocks[0]:
            cached = tuple(Placement(1, 0, 0, d) for d in DIRECTIONS)
        else:
            cached = tuple(_pair_placements(stage, placement_pairs(pyramid)))
        pyramid.__dict__["placements"] = cached
    return list(cached)


def has_room(pyramid: Pyramid) -> bool:
    """Whether any domino still fits in the current stage (if not, the player's turn is lost, FT6)."""
    return bool(placement_pairs(pyramid))


def check_placement(pyramid: Pyramid, placement: Placement) -> None:
    """Raise IllegalActionError naming the position and the reason if ``placement`` is not legal now."""
    stage = pyramid.stage
    where = f"placement {placement}"
    if not 1 <= stage <= STAGES:
        raise IllegalActionError(f"{where}: the pyramid is complete")
    if placement.stage != stage:
        raise IllegalActionError(f"{where}: the pyramid is building stage {stage}, not stage {placement.stage}")
    occupied = pyramid.blocks[stage - 1]
    a, b = placement.cells()
    for cell in (a, b):
        if cell in occupied:
            raise IllegalActionError(f"{where}: block {cell[0]},{cell[1]} of stage {stage} is already covered")
    if stage == 1:
        if not occupied:
            if a != (0, 0):
                raise IllegalActionError(f"{where}: the first domino's block A goes on 0,0 (the pyramid's origin)")
            return
        if not any((c[0] + dx, c[1] + dy) in occupied for c in (a, b) for dx, dy in _PAIRS):
            raise IllegalActionError(f"{where}: not connected; it must share a full block edge with a stage-1 block")
        xs = [c[0] for c in occupied] + [a[0], b[0]]
        ys = [c[1] for c in occupied] + [a[1], b[1]]
        w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
        if not fits_stage_one(w, h):
            raise IllegalActionError(f"{where}: stage 1 would span {w}x{h} blocks; it must fit 5x4 or 4x5")
        return
    frame = pyramid.frame
    if frame is None:
        raise IllegalActionError(f"{where}: stage 1 has no blocks, so stage {stage} has no frame")
    grid = frame.grid(stage)
    for cell in (a, b):
        if cell not in grid:
            raise IllegalActionError(
                f"{where}: block {cell[0]},{cell[1]} is outside the stage-{stage} frame "
                f"(x {frame.x}..{frame.x + frame.width - stage}, y {frame.y}..{frame.y + frame.height - stage})"
            )


def pyramid_defects(pyramid: Pyramid) -> list[str]:
    """What is wrong with a pyramid that was read rather than built by legal placements."""
    defects = []
    if not 1 <= pyramid.stage <= STAGES:
        defects.append(f"stage {pyramid.stage} is not 1-4")
        return defects
    replay = Pyramid(1)
    for pd in pyramid.placed:
        while replay.stage < pd.placement.stage:
            if replay.stage == 1 and replay.frame is not None and {replay.frame.width, replay.frame.height} != {4, 5}:
                defects.append(
                    f"stage 1 is {replay.frame.width}x{replay.frame.height} blocks, not 5x4 or 4x5, "
                    f"yet {pd} is on stage {pd.placement.stage}"
                )
            replay = replay.next_stage()
        if pd.placement.stage < replay.stage:
            defects.append(f"{pd} is on stage {pd.placement.stage} after stage {replay.stage} was begun")
            continue
        try:
            replay = replay.place(pd.domino, pd.placement)
        except IllegalActionError as exc:
            defects.append(str(exc))
    if replay.stage > pyramid.stage:
        defects.append(f"dominoes lie on stage {replay.stage} but the pyramid is building stage {pyramid.stage}")
    return defects


__all__ = [
    "DIRECTIONS",
    "STAGES",
    "Direction",
    "Frame",
    "Laid",
    "PlacedDomino",
    "Placement",
    "Pyramid",
    "check_placement",
    "has_room",
    "lay",
    "legal_placements",
    "pyramid_defects",
]
