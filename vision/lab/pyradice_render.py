"""Lab: Pyradice tables drawn into camera frames, with the truth of every slot, quarry position and reserve.

Part of vision's lab (never imported by the device). A frame is drawn from an engine state
(:class:`engine.pyradice.PyradiceState`): each seat's mat with its pyramid board (21 slots in a brick
lattice whose pitch, place and turn on the mat vary from table to table, as real boards are not of a known
size), the dice in its slots and its reserve die, and the quarry mat with the quarry board and its three
layers of dice stacked as RULES.md 1.2 says (a die of layer L rests on four of layer L-1). Dice are cubes in
3-D seen through a pinhole camera whose principal point is the frame's centre, so upper layers come out
nearer the camera (a little larger, and moved away from the point under the camera), side faces show away
from the centre, and each die casts a soft shadow on what lies under it. Then the lighting gradient, the
exposure and white balance of the camera, blur, noise and JPEG; sometimes a hand reaches over part of the
table, and the slots and positions it hides are named in the truth.

Die colours are the four Pyradice colours jittered around nominal, per table and per die. Everything comes
from a ``numpy.random.Generator``, so a frame is reproducible from its seed; :func:`seeded_state` plays a
seeded random game to the turn asked for, so frames come "from a seeded engine state".
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from engine.dice import Die
from engine.pyradice import PyradiceGame, PyradiceState
from engine.pyradice.pyramid import SLOTS, Slot
from engine.pyradice.quarry import LAYOUTS, Position
from engine.pyradice.state import Phase
from vision.lab.mat_render import (
    PlacedMat,
    ViewStyle,
    camera_rotation,
    finish_frame,
    grained_surface,
    mat_raster,
    random_view,
    table_layout,
)
from vision.lab.render import DIE_COLOURS, PIP_COLOURS, SIDE_RING, blend_quad, face_texture
from vision.mats import NOMINAL_MM, Mat, mats

BGR = tuple[int, int, int]

#: The four Pyradice colours as drawn (jittered around these per table and per die) and their pips.
PYRADICE_BODIES: dict[str, BGR] = {c: DIE_COLOURS[c] for c in ("white", "gray", "maroon", "orange")}
PYRADICE_PIPS: dict[str, BGR] = {"white": PIP_COLOURS["black"], "gray": PIP_COLOURS["white"],
                                 "maroon": PIP_COLOURS["white"], "orange": PIP_COLOURS["black"]}
#: The die's side in mm (the mats' nominal die; real dice vary a little, drawn +-3%).
DIE_MM = NOMINAL_MM["die"]
#: Slot pitch of the pyramid boards drawn (mm): unknown for the real board, so drawn over a range.
BOARD_PITCH_MM = (16.4, 18.2)
#: Camera height above the table (mm), drawn per frame.
CAMERA_HEIGHT_MM = (650.0, 1100.0)


# --- a seeded engine state ------------------------------------------------------------------------------

def seeded_state(seed: int, players: int = 2, turns: int = 10) -> PyradiceState:
    """A seeded random game (uniform legal choices, chance from the same generator) after ``turns`` placed
    dice in all (so about ``turns / players`` dice per pyramid), stopped at the start of a turn (phase take)."""
    game = PyradiceGame()
    names = ("Anna", "Ben", "Cleo", "Dan")[:players]
    rng = random.Random(seed)
    state = game.initial_state(names, seed=seed)
    placed = 0
    for _ in range(20 * turns + 50):
        if state.phase is Phase.OVER or (state.phase is Phase.TAKE and placed >= turns):
            return state
        if game.status(state).awaiting == "chance":
            state = game.apply(state, game.random_chance(state, rng))
            continue
        action = rng.choice(game.legal_actions(state))
        if action.kind == "place":
            placed += 1
        state = game.apply(state, action)
    return state


# --- the truth ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BoardTruth:
    """One seat's pyramid board as drawn: its dice by slot, and its lattice on the mat (mm): the centre of
    slot (1, 0), the step to the next slot of a level and the step up one level (the brick offset is half
    a step along)."""

    seat: int  # 1-based
    dice: dict[Slot, Die]
    origin: tuple[float, float]
    step: tuple[float, float]
    up: tuple[float, float]

    def centre(self, slot: Slot) -> tuple[float, float]:
        k, i = slot
        along = i + (k - 1) / 2
        return (self.origin[0] + along * self.step[0] + (k - 1) * self.up[0],
                self.origin[1] + along * self.step[1] + (k - 1) * self.up[1])


@dataclass(frozen=True)
class TableTruth:
    """What a frame shows: every board, the quarry (with the positions whose top is covered), the reserve
    dice, and what a hand hides; each mat's homography sheet mm -> frame pixels; the camera."""

    players: int
    boards: dict[int, BoardTruth]
    quarry: dict[Position, Die]
    covered: frozenset[Position]
    reserves: dict[int, Die | None]
    hidden_slots: frozenset[tuple[int, Slot]] = frozenset()
    hidden_positions: frozenset[Position] = frozenset()
    hidden_reserves: frozenset[int] = frozenset()
    homographies: dict[str, np.ndarray] = field(default_factory=dict)
    camera_height_mm: float = 0.0
    quarry_pitch_mm: float = 0.0
    #: The point under the camera in each mat's mm (with the height, what makes upper dice seen elsewhere).
    camera_feet: dict[str, tuple[float, float]] = field(default_factory=dict)

    def visible_top(self, pos: Position) -> bool:
        """A quarry die whose whole top is in view: present, uncovered and not under the hand."""
        return pos in self.quarry and pos not in self.covered and pos not in self.hidden_positions


@dataclass(frozen=True)
class TableFrame:
    """A rendered frame, its truth and the state it was drawn from."""

    image: np.ndarray
    truth: TableTruth
    state: PyradiceState
    view: ViewStyle


@dataclass(frozen=True)
class TableStyle:
    """What varies between tables besides the camera's view (:class:`vision.lab.mat_render.ViewStyle`)."""

    hand: bool = False
    exposure: float = 1.0
    white: float = 1.0  # red times this, blue divided by it
    colour_jitter: float = 8.0  # per-die body jitter (grey levels)
    tint_jitter: float = 10.0  # per-table, per-colour body jitter
    board_colour: BGR = (140, 180, 205)
    quarry_colour: BGR = (95, 120, 150)
    #: The four colours of this table's dice as the light makes them (per colour, BGR); None: drawn per frame.
    tints: tuple[tuple[str, tuple[float, float, float]], ...] | None = None


def random_table_style(rng: np.random.Generator, hand: float = 0.3) -> TableStyle:
    """A random table: a hand over it with probability ``hand``, exposure, white balance, board colours and the
    dice's tints (kept with the style, so frames of one table share them, as the dice of one box do)."""
    boards = [(140, 180, 205), (70, 90, 110), (120, 150, 160), (60, 60, 70), (170, 190, 200)]
    tints = tuple((c, _jittered(rng, b, 10.0)) for c, b in PYRADICE_BODIES.items())
    return TableStyle(
        tints=tints,
        hand=bool(rng.random() < hand),
        exposure=float(rng.uniform(0.85, 1.15)),
        white=float(rng.uniform(0.92, 1.08)),
        board_colour=boards[int(rng.integers(len(boards)))],
        quarry_colour=boards[int(rng.integers(len(boards)))],
    )


# --- the camera -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the table: table mm (x right, y down the first sheet, z *into* the table, so a
    point ``h`` mm above the table has z = -h) to frame pixels. The principal point is the frame's centre."""

    rotation: np.ndarray  # world -> camera
    centre: np.ndarray  # camera centre in table mm
    focal: float
    size: tuple[int, int]

    def project(self, points: np.ndarray) -> np.ndarray:
        cam = (np.asarray(points, np.float64) - self.centre) @ self.rotation.T
        z = np.maximum(cam[:, 2], 1e-6)
        return np.stack([self.focal * cam[:, 0] / z + self.size[0] / 2, self.focal * cam[:, 1] / z + self.size[1] / 2],
                        axis=1)

    def table_homography(self) -> np.ndarray:
        """Table plane mm (z = 0) -> frame pixels."""
        k = np.array([[self.focal, 0, self.size[0] / 2], [0, self.focal, self.size[1] / 2], [0, 0, 1]])
        r = self.rotation
        return np.asarray(k @ np.column_stack([r[:, 0], r[:, 1], -r @ self.centre]), np.float64)


def make_camera(view: ViewStyle, corners: np.ndarray, size: tuple[int, int], height: float,
                rng: np.random.Generator) -> Camera:
    """A camera ``height`` mm from the table, tilted and turned as ``view`` says, looking near the middle of
    ``corners`` (table mm) with a focal length that makes them span ``view.fill`` of the frame."""
    t, az, roll = (math.radians(v) for v in (view.tilt, view.azimuth, view.roll))
    target = corners.mean(axis=0) + rng.normal(0, 10, 2)
    direction = np.array([math.sin(t) * math.cos(az), math.sin(t) * math.sin(az), -math.cos(t)])
    centre = np.array([target[0], target[1], 0.0]) + direction * height / math.cos(t)
    forward = -direction
    hint = np.array([-math.sin(az), math.cos(az), 0.0]) if t > 1e-6 else np.array([0.0, 1.0, 0.0])
    rot = camera_rotation(forward, hint, roll)
    unit = Camera(rot, centre, 1.0, (0, 0))
    p = unit.project(np.column_stack([corners, np.zeros(len(corners))]))
    focal = view.fill * min(size[0] / 2 / np.abs(p[:, 0]).max(), size[1] / 2 / np.abs(p[:, 1]).max())
    return Camera(rot, centre, float(focal), size)


# --- drawing --------------------------------------------------------------------------------------------

def _shade_polygon(image: np.ndarray, polygon: np.ndarray, strength: float, blur: float) -> None:
    """Darken the frame under ``polygon`` (pixels) softly: a shadow."""
    x0, y0 = np.floor(polygon.min(axis=0) - 3 * blur - 2).astype(int)
    x1, y1 = np.ceil(polygon.max(axis=0) + 3 * blur + 2).astype(int)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, np.round((polygon - [x0, y0]) * 16).astype(np.int32), 1.0, cv2.LINE_AA, shift=4)
    mask = cv2.GaussianBlur(mask, (0, 0), max(blur, 0.5))
    image[y0:y1, x0:x1] *= (1 - strength * mask)[..., None]


@dataclass(frozen=True)
class _Cube:
    centre: tuple[float, float]  # table mm
    base: float  # height of its bottom above the table, mm
    side: float
    angle: float  # degrees about the vertical
    value: int
    body: tuple[float, float, float]
    pips: BGR
    turns: int  # quarter turns of the top face's drawing


# Unit cube faces: (outward normal in table axes with z into the table, u axis, v axis).
_TOP = (np.array([0.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
_SIDES = (
    (np.array([0.0, -1.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    (np.array([0.0, 1.0, 0.0]), np.array([-1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])),
    (np.array([-1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0]), np.array([0.0, 0.0, 1.0])),
)


def _cube_faces(cube: _Cube, to_table: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(centre, u, v) of the top and the four sides in table mm (z into the table), the top first."""
    a = math.radians(cube.angle)
    rot2 = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    centre = np.array([cube.centre[0], cube.centre[1], 1.0]) @ to_table.T
    centre = centre[:2] / centre[2]
    # The sheet is turned on the table: turn the die with it.
    lin = to_table[:2, :2] / to_table[2, 2]
    rot = lin @ rot2
    rot /= math.sqrt(abs(np.linalg.det(rot)))
    r3 = np.eye(3)
    r3[:2, :2] = rot
    s = cube.side
    mid = np.array([centre[0], centre[1], -(cube.base + s / 2)])
    out = []
    for normal, u, v in (_TOP, *_SIDES):
        out.append((mid + r3 @ normal * s / 2, r3 @ u * s / 2, r3 @ v * s / 2))
    return out


def _draw_cube(image: np.ndarray, cube: _Cube, to_table: np.ndarray, camera: Camera, light: np.ndarray,
               textures: dict[tuple[int, BGR, tuple[float, float, float], int], np.ndarray]) -> np.ndarray:
    """Draw one die; returns its top face's quad in the frame (TL, TR, BR, BL of the face as drawn)."""
    faces = _cube_faces(cube, to_table)
    ring = SIDE_RING[cube.value]
    values = (cube.value, *ring)
    drawn = []
    top_quad = np.zeros((4, 2))
    for k, ((centre, u, v), value) in enumerate(zip(faces, values, strict=True)):
        normal = (centre - faces[0][0]) if k else np.array([0.0, 0.0, -1.0])
        normal = normal / (np.linalg.norm(normal) + 1e-9)
        if k and float(np.dot(normal, camera.centre - centre)) <= 1e-6:
            continue
        quad3 = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
        quad = camera.project(quad3)
        shade = 0.55 + 0.45 * max(float(np.dot(normal, light)), 0.0) if k else 0.88 + 0.12 * float(light[2] < 0)
        drawn.append((k, quad, value, shade))
        if k == 0:
            top_quad = quad
    for k, quad, value, shade in sorted(drawn, key=lambda d: -d[0]):  # sides first, the top over them
        turns = cube.turns if k == 0 else 0
        key = (value, cube.pips, cube.body, turns)
        tex = textures.get(key)
        if tex is None:
            body = tuple(int(np.clip(c, 0, 255)) for c in cube.body)
            tex = face_texture(value, (body[0], body[1], body[2]), cube.pips)
            tex = np.ascontiguousarray(np.rot90(tex, turns))
            textures[key] = tex
        blend_quad(image, tex, quad, shade)
    return top_quad


def _footprint(cube: _Cube, to_table: np.ndarray, camera: Camera, light: np.ndarray) -> np.ndarray:
    """The die's shadow on what lies under it: its bottom square pushed away from the light, in the frame."""
    top = _cube_faces(replace(cube, base=cube.base - cube.side), to_table)[0]
    centre, u, v = top
    shift = -light * cube.side * 0.35
    shift[2] = 0.0
    quad3 = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v]) + shift
    return camera.project(quad3 * 1.0)


# --- the table ------------------------------------------------------------------------------------------

def _jittered(rng: np.random.Generator, base: BGR, amount: float) -> tuple[float, float, float]:
    j = rng.normal(0, amount, 3)
    return (base[0] + j[0], base[1] + j[1], base[2] + j[2])


def _board_lattice(mat: Mat, rng: np.random.Generator, seat: int) -> tuple[BoardTruth, np.ndarray, float]:
    """Where the pyramid board lies on its mat: centred in the printed outline, off by a few mm and degrees."""
    wall = mat.zone("board").outlines[0].rect
    pitch = float(rng.uniform(*BOARD_PITCH_MM))
    angle = math.radians(float(rng.normal(0, 1.5)))
    cx, cy = wall.centre
    cx += float(rng.normal(0, 2.0))
    cy += float(rng.normal(0, 2.0))
    step = (pitch * math.cos(angle), pitch * math.sin(angle))
    up = (pitch * math.sin(angle), -pitch * math.cos(angle))
    # Slot (1,0) centre: 2.5 steps left of the centre line and 2.5 levels below the middle.
    origin = (cx - 2.5 * step[0] - 2.5 * up[0], cy - 2.5 * step[1] - 2.5 * up[1])
    truth = BoardTruth(seat, {}, origin, step, up)
    # The board: a plate around the slots (half a step beyond the bottom corners, up to the apex).
    corners = []
    for along, level in ((-0.5 - 0.15, -0.5 - 0.15), (5.5 + 0.15, -0.5 - 0.15), (5.5 + 0.15, 5.5 + 0.1),
                         (-0.5 - 0.15, 5.5 + 0.1)):
        corners.append((origin[0] + along * step[0] + level * up[0], origin[1] + along * step[1] + level * up[1]))
    return truth, np.array(corners), pitch


def _draw_plate(sheet_raster: np.ndarray, ppm: float, corners_mm: np.ndarray, colour: BGR,
                slots_mm: Iterable[tuple[float, float]], slot_side: float, angle_deg: float) -> None:
    """A board (cardboard plate) drawn onto a sheet's raster, with a printed recess outline for every slot."""
    cv2.fillConvexPoly(sheet_raster, np.round(corners_mm * ppm * 16).astype(np.int32), colour, cv2.LINE_AA, shift=4)
    dark = tuple(int(c * 0.7) for c in colour)
    for cx, cy in slots_mm:
        rect = ((cx * ppm, cy * ppm), (slot_side * ppm, slot_side * ppm), angle_deg)
        pts = cv2.boxPoints(rect)
        cv2.polylines(sheet_raster, [np.round(pts * 16).astype(np.int32)], True, dark, max(1, round(0.4 * ppm)),
                      cv2.LINE_AA, shift=4)


def _tokens(sheet_raster: np.ndarray, ppm: float, board: BoardTruth, rng: np.random.Generator) -> None:
    """Skill tokens right of levels 2..6 and objective tokens left of levels 1..5: coloured squares with a
    mark, which a reader must not take for dice."""
    for k in range(1, 7):
        for side, ok in ((-1, k <= 5), (1, k >= 2)):
            if not ok:
                continue
            along = (-1.1 + 0.5 * (k - 1)) if side < 0 else (7 - k + 0.1 + 0.5 * (k - 1))
            cx = board.origin[0] + along * board.step[0] + (k - 1) * board.up[0]
            cy = board.origin[1] + along * board.step[1] + (k - 1) * board.up[1]
            colour = tuple(int(c) for c in rng.uniform(40, 220, 3))
            pitch = math.hypot(*board.step)
            centre = (round(cx * ppm * 16), round(cy * ppm * 16))
            if side < 0:  # objective tokens are discs
                cv2.circle(sheet_raster, centre, round(0.3 * pitch * ppm * 16), colour, -1, cv2.LINE_AA, shift=4)
            else:  # skill tokens small squares with a letter
                rect = ((cx * ppm, cy * ppm), (0.5 * pitch * ppm, 0.5 * pitch * ppm), 0.0)
                pts = np.round(cv2.boxPoints(rect) * 16).astype(np.int32)
                cv2.fillConvexPoly(sheet_raster, pts, colour, cv2.LINE_AA, shift=4)
                cv2.putText(sheet_raster, "AB"[int(rng.integers(2))], (round((cx - 0.12 * pitch) * ppm),
                            round((cy + 0.12 * pitch) * ppm)), cv2.FONT_HERSHEY_SIMPLEX, 0.02 * pitch * ppm,
                            (245, 245, 245), max(1, round(ppm / 2)), cv2.LINE_AA)


def quarry_centre(mat: Mat, offset: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """The mat point (mm) under the middle of the quarry's bottom layer: the printed footprint's centre, moved
    by ``offset`` (where the players put the board)."""
    foot = mat.zone("quarry").outlines[0].rect
    return (foot.centre[0] + offset[0], foot.centre[1] + offset[1])


def quarry_point(pos: Position, boxes: int, centre: tuple[float, float], pitch: float,
                 angle: float = 0.0) -> tuple[float, float]:
    """The point (mat mm) straight under the centre of quarry position ``pos``, for a bottom layer centred on
    ``centre`` with ``pitch`` mm between dice, turned by ``angle`` radians."""
    rows, cols = LAYOUTS[boxes][0]
    layer, r, c = pos
    x = (c + layer / 2 - (cols - 1) / 2) * pitch
    y = (r + layer / 2 - (rows - 1) / 2) * pitch
    ca, sa = math.cos(angle), math.sin(angle)
    return (centre[0] + ca * x - sa * y, centre[1] + sa * x + ca * y)


def render_table(state: PyradiceState, rng: np.random.Generator, size: tuple[int, int] = (1280, 960),
                 view: ViewStyle | None = None, style: TableStyle | None = None,
                 geometry: np.random.Generator | None = None, looks: Sequence[int] | None = None) -> TableFrame:
    """Draw the table of ``state`` as a camera with ``view`` sees it (random when not given).

    ``geometry``: where the table's fixed parts come from (the cloth, the mats' layout, the camera, each board's
    lattice and tokens, the quarry board's place); a recording hands a generator made afresh from the same seed
    for every frame, so that one table is seen throughout a game. Without it they come from ``rng``.
    ``looks``: a seed for each die's pose and look (where in its slot, its turn, size, body jitter, the drawing's
    quarter turn), drawn per place and die from it: a die nobody touched lies as it lay in the last picture, as
    on a real table, only shaken by a tenth of a millimetre (the camera and registration's own jitter); without
    it every picture draws every die afresh."""
    players = len(state.players)
    g = geometry if geometry is not None else rng
    view = view or random_view(rng, max_tilt=25.0)
    style = style or random_table_style(rng)
    sheets = mats("pyradice", players)
    placed: list[PlacedMat] = table_layout(sheets, g, jitter=6.0)
    corners = np.concatenate([
        cv2.perspectiveTransform(np.array([[(0, 0), (pm.mat.size[0], 0), pm.mat.size, (0, pm.mat.size[1])]],
                                          np.float64), pm.to_table())[0] for pm in placed])
    height = float(g.uniform(*CAMERA_HEIGHT_MM))
    camera = make_camera(view, corners, size, height, g)
    table_to_frame = camera.table_homography()
    frame = _surface(g, size)
    light_dir = math.radians(view.light_direction)
    light = np.array([math.cos(light_dir) * 0.5, math.sin(light_dir) * 0.5, -1.0])
    light /= np.linalg.norm(light)
    textures: dict[tuple[int, BGR, tuple[float, float, float], int], np.ndarray] = {}
    tints = dict(style.tints) if style.tints else {c: _jittered(rng, b, style.tint_jitter)
                                                    for c, b in PYRADICE_BODIES.items()}

    def body(colour: str | None, r: np.random.Generator) -> tuple[float, float, float]:
        base = tints.get(colour or "white", tints["white"])
        j = r.normal(0, style.colour_jitter, 3)
        return (base[0] + j[0], base[1] + j[1], base[2] + j[2])

    def die_rng(place: Sequence[int], die: Die) -> np.random.Generator:
        """Where one die's pose and look come from: the picture's generator, or (``looks``) its place and face."""
        if looks is None:
            return rng
        colour = sorted(PYRADICE_BODIES).index(die.colour) if die.colour in PYRADICE_BODIES else 9
        return np.random.default_rng([*looks, *place, die.value, colour])

    def shake() -> tuple[float, float]:
        if looks is None:
            return (0.0, 0.0)
        j = rng.normal(0, 0.1, 2)
        return (float(j[0]), float(j[1]))

    def cube(die: Die, centre: tuple[float, float], base: float, angle: float, r: np.random.Generator) -> _Cube:
        colour = die.colour or "white"
        dx, dy = shake()
        return _Cube((centre[0] + dx, centre[1] + dy), base, DIE_MM * float(r.uniform(0.97, 1.03)), angle, die.value,
                     body(colour, r), PYRADICE_PIPS.get(colour, PIP_COLOURS["black"]), int(r.integers(4)))

    boards: dict[int, BoardTruth] = {}
    reserves: dict[int, Die | None] = {}
    homographies: dict[str, np.ndarray] = {}
    feet: dict[str, tuple[float, float]] = {}
    jobs: list[tuple[list[_Cube], np.ndarray]] = []  # (dice of one height band, sheet mm -> table) in draw order
    quarry_pitch = DIE_MM
    quarry_place: tuple[tuple[float, float], float] = ((0.0, 0.0), 0.0)
    boxes = state.quarry.boxes
    for pm in placed:
        mat = pm.mat
        to_table = pm.to_table()
        homographies[mat.key] = table_to_frame @ to_table
        foot = np.linalg.inv(to_table) @ np.array([camera.centre[0], camera.centre[1], 1.0])
        feet[mat.key] = (float(foot[0] / foot[2]), float(foot[1] / foot[2]))
        ppm = 4.0
        raster = mat_raster(mat, ppm).astype(np.uint8)
        cubes: list[_Cube] = []
        if mat.kind == "board" and mat.seat is not None and mat.seat <= players:
            seat = mat.seat
            board, plate, pitch = _board_lattice(mat, g, seat)
            angle = math.degrees(math.atan2(board.step[1], board.step[0]))
            _draw_plate(raster, ppm, plate, style.board_colour, [board.centre(s) for s in SLOTS], pitch * 0.92, angle)
            _tokens(raster, ppm, board, g)
            dice = dict(state.players[seat - 1].pyramid)
            boards[seat] = replace(board, dice=dice)
            for slot, die in dice.items():
                cx, cy = board.centre(slot)
                r = die_rng((1, seat, *slot), die)
                jitter = r.normal(0, 0.06 * (pitch - DIE_MM) + 0.25, 2)
                cubes.append(cube(die, (cx + jitter[0], cy + jitter[1]), 0.0, angle + float(r.normal(0, 3)), r))
            reserve = state.players[seat - 1].reserve
            reserves[seat] = reserve
            if reserve is not None:
                spot = mat.zone("reserve").rect.centre
                r = die_rng((2, seat), reserve)
                cubes.append(cube(reserve, (spot[0] + float(r.normal(0, 2)), spot[1] + float(r.normal(0, 2))),
                                  0.0, float(r.uniform(0, 90)), r))
        elif mat.kind == "quarry":
            quarry_pitch = DIE_MM * float(g.uniform(1.0, 1.04))
            offset = (float(g.normal(0, 2.0)), float(g.normal(0, 1.5)))
            qangle = math.radians(float(g.normal(0, 1.0)))
            centre = quarry_centre(mat, offset)
            rows, cols = LAYOUTS[boxes][0]
            plate_half = np.array([(cols / 2 + 0.35) * quarry_pitch, (rows / 2 + 0.35) * quarry_pitch])
            ca, sa = math.cos(qangle), math.sin(qangle)
            plate = np.array([[centre[0] + ca * x - sa * y, centre[1] + sa * x + ca * y]
                              for x, y in ((-plate_half[0], -plate_half[1]), (plate_half[0], -plate_half[1]),
                                           (plate_half[0], plate_half[1]), (-plate_half[0], plate_half[1]))])
            slots0 = [quarry_point((0, r, c), boxes, centre, quarry_pitch, qangle) for r in range(rows)
                      for c in range(cols)]
            _draw_plate(raster, ppm, plate, style.quarry_colour, slots0, quarry_pitch * 0.95, math.degrees(qangle))
            by_layer: dict[int, list[_Cube]] = {0: [], 1: [], 2: []}
            quarry_place = (centre, qangle)
            for pos in sorted(state.quarry.dice):
                die = state.quarry.dice[pos]
                cx, cy = quarry_point(pos, boxes, centre, quarry_pitch, qangle)
                r = die_rng((3, *pos), die)
                j = r.normal(0, 0.3, 2)
                by_layer[pos[0]].append(cube(die, (cx + j[0], cy + j[1]), pos[0] * DIE_MM * 1.0,
                                             math.degrees(qangle) + float(r.normal(0, 2)), r))
            # Layer by layer, after the boards' dice: an upper die is drawn over the dice it rests on.
            jobs.extend((by_layer[layer], to_table) for layer in (0, 1, 2))
        paper_to_frame = table_to_frame @ pm.paper_to_table()
        if pm.mirrored:
            raster = raster[:, ::-1]
        m = paper_to_frame @ np.diag([1 / ppm, 1 / ppm, 1.0]) @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
        _warp_sheet(frame, raster, m)
        if cubes:
            jobs.insert(0, (cubes, to_table))
    # Dice: the boards' (one band each), then the quarry layer by layer, each band far from the camera first.
    for cubes, to_table in jobs:
        for c in cubes:
            shadow = _footprint(c, to_table, camera, light)
            _shade_polygon(frame, shadow, 0.35, c.side * 0.1 * camera.focal / height)
        dist = [float(np.linalg.norm(np.array([*c.centre, 0.0]) - camera.centre)) for c in cubes]
        for _, k in sorted(zip(dist, range(len(cubes)), strict=True), reverse=True):
            _draw_cube(frame, cubes[k], to_table, camera, light, textures)
    # Which truth a hand hides: the slots and positions whose top is mostly under it.
    hidden_slots: set[tuple[int, Slot]] = set()
    hidden_positions: set[Position] = set()
    hidden_reserves: set[int] = set()
    if style.hand:
        mask = _hand(frame, rng, placed, table_to_frame, players)
        for seat, board in boards.items():
            h = homographies[f"board-{seat}"]
            for slot in SLOTS:
                if _covered_by(mask, h, board.centre(slot), DIE_MM):
                    hidden_slots.add((seat, slot))
            if _covered_by(mask, h, next(pm for pm in placed if pm.mat.key == f"board-{seat}").mat.zone(
                    "reserve").rect.centre, DIE_MM * 1.5):
                hidden_reserves.add(seat)
        qm = next(pm for pm in placed if pm.mat.kind == "quarry")
        hq = homographies[qm.mat.key]
        for pos in state.quarry.geometry.positions:
            centre_q = quarry_point(pos, boxes, quarry_place[0], quarry_pitch, quarry_place[1])
            if _covered_by(mask, hq, centre_q, DIE_MM * 1.3):
                hidden_positions.add(pos)
    frame = _finish(frame, rng, view, style)
    covered = frozenset(p for p in state.quarry.dice if any(q in state.quarry.dice
                                                            for q in state.quarry.geometry.covers[p]))
    truth = TableTruth(players, boards, dict(state.quarry.dice), covered, reserves, frozenset(hidden_slots),
                       frozenset(hidden_positions), frozenset(hidden_reserves), homographies, height, quarry_pitch,
                       feet)
    return TableFrame(frame, truth, state, view)


def _covered_by(mask: np.ndarray, h: np.ndarray, centre: tuple[float, float], side: float) -> bool:
    pts = np.array([[centre[0] + dx * side / 2, centre[1] + dy * side / 2] for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
    px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)
    hh, ww = mask.shape
    hits = 0
    for x, y in px:
        xi, yi = round(float(x)), round(float(y))
        if 0 <= xi < ww and 0 <= yi < hh and mask[yi, xi]:
            hits += 1
    return hits >= 2


def _hand(frame: np.ndarray, rng: np.random.Generator, placed: Sequence[PlacedMat], table_to_frame: np.ndarray,
          players: int) -> np.ndarray:
    """A hand reaching in from the frame's edge toward a board or the quarry: a palm and four fingers, shaded,
    with a shadow. Returns the mask of the pixels it covers."""
    h, w = frame.shape[:2]
    pm = placed[int(rng.integers(len(placed)))]
    zone = pm.mat.zones[0].rect
    target_mm = (zone.x + zone.w * float(rng.uniform(0.1, 0.9)), zone.y + zone.h * float(rng.uniform(0.1, 0.9)))
    target = cv2.perspectiveTransform(np.array([[target_mm]], np.float64), table_to_frame @ pm.to_table())[0, 0]
    # From the nearest frame edge.
    edges = [(target[0], -50.0), (target[0], h + 50.0), (-50.0, target[1]), (w + 50.0, target[1])]
    start = min(edges, key=lambda e: math.dist(e, target))
    direction = np.array(target) - np.array(start)
    length = float(np.linalg.norm(direction)) + 1e-6
    direction /= length
    normal = np.array([-direction[1], direction[0]])
    scale = float(rng.uniform(0.9, 1.3)) * w / 1280
    skin = np.array([(120, 160, 210), (90, 130, 180), (60, 90, 140), (150, 180, 220)][int(rng.integers(4))],
                    np.float32)
    mask = np.zeros((h, w), np.uint8)
    palm_centre = np.array(target) - direction * 70 * scale
    arm_end = palm_centre - direction * 400 * scale
    cv2.line(mask, tuple(np.round(arm_end).astype(int)), tuple(np.round(palm_centre).astype(int)), 255,
             int(95 * scale))
    cv2.ellipse(mask, tuple(np.round(palm_centre).astype(int)), (int(60 * scale), int(52 * scale)),
                math.degrees(math.atan2(direction[1], direction[0])), 0, 360, 255, -1)
    for k, spread in enumerate((-1.5, -0.5, 0.5, 1.5)):
        base = palm_centre + direction * 40 * scale + normal * spread * 26 * scale
        tip = base + direction * float(rng.uniform(45, 75)) * scale + normal * spread * 6 * scale
        cv2.line(mask, tuple(np.round(base).astype(int)), tuple(np.round(tip).astype(int)), 255,
                 int((20 - 2 * abs(k - 1.5)) * scale))
    shadow = cv2.GaussianBlur(np.roll(mask, (int(12 * scale), int(10 * scale)), axis=(0, 1)).astype(np.float32)
                              / 255.0, (0, 0), 8)
    frame *= (1 - 0.4 * shadow)[..., None]
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.2)[..., None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    light = 1 + 0.1 * ((xx - w / 2) / w)
    frame[:] = frame * (1 - soft) + (skin * light[..., None]) * soft
    return mask > 127


def _warp_sheet(frame: np.ndarray, raster: np.ndarray, m: np.ndarray) -> None:
    """Warp a sheet's raster (pixel -> frame by ``m``) into the frame, only over its bounding box."""
    h_r, w_r = raster.shape[:2]
    quad = cv2.perspectiveTransform(np.array([[(0, 0), (w_r, 0), (w_r, h_r), (0, h_r)]], np.float64), m)[0]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    rgba = np.dstack([raster, np.full(raster.shape[:2], 255, np.uint8)])
    warped = cv2.warpPerspective(rgba, shift @ m, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:].astype(np.float32) / 255.0
    roi = frame[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha


def _surface(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    base = np.array([(60, 90, 130), (40, 70, 40), (90, 90, 95), (30, 50, 90), (110, 120, 130)][int(rng.integers(5))],
                    np.float32)
    return grained_surface(rng, size, base, 0.12)


def _finish(frame: np.ndarray, rng: np.random.Generator, view: ViewStyle, style: TableStyle) -> np.ndarray:
    out = frame * np.array([1 / style.white, 1.0, style.white], np.float32) * np.float32(style.exposure)
    return finish_frame(out, rng, light=view.light, light_direction=view.light_direction, blur=view.blur,
                        noise=view.noise, jpeg=view.jpeg)


def render_seeded(seed: int, players: int = 2, turns: int = 10, size: tuple[int, int] = (1280, 960),
                  hand: float = 0.3, max_tilt: float = 25.0) -> TableFrame:
    """A frame of the seeded game ``seed`` after ``turns`` placements, drawn from generator ``[seed, players,
    turns]``."""
    state = seeded_state(seed, players, turns)
    rng = np.random.default_rng([seed, players, turns, 7])
    view = random_view(rng, max_tilt=max_tilt)
    return render_table(state, rng, size, view, random_table_style(rng, hand))


def _main() -> None:  # pragma: no cover - a quick look: python -m vision.lab.pyradice_render OUT.png [SEED [PLAYERS]]
    import sys

    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    players = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    frame = render_seeded(seed, players, turns=int(sys.argv[4]) if len(sys.argv) > 4 else 12)
    cv2.imwrite(sys.argv[1], frame.image)


if __name__ == "__main__":  # pragma: no cover
    _main()
