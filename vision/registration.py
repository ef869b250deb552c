"""Registration: from the mats' AprilTag markers in a camera frame to each zone's homography in millimetres.

This stage owns where things are on the table. It finds the 36h11 markers (``cv2.aruco.ArucoDetector``
with sub-pixel corner refinement), groups them by the mat their IDs name (:mod:`vision.mats`), fits one
homography per mat from the corners of every marker of it that is seen (RANSAC, then least squares on the
markers that agree), and gives each zone of the mat: its mapping from image pixels to millimetres on the
sheet, the reprojection error in millimetres, whether it is complete (every marker seen, the whole zone in
the frame), and what is wrong when it is not. :class:`ZoneTracker` keeps a mat's homography from frame to
frame while its markers, sampled where the kept homography puts them, still look the same, and re-fits
when they do not. :func:`rectify` gives the readers a zone as a flat image at a fixed scale, and
:func:`mat_to_frame` maps mat points back to the frame for overlays.

Bad input is said, never mapped silently: markers of another game, a mat of a seat the game does not have,
the same marker seen twice (two copies of one mat), markers that read only in a mirror image (a mirrored
print), mats whose print scales disagree with each other, and zones partly outside the frame. A mat with
fewer than two markers seen is not located: four corners fit any homography exactly and check nothing; with
two it is located but said to be unchecked, and with markers on one side only, how unsure it is (the zones'
corners moved by leaving out one marker at a time).
A mat printed at the wrong scale cannot be told from one sheet alone (a smaller print looks like the same
print farther away); it shows as a disagreement with the other sheets on the table, and the scale bar is
printed for a ruler.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any

import cv2
import numpy as np

from vision.mats import (
    GAME_TITLES,
    MARKER_CELLS,
    Mat,
    Zone,
    check_game,
    marker_bits,
    marker_owner,
    mat_in_slot,
    mats,
)

#: A frame's width is assumed to span about this much table when no scale is configured (80 cm at 1280 px
#: gives 1.6 px/mm, the resolution the readers were measured at).
DEFAULT_TABLE_WIDTH_MM = 800.0
#: RANSAC threshold on a corner's reprojection, in mm on the sheet (corners found are off by up to ~1.5 px,
#: about 1.5 mm at the coarsest scale the readers work at).
RANSAC_MM = 3.0
#: A marker whose four corners are off the fit by more than this on average is left out (moved, bent, misread).
MARKER_OUTLIER_MM = 2.0
#: A fit whose RMS reprojection error is above this, and above 1.5 px, is reported: the markers disagree (paper
#: not flat, a lens that bends straight lines). On rendered frames the error tracked the mapping error: a barrel
#: lens of k1 = -0.1 gave 0.92 mm of error for 1.13 mm of mapping error, none 0.1 to 0.2 mm.
ERROR_WARN_MM = 0.5
#: Leaving one marker out moves a zone's corner more than this: the mapping away from the markers is unsure.
UNSURE_WARN_MM = 1.0
#: Two sheets on one table whose scales differ by more than this were not both printed at 100 %.
SCALE_TOLERANCE = 0.025
#: A zone with less than this share of its area in the frame is "partly outside".
INSIDE_MIN = 0.995
#: Smallest piece each game's readers must see, and the fewest pixels across they need for it.
SMALLEST_PIECE_MM: dict[str, tuple[str, float]] = {
    "pyradice": ("die", 16.0),
    "pyramido": ("gem icon (a quarter of a 35 mm block)", 17.5),
    "dicetreasure": ("die", 16.0),
}
MIN_PIECE_PX = 16.0
#: A marker whose sampled cells correlate this much less than when it was fitted has moved or is covered. On
#: rendered frames a 1 mm move was noticed at 1.1 and 1.7 px/mm and 0.5 mm was not, while new noise, light, JPEG
#: and blur on a still table were not taken for moves (docs/registration.md, "Tracker").
AGREE_DROP = 0.1


def default_px_per_mm(frame_width: int) -> float:
    """The rectified zones' scale when the configuration gives none: the camera's own resolution on the table."""
    return round(max(frame_width, 1) / DEFAULT_TABLE_WIDTH_MM, 2)


@dataclass(frozen=True)
class MarkerSighting:
    """A marker found in a frame: its ID and its corners in image pixels (TL, TR, BR, BL of its black square)."""

    id: int
    corners: np.ndarray  # (4, 2) float64

    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return (float(c[0]), float(c[1]))


class MarkerFinder:
    """Finds AprilTag 36h11 markers; one detector, built once, reused for every frame.

    By default the frame is thresholded once, with a 7-pixel window: on rendered 1280x960 frames of whole
    tables that found 186 of 188 markers in a quarter of the time of OpenCV's three windows (3, 13, 23),
    which found 188 (docs/registration.md). ``thorough=True`` uses the three, for calibration."""

    def __init__(self, thorough: bool = False) -> None:
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
        params = cv2.aruco.DetectorParameters()
        if not thorough:
            params.adaptiveThreshWinSizeMin = 7
            params.adaptiveThreshWinSizeMax = 7
        # Sub-pixel corners: the homography is only as good as the corners it is fitted to.
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 3
        params.cornerRefinementMinAccuracy = 0.01
        params.cornerRefinementMaxIterations = 50
        self.thorough = thorough
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)

    def find(self, image: np.ndarray, mirrored: bool = False) -> list[MarkerSighting]:
        """Every marker in ``image`` (BGR or grey). ``mirrored`` looks in the left-right mirror image instead
        (corners are then given in the mirror image's pixels)."""
        if image.ndim == 2:
            gray = image
        else:
            gray = cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY if image.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
        if gray.dtype != np.uint8:
            raise ValueError(f"frames must be 8-bit images, not {gray.dtype}")
        if mirrored:
            gray = cv2.flip(gray, 1)
        corners, ids, _ = self._detector.detectMarkers(gray)
        if ids is None:
            return []
        return [MarkerSighting(int(i), np.asarray(c, np.float64).reshape(4, 2)) for c, i in zip(corners, ids.ravel(),
                                                                                                  strict=True)]


@dataclass(frozen=True)
class MatFit:
    """A mat located in a frame: image pixels -> mm on the sheet, and how well its markers agree."""

    mat: Mat
    image_to_mat: np.ndarray  # 3x3
    markers: tuple[int, ...]  # markers seen and used in the fit
    outliers: tuple[int, ...]  # markers seen that disagree with the others (not used)
    error_mm: float  # RMS reprojection error of the used corners, mm on the sheet
    frame_size: tuple[int, int]  # width, height
    agreement: tuple[float, ...] = ()  # per used marker: correlation of its cells with the print (for the tracker)
    unsure_mm: float = 0.0  # zones' corners move this much leaving out one marker (0 with every marker seen)
    mm_per_px: float = 1.0  # the markers' own scale in the frame

    @property
    def missing(self) -> tuple[int, ...]:
        seen = set(self.markers)
        return tuple(m.id for m in self.mat.markers if m.id not in seen)

    @property
    def complete_markers(self) -> bool:
        return not self.missing

    @cached_property
    def mat_to_image(self) -> np.ndarray:
        """The inverse homography: mm on the sheet -> image pixels."""
        return _inv(self.image_to_mat)

    def mat_to_frame(self, points_mm: Any) -> np.ndarray:
        """Mat points (N x 2, mm) to frame pixels (N x 2)."""
        return _apply(self.mat_to_image, points_mm)

    def frame_to_mat(self, points_px: Any) -> np.ndarray:
        """Frame pixels (N x 2) to mat points (N x 2, mm)."""
        return _apply(self.image_to_mat, points_px)

    def px_per_mm(self, at_mm: tuple[float, float] | None = None) -> float:
        """Pixels per millimetre in the frame at a mat point (the mat's centre by default)."""
        x, y = at_mm if at_mm is not None else (self.mat.size[0] / 2, self.mat.size[1] / 2)
        return _local_scale(self.mat_to_image, x, y)


def _inv(h: np.ndarray) -> np.ndarray:
    """Inverse of a 3x3 homography (OpenCV's: numpy's calls BLAS, which costs a millisecond here when the
    other core is busy)."""
    ok, out = cv2.invert(np.asarray(h, np.float64), flags=cv2.DECOMP_LU)
    if not ok:
        raise ValueError("singular homography")
    return np.asarray(out, np.float64)


def _apply(h: np.ndarray, points: Any) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, h), np.float64).reshape(-1, 2)


def _local_scale(h: np.ndarray, x: float, y: float, step: float = 1.0) -> float:
    """sqrt(|det J|) of the map ``h`` at (x, y): how much a unit square grows there."""
    p = _apply(h, [(x, y), (x + step, y), (x, y + step)])
    jx, jy = (p[1] - p[0]) / step, (p[2] - p[0]) / step
    return math.sqrt(abs(float(jx[0] * jy[1] - jx[1] * jy[0])))


@dataclass(frozen=True)
class ZoneView:
    """One zone in a frame: where it is, whether all of it is seen, and what is wrong."""

    zone: Zone
    fit: MatFit
    inside: float  # share of the zone's area inside the frame
    problems: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.fit.complete_markers and self.inside >= INSIDE_MIN

    def quad(self) -> np.ndarray:
        """The zone's corners in the frame (TL, TR, BR, BL), pixels."""
        return self.fit.mat_to_frame(self.zone.rect.corners())

    def to_json(self) -> dict[str, Any]:
        mat = self.fit.mat
        return {
            "zone": self.zone.key,
            "label": self.zone.label,
            "sheet": mat.key,
            "markers": list(self.fit.markers),
            "markers_total": len(mat.markers),
            "image_to_mat": [[round(float(v), 9) for v in row] for row in self.fit.image_to_mat],
            "rect_mm": self.zone.rect.to_json(),
            "error_mm": round(self.fit.error_mm, 3),
            "unsure_mm": None if math.isinf(self.fit.unsure_mm) else round(self.fit.unsure_mm, 3),
            "px_per_mm": round(self.fit.px_per_mm(self.zone.rect.centre), 3),
            "inside": round(self.inside, 4),
            "complete": self.complete,
            "problems": list(self.problems),
        }


@dataclass
class Registration:
    """What one frame says about the mats: the fits, the zones, and every problem in words."""

    game: str | None
    frame_size: tuple[int, int]
    fits: list[MatFit] = field(default_factory=list)
    zones: list[ZoneView] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    sightings: list[MarkerSighting] = field(default_factory=list)
    kept: bool = False  # the fits were kept from an earlier frame (the tracker's fast path)

    def zone(self, key: str) -> ZoneView | None:
        return next((z for z in self.zones if z.zone.key == key), None)

    def fit(self, mat_key: str) -> MatFit | None:
        return next((f for f in self.fits if f.mat.key == mat_key), None)

    def to_json(self, image: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"image": image} if image is not None else {}
        out.update({
            "width": self.frame_size[0],
            "height": self.frame_size[1],
            "game": self.game,
            "zones": [z.to_json() for z in self.zones],
            "problems": list(self.problems),
        })
        return out


def _whose(mat: Mat) -> str:
    return "the " + mat.kind if mat.seat is None else f"player {mat.seat}'s {mat.kind}"


def _fit_mat(mat: Mat, seen: Sequence[MarkerSighting], frame_size: tuple[int, int]) -> tuple[MatFit | None, str | None]:
    """Fit one mat's homography from its markers seen; (None, why) when it cannot be fitted honestly."""
    if len(seen) < 2:
        return None, (f"{_whose(mat)} mat ({GAME_TITLES[mat.game]}): {len(seen)} of {len(mat.markers)} markers seen, "
                      "not located (it needs 2)")
    img = np.concatenate([s.corners for s in seen]).astype(np.float64)
    ref = np.concatenate([np.asarray(mat.marker(s.id).corners, np.float64) for s in seen])
    # Corners are found to about a pixel whatever the scale: thresholds are in mm but never under a few pixels.
    side_px = float(np.median([np.linalg.norm(s.corners[1] - s.corners[0]) for s in seen]))
    mm_per_px = mat.marker_mm / max(side_px, 1.0)
    outlier_mm = max(MARKER_OUTLIER_MM, 2.5 * mm_per_px)
    h, mask = cv2.findHomography(img, ref, cv2.RANSAC, max(RANSAC_MM, 3.0 * mm_per_px), maxIters=2000,
                                 confidence=0.999)
    if h is None:
        return None, f"{_whose(mat)} mat: its {len(seen)} markers do not agree on one flat sheet, not located"
    all_img = img.reshape(len(seen), 4, 2)
    all_ref = ref.reshape(len(seen), 4, 2)
    use = np.asarray(mask, bool).reshape(len(seen), 4).sum(axis=1) >= 3
    for _ in range(3):
        if use.sum() < 2:
            return None, f"{_whose(mat)} mat: fewer than 2 of its markers agree with each other, not located"
        h, _ = cv2.findHomography(all_img[use].reshape(-1, 2), all_ref[use].reshape(-1, 2), 0)  # least squares
        if h is None:
            return None, f"{_whose(mat)} mat: degenerate marker layout, not located"
        # A marker is judged whole: a half-covered or bent marker is left out with all four corners.
        off = np.linalg.norm(_apply(h, img).reshape(len(seen), 4, 2) - all_ref, axis=2).mean(axis=1)
        again = off <= outlier_mm
        if (again == use).all():
            break
        use = again
    used = [s for s, ok in zip(seen, use, strict=True) if ok]
    outliers = tuple(s.id for s, ok in zip(seen, use, strict=True) if not ok)
    img = all_img[use].reshape(-1, 2)
    ref = all_ref[use].reshape(-1, 2)
    h = h / h[2, 2]
    residual = _apply(h, img) - ref
    error = float(np.sqrt(np.mean(np.sum(residual**2, axis=1))))
    # A mat mapped with its orientation reversed would be a mirror; real corners never give that, but say it if so.
    if float(np.linalg.det(h[:2, :2])) < 0 and abs(h[2, 0]) + abs(h[2, 1]) < 1e-3:
        return None, f"{_whose(mat)} mat appears mirrored, not located"
    spread = 0.0 if len(used) == len(mat.markers) else _spread(mat, all_img[use], all_ref[use], h)
    fit = MatFit(mat, h, tuple(sorted(s.id for s in used)), tuple(sorted(outliers)), error, frame_size,
                 unsure_mm=spread, mm_per_px=mm_per_px)
    return fit, None


def _spread(mat: Mat, img: np.ndarray, ref: np.ndarray, h: np.ndarray) -> float:
    """How far the zones' corners move when the fit leaves out one marker at a time (mm): small when the markers
    seen surround the zones, large when they all lie to one side. Infinite with two markers (nothing to check)."""
    if len(img) < 3:
        return math.inf
    corners = np.array([c for z in mat.zones for c in z.rect.corners()], np.float64)
    image_pts = _apply(_inv(h), corners)
    worst = 0.0
    for j in range(len(img)):
        keep = np.arange(len(img)) != j
        hj, _ = cv2.findHomography(img[keep].reshape(-1, 2), ref[keep].reshape(-1, 2), 0)
        if hj is None:
            return math.inf
        worst = max(worst, float(np.linalg.norm(_apply(hj, image_pts) - corners, axis=1).max()))
    return worst


def _inside_share(quad: np.ndarray, frame_size: tuple[int, int]) -> float:
    w, h = frame_size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    poly = quad.astype(np.float32)
    area = abs(cv2.contourArea(poly))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(poly, frame)
    return float(min(1.0, inter / area))


def _zone_views(fit: MatFit, extra: Sequence[str] = ()) -> list[ZoneView]:
    views = []
    for zone in fit.mat.zones:
        quad = fit.mat_to_frame(zone.rect.corners())
        inside = _inside_share(quad, fit.frame_size)
        problems = list(extra)
        if inside <= 0.0:
            problems.append(f"{zone.label} is outside the frame: move the camera up or the mat in")
        elif inside < INSIDE_MIN:
            problems.append(f"{zone.label} is partly outside the frame ({100 * (1 - inside):.0f}% outside): "
                            "move the camera up or the mat in")
        views.append(ZoneView(zone, fit, inside, tuple(problems)))
    return views


def _mat_problems(fit: MatFit) -> list[str]:
    mat = fit.mat
    out = []
    if fit.missing:
        out.append(f"{_whose(mat)} mat: {len(fit.markers)} of {len(mat.markers)} markers seen "
                   f"(missing {', '.join(mat.marker(i).where + f' {i}' for i in fit.missing)})")
    if fit.outliers:
        out.append(f"{_whose(mat)} mat: markers {', '.join(map(str, fit.outliers))} disagree with the others "
                   "(bent paper, or a marker covered at its edge); not used")
    if fit.unsure_mm > UNSURE_WARN_MM:
        how = ("only 2 markers seen, the mapping cannot be checked" if math.isinf(fit.unsure_mm) else
               f"the markers seen lie to one side: the mapping is unsure by up to {fit.unsure_mm:.1f} mm")
        out.append(f"{_whose(mat)} mat: {how}; clear the others")
    if fit_disagrees(fit):
        out.append(f"{_whose(mat)} mat: its markers disagree by {fit.error_mm:.1f} mm: is the sheet flat, or does "
                   "the lens bend straight lines (a wide lens needs calibrating)?")
    return out


def fit_disagrees(fit: MatFit) -> bool:
    """The fit's markers disagree by more than the corners' own noise (ERROR_WARN_MM, or 1.5 px)."""
    return fit.error_mm > max(ERROR_WARN_MM, 1.5 * fit.mm_per_px)


def _relative_scale(a: MatFit, b: MatFit) -> float:
    """How big a millimetre of sheet ``a`` is on sheet ``b``: 1 when both lie on one table printed true to scale."""
    a_to_b = b.image_to_mat @ a.mat_to_image
    cx, cy = a.mat.size[0] / 2, a.mat.size[1] / 2
    return _local_scale(a_to_b, cx, cy, step=min(a.mat.size) / 4)


def scale_problems(fits: Sequence[MatFit]) -> list[str]:
    """Sheets on one table must agree in scale; name the sheets that do not (only well-fitted sheets are
    compared: one seen by a few markers on one side says nothing sure about its scale)."""
    fits = [f for f in fits if f.unsure_mm <= UNSURE_WARN_MM]
    if len(fits) < 2:
        return []
    ratios = {(i, j): _relative_scale(fits[i], fits[j]) for i in range(len(fits)) for j in range(len(fits)) if i != j}
    off = {(i, j) for (i, j), r in ratios.items() if abs(r - 1) > SCALE_TOLERANCE}
    if not off:
        return []
    out = []
    if len(fits) >= 3:
        for i, f in enumerate(fits):
            if all((i, j) in off for j in range(len(fits)) if j != i):
                r = float(np.median([ratios[(i, j)] for j in range(len(fits)) if j != i]))
                out.append(f"{_whose(f.mat)} mat is printed at {100 * r:.0f}% of the other sheets' scale: "
                           "print it again at 100 % (no fit to page) and check its scale bar")
    if not out:
        done = set()
        for i, j in sorted(off):
            if (j, i) in done:
                continue
            done.add((i, j))
            out.append(f"{_whose(fits[i].mat)} and {_whose(fits[j].mat)} mats disagree in scale "
                       f"({100 * ratios[(i, j)]:.0f}%): one was not printed at 100 %; check the scale bars")
    return out


def locate(
    image: np.ndarray,
    game: str | None = None,
    players: int | None = None,
    finder: MarkerFinder | None = None,
    sightings: Sequence[MarkerSighting] | None = None,
) -> Registration:
    """Locate every mat of ``game`` (by default, the game whose markers are most seen) in one frame."""
    if game is not None:
        check_game(game)
    finder = finder or MarkerFinder()
    h, w = image.shape[:2]
    frame = (int(w), int(h))
    found = list(sightings) if sightings is not None else finder.find(image)
    problems: list[str] = []
    owned: list[tuple[MarkerSighting, Mat]] = []
    strangers = []
    for s in found:
        owner = marker_owner(s.id)
        if owner is None:
            strangers.append(s.id)
        else:
            owned.append((s, owner[0]))
    if strangers:
        problems.append(f"markers {', '.join(map(str, sorted(strangers)))} are on no Table Companion mat: ignored")
    games = Counter(m.game for _, m in owned)
    if game is None and games:
        game = games.most_common(1)[0][0]
    for other, n in sorted(games.items()):
        if other != game:
            ids = ", ".join(str(s.id) for s, m in owned if m.game == other)
            problems.append(f"{n} markers of {GAME_TITLES[other]}'s mats are on the table, "
                            f"not {GAME_TITLES.get(game or '', '')}'s (ids {ids}): ignored")
    owned = [(s, m) for s, m in owned if m.game == game]
    expected = {m.key for m in mats(game, players)} if game is not None and players is not None else set()
    if not owned or not expected <= {m.key for _, m in owned}:
        # Only when something is missing: a mirrored print reads in the mirror image of the frame.
        mirrored = Counter(owner[0].title for s in finder.find(image, mirrored=True)
                           if (owner := marker_owner(s.id)) is not None and (game is None or owner[0].game == game))
        for title, n in sorted(mirrored.items()):
            if n >= 2:
                problems.append(f"{title}: {n} markers read only in a mirror image: the sheet was printed "
                                "mirrored (turn off mirror / transfer printing); not located")
        if not found and not mirrored:
            problems.append("no mat markers seen: is a mat on the table and in the frame?")
    counts = Counter(s.id for s, _ in owned)
    by_mat: dict[str, tuple[Mat, list[MarkerSighting]]] = {}
    for s, m in owned:
        by_mat.setdefault(m.key, (m, []))[1].append(s)
    reg = Registration(game, frame, problems=problems, sightings=found)
    allowed = {m.key for m in mats(game, players)} if game is not None and players is not None else None
    for key, (mat, seen) in sorted(by_mat.items(), key=lambda kv: kv[1][0].slot):
        twice = sorted(i for i in {s.id for s in seen} if counts[i] > 1)
        if twice:
            problems.append(f"{_whose(mat)} mat is on the table twice (markers {', '.join(map(str, twice))} seen "
                            f"{max(counts[i] for i in twice)} times): each player needs their own sheet; not located")
            continue
        fit, why = _fit_mat(mat, seen, frame)
        if fit is None:
            problems.append(str(why))
            continue
        fit = _with_agreement(fit, image)
        extra = []
        if allowed is not None and key not in allowed:
            extra.append(f"{_whose(mat)} mat is on the table but the game has {players} players")
        mat_problems = _mat_problems(fit)
        problems.extend(extra + mat_problems)
        reg.fits.append(fit)
        views = _zone_views(fit, extra)
        reg.zones.extend(views)
        problems.extend(p for v in views for p in v.problems if p not in extra)
    for mat in mats(game, players) if game is not None and players is not None else ():
        if mat.key not in by_mat:
            problems.append(f"{_whose(mat)} mat: 0 of {len(mat.markers)} markers seen")
    problems.extend(scale_problems(reg.fits))
    return reg


# -- the tracker's check: are the markers still where the kept homography puts them? -------------------

_SUB = np.array([0.25, 0.75])  # sample points within each cell: they flip when an edge moves a quarter of a cell


def _cell_samples(mat: Mat, marker_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Sample points (mm on the sheet) over one marker and the ink expected at each (+1 black, -1 white)."""
    place = mat.marker(marker_id)
    x0, y0 = place.corners[0]
    cell = mat.marker_mm / MARKER_CELLS
    bits = marker_bits(marker_id)
    grid = (np.arange(MARKER_CELLS)[:, None] + _SUB[None, :]).ravel() * cell
    xs, ys = np.meshgrid(x0 + grid, y0 + grid)
    expected = np.repeat(np.repeat(bits, len(_SUB), axis=0), len(_SUB), axis=1)
    return np.stack([xs.ravel(), ys.ravel()], axis=1), np.where(expected.ravel(), 1.0, -1.0).astype(np.float32)


@cache
def _mat_samples(game: str, slot: int) -> tuple[np.ndarray, np.ndarray]:
    """Every marker's sample points of a mat, stacked (M * n x 2, mm), and their expected ink (M x n)."""
    mat = mat_in_slot(game, slot)
    pts, exp = zip(*(_cell_samples(mat, m.id) for m in mat.markers), strict=True)
    return np.concatenate(pts), np.stack(exp)


def _marker_agreement(fit: MatFit, image: np.ndarray) -> dict[int, float]:
    """Correlation, per marker of the mat, of the frame's grey levels at its cells with its printed ink.

    About 0.8 to 0.9 for a marker where the fit puts it, near 0 for one that moved by a cell or is covered,
    0 for one partly outside the frame."""
    pts, exp = _mat_samples(fit.mat.game, fit.mat.slot)
    px = fit.mat_to_frame(pts)
    h, w = image.shape[:2]
    xi = np.rint(px[:, 0]).astype(np.int64)
    yi = np.rint(px[:, 1]).astype(np.int64)
    ok = ((xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)).reshape(exp.shape).all(axis=1)
    np.clip(xi, 0, w - 1, out=xi)
    np.clip(yi, 0, h - 1, out=yi)
    # One channel is enough to see black ink on white paper; green is the camera's sharpest.
    values = (image[yi, xi, 1] if image.ndim == 3 else image[yi, xi]).astype(np.float32).reshape(exp.shape)
    centred = values - values.mean(axis=1, keepdims=True)
    spread = np.sqrt((centred**2).mean(axis=1))
    corr = -(centred * exp).mean(axis=1) / np.maximum(spread, 1e-6)  # ink is dark: minus the expected sign
    corr = np.where(ok & (spread >= 4), corr, 0.0)
    return {m.id: float(c) for m, c in zip(fit.mat.markers, corr, strict=True)}


def _with_agreement(fit: MatFit, image: np.ndarray) -> MatFit:
    now = _marker_agreement(fit, image)
    return replace(fit, agreement=tuple(now[i] for i in fit.markers))


class ZoneTracker:
    """Keeps each mat's homography while its markers stay put; re-fits when they move or every ``refit_every``.

    ``update(frame)`` is the fast path when it can be: it samples every marker of every kept mat where the
    kept homography puts it. Markers covered by a hand read as not seen (the zone is then not complete) but do
    not lose the zone; the fit is kept while at least two markers, and at least half of those used in the
    fit, still agree. Otherwise, or every ``refit_every`` frames (a mat that was not on the table yet, a drift
    too small to see in the cells), the whole frame is located again.
    """

    def __init__(self, game: str | None = None, players: int | None = None, refit_every: int = 30,
                 finder: MarkerFinder | None = None) -> None:
        self.game = game
        self.players = players
        self.refit_every = refit_every
        self.finder = finder or MarkerFinder()
        self.last: Registration | None = None
        self._since = 0
        self._scale_problems: list[str] = []
        self.refits = 0

    def update(self, image: np.ndarray) -> Registration:
        if self.last is not None and self.last.fits and self._since < self.refit_every:
            kept = self._keep(image)
            if kept is not None:
                self._since += 1
                return kept
        reg = locate(image, self.game, self.players, self.finder)
        self.refits += 1
        self._since = 0
        if self.last is not None:
            found = {f.mat.key for f in reg.fits}
            for fit in self.last.fits:
                if fit.mat.key not in found:
                    reg.problems.append(f"{_whose(fit.mat)} mat is lost: it was located before, now it is not")
        if reg.fits:
            self.last = reg
            self._scale_problems = scale_problems(reg.fits)
            self.game = self.game or reg.game
        return reg

    def _keep(self, image: np.ndarray) -> Registration | None:
        assert self.last is not None
        h, w = image.shape[:2]
        if (w, h) != self.last.frame_size:
            return None
        fits = []
        problems: list[str] = []
        zones: list[ZoneView] = []
        for fit in self.last.fits:
            reference = dict(zip(fit.markers, fit.agreement, strict=True))
            ids = [m.id for m in fit.mat.markers]
            now = _marker_agreement(fit, image)
            floor = {i: (reference[i] - AGREE_DROP) if i in reference else 0.6 for i in ids}
            agree = [i for i in ids if now[i] >= max(floor[i], 0.3)]
            if len(agree) < 2 or sum(i in agree for i in fit.markers) * 2 < len(fit.markers):
                return None
            kept = replace(fit, markers=tuple(agree),
                           agreement=tuple(max(now[i], reference.get(i, 0.0)) for i in agree))
            kept.__dict__["mat_to_image"] = fit.mat_to_image  # same homography: keep its inverse
            fits.append(kept)
            problems.extend(_mat_problems(kept))
            # The zones are where they were: their share inside the frame and its problems stand.
            views = [ZoneView(v.zone, kept, v.inside, v.problems) for v in self.last.zones if v.fit is fit]
            zones.extend(views)
            problems.extend(p for v in views for p in v.problems)
        problems.extend(self._scale_problems)
        reg = Registration(self.last.game, (w, h), fits, zones, problems, [], kept=True)
        return reg


# -- what the readers and the page get -------------------------------------------------------------------

def zone_transform(fit: MatFit, zone: Zone, px_per_mm: float) -> np.ndarray:
    """Frame pixels -> pixels of the rectified zone image (origin at the zone's top-left corner)."""
    r = zone.rect
    scale = np.array([[px_per_mm, 0, -px_per_mm * r.x], [0, px_per_mm, -px_per_mm * r.y], [0, 0, 1]], np.float64)
    return scale @ fit.image_to_mat


def rectify(image: np.ndarray, view: ZoneView, px_per_mm: float | None = None) -> np.ndarray:
    """The zone as a flat image at ``px_per_mm`` (default from the frame's width), what the readers get."""
    fit, zone = view.fit, view.zone
    p = px_per_mm if px_per_mm is not None else default_px_per_mm(fit.frame_size[0])
    if p <= 0:
        raise ValueError(f"pixels per millimetre must be positive, not {p}")
    size = (max(1, round(zone.rect.w * p)), max(1, round(zone.rect.h * p)))
    return cv2.warpPerspective(image, zone_transform(fit, zone, p), size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def plain_warp(frame: np.ndarray, transform: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The frame warped by ``transform`` (frame px -> picture px) into a picture of ``size`` (bilinear, the border
    replicated): what :class:`KeptWarps` gives too, faster while the transform is kept."""
    return cv2.warpPerspective(frame, transform, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


class KeptWarps:
    """Warps of the frame into rectified pictures (``cv2.warpPerspective``, bilinear, the border replicated) whose
    sample maps are kept from frame to frame. While a mat's homography is kept (:class:`ZoneTracker`: the camera
    still), every frame is cut along the same sample points: the maps (OpenCV's own fixed-point form, worked out
    as ``warpPerspective`` works them out) are made once and ``cv2.remap`` reuses them, about 60% of the warp's
    time on one core (the bench's Dice Treasure tables: every one of 23.4 million values the same as the warp's).
    For the pictures cut from every frame (a reader's glances); :meth:`sweep` once a frame drops the maps the last
    frame did not use (a homography re-fitted, a zone no longer looked at), so only the pictures in use are kept
    (6 bytes a picture pixel), and at most ``kept`` of them."""

    def __init__(self, kept: int = 64) -> None:
        self.kept = kept
        self._maps: dict[tuple[bytes, tuple[int, int]], tuple[np.ndarray, np.ndarray]] = {}
        self._used: set[tuple[bytes, tuple[int, int]]] = set()

    def sweep(self) -> None:
        """A new frame: forget the maps the frame before did not use."""
        for key in [k for k in self._maps if k not in self._used]:
            del self._maps[key]
        self._used.clear()

    def __call__(self, frame: np.ndarray, transform: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """``frame`` warped by ``transform`` (frame pixels -> picture pixels) into a picture of ``size`` (w, h)."""
        key = (np.asarray(transform, np.float64).tobytes(), (int(size[0]), int(size[1])))
        maps = self._maps.get(key)
        if maps is None:
            if len(self._maps) >= self.kept:
                return plain_warp(frame, transform, key[1])
            maps = self._maps[key] = _fixed_point_maps(np.asarray(transform, np.float64), key[1])
        self._used.add(key)
        return cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


#: OpenCV's interpolation table: sample points are kept to 1/32 of a pixel (``INTER_BITS``).
_INTER_BITS = 5


def _fixed_point_maps(transform: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The sample maps ``cv2.warpPerspective`` makes for ``transform`` into ``size``: for each picture pixel the frame
    point (the inverse homography, in double), rounded to 1/32 pixel, as ``cv2.remap``'s fixed-point pair (whole
    pixels, CV_16SC2; the fraction's table index, CV_16UC1)."""
    ok, inverse = cv2.invert(transform)  # as warpPerspective inverts it (LU)
    if not ok:
        raise ValueError("the transform cannot be inverted")
    steps = 1 << _INTER_BITS
    w, h = size
    x = np.arange(w, dtype=np.float64)[None, :]
    y = np.arange(h, dtype=np.float64)[:, None]
    den = inverse[2, 1] * y + inverse[2, 2] + inverse[2, 0] * x
    scale = np.divide(steps, den, out=np.zeros_like(den), where=den != 0)
    limit = float(np.iinfo(np.int32).max)
    fx = np.clip((inverse[0, 1] * y + inverse[0, 2] + inverse[0, 0] * x) * scale, -limit, limit)
    fy = np.clip((inverse[1, 1] * y + inverse[1, 2] + inverse[1, 0] * x) * scale, -limit, limit)
    px, py = np.rint(fx).astype(np.int64), np.rint(fy).astype(np.int64)  # round half to even, as cvRound
    whole = np.stack([px >> _INTER_BITS, py >> _INTER_BITS], axis=-1).clip(-32768, 32767).astype(np.int16)
    fraction = ((py & (steps - 1)) * steps + (px & (steps - 1))).astype(np.uint16)
    return whole, fraction


def mat_to_frame(view: ZoneView, points_mm: Any) -> np.ndarray:
    """Mat points (mm on the sheet) to frame pixels: for drawing the readers' findings onto the camera view."""
    return view.fit.mat_to_frame(points_mm)


def zone_to_frame(view: ZoneView, points_px: Any, px_per_mm: float) -> np.ndarray:
    """Points of a rectified zone image (its pixels) to frame pixels."""
    t = _inv(zone_transform(view.fit, view.zone, px_per_mm))
    return _apply(t, points_px)


_COLOURS = [(60, 180, 75), (230, 130, 20), (40, 40, 220), (200, 60, 200), (20, 190, 230), (160, 160, 40)]


def annotate(image: np.ndarray, reg: Registration) -> np.ndarray:
    """The frame with the markers found, each zone's outline and name, and the problems written on it."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    for s in reg.sightings:
        pts = np.rint(s.corners).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 200, 255), 1, cv2.LINE_AA)
        cx, cy = s.centre()
        cv2.putText(out, str(s.id), (int(cx) - 8, int(cy) + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1,
                    cv2.LINE_AA)
    for k, view in enumerate(reg.zones):
        colour = _COLOURS[k % len(_COLOURS)]
        quad = np.rint(view.quad()).astype(np.int32)
        cv2.polylines(out, [quad], True, colour, 2, cv2.LINE_AA)
        x, y = quad[0]
        state = "ok" if view.complete else "incomplete"
        text = f"{view.zone.key} {view.fit.error_mm:.2f} mm {state}"
        cv2.putText(out, text, (int(x) + 4, int(y) + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    for i, problem in enumerate(reg.problems[:8]):
        cv2.putText(out, problem[:110], (8, 18 + 18 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1,
                    cv2.LINE_AA)
    return out


def _owner_key(marker_id: int) -> tuple[str, str] | None:
    owner = marker_owner(marker_id)
    return None if owner is None else (owner[0].game, owner[0].key)


def calibration_report(reg: Registration, game: str | None = None, players: int = 2) -> dict[str, Any]:
    """What the set-up step shows, JSON-ready: per sheet of the game, markers seen of all, px/mm, the smallest
    piece in pixels, and what to fix in words."""
    game = game or reg.game
    if game is None:
        return {"game": None, "ready": False, "sheets": [], "problems": list(reg.problems),
                "advice": ["no mat markers seen: put the mats on the table, in the camera's view"]}
    check_game(game)
    piece, piece_mm = SMALLEST_PIECE_MM[game]
    sheets = []
    advice: list[str] = []
    for mat in mats(game, players):
        fit = reg.fit(mat.key)
        entry: dict[str, Any] = {"sheet": mat.key, "title": mat.title, "markers_total": len(mat.markers)}
        if fit is None:
            seen = sorted({s.id for s in reg.sightings if _owner_key(s.id) == (game, mat.key)})
            entry.update({"located": False, "markers_seen": seen, "message":
                          f"{_whose(mat)} mat: {len(seen)} of {len(mat.markers)} markers seen"})
            advice.append(entry["message"] + (": move the camera up or the mat into view" if seen
                                              else ": put it on the table, in the camera's view"))
            sheets.append(entry)
            continue
        views = [v for v in reg.zones if v.fit is fit]
        ppm = fit.px_per_mm()
        piece_px = ppm * piece_mm
        entry.update({
            "located": True,
            "markers_seen": list(fit.markers),
            "message": f"{_whose(mat)} mat: {len(fit.markers)} of {len(mat.markers)} markers seen",
            "error_mm": round(fit.error_mm, 3),
            "px_per_mm": round(ppm, 3),
            "smallest_piece": piece,
            "smallest_piece_px": round(piece_px, 1),
            "zones": [v.to_json() for v in views],
        })
        if fit.missing:
            advice.append(entry["message"] + ": clear what covers the others")
        if piece_px < MIN_PIECE_PX:
            # One decimal: 15.6 px rounded to "16" read as enough against the floor of 16.
            advice.append(f"{_whose(mat)} mat: a {piece} is {piece_px:.1f} px across, the readers need "
                          f"{MIN_PIECE_PX:.0f}: move the camera down or use a higher resolution")
        for v in views:
            if v.inside < INSIDE_MIN:
                advice.append(f"{v.zone.label}: {100 * (1 - v.inside):.0f}% outside the frame: move the camera up")
        sheets.append(entry)
    ready = all(s["located"] for s in sheets) and not any("px across" in a for a in advice) and all(
        v.inside >= INSIDE_MIN for v in reg.zones)
    return {"game": game, "players": players, "ready": ready, "sheets": sheets, "problems": list(reg.problems),
            "advice": advice}
