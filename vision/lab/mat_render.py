"""Lab: mats drawn into camera frames, and the registration stage measured on them in millimetres.

Part of vision's lab (with :mod:`vision.lab.render`), never imported by the device. A scene lays mats on a
table (each turned, some opposite each other, optionally printed at the wrong scale or mirrored), looks at
the table through a pinhole camera tilted up to 30 degrees from straight down and turned about its axis,
and draws the mats with their markers into the frame at twice the size, then shrinks it (so edges are
antialiased as a lens would leave them). Then: a lighting gradient, blur, noise and JPEG, and optionally
hands or boxes over some markers. The truth of each mat is its homography from sheet millimetres to frame
pixels, so the mapping error of :func:`vision.registration.locate` is measured exactly: points over every
zone are taken to the frame by the truth and back to the sheet by the fit.

Everything comes from a ``numpy.random.Generator``; a scene is reproducible from its seed.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from vision.mats import MARKER_CELLS, Mat, marker_bits, mats
from vision.registration import UNSURE_WARN_MM, MarkerFinder, Registration, fit_disagrees, locate

_INK = 28
_PAPER = (242, 244, 246)


def _shift(dx: float, dy: float) -> np.ndarray:
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)


_PATCH = 16  # marker patch pixels per cell before it is warped onto the sheet


def _draw_marker(out: np.ndarray, marker_id: int, x0: float, y0: float, side_mm: float, px_per_mm: float) -> None:
    """Warp the marker's cells onto the sheet raster at their exact sub-pixel place (edges antialiased)."""
    cell = side_mm / MARKER_CELLS
    bits = marker_bits(marker_id)
    patch = np.where(np.kron(bits, np.ones((_PATCH, _PATCH), bool)), _INK, 255).astype(np.uint8)
    k = cell / _PATCH * px_per_mm  # patch pixel -> raster pixel
    # Patch pixel centre a sits at mm x0 + (a + 0.5) * cell / _PATCH; raster pixel centre u at mm (u + 0.5) / ppm.
    tx, ty = (x0 + 0.5 * cell / _PATCH) * px_per_mm - 0.5, (y0 + 0.5 * cell / _PATCH) * px_per_mm - 0.5
    left, top = max(0, int(tx) - 2), max(0, int(ty) - 2)
    side = int(side_mm * px_per_mm) + 6
    right, bottom = min(out.shape[1], left + side), min(out.shape[0], top + side)
    m = np.array([[k, 0, tx - left], [0, k, ty - top]], np.float64)
    roi = out[top:bottom, left:right]
    warped = cv2.warpAffine(patch, m, (right - left, bottom - top), flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    ink = (255 - warped.astype(np.float32)) / (255 - _INK)
    roi[:] = (roi * (1 - ink[:, :, None]) + _INK * ink[:, :, None]).astype(np.uint8)


@lru_cache(maxsize=32)
def _raster(game: str, slot: int, px_per_mm: float) -> np.ndarray:
    from vision.mats import mat_in_slot

    mat = mat_in_slot(game, slot)
    w, h = (round(mat.size[0] * px_per_mm), round(mat.size[1] * px_per_mm))
    out = np.empty((h, w, 3), np.uint8)
    out[:] = _PAPER

    def px(v: float) -> int:
        return round(v * px_per_mm)

    line = max(1, round(0.35 * px_per_mm))
    for zone in mat.zones:
        r = zone.rect
        cv2.rectangle(out, (px(r.x), px(r.y)), (px(r.x + r.w), px(r.y + r.h)), (90, 90, 90), line)
        for o in zone.outlines:
            q = o.rect
            if o.round:
                cv2.ellipse(out, (px(q.x + q.w / 2), px(q.y + q.h / 2)), (px(q.w / 2), px(q.h / 2)), 0, 0, 360,
                            (150, 150, 150), line)
            else:
                cv2.rectangle(out, (px(q.x), px(q.y)), (px(q.x + q.w), px(q.y + q.h)), (150, 150, 150), line)
    for marker in mat.markers:
        x0, y0 = marker.corners[0]
        _draw_marker(out, marker.id, x0, y0, mat.marker_mm, px_per_mm)
    out.setflags(write=False)
    return out


def mat_raster(mat: Mat, px_per_mm: float, mirrored: bool = False) -> np.ndarray:
    """The printed sheet as a BGR image at ``px_per_mm``: paper, zone lines, outlines and markers (pixel u's
    centre is at mm (u + 0.5) / px_per_mm)."""
    out = _raster(mat.game, mat.slot, float(px_per_mm))
    return out[:, ::-1].copy() if mirrored else out.copy()


@dataclass(frozen=True)
class PlacedMat:
    """A mat on the table: its centre (table mm), turn (degrees), print scale and whether printed mirrored."""

    mat: Mat
    centre: tuple[float, float]
    angle: float = 0.0
    scale: float = 1.0
    mirrored: bool = False

    def paper_to_table(self) -> np.ndarray:
        """Paper mm (as the sheet lies, whatever was printed on it) -> table mm (3x3)."""
        w, h = self.mat.size
        to_centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], np.float64)
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]], np.float64)
        s = np.diag([self.scale, self.scale, 1.0])
        move = np.array([[1, 0, self.centre[0]], [0, 1, self.centre[1]], [0, 0, 1]], np.float64)
        return move @ rot @ s @ to_centre

    def to_table(self) -> np.ndarray:
        """Sheet mm (the mat's design coordinates) -> table mm (3x3). A mirrored print puts the design's point
        (x, y) at (w - x, y) of the paper."""
        flip = np.array([[-1.0, 0, self.mat.size[0]], [0, 1, 0], [0, 0, 1]]) if self.mirrored else np.eye(3)
        return self.paper_to_table() @ flip


@dataclass(frozen=True)
class ViewStyle:
    """How the camera sees the table and what the frame suffers."""

    tilt: float = 0.0  # degrees from straight down
    azimuth: float = 0.0  # direction of the tilt on the table
    roll: float = 0.0  # the camera turned about its axis
    fill: float = 0.85  # share of the frame the mats' bounding box spans
    light: float = 0.0  # strength of the lighting gradient (0..0.6)
    light_direction: float = 0.0
    blur: float = 0.0  # Gaussian sigma, frame pixels
    noise: float = 0.0  # Gaussian noise sigma, grey levels
    jpeg: int | None = None  # JPEG quality, None for none
    cover: int = 0  # markers covered by hands and boxes
    k1: float = 0.0  # radial lens distortion (negative: barrel), on radii normalised by the frame's width


def random_view(rng: np.random.Generator, max_tilt: float = 30.0, cover: int = 0) -> ViewStyle:
    return ViewStyle(
        tilt=float(rng.uniform(0, max_tilt)),
        azimuth=float(rng.uniform(0, 360)),
        # Cameras are mounted with the frame's long side along the table's, either way round, give or take 15°.
        roll=float(180 * rng.integers(0, 2) + rng.uniform(-15, 15)),
        fill=float(rng.uniform(0.75, 0.92)),
        light=float(rng.uniform(0.1, 0.5)),
        light_direction=float(rng.uniform(0, 360)),
        blur=float(rng.uniform(0.3, 1.2)),
        noise=float(rng.uniform(1, 6)),
        jpeg=int(rng.integers(60, 95)),
        cover=cover,
    )


@dataclass
class MatScene:
    """A rendered frame and its truth: each mat's sheet-mm -> frame-pixel homography, the markers covered."""

    image: np.ndarray
    truth: dict[str, np.ndarray]
    placed: list[PlacedMat]
    view: ViewStyle
    covered: tuple[int, ...] = ()
    camera: np.ndarray = field(default_factory=lambda: np.eye(3))  # table mm -> frame pixels


def table_layout(sheets: Sequence[Mat], rng: np.random.Generator, jitter: float = 8.0) -> list[PlacedMat]:
    """Mats side by side on the table in rows of two, each turned a little, every other row facing the other way."""
    placed = []
    x = y = 0.0
    row_h = 0.0
    for i, mat in enumerate(sheets):
        w, h = mat.size
        if i % 2 == 0 and i:
            x, y = 0.0, y + row_h + 30
            row_h = 0.0
        turn = 180.0 if (i // 2) % 2 else 0.0
        angle = turn + float(rng.uniform(-jitter, jitter))
        placed.append(PlacedMat(mat, (x + w / 2, y + h / 2), angle))
        x += w + 30
        row_h = max(row_h, h)
    return placed


def camera_rotation(forward: np.ndarray, down_hint: np.ndarray, roll: float) -> np.ndarray:
    """World -> camera rotation (rows: the frame's right, down, and the view direction) of a camera looking along
    ``forward`` with the frame's "down" towards ``down_hint``, then turned ``roll`` radians about its axis."""
    right = np.cross(down_hint, forward)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    c, s = math.cos(roll), math.sin(roll)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.stack([right, down, forward])


def _camera(view: ViewStyle) -> np.ndarray:
    """Table plane (mm, z = 0) -> normalised image plane, for a camera above the origin tilted by ``tilt``."""
    t, az, roll = (math.radians(v) for v in (view.tilt, view.azimuth, view.roll))
    distance = 1000.0
    # Table axes: x right, y down the sheet, z into the table (right-handed); the camera is at z < 0.
    centre = np.array([math.sin(t) * math.cos(az), math.sin(t) * math.sin(az), -math.cos(t)]) * distance
    forward = -centre / np.linalg.norm(centre)
    # The frame's "down" follows the table's y whatever way the camera leans; ``roll`` turns it.
    rot = camera_rotation(forward, np.array([0.0, 1.0, 0.0]), roll)
    t_vec = -rot @ centre
    return np.column_stack([rot[:, 0], rot[:, 1], t_vec])


def _fit_into(h: np.ndarray, corners: np.ndarray, size: tuple[int, int], fill: float,
              rng: np.random.Generator) -> np.ndarray:
    """Scale and shift the image plane so the corners' bounding box spans ``fill`` of the frame (a focal length
    and principal point: still a pinhole camera)."""
    p = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h).reshape(-1, 2)
    lo, hi = p.min(axis=0), p.max(axis=0)
    span = hi - lo
    k = fill * min(size[0] / span[0], size[1] / span[1])
    room = np.array(size) - span * k
    offset = room * rng.uniform(0.3, 0.7, size=2) - lo * k
    return np.array([[k, 0, offset[0]], [0, k, offset[1]], [0, 0, 1]]) @ h


def render_mats(
    rng: np.random.Generator,
    placed: Sequence[PlacedMat],
    size: tuple[int, int] = (1280, 960),
    view: ViewStyle | None = None,
    covered: Sequence[int] | None = None,
    camera: np.ndarray | None = None,
) -> MatScene:
    """Draw ``placed`` mats as a camera with ``view`` sees them. ``covered`` names markers to hide (default:
    ``view.cover`` markers chosen at random). The camera is aimed so the mats fill ``view.fill`` of the frame,
    unless ``camera`` (a scene's ``camera``: table mm -> frame pixels) keeps it where it was."""
    view = view or ViewStyle()
    if camera is None:
        corners = np.concatenate([
            cv2.perspectiveTransform(np.array([[(0, 0), (pm.mat.size[0], 0), pm.mat.size, (0, pm.mat.size[1])]],
                                              np.float64), pm.to_table())[0]
            for pm in placed
        ])
        table_to_frame = _fit_into(_camera(view), corners, size, view.fill, rng)
    else:
        table_to_frame = np.asarray(camera, np.float64)
    big = (size[0] * 2, size[1] * 2)
    frame = _table_surface(rng, big)
    truth: dict[str, np.ndarray] = {}
    # Pixel centres: final pixel p is at 2p + 0.5 of the frame drawn at twice the size.
    up = _shift(0.5, 0.5) @ np.diag([2.0, 2.0, 1.0])
    for pm in placed:
        mat_to_frame = table_to_frame @ pm.to_table()
        truth.setdefault(pm.mat.key, mat_to_frame)
        ppm = float(np.clip(math.ceil(_max_scale(up @ mat_to_frame, pm.mat) * 1.25), 2, 12))
        raster = _raster(pm.mat.game, pm.mat.slot, ppm)
        if pm.mirrored:
            raster = raster[:, ::-1]
        paper_to_frame = table_to_frame @ pm.paper_to_table()
        m = up @ paper_to_frame @ np.diag([1 / ppm, 1 / ppm, 1.0]) @ _shift(0.5, 0.5)
        # Warp only into the sheet's bounding box: most of the frame is other sheets or table.
        quad = cv2.perspectiveTransform(np.array([[(0, 0), (raster.shape[1], 0), (raster.shape[1], raster.shape[0]),
                                                   (0, raster.shape[0])]], np.float64), m)[0]
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, big[0]), min(y1, big[1])
        if x1 <= x0 or y1 <= y0:
            continue
        m_roi = _shift(-x0, -y0) @ m
        rgba = np.dstack([raster, np.full(raster.shape[:2], 255, np.uint8)])
        warped = cv2.warpPerspective(rgba, m_roi, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[:, :, 3:].astype(np.float32) / 255.0
        roi = frame[y0:y1, x0:x1]
        roi[:] = roi * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha
    hide = list(covered) if covered is not None else _pick_covered(rng, placed, view.cover)
    for marker_id in hide:
        for pm in placed:
            if any(m.id == marker_id for m in pm.mat.markers):
                quad = cv2.perspectiveTransform(np.array([pm.mat.marker(marker_id).corners], np.float64),
                                                up @ table_to_frame @ pm.to_table())[0]
                assert quad is not None
                _cover(frame, quad, rng)
    image = cv2.resize(np.clip(frame, 0, 255).astype(np.uint8), size, interpolation=cv2.INTER_AREA)
    if view.k1:
        image = _distort_image(image, view.k1)
    image = _finish(image, rng, view)
    return MatScene(image, truth, list(placed), view, tuple(hide), table_to_frame)


def _max_scale(h: np.ndarray, mat: Mat) -> float:
    pts = [(0, 0), (mat.size[0], 0), mat.size, (0, mat.size[1])]
    best = 0.0
    for x, y in pts:
        p = cv2.perspectiveTransform(np.array([[(x, y), (x + 1, y), (x, y + 1)]], np.float64), h)[0]
        best = max(best, float(np.linalg.norm(p[1] - p[0])), float(np.linalg.norm(p[2] - p[0])))
    return best


def _pick_covered(rng: np.random.Generator, placed: Sequence[PlacedMat], n: int) -> list[int]:
    ids = [m.id for pm in placed for m in pm.mat.markers]
    return [int(i) for i in rng.choice(ids, size=min(n, len(ids)), replace=False)] if n else []


def _table_surface(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A wooden or cloth table: a base colour with low-frequency grain."""
    base = np.array(rng.choice([(60, 90, 130), (40, 70, 40), (90, 90, 95), (30, 50, 90)]), np.float32)
    return grained_surface(rng, size, base, 0.12)


def grained_surface(rng: np.random.Generator, size: tuple[int, int], base: np.ndarray, amount: float) -> np.ndarray:
    """A table of colour ``base`` (BGR, float32) over ``size`` (w, h), its grain (long along x) varying the light by
    ``amount``: the board games' renderers' tables."""
    w, h = size
    grain = cv2.resize(rng.normal(0, 1, (max(2, h // 40), max(2, w // 8))).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_LINEAR)
    return np.multiply(base[None, None, :], (1 + amount * grain)[:, :, None], dtype=np.float32)


def _cover(frame: np.ndarray, quad: np.ndarray, rng: np.random.Generator) -> None:
    """A hand (skin-coloured blob) or a box (grey rectangle) over a marker, reaching past it on every side."""
    centre = quad.mean(axis=0)
    grown = centre + (quad - centre) * float(rng.uniform(1.3, 1.7))
    if rng.random() < 0.5:
        colour = tuple(float(c) for c in rng.choice([(120, 160, 210), (90, 130, 180), (60, 90, 140)]))
        axes = np.linalg.norm(grown[0] - grown[2]) / 2
        cv2.ellipse(frame, (int(centre[0]), int(centre[1])), (int(axes * 1.1), int(axes * 0.8)),
                    float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
    else:
        colour = tuple(float(c) for c in rng.uniform(40, 200, size=3))
        cv2.fillConvexPoly(frame, np.rint(grown).astype(np.int32), colour, cv2.LINE_AA)


def _finish(image: np.ndarray, rng: np.random.Generator, view: ViewStyle) -> np.ndarray:
    return finish_frame(image, rng, light=view.light, light_direction=view.light_direction, blur=view.blur,
                        noise=view.noise, jpeg=view.jpeg)


def finish_frame(image: np.ndarray, rng: np.random.Generator, *, light: float, light_direction: float, blur: float,
                 noise: float, jpeg: float | None) -> np.ndarray:
    """What the camera adds to a drawn table, the same for every game's renderer: a lighting gradient of
    strength ``light`` from ``light_direction`` (degrees), a Gaussian blur, sensor noise (grey levels) and JPEG
    compression (quality; None: none). ``image`` may be float; the frame returned is 8-bit BGR."""
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    if light > 0:
        a = math.radians(light_direction)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / max(w, h)
        out *= (1 - light / 2 + light * (ramp + 0.5))[:, :, None]
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    if noise > 0:
        out += rng.standard_normal(out.shape, dtype=np.float32) * np.float32(noise)
    result = np.clip(out, 0, 255).astype(np.uint8)
    if jpeg is not None:
        ok, buf = cv2.imencode(".jpg", result, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg)])
        if ok:
            result = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return result


def distort_points(points: np.ndarray, k1: float, width: int, height: int) -> np.ndarray:
    """Where a lens with radial distortion ``k1`` puts ideal (pinhole) image points."""
    c = np.array([width / 2, height / 2])
    n = (np.asarray(points, np.float64) - c) / width
    r2 = (n**2).sum(axis=1, keepdims=True)
    return np.asarray(c + n * (1 + k1 * r2) * width)


def _distort_image(image: np.ndarray, k1: float) -> np.ndarray:
    """The pinhole frame as the lens draws it: each output pixel looks up the ideal point it shows."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    d = (np.stack([xx.ravel(), yy.ravel()], axis=1) - [w / 2, h / 2]) / w
    u = d.copy()
    for _ in range(8):  # invert d = u (1 + k1 |u|^2) by fixed-point steps
        u = d / (1 + k1 * (u**2).sum(axis=1, keepdims=True))
    src = u * w + [w / 2, h / 2]
    map_x = src[:, 0].reshape(h, w).astype(np.float32)
    map_y = src[:, 1].reshape(h, w).astype(np.float32)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def zone_points(mat: Mat, n: int = 5) -> np.ndarray:
    """An n x n grid of points over every zone of a mat (mm), where the readers will look."""
    pts = []
    for zone in mat.zones:
        r = zone.rect
        for fx in np.linspace(0, 1, n):
            for fy in np.linspace(0, 1, n):
                pts.append((r.x + fx * r.w, r.y + fy * r.h))
    return np.array(pts, np.float64)


def mapping_errors(scene: MatScene, reg: Registration) -> dict[str, np.ndarray]:
    """Per located mat: the distance (mm on the sheet) between each zone point and where the fit maps its
    true image back to. Mats the fit did not locate are absent."""
    out = {}
    for fit in reg.fits:
        true = scene.truth.get(fit.mat.key)
        if true is None:
            continue
        pts = zone_points(fit.mat)
        image_pts = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), true).reshape(-1, 2)
        if scene.view.k1:
            image_pts = distort_points(image_pts, scene.view.k1, scene.image.shape[1], scene.image.shape[0])
        back = fit.frame_to_mat(image_pts)
        out[fit.mat.key] = np.linalg.norm(back - pts, axis=1)
    return out


@dataclass(frozen=True)
class Condition:
    """One measured condition: its name, the view it draws from and the markers to cover."""

    name: str
    max_tilt: float = 30.0
    cover: int = 0
    clean: bool = False  # no gradient, blur, noise or JPEG


CONDITIONS: tuple[Condition, ...] = (
    Condition("straight down, clean", max_tilt=0.0, clean=True),
    Condition("tilt up to 30°, light, blur, noise, JPEG"),
    Condition("same, one marker covered", cover=1),
    Condition("same, two markers covered", cover=2),
)


def evaluate(game: str, frames: int = 20, seed: int = 0, size: tuple[int, int] = (1280, 960),
             players: int = 2, condition: Condition = CONDITIONS[1], sheets: int = 2, k1: float = 0.0
             ) -> dict[str, Any]:
    """Render ``frames`` scenes of ``sheets`` of a game's mats under ``condition`` and measure the mapping error.

    Covered markers are taken from the first mat, so "one marker covered" covers one of the mats measured."""
    finder = MarkerFinder()
    errors: list[float] = []
    readable: list[float] = []  # mats seen at >= 1 px/mm: what calibration accepts (a die >= 16 px)
    per_frame: list[float] = []
    scales: list[float] = []
    located = total = silent = flagged = 0
    all_sheets = mats(game, players)[:sheets]
    for k in range(frames):
        rng = np.random.default_rng([seed, k])
        cv2.setRNGSeed(seed * 100_003 + k)  # RANSAC draws from OpenCV's generator: the same figures every run
        view = random_view(rng, condition.max_tilt, condition.cover)
        if condition.clean:
            view = replace(view, light=0.0, blur=0.0, noise=0.0, jpeg=None)
        if k1:
            view = replace(view, k1=k1)
        placed = table_layout(all_sheets, rng)
        covered = [int(i) for i in rng.choice([m.id for m in placed[0].mat.markers], size=condition.cover,
                                               replace=False)] if condition.cover else []
        scene = render_mats(rng, placed, size, view, covered)
        reg = locate(scene.image, game, players, finder)
        errs = mapping_errors(scene, reg)
        total += len(placed)
        located += len(errs)
        for fit in reg.fits:
            e = errs.get(fit.mat.key)
            if e is None:
                continue
            errors.extend(float(v) for v in e)
            per_frame.append(float(np.median(e)))
            scale = fit.px_per_mm()
            scales.append(scale)
            if scale >= 1.0:
                readable.extend(float(v) for v in e)
            # Off by more than 1 mm somewhere: was it said? Below 1 px/mm calibration already says a die is too
            # small to read, so only mats at 1 px/mm or more count as silent.
            warned = fit.unsure_mm > UNSURE_WARN_MM or fit_disagrees(fit) or scale < 1.0
            if float(e.max()) > 1.0:
                flagged += warned
                silent += not warned
    arr = np.array(errors) if errors else np.array([math.nan])
    ok = np.array(readable) if readable else np.array([math.nan])
    return {
        "game": game,
        "condition": condition.name + (f", lens k1 {k1:g}" if k1 else ""),
        "frames": frames,
        "size": f"{size[0]}x{size[1]}",
        "mats_located": located,
        "mats_total": total,
        "median_mm": float(np.median(arr)),
        "p95_mm": float(np.percentile(arr, 95)),
        "max_mm": float(np.max(arr)),
        "px_per_mm_min": min(scales) if scales else math.nan,
        "px_per_mm_median": statistics.median(scales) if scales else math.nan,
        "median_mm_at_1px_per_mm": float(np.median(ok)),
        "p95_mm_at_1px_per_mm": float(np.percentile(ok, 95)),
        "mats_below_1px_per_mm": sum(v < 1.0 for v in scales),
        "mats_over_1mm_flagged": flagged,
        "mats_over_1mm_silent": silent,
        "worst_frame_median_mm": max(per_frame) if per_frame else math.nan,
    }


def camera_advice(sizes: Sequence[tuple[int, int]] = ((1280, 960), (2304, 1296)), players: int = 2,
                  fill: float = 0.9) -> list[dict[str, Any]]:
    """For each game's table (every sheet for ``players``, laid out as :func:`table_layout` does) and frame size:
    the table's extent, and the pixels per mm and smallest piece's size in pixels that :func:`locate` measures
    on a straight-down frame where the table fills ``fill`` of the frame."""
    from vision.registration import SMALLEST_PIECE_MM

    out = []
    finder = MarkerFinder()
    for game in ("pyradice", "pyramido", "dicetreasure"):
        sheets = mats(game, players)
        placed = table_layout(sheets, np.random.default_rng(0), jitter=0.0)
        corners = np.concatenate([
            cv2.perspectiveTransform(np.array([[(0, 0), (pm.mat.size[0], 0), pm.mat.size, (0, pm.mat.size[1])]],
                                              np.float64), pm.to_table())[0] for pm in placed])
        extent = corners.max(axis=0) - corners.min(axis=0)
        for size in sizes:
            scene = render_mats(np.random.default_rng(0), placed, size, ViewStyle(fill=fill, blur=0.5, noise=2.0))
            reg = locate(scene.image, game, players, finder)
            scales = [f.px_per_mm() for f in reg.fits]
            piece, piece_mm = SMALLEST_PIECE_MM[game]
            out.append({
                "game": game, "players": players, "sheets": len(sheets), "located": len(reg.fits),
                "table_mm": f"{extent[0]:.0f} x {extent[1]:.0f}", "frame": f"{size[0]}x{size[1]}",
                "px_per_mm": round(min(scales), 2) if scales else None,
                "smallest_piece": piece, "smallest_piece_px": round(min(scales) * piece_mm, 1) if scales else None,
            })
    return out
