"""Reading a Pyradice table: every pyramid board's 21 slots, the quarry's three layers and the reserve dice.

This stage owns what lies on Pyradice's zones once registration (:mod:`vision.registration`) has found them.
It works on each zone rectified to a flat image in millimetres and hands back a frozen
:class:`PyradiceReading` with a confidence and an *unsure* flag on everything it reports, so that the
device asks instead of guessing.

- **Pyramid boards.** The learned die detector (:class:`vision.detect.DiceDetector`) finds die tops in the
  board zone; a brick lattice (slot (k, i) at ``origin + (i + (k-1)/2) step + (k-1) up``) is fitted to
  them: its pitch and turn by the phase coherence of the die centres over a grid of pitches and turns, then
  least squares on the dice that sit on it. The board's size is not known in advance: the lattice is kept
  per zone (:class:`BrickLattice`) and refined as more dice appear; which lattice cell is slot (1, 0) comes
  from the printed outline the board lies in (the board is centred in it). Each slot is then cut with the
  die reader's crop rule (:func:`vision.crop.crop_die`) and read by the face model (face and "not a die"),
  the classical pip count and the colour measure; the detector is a second opinion on occupancy. Each slot's
  empty print is remembered where it is seen empty (the set-up picture: every board begins empty), and a slot's
  top unlike it in every part is a die (a light die on a light board, small in the frame, that no other measure
  finds surely); the print never overrules the other measures' sure reading.
- **The quarry.** Its dice stand in three layers; a die of layer L is ``L`` die heights above the table,
  so its top is seen larger and moved away from the point under the camera. The camera's centre is
  estimated from the mat's homography (principal point at the frame's centre, square pixels) and the
  quarry's grid is fitted to the die tops found with that parallax (grid, camera foot and height refined by
  linear least squares over a few heights). Positions are then judged top down from what the game says
  is there (``prior``; a full quarry by default): a die whose top a die above covers is present and unknown;
  an uncovered one is read, or found gone.
- **The reserve die** (skill B3): the best die-like crop near the reserve spot.

Colours are the four Pyradice colours: a nominal palette (:func:`vision.colour.nominal_palette`) until the
players teach the table's own (:meth:`PyradiceReader.teach`). Everything here was developed and measured on
rendered frames only (:mod:`vision.lab.pyradice_render`); ``python -m vision.lab.pyradice_measure --measure``
measures it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from engine.dice import Die
from engine.pyradice.pyramid import SLOTS, SUPPORTS, Slot, slot_text
from engine.pyradice.quarry import LAYOUTS, Position, boxes_for, geometry, position_text
from vision.colour import Lab, Palette, measure_bodies, nominal_palette
from vision.crop import crop_die
from vision.faces import (
    CONFIDENCE_FLOOR,
    PIP_CROP_SIZE,
    TIGHT_SIDE,
    FaceModel,
    count_pips_batch,
    decide,
    second_look,
)
from vision.mats import NOMINAL_MM, Rect
from vision.registration import Registration, ZoneView, rectify, zone_transform
from vision.types import DieCandidate

#: Rectified zones are read at this scale: a 16 mm die is 32 px, the face model's crop before its margin.
PX_PER_MM = 2.0
DIE_MM = NOMINAL_MM["die"]
#: Board zones are read this much beyond their edges (a die top at a tilted camera's far side is seen up to
#: about 9 mm from its slot).
ZONE_MARGIN_MM = 12.0
#: Board slot pitches the lattice search tries (mm): the board's real size is not published.
PITCH_RANGE = (15.8, 21.0)  # a 16 mm die (+-3%) cannot sit closer than about 15.8 mm to the next
#: Turns of the board in its outline the lattice search tries (degrees either way).
MAX_TURN = 8.0
#: A die found farther than this share of the pitch from a lattice point is not on the lattice.
ON_LATTICE = 0.3
#: Colour: a reading is sure when the nearest colour is this much closer than the next (CIELAB, L halved).
COLOUR_MARGIN = 14.0
#: Colour: and the nearest is no farther than this.
COLOUR_FAR = 30.0
#: "Not a die" probability above which a crop is taken as no die, below which a die (in between: unsure).
EMPTY_ABOVE = 0.6
DIE_BELOW = 0.25
#: Colour distance from the board's own colour beyond which a slot shows something else, and within which it
#: shows the board.
BOARD_FAR = 12.0
BOARD_NEAR = 8.0
#: Mean gradient (grey levels per pixel) of a slot's ground crop within which it looks like the printed recess of
#: an empty slot (rendered tuning boards: empty recesses 10 to 100, mostly 15 to 60; dice 30 and up, mostly
#: over 60; a hand over a slot often under 10).
EDGES_EMPTY = 15.0
EDGES_FULL = 60.0
#: The detector's threshold here, and the score above which its find near a slot counts as a die there.
DETECT_THRESHOLD = 0.15
FOUND = 0.5
#: A find below this score is no die (an empty recess of the board scores up to about 0.45).
FAINT = 0.3
#: A slot's empty print as the reader remembers it (``PyradiceReader.prints``): a grey patch of the rectified zone
#: this many px square around where a die's top is seen there (28 mm: a lattice refitted since by up to 4 mm still
#: finds its slot's top in it).
PRINT_PX = 56
#: What is compared with it: a die's top (16 mm), the best of the shifts within PRINT_SHIFT px either way
#: (registration's jitter, a lattice refitted by a pixel or two), in three by three parts.
TOP_PX = 32
PRINT_SHIFT = 3
#: A die's top changes every part of its slot's empty print; a neighbour's side or shadow, a print seen a pixel or
#: two off, only some parts. The least changed of the nine parts (grey levels, after the board's common change of
#: light) at or above this is "a die is there". On every slot of every still picture of seven tuning recordings
#: (6402, 6001, 5911, the first two at scale 0.8 too, 5802, 6404), each against the print of the game's first
#: picture: empty slots at most 5.2, and 3.9 where the print would decide (the other measures unsure, the face model
#: not saying "no die"); of the dice the other measures could not tell about, 2444 of 2474 at 8 or more (6404's
#: empties above it all lay on boards a cell off, fitted on one die or none: PRINT_LATTICE_DICE). See
#: docs/pyradice-table.md, ninth round.
UNLIKE_EMPTY = 8.0
#: More slots of one board than this "a die is there" by the print alone (the other measures not sure of a die):
#: the board was moved on its mat or the light changed, not dice placed (a turn places one die, a skill swaps at
#: most two); none of them is taken so.
UNLIKE_MOST = 3
#: The print votes only on a board whose lattice was fitted on at least this many dice (see read_board).
PRINT_LATTICE_DICE = 2
#: The change gate's patch of a slot or quarry position (px of the rectified zone): the middle of a die's top,
#: 14 mm of its 16, so that a neighbour's sides and shadow stay out of it.
PATCH_PX = 28
#: The reserve's patch: the spot and around it (a reserve die is put down within a few mm of it).
RESERVE_PATCH_PX = 48
#: With the change gate, a board with at most WINDOW_PLACES slots to read and a lattice fitted on at least
#: KEEP_LATTICE_DICE dice is read in windows: the detector only around those slots (WINDOW_REACH_MM beyond
#: them), the lattice kept; the quarry likewise around at most twice as many positions to read (a die taken from
#: the top changes the look of the dice under it), its last grid kept.
WINDOW_PLACES = 8
KEEP_LATTICE_DICE = 6
WINDOW_REACH_MM = 24.0
#: A place the game's belief gives (:meth:`PyradiceReader.read`'s ``known``): ("slot", seat, slot),
#: ("quarry", position) or ("reserve", seat).
Place = tuple[Any, ...]


# --- what comes out -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DieRead:
    """One die as read: face and colour, each with a confidence, the measured colour, whether unsure and why."""

    value: int
    colour: str
    face_confidence: float
    colour_confidence: float
    lab: Lab
    unsure: bool
    reason: str = ""
    pips: int | None = None  # the classical pip count (None: it abstained)

    @property
    def die(self) -> Die:
        return Die(self.value, self.colour)


@dataclass(frozen=True)
class SlotReading:
    """A pyramid slot: empty or a die, how sure (``occupancy`` 0..1 that a die is there), where in the frame."""

    slot: Slot
    occupied: bool
    occupancy: float
    die: DieRead | None
    unsure: bool
    reason: str
    centre: tuple[float, float]  # frame pixels

    @property
    def text(self) -> str:
        return f"level {self.slot[0]}, slot {self.slot[1] + 1}"


@dataclass(frozen=True)
class BrickLattice:
    """A board's slot lattice in zone millimetres: slot (k, i) at ``origin + (i + (k-1)/2) step + (k-1) up``.
    ``dice`` is how many dice it was last fitted on."""

    origin: tuple[float, float]
    step: tuple[float, float]
    up: tuple[float, float]
    dice: int = 0

    def centre(self, slot: Slot) -> tuple[float, float]:
        k, i = slot
        along = i + (k - 1) / 2
        return (self.origin[0] + along * self.step[0] + (k - 1) * self.up[0],
                self.origin[1] + along * self.step[1] + (k - 1) * self.up[1])

    @property
    def pitch(self) -> float:
        return math.hypot(*self.step)

    @property
    def angle(self) -> float:
        return math.degrees(math.atan2(self.step[1], self.step[0]))


@dataclass(frozen=True)
class BoardReading:
    """One seat's pyramid board: its 21 slots (in ``SLOTS`` order), or why it was not read."""

    seat: int
    slots: tuple[SlotReading, ...] = ()
    lattice: BrickLattice | None = None
    problems: tuple[str, ...] = ()

    @property
    def seen(self) -> bool:
        return bool(self.slots)

    def slot(self, slot: Slot) -> SlotReading:
        return self.slots[SLOTS.index(slot)]

    def pyramid(self) -> dict[Slot, Die]:
        return {s.slot: s.die.die for s in self.slots if s.occupied and s.die is not None}

    def doubts(self) -> list[SlotReading]:
        return [s for s in self.slots if s.unsure]


#: What a quarry position shows.
PRESENT, EMPTY, COVERED = "die", "empty", "covered"
#: The reason given for a place carried from the game's belief (its picture did not change).
UNCHANGED = "unchanged since the table the game agreed with"


@dataclass(frozen=True)
class PositionReading:
    """A quarry position: ``state`` is "die" (top seen and read), "covered" (a die above rests on it: present,
    value unknown; unsure when the dice above are in doubt, with ``die`` its top as read in case it is bare now)
    or "empty"; ``unsure`` when the view could not tell."""

    position: Position
    state: str
    occupancy: float
    die: DieRead | None
    unsure: bool
    reason: str
    centre: tuple[float, float]  # frame pixels (where its top would be seen)

    @property
    def present(self) -> bool:
        return self.state != EMPTY

    @property
    def text(self) -> str:
        return position_text(self.position)


@dataclass(frozen=True)
class QuarryReading:
    positions: tuple[PositionReading, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def seen(self) -> bool:
        return bool(self.positions)

    def at(self, pos: Position) -> PositionReading | None:
        return next((p for p in self.positions if p.position == pos), None)

    def doubts(self) -> list[PositionReading]:
        return [p for p in self.positions if p.unsure]


@dataclass(frozen=True)
class ReserveReading:
    seat: int
    occupied: bool
    die: DieRead | None
    unsure: bool
    seen: bool = True
    reason: str = ""


@dataclass(frozen=True)
class PyradiceReading:
    """Everything read of one frame of a Pyradice table (boards and reserves by 1-based seat)."""

    players: int
    boards: tuple[BoardReading, ...]
    quarry: QuarryReading
    reserves: tuple[ReserveReading, ...]
    problems: tuple[str, ...] = ()

    def board(self, seat: int) -> BoardReading | None:
        return next((b for b in self.boards if b.seat == seat), None)

    def reserve(self, seat: int) -> ReserveReading | None:
        return next((r for r in self.reserves if r.seat == seat), None)

    def to_json(self) -> dict[str, Any]:
        def die(d: DieRead | None) -> Any:
            return None if d is None else {"value": d.value, "colour": d.colour, "face_confidence":
                                           round(d.face_confidence, 3), "colour_confidence":
                                           round(d.colour_confidence, 3), "unsure": d.unsure}
        return {
            "boards": [{"seat": b.seat, "problems": list(b.problems), "slots": [
                {"slot": slot_text(s.slot), "occupied": s.occupied, "occupancy": round(s.occupancy, 3),
                 "die": die(s.die), "unsure": s.unsure, "reason": s.reason,
                 "centre": [round(v, 1) for v in s.centre]} for s in b.slots]} for b in self.boards],
            "quarry": {"problems": list(self.quarry.problems), "positions": [
                {"position": p.text, "state": p.state, "occupancy": round(p.occupancy, 3), "die": die(p.die),
                 "unsure": p.unsure, "reason": p.reason, "centre": [round(v, 1) for v in p.centre]}
                for p in self.quarry.positions]},
            "reserves": [{"seat": r.seat, "occupied": r.occupied, "die": die(r.die), "unsure": r.unsure,
                          "seen": r.seen} for r in self.reserves],
            "problems": list(self.problems),
        }


# --- geometry helpers -----------------------------------------------------------------------------------

#: Pure geometry of a zone view, kept per homography (a still table's registration is the same frame after frame;
#: the small matrix inverses cost a few milliseconds a frame on one core): key -> value, emptied when large.
_GEOMETRY: dict[tuple[Any, ...], Any] = {}


def _kept(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    value = _GEOMETRY.get(key)
    if value is None:
        if len(_GEOMETRY) > 256:
            _GEOMETRY.clear()
        value = _GEOMETRY[key] = make()
    return value


def _to_frame(view: ZoneView, points_px: np.ndarray, ppm: float) -> np.ndarray:
    r = view.zone.rect
    t = _kept(("to_frame", view.fit.image_to_mat.tobytes(), r.x, r.y, r.w, r.h, ppm),
              lambda: np.linalg.inv(zone_transform(view.fit, view.zone, ppm)))
    pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, t), np.float64).reshape(-1, 2)


@dataclass(frozen=True)
class CameraGuess:
    """The camera's centre over a mat, in the mat's millimetres: its foot on the table and its height."""

    foot: tuple[float, float]
    height: float
    from_focal: bool  # the focal length could be found from the homography (a tilted view)


def camera_from_view(view: ZoneView) -> CameraGuess:
    """The camera's centre from a mat's homography, taking the principal point at the frame's centre and square
    pixels (a straight-down view cannot tell the focal length: one of a 60-degree lens is assumed then)."""
    guess: CameraGuess = _kept(("camera", view.fit.image_to_mat.tobytes(), tuple(view.fit.frame_size)),
                               lambda: _camera_from_view(view))
    return guess


def _camera_from_view(view: ZoneView) -> CameraGuess:
    w, h = view.fit.frame_size
    hm = np.linalg.inv(np.array([[1, 0, w / 2], [0, 1, h / 2], [0, 0, 1]])) @ view.fit.mat_to_image
    h1, h2 = hm[:, 0], hm[:, 1]
    focal = None
    den = h1[2] * h2[2]
    if abs(den) > 1e-12:
        f2 = -(h1[0] * h2[0] + h1[1] * h2[1]) / den
        if f2 > 0:
            focal = math.sqrt(f2)
    den2 = h1[2] ** 2 - h2[2] ** 2
    if focal is None and abs(den2) > 1e-12:
        f2 = (h2[0] ** 2 + h2[1] ** 2 - h1[0] ** 2 - h1[1] ** 2) / den2
        if f2 > 0:
            focal = math.sqrt(f2)
    sure = focal is not None and 0.4 * w < focal < 4 * w
    if not sure:
        focal = w / 2 / math.tan(math.radians(30))
    assert focal is not None
    m = np.diag([1 / focal, 1 / focal, 1.0]) @ hm
    s = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
    r1, r2, t = m[:, 0] / s, m[:, 1] / s, m[:, 2] / s
    r3 = np.cross(r1, r2)
    rot = np.column_stack([r1, r2, r3])
    centre = -rot.T @ t
    return CameraGuess((float(centre[0]), float(centre[1])), float(abs(centre[2])), sure)


# --- the board lattice ----------------------------------------------------------------------------------

def _lattice_coords(points: np.ndarray, lattice: BrickLattice) -> np.ndarray:
    """(along, level) coordinates of zone points: along counts steps from slot (1,0) minus the brick offset."""
    a, b = np.array(lattice.step), np.array(lattice.up)
    basis = np.column_stack([a, b])
    rel = points - np.array(lattice.origin)
    coords = np.linalg.solve(basis, rel.T).T  # along + level/2, level
    coords[:, 0] -= coords[:, 1] / 2
    return coords


def _phase_search(centres: np.ndarray, weights: np.ndarray, pitches: np.ndarray,
                  turns: np.ndarray) -> tuple[float, float, float, float, float]:
    """The (score, turn, pitch, level phase, along phase) of the pitch and turn whose brick lattice the dice's
    centres fit best by phase coherence (:func:`fit_lattice`), the first best in turn-then-pitch order."""
    best: tuple[float, float, float, float, float] | None = None
    column = np.asarray(pitches, np.float64)[:, None]
    for theta in turns:
        c, s = math.cos(theta), math.sin(theta)
        # Along the levels and up them, in units of the pitch (up is -y turned).
        u = centres[:, 0] * c + centres[:, 1] * s
        v = centres[:, 0] * s - centres[:, 1] * c
        # Every pitch at once, each pitch's sums and scores as a pitch alone gives them: a row's sum is the sum of a
        # one-pitch array, and abs() of each sum as a scalar (numpy's array abs and a sum over a 2-D axis differ in
        # the last bit, and a single die scores every pitch alike: the first best must stay the first).
        lv = v[None, :] / column
        ph_level = [row.sum() for row in weights * np.exp(2j * np.pi * lv)]
        shift = np.array([np.angle(ph) / (2 * np.pi) for ph in ph_level])
        la = u[None, :] / column - np.round(lv - shift[:, None]) / 2
        ph_along = [row.sum() for row in weights * np.exp(2j * np.pi * la)]
        for k, p in enumerate(pitches):
            score = abs(ph_level[k]) + abs(ph_along[k])
            if best is None or score > best[0]:
                best = (score, float(theta), float(p), float(np.angle(ph_level[k]) / (2 * np.pi)),
                        float(np.angle(ph_along[k]) / (2 * np.pi)))
    assert best is not None
    return best


def fit_lattice(centres: np.ndarray, weights: np.ndarray, prior: BrickLattice,
                keep: BrickLattice | None = None) -> BrickLattice | None:
    """A brick lattice through die centres (zone mm). Pitch and turn by phase coherence over a grid (or near
    the kept lattice), the lattice cell that is slot (1, 0) (see below), then a
    least-squares refinement on the dice that lie on it. None when no lattice explains at least two dice.
    Which cell is slot (1, 0) follows the kept lattice only once it was fitted on KEEP_LATTICE_DICE dice or
    more, else the prior (the printed outline): a kept one fitted on a few faint finds (a pitch of 20.8 for
    17.4, tuning replay 5702) put the next fit a cell off, and every die of a level read, sure, as the one
    below it for the rest of the game."""
    if len(centres) == 0:
        return keep
    if keep is not None and keep.dice >= 6:
        pitches = np.linspace(keep.pitch * 0.97, keep.pitch * 1.03, 7)
        turns = np.radians(np.linspace(keep.angle - 1.5, keep.angle + 1.5, 7))
    else:
        pitches = np.arange(PITCH_RANGE[0], PITCH_RANGE[1] + 1e-6, 0.2)
        turns = np.radians(np.arange(-MAX_TURN, MAX_TURN + 1e-6, 1.0) + prior.angle)
    best = _phase_search(centres, weights, pitches, turns)
    _, theta, p, phase_level, phase_along = best
    c, s = math.cos(theta), math.sin(theta)
    step = np.array([p * c, p * s])
    up = np.array([p * s, -p * c])
    # The lattice point with phase (along, level): slot (1, 0) of some placement of the lattice.
    point = phase_along * step + phase_level * up
    lattice = BrickLattice((float(point[0]), float(point[1])), (float(step[0]), float(step[1])),
                           (float(up[0]), float(up[1])), 0)
    lattice = _snap_origin(lattice, keep if keep is not None and keep.dice >= KEEP_LATTICE_DICE else prior)
    return _refine(lattice, centres, weights)


def _snap_origin(lattice: BrickLattice, ref: BrickLattice) -> BrickLattice:
    """Move the lattice by whole cells (any cell of a brick lattice can be slot (1, 0)) so that the board's
    middle (2.5 steps along and 2.5 levels up from slot (1, 0)) is the nearest to the reference's middle: the
    board lies centred in its outline whatever its pitch, so the middle is known better than a corner."""
    ref_mid = np.array(ref.origin) + 2.5 * np.array(ref.step) + 2.5 * np.array(ref.up)
    offset = 2.5 * np.array(lattice.step) + 2.5 * np.array(lattice.up)
    cells_k, cells_i = range(-12, 13), range(-14, 15)
    # The move (in cells up, dk, and along, di) that puts the middle on the reference's, as real numbers: the
    # nearest whole cells lie within a cell of it, so only those are tried (the same candidates, in the same order,
    # with the same arithmetic as trying all 725: the same one chosen), unless it lies near the edge of the range.
    turn = np.column_stack([np.array(lattice.step) / 2 + np.array(lattice.up), np.array(lattice.step)])
    try:
        dk0, di0 = (float(v) for v in np.linalg.solve(turn, ref_mid - offset - np.array(lattice.origin)))
    except np.linalg.LinAlgError:
        dk0 = di0 = math.nan
    if math.isfinite(dk0) and math.isfinite(di0) and -10 <= dk0 <= 10 and -12 <= di0 <= 12:
        cells_k = range(math.floor(dk0) - 2, math.ceil(dk0) + 3)
        cells_i = range(math.floor(di0) - 2, math.ceil(di0) + 3)
    best = None
    for dk in cells_k:
        for di in cells_i:
            k, i = 1 + dk, di
            along = i + (k - 1) / 2
            o = (lattice.origin[0] + along * lattice.step[0] + (k - 1) * lattice.up[0],
                 lattice.origin[1] + along * lattice.step[1] + (k - 1) * lattice.up[1])
            d = float(np.linalg.norm(np.array(o) + offset - ref_mid))
            if best is None or d < best[0]:
                best = (d, o)
    assert best is not None
    return replace(lattice, origin=best[1])


def _refine(lattice: BrickLattice, centres: np.ndarray, weights: np.ndarray) -> BrickLattice | None:
    """Least squares of origin and step (up follows) on the dice within ON_LATTICE of a slot."""
    for _ in range(2):
        coords = _lattice_coords(centres, lattice)
        level = np.round(coords[:, 1])
        along = np.round(coords[:, 0])
        pred = np.array([lattice.centre((int(k) + 1, int(i))) for i, k in zip(along, level, strict=True)])
        near = np.linalg.norm(pred - centres, axis=1) < ON_LATTICE * lattice.pitch
        on = near & (level >= 0) & (level <= 5) & (along >= 0) & (along <= 5 - level)
        n = int(on.sum())
        if n < 2:
            return lattice if n else None
        a_coef = along[on] + level[on] / 2
        l_coef = level[on]
        pts = centres[on]
        w = np.sqrt(weights[on])
        # A similarity (up is step turned by -90 degrees; unknowns origin and step): the rectified zone is metric
        # and the dice tops are all one height, so only the parallax's slight growth is left, a scale.
        rows, rhs = [], []
        for (x, y), ac, lc, wi in zip(pts, a_coef, l_coef, w, strict=True):
            # x = ox + ac*sx + lc*sy ; y = oy + ac*sy - lc*sx
            rows.append(np.array([1, 0, ac, lc]) * wi)
            rhs.append(x * wi)
            rows.append(np.array([0, 1, -lc, ac]) * wi)
            rhs.append(y * wi)
        sol, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
        origin, step = sol[:2], sol[2:]
        up = np.array([step[1], -step[0]])
        pitch = math.hypot(step[0], step[1])
        if not PITCH_RANGE[0] <= pitch <= PITCH_RANGE[1] or abs(pitch / lattice.pitch - 1) > 0.06:
            return lattice  # a refit that moves this far was pulled by a die on the wrong slot: keep the search's
        lattice = BrickLattice((float(origin[0]), float(origin[1])), (float(step[0]), float(step[1])),
                               (float(up[0]), float(up[1])), n)
    return lattice


# --- the reader -----------------------------------------------------------------------------------------

@dataclass
class _Crops:
    """Dice to read in one zone image: centres and sides in its pixels."""

    image: np.ndarray
    targets: list[DieCandidate] = field(default_factory=list)


@dataclass(frozen=True)
class _Looked:
    """The first look at a batch of targets (:meth:`PyradiceReader._look`)."""

    small: np.ndarray  # the face model's crops
    probabilities: np.ndarray  # its face probabilities, first look
    not_die: np.ndarray
    pips: list[Any]  # PipReading per target
    labs: Sequence[Lab]  # measured body colour per target


class PyradiceReader:
    """Reads Pyradice tables. Load once (models in the constructor), then :meth:`read` per still frame.

    It keeps each board's lattice from frame to frame (refined as dice are added) and the taught palette; the
    quarry's grid is fitted anew in every frame (its prior comes from the mat's homography, which a bumped board
    changes)."""

    def __init__(self, players: int, faces: FaceModel | None = None, detector: Any = None,
                 palette: Palette | None = None, px_per_mm: float = PX_PER_MM, threads: int = 1) -> None:
        self.players = players
        self.boxes = boxes_for(players)
        self.faces = faces if faces is not None else FaceModel(threads=threads)
        if detector is None:
            from vision.detect import DiceDetector

            # A low threshold: here the detector is a second opinion on slots the lattice already names.
            detector = DiceDetector(threads=threads, threshold=DETECT_THRESHOLD)
        self.detector = detector
        self.palette = palette or nominal_palette("pyradice")
        self.ppm = px_per_mm
        self.lattices: dict[int, BrickLattice] = {}
        self.board_labs: dict[int, np.ndarray] = {}
        #: (seat, slot) -> the slot's empty print: a grey patch of the board's rectified zone (PRINT_PX square) and
        #: the zone px of its top-left corner. Taken where the slot is seen empty (see :meth:`_remember_prints`).
        self.prints: dict[tuple[int, Slot], tuple[np.ndarray, tuple[int, int]]] = {}
        #: The quarry grid last fitted (for drawing; each frame fits its own from the mat's homography).
        self.quarry_grid: tuple[np.ndarray, float, float, np.ndarray, float] | None = None
        self._grid: _QuarryGrid | None = None  # the last fitted one itself: where the change gate's patches lie
        #: The zones rectified from the last frame (the change gate's patches and the reading cut the same zone
        #: images: warped once a frame), read-only.
        self._zones_of: np.ndarray | None = None
        self._zones_sample: np.ndarray | None = None
        self._zones: dict[tuple[Any, ...], np.ndarray] = {}

    def _rectify(self, image: np.ndarray, view: ZoneView) -> np.ndarray:
        """``rectify(image, view, ppm)``, warped once per frame and zone (read-only: the places and the reading
        share it)."""
        # The same array with the same sampled pixels (a camera may fill one buffer frame after frame).
        sample = image[::61, ::67]
        if image is not self._zones_of or self._zones_sample is None or not np.array_equal(sample,
                                                                                        self._zones_sample):
            self._zones_of, self._zones_sample, self._zones = image, sample.copy(), {}
        r = view.zone.rect
        key = (view.zone.key, r.x, r.y, r.w, r.h, view.fit.image_to_mat.tobytes())
        zone = self._zones.get(key)
        if zone is None:
            zone = rectify(image, view, self.ppm)
            zone.flags.writeable = False
            self._zones[key] = zone
        return zone

    # --- colours ---------------------------------------------------------------------------------
    def teach(self, samples: Iterable[tuple[str, Lab]]) -> Palette:
        """Teach the table's colours from dice the players name (colour name, measured CIELAB), e.g. one die
        of each colour put on a board and read; the median of each colour's samples is its reference (one die
        named wrong among three does not move it); colours not taught keep their nominal reference."""
        by_name: dict[str, list[Lab]] = {}
        for name, lab in samples:
            by_name.setdefault(name, []).append(lab)
        colours = []
        for name, ref in self.palette.colours:
            labs = by_name.get(name)
            colours.append((name, tuple(float(v) for v in np.median(labs, axis=0)) if labs else ref))
        self.palette = Palette(self.palette.name, tuple((n, (c[0], c[1], c[2])) for n, c in colours),
                               calibrated=True)
        return self.palette

    def _colour(self, lab: Lab) -> tuple[str, float, bool]:
        refs = np.array([ref for _, ref in self.palette.colours], np.float64)
        delta = (refs - np.asarray(lab)) * [0.5, 1.0, 1.0]
        d = np.sqrt((delta**2).sum(axis=1))
        order = np.argsort(d)
        best, second = float(d[order[0]]), float(d[order[1]])
        confidence = float(np.clip((second - best) / (second + best + 1e-6), 0, 1))
        sure = second - best >= COLOUR_MARGIN and best <= COLOUR_FAR
        return self.palette.colours[int(order[0])][0], confidence, sure

    # --- reading dice in a zone image ----------------------------------------------------------------
    def _read(self, crops: _Crops) -> tuple[list[DieRead], np.ndarray]:
        """Face, colour and "not a die" probability of every target."""
        looked = self._look(crops)
        return self._finish(crops, looked), looked.not_die

    def _look(self, crops: _Crops) -> _Looked:
        """The first look at every target: the face model once, the pips, the body colour. What says whether a
        die is there at all (the "not a die" probability, the pips, the colour) is all in it; only the face of a
        doubtful die gets a second look (:meth:`_finish`)."""
        if not crops.targets:
            return _Looked(np.zeros((0, 0, 0, 3), np.uint8), np.zeros((0, len(self.faces.values))), np.zeros(0), [],
                           [])
        image = crops.image
        small = np.stack([crop_die(image, c, self.faces.size) for c in crops.targets])
        probabilities, not_die = self.faces.read(small)
        large = np.stack([crop_die(image, c, PIP_CROP_SIZE) for c in crops.targets])
        pips = count_pips_batch(large)
        labs = measure_bodies(np.stack([p.lab for p in pips]), np.stack([p.pip_mask for p in pips]))
        return _Looked(small, probabilities, np.asarray(not_die, np.float64), pips, labs)

    def _finish(self, crops: _Crops, looked: _Looked, faces_for: Sequence[int] | None = None) -> list[DieRead]:
        """Every target's reading; the face model's second look (:func:`vision.faces.second_look`) only for the
        targets ``faces_for`` names (all when None): a target judged empty whatever its face has no face to read
        (the second look of an empty slot is eight more crops through the model, and it changes no presence:
        the presence measures are the first look's)."""
        if not crops.targets:
            return []
        image = crops.image
        chosen = np.arange(len(crops.targets)) if faces_for is None else np.asarray(sorted(faces_for), np.int64)
        probabilities = looked.probabilities
        if len(chosen):
            def tight(indices: np.ndarray) -> np.ndarray:
                return np.stack([crop_die(image, crops.targets[chosen[i]].scaled(TIGHT_SIDE), self.faces.size)
                                 for i in indices])

            counts = [looked.pips[i].count for i in chosen]
            again = second_look(self.faces, looked.small[chosen], probabilities[chosen], counts, CONFIDENCE_FLOOR,
                                tight)
            probabilities = probabilities.copy()
            probabilities[chosen] = again
        out = []
        for probs, pip, lab in zip(probabilities, looked.pips, looked.labs, strict=True):
            decision = decide(probs, pip, self.faces.values, CONFIDENCE_FLOOR)
            colour, colour_conf, colour_sure = self._colour(lab)
            reason = decision.reason or ("" if colour_sure else "colour unclear")
            out.append(DieRead(decision.value, colour, decision.confidence, colour_conf, lab,
                               decision.unsure or not colour_sure, reason, pip.count))
        return out

    def _find(self, image: np.ndarray) -> list[DieCandidate]:
        return [c for c in self.detector.find(image) if c.side >= 0.5 * DIE_MM * self.ppm]

    def _find_around(self, image: np.ndarray, points: Sequence[tuple[float, float]]) -> list[DieCandidate]:
        """The detector on the part of a zone image around ``points`` (px) only, at the scale it sees the whole
        image at (:meth:`_find`): the same dice found there, for a fraction of the network's work."""
        from vision.detect import DiceDetector

        detector = self.detector
        if not points or not isinstance(detector, DiceDetector):  # a stand-in detector reads the whole zone
            return self._find(image)
        h, w = image.shape[:2]
        reach = WINDOW_REACH_MM * self.ppm
        pts = np.array(points, np.float64)
        x0, y0 = (max(0, int(v)) for v in pts.min(axis=0) - reach)
        x1, y1 = int(min(w, pts[:, 0].max() + reach)), int(min(h, pts[:, 1].max() + reach))
        if x1 - x0 < 8 or y1 - y0 < 8:
            return []
        scale = detector.max_side / max(h, w)
        window = image[y0:y1, x0:x1]
        return [replace(c, centre=(c.centre[0] + x0, c.centre[1] + y0)) for c in detector.find(window, scale)
                if c.side >= 0.5 * DIE_MM * self.ppm]

    # --- boards ----------------------------------------------------------------------------------
    def read_board(self, image: np.ndarray, view: ZoneView, seat: int,
                   known: Mapping[Slot, Die | None] | None = None) -> BoardReading:
        """The 21 slots of a seat's board. ``known``: slots whose die (or None: empty) the game's belief gives
        and the change gate found unchanged since the frame the belief describes: carried, sure, not read.
        The detector and the face model run only when some slot is to be read."""
        ppm = self.ppm
        known = known or {}
        # The zone grown by a margin: die tops a tilted camera sees beyond the board zone's edge are still read.
        view = _grown(view, ZONE_MARGIN_MM)
        kept = self.lattices.get(seat)
        if kept is None:  # a board not read yet (a new table, its geometry forgotten): no print of another is its
            self.prints = {key: v for key, v in self.prints.items() if key[0] != seat}
        if kept is not None and all(s in known for s in SLOTS):
            pts = _to_frame(view, np.array([kept.centre(s) for s in SLOTS]) * ppm, ppm)
            return BoardReading(seat, tuple(_carried_slot(s, known[s], (float(x), float(y)))
                                            for s, (x, y) in zip(SLOTS, pts, strict=True)), kept)
        zone = self._rectify(image, view)
        # A few slots to read on a board whose lattice is known from many dice: the detector looks only around
        # them (at the scale it sees the whole zone at) and the lattice is kept as it is.
        windowed = kept is not None and kept.dice >= KEEP_LATTICE_DICE and len(SLOTS) - len(known) <= WINDOW_PLACES
        if windowed:
            assert kept is not None
            found = self._find_around(zone, [(kept.centre(s)[0] * ppm, kept.centre(s)[1] * ppm)
                                             for s in SLOTS if s not in known])
        else:
            found = self._find(zone)
        wall = view.zone.outlines[0].rect if view.zone.outlines else view.zone.rect
        # The prior: a board of nominal pitch centred in the printed outline (zone mm, zone origin).
        zx, zy = view.zone.rect.x, view.zone.rect.y
        p0 = 17.5
        # Die tops are a die's height above the board: seen moved away from the camera's foot and a little
        # larger (up to half a pitch at a tilted camera's far side), so the prior is moved the same way.
        camera = camera_from_view(view)
        grow = camera.height / max(camera.height - DIE_MM, 100.0)
        foot = np.array(camera.foot) - [zx, zy]
        ground = np.array([wall.centre[0] - zx - 2.5 * p0, wall.centre[1] - zy + 2.5 * p0])
        seen = foot + (ground - foot) * grow
        prior = BrickLattice((float(seen[0]), float(seen[1])), (p0 * grow, 0.0), (0.0, -p0 * grow))
        keep = self.lattices.get(seat)
        # Strong finds fit the lattice (die tops); faint ones are often the board's empty recesses, seen at the
        # board's height, not at the dice tops' (a different parallax): used only when nothing else is found.
        strong = [c for c in found if c.score >= FOUND]
        fit_on = strong if len(strong) >= 2 else found
        centres = np.array([[c.centre[0] / ppm, c.centre[1] / ppm] for c in fit_on]) if fit_on else np.zeros((0, 2))
        weights = np.array([c.score for c in fit_on]) if fit_on else np.zeros(0)
        fitted = keep if windowed else fit_lattice(centres, weights, prior, keep) if len(fit_on) else keep
        lattice = fitted if fitted is not None else prior
        if keep is None or lattice.dice >= keep.dice:
            self.lattices[seat] = lattice
        side = self._die_side(found, lattice) * ppm
        targets = [DieCandidate((x * ppm, y * ppm), side, lattice.angle % 90, 1.0)
                   for x, y in (lattice.centre(s) for s in SLOTS)]
        near = self._nearest(found, targets, 0.35 * lattice.pitch * ppm)
        # A die the detector did not find near its slot: its face is sure only if the pips agree.
        centred = [self._strong_near(found, t, 0.35 * lattice.pitch * ppm) for t in targets]
        wanted = [k for k, s in enumerate(SLOTS) if s not in known]
        crops = _Crops(zone, [targets[k] for k in wanted])
        looked = self._look(crops)
        not_die = np.ones(len(SLOTS))
        not_die[wanted] = looked.not_die
        frame_pts = _to_frame(view, np.array([t.centre for t in targets]), ppm)
        # Where the board is under each slot (the die tops the lattice names, moved back by the parallax): an
        # empty slot shows its printed recess there, whose lines a hand or a box over the board hides.
        grounds = [foot + (np.array(lattice.centre(s)) - foot) / grow for s in SLOTS]
        edges = {k: _edges(crop_die(zone, DieCandidate((grounds[k][0] * ppm, grounds[k][1] * ppm),
                                                       lattice.pitch * ppm / grow, lattice.angle % 90, 1.0), 24))
                 for k in wanted}
        bare = [looked.labs[j] for j, k in enumerate(wanted) if looked.pips[j].count is None and near[k] < FOUND]
        board_lab = self._board_colour(seat, bare)
        # Markers of the mat not seen: something lies over the mat, perhaps over the board too.
        covered = not view.fit.complete_markers
        # Each slot's picture against its own empty print, remembered (a light die on a light board, small in the
        # frame, is found by no other measure surely: tuning 6402's white and gray dice at 18.5 px).
        grey = cv2.cvtColor(zone, cv2.COLOR_BGR2GRAY).astype(np.float32)
        # Only on a board whose lattice was fitted on PRINT_LATTICE_DICE dice or more: on one fitted on none (its
        # slots from the printed outline alone, a cell off at times: tuning 6404, Anna's first die seen at 1,1 for
        # 1,2) the print would make a die sure in the wrong slot, where rule 5 of the adapter asks.
        fitted_on = kept.dice if kept is not None else 0
        unlike = self._unlike_prints(grey, seat, targets, wanted, known) if fitted_on >= PRINT_LATTICE_DICE else {}
        # Whether a die is there is the first look's (pips, detector, colour, "not a die") and the print's: judged
        # before the faces, so that only the slots read occupied get the face model's second look.
        judged, plain = {}, {}
        for j, k in enumerate(wanted):
            votes = (1.0 - float(not_die[k]), near[k], looked.pips[j].count, looked.labs[j], board_lab,
                     EDGES_EMPTY <= edges[k] < EDGES_FULL and not covered)
            plain[k] = _occupancy(*votes)
            judged[k] = _occupancy(*votes, unlike=unlike.get(k), covered=covered)
        judged, by_print = _print_decides(plain, judged)
        some = self._finish(crops, looked, [j for j, k in enumerate(wanted) if judged[k][0]])
        reads_of: dict[int, DieRead] = {}
        for k, r in zip(wanted, some, strict=True):
            c = centred[k]
            reads_of[k] = r if c is not None or r.pips == r.value or r.unsure or k in by_print else \
                replace(r, unsure=True, reason="found by no measure but the face model")
        slots = []
        for k, slot in enumerate(SLOTS):
            if slot in known:
                slots.append(_carried_slot(slot, known[slot], (float(frame_pts[k, 0]), float(frame_pts[k, 1]))))
                continue
            read = reads_of[k]
            occupied, occupancy, sure_occ = judged[k]
            reason = "" if sure_occ else "cannot tell whether a die is there"
            unsure = not sure_occ or (occupied and read.unsure)
            if occupied and read.unsure and not reason:
                reason = read.reason
            slots.append(SlotReading(slot, occupied, occupancy, read if occupied else None, unsure, reason,
                                     (float(frame_pts[k, 0]), float(frame_pts[k, 1]))))
        slots = _physics(slots)
        if covered:
            # Part of the mat is covered (a hand, a box): what lies under it may be hidden in part too (a slot
            # carried unchanged is not: its own picture is as it was).
            slots = [s if s.unsure or s.slot in known else
                     replace(s, unsure=True, reason="something covers part of the mat") for s in slots]
        self._remember_prints(grey, seat, targets, slots, known,
                              {k for k in wanted if EDGES_EMPTY <= edges[k] < EDGES_FULL and not covered})
        held = sum(1 for s in slots if s.occupied and not s.unsure)
        if fitted is not keep and self.lattices.get(seat) is lattice and lattice.dice > held:
            # A lattice counts as fitted on no more dice than are read on it: an empty board's printed recesses
            # are found strongly at a steep view, and a lattice fitted on 17 of them (at the board's height, not
            # the dice tops': a parallax of up to half a pitch) was kept for a whole game and read each die in
            # the slot beside its own (tuning replay 5703). The dice, once placed, refit it. Only a lattice fitted
            # now: a kept one is not worn down by the dice read in doubt in one picture (it would be recut, and
            # read whole, every time).
            self.lattices[seat] = replace(lattice, dice=held)
        problems = tuple(f"{s.text} on player {seat}'s board: {s.reason}" for s in slots if s.unsure)
        if not view.complete:
            problems = (*problems, f"player {seat}'s board is not wholly seen")
        return BoardReading(seat, tuple(slots), lattice, problems)

    def _board_colour(self, seat: int, bare: Sequence[Lab]) -> np.ndarray | None:
        """The board's own colour: the median of the slots that look empty to the classical measures (no pips,
        no strong find) in this frame when there are three or more, else the one kept for the seat; kept from a
        frame where six or more agree closely (a hand over the board, or dice the pip count misses, do not)."""
        if len(bare) >= 3:
            labs = np.array(bare)
            median = np.median(labs, axis=0)
            off = np.sqrt((((labs - median) * [0.5, 1.0, 1.0]) ** 2).sum(axis=1))
            if len(bare) >= 6 and np.median(off) < BOARD_NEAR / 2 and np.mean(off < BOARD_NEAR) >= 0.8:
                self.board_labs[seat] = median
            return median
        return self.board_labs.get(seat)

    def _unlike_prints(self, grey: np.ndarray, seat: int, targets: Sequence[DieCandidate], wanted: Sequence[int],
                       known: Mapping[Slot, Die | None]) -> dict[int, float]:
        """Per slot to read (index into SLOTS) whose empty print is remembered and still covers its top: how unlike
        it the slot's top looks now (:func:`_unlike_print`), after the board's common change of light (the median
        over the slots carried empty, when four or more)."""
        tops: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for k, slot in enumerate(SLOTS):
            kept = self.prints.get((seat, slot))
            if kept is None or (k not in wanted and known.get(slot, 0) is not None):
                continue
            pair = _top_and_print(grey, kept, targets[k].centre)
            if pair is not None:
                tops[k] = pair
        ratios = [float(now.mean()) / max(float(ref[PRINT_SHIFT:-PRINT_SHIFT, PRINT_SHIFT:-PRINT_SHIFT].mean()), 8.0)
                  for k, (now, ref) in tops.items() if k not in wanted]
        gain = float(np.clip(np.median(ratios), 0.5, 2.0)) if len(ratios) >= 4 else 1.0
        return {k: _unlike_print(*tops[k], gain) for k in wanted if k in tops}

    def _remember_prints(self, grey: np.ndarray, seat: int, targets: Sequence[DieCandidate],
                         slots: Sequence[SlotReading], known: Mapping[Slot, Die | None], bare: set[int]) -> None:
        """Remember the empty print of every slot seen empty: carried empty (the game has none there and its
        picture did not change since the game agreed), read empty and sure, or, the first time this board is read
        (the game's start: every board begins empty), read empty with the printed recess seen and the mat whole.
        A print taken where a die lay unseen would only keep that die from being found by it; a print is never
        taken under a hand (the recess's lines and every marker seen)."""
        first = not any(key[0] == seat for key in self.prints)
        for k, s in enumerate(SLOTS):
            reading = slots[k]
            seen_empty = not reading.occupied and (not reading.unsure or (first and k in bare))
            if not (known.get(s, 0) is None or seen_empty):
                continue
            cx, cy = (round(v) for v in targets[k].centre)
            x0, y0 = cx - PRINT_PX // 2, cy - PRINT_PX // 2
            if x0 >= 0 and y0 >= 0 and x0 + PRINT_PX <= grey.shape[1] and y0 + PRINT_PX <= grey.shape[0]:
                self.prints[(seat, s)] = (grey[y0:y0 + PRINT_PX, x0:x0 + PRINT_PX].copy(), (x0, y0))

    def _die_side(self, found: Sequence[DieCandidate], lattice: BrickLattice) -> float:
        """The die tops' side in mm: the detector's median, kept within reason of the lattice's pitch."""
        side = float(np.median([c.side for c in found])) / self.ppm if found else DIE_MM
        return float(np.clip(side, 0.8 * DIE_MM, min(1.15 * DIE_MM, lattice.pitch)))

    @staticmethod
    def _strong_near(found: Sequence[DieCandidate], target: DieCandidate, reach: float) -> DieCandidate | None:
        near = [c for c in found if c.score >= FOUND and math.dist(c.centre, target.centre) <= reach]
        return min(near, key=lambda c: math.dist(c.centre, target.centre)) if near else None

    @staticmethod
    def _nearest(found: Sequence[DieCandidate], targets: Sequence[DieCandidate], reach: float) -> list[float]:
        """Per target: the best detector score within ``reach`` pixels (0 when none)."""
        out = []
        for t in targets:
            best = 0.0
            for c in found:
                if math.dist(c.centre, t.centre) <= reach:
                    best = max(best, c.score)
            out.append(best)
        return out

    # --- the quarry --------------------------------------------------------------------------------
    def read_quarry(self, image: np.ndarray, view: ZoneView,
                    prior: Mapping[Position, Die | None] | Iterable[Position] | None = None,
                    known: Mapping[Position, Die | str] | None = None) -> QuarryReading:
        """The quarry, judged from where the game believes its dice are (``prior``: positions, or positions with
        their dice, None for a die there whose face the game has not seen yet; a full quarry when not given).
        Where the game knows a die, a top that does not look like it is never sure: a die taken, swapped (skill
        A4) or misread are told apart by the turn, not by one look. A die the game knows is there but not its
        face (a table set up by its players) is sure when its face reads sure and it looks like a die.
        ``known``: positions the change gate found unchanged, with what the game's belief has there (a die,
        COVERED or EMPTY): carried, sure, not read; with every position known and a grid kept, nothing runs."""
        ppm = self.ppm
        geo = geometry(self.boxes)
        carry = known or {}
        if self._grid is not None and all(p in carry for p in geo.positions):
            grid0 = self._grid
            pts = _to_frame(view, np.array([grid0.point(p) for p in geo.positions]) * ppm, ppm)
            return QuarryReading(tuple(_carried_position(p, carry[p], (float(x), float(y)))
                                       for p, (x, y) in zip(geo.positions, pts, strict=True)))
        believed = set(geo.positions if prior is None else prior)
        expected: Mapping[Position, Die] = {p: d for p, d in prior.items() if d is not None} \
            if isinstance(prior, Mapping) else {}
        # There for certain, face not seen yet: the game's belief says so (only a known die can be taken).
        unseen = {p for p, d in prior.items() if d is None} if isinstance(prior, Mapping) else set()
        zone = self._rectify(image, view)
        to_read = [p for p in geo.positions if p not in carry]
        # A few positions to read and a grid kept: the detector looks only around them, the grid is kept.
        kept_grid = self._grid if self._grid is not None and len(to_read) <= 2 * WINDOW_PLACES else None
        if kept_grid is not None:
            found = self._find_around(zone, [(kept_grid.point(p)[0] * ppm, kept_grid.point(p)[1] * ppm)
                                             for p in to_read])
        else:
            found = self._find(zone)
        zx, zy = view.zone.rect.x, view.zone.rect.y
        camera = camera_from_view(view)
        foot0 = np.array([camera.foot[0] - zx, camera.foot[1] - zy])
        foot_rect = view.zone.outlines[0].rect if view.zone.outlines else view.zone.rect
        centre0 = np.array([foot_rect.centre[0] - zx, foot_rect.centre[1] - zy])
        grid = _QuarryGrid(self.boxes, centre0, DIE_MM * 1.02, 0.0, foot0, DIE_MM / max(camera.height, 200.0))
        centres = np.array([[c.centre[0] / ppm, c.centre[1] / ppm] for c in found]) if found else np.zeros((0, 2))
        # Which positions can show their top: the believed ones no believed die covers.
        top = [p for p in geo.positions if p in believed and not any(q in believed for q in geo.covers[p])]
        if kept_grid is not None:
            grid = kept_grid
        else:
            grid = grid.fit(centres, top, foot0, DIE_MM / max(camera.height, 200.0), camera.from_focal)
        self.quarry_grid = grid.params()
        self._grid = grid
        frame_at = dict(zip(geo.positions, _to_frame(view, np.array([grid.point(p) for p in geo.positions]) * ppm,
                                                      ppm), strict=True))
        # Top down: a die whose top is covered by a die seen above is present; an uncovered one is looked at.
        order = sorted(geo.positions, key=lambda p: -p[0])
        present: dict[Position, bool] = {}
        readings: dict[Position, PositionReading] = {}
        targets: list[DieCandidate] = []
        look: list[Position] = []
        side = DIE_MM * ppm
        # First pass decides presence layer by layer; dice are read in one batch per layer.
        for layer in (2, 1, 0):
            layer_pos = [p for p in order if p[0] == layer]
            look = []
            targets = []
            for pos in layer_pos:
                if pos in carry:
                    fp = frame_at[pos]
                    readings[pos] = _carried_position(pos, carry[pos], (float(fp[0]), float(fp[1])))
                    present[pos] = readings[pos].present
                    continue
                if pos not in believed:
                    present[pos] = False
                    continue
                above = [q for q in geo.covers[pos] if present.get(q, False)]
                # A die over it that is surely there (read sure, or itself under a die: one die is taken a turn).
                if above and any(not readings[q].unsure or readings[q].state == COVERED for q in above):
                    present[pos] = True
                    fp = frame_at[pos]
                    readings[pos] = PositionReading(pos, COVERED, 1.0, None, False, "covered",
                                                    (float(fp[0]), float(fp[1])))
                    continue
                look.append(pos)
                c = grid.point(pos)
                targets.append(DieCandidate((c[0] * ppm, c[1] * ppm), side * grid.scale(layer), grid.angle % 90, 1.0))
            if not look:
                continue
            crops = _Crops(zone, targets)
            looked = self._look(crops)
            not_die = looked.not_die
            near = self._nearest(found, targets, 0.3 * DIE_MM * ppm)
            # A position judged surely empty by the first look alone (no die the game knows or has there, no
            # doubtful die over it, nothing found, pips none, "not a die" clear) keeps no reading: its face
            # gets no second look.
            reads = self._finish(crops, looked, [
                k for k, pos in enumerate(look)
                if not (_surely_bare(1.0 - float(not_die[k]), near[k], looked.pips[k].count)
                        and pos not in expected and pos not in unseen
                        and not any(present.get(q, False) for q in geo.covers[pos]))])
            frame_pts = _to_frame(view, np.array([t.centre for t in targets]), ppm)
            for k, pos in enumerate(look):
                p_die = 1.0 - float(not_die[k])
                det = near[k]
                had = expected.get(pos)
                # A die under it that looks the same (colour and face) is seen where it was once it is gone. A die
                # read sure as the game's with weak finds is taken as there only with none like it (nor one not
                # yet seen) anywhere under its footprint (seen through the gaps at a slant).
                twin = had is not None and any(expected.get(q) == had for q in geo.supports[pos])
                occ, occupancy, sure = _quarry_presence(p_die, det, reads[k], had, there=pos in unseen,
                                                        nothing_like_under=had is not None and not any(
                                                            expected.get(q) == had or q in unseen
                                                            for q in _under(geo, pos)))
                sure = sure and not twin
                read = reads[k]
                # Only doubtful dice lie over it: it may be covered still, or uncovered and looked at now.
                under_doubt = any(present.get(q, False) for q in geo.covers[pos])
                if under_doubt:
                    occ, sure = True, False
                present[pos] = occ or not sure  # an unsure position is kept (a die is not taken on a guess)
                unsure = not sure
                if sure:
                    reason = ""
                elif under_doubt:
                    reason = "a die over it may be gone"
                elif twin and occ and read.die == had:
                    reason = f"the die under it is a {had} too"
                elif had is not None and occ and read.die == had:
                    reason = read.reason or "hard to read"
                elif had is not None:
                    reason = f"looks like {read.die}, the game has {had} there" if occ else \
                        f"looks empty, the game has {had} there"
                else:
                    reason = read.reason if occ and read.unsure else "cannot tell whether a die is there"
                state = COVERED if under_doubt else PRESENT if present[pos] else EMPTY
                readings[pos] = PositionReading(pos, state, occupancy, read if present[pos] else None, unsure, reason,
                                                (float(frame_pts[k, 0]), float(frame_pts[k, 1])))
        out = tuple(readings.get(p) or PositionReading(p, EMPTY, 0.0, None, False, "not in the quarry",
                                                        (0.0, 0.0)) for p in geo.positions)
        problems = tuple(f"quarry {p.text}: {p.reason}" for p in out if p.unsure)
        if not view.complete:
            problems = (*problems, "the quarry is not wholly seen")
        return QuarryReading(out, problems)

    # --- the reserve --------------------------------------------------------------------------------
    def read_reserve(self, image: np.ndarray, view: ZoneView, seat: int) -> ReserveReading:
        ppm = self.ppm
        cx, cy = self._reserve_point(view)
        view = _grown(view, ZONE_MARGIN_MM)  # a die off the spot, seen at a slant, may reach past the zone
        zone = self._rectify(image, view)
        h, w = zone.shape[:2]
        step = 4.0 * ppm
        targets = [DieCandidate((float(np.clip(cx + dx * step, 0, w)), float(np.clip(cy + dy * step, 0, h))),
                                DIE_MM * ppm, a, 1.0) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for a in (0.0,)]
        # Only finds near the spot: the grown zone reaches the board beside it.
        found = [c for c in self._find(zone) if math.dist(c.centre, (cx, cy)) <= 10.0 * ppm]
        if found:
            best = max(found, key=lambda c: c.score)
            targets.append(best)
        # Only the likeliest die of the targets is read whole (second look, pips, colour), and only when a die is
        # there: the others only say how likely one is, and reading all of them whole cost about 80 ms a reserve
        # on one core.
        _, not_die = self.faces.read(np.stack([crop_die(zone, c, self.faces.size) for c in targets]))
        k = int(np.argmin(not_die))
        p_die = 1.0 - float(not_die[k])
        det = max((c.score for c in found), default=0.0)
        occupied = p_die >= 0.5
        sure = (p_die >= 1 - DIE_BELOW and det > FOUND) or (p_die <= 1 - EMPTY_ABOVE and det == 0.0)
        read = self._read(_Crops(zone, [targets[k]]))[0][0] if occupied else None
        unsure = not sure or (read is not None and read.unsure)
        reason = "" if sure else "cannot tell whether a die is there"
        if read is not None and read.unsure and not reason:
            reason = read.reason
        return ReserveReading(seat, occupied, read, unsure, True, reason)

    def _reserve_point(self, view: ZoneView) -> tuple[float, float]:
        """Where a die on the reserve spot shows its top: pixels of the zone grown by ZONE_MARGIN_MM."""
        spot = np.array(view.zone.rect.centre)
        camera = camera_from_view(view)
        lift = DIE_MM / max(camera.height - DIE_MM, 100.0)
        seen_at = spot + (spot - np.array(camera.foot)) * lift
        return ((seen_at[0] - view.zone.rect.x + ZONE_MARGIN_MM) * self.ppm,
                (seen_at[1] - view.zone.rect.y + ZONE_MARGIN_MM) * self.ppm)

    # --- the change gate's places ---------------------------------------------------------------------
    def places(self, image: np.ndarray, reg: Registration) -> dict[Place, tuple[np.ndarray, tuple[float, float]]]:
        """Every place whose geometry is known, as the change gate (:class:`vision.change.ChangeGate`) compares
        it: key -> (patch of the rectified zone, where it was cut in the zone's pixels). A slot's and a quarry
        position's patch is the middle of a die's top there (the board's kept lattice, the quarry's last fitted
        grid: a board not read yet has none); a reserve's is its spot and around it."""
        out: dict[Place, tuple[np.ndarray, tuple[float, float]]] = {}
        ppm = self.ppm
        for seat in range(1, self.players + 1):
            lattice = self.lattices.get(seat)
            view = reg.zone(f"board-{seat}")
            if lattice is not None and view is not None:
                zone = self._rectify(image, _grown(view, ZONE_MARGIN_MM))
                for slot in SLOTS:
                    x, y = lattice.centre(slot)
                    out[("slot", seat, slot)] = (_patch(zone, x * ppm, y * ppm, PATCH_PX), (x * ppm, y * ppm))
            rview = reg.zone(f"reserve-{seat}")
            if rview is not None:
                zone = self._rectify(image, _grown(rview, ZONE_MARGIN_MM))
                x, y = self._reserve_point(rview)
                out[("reserve", seat)] = (_patch(zone, x, y, RESERVE_PATCH_PX), (x, y))
        qview = reg.zone("quarry")
        if self._grid is not None and qview is not None:
            zone = self._rectify(image, qview)
            for pos in geometry(self.boxes).positions:
                x, y = self._grid.point(pos)
                out[("quarry", pos)] = (_patch(zone, x * ppm, y * ppm, PATCH_PX), (x * ppm, y * ppm))
        return out

    def geometry(self) -> tuple[Any, ...]:
        """What :meth:`places` cuts at (the kept lattices and the quarry grid): equal while the places stay put."""
        return (tuple(self.lattices.get(seat) for seat in range(1, self.players + 1)), id(self._grid))

    def forget_geometry(self) -> None:
        """A new table or a moved one: the boards' lattices, their colour and the quarry's grid are found anew."""
        self.lattices.clear()
        self.board_labs.clear()
        self.prints.clear()
        self._grid = None
        self.quarry_grid = None

    # --- a whole frame ------------------------------------------------------------------------------
    def read(self, image: np.ndarray, reg: Registration,
             quarry: Mapping[Position, Die | None] | Iterable[Position] | None = None,
             known: Mapping[Place, Any] | None = None) -> PyradiceReading:
        """Everything on the table; ``quarry`` is where the game believes quarry dice are, with their dice
        where it knows them (a full quarry when not given). ``known``: places (see :data:`Place`) the change gate
        found unchanged, with the game's belief there (a die; None: empty; a quarry position COVERED or EMPTY):
        carried sure, not read; a zone all of whose places are known costs no model run."""
        known = known or {}
        boards, reserves = [], []
        problems = list(reg.problems)
        for seat in range(1, self.players + 1):
            view = reg.zone(f"board-{seat}")
            if view is None:
                boards.append(BoardReading(seat, problems=(f"player {seat}'s board is not located",)))
            else:
                boards.append(self.read_board(image, view, seat, {
                    s: known[("slot", seat, s)] for s in SLOTS if ("slot", seat, s) in known}))
            rview = reg.zone(f"reserve-{seat}")
            if rview is None:
                reserves.append(ReserveReading(seat, False, None, True, False, "not located"))
            elif ("reserve", seat) in known:
                held = known[("reserve", seat)]
                reserves.append(ReserveReading(seat, held is not None, None if held is None else _carried_die(held),
                                               False, True, UNCHANGED))
            else:
                reserves.append(self.read_reserve(image, rview, seat))
        qview = reg.zone("quarry")
        if qview is None:
            quarry_reading = QuarryReading(problems=("the quarry is not located",))
        else:
            quarry_reading = self.read_quarry(image, qview, quarry, {
                k[1]: v for k, v in known.items() if k[0] == "quarry"})
        return PyradiceReading(self.players, tuple(boards), quarry_reading, tuple(reserves), tuple(problems))


def _occupancy(p_die: float, found: float, pips: int | None, lab: Any, bare: np.ndarray | None,
               board_seen: bool = True, unlike: float | None = None, covered: bool = False) -> tuple[bool, float, bool]:
    """Is a die there, the share of the votes that say so, and whether that is sure (two or more votes and none
    against). Each measure votes or abstains: the classical pip count (pips found: a die; it abstains on many
    dice, so none found is no vote),
    the detector's find (a strong find: a die; none or a faint one: empty), the distance from the board's own
    colour where it is known (far: a die; near: empty), and the face model's "not a die" (a clear no: empty;
    its yes is no vote, as it takes an empty recess of the board for a die too). A sure empty also needs the
    board seen there (``board_seen``: its printed recess's lines, and every marker of the mat): a hand the
    colour of the board would pass every other measure.

    ``unlike``: how unlike the slot's remembered empty print its top looks (:func:`_unlike_print`; None: no print).
    At UNLIKE_EMPTY or more it says "a die": where the other measures cannot tell, a die is there, sure unless the
    face model clearly sees none or the mat is covered (``covered``: a hand); it never overrules their sure
    reading, and against a sure empty it leaves the slot in doubt. Below it, it is no vote (a die unseen when the
    print was taken would look like it)."""
    die_votes = empty_votes = 0
    if pips is not None:
        die_votes += 1
    if found >= FOUND:
        die_votes += 1
    elif found < FAINT:
        empty_votes += 1
    if bare is not None:
        far = math.sqrt(float(np.sum(((np.asarray(lab) - bare) * [0.5, 1.0, 1.0]) ** 2)))
        if far > BOARD_FAR:
            die_votes += 1
        elif far < BOARD_NEAR:
            empty_votes += 1
    if p_die <= 1 - EMPTY_ABOVE:
        empty_votes += 1
    occupied = die_votes > empty_votes
    share = die_votes / max(die_votes + empty_votes, 1)
    sure = (die_votes >= 2 and not empty_votes) if occupied else (empty_votes >= 2 and not die_votes and board_seen)
    if unlike is None or unlike < UNLIKE_EMPTY or (occupied and sure):
        return occupied, share, sure
    share = (die_votes + 1) / (die_votes + empty_votes + 1)
    if sure:
        return False, share, False  # the others are sure it is empty: never overruled, but no longer sure
    return True, share, not covered and p_die > 1 - EMPTY_ABOVE


def _print_decides(plain: Mapping[int, tuple[bool, float, bool]], judged: Mapping[int, tuple[bool, float, bool]]
                   ) -> tuple[dict[int, tuple[bool, float, bool]], list[int]]:
    """Each slot's presence with its print's vote (``judged``) against the other measures alone (``plain``), and the
    slots the print made a sure die. More than UNLIKE_MOST of them on one board at once: the board moved on its mat
    or the light changed (a turn places one die), and the print decides none of them."""
    by_print = [k for k, v in judged.items() if v[0] and v[2] and not (plain[k][0] and plain[k][2])]
    if len(by_print) > UNLIKE_MOST:
        return {**judged, **{k: plain[k] for k in by_print}}, []
    return dict(judged), by_print


def _top_and_print(grey: np.ndarray, kept: tuple[np.ndarray, tuple[int, int]],
                   centre: tuple[float, float]) -> tuple[np.ndarray, np.ndarray] | None:
    """A slot's top now (TOP_PX square at ``centre``, zone px) and the part of its remembered print around it
    (PRINT_SHIFT wider each way); None when the print does not reach it (the lattice was refitted farther) or the
    top lies beyond the zone."""
    patch, (x0, y0) = kept
    tx, ty = round(centre[0]) - TOP_PX // 2, round(centre[1]) - TOP_PX // 2
    rx, ry = tx - PRINT_SHIFT - x0, ty - PRINT_SHIFT - y0
    wide = TOP_PX + 2 * PRINT_SHIFT
    if (rx < 0 or ry < 0 or rx + wide > patch.shape[1] or ry + wide > patch.shape[0] or tx < 0 or ty < 0
            or tx + TOP_PX > grey.shape[1] or ty + TOP_PX > grey.shape[0]):
        return None
    return grey[ty:ty + TOP_PX, tx:tx + TOP_PX], patch[ry:ry + wide, rx:rx + wide]


def _unlike_print(top: np.ndarray, ref: np.ndarray, gain: float = 1.0) -> float:
    """How unlike a slot's empty print its top looks: at the shift that matches them best (normalised correlation,
    within PRINT_SHIFT px), the mean grey difference of each of the top's three by three parts, the least of them.
    A die's top changes every part (its body, pips and shading for the recess's print); a neighbour's side or
    shadow, or the print a few pixels off, leaves some part as it was."""
    ref = ref * np.float32(gain)
    match = np.nan_to_num(cv2.matchTemplate(ref, top, cv2.TM_CCOEFF_NORMED), nan=-1.0)
    dy, dx = np.unravel_index(int(np.argmax(match)), match.shape)
    diff = np.abs(top - ref[dy:dy + TOP_PX, dx:dx + TOP_PX])
    third = TOP_PX // 3
    return min(float(diff[i * third:(i + 1) * third, j * third:(j + 1) * third].mean())
               for i in range(3) for j in range(3))


def _edges(crop: np.ndarray) -> float:
    """Mean gradient magnitude of a crop's grey levels over its spread: printed lines and pips give edges, a hand
    over the board hardly any."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    return float(np.mean(np.hypot(gx, gy)))


def _quarry_occupied(p_die: float, found: float, pips: int | None) -> bool:
    """Whether the first look's measures say a die's top is at a quarry position (:func:`_quarry_presence`): a
    strong find, pips counted, or a faint find the face model takes for a die."""
    return found >= FOUND or pips is not None or (found >= FAINT and p_die >= 0.5)


def _surely_bare(p_die: float, found: float, pips: int | None) -> bool:
    """A quarry position where the game has no die, read empty and sure by :func:`_quarry_presence` whatever its
    face: nothing found, no pips, the face model's "not a die" clear."""
    return not _quarry_occupied(p_die, found, pips) and found < FAINT and p_die <= 1 - EMPTY_ABOVE


def _under(geo: Any, pos: Position) -> set[Position]:
    """Every quarry position under ``pos``'s footprint: the dice it rests on, theirs, and so on."""
    out: set[Position] = set()
    todo = list(geo.supports[pos])
    while todo:
        q = todo.pop()
        if q not in out:
            out.add(q)
            todo.extend(geo.supports[q])
    return out


#: A die the game knows at a quarry position, read there sure as exactly that die by the face model (its face and
#: colour sure, "a die" at this probability or more), with no die like it anywhere under it: it is there, though
#: the detector found it weakly and no pips were counted (the top layer's dice, nearest the camera, often are).
KNOWN_FACE_THERE = 1 - DIE_BELOW


def _quarry_presence(p_die: float, found: float, read: DieRead, known: Die | None,
                     there: bool = False, nothing_like_under: bool = False) -> tuple[bool, float, bool]:
    """Is a die's top at a quarry position, the share of the measures that say so, and is that sure?

    From above, a die gone from layer 1 or 2 leaves the corners of the dice under it (or, seen at a slant,
    a lower die's top almost where it was), which the face model and the detector may take for a die; and
    the detector misses some tops among touching dice. So where the game knows the die, only a top that
    reads sure as exactly that die is sure; anything else is left to the turn to explain. Where it does not,
    a sure die needs every measure (a strong find, pips counted, the face model), and a sure empty none.
    ``nothing_like_under``: no die like the known one lies under the position, nor one whose face the game has
    not seen (see :data:`KNOWN_FACE_THERE`).
    ``there``: the game knows a die lies there but not its face (a table set up by its players; such a die
    cannot have been taken, only known dice can): its face read sure, the face model taking it for a die and
    the detector or the pips seeing it (the top layer's dice, nearest the camera, are often found weakly)."""
    occupied = _quarry_occupied(p_die, found, read.pips)
    share = (min(found / FOUND, 1.0) + (read.pips is not None) + p_die) / 3
    if known is not None:
        if (not occupied and nothing_like_under and not read.unsure and read.die == known
                and p_die >= KNOWN_FACE_THERE):
            # Where a die was taken the face model may read the top of a die under it sure (tuning 6001: a gray 4
            # where an orange 2 was taken), never the die taken itself unless one like it lies under it.
            return True, share, True
        return occupied, share, occupied and not read.unsure and read.die == known
    if there:
        return True, share, not read.unsure and p_die >= 1 - DIE_BELOW and (found >= FAINT or read.pips is not None)
    if occupied:
        return True, share, found >= FOUND and read.pips is not None and p_die >= 1 - DIE_BELOW and not read.unsure
    return False, share, found < FAINT and p_die <= 1 - EMPTY_ABOVE


def _patch(zone: np.ndarray, x: float, y: float, side: int) -> np.ndarray:
    """A side x side patch of a zone image centred on (x, y) px (black beyond the zone's edge)."""
    m = np.array([[1, 0, side / 2 - x], [0, 1, side / 2 - y]], np.float32)
    return cv2.warpAffine(zone, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def _grown(view: ZoneView, margin: float) -> ZoneView:
    """The zone view with its rectangle grown by ``margin`` mm on every side (same mat, same fit)."""
    r = view.zone.rect
    zone = replace(view.zone, rect=Rect(r.x - margin, r.y - margin, r.w + 2 * margin, r.h + 2 * margin))
    return replace(view, zone=zone)


def _physics(slots: list[SlotReading]) -> list[SlotReading]:
    """A die read over an empty slot cannot be: both are marked unsure (one of them is misread)."""
    occupied = {s.slot for s in slots if s.occupied}
    out = []
    for s in slots:
        if s.occupied and any(t not in occupied for t in SUPPORTS[s.slot]):
            s = replace(s, unsure=True, reason=s.reason or "a die read over an empty slot")
        elif not s.occupied and any(s.slot in SUPPORTS[t] for t in occupied):
            s = replace(s, unsure=True, reason=s.reason or "read empty under a die")
        out.append(s)
    return out


def _carried_die(die: Die) -> DieRead:
    """A die the game's belief gives at a place whose picture did not change: sure, not read."""
    return DieRead(die.value, die.colour or "", 1.0, 1.0, (0.0, 0.0, 0.0), False, UNCHANGED)


def _carried_position(pos: Position, value: Die | str, centre: tuple[float, float]) -> PositionReading:
    if isinstance(value, Die):
        return PositionReading(pos, PRESENT, 1.0, _carried_die(value), False, UNCHANGED, centre)
    state = COVERED if value == COVERED else EMPTY
    return PositionReading(pos, state, 1.0 if state == COVERED else 0.0, None, False, UNCHANGED, centre)


def _carried_slot(slot: Slot, die: Die | None, centre: tuple[float, float]) -> SlotReading:
    return SlotReading(slot, die is not None, 1.0 if die is not None else 0.0,
                       None if die is None else _carried_die(die), False, UNCHANGED, centre)


class _QuarryGrid:
    """The quarry's grid in zone mm with parallax: position (L, r, c) lies straight over
    ``centre + R(angle) ((c + L/2 - (cols-1)/2) pitch, (r + L/2 - (rows-1)/2) pitch)`` and its top, L + 1 die
    heights up, is seen at ``foot + (ground - foot) / (1 - (L + 1) lam)`` on the table plane, ``lam`` being a
    die's height over the camera's. Fitted to die tops by linear least squares for a few values of ``lam``."""

    def __init__(self, boxes: int, centre: np.ndarray, pitch: float, angle: float, foot: np.ndarray,
                 lam: float) -> None:
        self.boxes = boxes
        self.centre = np.asarray(centre, np.float64)
        self.pitch = float(pitch)
        self.angle_rad = float(angle)
        self.foot = np.asarray(foot, np.float64)
        self.lam = float(lam)
        self.rows, self.cols = LAYOUTS[boxes][0]
        #: Where the grid is expected: centre (x, y) and pitch vector (x, y), zone mm.
        self.prior = (float(self.centre[0]), float(self.centre[1]), self.pitch * math.cos(self.angle_rad),
                      self.pitch * math.sin(self.angle_rad))

    @property
    def angle(self) -> float:
        return math.degrees(self.angle_rad)

    def params(self) -> tuple[np.ndarray, float, float, np.ndarray, float]:
        return (self.centre, self.pitch, self.angle_rad, self.foot, self.lam)

    def scale(self, layer: int) -> float:
        return 1.0 / (1.0 - (layer + 1) * self.lam)

    def _coef(self, pos: Position) -> tuple[float, float]:
        layer, r, c = pos
        return (c + layer / 2 - (self.cols - 1) / 2, r + layer / 2 - (self.rows - 1) / 2)

    def point(self, pos: Position) -> tuple[float, float]:
        ax, ay = self._coef(pos)
        ca, sa = math.cos(self.angle_rad), math.sin(self.angle_rad)
        ground = self.centre + self.pitch * np.array([ca * ax - sa * ay, sa * ax + ca * ay])
        m = self.scale(pos[0])
        seen = self.foot + (ground - self.foot) * m
        return (float(seen[0]), float(seen[1]))

    def fit(self, centres: np.ndarray, candidates: Sequence[Position], foot0: np.ndarray, lam0: float,
            tilted: bool) -> _QuarryGrid:
        """Match die tops to the positions that may show theirs, and refit (three rounds)."""
        grid = self
        if len(centres) < 2 or not candidates:
            return grid
        for reach in (0.4, 0.3, 0.3):
            pts = np.array([grid.point(p) for p in candidates])
            pairs = []
            for k, c in enumerate(centres):
                d = np.linalg.norm(pts - c, axis=1)
                j = int(np.argmin(d))
                if d[j] < reach * grid.pitch:
                    pairs.append((k, candidates[j]))
            if len(pairs) < 3:
                return grid
            best: tuple[float, _QuarryGrid] | None = None
            lams = [lam0 * f for f in (0.95, 1.0, 1.05)] if tilted else [lam0 * f for f in (0.6, 0.8, 1.0, 1.25, 1.5)]
            for lam in lams:
                fitted = grid._solve(centres, pairs, lam, foot0)
                if fitted is None:
                    continue
                res = sum(float(np.linalg.norm(np.array(fitted.point(p)) - centres[k])) for k, p in pairs)
                if best is None or res < best[0]:
                    best = (res, fitted)
            if best is None:
                return grid
            grid = best[1]
        return grid

    def _solve(self, centres: np.ndarray, pairs: Sequence[tuple[int, Position]], lam: float,
               foot0: np.ndarray) -> _QuarryGrid | None:
        # seen = m (centre + ax * a + ay * b) + (1 - m) foot, with a the pitch vector and b = a turned 90 degrees:
        # linear in (centre, a) with the camera's foot and height held where the mat's homography puts them
        # (the few die tops found do not pin them down better than that).
        rows, rhs = [], []
        for k, pos in pairs:
            ax, ay = self._coef(pos)
            m = 1.0 / (1.0 - (pos[0] + 1) * lam)
            x, y = centres[k] - (1 - m) * foot0
            rows.append([m, 0, m * ax, -m * ay])
            rhs.append(x)
            rows.append([0, m, m * ay, m * ax])
            rhs.append(y)
        # The board is laid in its printed footprint, the dice touch: a prior of a few mm on the centre and a few
        # tenths on the pitch vector, so that a wrong match or two cannot turn the grid.
        for j, (value, weight) in enumerate(((self.prior[0], 0.5), (self.prior[1], 0.5),
                                             (self.prior[2], 3.5), (self.prior[3], 3.5))):
            row = [0.0, 0.0, 0.0, 0.0]
            row[j] = weight
            rows.append(row)
            rhs.append(weight * value)
        sol, *_ = np.linalg.lstsq(np.array(rows, np.float64), np.array(rhs, np.float64), rcond=None)
        pitch = math.hypot(sol[2], sol[3])
        if not 0.9 * DIE_MM < pitch < 1.15 * DIE_MM:
            return None
        out = _QuarryGrid(self.boxes, sol[:2], pitch, math.atan2(sol[3], sol[2]), foot0, lam)
        out.prior = self.prior
        return out


def _teach_from_truth(reader: PyradiceReader, frame: Any, image: np.ndarray, reg: Registration) -> None:
    """What the players do at set-up: the dice on the boards named once per table. Here the first frame's
    readings of dice on the boards are named by the truth, at most three of each colour."""
    samples: list[tuple[str, Lab]] = []
    counts: dict[str, int] = {}
    for seat, board in frame.truth.boards.items():
        view = reg.zone(f"board-{seat}")
        if view is None:
            continue
        read = reader.read_board(image, view, seat)
        for s in read.slots:
            true = board.dice.get(s.slot)
            if s.die is None or true is None or (seat, s.slot) in frame.truth.hidden_slots:
                continue
            if s.die.value != true.value:  # the players name the die they see: a die read on another slot is not it
                continue
            if counts.get(true.colour, 0) < 3:
                counts[true.colour] = counts.get(true.colour, 0) + 1
                samples.append((true.colour, s.die.lab))
    reader.teach(samples)
