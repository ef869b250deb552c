"""Areas of a pyramid's top view and the gem icons they show (RULES.md 2.5, FT2, FT3).

The top view gives each quarter cell the colour of the highest block covering it and whether a gem icon
shows there. An area is a 4-connected set of quarter cells of one colour in the top view, so one area may
join blocks of several stages ("areas span stages"), and a hidden block neither counts nor connects.
An area's value is the number of icons visible in it.

An area is named by its *anchor*: its first quarter cell in reading order (top row first, then left to
right). Anchors are what activations and the page use to point at an area.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from operator import itemgetter

from engine.pyramido.dominoes import Colour
from engine.pyramido.geometry import Pyramid

Cell = tuple[int, int]
_READING_ORDER = itemgetter(1, 0)  # a cell's (y, x): top row first, then left to right


@dataclass(frozen=True)
class Area:
    """One area: its colour, the quarter cells it covers and its visible gem icon count."""

    colour: Colour
    cells: frozenset[Cell]
    icons: int

    @cached_property
    def anchor(self) -> Cell:
        y, x = min((c[1], c[0]) for c in self.cells)
        return (x, y)

    def __str__(self) -> str:
        ax, ay = self.anchor
        return f"{self.colour.value} area at {ax},{ay}: {len(self.cells)} quarter cells, {self.icons} icons"


def areas_of_view(view: Mapping[Cell, tuple[Colour, bool] | tuple[Colour, bool, int]]) -> tuple[Area, ...]:
    """The areas of a top view (quarter cell -> (colour, icon shows, ...)), ordered by anchor."""
    colour_of = {c: v[0] for c, v in view.items()}
    seen: set[Cell] = set()
    out: list[Area] = []
    for start in sorted(view, key=_READING_ORDER):
        if start in seen:
            continue
        colour = colour_of[start]
        stack = [start]
        seen.add(start)
        cells = []
        icons = 0
        while stack:
            cx, cy = c = stack.pop()
            cells.append(c)
            if view[c][1]:
                icons += 1
            for n in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
                if colour_of.get(n) is colour and n not in seen:
                    seen.add(n)
                    stack.append(n)
        area = Area(colour, frozenset(cells), icons)
        area.__dict__["anchor"] = start  # starts come in reading order, so the start is the anchor
        out.append(area)
    return tuple(out)


def areas(pyramid: Pyramid) -> tuple[Area, ...]:
    """Every area of the pyramid's top view with its colour, quarter cells and visible icon count."""
    cached: tuple[Area, ...] | None = pyramid.__dict__.get("areas")
    if cached is None:
        # Cached on the pyramid (which never changes) like its other derived data.
        cached = pyramid.__dict__["areas"] = areas_of_view(pyramid.top_view)
    return cached


def find_area(found: tuple[Area, ...], cell: Cell) -> Area | None:
    """The area covering quarter cell ``cell``."""
    for a in found:
        if cell in a.cells:
            return a
    return None


def render(pyramid: Pyramid) -> str:
    """The top view as text, one character per quarter cell: colour letter, upper case where an icon shows."""
    view = pyramid.top_view
    if not view:
        return "(empty)"
    xs = [c[0] for c in view]
    ys = [c[1] for c in view]
    rows = []
    for y in range(min(ys), max(ys) + 1):
        row = []
        for x in range(min(xs), max(xs) + 1):
            v = view.get((x, y))
            row.append("." if v is None else (v[0].letter.upper() if v[1] else v[0].letter))
        rows.append("".join(row))
    return "\n".join(rows)
