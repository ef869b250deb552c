"""Reading a Pyramido pyramid from its zone: the top view at the engine's quarter-cell resolution.

This stage owns what a player's pyramid shows from above. Given a frame and the pyramid zone's
registration (:mod:`vision.registration`), it

1. rectifies the zone (with a margin) to a flat image in millimetres and white-balances it on the mat's own
   paper beside the zone, so exposure and white balance are taken out before any colour is judged;
2. fits the half-block grid (quarter cells) to the pieces: the edges of the dominoes all lie on one lattice
   of period half a block whatever their stage, since stage k is inset half a block per stage; the lattice's
   turn, phase and (unless given) period are the ones on which the edges agree most
   (:func:`fit_lattice`); the printed outlines are masked out first;
3. reads every quarter cell: empty (paper) or a block colour, by a vote of its pixels' hues against the
   palette (the five colours, nominal until taught at the table: :meth:`Palette.teach`), and whether a gem
   icon sits in it (a printed gem is much lighter than its block: the cell's centre against its block
   colour). Each has a confidence; a cell is *sure* only when all three are.

A higher stage sits a few millimetres higher, so a camera that is not straight above it sees it displaced
towards the edge of the view. The camera's place is recovered from the mat's homography (the focal length
from the homography when the view is tilted enough to tell it, else an assumed one), and each cell is
sampled where its top would be seen at its stage's height. The stages come from what is already recorded
(``stages``: the engine's top view remembers them); cells not recorded are taken at stage 1's height (from
stage 2 on every new block lies over recorded ones).

Cells are first read in the zone's own lattice (index (0, 0) nearest the zone's top-left corner);
:func:`align` finds the translation that puts a reading onto the engine's quarter-cell coordinates of the
recorded pyramid, and :class:`PyramidReader` does both and reads again with the recorded heights.

The exploration area (:func:`read_exploration`): each pile's top domino read at the pile's height from the
record (a face-down top gives only its back's colours) and the gems in each gem area, coloured and mythical
(:func:`_count_gems`); a player's inventory spot (:func:`read_inventory`), counted the same way. Both are taken
from the frame where they are read (:func:`prepare_sparse`), and a white balance that clips the paper has the
tint it leaves taken out of the gems (:func:`_clipped_tint`).

Run alone on a frame: ``python -m vision.pyramido_read IMAGE --players 2 [--draw OUT.png]``; measured on
renders: ``python -m vision.pyramido_read --measure [--exploration]`` (docs/pyramido-table.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial

import cv2
import numpy as np

from engine.pyramido import COLOURS, Block, Colour, Domino
from vision.lattice import HalfBlockGrid
from vision.mats import Rect, Zone
from vision.registration import MatFit, ZoneView

Cell = tuple[int, int]
#: The engine's top view with stages: quarter cell -> (colour, gem icon shows, stage).
Known = Mapping[Cell, tuple[Colour, bool, int]]

#: Rectified zone scale (pixels per mm): a quarter cell (about 17 mm) is about 34 pixels.
PX_PER_MM = 2.0
#: The zone is read with this much mat around it: a pyramid may lie a little over its printed line.
MARGIN_MM = 10.0
#: A block's side when not given: the mats' nominal size (vision.mats.NOMINAL_MM) is 35 mm; the lattice fit
#: searches this range for the half-block period.
QUARTER_MM_RANGE = (14.0, 19.0)
#: A domino's thickness when not taught (each stage sits this much higher than the one below).
THICKNESS_MM = 3.2
#: Focal length (in frame widths) assumed when the view is too straight down to recover it.
FOCAL_WIDTHS = 0.85
#: Grey level the mat's paper is brought to by the white balance.
PAPER_LEVEL = 240.0

#: Pixel thresholds (CIELAB): a pixel is coloured (a block's) above this chroma, paper-like below it.
COLOURED_CHROMA = 14.0
#: A cell is empty when fewer than EMPTY_SHARE of its pixels are coloured, a block above BLOCK_SHARE.
EMPTY_SHARE, BLOCK_SHARE = 0.35, 0.60
#: The winning hue's share of the coloured pixels: sure above this.
HUE_SURE = 0.75
#: A cell's mean hue this far (degrees) from every taught colour is a colour not taught.
HUE_FAR = 24.0
#: A block's saturation over its colour's in the palette must lie in this range, and its lightness within
#: LIGHTNESS_OFF of the palette's, to be sure of the colour (skin has an orange hue, half the saturation).
LIKENESS = (0.6, 1.6)
LIGHTNESS_OFF = 22.0
#: Icon score (centre lightness over the block's, in L units, measured against the block's own pixels and against
#: the palette's colour): icon when their mean is above ICON_AT; sure when both are beyond ICON_DOUBT of it.
ICON_AT, ICON_DOUBT = 12.0, 3.0
#: Weight of the loss of saturation (share of the block's chroma lost at the centre) in the icon score.
PALE_WEIGHT = 20.0


# --- the palette -------------------------------------------------------------------------------------

def _lab(bgr: Sequence[float]) -> tuple[float, float, float]:
    v = cv2.cvtColor(np.array([[bgr]], np.float32) / 255.0, cv2.COLOR_BGR2Lab)[0, 0]
    return (float(v[0]), float(v[1]), float(v[2]))


#: The nominal block colours (BGR), as a white-balanced camera would see the box's colours (assumed).
NOMINAL_BGR: dict[Colour, tuple[float, float, float]] = {
    Colour.ORANGE: (40.0, 140.0, 235.0),
    Colour.BLUE: (175.0, 100.0, 35.0),
    Colour.PURPLE: (135.0, 55.0, 125.0),
    Colour.GREEN: (70.0, 155.0, 60.0),
    Colour.RED: (45.0, 45.0, 200.0),
}


@dataclass(frozen=True)
class Palette:
    """The five block colours in CIELAB (after the paper white balance); ``taught`` once measured at the table."""

    lab: Mapping[Colour, tuple[float, float, float]]
    taught: bool = False

    @classmethod
    def nominal(cls) -> Palette:
        return cls({c: _lab(v) for c, v in NOMINAL_BGR.items()})

    def hues(self) -> np.ndarray:
        """Hue angle (radians) of each colour in COLOURS order."""
        return np.array([math.atan2(self.lab[c][2], self.lab[c][1]) for c in COLOURS])

    @classmethod
    def from_lessons(cls, taught: Mapping[str, Sequence[float]]) -> Palette:
        """The nominal palette with the colours taught by name (``orange``, ...; as
        :meth:`device.teaching.TeachingStore.taught` gives them), measured by :func:`measure_cells`."""
        by_name = {c.value: c for c in COLOURS}
        got = {by_name[n]: (float(v[0]), float(v[1]), float(v[2])) for n, v in taught.items() if n in by_name}
        return cls.nominal().teach(got) if got else cls.nominal()

    def teach(self, samples: Mapping[Colour, tuple[float, float, float]]) -> Palette:
        """The palette with the colours measured at the table (a block of each shown to the camera; see
        :func:`measure_cells`); colours not shown keep their value."""
        return Palette({**self.lab, **samples}, taught=True)


# --- where the camera is -----------------------------------------------------------------------------

@dataclass(frozen=True)
class CameraPlace:
    """The camera's place over a mat, in the mat's millimetres: the point straight below it and its height."""

    nadir: tuple[float, float]
    height_mm: float
    focal_px: float
    focal_recovered: bool

    def shift(self, points_mm: np.ndarray, height_mm: float) -> np.ndarray:
        """Where points ``height_mm`` above the mat are seen on the mat plane (mm)."""
        h = min(height_mm, self.height_mm * 0.5)
        nadir = np.asarray(self.nadir)
        return points_mm + (points_mm - nadir) * (h / (self.height_mm - h))

    def unshift(self, seen_mm: np.ndarray, height_mm: float) -> np.ndarray:
        """The points ``height_mm`` above the mat that are seen at ``seen_mm`` on the mat plane (mm)."""
        h = min(height_mm, self.height_mm * 0.5)
        nadir = np.asarray(self.nadir)
        return nadir + (seen_mm - nadir) * ((self.height_mm - h) / self.height_mm)


def camera_place(fit: MatFit, focal_px: float | None = None) -> CameraPlace:
    """The camera over ``fit``'s mat, from the mat-to-frame homography with the principal point at the
    frame's centre. The focal length is recovered from the homography when the view is tilted enough
    (two orthogonality constraints); otherwise ``focal_px`` or :data:`FOCAL_WIDTHS` frame widths."""
    w, h = fit.frame_size
    shift = np.array([[1, 0, -(w / 2 - 0.5)], [0, 1, -(h / 2 - 0.5)], [0, 0, 1]], np.float64)
    hm = shift @ fit.mat_to_image
    hm = hm / np.linalg.norm(hm[:, 0])
    h1, h2 = hm[:, 0], hm[:, 1]
    a1, b1 = h1[0] * h2[0] + h1[1] * h2[1], h1[2] * h2[2]
    a2, b2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2, h1[2] ** 2 - h2[2] ** 2
    recovered = False
    f = focal_px if focal_px is not None else FOCAL_WIDTHS * w
    if focal_px is None:
        den = a1 * a1 + a2 * a2
        inv_f2 = -(a1 * b1 + a2 * b2) / den if den > 0 else 0.0
        # Only when the perspective terms are large enough to measure (a view tilted some degrees).
        strength = math.hypot(b1, b2) * w * w / max(math.sqrt(den), 1e-12)
        if inv_f2 > 0 and strength > 0.05:
            cand = 1 / math.sqrt(inv_f2)
            if 0.4 * w < cand < 3.0 * w:
                f, recovered = cand, True
    kinv = np.diag([1 / f, 1 / f, 1.0])
    b = kinv @ hm
    lam = 2 / (np.linalg.norm(b[:, 0]) + np.linalg.norm(b[:, 1]))
    if b[2, 2] < 0:
        lam = -lam
    r1, r2, t = b[:, 0] * lam, b[:, 1] * lam, b[:, 2] * lam
    r3 = np.cross(r1, r2)
    rot = np.column_stack([r1, r2, r3])
    centre = -rot.T @ t
    return CameraPlace((float(centre[0]), float(centre[1])), abs(float(centre[2])), float(f), recovered)


# --- the lattice -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lattice:
    """The half-block grid on a mat: quarter cell (i, j) of this lattice spans
    origin + R(angle) @ ([i, i + 1] x [j, j + 1]) * quarter_mm (mat mm). ``agreement`` (0..1): how well the
    pieces' edges agree with it."""

    origin: tuple[float, float]
    angle: float
    quarter_mm: float
    agreement: float

    def to_mat(self, ij: np.ndarray) -> np.ndarray:
        """Lattice coordinates (N x 2; a cell's corner at integers) -> mat mm."""
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.asarray(self.origin) + (np.asarray(ij, np.float64) * self.quarter_mm) @ rot.T

    def as_grid(self) -> HalfBlockGrid:
        """The same lattice as :class:`vision.lattice.HalfBlockGrid` (grid point (m, n) at origin + m u + n v)."""
        a = math.radians(self.angle)
        q = self.quarter_mm
        return HalfBlockGrid(np.asarray(self.origin, np.float64), np.array([q * math.cos(a), q * math.sin(a)]),
                             np.array([-q * math.sin(a), q * math.cos(a)]))

    def to_json(self) -> dict[str, object]:
        return {"origin_mm": [round(v, 2) for v in self.origin], "angle": round(self.angle, 2),
                "quarter_mm": round(self.quarter_mm, 3), "agreement": round(self.agreement, 3)}


def _edge_points(lab: np.ndarray, keep: np.ndarray, ppm: float = PX_PER_MM,
                 smoothed: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Strong edges of the rectified zone (``ppm`` pixels per mm; ``smoothed`` when already blurred, as
    :func:`cv2.pyrDown` does): (x, y) of vertical edges, (x, y) of horizontal ones, their weights."""
    sm = lab if smoothed else cv2.GaussianBlur(lab, (0, 0), 1.0)
    gx = np.zeros(sm.shape[:2], np.float32)
    gy = np.zeros(sm.shape[:2], np.float32)
    for c, wgt in ((0, 1.0), (1, 0.7), (2, 0.7)):
        dx = cv2.Sobel(sm[:, :, c], cv2.CV_32F, 1, 0, ksize=3)
        dy = cv2.Sobel(sm[:, :, c], cv2.CV_32F, 0, 1, ksize=3)
        gx += wgt * np.abs(dx)
        gy += wgt * np.abs(dy)
    mag = gx + gy
    mag[~keep] = 0
    # A gradient per pixel is larger at a coarser scale (the same step over fewer pixels): the floor follows.
    strong = mag > max(25.0 * PX_PER_MM / ppm, float(np.percentile(mag, 88)))
    # Only edges between two coloured sides: a piece's edge against the paper is moved outwards by its
    # shadow and by the side wall a tilted camera sees; an edge between two blocks is where the blocks meet.
    coloured = np.hypot(sm[:, :, 1], sm[:, :, 2]) > COLOURED_CHROMA
    k = max(2, round(0.1 * 17.0 * ppm))
    both_x = np.zeros_like(coloured)
    both_x[:, k:-k] = coloured[:, :-2 * k] & coloured[:, 2 * k:]
    both_y = np.zeros_like(coloured)
    both_y[k:-k, :] = coloured[:-2 * k, :] & coloured[2 * k:, :]
    vert = strong & (gx > 2 * gy) & both_x
    horiz = strong & (gy > 2 * gx) & both_y
    vy, vx = np.nonzero(vert)
    hy, hx = np.nonzero(horiz)
    return (np.column_stack([vx, vy]).astype(np.float64), np.column_stack([hx, hy]).astype(np.float64),
            mag[vy, vx].astype(np.float64), mag[hy, hx].astype(np.float64))


def _concentration(coord: np.ndarray, weight: np.ndarray, period: float) -> tuple[float, float]:
    """Weighted circular concentration (0..1) of ``coord`` modulo ``period`` and its mean phase (0..1)."""
    if len(coord) == 0:
        return 0.0, 0.0
    t = coord * np.float32(2 * np.pi / period)
    c, s = float(np.dot(weight, np.cos(t))), float(np.dot(weight, np.sin(t)))
    total = max(float(weight.sum()), 1e-9)
    return math.hypot(c, s) / total, (math.atan2(s, c) / (2 * np.pi)) % 1.0


def fit_lattice(lab: np.ndarray, keep: np.ndarray, rect: Rect, ppm: float, quarter_mm: float | None = None,
                prior: Lattice | None = None, camera: CameraPlace | None = None,
                height_mm: float = 0.0, smoothed: bool = False) -> Lattice | None:
    """The half-block lattice on which the pieces' edges in the rectified zone agree most (mat mm), or None
    when there are too few edges (an empty zone). ``prior``: a lattice fitted before (searched near it).
    With ``camera``, edges are first taken back from where they are seen to where they lie at ``height_mm``
    (stage 1's top), so the lattice is in the mat's true millimetres, not the view's."""
    v, hz, wv, wh = _edge_points(lab, keep, ppm, smoothed)
    if camera is not None and height_mm > 0:
        v = camera.unshift(v / ppm + (rect.x, rect.y), height_mm) - (rect.x, rect.y)
        hz = camera.unshift(hz / ppm + (rect.x, rect.y), height_mm) - (rect.x, rect.y)
        v, hz = v * ppm, hz * ppm
    # Edge points per mm of edge fall with the scale (40 at 2 px/mm: a few centimetres of domino edge).
    least = round(40 * ppm / PX_PER_MM)
    if len(v) < least or len(hz) < least:
        return None
    rng = np.random.default_rng(0)
    if len(v) > 1500:
        pick = rng.choice(len(v), 1500, replace=False)
        v, wv = v[pick], wv[pick]
    if len(hz) > 1500:
        pick = rng.choice(len(hz), 1500, replace=False)
        hz, wh = hz[pick], wh[pick]
    vm, hm = (v / ppm).astype(np.float32), (hz / ppm).astype(np.float32)  # mm within the rectified rect
    wv, wh = wv.astype(np.float32), wh.astype(np.float32)

    def score(angle: float, q: float) -> tuple[float, float, float]:
        a = math.radians(angle)
        ca, sa = math.cos(a), math.sin(a)
        # Lattice axes turned by ``angle``: u = x cos + y sin (across vertical edges), w = -x sin + y cos.
        rv, pv = _concentration(vm[:, 0] * ca + vm[:, 1] * sa, wv, q)
        rh, ph = _concentration(-hm[:, 0] * sa + hm[:, 1] * ca, wh, q)
        return rv + rh, pv, ph

    q0 = quarter_mm if quarter_mm is not None else (prior.quarter_mm if prior is not None else 17.0)
    angles = np.arange(-4.0, 4.01, 1.0) if prior is None else np.arange(prior.angle - 1, prior.angle + 1.01, 0.5)
    best_angle = max(angles, key=lambda a: score(float(a), q0)[0])
    q = q0
    if quarter_mm is None:
        lo, hi = QUARTER_MM_RANGE if prior is None else (prior.quarter_mm - 0.4, prior.quarter_mm + 0.4)
        qs = np.arange(lo, hi + 1e-9, 0.2 if prior is None else 0.1)
        q = float(max(qs, key=lambda qq: score(float(best_angle), float(qq))[0]))
    angle, q, u0, w0 = _refine(vm, hm, wv, wh, float(best_angle), q, quarter_mm is None, max(10, least // 2))
    total = score(angle, q)[0]
    a = math.radians(angle)
    # The lattice corner nearest the rect's top-left, from (u0, w0) in turned coordinates.
    u0, w0 = u0 % q, w0 % q
    x0 = u0 * math.cos(a) - w0 * math.sin(a)
    y0 = u0 * math.sin(a) + w0 * math.cos(a)
    return Lattice((rect.x + x0, rect.y + y0), angle, q, total / 2)


def _refine(vm: np.ndarray, hm: np.ndarray, wv: np.ndarray, wh: np.ndarray, angle: float, q: float,
            free_period: bool, least: int = 20) -> tuple[float, float, float, float]:
    """Least squares on the edges near the lattice lines: each vertical edge at u = u0 + n q - d w, each
    horizontal one at w = w0 + m q + d u (d: a further small turn), dropping edges off every line."""
    a = math.radians(angle)
    u0 = w0 = 0.0
    for it in range(4):
        ca, sa = math.cos(a), math.sin(a)
        uv = vm[:, 0] * ca + vm[:, 1] * sa
        wvv = -vm[:, 0] * sa + vm[:, 1] * ca
        uh = hm[:, 0] * ca + hm[:, 1] * sa
        wh_ = -hm[:, 0] * sa + hm[:, 1] * ca
        if it == 0:
            _, pu = _concentration(uv, wv, q)
            _, pw = _concentration(wh_, wh, q)
            u0, w0 = pu * q, pw * q
        n = np.rint((uv - u0) / q)
        m = np.rint((wh_ - w0) / q)
        rv = uv - (u0 + n * q)
        rh = wh_ - (w0 + m * q)
        tol = 0.12 * q if it else 0.2 * q
        kv, kh = np.abs(rv) < tol, np.abs(rh) < tol
        if kv.sum() < least or kh.sum() < least:
            break
        # Unknowns: u0, w0, q (or fixed), d.
        rows_v = np.column_stack([np.ones(kv.sum()), np.zeros(kv.sum()), n[kv], -wvv[kv]])
        rows_h = np.column_stack([np.zeros(kh.sum()), np.ones(kh.sum()), m[kh], uh[kh]])
        amat = np.vstack([rows_v, rows_h])
        rhs = np.concatenate([uv[kv], wh_[kh]])
        wts = np.sqrt(np.concatenate([wv[kv], wh[kh]]))
        if not free_period:
            rhs = rhs - amat[:, 2] * q
            amat = amat[:, [0, 1, 3]]
        sol, *_ = np.linalg.lstsq(amat * wts[:, None], rhs * wts, rcond=None)
        if free_period:
            u0, w0, q, d = (float(v) for v in sol)
        else:
            u0, w0, d = (float(v) for v in sol)
        # Turning the axes by d: the new coordinates of the same lattice.
        a += d
        u0, w0 = u0, w0
    return math.degrees(a), q, u0, w0


# --- one zone ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CellReading:
    """One quarter cell as read: empty (``colour`` None) or a block colour, whether a gem icon shows, and the
    confidence (0..1) of each; ``sure`` when all three are above their doubt."""

    cell: Cell
    colour: Colour | None
    icon: bool
    occupied_conf: float
    colour_conf: float
    icon_conf: float
    sure: bool
    centre_px: tuple[float, float] = (0.0, 0.0)  # in the frame, for pointing and drawing
    icon_score: float = 0.0  # the measure behind ``icon``: centre lightness over the block's (CIELAB L)
    coloured_share: float = 0.0  # the measure behind occupancy: share of the cell's pixels that are coloured

    def to_json(self) -> dict[str, object]:
        return {"cell": list(self.cell), "colour": self.colour.value if self.colour else None, "icon": self.icon,
                "sure": self.sure, "occupied": round(self.occupied_conf, 3), "colour_conf": round(self.colour_conf, 3),
                "icon_conf": round(self.icon_conf, 3), "centre": [round(v, 1) for v in self.centre_px]}


@dataclass(frozen=True)
class PyramidReading:
    """A pyramid zone as read: its quarter cells (every cell of the lattice inside the zone), the lattice,
    whether the cells are in the engine's coordinates of the recorded pyramid (``aligned``) and problems."""

    zone: str
    seat: int
    cells: tuple[CellReading, ...]
    lattice: Lattice | None
    aligned: bool = False
    problems: tuple[str, ...] = ()
    camera: CameraPlace | None = field(default=None, compare=False)

    def view(self) -> dict[Cell, tuple[Colour, bool]]:
        """The occupied cells as read (sure or not): cell -> (colour, icon shows)."""
        return {c.cell: (c.colour, c.icon) for c in self.cells if c.colour is not None}

    def unsure(self) -> tuple[Cell, ...]:
        return tuple(c.cell for c in self.cells if not c.sure)

    def cell(self, cell: Cell) -> CellReading | None:
        return next((c for c in self.cells if c.cell == cell), None)

    def shifted(self, dx: int, dy: int, aligned: bool = True) -> PyramidReading:
        """The reading with every cell index moved by (dx, dy) (onto the engine's coordinates)."""
        cells = tuple(replace(c, cell=(c.cell[0] + dx, c.cell[1] + dy)) for c in self.cells)
        return replace(self, cells=cells, aligned=aligned)


def _grown(zone: Zone, size: tuple[float, float]) -> Rect:
    r = zone.rect
    x0, y0 = max(0.0, r.x - MARGIN_MM), max(0.0, r.y - MARGIN_MM)
    x1, y1 = min(size[0], r.x + r.w + MARGIN_MM), min(size[1], r.y + r.h + MARGIN_MM)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def _rectify(image: np.ndarray, fit: MatFit, rect: Rect, ppm: float) -> np.ndarray:
    s = np.array([[ppm, 0, -ppm * rect.x], [0, ppm, -ppm * rect.y], [0, 0, 1]], np.float64)
    size = (max(1, round(rect.w * ppm)), max(1, round(rect.h * ppm)))
    return cv2.warpPerspective(image, s @ fit.image_to_mat, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _printed_mask(zone: Zone, rect: Rect, ppm: float, shape: tuple[int, int]) -> np.ndarray:
    """True where nothing is printed: the zone's line and its outlines are left out of the lattice fit."""
    keep = np.full(shape, 255, np.uint8)
    width = max(1, round(3.0 * ppm))

    def box(r: Rect) -> None:
        p0 = (round((r.x - rect.x) * ppm), round((r.y - rect.y) * ppm))
        p1 = (round((r.x + r.w - rect.x) * ppm), round((r.y + r.h - rect.y) * ppm))
        cv2.rectangle(keep, p0, p1, 0, width)

    box(zone.rect)
    for o in zone.outlines:
        box(o.rect)
    return keep > 0


def _white_gains(rect_img: np.ndarray | Callable[[int, int, int, int], np.ndarray], zone: Zone, rect: Rect,
                 ppm: float) -> np.ndarray:
    """Per-channel gains that bring the mat's paper around the zone to PAPER_LEVEL.

    Four strips of bare paper (right of the zone, below it, and the narrow bands left of and above it): each
    gives the median of its brighter half, and the brightest strip wins, since a hand or a piece over a strip
    is darker than paper under the same light. ``rect_img``: the rectified zone, or a function giving its
    pixels x0..x1, y0..y1 (a zone not rectified whole)."""
    r = zone.rect
    right, bottom = rect.x + rect.w, rect.y + rect.h
    strips = [Rect(r.x + r.w + 4, r.y, min(6.0, right - (r.x + r.w + 4)), r.h),
              Rect(r.x, r.y + r.h + 3, r.w, min(7.0, bottom - (r.y + r.h + 3))),
              Rect(max(rect.x, r.x - 4.5), r.y + 20, 2.5, r.h - 40),
              Rect(r.x + 20, max(rect.y, r.y - 4.5), r.w - 40, 2.5)]
    best: np.ndarray | None = None
    for s in strips:
        if s.w <= 1 or s.h <= 1:
            continue
        x0, y0 = round((s.x - rect.x) * ppm), round((s.y - rect.y) * ppm)
        x1, y1 = round((s.x + s.w - rect.x) * ppm), round((s.y + s.h - rect.y) * ppm)
        x0, y0 = max(0, x0), max(0, y0)
        if x1 <= x0 or y1 <= y0:
            continue
        crop = rect_img(x0, y0, x1, y1) if callable(rect_img) else rect_img[y0:y1, x0:x1]
        px = crop.reshape(-1, 3).astype(np.float32)
        if len(px) < 20:
            continue
        bright = px.sum(axis=1)
        upper = px[bright >= _median(bright)]
        white = np.array([_median(upper[:, c]) for c in range(3)], np.float32)
        if best is None or white.sum() > best.sum():
            best = white
    if best is None:
        return np.ones(3, np.float32)
    return (PAPER_LEVEL / np.maximum(best, 8.0)).astype(np.float32)


def _window_offsets(q_px: float, half: float, step: float = 2.0) -> np.ndarray:
    """Sample offsets (pixels) of a square window of half-size ``half`` quarter cells."""
    return _window_cached(float(q_px), float(half), float(step))


@lru_cache(maxsize=64)
def _window_cached(q_px: float, half: float, step: float) -> np.ndarray:
    n = max(2, int(2 * half * q_px / step))
    g = (np.arange(n) + 0.5) / n * 2 - 1
    xx, yy = np.meshgrid(g * half * q_px, g * half * q_px)
    out = np.column_stack([xx.ravel(), yy.ravel()])
    out.flags.writeable = False  # shared between calls
    return out


@lru_cache(maxsize=64)
def _corner_weights(q_px: float, half: float) -> np.ndarray:
    """(W, 4): each of the window's four corners (beyond a quarter cell from the middle both ways) as weights
    that average the window's samples there, so that one product gives the four corners' shares."""
    win = _window_offsets(q_px, half)
    out = np.zeros((len(win), 4), np.float32)
    for k, (sx, sy) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
        part = (sx * win[:, 0] > 0.25 * q_px) & (sy * win[:, 1] > 0.25 * q_px)
        out[part, k] = 1.0 / max(int(part.sum()), 1)
    out.flags.writeable = False
    return out


def _median(x: np.ndarray) -> float:
    """np.median of a 1-d array (the same value), without its overhead on small arrays."""
    n = len(x)
    if n == 0:
        return float("nan")
    k = n // 2
    if n % 2:
        return float(np.partition(x, k)[k])
    part = np.partition(x, (k - 1, k))
    return float((part[k - 1] + part[k]) / 2)


def _median_rows(x: np.ndarray) -> np.ndarray:
    """np.median(x, axis=1) (the same values), without its overhead on small arrays."""
    w = x.shape[1]
    part = np.sort(x, axis=1)
    return np.asarray(part[:, w // 2] if w % 2 else (part[:, w // 2 - 1] + part[:, w // 2]) / 2)


def _sample(lab: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``lab`` (8-bit CIELAB, as :func:`_balanced_lab` codes it, or CIELAB units) at pixel
    points (..., 2) -> (..., 3) in CIELAB units."""
    shape = pts.shape[:-1]
    flat = pts.reshape(-1, 2).astype(np.float32)
    mapx = flat[:, 0].reshape(1, -1)
    mapy = flat[:, 1].reshape(1, -1)
    out = cv2.remap(lab, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if out.dtype == np.uint8:
        out = _lab_units(out)
    return out.reshape(*shape, 3)


def _hue_tables(palette: Palette) -> tuple[np.ndarray, np.ndarray]:
    """For every whole degree of hue: the nearest palette colour (index in COLOURS) and the distance (radians)
    to each colour (360 x 5): a table lookup instead of five circular differences per pixel."""
    return _hue_tables_of(tuple(float(v) for v in palette.hues()))


@lru_cache(maxsize=16)
def _hue_tables_of(hues: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    deg = np.radians(np.arange(360, dtype=np.float64))
    dist = np.abs((deg[:, None] - np.asarray(hues)[None, :] + np.pi) % (2 * np.pi) - np.pi)
    nearest, dist32 = np.argmin(dist, axis=1), dist.astype(np.float32)
    nearest.flags.writeable = False
    dist32.flags.writeable = False
    return nearest, dist32


def _hue_index(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hue to the whole degree (0..359) of CIELAB a, b (the palette tables' index; cv2.phase is good to 0.3
    degrees, well inside the whole degree)."""
    shape = a.shape
    deg = cv2.phase(np.ascontiguousarray(a, np.float32).reshape(-1, 1),
                    np.ascontiguousarray(b, np.float32).reshape(-1, 1), angleInDegrees=True)
    return (np.rint(deg).astype(np.int32) % 360).reshape(shape)


def _cell_features(lab: np.ndarray | Prepared, centres_px: np.ndarray, q_px: float,
                   palette: Palette) -> dict[str, np.ndarray]:
    """Per cell: share of coloured pixels, the winning hue and its share, its mean hue distance (degrees),
    and the icon score (the centre's lightness over the block's own, in CIELAB L). ``lab``: the rectified zone
    in 8-bit CIELAB, or a zone prepared sparsely (:func:`prepare_sparse`)."""
    sample = lab.sample if isinstance(lab, Prepared) else partial(_sample, lab)
    win = _window_offsets(q_px, 0.40)
    disc_all = _window_offsets(q_px, 0.22, 1.5)
    disc = disc_all[np.hypot(disc_all[:, 0], disc_all[:, 1]) <= 0.22 * q_px]
    n = len(centres_px)
    rows = np.arange(n)
    s = sample(centres_px[:, None, :] + win[None, :, :])  # (N, W, 3)
    d = sample(centres_px[:, None, :] + disc[None, :, :])
    chroma = np.hypot(s[:, :, 1], s[:, :, 2])
    coloured = chroma > COLOURED_CHROMA
    share = coloured.mean(axis=1)
    nearest_of, dist_of = _hue_tables(palette)
    hue_idx = _hue_index(s[:, :, 1], s[:, :, 2])
    nearest = nearest_of[hue_idx]  # (N, W)
    votes = np.stack([((nearest == k) & coloured).sum(axis=1) for k in range(len(COLOURS))], axis=1)
    winner = np.argmax(votes, axis=1)
    n_col = np.maximum(coloured.sum(axis=1), 1)
    win_share = votes[rows, winner] / n_col
    mine = (nearest == winner[:, None]) & coloured  # (N, W): pixels of the winning colour
    mine_n = np.maximum(mine.sum(axis=1), 1)
    near_dist = dist_of[hue_idx, nearest]
    hue_dist = np.degrees((near_dist * mine).sum(axis=1) / mine_n)
    hue_dist = np.where(mine.any(axis=1), hue_dist, 180.0)
    # The block's own lightness: the lower quartile of its pixels of the winning colour (an icon is lighter,
    # and covers less than half the window; the block's art darkens only a thin band).
    ls = np.sort(np.where(mine, s[:, :, 0], np.inf), axis=1)
    quart = np.minimum((mine_n * 0.25).astype(int), ls.shape[1] - 1)
    block_l = np.where(mine.any(axis=1), ls[rows, quart], _median_rows(s[:, :, 0]))
    # Against the block's own pixels and against the palette's lightness of its colour: a plain cell half in a
    # higher block's shadow has dark pixels that would make its centre look light against them alone.
    taught_l = np.array([palette.lab[c][0] for c in COLOURS])[winner]
    # The centre's lightness over its pixels of the cell's colour or pale (an icon's light inside and white rim):
    # a higher neighbour seen leaning over the cell's edge is another colour and is left out.
    d_diff = dist_of[_hue_index(d[:, :, 1], d[:, :, 2]), winner[:, None]]
    d_chroma = np.hypot(d[:, :, 1], d[:, :, 2])
    own = (d_diff < np.radians(HUE_FAR)) | ((d_chroma < 2 * COLOURED_CHROMA) & (d[:, :, 0] > 55))
    dl = np.sort(np.where(own, d[:, :, 0], np.inf), axis=1)
    own_n = own.sum(axis=1)
    mid = np.minimum(own_n // 2, dl.shape[1] - 1)
    enough = own_n >= 0.5 * d.shape[1]
    centre_l = np.where(enough, dl[rows, mid], _median_rows(d[:, :, 0]))
    dc = np.sort(np.where(own, d_chroma, np.inf), axis=1)
    centre_c = np.where(enough, dc[rows, mid], _median_rows(d_chroma))
    # A printed gem is paler than its block: lighter (clearest on dark colours) and less saturated (clearest
    # on the bright ones, orange and red).
    bc = np.sort(np.where(mine, chroma, -np.inf), axis=1)[:, ::-1]
    block_c = np.where(mine.any(axis=1), bc[rows, np.minimum(mine_n // 2, bc.shape[1] - 1)], 1.0)
    taught_c = np.array([math.hypot(palette.lab[c][1], palette.lab[c][2]) for c in COLOURS])[winner]
    by_block = centre_l - block_l + PALE_WEIGHT * (1 - centre_c / np.maximum(block_c, 1.0))
    by_palette = centre_l - taught_l + PALE_WEIGHT * (1 - centre_c / np.maximum(taught_c, 1.0))
    # How the block's saturation and lightness compare with the palette's colour: a hand or a piece of a colour not
    # taught can share a hue with a block but not both.
    likeness = np.minimum(block_c / np.maximum(taught_c, 1.0), 2.0)
    l_off = np.abs(block_l - taught_l)
    # The window's four corners: a cell inside a block has all four coloured even when a washed-out icon makes
    # its middle look like paper; paper beside a block has at most two.
    corners = ((coloured.astype(np.float32) @ _corner_weights(float(q_px), 0.40)) > 0.5).sum(axis=1)
    return {"share": share, "corners": corners, "winner": winner, "win_share": win_share, "hue_dist": hue_dist,
            "likeness": likeness,
            "l_off": l_off, "l_signed": block_l - taught_l,
            "icon": (by_block + by_palette) / 2, "icon_low": np.minimum(by_block, by_palette),
            "icon_high": np.maximum(by_block, by_palette)}


def _conf(x: np.ndarray, at: float, doubt: float) -> np.ndarray:
    """0.5 at the threshold, 1 beyond the doubt band, linear between."""
    return np.clip(0.5 + 0.5 * np.abs(x - at) / max(doubt, 1e-9), 0.5, 1.0)


@dataclass(frozen=True)
class Prepared:
    """A zone rectified and white-balanced once, to be sampled as often as needed (``lab``: 8-bit CIELAB, see
    :func:`_balanced_lab`; :func:`_sample` gives CIELAB units)."""

    view: ZoneView
    rect: Rect
    lab: np.ndarray | None  # None: not rectified whole, sampled from ``frame`` where needed
    camera: CameraPlace
    gains: np.ndarray
    frame: np.ndarray | None = None
    #: Pixels of the rectified zone (at PX_PER_MM) -> pixels of the frame.
    to_frame: np.ndarray | None = None
    #: Per channel (BGR), how much more light the paper reflects than it shows where the camera clipped it
    #: (1: not clipped; see :func:`_clipped_tint`): what a neutral object that is not clipped is left tinted by.
    tint: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))

    def sample(self, pts: np.ndarray) -> np.ndarray:
        """CIELAB (units) at points (..., 2) given in pixels of the rectified zone."""
        if self.lab is not None:
            return _sample(self.lab, pts)
        assert self.frame is not None and self.to_frame is not None
        shape = pts.shape[:-1]
        flat = cv2.perspectiveTransform(pts.reshape(1, -1, 2).astype(np.float64), self.to_frame)[0].astype(np.float32)
        bgr = cv2.remap(self.frame, flat[:, 0].reshape(1, -1), flat[:, 1].reshape(1, -1), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        return _lab_units(_balanced_lab(bgr, self.gains)).reshape(*shape, 3)

    def crop(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """The rectified zone's pixels x0..x1, y0..y1 in 8-bit BGR, not balanced (``lab`` None only)."""
        assert self.frame is not None and self.to_frame is not None
        return _warp_frame(self.frame, self.to_frame @ _translation(x0, y0), (x1 - x0, y1 - y0))


def _translation(x: float, y: float) -> np.ndarray:
    return np.array([[1.0, 0.0, x], [0.0, 1.0, y], [0.0, 0.0, 1.0]])


def _warp_frame(frame: np.ndarray, to_frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return np.asarray(cv2.warpPerspective(frame, to_frame, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE))


def prepare_sparse(image: np.ndarray, view: ZoneView, focal_px: float | None = None) -> Prepared:
    """The zone white-balanced on the paper beside it but not rectified whole: the places read are taken from the
    frame where they are needed (:meth:`Prepared.sample`, :func:`_grid`). For a zone read only in parts (the
    exploration area: five piles and five gem areas in a mat of paper), at the same scale and the same values as
    :func:`prepare` gives them, for a fraction of the pixels."""
    fit, zone = view.fit, view.zone
    rect = _grown(zone, fit.mat.size)
    s = np.array([[PX_PER_MM, 0, -PX_PER_MM * rect.x], [0, PX_PER_MM, -PX_PER_MM * rect.y], [0, 0, 1]], np.float64)
    to_frame = fit.mat_to_image @ np.linalg.inv(s)
    probe = Prepared(view, rect, None, camera_place(fit, focal_px), np.ones(3, np.float32), image, to_frame)
    gains = _white_gains(probe.crop, zone, rect, PX_PER_MM)
    # The zone at 0.5 px/mm is plenty to find the neutral things that tell a clipped paper's tint.
    coarse = _warp_frame(image, to_frame @ np.diag([4.0, 4.0, 1.0]), (max(1, round(rect.w / 2)),
                                                                       max(1, round(rect.h / 2))))
    return replace(probe, gains=gains, tint=_clipped_tint(coarse, PAPER_LEVEL / gains))


#: A channel of the paper reads clipped at or above this raw level.
CLIPPED = 250.0


def _clipped_tint(raw: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Per channel, the factor by which a clipped channel of the paper hides its light (1 where not clipped).

    A white balance the camera sets warm (or cold) can push one channel of the bright paper past white: the paper
    then reads 255 there, the gains bring it to grey, and every object that is *not* clipped keeps a tint (a pale
    mythical gem reads pink). Neutral things on the mat that are not clipped (the grey sides of the piles, print,
    shadows, pale gems: pixels whose unclipped channels keep the paper's ratios) show the paper's true ratio in the
    clipped channel: its median over them, against the ratio the clipped paper shows, is the factor. ``raw``: the
    zone (8-bit BGR, coarse); ``paper``: the paper's raw level per channel."""
    out = np.ones(3, np.float32)
    clipped = paper >= CLIPPED
    if not clipped.any() or clipped.all():
        return out  # nothing to undo, or no channel left to compare with (over-exposed: asked elsewhere)
    ref = int(np.argmax(np.where(clipped, -1.0, paper)))
    px = raw.reshape(-1, 3).astype(np.float32)
    ok = (px.max(axis=1) < 235) & (px.min(axis=1) >= 40)
    for o in range(3):
        if o != ref and not clipped[o]:
            want = paper[o] / paper[ref]
            ok &= np.abs(px[:, o] / np.maximum(px[:, ref], 1.0) - want) <= 0.06 * want
    if ok.sum() < 30:
        return out
    for c in np.nonzero(clipped)[0]:
        ratio = _median(px[ok, c] / px[ok, ref]) / (paper[c] / paper[ref])
        out[c] = float(np.clip(ratio, 1.0, 1.6)) if ratio > 1.03 else 1.0
    return out


def prepare(image: np.ndarray, view: ZoneView, focal_px: float | None = None,
            camera: CameraPlace | None = None) -> Prepared:
    """The zone (with its margin) rectified at PX_PER_MM and white-balanced on the paper beside it."""
    fit, zone = view.fit, view.zone
    rect = _grown(zone, fit.mat.size)
    img = _rectify(image, fit, rect, PX_PER_MM)
    gains = _white_gains(img, zone, rect, PX_PER_MM)
    return Prepared(view, rect, _balanced_lab(img, gains), camera or camera_place(fit, focal_px), gains)


#: 8-bit CIELAB (L scaled to 0..255, a and b offset by 128) back to CIELAB units.
_LAB8_TO_UNITS = np.array([[100.0 / 255.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, -128.0], [0.0, 0.0, 1.0, -128.0]],
                          np.float32)


def _balanced_lab(img: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The rectified zone (8-bit BGR) times the paper's gains, clipped at white, in 8-bit CIELAB (OpenCV's coding:
    L x 255/100, a and b + 128; :func:`_lab_units` and :func:`_sample` give CIELAB units).

    Kept in 8 bits (OpenCV converts 8-bit BGR to CIELAB through tables, and only the pixels sampled are turned into
    floats): a fifth of the float path's time; the quantisation (under 0.6 L and 1.7 a/b levels, measured) is far
    below every threshold the reader uses."""
    balanced = cv2.transform(img, np.diag(np.asarray(gains, np.float32)))  # saturates at 255: clipped at white
    return np.asarray(cv2.cvtColor(balanced, cv2.COLOR_BGR2Lab))


def _lab_units(lab8: np.ndarray) -> np.ndarray:
    """8-bit CIELAB (OpenCV's coding) in CIELAB units, float32 (one affine map per pixel: cv2.transform)."""
    return np.asarray(cv2.transform(lab8.astype(np.float32), _LAB8_TO_UNITS))


def lattice_of(prep: Prepared, quarter_mm: float | None = None, thickness_mm: float = THICKNESS_MM,
               prior: Lattice | None = None) -> Lattice | None:
    # The edges at half the scale (1 px/mm, a quarter of the pixels): the least-squares fit on hundreds of edge
    # points still places the lattice to a fraction of a millimetre, and pyrDown's blur is the smoothing wanted.
    assert prep.lab is not None, "a pyramid zone is rectified whole (prepare, not prepare_sparse)"
    small = _lab_units(cv2.pyrDown(prep.lab))
    ppm = PX_PER_MM / 2
    keep = _printed_mask(prep.view.zone, prep.rect, ppm, (small.shape[0], small.shape[1]))
    return fit_lattice(small, keep, prep.rect, ppm, quarter_mm, prior, prep.camera, thickness_mm, smoothed=True)


def read_cells(prep: Prepared, lattice: Lattice | None, palette: Palette, *, seat: int,
               stages: Mapping[Cell, int] | None = None, default_stage: int = 1,
               thickness_mm: float = THICKNESS_MM, shift: tuple[int, int] = (0, 0)) -> PyramidReading:
    """Every lattice cell of the zone read at its stage's height (``stages`` in this lattice's indices); each
    cell's index moved by ``shift`` (onto the engine's coordinates, see :meth:`PyramidReading.shifted`)."""
    zone, fit, rect = prep.view.zone, prep.view.fit, prep.rect
    if lattice is None:
        return PyramidReading(zone.key, seat, (), None, camera=prep.camera)
    q = lattice.quarter_mm
    inv = _lattice_inverse(lattice, np.array(rect.corners()))
    i0, j0 = np.floor(inv.min(axis=0)).astype(int)
    i1, j1 = np.ceil(inv.max(axis=0)).astype(int)
    jj, ii = np.mgrid[j0:j1 + 1, i0:i1 + 1]
    ij = np.column_stack([ii.ravel(), jj.ravel()]).astype(np.float64)
    centres_mm = lattice.to_mat(ij + 0.5)
    r = zone.rect
    m = 0.3 * q  # a cell whose centre is inside the zone grown by this (a pyramid a little over its line)
    inside = ((centres_mm[:, 0] > r.x - m) & (centres_mm[:, 0] < r.x + r.w + m)
              & (centres_mm[:, 1] > r.y - m) & (centres_mm[:, 1] < r.y + r.h + m))
    ij, centres_mm = ij[inside], centres_mm[inside]
    cells = [(int(i), int(j)) for i, j in ij]
    given = stages or {}
    heights = np.array([given.get(c, default_stage) * thickness_mm for c in cells])
    cam = prep.camera
    nadir = np.asarray(cam.nadir)
    h = np.minimum(heights, cam.height_mm * 0.5)[:, None]
    seen_mm = centres_mm + (centres_mm - nadir) * (h / (cam.height_mm - h))
    seen_px = (seen_mm - (rect.x, rect.y)) * PX_PER_MM - 0.5
    f = _cell_features(prep, seen_px, q * PX_PER_MM, palette)
    share = f["share"]
    occ = share >= (EMPTY_SHARE + BLOCK_SHARE) / 2
    occ_conf = np.where((share >= BLOCK_SHARE) | (share <= EMPTY_SHARE), 1.0,
                        0.5 + 0.5 * np.abs(share - (EMPTY_SHARE + BLOCK_SHARE) / 2) / ((BLOCK_SHARE - EMPTY_SHARE) / 2))
    # Looks empty but coloured in three or four corners: a block whose middle is washed out (an icon in glare or
    # over-exposure). Read as a block, unsure.
    washed = ~occ & (f["corners"] >= 3)
    occ = occ | washed
    occ_conf = np.where(washed, 0.5, occ_conf)
    colour_conf = np.clip(f["win_share"], 0, 1) * np.where(f["hue_dist"] > HUE_FAR, 0.5, 1.0) * np.where(
        (f["likeness"] < LIKENESS[0]) | (f["likeness"] > LIKENESS[1]) | (f["l_off"] > LIGHTNESS_OFF), 0.5, 1.0)
    icon = f["icon"] > ICON_AT
    # Sure of an icon only when both measures say so, sure of none only when neither comes near.
    icon_conf = np.where(icon, _conf(np.maximum(f["icon_low"], ICON_AT), ICON_AT, ICON_DOUBT),
                         _conf(np.minimum(f["icon_high"], ICON_AT), ICON_AT, ICON_DOUBT))
    frame_pts = fit.mat_to_frame(seen_mm) if len(seen_mm) else np.zeros((0, 2))
    sure = np.where(occ, (occ_conf >= 1.0) & (f["win_share"] >= HUE_SURE) & (f["hue_dist"] <= HUE_FAR)
                    & (icon_conf >= 1.0) & (f["likeness"] >= LIKENESS[0]) & (f["likeness"] <= LIKENESS[1])
                    & (f["l_off"] <= LIGHTNESS_OFF), occ_conf >= 1.0)
    # Plain Python values once (a per-cell numpy index costs more than the cell's reading).
    dx, dy = shift
    cols = [COLOURS[w] if o else None for w, o in zip(f["winner"].tolist(), occ.tolist(), strict=True)]
    out = [CellReading((c[0] + dx, c[1] + dy), col, bool(i and col is not None), oc,
                       cc if col is not None else 1.0, ic if col is not None else 1.0, su, (px, py), sc, sh)
           for c, col, i, oc, cc, ic, su, (px, py), sc, sh in zip(
               cells, cols, icon.tolist(), occ_conf.tolist(), colour_conf.tolist(), icon_conf.tolist(),
               sure.tolist(), frame_pts.tolist(), f["icon"].tolist(), share.tolist(), strict=True)]
    problems = []
    if lattice.agreement < 0.35:
        problems.append(f"the dominoes' edges do not line up on one grid (agreement {lattice.agreement:.2f}): "
                        "is a domino lying crooked?")
    return PyramidReading(zone.key, seat, tuple(out), lattice, aligned=shift != (0, 0), problems=tuple(problems),
                          camera=cam)


def read_zone(image: np.ndarray, view: ZoneView, palette: Palette | None = None, *, seat: int | None = None,
              stages: Mapping[Cell, int] | None = None, default_stage: int = 1, quarter_mm: float | None = None,
              thickness_mm: float = THICKNESS_MM, lattice: Lattice | None = None,
              focal_px: float | None = None) -> PyramidReading:
    """Read one pyramid zone in its own lattice. ``stages`` (in this lattice's cell indices): the stage each
    recorded cell shows, so that it is sampled at its height; other cells at ``default_stage``."""
    prep = prepare(image, view, focal_px)
    lat = lattice or lattice_of(prep, quarter_mm, thickness_mm)
    seat = seat if seat is not None else (view.zone.seat or 1) - 1
    return read_cells(prep, lat, palette or Palette.nominal(), seat=seat, stages=stages, default_stage=default_stage,
                      thickness_mm=thickness_mm)


def _lattice_inverse(lattice: Lattice, pts_mm: np.ndarray) -> np.ndarray:
    a = math.radians(lattice.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return ((np.asarray(pts_mm) - np.asarray(lattice.origin)) @ rot) / lattice.quarter_mm


# --- onto the engine's coordinates ------------------------------------------------------------------

@dataclass(frozen=True)
class Alignment:
    """The translation from a reading's lattice cells to the engine's quarter cells, and how well it fits:
    ``agree`` recorded cells read as recorded, ``disagree`` read otherwise (a new domino covers at most 8),
    ``runner_up`` the next best translation's score."""

    dx: int
    dy: int
    agree: int
    disagree: int
    runner_up: int


def align(reading: PyramidReading, known: Known) -> Alignment | None:
    """The translation that lays ``reading`` over the recorded top view ``known`` best (see :func:`align_view`)."""
    return align_view(reading.view(), known)


def align_view(seen: Mapping[Cell, tuple[Colour, bool]], known: Known) -> Alignment | None:
    """The translation that lays a top view ``seen`` (cell -> colour, icon) over the recorded top view
    ``known`` best (None if nothing is recorded or seen). Every translation that keeps the two overlapping
    is scored by recorded cells seen as recorded minus those seen otherwise."""
    if not known or not seen:
        return None
    codes = {(c, i): n + 1 for n, (c, i) in enumerate((c, i) for c in COLOURS for i in (False, True))}
    sx = np.array([c[0] for c in seen])
    sy = np.array([c[1] for c in seen])
    x0, y0 = int(sx.min()), int(sy.min())
    grid = np.zeros((int(sy.max()) - y0 + 1, int(sx.max()) - x0 + 1), np.int16)
    for c, v in seen.items():
        grid[c[1] - y0, c[0] - x0] = codes[v]
    kc = np.array(list(known))
    kv = np.array([codes[(v[0], v[1])] for v in known.values()])
    # Translations (dx, dy): engine cell = reading cell + (dx, dy).
    dxs = np.arange(int(kc[:, 0].min()) - int(sx.max()) - 1, int(kc[:, 0].max()) - x0 + 2)
    dys = np.arange(int(kc[:, 1].min()) - int(sy.max()) - 1, int(kc[:, 1].max()) - y0 + 2)
    ddx, ddy = np.meshgrid(dxs, dys)
    ddx, ddy = ddx.ravel(), ddy.ravel()
    gx = kc[None, :, 0] - ddx[:, None] - x0
    gy = kc[None, :, 1] - ddy[:, None] - y0
    ok = (gx >= 0) & (gx < grid.shape[1]) & (gy >= 0) & (gy < grid.shape[0])
    got = np.where(ok, grid[np.clip(gy, 0, grid.shape[0] - 1), np.clip(gx, 0, grid.shape[1] - 1)], 0)
    agree = (got == kv[None, :]).sum(axis=1)
    score = 2 * agree - len(known)
    order = np.argsort(-score, kind="stable")
    top = int(order[0])
    runner = int(score[order[1]]) if len(order) > 1 else -len(known)
    return Alignment(int(ddx[top]), int(ddy[top]), int(agree[top]), len(known) - int(agree[top]), runner)


class PyramidReader:
    """Reads a player's pyramid with what is recorded of it: the lattice searched near the one fitted before,
    the reading aligned onto the engine's quarter cells and sampled again at the recorded stages' heights."""

    def __init__(self, palette: Palette | None = None, *, quarter_mm: float | None = None,
                 thickness_mm: float = THICKNESS_MM, focal_px: float | None = None) -> None:
        self.palette = palette or Palette.nominal()
        self.quarter_mm = quarter_mm
        self.thickness_mm = thickness_mm
        self.focal_px = focal_px
        self.lattices: dict[str, Lattice] = {}
        #: Per zone, where the engine's quarter cell (0, 0) lay on the mat (mm, its corner) in the last reading that
        #: lay over the record: the next frame is read once, at the recorded heights, where the record says.
        self.origins: dict[str, tuple[float, float]] = {}

    def read(self, image: np.ndarray, view: ZoneView, known: Known | None = None,
             seat: int | None = None) -> PyramidReading:
        """The pyramid in ``view``; with ``known`` (the recorded top view with stages, in engine quarter cells)
        the cells come back in the engine's coordinates (``aligned``). Recorded cells are read at their stage's
        height (a new domino over them sits one stage higher and is seen 1-2 mm off where it is sampled, well
        inside its cells), cells not recorded at stage 1's."""
        seat = seat if seat is not None else (view.zone.seat or 1) - 1
        prep = prepare(image, view, self.focal_px)
        prior = self.lattices.get(view.zone.key)
        lattice = lattice_of(prep, self.quarter_mm, self.thickness_mm, prior)
        if known and lattice is not None:
            once = self._read_once(prep, lattice, known, seat)
            if once is not None:
                return once
        # First at stage 1's height (most of what is seen, and the lattice's own height): enough to align.
        first = read_cells(prep, lattice, self.palette, seat=seat, default_stage=1, thickness_mm=self.thickness_mm)
        if not known or lattice is None:
            if lattice is not None and lattice.agreement >= 0.5:
                self.lattices[view.zone.key] = lattice
            return first
        a = align(first, known)
        if prior is not None and (a is None or a.disagree > 8):
            # A hand or a crooked domino can pull the fit off, and a kept lattice can be wrong: try the kept one as
            # it was and a fit searched afresh, and keep whichever lays the reading over the record best.
            for other in (prior, lattice_of(prep, self.quarter_mm, self.thickness_mm)):
                if other is None:
                    continue
                kept = read_cells(prep, other, self.palette, seat=seat, default_stage=1, thickness_mm=self.thickness_mm)
                b = align(kept, known)
                if b is not None and (a is None or b.agree > a.agree):
                    lattice, first, a = other, kept, b
        if a is None:
            return first
        if a.disagree <= 8 and lattice.agreement >= 0.5 and len(known) >= 24:
            self.lattices[view.zone.key] = lattice
        problems = list(first.problems)
        if a.disagree > 8 + len(first.unsure()) or a.runner_up >= 2 * a.agree - len(known):
            problems.append(f"the pyramid seen does not lie over the recorded one ({a.agree} of {len(known)} "
                            "quarter cells agree): has it been moved?")
        stages = {(c[0] - a.dx, c[1] - a.dy): v[2] for c, v in known.items()}
        # Cells not recorded can hold only a stage-1 block (from stage 2 on, every block lies over recorded ones):
        # read them at stage 1's height, or the paper beside a tall pyramid is sampled against its edge.
        second = read_cells(prep, lattice, self.palette, seat=seat, stages=stages, default_stage=1,
                            thickness_mm=self.thickness_mm)
        again = align(second, known)
        if again is not None and (again.dx, again.dy) != (a.dx, a.dy) and again.agree > a.agree:
            # Read at the recorded heights, the pyramid lies better one cell over: read it there again.
            a = again
            stages = {(c[0] - a.dx, c[1] - a.dy): v[2] for c, v in known.items()}
            second = read_cells(prep, lattice, self.palette, seat=seat, stages=stages, default_stage=1,
                                thickness_mm=self.thickness_mm)
        out = second.shifted(a.dx, a.dy)
        if len(problems) > len(first.problems):
            # Not lying over the record: nothing of this reading is sure.
            out = replace(out, cells=tuple(replace(c, sure=False) for c in out.cells))
            self.origins.pop(view.zone.key, None)
        else:
            self._keep_origin(view.zone.key, lattice, a)
        return replace(out, problems=tuple(problems) + second.problems)

    def _keep_origin(self, key: str, lattice: Lattice, a: Alignment) -> None:
        corner = lattice.to_mat(np.array([[-a.dx, -a.dy]], np.float64))[0]
        self.origins[key] = (float(corner[0]), float(corner[1]))

    def _read_once(self, prep: Prepared, lattice: Lattice, known: Known, seat: int) -> PyramidReading | None:
        """The pyramid read in one pass, at the recorded heights where the last reading put the record, when it
        still lies there (the same translation, at most 8 cells off the record: a domino laid covers 8); else
        None, and it is read in two passes (first at stage 1's height to find the record, then at the heights)."""
        key = prep.view.zone.key
        corner = self.origins.get(key)
        if corner is None:
            return None
        ij = _lattice_inverse(lattice, np.array([corner]))[0]
        if np.abs(ij - np.rint(ij)).max() > 0.3:
            return None  # the lattice moved by part of a cell: not the same pyramid lying where it lay
        dx, dy = -int(np.rint(ij[0])), -int(np.rint(ij[1]))
        stages = {(c[0] - dx, c[1] - dy): v[2] for c, v in known.items()}
        reading = read_cells(prep, lattice, self.palette, seat=seat, stages=stages, default_stage=1,
                             thickness_mm=self.thickness_mm, shift=(dx, dy))
        a = align(reading, known)  # in the engine's coordinates already: the record should lie at (0, 0)
        if a is None or (a.dx, a.dy) != (0, 0) or a.disagree > 8 or a.runner_up >= 2 * a.agree - len(known):
            return None
        if lattice.agreement >= 0.5 and len(known) >= 24:
            self.lattices[key] = lattice
        self._keep_origin(key, lattice, Alignment(dx, dy, a.agree, a.disagree, a.runner_up))
        return replace(reading, aligned=True)


def measure_cells(reading: PyramidReading, truth: Mapping[Cell, tuple[Colour, bool]], image: np.ndarray,
                  view: ZoneView) -> dict[Colour, tuple[float, float, float]]:
    """Teaching: the median CIELAB of the cells of each colour named by the players (``truth``: cell -> colour,
    icon), plain cells only, as the palette's new value."""
    fit, zone = view.fit, view.zone
    rect = _grown(zone, fit.mat.size)
    img = _rectify(image, fit, rect, PX_PER_MM)
    lab = _balanced_lab(img, _white_gains(img, zone, rect, PX_PER_MM))
    per: dict[Colour, list[np.ndarray]] = {}
    for c in reading.cells:
        t = truth.get(c.cell)
        if t is None or t[1]:
            continue
        p = (np.array(fit.frame_to_mat([c.centre_px])[0]) - (rect.x, rect.y)) * PX_PER_MM - 0.5
        win = _window_offsets(reading.lattice.quarter_mm * PX_PER_MM if reading.lattice else 34.0, 0.3)
        per.setdefault(t[0], []).append(_sample(lab, (p[None, :] + win)[None])[0])
    return {col: tuple(float(v) for v in np.median(np.concatenate(s), axis=0)) for col, s in per.items()}  # type: ignore[misc]


# --- the exploration area ----------------------------------------------------------------------------

@dataclass(frozen=True)
class SpaceReading:
    """One space of the exploration area as read: the domino on top of its pile as it lies (``blocks``: the top
    block, then the bottom one, each its colour and which of its quadrants TL, TR, BL, BR show an icon; None
    when the pile is empty), whether it is sure and looks face up (a back is darker than the taught colours),
    and the gems counted in its gem area (coloured counts in COLOURS order, then ``mythical``; ``gems_sure`` when
    every gem was counted and named clearly: :func:`_count_gems`)."""

    pile: int
    blocks: tuple[tuple[Colour, tuple[bool, bool, bool, bool]], ...] | None
    sure: bool
    face_up: bool
    gems: tuple[int, ...]
    gems_sure: bool
    back: tuple[Colour, Colour] | None = None  # a face-down top: its two blocks' colours (icon counts not read)
    #: The top's blocks' lightness less the palette's (CIELAB L, mean of its plain quadrants): a back is printed
    #: darker than a face, so a top turned up reads lighter than the back it showed before.
    lightness: float = 0.0
    #: The mythical (pale) gems counted in the gem area (``gems_sure`` covers them too).
    mythical: int = 0
    #: The gems were counted clearly but part of the area is hidden behind its pile (a camera off to its side sees
    #: the pile leaning over it): a gem may lie there unseen, so the count is a lower bound (``gems_sure`` False).
    gems_at_least: bool = False

    def domino(self) -> Domino | None:
        """The top domino in the engine's own frame, read as lying block A on top (turned S)."""
        return _domino_of(self.blocks, flip=False) if self.blocks else None

    def shows(self, domino: Domino) -> bool:
        """Whether the top is ``domino``, lying either way up (A on top turned S, or B on top turned N)."""
        if not self.blocks:
            return False
        return domino in (_domino_of(self.blocks, flip=False), _domino_of(self.blocks, flip=True))


def _domino_of(blocks: tuple[tuple[Colour, tuple[bool, bool, bool, bool]], ...], flip: bool) -> Domino:
    """Undo the turn of a vertical domino: seen quadrant (sx, sy) of a domino turned S came from its own
    quadrant (sy, 1 - sx); turned N (B on top), from (1 - sy, sx)."""
    out = []
    order = blocks[::-1] if flip else blocks
    for colour, icons in order:
        own = []
        for q, shown in enumerate(icons):
            if shown:
                sx, sy = q % 2, q // 2
                ox, oy = (1 - sy, sx) if flip else (sy, 1 - sx)
                own.append(oy * 2 + ox)
        out.append(Block(colour, tuple(sorted(own))))
    return Domino(out[0], out[1])


def read_exploration(image: np.ndarray, view: ZoneView, palette: Palette | None = None,
                     pile_sizes: Sequence[int] | None = None, face_up: Sequence[bool] | None = None,
                     thickness_mm: float = THICKNESS_MM, focal_px: float | None = None,
                     quarter_mm: float | None = None) -> tuple[SpaceReading, ...]:
    """The five spaces of the exploration zone: each pile's top domino, read at the pile's height
    (``pile_sizes``: dominoes in each pile, from the record; 9 each when not given), and its gem area's gems.
    ``face_up``: which tops the record says are face up; a face-down top gives only its back's colours (what a
    back looks like beyond that is not known: no photograph), and is never a domino read."""
    palette = palette or Palette.nominal()
    prep = prepare_sparse(image, view, focal_px)
    piles, areas = _spaces_of(view.zone)
    sizes = list(pile_sizes) if pile_sizes is not None else [9] * len(piles)
    tops = [_pile_part(prep, pile, sizes[i], thickness_mm, palette, quarter_mm) for i, pile in enumerate(piles)]
    washed: list[tuple[bool, bool, bool]] = []
    gems = _fade_guard([_count_gems(prep, area, palette, prep.camera, thickness_mm, washed_out=washed,
                                    beside=(piles[i], sizes[i] * thickness_mm))
                        for i, area in enumerate(areas)], washed)
    faded = any(w and f for w, f, _ in washed)
    return tuple(_space_reading(i, top, g, None if face_up is None else face_up[i], at_least=w[2] and not faded)
                 for i, (top, g, w) in enumerate(zip(tops, gems, washed, strict=True)))


_Top = tuple[tuple[tuple[Colour, tuple[bool, bool, bool, bool]], ...] | None, bool, bool, float]
_Gems = tuple[tuple[int, ...], int, bool]


def _fade_guard(gems: Sequence[_Gems], washed: Sequence[tuple[bool, bool, bool]]) -> list[_Gems]:
    """The gem areas' counts, none of those counted on washed-out paper sure when any area of the mat shows a gem
    fading (its count depends on the rim threshold: :func:`_count_gems`): the light is then such that a pale gem
    can vanish altogether, and a count that looks steady may be missing one. Judged on the whole mat: on tuning
    seed 4502's over-exposed mat 5 of 40 pictures showed a fading gem, on seed 4301 made over-exposed
    (``exposure:1.3``) all 30, and one count there that looked steady had lost a mythical gem."""
    if not any(w and fading for w, fading, _ in washed):
        return list(gems)
    return [(g[0], g[1], False) if w else g for g, (w, _, _) in zip(gems, washed, strict=True)]


def _spaces_of(zone: Zone) -> tuple[list[Rect], list[Rect]]:
    """The exploration zone's piles and gem areas (mat mm), in the order of its spaces."""
    return ([o.rect for o in zone.outlines if o.label.startswith("pile")],
            [o.rect for o in zone.outlines if o.label.startswith("gems")])


def _pile_part(prep: Prepared, pile: Rect, size: int, thickness_mm: float, palette: Palette,
               quarter_mm: float | None) -> _Top:
    return _read_pile(prep, pile, size * thickness_mm, palette, quarter_mm) if size > 0 else (None, True, False, 0.0)


def _space_reading(i: int, top: _Top, gems: _Gems, face_up: bool | None, at_least: bool = False) -> SpaceReading:
    blocks, sure, up, light = top
    counts, mythical, gems_sure = gems
    if face_up is not None and not face_up and blocks is not None:
        return SpaceReading(i + 1, None, False, False, counts, gems_sure, (blocks[0][0], blocks[1][0]), light,
                            mythical, gems_at_least=at_least)
    return SpaceReading(i + 1, blocks, sure, up, counts, gems_sure, lightness=light, mythical=mythical,
                        gems_at_least=at_least)


#: The change score (:class:`vision.change.ChangeGate`) above which a gem area counts as changed: lower than the
#: gate's default, so that a pale mythical gem laid on over-exposed paper is not missed (see ExplorationReader).
GEMS_CHANGED = 16.0


class ExplorationReader:
    """The exploration area read place by place: each pile's top and each gem area is read again only when its
    pixels in the frame changed since it was read (:class:`vision.change.ChangeGate`; it errs towards "changed")
    or what the record says lies there changed (the pile's height, a face or a back); otherwise its reading is
    kept as it was read, doubts included (never made sure). A turn changes one or two of the ten places (a domino
    and a gem taken, the area refilled, a pile turned up), so a turn's table costs a fraction of a whole read
    (docs/benchmarks.md). ``read_places`` says which places the last read read afresh (``("pile", 3)``, ...)."""

    def __init__(self, palette: Palette | None = None, *, thickness_mm: float = THICKNESS_MM,
                 focal_px: float | None = None, quarter_mm: float | None = None) -> None:
        from vision.change import ChangeGate

        self.palette = palette or Palette.nominal()
        self.thickness_mm = thickness_mm
        self.focal_px = focal_px
        self.quarter_mm = quarter_mm
        self.piles = ChangeGate()
        self.gems = ChangeGate(threshold=GEMS_CHANGED)
        self.boxes: dict[tuple[object, ...], tuple[int, int, float, float]] = {}
        self.kept: dict[tuple[object, ...], object] = {}
        self.read_places: tuple[tuple[str, int], ...] = ()

    def reset(self) -> None:
        """Forget every place (the mat moved, a new game)."""
        self.piles.reset()
        self.gems.reset()
        self.boxes.clear()
        self.kept.clear()

    def _patch(self, image: np.ndarray, fit: MatFit, key: tuple[object, ...], rect: Rect, height_mm: float,
               cam: CameraPlace) -> np.ndarray | None:
        """The place's box in the frame (the rect seen on the mat and at ``height_mm``; its size fixed at the
        first sight of ``key``, so patches compare)."""
        # Placed from the place's middle on the mat, not from the camera's place (recovered anew in every frame,
        # it would move the box by a few pixels); the box's size and its offset from that middle (where the top of
        # a tall pile is seen) are those of the first sight.
        mx, my = fit.mat_to_frame(np.array([[rect.x + rect.w / 2, rect.y + rect.h / 2]]))[0]
        if key not in self.boxes:
            corners = np.asarray(rect.corners(), np.float64)
            seen = np.vstack([corners, cam.shift(corners, height_mm)]) if height_mm > 0 else corners
            quad = fit.mat_to_frame(seen)
            cx, cy = quad.mean(axis=0)
            self.boxes[key] = (int(np.ptp(quad[:, 0])) // 2 + 3, int(np.ptp(quad[:, 1])) // 2 + 3,
                               float(cx - mx), float(cy - my))
        w, h, ox, oy = self.boxes[key]
        x0, y0 = round(float(mx + ox)) - w, round(float(my + oy)) - h
        if x0 < 0 or y0 < 0 or x0 + 2 * w > image.shape[1] or y0 + 2 * h > image.shape[0]:
            return None
        return image[y0:y0 + 2 * h, x0:x0 + 2 * w]

    def read(self, image: np.ndarray, view: ZoneView, pile_sizes: Sequence[int] | None = None,
             face_up: Sequence[bool] | None = None) -> tuple[SpaceReading, ...]:
        """As :func:`read_exploration`, reading only the places that changed."""
        piles, areas = _spaces_of(view.zone)
        sizes = list(pile_sizes) if pile_sizes is not None else [9] * len(piles)
        cam = camera_place(view.fit, self.focal_px)
        pile_keys: list[tuple[object, ...]] = [("pile", i, sizes[i]) for i in range(len(piles))]
        gem_keys: list[tuple[object, ...]] = [("gems", i) for i in range(len(areas))]
        pile_patches: dict[tuple[object, ...], np.ndarray] = {k: p for k, r in zip(pile_keys, piles, strict=True)
                        if (p := self._patch(image, view.fit, k, r, sizes[int(str(k[1]))] * self.thickness_mm,
                                             cam)) is not None}
        gem_patches: dict[tuple[object, ...], np.ndarray] = {k: p for k, r in zip(gem_keys, areas, strict=True)
                       if (p := self._patch(image, view.fit, k, r, self.thickness_mm, cam)) is not None}
        changed = {**self.piles.changed(pile_patches), **self.gems.changed(gem_patches)}
        prep: Prepared | None = None
        tops: list[_Top] = []
        counted: list[tuple[_Gems, tuple[bool, bool, bool]]] = []
        done: list[tuple[str, int]] = []
        for i, (pile, area) in enumerate(zip(piles, areas, strict=True)):
            parts: list[object] = []
            for key, gate, patches in ((pile_keys[i], self.piles, pile_patches), (gem_keys[i], self.gems,
                                                                                   gem_patches)):
                if not changed.get(key, True) and key in self.kept:
                    parts.append(self.kept[key])
                    continue
                if prep is None:
                    prep = prepare_sparse(image, view, self.focal_px)
                if key[0] == "pile":
                    part: object = _pile_part(prep, pile, sizes[i], self.thickness_mm, self.palette, self.quarter_mm)
                else:
                    flags: list[tuple[bool, bool, bool]] = []
                    part = (_count_gems(prep, area, self.palette, prep.camera, self.thickness_mm, washed_out=flags,
                                        beside=(pile, sizes[i] * self.thickness_mm)), flags[0])
                parts.append(part)
                done.append((str(key[0]), i + 1))
                gate.reset([key])
                if key in patches:
                    gate.propose({key: patches[key]})
                    gate.accept()
                    self.kept[key] = part
                else:
                    self.kept.pop(key, None)
            tops.append(parts[0])  # type: ignore[arg-type]
            counted.append(parts[1])  # type: ignore[arg-type]
        gems = _fade_guard([c[0] for c in counted], [c[1] for c in counted])
        self.read_places = tuple(done)
        faded = any(c[1][0] and c[1][1] for c in counted)
        return tuple(_space_reading(i, top, g, None if face_up is None else face_up[i],
                                    at_least=c[1][2] and not faded)
                     for i, (top, g, c) in enumerate(zip(tops, gems, counted, strict=True)))


@dataclass(frozen=True)
class InventoryReading:
    """The gems in a player's inventory spot as counted: ``gems`` in the engine's order (the five colours as
    COLOURS, then mythical), ``sure`` when every gem was counted and named clearly (:func:`_count_gems`)."""

    seat: int
    gems: tuple[int, ...]
    sure: bool


#: The inventory spot is read this far inside its zone (mm): inside the printed outline (6 mm in), where the gems
#: lie (the renderer keeps them 10 mm in).
INVENTORY_INSET_MM = 8.0
#: Gems an inventory spot is counted up to (more is never sure: the rules keep five between stages).
INVENTORY_MOST = 12


def read_inventory(image: np.ndarray, view: ZoneView, palette: Palette | None = None,
                   thickness_mm: float = THICKNESS_MM, focal_px: float | None = None) -> InventoryReading:
    """The gems lying in a player's inventory spot (``view``: the zone ``gems-N`` of the player's mat), counted as
    a gem area's are (coloured and mythical, a clipped paper's tint taken out), with the spot's whole box read."""
    prep = prepare_sparse(image, view, focal_px)
    r = view.zone.rect
    inner = Rect(r.x + INVENTORY_INSET_MM, r.y + INVENTORY_INSET_MM, r.w - 2 * INVENTORY_INSET_MM,
                 r.h - 2 * INVENTORY_INSET_MM)
    counts, mythical, sure = _count_gems(prep, inner, palette or Palette.nominal(), prep.camera, thickness_mm,
                                         most=INVENTORY_MOST, oval=False)
    return InventoryReading((view.zone.seat or 1) - 1, (*counts, mythical), sure)


def _grid(prep: Prepared, xs: np.ndarray, ys: np.ndarray, height_mm: float, neutral: bool = False) -> np.ndarray:
    """The zone sampled on the grid ``xs`` x ``ys`` (mat mm, evenly spaced) where a surface ``height_mm`` above the
    mat is seen (len(ys), len(xs), 3; CIELAB units). The same points :func:`_seen_px` and :func:`_sample` give, but
    seen at one height a grid stays a grid (scaled about the point below the camera): one affine warp of the
    rectified zone instead of a map of every point. ``neutral``: with the tint of a clipped paper taken out
    (:func:`_untinted`; a sparse zone only)."""
    cam = prep.camera
    grow = _grow(cam, height_mm)
    nx, ny = cam.nadir
    step_x = float(xs[1] - xs[0]) if len(xs) > 1 else 1.0
    step_y = float(ys[1] - ys[0]) if len(ys) > 1 else 1.0
    bx = ((nx + (float(xs[0]) - nx) * grow) - prep.rect.x) * PX_PER_MM - 0.5
    by = ((ny + (float(ys[0]) - ny) * grow) - prep.rect.y) * PX_PER_MM - 0.5
    m = np.array([[step_x * grow * PX_PER_MM, 0.0, bx], [0.0, step_y * grow * PX_PER_MM, by]], np.float64)
    if prep.lab is None:
        assert prep.frame is not None and prep.to_frame is not None
        bgr = _warp_frame(prep.frame, prep.to_frame @ np.vstack([m, [0.0, 0.0, 1.0]]), (len(xs), len(ys)))
        if neutral and (prep.tint != 1).any():
            return _lab_units(cv2.cvtColor(_untinted(bgr, prep.gains, prep.tint), cv2.COLOR_BGR2Lab))
        return _lab_units(_balanced_lab(bgr, prep.gains))
    out = cv2.warpAffine(prep.lab, m, (len(xs), len(ys)), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_REPLICATE)
    return _lab_units(out) if out.dtype == np.uint8 else np.asarray(out, np.float32)


def _grow(cam: CameraPlace, height_mm: float) -> float:
    """How much larger a surface ``height_mm`` above the mat is seen than on the mat (nearer the camera)."""
    h = min(height_mm, cam.height_mm * 0.5)
    return 1.0 + h / (cam.height_mm - h)


def _untinted(raw: np.ndarray, gains: np.ndarray, tint: np.ndarray) -> np.ndarray:
    """8-bit BGR balanced with the paper's gains and the clipped paper's tint taken out: a clipped channel of a
    pixel that is not clipped is divided by the tint (its light as the paper's true level would scale it); where
    the pixel is clipped too, its light there is unknown and taken as the most a neutral pixel would show (the
    mean of its other channels), never less than the clipped level allows. The paper stays grey, a pale gem is
    grey again, a coloured gem keeps its hue (a clipped red channel stays strong)."""
    bal = raw.astype(np.float32) * gains[None, None, :]
    out = bal.copy()
    others = [c for c in range(3) if tint[c] == 1]
    for c in np.nonzero(tint != 1)[0]:
        out[:, :, c] = bal[:, :, c] / tint[c]
        if others:
            lifted = np.maximum(out[:, :, c], bal[:, :, others].mean(axis=2))
            out[:, :, c] = np.where(raw[:, :, c] >= 254, lifted, out[:, :, c])
    return np.clip(out, 0, 255).astype(np.uint8)


def _seen_px(prep: Prepared, pts_mm: np.ndarray, height_mm: float) -> np.ndarray:
    cam = prep.camera
    h = min(height_mm, cam.height_mm * 0.5)
    seen = pts_mm + (pts_mm - np.asarray(cam.nadir)) * (h / (cam.height_mm - h))
    return np.asarray((seen - (prep.rect.x, prep.rect.y)) * PX_PER_MM - 0.5)


def _read_pile(prep: Prepared, pile: Rect, height_mm: float, palette: Palette, quarter_mm: float | None) -> tuple[
        tuple[tuple[Colour, tuple[bool, bool, bool, bool]], ...] | None, bool, bool, float]:
    """The domino on a pile: found by its coloured pixels at the pile's height, then its 8 quadrants read."""
    step = 1.0 / PX_PER_MM
    xs = np.arange(pile.x - 3, pile.x + pile.w + 3, step)
    ys = np.arange(pile.y - 3, pile.y + pile.h + 3, step)
    lab = _grid(prep, xs, ys, height_mm)
    coloured = np.hypot(lab[:, :, 1], lab[:, :, 2]) > COLOURED_CHROMA
    if coloured.mean() < 0.15:
        return None, True, False, 0.0
    cols = np.nonzero(coloured.mean(axis=0) > 0.4)[0]
    rows = np.nonzero(coloured.mean(axis=1) > 0.4)[0]
    if len(cols) < 4 or len(rows) < 8:
        return None, False, False, 0.0
    x0, x1 = xs[cols[0]], xs[cols[-1]] + step
    y0, y1 = ys[rows[0]], ys[rows[-1]] + step
    # Placed by the middle of what is seen (a side wall or a shadow widens one side only), sized by the block
    # fitted on the pyramids when given, else by the domino's width and length.
    q = quarter_mm if quarter_mm is not None else ((x1 - x0) / 2 + (y1 - y0) / 4) / 2
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    centres = np.array([(cx + (qx - 0.5) * q, cy + (qy - 1.5) * q + 2 * q * b)
                        for b in (0, 1) for qy in (0, 1) for qx in (0, 1)])
    # The quadrants are sampled from the pile's grid just taken (the top as seen at its height, 2 px/mm of the
    # top's own millimetres) rather than from the frame again: a grid millimetre of the top is seen ``grow`` times
    # larger on the mat, so the windows are taken that much smaller to cover what they covered in the zone.
    grow = _grow(prep.camera, height_mm)
    at = (centres - (float(xs[0]), float(ys[0]))) * PX_PER_MM
    f = _cell_features(lab, at, q * PX_PER_MM / grow, palette)
    blocks = []
    sure = True
    face_up = True
    for b in (0, 1):
        idx = list(range(4 * b, 4 * b + 4))
        winners = [int(f["winner"][k]) for k in idx]
        colour = COLOURS[max(set(winners), key=winners.count)]
        icons = tuple(bool(f["icon"][k] > ICON_AT) for k in idx)
        blocks.append((colour, (icons[0], icons[1], icons[2], icons[3])))
        sure &= len(set(winners)) == 1 and all(f["win_share"][k] >= HUE_SURE for k in idx)
        # As on the pyramids: sure of an icon when both measures say so, of none when neither comes near.
        sure &= all((f["icon_low"][k] >= ICON_AT + ICON_DOUBT) if icons[k - 4 * b]
                    else (f["icon_high"][k] <= ICON_AT - ICON_DOUBT) for k in idx)
        face_up &= all(LIKENESS[0] <= f["likeness"][k] <= LIKENESS[1] and f["l_off"][k] <= LIGHTNESS_OFF
                       for k in idx if not icons[k - 4 * b])
    plain = [k for k in range(8) if not blocks[k // 4][1][k % 4]] or list(range(8))
    light = float(np.mean([f["l_signed"][k] for k in plain]))
    return (blocks[0], blocks[1]), bool(sure and face_up), bool(face_up), light


def _count_gems(prep: Prepared, area: Rect, palette: Palette, cam: CameraPlace,
                thickness_mm: float, *, most: int | None = None, oval: bool = True,
                washed_out: list[tuple[bool, bool, bool]] | None = None,
                beside: tuple[Rect, float] | None = None) -> tuple[tuple[int, ...], int, bool]:
    """The gems in a gem area: coloured ones (counts in COLOURS order) and mythical ones, and whether the count is
    sure.

    A gem is a blob that stands out of the paper inside the area's ellipse, by colour or by its darker rim (a
    mythical gem is pale: its rim and facets, not its colour, tell it from the paper; its shadow is fainter than
    the threshold). A blob's area in gems says how many touch (n gems cover 0.8 n to 1.25 n gems' area: touching
    gems merge their shadows); such a blob is split among them (k-means on its pixels), and each gem is named by
    the middle of it (``GEM_CORE_MM``): coloured when saturated (or dark and fairly saturated, a low-chroma blue),
    by its hue's vote, mythical when nearly grey. Unsure: a blob whose area fits no whole number of gems or only
    part of one, a gem between coloured and grey, a split vote, a faint blob the threshold missed (over-exposed
    or soft), or paper clipped white (a pale gem then fades into it)."""
    step = 1.0 / PX_PER_MM
    xs = np.arange(area.x, area.x + area.w, step)
    ys = np.arange(area.y, area.y + area.h, step)
    # A gem area is an oval; an inventory spot is read over its whole box (``oval`` False).
    inside = _ellipse(len(xs), len(ys), (area.w / 2) / step, (area.h / 2) / step, 0.9 if oval else 4.0)
    # Paper clipped white in every channel (over-exposed): a pale gem's rim may fade into it, unseen, unless the
    # area's printed outline (a light grey) still reads darker than the paper. The outline is then read from one
    # grid with the gems (3 mm wider; no tint to take out when every channel clipped: :func:`_clipped_tint`).
    clipped = not bool(np.mean(PAPER_LEVEL / prep.gains) < 254.5)
    if clipped and oval:
        pad = round(OUTLINE_PAD_MM * PX_PER_MM)
        wide = _grid(prep, np.arange(area.x - OUTLINE_PAD_MM, area.x + area.w + OUTLINE_PAD_MM, step),
                     np.arange(area.y - OUTLINE_PAD_MM, area.y + area.h + OUTLINE_PAD_MM, step), thickness_mm)
        lab = np.ascontiguousarray(wide[pad:pad + len(ys), pad:pad + len(xs)])
        washed = _outline_contrast(wide[:, :, 0], area) < OUTLINE_SEEN
        sure = True
    else:
        lab = _grid(prep, xs, ys, thickness_mm, neutral=True)
        washed = False
        sure = not clipped
    one = GEM_BLOB_MM2 * PX_PER_MM * PX_PER_MM
    # The pile beside the area, seen from a camera off to its side, leans over the area in the picture (its top is
    # its height nearer the camera): what it covers is no gem, and a gem may lie unseen under it.
    leaning = _pile_over(cam, beside, float(xs[0]), float(ys[0]), inside.shape) if beside is not None else None
    hidden_room = False
    if leaning is not None:
        covered = leaning & inside
        hidden_room = bool(covered.sum() >= 0.3 * one)  # room for a gem unseen: the count is a lower bound
        inside = inside & ~cv2.dilate(leaning.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    light, a, b = lab[:, :, 0], lab[:, :, 1], lab[:, :, 2]
    chroma = np.hypot(a, b)
    paper = _median(light[inside])
    coloured = (chroma > COLOURED_CHROMA) & inside
    # Over-exposed, the print washed out: every light thing is pressed towards the clipped paper, a pale gem's rim
    # too (8-15 L darker where it reads 20+ otherwise). Gems are found with a rim threshold that much lower, and the
    # count is sure only when it does not depend on the threshold: the same whole gems from GEM_RIM_WASHED_CHECK
    # below to above it (a pale gem fading into the paper shows as a part of a gem at some threshold, or not at all
    # at the higher one).
    rim = GEM_RIM_WASHED if washed else GEM_RIM_DARKER
    steady = True
    fg = _gem_mask(light, coloured, inside, paper - rim)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    if washed:
        totals = {_gems_by_area(stats, one)}
        for t in (rim - GEM_RIM_WASHED_CHECK, rim + GEM_RIM_WASHED_CHECK):
            totals.add(_gems_by_area(cv2.connectedComponentsWithStats(
                _gem_mask(light, coloured, inside, paper - t), connectivity=8)[2], one))
        steady = len(totals) == 1 and None not in totals
        sure = sure and steady
    if washed_out is not None:
        washed_out.append((washed, washed and not steady, hidden_room))
    counts = [0] * len(COLOURS)
    mythical = 0
    ref = palette.hues()
    core_px = GEM_CORE_MM * PX_PER_MM
    for k in range(1, n):
        size = stats[k, cv2.CC_STAT_AREA]
        if size < 0.1 * one:
            continue  # a speck of noise
        many = size / one
        if many < 0.8:
            sure = False  # part of a gem (a hand's edge, a gem half outside): never a silent nothing
            continue
        fits = [g for g in (1, 2, 3) if 0.8 * g <= many <= 1.25 * g]
        gems = fits[0] if fits else max(1, min(3, round(many / 1.05)))
        sure &= len(fits) == 1
        py, px = np.nonzero(labels == k)
        if gems == 1:
            parts = [np.ones(len(px), bool)]
        else:
            where = np.column_stack([px, py]).astype(np.float32)
            _, split, _ = cv2.kmeans(where, gems, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5),
                                     3, cv2.KMEANS_PP_CENTERS)
            parts = [split.ravel() == j for j in range(gems)]
        for part in parts:
            qx, qy = px[part], py[part]
            core = np.hypot(qx - qx.mean(), qy - qy.mean()) <= core_px
            cx, cy = qx[core], qy[core]
            if len(cx) == 0:
                sure = False
                continue
            c = _median(chroma[cy, cx])
            dark = _median(light[cy, cx]) - paper
            if c >= GEM_SATURATED or (c >= COLOURED_CHROMA and dark < -GEM_DARK):
                sat = coloured[cy, cx]
                h = np.arctan2(b[cy[sat], cx[sat]], a[cy[sat], cx[sat]])
                diff = np.abs((h[:, None] - ref[None, :] + np.pi) % (2 * np.pi) - np.pi)
                votes = np.bincount(np.argmin(diff, axis=1), minlength=len(COLOURS))
                counts[int(votes.argmax())] += 1
                sure &= bool(votes.max() >= 0.7 * votes.sum())
            else:
                mythical += 1
                sure &= c < GEM_GREY
    # A gem of low contrast that the threshold above missed (over-exposed, soft focus): unsure, not nothing.
    faint = (((chroma > GEM_GREY) | (light < paper - GEM_FAINT)) & inside).astype(np.uint8)
    faint = cv2.morphologyEx(faint, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    nf, lf, sf, _ = cv2.connectedComponentsWithStats(faint, connectivity=8)
    for k in range(1, nf):
        if sf[k, cv2.CC_STAT_AREA] >= 0.5 * one and (fg[lf == k] > 0).mean() < 0.3:
            sure = False
    if sum(counts) + mythical > (most or GEMS_PER_AREA):
        sure = False  # a gem area never holds more than one refill (``most``)
    if hidden_room and washed_out is not None and sure:
        washed_out[-1] = (washed, washed and not steady, True)  # counted clearly: at least these gems
    elif washed_out is not None:
        washed_out[-1] = (washed, washed and not steady, False)
    return tuple(counts), mythical, bool(sure and not hidden_room)


def _pile_over(cam: CameraPlace, beside: tuple[Rect, float], x0: float, y0: float,
               shape: tuple[int, ...]) -> np.ndarray | None:
    """Where a pile (its outline, ``height`` tall) is seen on a gem area's grid (origin ``x0``, ``y0`` mm, at
    PX_PER_MM): the hull of its foot and its top as the camera sees them; None when it covers none of the grid."""
    rect, height = beside
    if height <= 0:
        return None
    foot = np.asarray(rect.corners(), np.float64)
    seen = np.vstack([foot, cam.shift(foot, height)])
    px = np.round((seen - (x0, y0)) * PX_PER_MM).astype(np.int32)
    ny, nx = shape[0], shape[1]
    if px[:, 0].max() < 0 or px[:, 1].max() < 0 or px[:, 0].min() >= nx or px[:, 1].min() >= ny:
        return None
    mask = np.zeros((ny, nx), np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull(px), 1)
    return mask.astype(bool) if mask.any() else None


def _gem_mask(light: np.ndarray, coloured: np.ndarray, inside: np.ndarray, below: float) -> np.ndarray:
    """What stands out of the paper in a gem area: coloured, or darker than ``below`` (a rim), specks opened away
    and a pale gem's light facets inside its rim filled."""
    fg = ((coloured | (light < below)) & inside).astype(np.uint8)
    return _filled(cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)))


def _gems_by_area(stats: np.ndarray, one: float) -> int | None:
    """How many gems the blobs (``stats`` of :func:`cv2.connectedComponentsWithStats` on :func:`_gem_mask`) make by
    their areas (``one``: a gem's, px); None when a blob fits no single whole number of gems (part of a gem, or
    between two counts)."""
    total = 0
    for k in range(1, len(stats)):
        many = stats[k, cv2.CC_STAT_AREA] / one
        if many < 0.1:
            continue
        fits = [g for g in (1, 2, 3) if 0.8 * g <= many <= 1.25 * g]
        if len(fits) != 1:
            return None
        total += fits[0]
    return total


@lru_cache(maxsize=16)
def _ellipse(nx: int, ny: int, rx: float, ry: float, within: float) -> np.ndarray:
    """(ny, nx): True inside the ellipse of radii ``rx``, ``ry`` (grid steps, from the grid's origin corner's
    ellipse centre at (rx, ry)) scaled by sqrt(``within``): a gem area's inside on its sampling grid."""
    gx, gy = np.meshgrid(np.arange(nx, dtype=np.float64), np.arange(ny, dtype=np.float64))
    out = (((gx - rx) / rx) ** 2 + ((gy - ry) / ry) ** 2) < within
    out.flags.writeable = False
    return out


#: The margin (mm) around a gem area within which its printed outline is read.
OUTLINE_PAD_MM = 3.0


def _outline_contrast(light: np.ndarray, area: Rect) -> float:
    """How much darker than the paper inside it (CIELAB L) a gem area's printed elliptic outline reads: the
    darkest point across the line, in 24 sectors, their median (4-9 on renders, 0 when over-exposure washed the
    grey print out). ``light``: CIELAB L on the grid of the area grown by ``OUTLINE_PAD_MM``, at PX_PER_MM."""
    step = 1.0 / PX_PER_MM
    ny, nx = light.shape
    inside, ring, starts = _outline_geometry(nx, ny, (area.w / 2 + OUTLINE_PAD_MM) / step,
                                             (area.h / 2 + OUTLINE_PAD_MM) / step, (area.w / 2) / step,
                                             (area.h / 2) / step)
    paper = _median(light[inside])
    if not len(starts):
        return 0.0
    darkest = np.minimum.reduceat(light.ravel()[ring], starts)
    return paper - _median(darkest)


@lru_cache(maxsize=16)
def _outline_geometry(nx: int, ny: int, cx: float, cy: float, rx: float,
                      ry: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """On a grid around a gem area (centre ``cx``, ``cy``, radii ``rx``, ``ry``, in grid steps): the inside
    (within 0.9 of the ellipse), and the ring across its outline (0.93-1.07) as flat indices ordered by 24
    sectors, with each sector's first place in that order (for one ``minimum.reduceat``)."""
    gx, gy = np.meshgrid(np.arange(nx, dtype=np.float64), np.arange(ny, dtype=np.float64))
    dx, dy = gx - cx, gy - cy
    r = np.sqrt((dx / rx) ** 2 + (dy / ry) ** 2)
    ring = ((r > 0.93) & (r < 1.07)).ravel()
    where = np.nonzero(ring)[0]
    sector = np.digitize(np.arctan2(dy.ravel()[where], dx.ravel()[where]), np.linspace(-np.pi, np.pi, 25))
    order = np.argsort(sector, kind="stable")
    sector, where = sector[order], where[order]
    starts = np.nonzero(np.r_[True, sector[1:] != sector[:-1]])[0] if len(sector) else np.zeros(0, np.int64)
    inside = r < 0.9
    for a in (inside, where, starts):
        a.flags.writeable = False
    return inside, where, starts


#: The printed outline must read this much darker than clipped paper for a gem count to be sure.
OUTLINE_SEEN = 2.5


def _filled(mask: np.ndarray) -> np.ndarray:
    """``mask`` with its holes filled (a pale gem's light facets inside its rim)."""
    h, w = mask.shape
    flood = np.pad(mask, 1).copy()
    cv2.floodFill(flood, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 1)
    holes = (np.pad(mask, 1) == 0) & (flood == 0)
    return np.asarray(mask | holes[1:-1, 1:-1].astype(np.uint8))


#: A gem's blob seen from above at the threshold (mm^2): an octagon 11 mm across with its rim and the edge of its
#: shadow; measured on renders of tuning seeds 41 and 4201-4204 (single gems 119-159 mm^2, blur included).
GEM_BLOB_MM2 = 135.0
#: How much darker than the paper (CIELAB L) a gem's rim reads; its shadow reads 5-15 darker, a pale gem's rim 20+.
GEM_RIM_DARKER = 15.0
#: The faint threshold that catches what the one above misses (an over-exposed or soft pale gem).
GEM_FAINT = 6.0
#: On over-exposed paper whose print is washed out, a gem's rim threshold (CIELAB L below the paper), and how far
#: below and above it the count must stay the same to be sure: chosen on tuning seed 4502's over-exposed mat (the
#: gem areas' blobs gave the true number of gems at 8 and 10 in all of 200 areas, at 15 in 172) and checked on
#: seed 4301 made over-exposed (``exposure:1.3``), where pale gems fade to parts of a gem.
GEM_RIM_WASHED = 9.0
GEM_RIM_WASHED_CHECK = 3.0
#: The middle of a gem (radius, mm), where its colour is judged: away from a touching neighbour's halo.
GEM_CORE_MM = 3.5
#: A coloured gem's middle: chroma at least this, or COLOURED_CHROMA and darker than the paper by GEM_DARK (a
#: low-chroma blue). A mythical gem's middle reads under GEM_GREY (measured 1-7.3 on renders; a white balance the
#: paper cannot correct, clipped, moves it to 13-24: then it is unsure).
GEM_SATURATED = 30.0
GEM_DARK = 40.0
GEM_GREY = 10.0
#: The gems a gem area holds at most (one refill).
GEMS_PER_AREA = 3


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m vision.pyramido_read", description=__doc__.split("\n\n")[0])
    ap.add_argument("image", nargs="?", help="a frame to read (BGR image file)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seat", type=int, default=1, help="whose pyramid (1-based)")
    ap.add_argument("--draw", help="write the frame with the cells read drawn on it here")
    ap.add_argument("--measure", action="store_true", help="measure on rendered seeded games (the lab renderer)")
    ap.add_argument("--seeds", default="100-111", help="seeds A-B measured (the reader was tuned on seeds 1-9)")
    ap.add_argument("--turns", type=int, default=6, help="placements rendered per game")
    ap.add_argument("--condition", action="append", default=[], help="KIND:AMOUNT (vision.conditions), repeatable")
    ap.add_argument("--nominal", action="store_true", help="read with the nominal palette, not one taught per table")
    ap.add_argument("--hands", type=float, default=0.0, help="share of frames with a hand over the pyramid")
    ap.add_argument("--tilt", type=float, default=20.0, help="largest camera tilt rendered (degrees)")
    ap.add_argument("--exploration", action="store_true", help="with --measure: the exploration area instead")
    args = ap.parse_args(argv)
    if args.measure:
        from vision.lab.pyramido_render import measure, measure_exploration

        lo, _, hi = args.seeds.partition("-")
        seeds = list(range(int(lo), int(hi or lo) + 1))
        if args.exploration:
            print(json.dumps(measure_exploration(seeds, args.players, args.turns)), flush=True)
            return 0
        for cond in args.condition or [None]:
            print(json.dumps(measure(seeds, args.players, args.turns, cond, not args.nominal, args.hands, args.tilt)),
                  flush=True)
        return 0
    if not args.image:
        ap.error("give an IMAGE to read, or --measure")
    from vision.registration import locate

    image = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if image is None:
        ap.error(f"cannot read the image {args.image!r}")
    reg = locate(image, "pyramido", args.players)
    view = reg.zone(f"pyramid-{args.seat}")
    if view is None:
        print(json.dumps({"problems": reg.problems}))
        return 1
    reading = read_zone(image, view, seat=args.seat - 1)
    print(json.dumps({"zone": reading.zone, "lattice": reading.lattice.to_json() if reading.lattice else None,
                      "cells": [c.to_json() for c in reading.cells if c.colour is not None or not c.sure],
                      "problems": list(reading.problems)}))
    if args.draw:
        out = image.copy()
        for c in reading.cells:
            x, y = (round(v) for v in c.centre_px)
            colour = (0, 0, 255) if not c.sure else (255, 255, 255)
            if c.colour is not None or not c.sure:
                label = (c.colour.letter if c.colour else "-") + ("*" if c.icon else "")
                cv2.putText(out, label, (x - 5, y + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35, colour, 1, cv2.LINE_AA)
        cv2.imwrite(args.draw, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
