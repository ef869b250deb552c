"""Lab: Pyramido tables drawn into camera frames, with the truth of every frame.

Part of vision's lab, never imported by the device. A :class:`PyramidoTable` is one seeded table: the
players' mats and the exploration mat laid out (:func:`vision.lab.mat_render.table_layout`), a pinhole camera
650-900 mm above it (tilted, turned), the dominoes' size and thickness, each pyramid's place and turn on
its mat (the first domino may lie anywhere the whole stage 1 still fits), and the box's colours as this
table's print and light show them. :func:`render` draws an engine state on it: every domino as two blocks
with their gem icons in their quadrants, stage k a few millimetres higher than stage k - 1 and inset by half
a block per stage (exactly as :mod:`engine.pyramido.geometry` lays them, so the truth is the engine's own
top view), each stage's sides and its shadow on what lies below, the exploration area's piles (backs showing
block colours and icon counts, a face-up domino on top) and gem areas, faceted gems in the inventories,
sometimes a hand over a pyramid; then light, blur, noise and JPEG. Heights are projected through the
camera, so a higher stage is seen displaced as a real one is.

The truth (:class:`PyramidoFrame`): per seat the engine's top view (``Pyramid.top_view`` without the stages),
the quarter cells a hand hides, where quarter cell (0, 0) lies on the mat, and the exploration area.
:func:`seeded_game` walks a seeded game with the engine's legal actions and ``random_chance``.
"""

from __future__ import annotations

import itertools
import math
import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from engine.game import find_game
from engine.pyramido import COLOURS, GEMS, Colour, Gem, Pyramido, PyramidoState
from engine.pyramido.game import Place, known_top  # engine names used here that the package does not re-export
from vision.lab.mat_render import PlacedMat, camera_rotation, finish_frame, grained_surface, mat_raster, table_layout
from vision.mats import Mat, Rect, mats

Cell = tuple[int, int]
BGR = tuple[float, float, float]

#: The box's colours as a neutral light shows them (BGR; assumed: no photo of the pieces exists).
BLOCK_BGR: dict[Colour, BGR] = {
    Colour.ORANGE: (40.0, 140.0, 235.0),
    Colour.BLUE: (175.0, 100.0, 35.0),
    Colour.PURPLE: (135.0, 55.0, 125.0),
    Colour.GREEN: (70.0, 155.0, 60.0),
    Colour.RED: (45.0, 45.0, 200.0),
}
GEM_BGR: dict[Gem, BGR] = {
    **{Gem.of(c): v for c, v in BLOCK_BGR.items()},
    Gem.MYTHICAL: (225.0, 215.0, 235.0),
}
#: The side of a domino's block in the box (assumed; a table draws its own within this range).
BLOCK_MM_RANGE = (31.0, 34.5)
THICKNESS_MM_RANGE = (2.5, 4.0)
GEM_MM = 11.0


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the table: table mm (x, y, z; z into the table, so a height h is z = -h) to
    frame pixels. ``k`` is the intrinsic matrix, ``rot`` and ``centre`` the pose."""

    k: np.ndarray
    rot: np.ndarray
    centre: np.ndarray
    size: tuple[int, int]

    def plane(self, z: float = 0.0) -> np.ndarray:
        """Table plane z (mm; negative above the table) -> frame pixels, 3x3."""
        r = self.rot
        return self.k @ np.column_stack([r[:, 0], r[:, 1], r[:, 2] * z - r @ self.centre])

    @property
    def height_mm(self) -> float:
        return float(-self.centre[2])


def _camera(rng: np.random.Generator, corners: np.ndarray, size: tuple[int, int], max_tilt: float,
            fill: float) -> Camera:
    """A camera aimed at the middle of ``corners`` (table mm) from 650-900 mm up, the table filling ``fill``."""
    target = np.array([*(corners.min(axis=0) + corners.max(axis=0)) / 2, 0.0])
    tilt = math.radians(float(rng.uniform(0, max_tilt)))
    az = float(rng.uniform(0, 2 * math.pi))
    height = float(rng.uniform(650, 900))
    dist = height / math.cos(tilt)
    centre = target + np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), -math.cos(tilt)]) * dist
    forward = (target - centre) / np.linalg.norm(target - centre)
    # Mounted along the table: its long side along the frame's long side.
    span = corners.max(axis=0) - corners.min(axis=0)
    along = 0.0 if span[0] >= span[1] else 90.0
    roll = float(along + rng.choice([0.0, 180.0]) + rng.uniform(-12, 12))
    # The frame's "down" is the table's +y before the roll.
    rot = camera_rotation(forward, np.array([0.0, 1.0, 0.0]), math.radians(roll))
    # Focal length: the corners' projection (unit focal, principal point 0) fills ``fill`` of the frame.
    cam = rot @ (np.column_stack([corners, np.zeros(len(corners))]) - centre).T
    xy = cam[:2] / cam[2]
    f = fill * min(size[0] / 2 / float(np.max(np.abs(xy[0]))), size[1] / 2 / float(np.max(np.abs(xy[1]))))
    k = np.array([[f, 0, size[0] / 2 - 0.5], [0, f, size[1] / 2 - 0.5], [0, 0, 1]])
    return Camera(k, rot, centre, size)


@dataclass(frozen=True)
class PyramidPose:
    """Where a pyramid lies on its mat: the mat point (mm) of quarter cell (0, 0)'s top-left corner, the
    grid's turn (degrees) and the block side (mm)."""

    origin: tuple[float, float]
    angle: float
    block_mm: float

    def to_mat(self, qx: float, qy: float) -> tuple[float, float]:
        """Quarter-cell coordinates (a cell's corner at integers) -> mat mm."""
        q = self.block_mm / 2
        a = math.radians(self.angle)
        u, v = qx * q, qy * q
        return (self.origin[0] + u * math.cos(a) - v * math.sin(a), self.origin[1] + u * math.sin(a) + v * math.cos(a))


@dataclass
class PyramidoTable:
    """One seeded table: mats, camera, piece sizes, the pyramids' poses and the box's colours under this light."""

    players: int
    placed: list[PlacedMat]
    camera: Camera
    block_mm: float
    thickness_mm: float
    poses: dict[int, PyramidPose]
    colours: dict[Colour, BGR]
    gem_colours: dict[Gem, BGR]
    light: float
    light_direction: float
    blur: float
    noise: float
    jpeg: int | None
    shadow: tuple[float, float]
    seed: int

    def mat(self, key: str) -> PlacedMat:
        return next(pm for pm in self.placed if pm.mat.key == key)

    def mat_to_frame(self, key: str, height_mm: float = 0.0) -> np.ndarray:
        """Mat mm at ``height_mm`` above the table -> frame pixels (3x3)."""
        return self.camera.plane(-height_mm) @ self.mat(key).to_table()


def _jitter(rng: np.random.Generator, bgr: BGR, amount: float) -> BGR:
    """A colour as another print run and another light show it: hue, saturation and value moved a little."""
    hsv = cv2.cvtColor(np.array([[bgr]], np.uint8), cv2.COLOR_BGR2HSV).astype(np.float32)[0, 0]
    hsv[0] = (hsv[0] + rng.uniform(-4, 4) * amount) % 180
    hsv[1] = np.clip(hsv[1] * (1 + rng.uniform(-0.15, 0.1) * amount), 0, 255)
    hsv[2] = np.clip(hsv[2] * (1 + rng.uniform(-0.12, 0.12) * amount), 0, 255)
    out = cv2.cvtColor(hsv.astype(np.uint8)[None, None], cv2.COLOR_HSV2BGR)[0, 0]
    return (float(out[0]), float(out[1]), float(out[2]))


def make_table(seed: int, players: int, final: PyramidoState | None = None, *, max_tilt: float = 20.0,
               size: tuple[int, int] = (1280, 960), jitter: float = 1.0, clean: bool = False) -> PyramidoTable:
    """A seeded table for ``players`` (1 = solo). ``final``: the game's last state, so each pyramid's pose
    keeps its whole stage 1 on the mat; without it the pose is for a 5x4 stage 1 around the first domino."""
    rng = np.random.default_rng([seed, 23])
    sheets = mats("pyramido", players)
    placed = table_layout(sheets, rng, jitter=4.0)
    corners = np.concatenate([
        cv2.perspectiveTransform(np.array([[(0, 0), (pm.mat.size[0], 0), pm.mat.size, (0, pm.mat.size[1])]],
                                          np.float64), pm.to_table())[0] for pm in placed])
    camera = _camera(rng, corners, size, max_tilt, float(rng.uniform(0.86, 0.95)))
    block = float(rng.uniform(*BLOCK_MM_RANGE))
    poses = {}
    for seat in range(players):
        zone = sheets[seat].zone("pyramid").rect
        frame = final.explorers[seat].pyramid.frame if final is not None else None
        fx, fy, fw, fh = (frame.x, frame.y, frame.width, frame.height) if frame is not None else (-2, -1, 5, 4)
        angle = float(rng.uniform(-2.5, 2.5))
        room_x, room_y = zone.w - fw * block, zone.h - fh * block
        # The frame's top-left block corner somewhere the frame still fits (a few mm over the line is allowed).
        left = zone.x + float(rng.uniform(min(-2.0, room_x), max(-2.0, room_x) + 2.0)) if room_x > -4 else zone.x
        top = zone.y + float(rng.uniform(min(-2.0, room_y), max(-2.0, room_y) + 2.0)) if room_y > -4 else zone.y
        poses[seat] = PyramidPose((left - 2 * fx * block / 2, top - 2 * fy * block / 2), angle, block)
    colours = {c: _jitter(rng, v, jitter) for c, v in BLOCK_BGR.items()}
    gem_colours = {g: _jitter(rng, v, jitter) for g, v in GEM_BGR.items()}
    a = float(rng.uniform(0, 2 * math.pi))
    return PyramidoTable(
        players, placed, camera, block, float(rng.uniform(*THICKNESS_MM_RANGE)), poses, colours, gem_colours,
        light=0.0 if clean else float(rng.uniform(0.05, 0.35)), light_direction=float(rng.uniform(0, 360)),
        blur=0.0 if clean else float(rng.uniform(0.3, 1.0)), noise=0.0 if clean else float(rng.uniform(1, 5)),
        jpeg=None if clean else int(rng.integers(70, 95)),
        shadow=(1.2 * math.cos(a), 1.2 * math.sin(a)), seed=seed,
    )


# --- the truth ---------------------------------------------------------------------------------------

def observed(pyramid: Any) -> dict[Cell, tuple[Colour, bool]]:
    """What the camera should see of a pyramid (as :func:`engine.pyramido.observe.observed`): quarter cell ->
    (colour, icon shows), from the pyramid's own top view."""
    return {c: (v[0], v[1]) for c, v in pyramid.top_view.items()}


@dataclass
class PyramidoFrame:
    """A rendered frame and what is true in it."""

    image: np.ndarray
    state: PyramidoState
    views: dict[int, dict[Cell, tuple[Colour, bool]]]  # seat -> the engine's top view
    hidden: dict[int, frozenset[Cell]]  # seat -> quarter cells a hand covers
    poses: dict[int, PyramidPose]
    spaces: tuple[Any, ...]  # the engine's exploration spaces (pile, face-up domino, gems)
    inventories: dict[int, tuple[int, ...]]
    hand: bool = False
    notes: list[str] = field(default_factory=list)


# --- drawing -----------------------------------------------------------------------------------------

_SS = 2  # the frame is drawn at twice the size and shrunk, as a lens leaves edges
_LAYER_PPM = 3.0  # pixels per mm of the piece layers before they are warped into the frame


def _roi(shape: tuple[int, ...], w: int, h: int, m: np.ndarray) -> tuple[int, int, int, int, np.ndarray] | None:
    """The frame box a w x h raster lands in through ``m``, and ``m`` moved into that box."""
    quad = cv2.perspectiveTransform(np.array([[(0, 0), (w, 0), (w, h), (0, h)]], np.float64), m)[0]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0 = max(int(x0), 0), max(int(y0), 0)
    x1, y1 = min(int(x1), shape[1]), min(int(y1), shape[0])
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1, np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ m


def _warp_into(frame: np.ndarray, layer: np.ndarray, alpha: np.ndarray, m: np.ndarray) -> None:
    """Composite ``layer`` (float BGR) with ``alpha`` (0..1) into ``frame`` through homography ``m``."""
    box = _roi(frame.shape, layer.shape[1], layer.shape[0], m)
    if box is None:
        return
    x0, y0, x1, y1, mm = box
    rgba = np.concatenate([layer.astype(np.float32, copy=False), alpha[:, :, None].astype(np.float32, copy=False)],
                          axis=2)
    warped = cv2.warpPerspective(rgba, mm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[:, :, 3:]
    roi = frame[y0:y1, x0:x1]
    roi += (warped[:, :, :3] - roi) * a


def _darken_into(frame: np.ndarray, alpha: np.ndarray, m: np.ndarray, strength: float) -> None:
    box = _roi(frame.shape, alpha.shape[1], alpha.shape[0], m)
    if box is None:
        return
    x0, y0, x1, y1, mm = box
    warped = cv2.warpPerspective(alpha.astype(np.float32), mm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    frame[y0:y1, x0:x1] *= (1 - strength * warped)[:, :, None]


class _Layer:
    """A raster over a rectangle of a mat (mm), at _LAYER_PPM: pieces are drawn on it in mm."""

    def __init__(self, rect: Rect) -> None:
        self.rect = rect
        self.w, self.h = math.ceil(rect.w * _LAYER_PPM), math.ceil(rect.h * _LAYER_PPM)
        self.bgr = np.zeros((self.h, self.w, 3), np.float32)
        self.alpha = np.zeros((self.h, self.w), np.float32)

    def px(self, pts: Sequence[tuple[float, float]]) -> np.ndarray:
        """mm points -> fixed-point pixel coordinates (4 fractional bits) for cv2's polygon drawing."""
        arr = (np.asarray(pts, np.float64) - (self.rect.x, self.rect.y)) * _LAYER_PPM * 16
        return np.rint(arr).astype(np.int32)

    def poly(self, pts: Sequence[tuple[float, float]], bgr: BGR, alpha: float = 1.0) -> None:
        p = [self.px(pts)]
        cv2.fillPoly(self.bgr, p, bgr, cv2.LINE_AA, shift=4)
        if alpha > 0:
            cv2.fillPoly(self.alpha, p, alpha, cv2.LINE_AA, shift=4)

    def line(self, a: tuple[float, float], b: tuple[float, float], bgr: BGR, width_mm: float) -> None:
        p = self.px([a, b])
        cv2.line(self.bgr, tuple(p[0]), tuple(p[1]), bgr, max(1, round(width_mm * _LAYER_PPM)), cv2.LINE_AA, shift=4)

    def to_mat(self) -> np.ndarray:
        """Layer pixels -> mat mm (3x3), pixel centres at (u + 0.5) / ppm."""
        s = 1 / _LAYER_PPM
        return np.array([[s, 0, self.rect.x + 0.5 * s], [0, s, self.rect.y + 0.5 * s], [0, 0, 1]], np.float64)


def _texture(rng: np.random.Generator, layer: _Layer, amount: float) -> None:
    """Print texture: low-frequency blotches and fine speckle over whatever is drawn."""
    h, w = layer.h, layer.w
    if not layer.alpha.any():
        return
    low = cv2.resize(rng.normal(0, 1, (max(2, h // 24), max(2, w // 24))).astype(np.float32), (w, h),
                     interpolation=cv2.INTER_CUBIC)
    fine = rng.standard_normal((h, w), dtype=np.float32)
    layer.bgr *= (1 + amount * (0.06 * low + 0.03 * fine))[:, :, None]


def _gem_shape(cx: float, cy: float, r: float, turn: float) -> list[tuple[float, float]]:
    """A cut gem's outline: an octagon, slightly taller than wide."""
    pts = []
    for i in range(8):
        a = turn + math.pi / 8 + i * math.pi / 4
        pts.append((cx + r * 0.9 * math.cos(a), cy + r * math.sin(a)))
    return pts


def _draw_gem_icon(layer: _Layer, cx: float, cy: float, r: float, base: BGR, turn: float) -> None:
    """A gem icon printed on a block: a lighter faceted gem with a white rim, in the block's colour (FT1)."""
    light = tuple(0.45 * v + 0.55 * 245 for v in base)
    dark = tuple(0.75 * v for v in base)
    outer = _gem_shape(cx, cy, r, turn)
    layer.poly(_gem_shape(cx, cy, r * 1.12, turn), (245.0, 245.0, 245.0), 0)
    layer.poly(outer, light, 0)  # type: ignore[arg-type]
    inner = _gem_shape(cx, cy, r * 0.5, turn)
    layer.poly(inner, tuple(0.25 * v + 0.75 * 250 for v in base), 0)  # type: ignore[arg-type]
    for a, b in zip(outer, inner, strict=True):
        layer.line(a, b, dark, 0.35)  # type: ignore[arg-type]


def _rot(p: tuple[float, float], c: tuple[float, float], a: float) -> tuple[float, float]:
    s, co = math.sin(a), math.cos(a)
    dx, dy = p[0] - c[0], p[1] - c[1]
    return (c[0] + dx * co - dy * s, c[1] + dx * s + dy * co)


def _draw_domino(layer: _Layer, rng: np.random.Generator, pose: PyramidPose, cells: Sequence[tuple[Cell, Colour,
                 tuple[int, ...]]], stage: int, colours: dict[Colour, BGR]) -> None:
    """One domino (its two blocks' cells, colours and icon quadrants as laid) with a small hand error."""
    k = stage
    wobble = math.radians(float(rng.normal(0, 0.5)))
    dx, dy = float(rng.normal(0, 0.35)), float(rng.normal(0, 0.35))
    q = pose.block_mm / 2
    corners_q = [(2 * x + k - 1, 2 * y + k - 1) for (x, y), _, _ in cells]
    xs = [c[0] for c in corners_q]
    ys = [c[1] for c in corners_q]
    centre_q = ((min(xs) + max(xs) + 2) / 2, (min(ys) + max(ys) + 2) / 2)
    cm = pose.to_mat(*centre_q)

    def place(qx: float, qy: float) -> tuple[float, float]:
        p = _rot(pose.to_mat(qx, qy), cm, wobble)
        return (p[0] + dx, p[1] + dy)

    inset = 0.35 / q  # dominoes are cut slightly smaller than their grid
    for (ox, oy), colour, icons in zip(corners_q, [c for _, c, _ in cells], [i for _, _, i in cells], strict=True):
        base = colours[colour]
        quad = [place(ox + inset, oy + inset), place(ox + 2 - inset, oy + inset), place(ox + 2 - inset, oy + 2 - inset),
                place(ox + inset, oy + 2 - inset)]
        layer.poly(quad, base)
        # The block's art: a darker band near its border.
        ring = [place(ox + 0.12, oy + 0.12), place(ox + 1.88, oy + 0.12), place(ox + 1.88, oy + 1.88),
                place(ox + 0.12, oy + 1.88)]
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            layer.line(a, b, tuple(0.82 * v for v in base), 0.6)  # type: ignore[arg-type]
        for quadrant in icons:
            cx, cy = place(ox + 0.5 + quadrant % 2, oy + 0.5 + quadrant // 2)
            _draw_gem_icon(layer, cx, cy, 0.18 * pose.block_mm, base, wobble + math.radians(pose.angle))
    # The seam between the two blocks and the domino's cut edge.
    (ax, ay), (bx, by) = corners_q
    if ax != bx:
        sx = max(ax, bx)
        layer.line(place(sx, ay + 0.1), place(sx, ay + 1.9), (40.0, 40.0, 40.0), 0.3)
    else:
        sy = max(ay, by)
        layer.line(place(ax + 0.1, sy), place(ax + 1.9, sy), (40.0, 40.0, 40.0), 0.3)


def _stage_layers(table: PyramidoTable, rng: np.random.Generator, state: PyramidoState, seat: int,
                  rect: Rect) -> list[_Layer]:
    pose = table.poses[seat]
    layers = []
    pyramid = state.explorers[seat].pyramid
    for stage in range(1, 5):
        layer = _Layer(rect)
        for pd in pyramid.placed:
            if pd.placement.stage != stage:
                continue
            laid = pyramid.blocks[stage - 1]
            cells = [(cell, laid[cell].colour, laid[cell].icons) for cell in pd.placement.cells()]
            _draw_domino(layer, rng, pose, cells, stage, table.colours)
        _texture(rng, layer, 1.0)
        layers.append(layer)
    return layers


def _draw_pieces(frame: np.ndarray, table: PyramidoTable, key: str, layers: Sequence[_Layer],
                 base_height: float = 0.0) -> None:
    """Stacked layers: layer i's top at base + (i+1) thickness, its sides below it, its shadow on what is under."""
    up = np.array([[_SS, 0, (_SS - 1) / 2], [0, _SS, (_SS - 1) / 2], [0, 0, 1]], np.float64)
    t = table.thickness_mm
    for i, layer in enumerate(layers):
        if not layer.alpha.any():
            continue
        top = base_height + (i + 1) * t
        to_mat = layer.to_mat()
        sx, sy = table.shadow
        shadow_m = up @ table.mat_to_frame(key, top - t) @ np.array(
            [[1, 0, sx * t], [0, 1, sy * t], [0, 0, 1]], np.float64) @ to_mat
        soft = cv2.GaussianBlur(layer.alpha, (0, 0), 1.2 * _LAYER_PPM)
        _darken_into(frame, soft, shadow_m, 0.35)
        side = layer.bgr * 0.55
        for frac in (0.0, 0.5):
            _warp_into(frame, side, layer.alpha, up @ table.mat_to_frame(key, top - t + frac * t) @ to_mat)
        _warp_into(frame, layer.bgr, layer.alpha, up @ table.mat_to_frame(key, top) @ to_mat)


def _draw_back(layer: _Layer, rect: Rect, back_blocks: Sequence[tuple[Colour, int]],
               colours: dict[Colour, BGR]) -> None:
    """A face-down domino's back: two blocks in their colours (darker) with one white dot per gem icon."""
    half = rect.h / 2
    for i, (colour, icons) in enumerate(back_blocks):
        base = tuple(0.7 * v for v in colours[colour])
        y0 = rect.y + i * half
        layer.poly([(rect.x, y0), (rect.x + rect.w, y0), (rect.x + rect.w, y0 + half), (rect.x, y0 + half)],
                   base)  # type: ignore[arg-type]
        for n in range(icons):
            cx = rect.x + rect.w * (0.35 + 0.3 * n)
            layer.poly(_gem_shape(cx, y0 + half / 2, 3.0, 0.0), (235.0, 235.0, 235.0), 0)


def _draw_face_up(layer: _Layer, rng: np.random.Generator, rect: Rect, domino_text: str, block: float,
                  colours: dict[Colour, BGR]) -> None:
    """A face-up domino lying in its pile outline, block A on top (a vertical domino: turned S)."""
    from engine.pyramido import parse_domino

    d = parse_domino(domino_text)
    pose = PyramidPose((rect.x + (rect.w - block) / 2, rect.y + (rect.h - 2 * block) / 2), 0.0, block)
    cells = [((0, 0), d.a.colour, tuple(_turned(q) for q in d.a.icons)),
             ((0, 1), d.b.colour, tuple(_turned(q) for q in d.b.icons))]
    _draw_domino(layer, rng, pose, cells, 1, colours)


def _turned(q: int) -> int:
    """An icon quadrant after turning the domino a quarter clockwise (E -> S), as the engine turns it."""
    qx, qy = q % 2, q // 2
    qx, qy = 1 - qy, qx
    return qy * 2 + qx


def _place_rng(table: PyramidoTable, *what: int) -> np.random.Generator:
    """The random draws of one place of the table (a gem, a pile's top), from the table's seed and what lies there:
    a place nobody touched looks the same in every frame (at a real table the gems left in an area do not move
    between turns; only the camera's noise differs), and a place changed gets draws of its own."""
    return np.random.default_rng([table.seed, 7919, *what])


def _scatter_gems(layer: _Layer, table: PyramidoTable, place: int, area: Rect, counts: Sequence[int],
                  colours: dict[Gem, BGR], limit: int = 24) -> list[tuple[Gem, tuple[float, float]]]:
    """Faceted gems lying in an area (at most ``limit`` drawn), without piling on each other. Each gem lies where
    the draws of its own place give (``place``: the area; the gem's kind and how many of its kind lie before it),
    so the gems an area keeps stay where they lay when another is taken or drawn."""
    spots: list[tuple[Gem, tuple[float, float]]] = []
    wanted = [(g, k) for g in GEMS for k in range(counts[g.index])][:limit]
    r = GEM_MM / 2
    for gem, k in wanted:
        rng = _place_rng(table, place, gem.index, k)
        for _ in range(40):
            p = (float(rng.uniform(area.x + r, area.x + area.w - r)),
                 float(rng.uniform(area.y + r, area.y + area.h - r)))
            if all(math.dist(p, s) > 2 * r + 1 for _, s in spots):
                break
        spots.append((gem, p))
        base = colours[gem]
        turn = float(rng.uniform(0, math.pi))
        outline = _gem_shape(p[0], p[1], r, turn)
        layer.poly(outline, tuple(0.7 * v for v in base))  # type: ignore[arg-type]
        layer.poly(_gem_shape(p[0], p[1], r * 0.55, turn), tuple(min(255.0, 1.15 * v + 30) for v in base))  # type: ignore[arg-type]
        for a in outline[::2]:
            layer.line(a, p, tuple(0.5 * v for v in base), 0.3)  # type: ignore[arg-type]
    return spots


def _exploration(frame: np.ndarray, table: PyramidoTable, rng: np.random.Generator, state: PyramidoState) -> None:
    mat = table.mat("exploration").mat
    zone = mat.zone("exploration")
    piles = [o.rect for o in zone.outlines if o.label.startswith("pile")]
    areas = [o.rect for o in zone.outlines if o.label.startswith("gems")]
    gem_layer = _Layer(zone.rect)
    for place, (space, area) in enumerate(zip(state.spaces, areas, strict=True), start=1):
        inner = Rect(area.x + area.w * 0.18, area.y + area.h * 0.18, area.w * 0.64, area.h * 0.64)
        _scatter_gems(gem_layer, table, place, inner, space.gems, table.gem_colours)
    _draw_pieces(frame, table, mat.key, [gem_layer])
    for pile_no, (space, pile) in enumerate(zip(state.spaces, piles, strict=True), start=1):
        if space.face_down == 0 and space.face_up is None:
            continue
        rect = Rect(pile.x + 2, pile.y + 2, pile.w - 4, pile.h - 4)
        base = max(0, space.face_down - 1) * table.thickness_mm if space.face_up is None else \
            space.face_down * table.thickness_mm
        below = _Layer(rect)
        below.poly(rect.corners(), (70.0, 70.0, 75.0))
        if space.face_down:
            # The pile's body: one tall layer of edges, its top at the face-down top.
            _draw_pieces(frame, table, mat.key, [below], base_height=max(0.0, base - table.thickness_mm))
        top = _Layer(rect)
        # The top's hand error and print texture are its own place's: a pile nobody touched looks the same.
        what = str(space.face_up) if space.face_up is not None else str(space.back or "")
        top_rng = _place_rng(table, 50 + pile_no, space.face_down, zlib.crc32(what.encode()))
        if space.face_up is not None:
            _draw_face_up(top, top_rng, rect, str(space.face_up), table.block_mm, table.colours)
        elif space.face_down:
            # The back the face-down top really has: the known deck's top, else the back recorded as seen.
            known = known_top(state, pile_no)
            back = known.back() if known is not None else space.back
            blocks = list(back.blocks) if back is not None else [(COLOURS[int(rng.integers(5))], 1)] * 2
            _draw_back(top, rect, blocks, table.colours)
        _texture(top_rng, top, 0.6)
        _draw_pieces(frame, table, mat.key, [top], base_height=base)


def _inventories(frame: np.ndarray, table: PyramidoTable, rng: np.random.Generator, state: PyramidoState) -> None:
    for seat in range(table.players):
        mat = table.placed[seat].mat
        zone = mat.zone("gems").rect
        layer = _Layer(zone)
        inner = Rect(zone.x + 10, zone.y + 10, zone.w - 20, zone.h - 20)
        _scatter_gems(layer, table, 100 + seat, inner, state.explorers[seat].inventory, table.gem_colours)
        _draw_pieces(frame, table, mat.key, [layer])


def _hand(frame: np.ndarray, table: PyramidoTable, rng: np.random.Generator, seat: int,
          state: PyramidoState) -> frozenset[Cell]:
    """A hand and forearm over part of a pyramid, 40-80 mm above it; returns the quarter cells it hides."""
    pose = table.poses[seat]
    key = table.placed[seat].mat.key
    view = observed(state.explorers[seat].pyramid)
    if not view:
        return frozenset()
    cells = sorted(view)
    target = cells[int(rng.integers(len(cells)))]
    centre = pose.to_mat(target[0] + 0.5, target[1] + 0.5)
    height = float(rng.uniform(40, 80))
    layer = _Layer(Rect(centre[0] - 120, centre[1] - 120, 240, 240))
    skin = tuple(float(v) for v in rng.choice([(120, 160, 210), (95, 135, 185), (60, 95, 140), (140, 175, 220)]))
    a = float(rng.uniform(0, 2 * math.pi))
    palm = [(centre[0] + 30 * math.cos(t) * math.cos(a) - 22 * math.sin(t) * math.sin(a),
             centre[1] + 30 * math.cos(t) * math.sin(a) + 22 * math.sin(t) * math.cos(a))
            for t in np.linspace(0, 2 * math.pi, 40)]
    layer.poly(palm, skin)  # type: ignore[arg-type]
    far = (centre[0] + 120 * math.cos(a), centre[1] + 120 * math.sin(a))
    nx, ny = -math.sin(a) * 25, math.cos(a) * 25
    layer.poly([(centre[0] + nx, centre[1] + ny), (far[0] + nx, far[1] + ny), (far[0] - nx, far[1] - ny),
                (centre[0] - nx, centre[1] - ny)], skin)  # type: ignore[arg-type]
    _texture(rng, layer, 0.5)
    up = np.array([[_SS, 0, (_SS - 1) / 2], [0, _SS, (_SS - 1) / 2], [0, 0, 1]], np.float64)
    _warp_into(frame, layer.bgr, layer.alpha, up @ table.mat_to_frame(key, height) @ layer.to_mat())
    # What it hides: cells whose centre, at its height, the hand covers in the frame (grown by a margin).
    m = table.mat_to_frame(key, height) @ layer.to_mat()
    mask = cv2.warpPerspective(layer.alpha, m, table.camera.size, flags=cv2.INTER_LINEAR)
    mask = cv2.dilate((mask > 0.05).astype(np.uint8), np.ones((9, 9), np.uint8))
    hidden = set()
    for c, (_colour, _icon) in view.items():
        stage = state.explorers[seat].pyramid.top_view[c][2]
        pts = np.array([[pose.to_mat(c[0] + fx, c[1] + fy) for fx in (0.1, 0.5, 0.9) for fy in (0.1, 0.5, 0.9)]])
        px = cv2.perspectiveTransform(pts, table.mat_to_frame(key, stage * table.thickness_mm))[0]
        for x, y in px:
            xi, yi = round(x), round(y)
            if 0 <= xi < mask.shape[1] and 0 <= yi < mask.shape[0] and mask[yi, xi]:
                hidden.add(c)
                break
    return frozenset(hidden)


def _table_surface(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    base = np.array(rng.choice([(60, 90, 130), (40, 70, 40), (90, 90, 95), (30, 50, 90), (120, 120, 125)]),
                    np.float32)
    return grained_surface(rng, size, base, 0.1)


def _finish(image: np.ndarray, rng: np.random.Generator, table: PyramidoTable) -> np.ndarray:
    return finish_frame(image, rng, light=table.light, light_direction=table.light_direction, blur=table.blur,
                        noise=table.noise, jpeg=table.jpeg)


def render(table: PyramidoTable, state: PyramidoState, rng: np.random.Generator, *, hand: int | None = None,
           exploration: bool = True) -> PyramidoFrame:
    """Draw ``state`` on ``table``. ``hand``: the seat whose pyramid a hand hovers over (None: no hand)."""
    w, h = table.camera.size
    frame = _table_surface(rng, (w * _SS, h * _SS))
    up = np.array([[_SS, 0, (_SS - 1) / 2], [0, _SS, (_SS - 1) / 2], [0, 0, 1]], np.float64)
    for pm in table.placed:
        ppm = 3.0
        raster = mat_raster(pm.mat, ppm, pm.mirrored).astype(np.float32)
        m = up @ table.camera.plane(0.0) @ pm.paper_to_table() @ np.array(
            [[1 / ppm, 0, 0.5 / ppm], [0, 1 / ppm, 0.5 / ppm], [0, 0, 1]], np.float64)
        _warp_into(frame, raster, np.ones(raster.shape[:2], np.float32), m)
    for seat in range(table.players):
        mat: Mat = table.placed[seat].mat
        zone = mat.zone("pyramid").rect
        rect = Rect(zone.x - 12, zone.y - 12, zone.w + 24, zone.h + 24)
        _draw_pieces(frame, table, mat.key, _stage_layers(table, rng, state, seat, rect))
    _inventories(frame, table, rng, state)
    if exploration:
        _exploration(frame, table, rng, state)
    hidden: dict[int, frozenset[Cell]] = {s: frozenset() for s in range(table.players)}
    if hand is not None:
        hidden[hand] = _hand(frame, table, rng, hand, state)
    image = cv2.resize(np.clip(frame, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_AREA)
    image = _finish(image, rng, table)
    views = {s: observed(state.explorers[s].pyramid) for s in range(table.players)}
    return PyramidoFrame(image, state, views, hidden, dict(table.poses), state.spaces,
                         {s: state.explorers[s].inventory for s in range(table.players)}, hand is not None)


# --- seeded games ------------------------------------------------------------------------------------

def seeded_game(seed: int, players: int = 2, until: Callable[[PyramidoState], bool] | None = None,
                limit: int = 4000) -> list[PyramidoState]:
    """The states of a seeded random game (chance and choices from one generator), from the set-up to the
    end or until ``until`` holds."""
    game = find_game("pyramido")
    assert isinstance(game, Pyramido)
    names = ("Anna", "Ben", "Cleo", "Dan")[:players]
    rng = random.Random(seed)
    state = game.initial_state(names, seed=seed)
    states = [state]
    for _ in range(limit):
        if game.status(state).finished or (until is not None and until(state)):
            break
        if game.status(state).awaiting == "chance":
            state = game.apply(state, game.random_chance(state, rng))
        else:
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        states.append(state)
    return states


def placement_turns(states: Sequence[PyramidoState]) -> list[tuple[PyramidoState, PyramidoState, int]]:
    """(state with a domino in hand, the state right after it was placed, seat) for every placement."""
    out = []
    for before, after in itertools.pairwise(states):
        if before.holding is not None:
            seat = before.order[before.turn]
            if after.explorers[seat].pyramid != before.explorers[seat].pyramid:
                out.append((before, after, seat))
    return out


# --- measuring the reader ----------------------------------------------------------------------------

def true_placement(before: PyramidoState, after: PyramidoState, seat: int) -> Place:
    """The placement taken between two states (the last domino of the mover's pyramid)."""
    return Place(after.explorers[seat].pyramid.placed[-1].placement)


def measure(seeds: Sequence[int], players: int = 2, turns_per_game: int = 6, condition: str | None = None,
            teach: bool = True, hand_share: float = 0.0, max_tilt: float = 20.0) -> dict[str, Any]:
    """Render ``turns_per_game`` placements of each seeded game (the first placement included), read the
    mover's pyramid with :class:`vision.pyramido_read.PyramidReader` (palette taught from one frame of the same
    table when ``teach``), explain the turn with the table adapter, and count: quarter cells right (occupancy,
    colour, icon), sure-and-wrong cells, cells a hand hid, placements explained right / asked / wrong, and the
    reading time on this core."""
    import time

    from device.tables import adapter_for
    from vision.conditions import parse_condition
    from vision.pyramido_read import Palette, PyramidReader, align_view, measure_cells
    from vision.registration import MarkerFinder, locate

    cv2.setNumThreads(1)
    cond = parse_condition(condition) if condition else None
    game = find_game("pyramido")
    adapter = adapter_for(game)
    finder = MarkerFinder()
    counts = {k: 0 for k in ("cells", "occupancy_right", "occupied", "colour_right", "icon_right", "sure_wrong",
                             "unsure", "hidden", "hidden_sure_wrong", "turns", "explained_right", "asked",
                             "explained_wrong", "zone_missing")}
    times: list[float] = []
    mistakes: list[str] = []
    asked: list[str] = []
    for seed in seeds:
        states = seeded_game(seed, players)
        turns = placement_turns(states)
        table = make_table(seed, players, states[-1], max_tilt=max_tilt)
        rng = np.random.default_rng([seed, 7])
        palette = Palette.nominal()
        if teach:
            # At the table: the players show the camera their pieces and say their colours (here: the truth).
            last = states[-1]
            fr = render(table, last, rng)
            reg = locate(fr.image if cond is None else cond.apply(fr.image, f"teach-{seed}"), "pyramido", players,
                         finder)
            zv = reg.zone("pyramid-1")
            if zv is not None:
                image = fr.image if cond is None else cond.apply(fr.image, f"teach-{seed}")
                reading = PyramidReader(palette).read(image, zv, last.explorers[0].pyramid.top_view, seat=0)
                palette = palette.teach(measure_cells(reading, fr.views[0], image, zv))
        reader = PyramidReader(palette)
        picks = sorted({0, *np.linspace(0, len(turns) - 1, turns_per_game).round().astype(int).tolist()})
        for k in picks:
            before, after, seat = turns[k]
            hand = seat if rng.random() < hand_share else None
            fr = render(table, after, rng, hand=hand)
            image = fr.image if cond is None else cond.apply(fr.image, f"{seed}-{k}")
            reg = locate(image, "pyramido", players, finder)
            zv = reg.zone(f"pyramid-{seat + 1}")
            counts["turns"] += 1
            if zv is None:
                counts["zone_missing"] += 1
                counts["asked"] += 1
                continue
            pyramid = before.explorers[seat].pyramid
            t0 = time.perf_counter()
            reading = reader.read(image, zv, pyramid.top_view, seat=seat)
            times.append(time.perf_counter() - t0)
            truth = fr.views[seat]
            if not reading.aligned:
                # The first domino: scored after laying it over the truth (the adapter lays it over the rules).
                a = align_view(reading.view(), after.explorers[seat].pyramid.top_view)
                if a is not None:
                    reading = reading.shifted(a.dx, a.dy, aligned=False)
            read = {c.cell: c for c in reading.cells}
            for cell in set(truth) | set(read):
                c = read.get(cell)
                exp = truth.get(cell)
                got = (c.colour, c.icon) if c is not None and c.colour is not None else None
                counts["cells"] += 1
                hidden = cell in fr.hidden[seat]
                counts["hidden"] += hidden
                counts["occupancy_right"] += (got is None) == (exp is None)
                if exp is not None and got is not None:
                    counts["occupied"] += 1
                    counts["colour_right"] += got[0] == exp[0]
                    counts["icon_right"] += got[1] == exp[1]
                sure = c is not None and c.sure
                counts["unsure"] += not sure
                if got != exp and sure:
                    counts["sure_wrong"] += 1
                    counts["hidden_sure_wrong"] += hidden
                    mistakes.append(f"seed {seed} turn {k} cell {cell}: {exp} read {got}")
            explained = adapter.explain(before, adapter.observe([reading], moved=True))
            true = true_placement(before, after, seat)
            if explained.actions == (true,):
                counts["explained_right"] += 1
            elif explained.problems:
                counts["asked"] += 1
                asked.append(f"seed {seed} turn {k}: {explained.problems[0][:160]}")
            else:
                counts["explained_wrong"] += 1
                mistakes.append(f"seed {seed} turn {k}: explained {explained.actions} not {true}")
    n = max(counts["cells"], 1)
    occ = max(counts["occupied"], 1)
    return {
        "seeds": f"{min(seeds)}-{max(seeds)}", "players": players, "condition": condition or "as rendered",
        "palette": "taught" if teach else "nominal", "hands": hand_share, **counts,
        "occupancy_accuracy": round(counts["occupancy_right"] / n, 4),
        "colour_accuracy": round(counts["colour_right"] / occ, 4),
        "icon_accuracy": round(counts["icon_right"] / occ, 4),
        "unsure_share": round(counts["unsure"] / n, 4),
        "read_ms_median": round(1000 * float(np.median(times)), 1) if times else None,
        "mistakes": mistakes[:12],
        "asked_why": asked[:12],
    }


def measure_exploration(seeds: Sequence[int], players: int = 2, states_per_game: int = 4) -> dict[str, Any]:
    """Render states spread over each seeded game and read the exploration area
    (:func:`vision.pyramido_read.read_exploration`, pile sizes and which tops are face up from the record,
    the nominal palette): face-up tops read right, sure and wrong, unsure; gem areas whose gems (coloured and
    mythical) were counted right."""
    from vision.pyramido_read import read_exploration
    from vision.registration import MarkerFinder, locate

    cv2.setNumThreads(1)
    finder = MarkerFinder()
    c = {k: 0 for k in ("tops", "tops_right", "tops_sure_wrong", "tops_unsure", "areas", "areas_right",
                        "areas_sure_wrong")}
    wrong: list[str] = []
    for seed in seeds:
        states = seeded_game(seed, players)
        table = make_table(seed, players, states[-1])
        for k in np.linspace(5, len(states) - 1, states_per_game).round().astype(int):
            st = states[int(k)]
            fr = render(table, st, np.random.default_rng([seed, int(k), 3]))
            zv = locate(fr.image, "pyramido", players, finder).zone("exploration")
            if zv is None:
                continue
            read = read_exploration(fr.image, zv, pile_sizes=[s.size for s in st.spaces],
                                    face_up=[s.face_up is not None for s in st.spaces],
                                    thickness_mm=table.thickness_mm)
            for r, s in zip(read, st.spaces, strict=True):
                c["areas"] += 1
                gems_ok = r.gems == tuple(s.gems[:5]) and r.mythical == s.gems[5]
                c["areas_right"] += gems_ok
                c["areas_sure_wrong"] += (not gems_ok) and r.gems_sure
                if s.face_up is None:
                    continue
                c["tops"] += 1
                ok = r.shows(s.face_up)
                c["tops_right"] += ok
                c["tops_unsure"] += not r.sure
                if not ok and r.sure:
                    c["tops_sure_wrong"] += 1
                    wrong.append(f"seed {seed} state {k} pile {r.pile}: {s.face_up} read {r.domino()}")
    return {"seeds": f"{min(seeds)}-{max(seeds)}", **c, "sure_wrong_tops": wrong[:8]}
