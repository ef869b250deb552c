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
first (the engine now raises the ambiguity itself: :func:`engine.pyramido.explain_placement`).

The whole table (:class:`TableView`: the mover's pyramid and the exploration area, as
:meth:`PyramidoTable.frame_reader` reads them from a frame) explains a whole turn at once, step by step with the
engine: which face-up domino and gem were taken (the space whose domino is gone, the gem its area lost), the
gems drawn into an emptied area (coloured and mythical ones counted; taken only from a table whose other spaces
look as the record says, so that a later turn's refill does not pass for this one's), which pile was flipped (its
top's colours read lighter than the back it showed: a back is printed darker), the domino revealed (the known
deck's top) and where the domino went; readings are compared with how the same space looked before, so that a
misread the reader makes in every frame does not pass for a change. What the camera cannot tell (a pile refilled
from which pile, the Legend's random gem) is asked. At a stage end a long CONFIRM takes the next step of the
optimiser's activation (:func:`scoring_step`); the discards down to five are read from the player's inventory
spot (:meth:`PyramidoTable._discard`: what the record holds less what the spot shows once it shows five). A zone
that looks as it did when it was last read against the same record keeps that reading (:class:`_Steady`, with
:class:`vision.change.ChangeGate`): the settled table is seen many times.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from device.errors import SessionError
from device.tables import ButtonChoice, Explained, TableAdapter, explained_by, mark_reading
from engine.errors import AmbiguousActionError, GameError
from engine.pyramido import (
    COLOURS,
    GEMS,
    Colour,
    Domino,
    Gem,
    Pyramid,
    areas,
    best_activation,
    explain_placement,
    legal_placements,
    parse_domino,
)
from engine.pyramido.exploration import refill_sources
from engine.pyramido.game import (
    INVENTORY_LIMIT,
    Activate,
    Discard,
    Draw,
    EndScoring,
    Flip,
    PendingKind,
    Phase,
    Place,
    Reveal,
    Take,
    known_top,
)
from engine.pyramido.geometry import lay

Cell = tuple[int, int]
Seen = tuple[Colour, bool]
_LETTER = {c.letter: c for c in Colour}
#: The block colours as the page's camera view draws them (BGR).
_BGR = {Colour.ORANGE: (44, 137, 232), Colour.BLUE: (184, 99, 47), Colour.PURPLE: (140, 58, 125),
        Colour.GREEN: (69, 154, 63), Colour.RED: (45, 50, 200)}


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


#: A pile's top reading darker than this against the taught colours (CIELAB L) is a back (assumed by the
#: renderer: backs printed at 70 % of the face's colour; to be measured on the box).
BACK_DARKER = -9.5
#: How much lighter (CIELAB L) a pile's top must read than the back it showed to count as turned up.
FLIP_LIGHTER = 5.0


@dataclass(frozen=True)
class SpaceSeen:
    """One space of the exploration area as seen: what its top may be (``tops``: the domino read, either way up;
    empty for a back or an empty pile), whether it looks face up and the reader was sure, and the gems counted in
    its gem area (coloured, in COLOURS order; ``mythical`` None when mythical gems are not read)."""

    pile: int
    tops: tuple[Domino, ...]
    face_up: bool
    sure: bool
    gems: tuple[int, ...]
    gems_sure: bool = True
    mythical: int | None = None
    #: The colours of the top's two blocks as read (sorted letters; empty: nothing read), a face or a back.
    colours: tuple[str, ...] = ()
    #: How much lighter than the taught colours the top reads (CIELAB L; a back is printed darker).
    lightness: float = 0.0
    #: The gems were said by a player on the page (:meth:`PyramidoTable.correct`), not counted by the camera.
    corrected: bool = False
    #: Counted clearly, but part of the area is hidden behind its pile: at least these gems (``gems_sure`` False);
    #: taken only when they are the most the area can hold (then none can hide).
    gems_at_least: bool = False

    def shows(self, domino: Domino) -> bool:
        return domino in self.tops

    def coloured_as(self, domino: Domino) -> bool:
        """The top read has ``domino``'s two colours (its face or its back: a back shows them too)."""
        seen = self.colours or (tuple(sorted((self.tops[0].a.colour.letter, self.tops[0].b.colour.letter)))
                                if self.tops else ())
        return seen == tuple(sorted((domino.a.colour.letter, domino.b.colour.letter)))

    @property
    def looks_face_up(self) -> bool:
        """A face, not a back: a back is printed darker than the taught colours (measured on renders: faces read
        -9 to -1 L from the palette, backs -19 to -10)."""
        return bool(self.colours or self.tops) and self.lightness > BACK_DARKER

    def look(self) -> tuple[Any, ...]:
        """What the top looks like, for telling whether it changed between two frames."""
        return (self.tops, self.colours)


@dataclass(frozen=True)
class ExplorationSeen:
    """The exploration area's five spaces as seen in one frame."""

    spaces: tuple[SpaceSeen, ...]
    problems: tuple[str, ...] = ()
    #: Read from a recording's truth (every top exactly), not by the camera.
    exact: bool = False


@dataclass(frozen=True)
class InventorySeen:
    """The gems in a player's inventory spot as seen (the engine's order: five colours, then mythical)."""

    seat: int
    gems: tuple[int, ...]
    sure: bool = True
    corrected: bool = False


@dataclass(frozen=True)
class TableView:
    """The table in one still frame: the pyramids read (the mover's, at least), the exploration area and the
    inventories read (the player discarding, at a stage end)."""

    pyramids: tuple[PyramidView, ...]
    exploration: ExplorationSeen | None
    moved: bool = False
    confirmed: bool = False
    inventories: tuple[InventorySeen, ...] = ()

    def inventory(self, seat: int) -> InventorySeen | None:
        return next((v for v in self.inventories if v.seat == seat), None)

    def of(self, seat: int) -> PyramidView | None:
        return next((v for v in self.pyramids if v.seat == seat), None)


def space_of_reading(r: Any) -> SpaceSeen:
    """A :class:`vision.pyramido_read.SpaceReading` as the adapter's :class:`SpaceSeen`."""
    tops: tuple[Domino, ...] = ()
    colours: tuple[str, ...] = ()
    if r.blocks:
        colours = tuple(sorted(c.letter for c, _icons in r.blocks))
        try:
            tops = tuple(dict.fromkeys(d for d in (r.domino(), _other_way(r)) if d is not None))
        except GameError:  # more icons than a block has: not a domino as read
            tops = ()
    mythical = getattr(r, "mythical", None)
    return SpaceSeen(r.pile, tops, bool(r.face_up), bool(r.sure), tuple(r.gems), bool(r.gems_sure),
                     None if mythical is None else int(mythical), colours=colours,
                     lightness=float(getattr(r, "lightness", 0.0)),
                     gems_at_least=bool(getattr(r, "gems_at_least", False)))


def _other_way(r: Any) -> Domino | None:
    from vision.pyramido_read import _domino_of

    return _domino_of(r.blocks, flip=True) if r.blocks else None


def scoring_step(game: Any, state: Any) -> Any:
    """The next step of the optimiser's best activation for the player scoring now: activate the next area
    (best over the areas not yet activated, with the gems left), or end the scoring when none is worth it.
    A long CONFIRM takes it; the recorder's players keep to it."""
    seat = game.to_move(state)
    if state.phase is not Phase.SCORE or seat is None:
        raise SessionError("no player is scoring now")
    e = state.explorers[seat]
    if len(e.stage_scores) >= state.stage:
        raise SessionError(f"{e.name} discards down to five gems: choose which on the page")
    done = {a.anchor for a in e.activated}
    left = [a for a in areas(e.pyramid) if a.anchor not in done]
    result = best_activation(left, e.inventory)
    return Activate(result.activations[0]) if result.activations else EndScoring()


def _digest(image: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(image).data, digest_size=16).digest()


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


def parse_gems(value: Any) -> tuple[int, ...]:
    """The gems a player says lie in a gem area or an inventory spot: one letter per gem (o b p g r, m for
    mythical; spaces and commas ignored), '-' for none -> counts in the engine's order (five colours, mythical)."""
    text = str(value).strip().lower()
    counts = [0] * len(Gem)
    if text in ("-", "none"):
        return tuple(counts)
    letters = {g.letter: g for g in Gem}
    for ch in text:
        if ch in " ,":
            continue
        if ch not in letters:
            raise SessionError(f"{value!r} is not a list of gems: one letter per gem, o b p g r (coloured) or m "
                               "(mythical), or - for none")
        counts[letters[ch].index] += 1
    if not any(counts):
        raise SessionError("say the gems, one letter per gem (o b p g r m), or - for none")
    return tuple(counts)


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
    #: Recorded games (renders only) replay from their frames to their true record (docs/pyramido-table.md).
    live = "camera"

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        #: The latest state the session showed this adapter: the record the frame reader reads against
        #: (heights from the recorded stages, pile heights, the pyramid to align to).
        self.record: Any = None
        #: How each pile's top looked the last time the table was explained, by what the record says lies
        #: there: a change of look tells a taken or flipped domino even when the reader misreads a tall pile.
        self.looks: dict[tuple[Any, ...], tuple[Any, ...]] = {}

    # --- reading frames ------------------------------------------------------------------------
    def at_table(self, players: Sequence[str], options: Mapping[str, str],
                 seed: int | None) -> tuple[dict[str, str], tuple[str, ...]]:
        """At a real table the deck is not known: the set-up's chance (the piles turned up, the gems drawn) is read
        from the table, and a seeded recording's true record begins with the steps its seed drew."""
        if seed is None:
            return dict(options), ()
        game: Any = self.game
        steps = list(game.seeded_setup_steps(players, options, seed))
        # The camera names the gems drawn into one area in colour order (mythical last), the seed drew them in any:
        # the steps as the players would answer them, each area's draws in the camera's order (the same state).
        state = game.setup(players, options)
        out: list[Any] = []
        group: list[Any] = []
        for step in [*steps, None]:
            head = state.pending[0] if step is not None and state.pending else None
            if group and (step is None or not isinstance(step, Draw) or head != group[0][0]):
                out.extend(d for _, d in sorted(group, key=lambda hd: GEMS.index(hd[1].gem)))
                group = []
            if step is None:
                break
            if isinstance(step, Draw) and head is not None and head.kind is PendingKind.GEM_TO_SPACE:
                group.append((head, step))
            else:
                out.append(step)
            state = game.apply(state, step)
        return dict(options), tuple(game.action_text(a) for a in out)

    def frame_reader(self, table: Mapping[str, Any]) -> Callable[[np.ndarray], Sequence[Any]]:
        """The reader of whole frames for a table laid out as ``table`` says (a recording's ``table``, or the
        device's saved set-up: ``players``, ``lessons`` (taught colours by name, CIELAB), ``domino_mm``): it
        locates the mats, reads the mover's pyramid against the record and the exploration area, and returns
        the readings :meth:`observe` takes (one PyramidReading, one ExplorationSeen)."""
        from vision.pyramido_read import THICKNESS_MM, ExplorationReader, Palette, PyramidReader, read_inventory
        from vision.registration import MarkerFinder, locate

        players = int(table.get("players") or len(getattr(self.record, "explorers", ())) or 2)
        lessons = table.get("lessons") or {}
        # A recording names the block colours; the device's table (``device.tables.live_table``) gives its lessons
        # by piece, as the dice games take them.
        palette = Palette.from_lessons(lessons.get("block", {}) if "block" in lessons else lessons)
        thickness = float(table.get("domino_mm") or THICKNESS_MM)
        reader = PyramidReader(palette)
        # The exploration area place by place: a turn changes one or two of its piles and gem areas.
        explorer = ExplorationReader(palette, thickness_mm=thickness)
        finder = MarkerFinder()
        cache: dict[bytes, tuple[Any, tuple[Any, ...]]] = {}
        steady = _Steady()

        def read(image: np.ndarray) -> Sequence[Any]:
            state = self.record
            key = _digest(image)
            hit = cache.get(key)
            if hit is not None and hit[0] is state:
                return hit[1]
            reg = locate(image, "pyramido", players, finder)
            out: list[Any] = []
            seat = _mover(state)
            if seat is not None:
                zv = reg.zone(f"pyramid-{seat + 1}")
                if zv is not None:
                    known = state.explorers[seat].pyramid.top_view

                    def pyramid(zv: Any = zv, known: Any = known, seat: int = seat) -> Any:
                        return reader.read(image, zv, known or None, seat=seat)

                    out.append(steady.read(image, zv, ("pyramid", seat, tuple(sorted(known.items()))), pyramid))
            zv = reg.zone("exploration")
            if zv is not None:
                sizes = [s.size for s in state.spaces] if state is not None else None

                def explore(zv: Any = zv, sizes: Any = sizes) -> Any:
                    spaces = explorer.read(image, zv, pile_sizes=sizes)
                    return ExplorationSeen(tuple(space_of_reading(r) for r in spaces))

                out.append(steady.read(image, zv, ("exploration", tuple(sizes or ())), explore))
            # The inventory of the player discarding at a stage end, or of the mover while a take is awaited (the
            # gem taken shows there too, when its gem area is hard to count).
            seat = _discarding(state)
            if seat is None and state is not None and state.phase is Phase.TAKE and not state.pending:
                seat = _mover(state)
            if seat is not None:
                zv = reg.zone(f"gems-{seat + 1}")
                if zv is not None:

                    def inventory(zv: Any = zv, seat: int = seat) -> Any:
                        r = read_inventory(image, zv, palette, thickness)
                        return InventorySeen(seat, tuple(r.gems), bool(r.sure))

                    out.append(steady.read(image, zv, ("gems", seat, state.explorers[seat].inventory), inventory))
            result = tuple(out)
            if len(cache) > 16:
                cache.clear()
            cache[key] = (state, result)
            return result

        return read

    def truth_readings(self, truth: Mapping[str, Any]) -> Sequence[Any]:
        """A frame's truth (:func:`device.record_pyramido.truth_of`) as readings: every pyramid, sure, in the
        engine's coordinates, and the exploration area as it lies (mythical gems counted too)."""
        out: list[Any] = []
        for seat, cells in sorted((truth.get("pyramids") or {}).items(), key=lambda kv: int(kv[0])):
            after = {(int(x), int(y)): (_LETTER[str(c)], bool(i)) for x, y, c, i in cells}
            out.append(PyramidView(int(seat), after, None,
                                   tuple(SeenCell(cell, v) for cell, v in sorted(after.items())), True))
        spaces = []
        for i, sp in enumerate(truth.get("spaces") or ()):
            top = sp.get("face_up")
            gems = [int(v) for v in sp.get("gems", [0] * 6)]
            d = parse_domino(top) if top else None
            spaces.append(SpaceSeen(i + 1, (d,) if d else (), bool(top), True, tuple(gems[:5]), True,
                                    gems[5] if len(gems) > 5 else None,
                                    tuple(sorted((d.a.colour.letter, d.b.colour.letter))) if d else ()))
        if spaces:
            out.append(ExplorationSeen(tuple(spaces), exact=True))
        for seat, gems in enumerate(truth.get("inventories") or ()):
            out.append(InventorySeen(seat, tuple(int(v) for v in gems)))
        return tuple(out)

    def readings_agree(self, a: Sequence[Any], b: Sequence[Any]) -> bool:
        """Two still frames read the same: the same cells (colour, icon) and the same spaces (tops, gems)."""
        return _agree_key(a) == _agree_key(b)

    def annotate(self, image: Any, readings: Sequence[Any]) -> Any:
        """The frame with every quarter cell read drawn at its place: a dot in the colour read (hollow: empty),
        white where a gem icon was read, ringed in red where the reader was unsure (what a player may tap)."""
        out = np.array(image, copy=True)
        radius = max(3, round(min(out.shape[:2]) / 160))
        for r in readings:
            if isinstance(r, (ExplorationSeen, InventorySeen)):
                continue
            view = r if isinstance(r, PyramidView) else view_of_reading(r)
            for c in view.cells:
                body = None if c.seen is None else _BGR[c.seen[0]]
                mark_reading(out, c.centre, body, unsure=not c.sure, radius=radius)
                if c.seen is not None and c.seen[1]:  # the gem icon: a white dot on the block
                    mark_reading(out, c.centre, (255, 255, 255), unsure=False, radius=max(1, radius // 2))
        return out

    # --- what the camera saw -------------------------------------------------------------------
    def observe(self, readings: Sequence[Any], *, moved: bool) -> PyramidView | PyramidsView | TableView:
        """The table read in a still frame: PyramidReadings (or views) per pyramid zone read, and the
        exploration area when it was read (then a :class:`TableView`)."""
        views: list[PyramidView] = []
        exploration = None
        inventories: list[InventorySeen] = []
        for r in readings:
            if isinstance(r, ExplorationSeen):
                exploration = r
            elif isinstance(r, InventorySeen):
                inventories.append(r)
            elif isinstance(r, PyramidView):
                views.append(replace(r, moved=moved))
            else:
                views.append(view_of_reading(r, moved))
        if exploration is not None:
            return TableView(tuple(views), exploration, moved, inventories=tuple(inventories))
        if not views:
            # Said, not raised: the device goes on watching (a hand over the mats, a mat not found in one picture).
            return PyramidView(-1, {}, problems=("nothing of the table was read in this picture: are the players' "
                                                 "mats and the exploration mat in view?",))
        return views[0] if len(views) == 1 else PyramidsView(tuple(views))

    def correct(self, seen: Any, index: int, value: Any) -> Any:
        """Cell ``index`` (in the order of ``seen_json``'s cells, every pyramid's in turn) set by a player to
        ``value`` ('-', a colour letter, a letter with '*' for an icon); after the cells, the gem areas (one to
        five) and then the inventories read, each set to the gems a player says lie there (``value``: one letter
        per gem, o b p g r or m for mythical, e.g. ``"rm"``; '-' for none: ``seen_json`` gives each its index)."""
        if isinstance(seen, TableView):
            cells = sum(len(v.cells) for v in seen.pyramids)
            if index >= cells and (seen.exploration is not None or seen.inventories):
                return self._correct_gems(seen, index - cells, value)
            fixed = self.correct(PyramidsView(seen.pyramids), index, value)
            return replace(seen, pyramids=fixed.views)
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

    def _correct_gems(self, seen: TableView, k: int, value: Any) -> TableView:
        spaces = seen.exploration.spaces if seen.exploration is not None else ()
        if not 0 <= k < len(spaces) + len(seen.inventories):
            raise SessionError(f"there is no gem area or inventory {k + 1} read ({len(spaces)} gem areas, "
                               f"{len(seen.inventories)} inventories)")
        gems = parse_gems(value)
        if k < len(spaces):
            if sum(gems) > 3:
                raise SessionError(f"a gem area holds at most 3 gems, not {sum(gems)}")
            assert seen.exploration is not None
            fixed = tuple(replace(sp, gems=gems[:5], mythical=gems[5], gems_sure=True, corrected=True)
                          if i == k else sp for i, sp in enumerate(spaces))
            return replace(seen, exploration=replace(seen.exploration, spaces=fixed))
        j = k - len(spaces)
        return replace(seen, inventories=tuple(replace(v, gems=gems, sure=True, corrected=True) if n == j else v
                                               for n, v in enumerate(seen.inventories)))

    def confirm(self, seen: Any) -> Any:
        if isinstance(seen, TableView):
            return replace(seen, confirmed=True, pyramids=tuple(replace(v, confirmed=True) for v in seen.pyramids))
        if isinstance(seen, PyramidsView):
            return PyramidsView(tuple(replace(v, confirmed=True) for v in seen.views))
        return replace(_view(seen), confirmed=True)

    def explain(self, state: Any, seen: Any) -> Explained:
        self.record = state
        if isinstance(seen, PyramidView) and seen.seat < 0:
            return Explained(problems=seen.problems)  # nothing was read (:meth:`observe`)
        if isinstance(seen, TableView):
            return self._explain_table(state, seen)
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
                                       "are hard to read (a hand, glare, a domino lying crooked, a colour not "
                                       "taught?): correct them or press CONFIRM", *explained.problems))
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
        try:
            placement = explain_placement(pyramid, domino, before, after)
        except AmbiguousActionError as exc:
            return Explained(problems=(f"{exc} on the page",))
        except GameError as exc:
            unsure = frozenset(seen.unsure) if not seen.confirmed else frozenset()
            if not unsure:
                return Explained(problems=(str(exc),))
            # The cells read unsure left out: the one legal placement that every sure cell agrees with is taken
            # (a misread unsure cell then does no harm); two such placements are asked about.
            try:
                placement = explain_placement(pyramid, domino, before, after, unknown=unsure)
            except GameError as again:
                return Explained(problems=(str(again) if isinstance(again, AmbiguousActionError) else str(exc),))
        return explained_by(self.game, state, [Place(placement)])

    # --- a whole turn from the whole table -----------------------------------------------------
    def _explain_table(self, state: Any, seen: TableView) -> Explained:
        """The actions, in turn, that bring the record to what the table shows (see the module's doc); a
        draw seen as nothing (a mythical gem, which the reader does not see) counts only if a later step is
        seen. Nothing changed: no action and no problem."""
        game = self.game
        actions: list[Any] = []
        firm = 0
        problems: tuple[str, ...] = ()
        s = state
        for _ in range(64):
            if game.status(s).finished:
                break
            guess = False
            if s.pending:
                action, problems, guess = self._chance(s, seen)
            elif s.phase is Phase.TAKE:
                action, problems = self._take(s, seen)
            elif s.phase is Phase.FLIP:
                action, problems = self._flip(s, seen)
            elif s.phase is Phase.PLACE:
                action, problems = self._place(s, seen)
            else:  # the stage-end scoring: the players' long CONFIRM (the areas), then the discards seen
                action, problems = self._discard(s, seen)
            if action is None:
                break
            try:
                s = game.apply(s, action)
            except GameError as exc:
                problems = (str(exc),)
                break
            actions.append(action)
            if not guess:
                firm = len(actions)
        at = state
        for a in actions[:firm]:
            at = game.apply(at, a)
        # How the spaces look is remembered only at rest, a turn begun and nothing taken yet: while a turn is under
        # way the table may already show a step not explained yet (a flip), which must not pass for the old look.
        if seen.exploration is not None and not problems and at.phase is Phase.TAKE and not at.pending:
            for i, sp in enumerate(seen.exploration.spaces):
                self.looks[_space_key(at, i)] = sp.look()
                if not sp.corrected:  # how the camera reads the area, not what a player said
                    self.looks[(i, "gems", tuple(at.spaces[i].gems))] = (sp.gems, sp.gems_sure, sp.mythical)
                if sp.colours:  # a top was read (the truth shows no back)
                    self.looks[("light", *_space_key(at, i))] = (sp.lightness,)
        if firm:
            # What the table shows so far is taken; what it does not yet explain is asked at the next look.
            return Explained(actions=tuple(actions[:firm]))
        return Explained(problems=problems)

    def _discard(self, s: Any, seen: TableView) -> tuple[Any, tuple[str, ...]]:
        """At a stage end, a gem the player discarding put back (down to five): what the record says the player
        holds less what the inventory spot shows, once it shows five (fewer, or a gem not held: asked; more: not
        done yet). The areas' scoring is the players' long CONFIRM, never taken from the table."""
        seat = _discarding(s)
        if seat is None:
            return None, ()
        inv = seen.inventory(seat)
        if inv is None:
            return None, ()
        name = s.explorers[seat].name
        held = s.explorers[seat].inventory
        if not inv.sure:
            return None, (f"{name}'s gems are hard to count: enter the gems discarded on the page",)
        gone = [held[g.index] - inv.gems[g.index] for g in Gem]
        if sum(inv.gems) > INVENTORY_LIMIT:
            if any(n < 0 for n in gone):
                return None, (f"{name}'s inventory shows {_gems_words(inv.gems)}, not the {_gems_words(held)} "
                              "the record holds: correct it on the page",)
            return None, ()  # not discarded yet
        if any(n < 0 for n in gone) or sum(inv.gems) < INVENTORY_LIMIT:
            return None, (f"{name} keeps {_gems_words(inv.gems)}, but held {_gems_words(held)} and keeps "
                          f"{INVENTORY_LIMIT}: enter the gems discarded on the page",)
        return Discard(next(g for g in Gem if gone[g.index] > 0)), ()

    def _changed(self, s: Any, i: int, sp: SpaceSeen) -> bool | None:
        """Whether space ``i``'s top looks other than when the record last said the same lies there (None:
        not seen so before)."""
        before = self.looks.get(_space_key(s, i))
        return None if before is None else before != sp.look()

    def _chance(self, s: Any, seen: TableView) -> tuple[Any, tuple[str, ...], bool]:
        head = s.pending[0]
        ex = seen.exploration
        if head.kind in (PendingKind.DOMINO_TO_PILE, PendingKind.DOMINO_TO_LEGEND):
            outcomes = self.game.chance_outcomes(s)
            if outcomes and len(outcomes) == 1:
                return outcomes[0], (), False  # the deck is known: the top is what turns up
            if head.kind is PendingKind.DOMINO_TO_PILE and ex is not None:
                sp = ex.spaces[head.target - 1]
                if sp.face_up and sp.sure and sp.tops:
                    if self._ahead(s, ex):
                        # A deck the device does not know: the top read is taken only from a table that shows nothing
                        # else than the record (a later turn may have taken it and turned up the next: tuning replay
                        # 6302 at the table revealed a later domino so).
                        return None, (f"pile {head.target}'s domino turned up is read on a table that has moved on: "
                                      "enter it on the page",), False
                    return Reveal(sp.tops[0]), (), False
            return None, (f"{head}: the domino turned up is not read surely; enter it on the page",), False
        if head.kind is PendingKind.GEM_TO_LEGEND:
            return None, ("the Legend draws a random gem from the bag (the camera cannot see his gems): choose the gem "
                          "drawn on the page",), False
        if ex is None:
            return None, (), False
        sp = ex.spaces[head.target - 1]
        have = s.spaces[head.target - 1].gems
        left = sum(1 for p in s.pending if p == head)
        full = sp.gems_at_least and sp.mythical is not None and sum(sp.gems) + sp.mythical == sum(have) + left
        if not sp.gems_sure and not full:  # at least the gems it holds once refilled: none can hide behind its pile
            return None, (f"the {left} gem{'s' if left > 1 else ''} still to draw into gem area {head.target} "
                          "are hard to count: enter them on the page",), False
        mythical = Gem.MYTHICAL.index
        seen_total = sum(sp.gems) + (sp.mythical or 0)
        if seen_total > sum(have) + left or (sp.mythical is not None and seen_total < sum(have) + left):
            # The area will hold what it holds and the gems still to draw, no more: another count is a misreading
            # (or the table is not at rest), never a draw.
            return None, (f"gem area {head.target} shows {seen_total} gems where it should hold {sum(have) + left} "
                          "once refilled: enter the gems drawn on the page",), False
        draw: Any = None
        for c in COLOURS:
            if sp.gems[c.index] > have[c.index] and s.bag[c.index]:
                draw = Draw(Gem.of(c))
                break
        if draw is None:
            if any(sp.gems[c.index] < have[c.index] for c in COLOURS):
                return None, (f"gem area {head.target} shows fewer gems than it holds: a gem taken or knocked off?",), \
                    False
            if s.bag[mythical] and (sp.mythical is None or sp.mythical > have[mythical]):
                draw = Draw(Gem.MYTHICAL)
        if draw is None:
            return None, (), False
        ahead = self._ahead(s, ex)
        if ahead:
            # Gems seen in the area are drawn only from a table that shows nothing else than the record: a later
            # turn's gems (the Legend's refill, another take) must not pass for this draw.
            return None, (f"space {' and '.join(str(i + 1) for i in ahead)} of the exploration area does not look as "
                          f"the record says while gems are drawn into gem area {head.target}: the table has moved "
                          "on; enter the gems drawn on the page",), False
        return draw, (), draw.gem is Gem.MYTHICAL and sp.mythical is None

    def _ahead(self, s: Any, ex: ExplorationSeen) -> list[int]:
        """The spaces (0-based) that look other than the record says while gems are drawn: a face-up domino the
        record has that is not seen, or a gem area (not one being refilled) read surely with other gems than it
        showed at rest while it held what the record says it holds (or, not seen so, than the record)."""
        refilled = {p.target - 1 for p in s.pending if p.kind is PendingKind.GEM_TO_SPACE}
        out = []
        for i, space in enumerate(s.spaces):
            if i in refilled:
                continue
            sp = ex.spaces[i]
            domino_gone = space.face_up is not None and bool(sp.colours) and not sp.coloured_as(space.face_up)
            # A back the record knows (the seeded deck's top) read with other colours: that top was taken too.
            top = known_top(s, i + 1) if space.face_up is None and space.face_down else None
            back_gone = top is not None and bool(sp.colours) and not sp.coloured_as(top)
            if domino_gone or back_gone or (sp.gems_sure and not self._gems_as_before(s, i, sp)):
                out.append(i)
        return out

    def _gems_as_before(self, s: Any, i: int, sp: SpaceSeen) -> bool:
        """Gem area ``i`` reads as it did at rest with the gems the record gives it (else as the record)."""
        got = self.looks.get((i, "gems", tuple(s.spaces[i].gems))) if not sp.corrected else None
        if got is not None:
            return bool(tuple(got[0]) == sp.gems and (got[2] is None or sp.mythical is None or got[2] == sp.mythical))
        have = s.spaces[i].gems
        return sp.gems == tuple(have[:5]) and (sp.mythical is None or sp.mythical == have[Gem.MYTHICAL.index])

    def _take(self, s: Any, seen: TableView) -> tuple[Any, tuple[str, ...]]:
        ex = seen.exploration
        if ex is None:
            return None, ()
        # A taken domino: its space looks otherwise (other colours, or another look than before) and its gem
        # area lost a gem. Tall piles are read with icons missed, so an exact reading is not asked for.
        ups = [i for i, sp in enumerate(s.spaces) if sp.face_up is not None]
        looks = {i: ex.spaces[i] for i in ups}
        recolour = {i for i in ups if not looks[i].coloured_as(s.spaces[i].face_up)}
        changed = {i for i in ups if self._changed(s, i, looks[i])}
        exact = ex.exact  # a reader that sees everything (the truth)
        if exact:
            recolour = {i for i in ups if not looks[i].shows(s.spaces[i].face_up)}
        gemmed = {i for i in ups if not self._gems_as_before(s, i, looks[i])}
        recolour |= {i for i in ups if looks[i].colours and not looks[i].looks_face_up}  # a back shows now
        # A space that looks as it did when the record last said the same lies there was not touched, whatever
        # its colours read (a tall pile can be misread the same way in every frame).
        recolour -= {i for i in ups if self._changed(s, i, looks[i]) is False}
        seen_before = {i for i in ups if self._changed(s, i, looks[i]) is not None}
        # Colours are read well even on tall piles; a changed look (icons, a back) only counts with the gem area's
        # change beside it, and a gem area's count alone never does (a pale mythical gem is sometimes counted).
        gone = []
        for evidence in (recolour & gemmed, recolour & changed, recolour & seen_before, recolour if exact else set(),
                         changed & gemmed):
            if evidence:
                gone = sorted(evidence)
                break
        if not gone:
            gone = self._taken_by_placement(s, seen, ups)
        if not gone:
            if changed & gemmed or (gemmed and any(looks[i].gems_sure for i in gemmed)):
                # Something was moved in the exploration area that is not a take the camera can tell: ask now
                # rather than let a later turn be explained on top of it.
                where = " and ".join(str(i + 1) for i in sorted(changed | gemmed))
                if not changed and not recolour:
                    # Every top looks as it lay: only gems moved (one rolled off, or taken without its domino).
                    return None, (f"gem area {where} does not show the gems the record holds there "
                                  f"({'; '.join(_gems_words(s.spaces[i].gems) for i in sorted(gemmed))}) while every "
                                  "domino lies as before: has a gem rolled off? Put it back, or take the turn on the "
                                  "page",)
                return None, (f"space {where} of the exploration area changed, but which domino and gem were taken "
                              "is not clear: take them on the page",)
            seat = s.order[s.turn]
            view = seen.of(seat)
            if view is not None and not _unchanged(view, s.explorers[seat].pyramid):
                return None, (f"player {seat + 1}'s pyramid changed, but which face-up domino was taken is not seen: "
                              "take it on the page",)
            return None, ()
        if len(gone) > 1:
            return None, (f"the face-up dominoes of spaces {' and '.join(str(i + 1) for i in gone)} are not seen "
                          "where they lay: which one was taken? (or correct the reading)",)
        i = gone[0]
        seat = s.order[s.turn]
        view = seen.of(seat)
        if view is not None and not _unchanged(view, s.explorers[seat].pyramid) and i not in \
                self._taken_by_placement(s, seen, [i]):
            # The pyramid already shows a domino placed, and not this one: the table is ahead of the record (a turn
            # not followed), so nothing is taken from it until the players say what happened.
            return None, (f"player {seat + 1}'s pyramid does not show the domino of space {i + 1} placed: the table "
                          "has moved on; enter what was taken on the page",)
        space, sp = s.spaces[i], ex.spaces[i]
        have = space.gems
        gem: Gem | None
        if sum(have) == 0:
            gem = None
        elif sum(have) == 1:
            gem = next(g for g in Gem if have[g.index])
        else:
            # Against how the area looked while it held these gems (a pale gem counted as coloured is counted so
            # again), else against the record.
            base, base_sure, base_mythical = self._gems_seen_before(s, i) if not sp.corrected else \
                (tuple(have[:5]), True, int(have[Gem.MYTHICAL.index]))  # said by a player: against the record
            drops = [c for c in COLOURS if sp.gems[c.index] < base[c.index]]
            rises = [c for c in COLOURS if sp.gems[c.index] > base[c.index]]
            # Mythical gems as counted then and now (None: not read): one fewer when a mythical gem went, as many
            # when a coloured one did.
            lost = None if base_mythical is None or sp.mythical is None else base_mythical - sp.mythical
            # Both readings sure: a coloured gem missed in one of them would otherwise pass for a mythical
            # gem taken.
            sure = sp.gems_sure and base_sure
            if sure and not rises and len(drops) == 1 and base[drops[0].index] - sp.gems[drops[0].index] == 1 \
                    and have[drops[0].index] and lost in (None, 0):
                gem = Gem.of(drops[0])
            elif sure and not drops and not rises and have[Gem.MYTHICAL.index] and lost in (None, 1):
                gem = Gem.MYTHICAL
            elif (missing := _one_missing(sp, have)) is not None:
                # Part of the area hidden behind its pile, but it shows every gem it held but one: the most it can
                # hold after the take, so none hides there, and the one missing was taken.
                gem = missing
            else:
                # The area cannot tell: the mover's inventory may (the gem taken lies there now).
                gem = self._gem_in_inventory(s, seen, have)
                if gem is None:
                    return None, (f"which gem was taken from gem area {i + 1} is not clear (it held "
                                  f"{_gems_words(have)}): correct the reading or take it on the page",)
        refill = None
        if space.face_down == 0:
            after = tuple(replace(x, face_up=None) if k == i else x for k, x in enumerate(s.spaces))
            sources = refill_sources(after, i + 1, s.options["pile_refill"])
            if len(sources) > 1:
                return None, (f"pile {i + 1} is empty: which pile refilled it? (piles {', '.join(map(str, sources))};"
                              " choose on the page)",)
            refill = sources[0] if sources else None
        return Take(i + 1, gem, refill), ()

    def _gem_in_inventory(self, s: Any, seen: TableView, have: Sequence[int]) -> Gem | None:
        """The gem the mover took, as their inventory spot shows it: counted surely, exactly one gem more than the
        record says they hold, of a kind the gem area held (else None: asked)."""
        seat = s.order[s.turn]
        inv = seen.inventory(seat)
        if inv is None or not inv.sure:
            return None
        more = [inv.gems[g.index] - s.explorers[seat].inventory[g.index] for g in Gem]
        if min(more) < 0 or sum(more) != 1:
            return None
        gem = next(g for g in Gem if more[g.index])
        return gem if have[gem.index] else None

    def _gems_before(self, s: Any, i: int) -> tuple[int, ...]:
        """How gem area ``i`` was read while it held what the record says it holds (else the record)."""
        return self._gems_seen_before(s, i)[0]

    def _gems_seen_before(self, s: Any, i: int) -> tuple[tuple[int, ...], bool, int | None]:
        """Gem area ``i``'s coloured gems, sureness and mythical gems (None: not read) as read at rest while it
        held what the record says it holds; not seen so, the record's."""
        got = self.looks.get((i, "gems", tuple(s.spaces[i].gems)))
        if got is not None:
            return tuple(got[0]), bool(got[1]), got[2]
        have = s.spaces[i].gems
        return tuple(have[:5]), True, int(have[Gem.MYTHICAL.index])

    def _taken_by_placement(self, s: Any, seen: TableView, ups: Sequence[int]) -> list[int]:
        """The face-up dominoes that the change seen in the mover's pyramid shows placed (when the space it came
        from looks no different: the same colours turned up, a mythical gem taken)."""
        seat = s.order[s.turn]
        view = seen.of(seat)
        pyramid = s.explorers[seat].pyramid
        if view is None or _unchanged(view, pyramid) or view.problems:
            return []
        found = []
        for i in ups:
            trial = replace(s, holding=s.spaces[i].face_up, phase=Phase.PLACE)
            if self._explain_view(trial, view).actions:
                found.append(i)
        return found

    def _flip(self, s: Any, seen: TableView) -> tuple[Any, tuple[str, ...]]:
        ex = seen.exploration
        if ex is None:
            return None, ()
        flipped = []
        for i, space in enumerate(s.spaces):
            if space.face_up is not None or space.face_down == 0:
                continue
            sp = ex.spaces[i]
            top = known_top(s, i + 1)
            if top is None:
                # A deck the device does not know (a real table): a face read surely where a back lay, and, where the
                # back was seen at rest, lighter than it was (a back is printed darker; without this every pile whose
                # back reads as a face looked turned up, and most flips were asked: 34 of 40 answers on an unseeded
                # replay of 4701).
                before = self.looks.get(("light", *_space_key(s, i)))
                if not (sp.face_up and sp.sure and sp.tops):
                    score = 0
                elif before is not None:
                    score = 3 if sp.lightness - before[0] >= FLIP_LIGHTER else 0
                else:  # not seen at rest as a back (the pile just taken from): lighter than backs are
                    score = 2 if sp.looks_face_up else 0
            else:
                # Its face read exactly, or its look changed from its back's (a back has the same colours).
                # Read exactly as its top's face; else a look that changed from its back's (or a pile not seen as a
                # back before: the one just taken from) with its top's colours, looking face up.
                # Turned up: its top's colours, and lighter than the back it showed when last seen (a back is
                # printed darker; one reader's bias on a pile is the same in both), or, not seen as a back before,
                # lighter than backs are.
                before = self.looks.get(("light", *_space_key(s, i)))
                if not sp.coloured_as(top):
                    score = 0
                elif before is not None:
                    score = (2 + sp.shows(top)) if sp.lightness - before[0] >= FLIP_LIGHTER else 0
                else:  # not seen as a back before: its face read exactly (a back's dots can read so too), or lighter
                    score = 2 if sp.shows(top) else int(sp.looks_face_up)
            if score:
                flipped.append((score, i + 1))
        if not flipped:
            # Nothing read turned up. Once the domino is placed the flip has been made: ask which pile (telling it
            # by elimination is not safe: a back can read as light as a face).
            seat = s.order[s.turn]
            view = seen.of(seat)
            placed = view is not None and not _unchanged(view, s.explorers[seat].pyramid)
            if placed:
                return None, ("the domino is placed but which pile was turned up is not seen: choose the pile on the "
                              "page",)
            moved_on = [i + 1 for i in self._ahead(s, ex)]
            if moved_on:
                # No pile read turned up, yet the table has moved past the record (the next player has taken): the
                # flip was missed (a pile turned up that reads no lighter than its back). Waiting would wait for
                # ever (replay 4708 followed nothing after its action 204): ask.
                return None, (f"no pile is seen turned up, but space{'s' if len(moved_on) > 1 else ''} "
                              f"{' and '.join(map(str, moved_on))} of the exploration area "
                              f"{'do' if len(moved_on) > 1 else 'does'} not look as the record says: the table has "
                              "moved on; enter the pile turned up on the page",)
            return None, ()
        moved_on = [i + 1 for i in self._ahead(s, ex)]
        if moved_on:
            # A space looks other than the record says (a face-up domino it still has not seen, another back, a gem
            # area with other gems: the draws are done by now): the table is ahead of the record (a turn not
            # followed: the next player may have taken and turned up already), and a pile turned up since may be
            # another turn's.
            return None, (f"space{'s' if len(moved_on) > 1 else ''} {' and '.join(map(str, moved_on))} of the "
                          f"exploration area {'do' if len(moved_on) > 1 else 'does'} not look as the record says: the "
                          "table has moved on; enter the pile turned up on the page",)
        seat = s.order[s.turn]
        view = seen.of(seat)
        if view is not None and not _unchanged(view, s.explorers[seat].pyramid) and \
                not self._explain_view(replace(s, phase=Phase.PLACE), view).actions:
            # The pyramid shows a domino placed that is not the one in hand: the table is ahead of the record.
            return None, (f"player {seat + 1}'s pyramid does not show the domino in hand placed: the table has moved "
                          "on; enter the pile turned up on the page",)
        best = max(f[0] for f in flipped)
        if best == 1 and any(self._changed(s, i, ex.spaces[i]) for i, space in enumerate(s.spaces)
                             if space.face_up is None and space.face_down and (best, i + 1) not in flipped):
            # Only a weak sign on a pile not seen before, while another pile's look changed: ask.
            return None, ("which pile was turned up is not clear: choose it on the page",)
        # Without an exact reading, two piles that both look turned up (the Legend's reveal, a turn ahead) are asked
        # about, whichever looks more so.
        least = best if best >= 3 else 1
        flipped = [f for f in flipped if f[0] >= least]
        if len(flipped) > 1:
            return None, (f"piles {' and '.join(str(f[1]) for f in flipped)} all look turned up: which one was "
                          "flipped?",)
        return Flip(flipped[0][1]), ()

    def _place(self, s: Any, seen: TableView) -> tuple[Any, tuple[str, ...]]:
        seat = s.order[s.turn]
        view = seen.of(seat)
        if view is None:
            return None, (f"player {seat + 1}'s pyramid is not in view",)
        if seen.confirmed:
            view = replace(view, confirmed=True)
        pyramid = s.explorers[seat].pyramid
        if _unchanged(view, pyramid):
            hidden = [] if view.confirmed else _unread_placements(view, pyramid, s.holding)
            if hidden:
                # Every change this domino would make lies in cells read unsure: it may be placed there unseen.
                # Saying nothing would leave the game waiting for ever on a placement the camera cannot read.
                shown = " or ".join(str(p) for p in hidden[:3]) + (" ..." if len(hidden) > 3 else "")
                return None, (f"player {seat + 1}'s pyramid is hard to read where {s.holding} could lie ({shown}): "
                              "if it is placed, correct the cells or choose its placement on the page",)
            return None, ()
        if view.problems and not view.confirmed:
            return None, view.problems
        explained = self._explain_view(s, view)
        unsure = view.unsure if not view.confirmed else ()
        if not explained.actions:
            if unsure:
                return None, (f"quarter cells {_cells_text(unsure)} of player {seat + 1}'s pyramid are hard to read "
                              "(a hand, glare, a domino lying crooked, a colour not taught?): correct them or press "
                              "CONFIRM",
                              *explained.problems)
            return None, explained.problems
        return explained.actions[0], ()

    # --- buttons and the page --------------------------------------------------------------------
    def button(self, state: Any, button: str, *, long: bool) -> ButtonChoice:
        """At a stage end a long CONFIRM records the next step of the suggested activation; otherwise as
        every game (NEXT points at a legal action, CONFIRM takes it)."""
        self.record = state
        if button == "confirm" and long and state.phase is Phase.SCORE and not state.pending:
            seat = self.game.to_move(state)  # type: ignore[attr-defined]
            if seat is not None and len(state.explorers[seat].stage_scores) < state.stage:
                return ButtonChoice(action=scoring_step(self.game, state))
        return super().button(state, button, long=long)

    def button_meanings(self, state: Any) -> dict[str, str]:
        out = super().button_meanings(state)
        if state.phase is Phase.SCORE and not state.pending:
            seat = self.game.to_move(state)  # type: ignore[attr-defined]
            if seat is not None and len(state.explorers[seat].stage_scores) < state.stage:
                step = self.game.action_text(scoring_step(self.game, state))
                out["confirm_long"] = f"record the suggested step: {step}"
        return out

    def view(self, state: Any) -> dict[str, Any]:
        """The page's drawing of the table (games/pyramido.js): every pyramid stage by stage (quarter cells with
        colour, icon and stage; areas with their icons), the legal placements of the domino in hand as ghosts
        (or "no room"), the exploration area, inventories and totals, the stage-end scoring with the optimiser's
        activation, and the Legend in solo play."""
        self.record = state
        out = super().view(state)
        game = self.game
        status = game.status(state)
        mover = _mover(state)
        players = []
        for seat, e in enumerate(state.explorers):
            p = e.pyramid
            entry: dict[str, Any] = {
                "seat": seat, "name": e.name, "total": e.total, "stage_scores": list(e.stage_scores),
                "inventory": _gems_json(e.inventory), "lost_turns": e.lost_turns,
                "cells": [[x, y, v[0].value, bool(v[1]), v[2]] for (x, y), v in sorted(p.top_view.items())],
                "areas": [{"anchor": list(a.anchor), "colour": a.colour.value, "icons": a.icons, "size": len(a.cells)}
                          for a in areas(p)],
                "ghosts": [], "no_room": False, "to_move": seat == mover,
            }
            if seat == mover and state.holding is not None and state.phase is Phase.PLACE:
                legal = legal_placements(p, state.holding)
                entry["no_room"] = not legal
                entry["ghosts"] = [{"text": game.action_text(Place(pl)), "blocks": [
                    [2 * x + pl.stage - 1, 2 * y + pl.stage - 1] for (x, y), _laid in lay(state.holding, pl)]}
                    for pl in legal]
            players.append(entry)
        spaces = [{"pile": i + 1, "face_up": str(sp.face_up) if sp.face_up is not None else None,
                   "face_down": sp.face_down, "gems": _gems_json(sp.gems)} for i, sp in enumerate(state.spaces)]
        scoring = None
        seat = game.to_move(state)  # type: ignore[attr-defined]
        if state.phase is Phase.SCORE and seat is not None:
            e = state.explorers[seat]
            if len(e.stage_scores) < state.stage:
                done = {a.anchor for a in e.activated}
                best = best_activation([a for a in areas(e.pyramid) if a.anchor not in done], e.inventory)
                step = scoring_step(game, state)
                scoring = {"name": e.name, "stage": state.stage, "activated": [str(a) for a in e.activated],
                           "suggested": [str(a) for a in best.activations], "points": best.points,
                           "next": game.action_text(step), "discard": False}
            else:
                scoring = {"name": e.name, "stage": state.stage, "discard": True,
                           "next": "choose the gems to discard down to five on the page"}
        legend = None
        if state.legend is not None:
            lg = state.legend
            legend = {"pile": len(lg.pile), "top": str(lg.pile[-1]) if lg.pile else None, "total": lg.total,
                      "stage_scores": list(lg.stage_scores), "inventory": _gems_json(lg.inventory),
                      "last": lg.last_search}
        out.update({
            "kind": "pyramido", "stage": state.stage, "question": _question(state),
            "holding": str(state.holding) if state.holding else None,
            "players": players, "spaces": spaces, "scoring": scoring, "legend": legend,
            "finished": status.finished, "winners": list(status.winners),
        })
        return out

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, (Place, Take, Flip))

    def seen_json(self, seen: Any) -> dict[str, Any]:
        views = _views(seen)
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
        result: dict[str, Any] = {"pyramids": out}
        # The gem areas and inventories read, numbered after the cells for :meth:`correct`.
        at = sum(len(v.cells) for v in views)
        if isinstance(seen, TableView) and seen.exploration is not None:
            result["exploration"] = [
                {"pile": sp.pile, "tops": [str(d) for d in sp.tops], "face_up": sp.face_up, "sure": sp.sure,
                 "gems": list(sp.gems), "mythical": sp.mythical, "index": at + k,
                 "gems_read": _gems_json((*sp.gems, sp.mythical or 0)), "gems_unsure": not sp.gems_sure,
                 "corrected": sp.corrected}
                for k, sp in enumerate(seen.exploration.spaces)]
            at += len(seen.exploration.spaces)
        if isinstance(seen, TableView) and seen.inventories:
            result["inventories"] = [
                {"seat": v.seat, "index": at + k, "gems_read": _gems_json(v.gems), "gems_unsure": not v.sure,
                 "corrected": v.corrected} for k, v in enumerate(seen.inventories)]
        return result

    def reading_at(self, seen: Any, x: float, y: float) -> int:
        views = _views(seen)
        cells = [c for v in views for c in v.cells]
        if not cells:
            raise SessionError("no cells were read")
        return min(range(len(cells)), key=lambda i: (cells[i].centre[0] - x) ** 2 + (cells[i].centre[1] - y) ** 2)


class _Steady:
    """A zone's reading kept while the zone looks as it did when it was read (:class:`vision.change.ChangeGate` on
    the zone's pixels in the frame) and was read against the same record: a settled table is seen over and over,
    and reading it again would give what was read (with the same doubts: a reading is kept as read, never made
    sure). The gate errs towards "changed" (a hand, a gem taken, a domino laid), which only costs a reading."""

    def __init__(self) -> None:
        from vision.change import ChangeGate

        self.gate = ChangeGate()
        self.boxes: dict[str, tuple[int, int, int, int]] = {}
        self.kept: dict[str, tuple[Any, Any]] = {}

    def patch(self, image: np.ndarray, view: Any) -> np.ndarray | None:
        """The zone's bounding box in the frame (its size fixed at the first sight, so patches compare)."""
        quad = np.asarray(view.quad(), float)
        cx, cy = quad.mean(axis=0)
        key = view.zone.key
        if key not in self.boxes:
            w = int(np.ptp(quad[:, 0])) // 2 + 4
            h = int(np.ptp(quad[:, 1])) // 2 + 4
            self.boxes[key] = (w, h, 0, 0)
        w, h, _, _ = self.boxes[key]
        x0, y0 = round(float(cx)) - w, round(float(cy)) - h
        if x0 < 0 or y0 < 0 or x0 + 2 * w > image.shape[1] or y0 + 2 * h > image.shape[0]:
            return None
        return image[y0:y0 + 2 * h, x0:x0 + 2 * w]

    def read(self, image: np.ndarray, view: Any, context: Any, fresh: Callable[[], Any]) -> Any:
        key = view.zone.key
        patch = self.patch(image, view)
        kept = self.kept.get(key)
        if patch is not None and kept is not None and kept[0] == context and \
                not self.gate.changed({key: patch})[key]:
            return kept[1]
        reading = fresh()
        if patch is not None:
            self.gate.reset([key])
            self.gate.propose({key: patch})
            self.gate.accept()
            self.kept[key] = (context, reading)
        return reading


def _space_key(s: Any, i: int) -> tuple[Any, ...]:
    """What the record says lies on pile ``i`` (0-based): a face-up domino, a back (the known top), or nothing."""
    space = s.spaces[i]
    if space.face_up is not None:
        return (i, "up", str(space.face_up), space.face_down)
    if space.face_down:
        return (i, "back", str(known_top(s, i + 1) or space.back), space.face_down)
    return (i, "empty")


def _question(state: Any) -> str | None:
    """What the players must say because the camera cannot see it, in words for the page (None: nothing)."""
    if not state.pending:
        return None
    head = state.pending[0]
    if head.kind is PendingKind.GEM_TO_LEGEND:
        return ("The Legend found no gem and draws one at random from the bag: draw it for him and choose it below "
                "(his gems lie on no mat the camera sees).")
    if head.kind is PendingKind.DOMINO_TO_LEGEND:
        return "The Legend takes the top of the deck onto his pile: choose the domino below if the device asks."
    return None


def _one_missing(sp: SpaceSeen, have: Sequence[int]) -> Gem | None:
    """The gem taken from an area counted clearly but partly hidden behind its pile (``gems_at_least``): when it
    shows exactly what it held less one gem (no room left for a hidden one), that gem; else None."""
    if not sp.gems_at_least or sp.mythical is None:
        return None
    seen = (*sp.gems, sp.mythical)
    less = [have[g.index] - seen[g.index] for g in Gem]
    if min(less) < 0 or sum(less) != 1:
        return None
    return next(g for g in Gem if less[g.index])


def _gems_json(gems: Sequence[int]) -> dict[str, int]:
    return {g.value: int(gems[g.index]) for g in Gem if gems[g.index]}


def _discarding(state: Any) -> int | None:
    """The seat that discards down to five now, at a stage end (None: nobody; the engine says who moves)."""
    if state is None or state.phase is not Phase.SCORE or state.pending:
        return None
    seat = _to_move(state)
    if seat is None or len(state.explorers[seat].stage_scores) < state.stage:
        return None  # the areas are being scored (the players' long CONFIRM)
    return seat


def _to_move(state: Any) -> int | None:
    from engine.game import find_game

    seat = find_game("pyramido").to_move(state)  # type: ignore[attr-defined]
    return None if seat is None else int(seat)


def _mover(state: Any) -> int | None:
    """The seat whose pyramid the camera must read now (None: nobody is taking a turn)."""
    if state is None or state.phase not in (Phase.TAKE, Phase.FLIP, Phase.PLACE):
        return None
    return int(state.order[state.turn])


def _unchanged(view: PyramidView, pyramid: Pyramid) -> bool:
    """The pyramid seen is the recorded one: every cell read surely agrees (unsure ones are not counted)."""
    shown = view.shown()
    fixed = {c for c, _ in view.corrections}
    unsure = {c.cell for c in view.cells if not c.sure and c.cell not in fixed}
    if not view.aligned:
        return not pyramid.placed and not {c for c in shown if c not in unsure}
    expected = observed(pyramid)
    return all(shown.get(c) == expected.get(c) for c in set(shown) | set(expected) if c not in unsure)


def _unread_placements(view: PyramidView, pyramid: Pyramid, domino: Domino | None) -> list[Any]:
    """The legal placements of ``domino`` that would change only cells read unsure (so the camera could not tell
    them from no placement), on a view that agrees with the record where it is sure."""
    if domino is None or not view.aligned or not pyramid.placed:
        return []
    fixed = {c for c, _ in view.corrections}
    unsure = {c.cell for c in view.cells if not c.sure and c.cell not in fixed}
    if not unsure:
        return []
    before = observed(pyramid)
    out = []
    for placement in legal_placements(pyramid, domino):
        after = observed(pyramid.place(domino, placement))
        changed = {c for c in set(after) | set(before) if after.get(c) != before.get(c)}
        if changed and changed <= unsure:
            out.append(placement)
    return out


def _gems_words(gems: Sequence[int]) -> str:
    from engine.pyramido.dominoes import gems_text

    return gems_text(tuple(gems))


def _agree_key(readings: Sequence[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    for r in readings:
        if isinstance(r, ExplorationSeen):
            out.append(tuple((sp.tops, sp.face_up, sp.gems, sp.mythical) for sp in r.spaces))
        elif isinstance(r, InventorySeen):
            out.append((r.seat, r.gems))
        elif isinstance(r, PyramidView):
            out.append((r.seat, tuple(sorted(r.after.items()))))
        else:
            out.append((getattr(r, "seat", None), tuple((c.cell, c.colour, c.icon) for c in r.cells)))
    return tuple(out)


def _views(seen: Any) -> tuple[PyramidView, ...]:
    if isinstance(seen, TableView):
        return seen.pyramids
    return seen.views if isinstance(seen, PyramidsView) else (_view(seen),)


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


ADAPTER = PyramidoTable
