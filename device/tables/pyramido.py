"""Pyramido: Forgotten Treasures at the table: each player's domino pyramid and the exploration area.

The observation is :class:`PyramidView`: a pyramid's top view (quarter cell -> block colour and whether a
gem icon shows) after the domino in hand was laid (and before it, if seen; else the recorded one), with
the quarter cells the camera was not sure of and the players' corrections. :meth:`PyramidoTable.observe`
builds it from the readings of :mod:`vision.pyramido_read` (one :class:`~vision.pyramido_read.PyramidReading`
per pyramid zone); :func:`engine.pyramido.explain_placement` says which legal placement it was.

What the adapter adds to the engine's answer, because the camera needs it now (the engine's own changes are
listed in docs/pyramido-table.md): a reading not yet in the engine's coordinates is laid over the recorded
pyramid (:func:`vision.pyramido_read.align`), or, for a player's first domino, over each legal first
placement; unsure cells are asked about, never guessed; a stage-1 domino half a block off in both axes is
called half-aligned; and two placements that show the same top view are asked about instead of taking the
first. The camera reads the pyramids only; the exploration area is still entered on the page, so the game
stays ``live = "offline"`` until a whole recorded game replays to its true record from frames.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from device.errors import SessionError
from device.tables import Explained, TableAdapter, explained_by
from engine.errors import GameError
from engine.pyramido import Colour, Domino, Pyramid, explain_placement, legal_placements
from engine.pyramido.game import Place

Cell = tuple[int, int]
Seen = tuple[Colour, bool]
_LETTER = {c.letter: c for c in Colour}


@dataclass(frozen=True)
class SeenCell:
    """One quarter cell as read: what it shows (None: empty), whether the reader was sure, where it is in the
    frame (for pointing at it) and its confidence."""

    cell: Cell
    seen: Seen | None
    sure: bool = True
    centre: tuple[float, float] = (0.0, 0.0)
    confidence: float = 1.0


@dataclass(frozen=True)
class PyramidView:
    """One player's pyramid as seen after the turn (and before it, if seen; else the recorded one).

    ``after`` holds the occupied cells; ``cells`` every cell read (with ``unsure`` ones), ``aligned`` whether
    the cells are in the engine's quarter-cell coordinates of the recorded pyramid (False: the reader's own
    lattice, laid over the record by the adapter), ``corrections`` the players' (cell -> what it shows),
    ``confirmed`` when a player accepted the doubtful cells as read."""

    seat: int
    after: Mapping[Cell, Seen]
    before: Mapping[Cell, Seen] | None = None
    cells: tuple[SeenCell, ...] = ()
    aligned: bool = True
    corrections: tuple[tuple[Cell, Seen | None], ...] = ()
    confirmed: bool = False
    moved: bool = False
    problems: tuple[str, ...] = ()

    @property
    def unsure(self) -> tuple[Cell, ...]:
        fixed = {c for c, _ in self.corrections}
        return tuple(c.cell for c in self.cells if not c.sure and c.cell not in fixed)

    def shown(self) -> dict[Cell, Seen]:
        """The top view with the corrections applied."""
        view = dict(self.after)
        for cell, value in self.corrections:
            if value is None:
                view.pop(cell, None)
            else:
                view[cell] = value
        return view


@dataclass(frozen=True)
class PyramidsView:
    """Every pyramid read in one still frame (one view per seat read)."""

    views: tuple[PyramidView, ...]

    def of(self, seat: int) -> PyramidView | None:
        return next((v for v in self.views if v.seat == seat), None)


def view_of_reading(reading: Any, moved: bool = False) -> PyramidView:
    """A :class:`~vision.pyramido_read.PyramidReading` as the adapter's observation."""
    cells = tuple(
        SeenCell(c.cell, (c.colour, c.icon) if c.colour is not None else None, c.sure, c.centre_px,
                 min(c.occupied_conf, c.colour_conf, c.icon_conf))
        for c in reading.cells
    )
    after = {c.cell: c.seen for c in cells if c.seen is not None}
    return PyramidView(reading.seat, after, None, cells, bool(reading.aligned), moved=moved,
                       problems=tuple(reading.problems))


def observed(pyramid: Pyramid) -> dict[Cell, Seen]:
    """What the camera should see of ``pyramid`` (as :func:`engine.pyramido.observe.observed`): quarter cell ->
    (colour, icon shows), from the pyramid's own top view."""
    return {c: (v[0], v[1]) for c, v in pyramid.top_view.items()}


def parse_seen(value: Any) -> Seen | None:
    """What a player says a cell shows: ``-`` (empty), a colour letter (``r``), with ``*`` for a gem icon
    (``r*``), or a (Colour, bool) pair."""
    if value is None:
        return None
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], Colour):
        return (value[0], bool(value[1]))
    if isinstance(value, str):
        t = value.strip().lower()
        if t in ("-", "", "empty", "none"):
            return None
        if t[0] in _LETTER and t[1:] in ("", "*"):
            return (_LETTER[t[0]], t[1:] == "*")
    raise SessionError(f"cell value {value!r} is not '-' (empty), a colour letter (o, b, p, g, r) or a letter "
                       "with '*' for a gem icon (e.g. r*)")


def _cells_text(cells: Sequence[Cell], limit: int = 8) -> str:
    shown = " ".join(f"{x},{y}" for x, y in sorted(cells, key=lambda c: (c[1], c[0]))[:limit])
    return shown + (f" and {len(cells) - limit} more" if len(cells) > limit else "")


def _shift(view: Mapping[Cell, Seen], dx: int, dy: int) -> dict[Cell, Seen]:
    return {(c[0] + dx, c[1] + dy): v for c, v in view.items()}


def _first_domino(domino: Domino, seen: Mapping[Cell, Seen]) -> tuple[list[Place], tuple[int, int] | None]:
    """The first placements (block A on 0,0) whose top view is ``seen`` up to a translation, and that translation."""
    if not seen:
        return [], None
    sx, sy = min(c[0] for c in seen), min(c[1] for c in seen)
    found: list[Place] = []
    shift = None
    for p in legal_placements(Pyramid(1), domino):
        expected = observed(Pyramid(1).place(domino, p))
        ex, ey = min(c[0] for c in expected), min(c[1] for c in expected)
        if _shift(seen, ex - sx, ey - sy) == expected:
            found.append(Place(p))
            shift = shift or (ex - sx, ey - sy)
    return found, shift


class PyramidoTable(TableAdapter):
    name = "pyramido"

    # --- what the camera saw -------------------------------------------------------------------
    def observe(self, readings: Sequence[Any], *, moved: bool) -> PyramidView | PyramidsView:
        """The pyramids read in a still frame (one PyramidReading per zone read)."""
        views = tuple(view_of_reading(r, moved) for r in readings)
        if not views:
            raise SessionError(f"{self.game.title} cannot be read from the camera yet as a whole (it plays offline): "
                               "no pyramid was read in this frame; is a player's mat in view?")
        return views[0] if len(views) == 1 else PyramidsView(views)

    def correct(self, seen: Any, index: int, value: Any) -> Any:
        """Cell ``index`` (in the order of ``seen_json``'s cells, every pyramid's in turn) set by a player to
        ``value`` ('-', a colour letter, a letter with '*' for an icon)."""
        if isinstance(seen, PyramidsView):
            base = 0
            out = []
            done = False
            for v in seen.views:
                if not done and index < base + len(v.cells):
                    out.append(self.correct(v, index - base, value))
                    done = True
                else:
                    out.append(v)
                base += len(v.cells)
            if not done:
                raise SessionError(f"there is no cell {index + 1} read ({base} read)")
            return PyramidsView(tuple(out))
        view = _view(seen)
        if not 0 <= index < len(view.cells):
            raise SessionError(f"there is no cell {index + 1} read ({len(view.cells)} read)")
        cell = view.cells[index].cell
        fixed = dict(view.corrections)
        fixed[cell] = parse_seen(value)
        return replace(view, corrections=tuple(sorted(fixed.items())))

    def confirm(self, seen: Any) -> Any:
        if isinstance(seen, PyramidsView):
            return PyramidsView(tuple(replace(v, confirmed=True) for v in seen.views))
        return replace(_view(seen), confirmed=True)

    def explain(self, state: Any, seen: Any) -> Explained:
        if isinstance(seen, PyramidsView):
            if state.holding is None:
                return Explained(problems=("no domino is in hand: take one from the exploration area first",))
            mine = seen.of(state.order[state.turn])
            if mine is None:
                return Explained(problems=(f"player {state.order[state.turn] + 1}'s pyramid is not in view",))
            seen = mine
        if not isinstance(seen, PyramidView):
            return Explained(problems=("nothing read of the pyramids",))
        if state.holding is None:
            return Explained(problems=("no domino is in hand: take one from the exploration area first",))
        if not 0 <= seen.seat < len(state.explorers):
            return Explained(problems=(f"there is no player {seen.seat + 1} at this table",))
        if seen.seat != state.order[state.turn]:
            return Explained(problems=(f"it is player {state.order[state.turn] + 1}'s turn, not player "
                                       f"{seen.seat + 1}'s",))
        if seen.problems and not seen.confirmed:
            return Explained(problems=seen.problems)
        explained = self._explain_view(state, seen)
        unsure = seen.unsure if not seen.confirmed else ()
        if unsure and not explained.actions:
            # Cells read unsure are taken as read only when the whole view is then exactly one legal placement of
            # the domino in hand (a misread cell would not make one); otherwise the players are asked about them.
            return Explained(problems=(f"quarter cells {_cells_text(unsure)} of player {seen.seat + 1}'s pyramid "
                                       "are hard to read (a hand, glare, a colour not taught?): correct them or "
                                       "press CONFIRM", *explained.problems))
        return explained

    def _explain_view(self, state: Any, seen: PyramidView) -> Explained:
        pyramid = state.explorers[seen.seat].pyramid
        domino = state.holding
        after = seen.shown()
        if not seen.aligned:
            if not pyramid.placed:
                found, _ = _first_domino(domino, after)
                if found:
                    return explained_by(self.game, state, [found[0]])
                return Explained(problems=(f"the first domino seen does not show {domino} (colours or gem "
                                           "icons differ): correct the cells or lay it again",))
            a = _align(seen, pyramid.top_view)
            if a is None:
                return Explained(problems=(f"player {seen.seat + 1}'s pyramid seen does not lie over the recorded "
                                           "one: has it been moved? (or correct the cells read)",))
            after = _shift(after, *a)
            before_seen = _shift(seen.before, *a) if seen.before is not None else None
        else:
            before_seen = dict(seen.before) if seen.before is not None else None
        before = before_seen if before_seen is not None else observed(pyramid)
        problem = _half_aligned(pyramid, before, after)
        if problem:
            return Explained(problems=(problem,))
        try:
            placement = explain_placement(pyramid, domino, before, after)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        same = [p for p in legal_placements(pyramid, domino) if p != placement
                and observed(pyramid.place(domino, p)) == observed(pyramid.place(domino, placement))]
        if same:
            options = " or ".join(str(p) for p in (placement, *same))
            return Explained(problems=(f"the domino {domino} seen could lie as {options} (the same from above): "
                                       "choose the placement on the page",))
        return explained_by(self.game, state, [Place(placement)])

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, Place)

    def seen_json(self, seen: Any) -> dict[str, Any]:
        views = seen.views if isinstance(seen, PyramidsView) else (_view(seen),)
        out = []
        for v in views:
            fixed = dict(v.corrections)
            cells = []
            for c in v.cells:
                shown = fixed.get(c.cell, c.seen)
                cells.append({
                    "cell": list(c.cell),
                    "colour": shown[0].value if shown else None,
                    "icon": bool(shown and shown[1]),
                    "unsure": not c.sure and c.cell not in fixed and not v.confirmed,
                    "corrected": c.cell in fixed,
                    "confidence": round(c.confidence, 3),
                    "centre": [round(x, 1) for x in c.centre],
                })
            out.append({"seat": v.seat, "aligned": v.aligned, "cells": cells, "problems": list(v.problems)})
        return {"pyramids": out}

    def reading_at(self, seen: Any, x: float, y: float) -> int:
        views = seen.views if isinstance(seen, PyramidsView) else (_view(seen),)
        cells = [c for v in views for c in v.cells]
        if not cells:
            raise SessionError("no cells were read")
        return min(range(len(cells)), key=lambda i: (cells[i].centre[0] - x) ** 2 + (cells[i].centre[1] - y) ** 2)


def _view(seen: Any) -> PyramidView:
    if not isinstance(seen, PyramidView):
        raise SessionError("nothing read of the pyramids")
    return seen


def _align(seen: PyramidView, known: Mapping[Cell, tuple[Colour, bool, int]]) -> tuple[int, int] | None:
    """The translation of the reader's cells onto the record, when one fits clearly better than every other."""
    from vision.pyramido_read import align_view

    a = align_view(seen.shown(), known)
    if a is None or a.runner_up >= a.agree - a.disagree or a.disagree > 8:
        return None
    return (a.dx, a.dy)


def _half_aligned(pyramid: Pyramid, before: Mapping[Cell, Seen], after: Mapping[Cell, Seen]) -> str | None:
    """A stage-1 domino laid half a block off in both axes shows a stage-2 position: say it is half-aligned."""
    if pyramid.stage != 1:
        return None
    changed = [c for c in set(before) | set(after) if before.get(c) != after.get(c)]
    if not changed:
        return None
    xs, ys = [c[0] for c in changed], [c[1] for c in changed]
    w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    if (w, h) in ((4, 2), (2, 4)) and min(xs) % 2 == 1 and min(ys) % 2 == 1:
        return (f"the domino seen at quarter cells {_cells_text(changed)} is half-aligned: it lies half a block off "
                "in both directions (block sides must line up fully with the blocks beside it)")
    return None


ADAPTER = PyramidoTable
