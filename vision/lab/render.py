"""A procedural renderer of dice seen from above: training data for the models and the demo recordings.

Each die is a cube projected through a pinhole camera above the table, so a die away from the image
centre shows part of its side faces (with their own pips) as in real photos; a cocked die is tipped
about a horizontal axis and shows two faces strongly. Faces are drawn upright on a small texture
(rounded body, pips, darkened edges) and warped into place; the scene adds a surface with lighting
gradient and grain, soft shadows, an optional tray edge, then blur, noise and JPEG artefacts.

Everything is drawn from a ``numpy.random.Generator``, so a scene is reproducible from its seed. The
truth of every die (centre, side, rotation, value, colours, the axis-aligned box around all its
visible faces, cocked or not) comes back with the image.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.types import PIP_LAYOUT  # the runtime owns the layout; re-exported here for the renderers

BGR = tuple[int, int, int]

#: Die body colours (BGR) by name; the Pyradice four first. Pip colours are chosen to contrast.
DIE_COLOURS: dict[str, BGR] = {
    "white": (235, 238, 240),
    "gray": (128, 128, 124),
    "maroon": (40, 30, 120),
    "orange": (20, 120, 240),
    "red": (40, 40, 200),
    "green": (70, 170, 40),
    "blue": (170, 60, 20),
    "yellow": (30, 210, 235),
    "purple": (120, 40, 100),
    "black": (35, 35, 35),
    "ivory": (200, 225, 235),
}
PIP_COLOURS: dict[str, BGR] = {
    "black": (25, 25, 25),
    "white": (245, 245, 245),
    "red": (40, 30, 190),
    "gold": (40, 180, 220),
}

#: For a top face v, the four faces around it in order (a right-handed die); opposite faces sum to 7.
SIDE_RING: dict[int, tuple[int, int, int, int]] = {
    1: (2, 3, 5, 4),
    2: (1, 4, 6, 3),
    3: (1, 2, 6, 5),
    4: (1, 5, 6, 2),
    5: (1, 3, 6, 4),
    6: (2, 4, 5, 3),
}
_TEXTURE = 96  # face texture size in pixels; faces are warped down from this


@dataclass(frozen=True)
class SeeThrough:
    """How the far (bottom) face of a translucent die shows through its top face, as on the smoky and
    swirled translucent dice of real sets, where a 2's five far pips make it look like a 5 or a 4.

    ``strength`` (0..1) is how far the far pips are blended toward their colour; the far face is seen
    mirrored, turned by ``turns`` quarter turns, shrunk by ``scale`` (it is a die's side farther from the
    camera) and moved by ``shift`` (a fraction of the face, from the viewing angle and refraction), and
    blurred by ``blur`` (a fraction of the face: light scattered in the body)."""

    strength: float
    shift: tuple[float, float] = (0.0, 0.0)
    scale: float = 0.9
    turns: int = 0
    blur: float = 0.03


@dataclass(frozen=True)
class DieSpec:
    """A die to draw. ``None`` fields are drawn at random by :func:`render_scene`.

    ``tilt`` is how far the die is tipped about a horizontal axis (degrees): 0 for a die lying flat,
    15..35 for a cocked die leaning on a neighbour or the tray wall. ``pip_contrast`` < 1 blends the
    pips toward the body colour to make a die hard to read. ``swirl`` is the second colour of a marbled
    body (veins of it through the body colour, a different pattern on each face, from ``swirl_seed``).
    ``see_through`` makes the body translucent: the bottom face's pips show faintly through the top face.
    """

    value: int
    body: BGR = DIE_COLOURS["white"]
    pips: BGR = PIP_COLOURS["black"]
    centre: tuple[float, float] | None = None
    side: float | None = None
    angle: float | None = None
    tilt: float = 0.0
    tilt_direction: float = 0.0
    pip_contrast: float = 1.0
    colour_name: str | None = None
    swirl: BGR | None = None
    swirl_seed: int = 0
    see_through: SeeThrough | None = None


@dataclass(frozen=True)
class RenderedDie:
    """The truth about a drawn die. ``box`` bounds every visible face (as photo labels do)."""

    value: int
    centre: tuple[float, float]
    side: float
    angle: float
    box: tuple[float, float, float, float]
    body: BGR
    pips: BGR
    cocked: bool
    colour_name: str | None
    tilt: float = 0.0  # degrees, as drawn (``cocked`` is a tilt of 12 or more)


@dataclass(frozen=True)
class SceneStyle:
    """How the table and the camera look."""

    surface: BGR = (200, 202, 204)
    grain: float = 4.0
    light_gradient: float = 0.15
    light_direction: float = 45.0
    shadow: float = 0.35
    camera_height: float = 9.0  # in image widths... relative: larger = closer to orthographic
    blur: float = 0.6
    noise: float = 2.0
    jpeg_quality: int = 90
    tray: bool = False


def random_style(rng: np.random.Generator) -> SceneStyle:
    """A random but plausible table, light and camera."""
    base = rng.uniform(60, 235)
    tint = rng.normal(0, 10, 3)
    surface = tuple(int(np.clip(base + t, 0, 255)) for t in tint)
    return SceneStyle(
        surface=(surface[0], surface[1], surface[2]),
        grain=float(rng.uniform(0, 10)),
        light_gradient=float(rng.uniform(0, 0.35)),
        light_direction=float(rng.uniform(0, 360)),
        shadow=float(rng.uniform(0.1, 0.5)),
        camera_height=float(rng.uniform(1.5, 8.0)),
        blur=float(rng.uniform(0, 1.4)),
        noise=float(rng.uniform(0, 6)),
        jpeg_quality=int(rng.integers(35, 96)),
        tray=bool(rng.random() < 0.3),
    )


def face_texture(
    value: int,
    body: BGR,
    pips: BGR,
    pip_contrast: float = 1.0,
    flip: bool = False,
    swirl: BGR | None = None,
    swirl_seed: int = 0,
    see_through: SeeThrough | None = None,
) -> np.ndarray:
    """One face drawn upright on a square texture: body with darkened rounded edges, and pips.

    ``flip`` mirrors the layout, which turns the diagonal of a 2, 3 or 6 the other way. With ``swirl`` the
    body is marbled: veins of that colour, placed by ``swirl_seed``, run under the pips. With ``see_through``
    the opposite face's pips (7 - ``value``) show faintly through the body, under this face's own pips.
    """
    n = _TEXTURE
    tex = np.empty((n, n, 3), np.float32)
    tex[:] = body
    if swirl is not None:
        vein = marble_veins(swirl_seed, n)[..., None]
        tex[:] = tex * (1 - vein) + np.array(swirl, np.float32) * vein
    if see_through is not None:
        far = far_pips(7 - value, see_through, n)[..., None]
        tex[:] = tex * (1 - far) + np.array(pips, np.float32) * far
    # Rounded cube edges catch less light: darken a soft border.
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / (n - 1)
    edge = np.minimum(np.minimum(xx, 1 - xx), np.minimum(yy, 1 - yy))
    tex *= (0.72 + 0.28 * np.clip(edge / 0.12, 0, 1))[..., None]
    pip = np.array(pips, np.float32) * pip_contrast + np.array(body, np.float32) * (1 - pip_contrast)
    radius = round(n * (0.095 if value != 1 else 0.13))
    for px, py in PIP_LAYOUT[value]:
        if flip:
            px = 1 - px
        centre = (round(px * (n - 1) * 16), round(py * (n - 1) * 16))
        cv2.circle(tex, centre, radius * 16, pip.tolist(), -1, cv2.LINE_AA, shift=4)
    return tex


def far_pips(value: int, see_through: SeeThrough, n: int = _TEXTURE) -> np.ndarray:
    """(n, n) weights in 0..1 of the far face's pips as seen through a translucent body (see
    :class:`SeeThrough`): mirrored (seen from inside), turned, shrunk, moved and blurred."""
    weights = np.zeros((n, n), np.float32)
    turn = see_through.turns % 4
    radius = n * (0.095 if value != 1 else 0.13) * see_through.scale
    for px, py in PIP_LAYOUT[value]:
        x, y = 1 - px - 0.5, py - 0.5  # mirrored, about the face's centre
        for _ in range(turn):
            x, y = -y, x
        fx = 0.5 + x * see_through.scale + see_through.shift[0]
        fy = 0.5 + y * see_through.scale + see_through.shift[1]
        centre = (round(fx * (n - 1) * 16), round(fy * (n - 1) * 16))
        cv2.circle(weights, centre, round(radius * 16), 1.0, -1, cv2.LINE_AA, shift=4)
    if see_through.blur > 0:
        weights = cv2.GaussianBlur(weights, (0, 0), max(see_through.blur * n, 0.5))
    return np.clip(weights * np.float32(see_through.strength), 0, 1)


def marble_veins(seed: int, n: int = _TEXTURE) -> np.ndarray:
    """(n, n) weights in 0..1 of a marbled die's second colour: bands along the level lines of a smooth
    random field, some thin and some broad, as in the swirled dice of real sets whose streaks can look like
    a pip to a reader that has only seen plain bodies."""
    rng = np.random.default_rng(seed)
    coarse = rng.normal(size=(3, 3)).astype(np.float32)
    field = cv2.resize(coarse, (n, n), interpolation=cv2.INTER_CUBIC)
    bands = np.abs(np.sin(field * np.float32(rng.uniform(0.4, 1.2) * math.pi)))
    level = np.float32(rng.uniform(0.55, 0.9))  # higher: thinner veins
    return np.clip((bands - level) / (1 - level), 0, 1) * np.float32(rng.uniform(0.6, 1.0))


def _rotation(angle_deg: float, tilt_deg: float, tilt_dir_deg: float) -> np.ndarray:
    """Rotation of the cube: tip by ``tilt`` about a horizontal axis, then turn by ``angle`` about z."""
    a = math.radians(angle_deg)
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    d = math.radians(tilt_dir_deg)
    axis = np.array([math.cos(d), math.sin(d), 0.0])
    t = math.radians(tilt_deg)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rt = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)
    result: np.ndarray = rz @ rt
    return result


# Unit cube faces: (outward normal, the face's u and v axes). Corners are centre + (+-u +-v)/2.
_FACES = (
    (np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])),  # top
    (np.array([0.0, -1.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, -1.0])),
    (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, -1.0])),
    (np.array([0.0, 1.0, 0.0]), np.array([-1.0, 0.0, 0.0]), np.array([0.0, 0.0, -1.0])),
    (np.array([-1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0]), np.array([0.0, 0.0, -1.0])),
    (np.array([0.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0])),  # bottom
)


class _Camera:
    """A pinhole camera looking straight down at the image centre from ``height`` image widths."""

    def __init__(self, width: int, height: int, style: SceneStyle) -> None:
        self.cx, self.cy = width / 2, height / 2
        self.distance = style.camera_height * max(width, height)

    def project(self, points: np.ndarray) -> np.ndarray:
        """Table coordinates in pixels (x, y, z up) to image pixels; z=0 maps to itself."""
        scale = self.distance / (self.distance - points[:, 2])
        out = np.empty((len(points), 2))
        out[:, 0] = self.cx + (points[:, 0] - self.cx) * scale
        out[:, 1] = self.cy + (points[:, 1] - self.cy) * scale
        return out


def blend_quad(image: np.ndarray, texture: np.ndarray, quad: np.ndarray, shade: float) -> None:
    """Warp ``texture`` onto the convex quad (4x2 image points, in texture corner order) in place, its edge
    anti-aliased from a 4x finer mask (every renderer of dice faces uses it)."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    h, w = image.shape[:2]
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1c <= x0c or y1c <= y0c:
        return
    n = texture.shape[0] - 1
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    dst = (quad - [x0c, y0c]).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    size = (x1c - x0c, y1c - y0c)
    warped = cv2.warpPerspective(texture * shade, m, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    mask = np.zeros((size[1] * 4, size[0] * 4), np.uint8)
    cv2.fillConvexPoly(mask, np.round(dst * 4 * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    alpha = cv2.resize(mask, size, interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
    roi = image[y0c:y1c, x0c:x1c]
    roi[:] = roi * (1 - alpha) + warped * alpha


def _pose(spec: DieSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The die's rotation, the 3-D centre of its cube and its 8 corners about that centre (pixels, z up)."""
    assert spec.centre is not None and spec.side is not None and spec.angle is not None
    rot = _rotation(spec.angle, spec.tilt, spec.tilt_direction)
    # A tipped die rests on an edge: lift it so its lowest corner touches the table.
    corners = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]) * spec.side
    lift = -(corners @ rot.T)[:, 2].min()
    return rot, np.array([spec.centre[0], spec.centre[1], lift]), corners


def apparent_tilt(spec: DieSpec, style: SceneStyle, width: int, height: int) -> tuple[float, float]:
    """Where the top face of a placed die points as the camera sees it (issue 25's learnt cocked flag): the image
    of a small step along the face's normal from its centre, per pixel of step (x, y in image pixels). A face
    square to the line of sight gives (0, 0); a flat die away from the image centre points away from it by about
    its distance over the camera's height (``SceneStyle.camera_height`` image widths); a die leaning by ``tilt``
    adds about sin(tilt) towards the side it leans to. So on a flat table these vectors follow one field,
    ``a + k * (position - centre)``, and a leaning die stands out of it."""
    assert spec.side is not None
    camera = _Camera(width, height, style)
    rot, origin, _ = _pose(spec)
    top = origin + rot @ np.array([0.0, 0.0, spec.side / 2])
    step = 0.05 * spec.side
    a, b = camera.project(np.stack([top, top + step * (rot @ np.array([0.0, 0.0, 1.0]))]))
    return float((b[0] - a[0]) / step), float((b[1] - a[1]) / step)


def draw_die(image: np.ndarray, spec: DieSpec, style: SceneStyle, rng: np.random.Generator) -> RenderedDie:
    """Draw one die (its shadow, then its visible faces) onto a float32 BGR image, in place."""
    assert spec.centre is not None and spec.side is not None and spec.angle is not None
    h, w = image.shape[:2]
    camera = _Camera(w, h, style)
    s = spec.side
    rot, origin, corners = _pose(spec)

    # Shadow: the footprint pushed away from the light, blurred, darkening the table.
    light = math.radians(style.light_direction)
    offset = np.array([math.cos(light), math.sin(light)]) * s * 0.18
    foot = (corners @ rot.T)[:, :2] + origin[:2] + offset
    hull = cv2.convexHull(foot.astype(np.float32)).reshape(-1, 2)
    pad = int(s) + 4
    bx0, by0 = int(max(hull[:, 0].min() - pad, 0)), int(max(hull[:, 1].min() - pad, 0))
    bx1, by1 = int(min(hull[:, 0].max() + pad, w)), int(min(hull[:, 1].max() + pad, h))
    if bx1 > bx0 and by1 > by0:
        mask = np.zeros((by1 - by0, bx1 - bx0), np.float32)
        cv2.fillConvexPoly(mask, np.round((hull - [bx0, by0]) * 16).astype(np.int32), 1.0, cv2.LINE_AA, shift=4)
        mask = cv2.GaussianBlur(mask, (0, 0), max(s * 0.12, 0.8))
        image[by0:by1, bx0:bx1] *= (1 - style.shadow * mask)[..., None]

    ring = SIDE_RING[spec.value]
    values = (spec.value, ring[0], ring[1], ring[2], ring[3], 7 - spec.value)
    view = np.array([camera.cx, camera.cy, camera.distance])
    light_vec = np.array([math.cos(light) * -0.5, math.sin(light) * -0.5, 1.0])
    light_vec /= np.linalg.norm(light_vec)
    drawn: list[np.ndarray] = []
    faces = []
    for (normal, u, v), value in zip(_FACES, values, strict=True):
        n_world = rot @ normal
        centre3 = origin + rot @ (normal * s / 2)
        if np.dot(n_world, view - centre3) <= 1e-6:
            continue  # facing away from the camera
        ux, vx = rot @ u * s / 2, rot @ v * s / 2
        quad3 = np.array([centre3 - ux - vx, centre3 + ux - vx, centre3 + ux + vx, centre3 - ux + vx])
        quad = camera.project(quad3)
        shade = 0.55 + 0.45 * max(float(np.dot(n_world, light_vec)), 0.0)
        faces.append((float(centre3[2]), quad, value, shade))
    faces.sort(key=lambda f: f[0])  # lower faces first, the top face over them
    flip = bool(rng.random() < 0.5)
    for _, quad, value, shade in faces:
        # Only the top face is seen through to the far one: side faces are seen too obliquely for it to show.
        see_through = spec.see_through if value == spec.value else None
        texture = face_texture(
            value, spec.body, spec.pips, spec.pip_contrast, flip, spec.swirl, spec.swirl_seed + 7 * value, see_through
        )
        blend_quad(image, texture, quad, shade)
        drawn.append(quad)
    allpts = np.concatenate(drawn)
    box = (float(allpts[:, 0].min()), float(allpts[:, 1].min()), float(allpts[:, 0].max()), float(allpts[:, 1].max()))
    top_centre = camera.project((origin + rot @ np.array([0, 0, s / 2]))[None, :])[0]
    return RenderedDie(
        value=spec.value,
        centre=(float(top_centre[0]), float(top_centre[1])),
        side=float(s),
        angle=float(spec.angle % 90),
        box=box,
        body=spec.body,
        pips=spec.pips,
        cocked=spec.tilt >= 12,
        colour_name=spec.colour_name,
        tilt=float(spec.tilt),
    )


def random_die(rng: np.random.Generator, side_range: tuple[float, float] = (20, 60)) -> DieSpec:
    """A die with random value, body and pip colours (pips contrasting with the body) and size."""
    name = str(rng.choice(list(DIE_COLOURS)))
    body = DIE_COLOURS[name]
    jitter = rng.normal(0, 12, 3)
    body = tuple(int(np.clip(c + j, 0, 255)) for c, j in zip(body, jitter, strict=True))  # type: ignore[assignment]
    luminance = _luminance(body)
    pip_name = "black" if luminance > 140 else str(rng.choice(["white", "white", "gold", "red"]))
    if luminance > 140 and rng.random() < 0.25:
        pip_name = "red"
    return DieSpec(
        value=int(rng.integers(1, 7)),
        body=body,
        pips=PIP_COLOURS[pip_name],
        side=float(rng.uniform(*side_range)),
        angle=float(rng.uniform(0, 90)),
        colour_name=name,
    )


def _luminance(body: BGR) -> float:
    return 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]


def place_dice(
    rng: np.random.Generator, specs: Sequence[DieSpec], width: int, height: int, touching: float = 0.3
) -> list[DieSpec]:
    """Give each die without a centre a place where it overlaps no other die.

    With probability ``touching`` a die is pushed against an already placed one, edge to edge, since
    dice often touch on a real table.
    """
    placed: list[DieSpec] = []
    for spec in specs:
        side = spec.side if spec.side is not None else 40.0
        angle = spec.angle if spec.angle is not None else float(rng.uniform(0, 90))
        if spec.centre is not None:
            placed.append(replace(spec, side=side, angle=angle))
            continue
        margin = side * 0.9
        for attempt in range(200):
            if placed and rng.random() < touching and attempt < 20:
                other = placed[int(rng.integers(len(placed)))]
                assert other.centre is not None and other.side is not None and other.angle is not None
                direction = math.radians(other.angle + 90 * int(rng.integers(4)))
                gap = (other.side + side) / 2 * float(rng.uniform(1.02, 1.1))
                centre = (other.centre[0] + gap * math.cos(direction), other.centre[1] + gap * math.sin(direction))
                candidate_angle = other.angle + float(rng.normal(0, 2))
            else:
                centre = (float(rng.uniform(margin, width - margin)), float(rng.uniform(margin, height - margin)))
                candidate_angle = angle
            if not (margin <= centre[0] <= width - margin and margin <= centre[1] <= height - margin):
                continue
            if all(_apart(centre, side, candidate_angle, p) for p in placed):
                placed.append(replace(spec, centre=centre, side=side, angle=candidate_angle))
                break
    return placed


def place_tokens(
    rng: np.random.Generator,
    count: int,
    dice: Sequence[DieSpec],
    side_range: tuple[float, float],
    width: int,
    height: int,
) -> list[tuple[tuple[float, float], float]]:
    """(centre, diameter) for up to ``count`` round things on the table, clear of the placed ``dice`` and of each
    other; one that finds no free place is left out."""
    placed: list[tuple[tuple[float, float], float]] = []
    for _ in range(count):
        diameter = float(rng.uniform(0.7, 1.5)) * float(rng.uniform(*side_range))
        margin = diameter * 0.6
        if width <= 2 * margin or height <= 2 * margin:
            continue
        for _attempt in range(100):
            centre = (float(rng.uniform(margin, width - margin)), float(rng.uniform(margin, height - margin)))
            # A die's box with its side faces reaches past its top face: keep a token a little further off.
            clear = all(_apart(centre, diameter * 1.15, 0.0, die) for die in dice)
            if clear and all(math.dist(centre, c) > (diameter + d) / 2 + 2 for c, d in placed):
                placed.append((centre, diameter))
                break
    return placed


def _apart(centre: tuple[float, float], side: float, angle: float, other: DieSpec) -> bool:
    """True when two squares do not overlap (separating axis test on their four edge normals)."""
    assert other.centre is not None and other.side is not None and other.angle is not None

    def corners(c: tuple[float, float], s: float, a: float) -> np.ndarray:
        r = math.radians(a)
        u = np.array([math.cos(r), math.sin(r)]) * s / 2
        v = np.array([-math.sin(r), math.cos(r)]) * s / 2
        return np.array([c + u + v, c - u + v, c - u - v, c + u - v])

    a = corners(centre, side, angle)
    b = corners(other.centre, other.side, other.angle)
    for ang in (angle, angle + 90, other.angle, other.angle + 90):
        axis = np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))])
        pa, pb = a @ axis, b @ axis
        if pa.max() <= pb.min() + 0.5 or pb.max() <= pa.min() + 0.5:
            return True
    return False


def render_surface(rng: np.random.Generator, width: int, height: int, style: SceneStyle) -> np.ndarray:
    """The empty table: surface colour, a lighting gradient, grain and optionally a tray edge."""
    image = np.empty((height, width, 3), np.float32)
    image[:] = style.surface
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    d = math.radians(style.light_direction)
    ramp = ((xx - width / 2) * math.cos(d) + (yy - height / 2) * math.sin(d)) / max(width, height)
    image *= (1 + style.light_gradient * ramp)[..., None]
    if style.grain > 0:
        grain = rng.normal(0, style.grain, (height // 4 + 1, width // 4 + 1)).astype(np.float32)
        grain = cv2.resize(grain, (width, height), interpolation=cv2.INTER_LINEAR)
        image += grain[..., None]
    if style.tray:
        inset = int(min(width, height) * float(rng.uniform(0.02, 0.08)))
        wall = np.array(style.surface, np.float32) * float(rng.uniform(0.3, 0.8))
        cv2.rectangle(image, (0, 0), (width - 1, height - 1), wall.tolist(), inset)
    return image


def finish(image: np.ndarray, rng: np.random.Generator, style: SceneStyle) -> np.ndarray:
    """Camera effects: blur, sensor noise, 8-bit quantisation and a JPEG round trip."""
    if style.blur > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), style.blur)
    if style.noise > 0:
        image = image + rng.normal(0, style.noise, image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
        return out
    decoded: np.ndarray = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return decoded


def render_scene(
    rng: np.random.Generator,
    size: tuple[int, int] = (640, 640),
    dice: Sequence[DieSpec] | None = None,
    n_dice: tuple[int, int] = (1, 30),
    side_range: tuple[float, float] = (20, 60),
    style: SceneStyle | None = None,
    cocked_fraction: float = 0.0,
    faint_pips: float = 0.0,
    swirled: float = 0.0,
    translucent: float = 0.0,
    tokens: tuple[int, int] = (0, 0),
) -> tuple[np.ndarray, list[RenderedDie]]:
    """A BGR uint8 image of dice on a table, and the truth of every die drawn.

    ``size`` is (width, height). Without ``dice`` a random number in ``n_dice`` of random dice is drawn;
    a fraction ``cocked_fraction`` of them is tipped, and a fraction ``faint_pips`` of the dark ones (the
    dark translucent dice of real sets, whose red pips barely stand out) get pips blended toward the body;
    a fraction ``swirled`` of them gets a marbled body (veins of a second body colour or of white or black),
    and a fraction ``translucent`` a see-through body (the bottom face's pips show through the top face).
    Dice that found no free place are left out, so the truth lists exactly the dice in the image.
    A random number in ``tokens`` of round things with no pips (:func:`draw_token`, 0.7 to 1.5 times a die's
    size) lie among the dice, apart from them; they are not dice, so the truth does not list them.
    """
    width, height = size
    style = style or random_style(rng)
    if dice is None:
        count = int(rng.integers(n_dice[0], n_dice[1] + 1))
        dice = [random_die(rng, side_range) for _ in range(count)]
        dice = [
            replace(d, tilt=float(rng.uniform(15, 35)), tilt_direction=float(rng.uniform(0, 360)))
            if rng.random() < cocked_fraction
            else d
            for d in dice
        ]
        if faint_pips > 0:  # drawn only when asked, so scenes of a seed without it are unchanged
            dice = [
                replace(d, pip_contrast=float(rng.uniform(0.35, 0.75)))
                if _luminance(d.body) < 90 and rng.random() < faint_pips
                else d
                for d in dice
            ]
        if swirled > 0:  # likewise drawn only when asked
            dice = [_marbled(d, rng) if rng.random() < swirled else d for d in dice]
        if translucent > 0:  # likewise
            dice = [_translucent(d, rng) if rng.random() < translucent else d for d in dice]
    specs = place_dice(rng, dice, width, height)
    image = render_surface(rng, width, height, style)
    if tokens[1] > 0:  # drawn only when asked, so scenes of a seed without tokens are unchanged
        for centre, diameter in place_tokens(rng, int(rng.integers(tokens[0], tokens[1] + 1)), specs, side_range,
                                             width, height):
            draw_token(image, centre, diameter, style, rng)
    truth = [draw_die(image, spec, style, rng) for spec in specs]
    return finish(image, rng, style), truth


def render_token(rng: np.random.Generator, size: int = 96) -> tuple[np.ndarray, tuple[float, float], float]:
    """A round thing with no pips on a table, which a reader must not take for a die (see :func:`draw_token`).
    Returns the image (``size`` square, a random table and camera), the token's centre and its diameter in
    pixels."""
    style = random_style(rng)
    image = render_surface(rng, size, size, style)
    diameter = float(rng.uniform(0.3, 0.6)) * size
    cx, cy = (float(v) for v in rng.uniform(size / 2 - 0.1 * size, size / 2 + 0.1 * size, 2))
    draw_token(image, (cx, cy), diameter, style, rng)
    return finish(image, rng, style), (cx, cy), diameter


def draw_token(
    image: np.ndarray, centre: tuple[float, float], diameter: float, style: SceneStyle, rng: np.random.Generator
) -> None:
    """Draw a round thing with no pips onto the float32 table ``image``, in place: a game's token or counter (a
    flat disc of any colour, perhaps with a rim), a coin (shaded metal with an embossed ring) or a hole in a
    tray (darker or lighter than the table, a soft edge, a speck at its rim)."""
    cx, cy = centre
    r = diameter / 2
    # Only a window around the token changes (its shadow reaches at most 0.12 diameters further out), and
    # every pixel outside it would be left exactly as it is, so the window is all that is computed.
    reach = math.ceil(1.3 * r + 4)
    h, w = image.shape[:2]
    x0, x1 = max(0, int(cx) - reach), min(w, int(cx) + reach + 1)
    y0, y1 = max(0, int(cy) - reach), min(h, int(cy) + reach + 1)
    window = image[y0:y1, x0:x1]
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    distance = np.hypot(xx - cx, yy - cy)
    edge = float(rng.uniform(0.6, 2.0))  # px of soft edge: antialiasing, focus, a bevel
    inside = np.clip((r - distance) / edge + 0.5, 0, 1)[..., None]
    kind = ("token", "coin", "hole")[int(rng.integers(3))]
    table = np.array(style.surface, np.float32)
    if kind == "hole":
        colour = table * float(rng.choice([rng.uniform(0.35, 0.8), rng.uniform(1.1, 1.3)]))
    elif kind == "coin":
        colour = np.array(((120, 160, 190), (150, 150, 155), (70, 110, 170))[int(rng.integers(3))], np.float32)
    else:
        colour = np.array(DIE_COLOURS[str(rng.choice(list(DIE_COLOURS)))], np.float32)
    if kind != "hole":  # a raised thing casts a shadow toward the light's far side
        d = math.radians(style.light_direction)
        shift = float(rng.uniform(0.03, 0.12)) * diameter
        shadow = np.clip((r - np.hypot(xx - cx - shift * math.cos(d), yy - cy - shift * math.sin(d))) / 3 + 0.5, 0, 1)
        window *= (1 - style.shadow * shadow)[..., None]
    body = np.broadcast_to(colour, window.shape).astype(np.float32)
    # Light across the face, and for a coin the shine of metal toward its middle.
    body = body * (1 + float(rng.uniform(-0.15, 0.15)) * ((xx - cx) / r))[..., None]
    if kind == "coin":
        body = body * (1.15 - 0.3 * (distance / r) ** 2)[..., None]
    if kind != "hole" and rng.random() < 0.6:  # a rim (a coin's raised ring, a token's printed border)
        ring = np.exp(-(((distance - r * float(rng.uniform(0.7, 0.9))) / max(1.0, 0.05 * r)) ** 2))
        body = body * (1 + float(rng.uniform(-0.35, 0.35)) * ring)[..., None]
    if rng.random() < 0.4:  # a speck at the rim: dirt, a notch, the clip's pin in a tray's hole
        a = float(rng.uniform(0, 2 * math.pi))
        speck = np.hypot(xx - cx - 0.85 * r * math.cos(a), yy - cy - 0.85 * r * math.sin(a)) < 0.08 * r + 0.5
        body = np.where(speck[..., None], body * 0.4, body)
    window[:] = window * (1 - inside) + body * inside


_VEIN_COLOURS = (*DIE_COLOURS.values(), (250, 250, 250), (15, 15, 15))


def _marbled(die: DieSpec, rng: np.random.Generator) -> DieSpec:
    """The die with a marbled body: veins of another body colour, or of white or black."""
    vein = _VEIN_COLOURS[int(rng.integers(len(_VEIN_COLOURS)))]
    return replace(die, swirl=vein, swirl_seed=int(rng.integers(2**31)))


def _translucent(die: DieSpec, rng: np.random.Generator) -> DieSpec:
    """The die with a see-through body: its far pips faint or nearly as strong as its own, a little off."""
    see_through = SeeThrough(
        strength=float(rng.uniform(0.15, 0.6)),
        shift=(float(rng.normal(0, 0.05)), float(rng.normal(0, 0.05))),
        scale=float(rng.uniform(0.75, 1.0)),
        turns=int(rng.integers(4)),
        blur=float(rng.uniform(0.01, 0.06)),
    )
    return replace(die, see_through=see_through)


def _main() -> None:  # pragma: no cover - a quick look: python -m vision.lab.render OUT.png [SEED]
    import sys

    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    image, truth = render_scene(rng, cocked_fraction=0.1)
    for die in truth:
        x0, y0, x1, y1 = (round(v) for v in die.box)
        cv2.rectangle(image, (x0, y0), (x1, y1), (0, 0, 255) if die.cocked else (0, 200, 0), 1)
        cv2.putText(image, str(die.value), (x0, y0 - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1)
    cv2.imwrite(sys.argv[1], image)


if __name__ == "__main__":  # pragma: no cover
    _main()
