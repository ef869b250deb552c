"""Printable mats: where each zone of a board game lies on its sheet, and the AprilTag IDs that say which sheet.

This module owns the geometry that both the printer and the camera agree on, in millimetres on the sheet
(origin at the mat's top-left corner, x to the right, y down, as in the SVG's user coordinates): each mat's
size, its zones (a player's pyramid board, the quarry, a row of motif cards, ...), the outlines printed
where the pieces go, and the place of every fiducial marker. It is runtime code: the registration stage
(:mod:`vision.registration`) reads it on the device; :mod:`vision.matprint` draws it to SVG/PDF.

Marker IDs (OpenCV's ``DICT_APRILTAG_36h11``, 587 codes) encode the game, the mat (which includes the
player's seat) and the marker's place on the mat::

    id = 192 * game + 12 * slot + position

``game`` is 0 Pyradice, 1 Pyramido, 2 Dice Treasure; ``slot`` is the mat within the game (slots 0..3 are
the seats' own mats, so two players' mats are told apart); ``position`` counts the markers clockwise from
the top-left corner (corners and evenly spaced edge markers, 8 or 10 per mat). IDs 576..586 are unused.

The physical sizes of the boards, dominoes and cards are not published (rules/RULES.md lists what was not
found), so the outlines use nominal sizes (:data:`NOMINAL_MM`) with room around them: the readers fit
slot lattices to the pieces themselves inside a zone; only the markers' places must be exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

#: A marker is MARKER_CELLS cells across: a one-cell black border around 6x6 data cells. Its black square is
#: 28 mm on a small mat (3.5 mm cells) and 32 mm on a large one (4 mm cells, large mats cover larger tables,
#: seen at fewer pixels per mm): at 1 px/mm, the least the readers work at, a cell is still 3.5 px or more.
MARKER_CELLS = 8
#: White margin every marker needs around its black square to be found.
QUIET_MM = 3.0
#: From the mat's edge to a marker's black square (the quiet zone lies inside the mat, so it survives trimming).
INSET_MM = 3.0
#: Length of the printed scale bar; a ruler along it checks the print scale.
SCALE_BAR_MM = 80.0
#: Longest distance between neighbouring markers along an edge: more markers keep a zone found under a hand.
EDGE_SPACING_MM = 150.0
IDS_PER_GAME = 192
IDS_PER_MAT = 12
MAX_SEATS = 4

#: Nominal piece sizes the printed outlines are drawn for (assumed: the rulebooks give none).
NOMINAL_MM: dict[str, float] = {
    "die": 16.0,  # Pyradice and Dice Treasure dice
    "pyramido_block": 35.0,  # one half of a Pyramido domino
    "card_w": 63.0,  # Dice Treasure motif card, poker size
    "card_h": 88.0,
}

#: Paper sizes (width, height in portrait) in mm.
PAPERS: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "a3": (297.0, 420.0),
    "letter": (215.9, 279.4),
    "tabloid": (279.4, 431.8),
}
#: Unprintable margin assumed on every side of the paper.
PRINTER_MARGIN_MM = 5.0

#: Mat sizes: "small" fits A4 and letter (and larger papers); "large" needs A3 or tabloid.
SMALL_MAT = (265.0, 190.0)
LARGE_MAT = (410.0, 268.0)
MARKER_MM: dict[tuple[float, float], float] = {SMALL_MAT: 28.0, LARGE_MAT: 32.0}


def band_mm(size: tuple[float, float]) -> float:
    """Width of the band along a mat's edges that markers, the title and the scale bar use; zones lie inside."""
    return INSET_MM + MARKER_MM[size] + QUIET_MM + 2.0

GAMES: tuple[str, ...] = ("pyradice", "pyramido", "dicetreasure")
GAME_TITLES: dict[str, str] = {"pyradice": "Pyradice", "pyramido": "Pyramido", "dicetreasure": "Dice Treasure"}


class MatError(ValueError):
    """A mat that cannot be made as asked: unknown game, sheet out of range, paper too small."""


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle on a mat, in mm."""

    x: float
    y: float
    w: float
    h: float

    def corners(self) -> tuple[tuple[float, float], ...]:
        """Top-left, top-right, bottom-right, bottom-left."""
        x1, y1 = self.x + self.w, self.y + self.h
        return ((self.x, self.y), (x1, self.y), (x1, y1), (self.x, y1))

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def to_json(self) -> list[float]:
        return [round(self.x, 3), round(self.y, 3), round(self.w, 3), round(self.h, 3)]


@dataclass(frozen=True)
class Outline:
    """A printed outline of where a piece goes (a board, a card, a domino pile, a gem area); print only."""

    rect: Rect
    label: str = ""
    round: bool = False  # drawn as an ellipse (gem areas, die spots)


@dataclass(frozen=True)
class Zone:
    """A region of a mat that one reader looks at (e.g. player 2's pyramid board)."""

    name: str  # the game's word: board, reserve, quarry, pyramid, gems, exploration, motif-cards, tray, middle
    seat: int | None  # 1-based seat for a player's zone, None for a shared one
    rect: Rect
    label: str
    outlines: tuple[Outline, ...] = ()

    @property
    def key(self) -> str:
        """Unique within a game: ``board-2``, ``quarry``."""
        return self.name if self.seat is None else f"{self.name}-{self.seat}"


@dataclass(frozen=True)
class MarkerPlace:
    """One marker on a mat: its ID, its place number and its black square's corners in mm (TL, TR, BR, BL)."""

    id: int
    position: int
    where: str  # "top-left corner", "top edge", ...
    corners: tuple[tuple[float, float], ...]

    @property
    def centre(self) -> tuple[float, float]:
        return (sum(c[0] for c in self.corners) / 4, sum(c[1] for c in self.corners) / 4)


@dataclass(frozen=True)
class Mat:
    """One printable sheet: a game's mat for a seat (or a shared one), its zones and markers."""

    game: str
    kind: str  # board, quarry, pyramid, exploration, player, tray, middle
    seat: int | None
    slot: int
    size: tuple[float, float]
    marker_mm: float
    zones: tuple[Zone, ...]
    markers: tuple[MarkerPlace, ...]
    title: str

    @property
    def key(self) -> str:
        return self.kind if self.seat is None else f"{self.kind}-{self.seat}"

    @property
    def large(self) -> bool:
        return self.size == LARGE_MAT

    def marker(self, marker_id: int) -> MarkerPlace:
        for m in self.markers:
            if m.id == marker_id:
                return m
        raise KeyError(marker_id)

    def zone(self, key: str) -> Zone:
        for z in self.zones:
            if z.key == key or z.name == key:
                return z
        raise KeyError(key)


@dataclass(frozen=True)
class MarkerCode:
    """What a marker ID says: game, mat slot and place on the mat."""

    game: str
    slot: int
    position: int


def encode_marker(game: str, slot: int, position: int) -> int:
    """The AprilTag 36h11 ID of a marker (see the module docstring)."""
    if game not in GAMES:
        raise MatError(f"unknown game {game!r}: one of {', '.join(GAMES)}")
    if not (0 <= slot < IDS_PER_GAME // IDS_PER_MAT and 0 <= position < IDS_PER_MAT):
        raise MatError(f"marker slot {slot} / position {position} out of range")
    return IDS_PER_GAME * GAMES.index(game) + IDS_PER_MAT * slot + position


def decode_marker(marker_id: int) -> MarkerCode | None:
    """The game, slot and position a marker ID encodes; ``None`` for IDs outside the scheme."""
    game_index, rest = divmod(int(marker_id), IDS_PER_GAME)
    if marker_id < 0 or game_index >= len(GAMES):
        return None
    slot, position = divmod(rest, IDS_PER_MAT)
    return MarkerCode(GAMES[game_index], slot, position)


@cache
def _bits(marker_id: int) -> bytes:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    image = cv2.aruco.generateImageMarker(dictionary, int(marker_id), MARKER_CELLS, borderBits=1)
    return (np.asarray(image) < 128).tobytes()


def marker_bits(marker_id: int) -> np.ndarray:
    """A marker's cells (MARKER_CELLS x MARKER_CELLS, True = black, border included), from OpenCV itself, so
    what is printed and what is checked are the codes :class:`cv2.aruco.ArucoDetector` reads."""
    return np.frombuffer(_bits(marker_id), dtype=bool).reshape(MARKER_CELLS, MARKER_CELLS).copy()


def _edge_points(start: float, end: float) -> list[float]:
    """Marker centres from ``start`` to ``end`` inclusive, no further apart than EDGE_SPACING_MM."""
    gaps = max(1, int(-(-(end - start) // EDGE_SPACING_MM)))
    return [start + (end - start) * i / gaps for i in range(gaps + 1)]


def _marker_places(game: str, slot: int, size: tuple[float, float]) -> tuple[MarkerPlace, ...]:
    w, h = size
    side = MARKER_MM[size]
    lo = INSET_MM + side / 2
    xs = _edge_points(lo, w - lo)
    ys = _edge_points(lo, h - lo)
    # Clockwise from the top-left corner: top edge, right edge, bottom edge (right to left), left edge (upwards).
    ring: list[tuple[float, float, str]] = []
    ring += [(x, lo, "top edge") for x in xs[:-1]]
    ring += [(w - lo, y, "right edge") for y in ys[:-1]]
    ring += [(x, h - lo, "bottom edge") for x in reversed(xs[1:])]
    ring += [(lo, y, "left edge") for y in reversed(ys[1:])]
    corners_named = {(xs[0], lo): "top-left corner", (w - lo, ys[0]): "top-right corner",
                     (xs[-1], h - lo): "bottom-right corner", (lo, ys[-1]): "bottom-left corner"}
    out = []
    half = side / 2
    for position, (cx, cy, edge) in enumerate(ring):
        where = corners_named.get((cx, cy), edge)
        corners = ((cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half), (cx - half, cy + half))
        out.append(MarkerPlace(encode_marker(game, slot, position), position, where, corners))
    if len(out) > IDS_PER_MAT:
        raise AssertionError(f"{len(out)} markers do not fit the ID scheme")
    return tuple(out)


def _inner(size: tuple[float, float]) -> Rect:
    band = band_mm(size)
    return Rect(band, band, size[0] - 2 * band, size[1] - 2 * band)


def _whose(seat: int | None) -> str:
    return "" if seat is None else f"player {seat}'s "


def _pyradice(slot: int) -> tuple[str, int | None, tuple[float, float], tuple[Zone, ...]]:
    size = SMALL_MAT
    inner = _inner(size)
    die = NOMINAL_MM["die"]
    if slot < MAX_SEATS:
        seat = slot + 1
        board = Rect(inner.x, inner.y, inner.w - 46, inner.h)
        # The printed outline is the six-die-wide brick wall with room for the skill and objective recesses.
        wall = Rect(board.x + 10, board.y + 8, board.w - 20, board.h - 16)
        reserve = Rect(inner.x + inner.w - 38, inner.y, 38, 38)
        zones = (
            Zone("board", seat, board, f"{_whose(seat)}pyramid board", (Outline(wall, "pyramid board"),)),
            Zone("reserve", seat, reserve, f"{_whose(seat)}reserve die",
                 (Outline(Rect(reserve.x + 5, reserve.y + 5, 28, 28), "reserve", round=True),)),
        )
        return "board", seat, size, zones
    if slot == MAX_SEATS:
        # The quarry board for 3-4 players is 11 dice wide: the zone takes the whole inside of the mat.
        quarry = inner
        footprint = Rect(inner.x + (inner.w - 12 * die) / 2, inner.y + (inner.h - 5 * die) / 2, 12 * die, 5 * die)
        return "quarry", None, size, (Zone("quarry", None, quarry, "the quarry", (Outline(footprint, "quarry"),)),)
    raise MatError(f"Pyradice has no mat in slot {slot}")


def _pyramido(slot: int) -> tuple[str, int | None, tuple[float, float], tuple[Zone, ...]]:
    size = LARGE_MAT
    inner = _inner(size)
    block = NOMINAL_MM["pyramido_block"]
    if slot < MAX_SEATS:
        seat = slot + 1
        # Stage 1 is 5x4 or 4x5 blocks: a square of five blocks holds either way round.
        side = 5 * block
        pyramid = Rect(inner.x, inner.y, side, min(side, inner.h))
        gems = Rect(pyramid.x + pyramid.w + 12, inner.y, inner.w - pyramid.w - 12, 100)
        zones = (
            Zone("pyramid", seat, pyramid, f"{_whose(seat)}pyramid",
                 (Outline(Rect(pyramid.x + 2, pyramid.y + 2, side - 4, pyramid.h - 4), "stage 1: 5 x 4 blocks"),)),
            Zone("gems", seat, gems, f"{_whose(seat)}gem inventory",
                 (Outline(Rect(gems.x + 6, gems.y + 6, gems.w - 12, gems.h - 12), "gems", round=True),)),
        )
        return "pyramid", seat, size, zones
    if slot == MAX_SEATS:
        # Five spaces: a face-down pile of dominoes with its gem area below it.
        pitch = inner.w / 5
        outlines = []
        for i in range(5):
            x = inner.x + i * pitch + (pitch - block - 4) / 2
            outlines.append(Outline(Rect(x, inner.y + 6, block + 4, 2 * block + 4), f"pile {i + 1}"))
            outlines.append(Outline(Rect(inner.x + i * pitch + 6, inner.y + 2 * block + 22, pitch - 12, 60),
                                    f"gems {i + 1}", round=True))
        return "exploration", None, size, (Zone("exploration", None, inner, "the exploration area", tuple(outlines)),)
    raise MatError(f"Pyramido has no mat in slot {slot}")


def _card_row(area: Rect, n: int, top: float) -> tuple[Outline, ...]:
    w, h = NOMINAL_MM["card_w"], NOMINAL_MM["card_h"]
    pitch = area.w / n
    return tuple(Outline(Rect(area.x + i * pitch + (pitch - w - 4) / 2, top, w + 4, h + 4), "motif card")
                 for i in range(n))


def _dicetreasure(slot: int) -> tuple[str, int | None, tuple[float, float], tuple[Zone, ...]]:
    size = LARGE_MAT
    inner = _inner(size)
    card_h = NOMINAL_MM["card_h"]
    if slot < MAX_SEATS:
        seat = slot + 1
        # Up to 4 motif cards a round (2 players); the row is sized for the most.
        row = Rect(inner.x, inner.y, inner.w, card_h + 16)
        reserve = Rect(inner.x, row.y + row.h + 12, 90, inner.h - row.h - 12)
        zones = (
            Zone("motif-cards", seat, row, f"{_whose(seat)}motif cards", _card_row(row, 4, row.y + 6)),
            Zone("reserve", seat, reserve, f"{_whose(seat)}reserve (2 dice)",
                 (Outline(Rect(reserve.x + 6, reserve.y + 6, reserve.w - 12, reserve.h - 12), "reserve", round=True),)),
        )
        return "player", seat, size, zones
    if slot == MAX_SEATS:
        tray = Rect(inner.x, inner.y, inner.h, inner.h)
        common = Rect(tray.x + tray.w + 12, inner.y, inner.w - tray.w - 12, 120)
        zones = (
            Zone("tray", None, tray, "the tray",
                 (Outline(Rect(tray.x + 10, tray.y + 10, tray.w - 20, tray.h - 20), "tray"),)),
            Zone("common-reserve", None, common, "the common reserve",
                 (Outline(Rect(common.x + 6, common.y + 6, common.w - 12, common.h - 12), "reserve", round=True),)),
        )
        return "tray", None, size, zones
    if slot == MAX_SEATS + 1:
        # Incomplete cards of every player come to the middle for the steal phase: two rows of four.
        rows = _card_row(inner, 4, inner.y + 1) + _card_row(inner, 4, inner.y + card_h + 7)
        return "middle", None, size, (Zone("middle", None, inner, "the middle (steal phase)", rows),)
    raise MatError(f"Dice Treasure has no mat in slot {slot}")


_LAYOUTS = {"pyradice": _pyradice, "pyramido": _pyramido, "dicetreasure": _dicetreasure}
#: Shared mats of each game, after the seats' mats (slots MAX_SEATS, MAX_SEATS + 1, ...).
_SHARED_SLOTS: dict[str, tuple[int, ...]] = {"pyradice": (4,), "pyramido": (4,), "dicetreasure": (4, 5)}


def check_game(game: str) -> str:
    if game not in GAMES:
        raise MatError(f"no mats for game {game!r}: one of {', '.join(GAMES)}")
    return game


@cache
def mat_in_slot(game: str, slot: int) -> Mat:
    """The mat of ``game`` in ``slot`` (raises :class:`MatError` if there is none)."""
    kind, seat, size, zones = _LAYOUTS[check_game(game)](slot)
    title = GAME_TITLES[game] + ": " + ", ".join(z.label for z in zones)
    return Mat(game, kind, seat, slot, size, MARKER_MM[size], zones, _marker_places(game, slot, size), title)


def mats(game: str, players: int = 2) -> tuple[Mat, ...]:
    """The sheets to print for a game of ``players`` players, in order: each seat's mat, then the shared ones."""
    check_game(game)
    if not 1 <= players <= MAX_SEATS:
        raise MatError(f"--players {players}: the mats are made for 1 to {MAX_SEATS} players")
    return tuple(mat_in_slot(game, s) for s in (*range(players), *_SHARED_SLOTS[game]))


def all_mats(game: str) -> tuple[Mat, ...]:
    return mats(game, MAX_SEATS)


def sheet(game: str, number: int = 1, players: int = 2) -> Mat:
    """Sheet ``number`` (1-based) of a game's mats."""
    sheets = mats(game, players)
    if not 1 <= number <= len(sheets):
        raise MatError(f"--sheet {number}: {GAME_TITLES[game]} for {players} players has sheets 1 to {len(sheets)}")
    return sheets[number - 1]


def marker_owner(marker_id: int) -> tuple[Mat, MarkerPlace] | None:
    """The mat and place a marker ID belongs to, or ``None`` if no mat of the scheme prints it."""
    code = decode_marker(marker_id)
    if code is None:
        return None
    try:
        mat = mat_in_slot(code.game, code.slot)
    except MatError:
        return None
    if code.position >= len(mat.markers):
        return None
    return mat, mat.markers[code.position]


def page_for(mat: Mat, paper: str | None = None) -> tuple[str, float, float]:
    """(paper, page width, page height) in mm for printing ``mat``: landscape when the mat is wider than tall.

    Without ``paper``, the smallest of A4 and A3 that holds the mat. A paper too small is a :class:`MatError`."""
    if paper is None:
        paper = "a3" if mat.large else "a4"
    if paper not in PAPERS:
        raise MatError(f"--paper {paper!r}: one of {', '.join(PAPERS)}")
    short, long_ = PAPERS[paper]
    w, h = (long_, short) if mat.size[0] >= mat.size[1] else (short, long_)
    if mat.size[0] > w - 2 * PRINTER_MARGIN_MM or mat.size[1] > h - 2 * PRINTER_MARGIN_MM:
        fits = [p for p in PAPERS if _fits(mat, p)]
        raise MatError(f"{mat.title} is {mat.size[0]:g} x {mat.size[1]:g} mm: it does not fit {paper}; "
                       f"print it on {' or '.join(fits)}")
    return paper, w, h


def _fits(mat: Mat, paper: str) -> bool:
    short, long_ = sorted(PAPERS[paper])
    big, small = max(mat.size), min(mat.size)
    return big <= long_ - 2 * PRINTER_MARGIN_MM and small <= short - 2 * PRINTER_MARGIN_MM
