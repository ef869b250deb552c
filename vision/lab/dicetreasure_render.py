"""Lab: Dice Treasure tables drawn into camera frames from seeded engine states, with the truth of every frame.

Part of vision's lab (with :mod:`vision.lab.render` and :mod:`vision.lab.mat_render`), never imported by the device.
A motif card is drawn from its deck entry (:func:`draw_card`): its background colour, its coins in the top-left
corner, and every space at its place with its requirement, in the print design the reader assumes
(:mod:`vision.dicetreasure_read`: a space is a rounded square with a light rim; a coloured space is filled with
that dice colour, a white one needs any colour; a value is printed as pips on a white badge in the middle).
The print's colours are jittered per box, so the reader is not measured on the exact colours it expects.

A table (:func:`render_table`) is the game's mats (:func:`vision.mats.mats`) side by side, each drawn on a
flat canvas in sheet millimetres: the printed sheet, the dealt cards on the card spots (a little off and
turned, sometimes upside down), the dice on their spaces (:func:`vision.lab.render.draw_die`), the roll in the
tray, the personal and common reserves and, in the steal phase, the cards in the middle. The canvases are
warped into the frame through a pinhole camera tilted up to 20 degrees (drawn at twice the size, then
shrunk), then a lighting gradient, blur, noise and JPEG, and sometimes a hand. Everything comes from the
seed: :func:`seeded_turn` walks a seeded engine game to a turn and makes a placement, so a frame's truth is
an engine state.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.dice import Die
from engine.dicetreasure import GAME, DiceTreasureState, MotifCard, Phase, Place
from vision.dicetreasure_read import (
    BACKGROUND_BGR,
    BADGE_RADIUS_MM,
    CARD_MM,
    COIN_RADIUS_MM,
    DIE_MM,
    PAPER_BGR,
    PIP_RADIUS_MM,
    PIP_SPAN_MM,
    SPACE_BGR,
    SPACE_MM,
    SPACE_RIM_MM,
    card_spots,
    coin_centre,
    reserve_rect,
    space_centre,
)
from vision.lab.mat_render import PlacedMat, ViewStyle, camera_rotation, finish_frame, mat_raster, table_layout
from vision.lab.render import DIE_COLOURS, PIP_COLOURS, PIP_LAYOUT, DieSpec, SceneStyle, draw_die, place_dice
from vision.mats import Mat, Rect, mats

#: Canvas resolution of the mats before they are warped into the frame (the frame sees 1.3 to 2.7 px/mm).
CANVAS_PX_PER_MM = 3.0
_INK = (40, 40, 40)
_GOLD = (40, 175, 220)
_GOLD_RIM = (20, 70, 110)


def _jitter(colour: tuple[int, int, int], rng: np.random.Generator, amount: float) -> tuple[int, int, int]:
    c = np.clip(np.array(colour, np.float64) + rng.normal(0, amount, 3), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


@dataclass(frozen=True)
class CardPrint:
    """The colours one box's cards are printed in (the nominal ones jittered): background and space colours."""

    backgrounds: dict[str, tuple[int, int, int]]
    spaces: dict[str, tuple[int, int, int]]

    @staticmethod
    def nominal() -> CardPrint:
        return CardPrint(dict(BACKGROUND_BGR), dict(SPACE_BGR))

    @staticmethod
    def random(rng: np.random.Generator, amount: float = 8.0) -> CardPrint:
        return CardPrint({k: _jitter(v, rng, amount) for k, v in BACKGROUND_BGR.items()},
                         {k: _jitter(v, rng, amount) for k, v in SPACE_BGR.items()})


def draw_card(card: MotifCard, px_per_mm: float, printed: CardPrint | None = None) -> np.ndarray:
    """The card upright as BGRA float32 at ``px_per_mm`` (alpha 0 outside its rounded corners)."""
    printed = printed or CardPrint.nominal()
    k = px_per_mm
    w, h = round(CARD_MM[0] * k), round(CARD_MM[1] * k)
    s = 16  # sub-pixel shift for antialiased drawing

    def pt(x: float, y: float) -> tuple[int, int]:
        return (round(x * k * s), round(y * k * s))

    def rounded(img: np.ndarray, x0: float, y0: float, x1: float, y1: float, r: float,
                colour: tuple[float, ...]) -> None:
        cv2.rectangle(img, pt(x0 + r, y0), pt(x1 - r, y1), colour, -1, cv2.LINE_AA, shift=4)
        cv2.rectangle(img, pt(x0, y0 + r), pt(x1, y1 - r), colour, -1, cv2.LINE_AA, shift=4)
        for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)):
            cv2.circle(img, pt(cx, cy), round(r * k * s), colour, -1, cv2.LINE_AA, shift=4)

    out = np.zeros((h, w, 4), np.float32)
    bg = printed.backgrounds[card.background]
    rounded(out, 0, 0, CARD_MM[0], CARD_MM[1], 3.0, (*bg, 255))
    for i in range(card.coins):
        cx, cy = coin_centre(i)
        cv2.circle(out, pt(cx, cy), round(COIN_RADIUS_MM * k * s), (*_GOLD_RIM, 255), -1, cv2.LINE_AA, shift=4)
        cv2.circle(out, pt(cx, cy), round((COIN_RADIUS_MM - 1.0) * k * s), (*_GOLD, 255), -1, cv2.LINE_AA, shift=4)
    for space in card.spaces:
        cx, cy = space_centre(card, space.pos)
        half = SPACE_MM / 2
        rounded(out, cx - half - SPACE_RIM_MM, cy - half - SPACE_RIM_MM, cx + half + SPACE_RIM_MM,
                cy + half + SPACE_RIM_MM, 2.5, (*PAPER_BGR, 255))
        rounded(out, cx - half, cy - half, cx + half, cy + half, 2.0, (*_INK, 255))
        fill = printed.spaces[space.colour or "white"]
        rounded(out, cx - half + 0.5, cy - half + 0.5, cx + half - 0.5, cy + half - 0.5, 1.6, (*fill, 255))
        if space.value is not None:
            cv2.circle(out, pt(cx, cy), round(BADGE_RADIUS_MM * k * s), (*printed.spaces["white"], 255), -1,
                       cv2.LINE_AA, shift=4)
            for px, py in PIP_LAYOUT[space.value]:
                centre = pt(cx + (px - 0.5) * PIP_SPAN_MM, cy + (py - 0.5) * PIP_SPAN_MM)
                cv2.circle(out, centre, round(PIP_RADIUS_MM * k * s), (*_INK, 255), -1, cv2.LINE_AA, shift=4)
    return out


def _paste(canvas: np.ndarray, rgba: np.ndarray, centre_px: tuple[float, float], angle: float, shadow: float) -> None:
    """Paste a BGRA image turned by ``angle`` degrees (clockwise as seen) with its centre at ``centre_px``, with a
    soft shadow under it."""
    h, w = rgba.shape[:2]
    a = math.radians(angle)
    m = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0]])
    m[:, 2] = np.array(centre_px) - m[:, :2] @ np.array([(w - 1) / 2, (h - 1) / 2])
    size = (canvas.shape[1], canvas.shape[0])
    reach = int(math.hypot(w, h) / 2) + 12
    x0, y0 = max(int(centre_px[0]) - reach, 0), max(int(centre_px[1]) - reach, 0)
    x1, y1 = min(int(centre_px[0]) + reach, size[0]), min(int(centre_px[1]) + reach, size[1])
    if x1 <= x0 or y1 <= y0:
        return
    m_roi = m - np.array([[0, 0, x0], [0, 0, y0]])
    warped = cv2.warpAffine(rgba, m_roi, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:] / 255.0
    roi = canvas[y0:y1, x0:x1]
    if shadow > 0:
        soft = cv2.GaussianBlur(alpha[:, :, 0], (0, 0), 4.0)
        soft = np.roll(soft, (3, 3), axis=(0, 1))
        roi *= (1 - shadow * soft)[:, :, None]
    roi[:] = roi * (1 - alpha) + warped[:, :, :3] * alpha


# --- what a frame shows, and its truth --------------------------------------------------------------------


@dataclass(frozen=True)
class CardTruth:
    """A card on a spot: the mat zone (``motif-cards-2``, ``middle``), the spot's index, the card id, the dice on
    its spaces (deck file order), whether it lies upside down, and its spaces' centres in frame pixels."""

    zone: str
    spot: int
    card: str
    dice: tuple[Die | None, ...]
    upside_down: bool = False
    space_px: tuple[tuple[float, float], ...] = ()


@dataclass
class TableFrame:
    """A rendered frame and everything true about it."""

    image: np.ndarray
    state: DiceTreasureState | None
    cards: tuple[CardTruth, ...]
    tray: tuple[Die, ...] = ()
    reserves: dict[int, tuple[Die, ...]] = field(default_factory=dict)
    common: tuple[Die, ...] = ()
    mat_to_frame: dict[str, np.ndarray] = field(default_factory=dict)
    hands: int = 0


@dataclass(frozen=True)
class TableLayout:
    """What lies where, before it is drawn: per card spot (zone key, spot index) the card and its dice, and the
    loose dice of each zone (``tray``, ``common-reserve``, ``reserve-2``)."""

    cards: dict[tuple[str, int], tuple[MotifCard, tuple[Die | None, ...]]]
    loose: dict[str, tuple[Die, ...]]
    upside_down: frozenset[tuple[str, int]] = frozenset()


def layout_of(state: DiceTreasureState) -> TableLayout:
    """Where an engine state's pieces lie: each player's cards on their mat's spots in the order the engine
    holds them, the middle's cards in the middle, the current dice in the tray, the reserves in theirs."""
    cards: dict[tuple[str, int], tuple[MotifCard, tuple[Die | None, ...]]] = {}
    for seat, player in enumerate(state.players, 1):
        for i, cip in enumerate(player.cards):
            cards[(f"motif-cards-{seat}", i)] = (cip.card, cip.dice)
    for i, cip in enumerate(state.middle):
        cards[("middle", i)] = (cip.card, cip.dice)
    loose = {"tray": tuple(state.hand), "common-reserve": tuple(state.common)}
    for seat, player in enumerate(state.players, 1):
        loose[f"reserve-{seat}"] = tuple(player.reserve)
    return TableLayout(cards, loose)


def _die_spec(die: Die, rng: np.random.Generator, side: float, centre: tuple[float, float] | None = None,
              angle: float | None = None) -> DieSpec:
    name = die.colour or "white"
    body = _jitter(DIE_COLOURS[name], rng, 6.0)
    pips = PIP_COLOURS["black"] if name in ("yellow", "white") else PIP_COLOURS["white"]
    return DieSpec(value=die.value, body=body, pips=pips, centre=centre, side=side, angle=angle, colour_name=name)


def _zone_dice(canvas: np.ndarray, rect: Rect, dice: Sequence[Die], rng: np.random.Generator, style: SceneStyle,
               k: float, die_mm: float) -> list[tuple[Die, tuple[float, float]]]:
    """Dice scattered in ``rect`` (mm) without overlapping; their centres in canvas pixels."""
    specs = [_die_spec(d, rng, die_mm * k) for d in dice]
    width, height = round(rect.w * k), round(rect.h * k)
    placed = place_dice(rng, specs, width, height, touching=0.3)
    out = []
    for spec in placed:
        assert spec.centre is not None
        moved = DieSpec(spec.value, spec.body, spec.pips, (spec.centre[0] + rect.x * k, spec.centre[1] + rect.y * k),
                        spec.side, spec.angle, colour_name=spec.colour_name)
        drawn = draw_die(canvas, moved, style, rng)
        out.append((Die(spec.value, spec.colour_name), drawn.centre))
    return out


def _own(seed: int | None, rng: np.random.Generator, *parts: object) -> np.random.Generator:
    """The generator for one piece: with ``seed`` a piece's own (the same card, die or heap of dice lies the
    same way in every frame of a recording while nobody touches it), else the frame's."""
    if seed is None:
        return rng
    return np.random.default_rng([seed, zlib.crc32(repr(parts).encode())])


def _draw_mat(mat: Mat, layout: TableLayout, rng: np.random.Generator, printed: CardPrint, k: float,
              style: SceneStyle, pieces: int | None = None
              ) -> tuple[np.ndarray, list[tuple[tuple[str, int], list[tuple[float, float]]]], dict[str, list[Die]]]:
    """One mat's canvas with its cards and dice; the spaces' centres (canvas px) per card spot; the dice drawn
    per loose zone. ``pieces``: each piece's place comes from its own generator (see :func:`_own`)."""
    canvas = mat_raster(mat, k).astype(np.float32)
    spaces_px: list[tuple[tuple[str, int], list[tuple[float, float]]]] = []
    drawn: dict[str, list[Die]] = {}
    for zone in mat.zones:
        spots = card_spots(zone)
        for i, spot in enumerate(spots):
            entry = layout.cards.get((zone.key, i))
            if entry is None:
                continue
            card, dice = entry
            flip = (zone.key, i) in layout.upside_down
            lay = _own(pieces, rng, zone.key, i, card.id)
            angle = float(lay.normal(0, 1.5)) + (180.0 if flip else 0.0)
            cx = spot.x + spot.w / 2 + float(np.clip(lay.normal(0, 0.8), -1.8, 1.8))
            cy = spot.y + spot.h / 2 + float(np.clip(lay.normal(0, 0.8), -1.8, 1.8))
            _paste(canvas, draw_card(card, k, printed), (cx * k - 0.5, cy * k - 0.5), angle, 0.25)
            a = math.radians(angle)
            rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            centres = []
            for n, (space, die) in enumerate(zip(card.spaces, dice, strict=True)):
                sx, sy = space_centre(card, space.pos)
                local = rot @ np.array([sx - CARD_MM[0] / 2, sy - CARD_MM[1] / 2])
                px = ((cx + local[0]) * k - 0.5, (cy + local[1]) * k - 0.5)
                centres.append(px)
                if die is not None:
                    put = _own(pieces, rng, zone.key, i, card.id, n, str(die))
                    centre = (px[0] + float(put.normal(0, 0.5)) * k, px[1] + float(put.normal(0, 0.5)) * k)
                    spec = _die_spec(die, put, DIE_MM * float(put.uniform(0.97, 1.03)) * k, centre,
                                     (angle + float(put.normal(0, 5))) % 90)
                    draw_die(canvas, spec, style, put)
            spaces_px.append(((zone.key, i), centres))
        if zone.key in layout.loose:
            rect = reserve_rect(zone)
            heap = _own(pieces, rng, zone.key, sorted(map(str, layout.loose[zone.key])))
            placed = _zone_dice(canvas, rect, layout.loose[zone.key], heap, style, k, DIE_MM)
            drawn[zone.key] = [d for d, _ in placed]
    return canvas, spaces_px, drawn


# --- the camera --------------------------------------------------------------------------------------------


def _shift(dx: float, dy: float) -> np.ndarray:
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)


def _camera(view: ViewStyle) -> np.ndarray:
    """Table plane (mm) -> normalised image plane of a camera above the origin tilted by ``view.tilt``."""
    t, az, roll = (math.radians(v) for v in (view.tilt, view.azimuth, view.roll))
    centre = np.array([math.sin(t) * math.cos(az), math.sin(t) * math.sin(az), -math.cos(t)]) * 1000.0
    forward = -centre / np.linalg.norm(centre)
    # The frame's "down" stays along the table's y whichever way the camera leans: cameras are mounted square
    # to the table (the roll turns them a little, or half a turn).
    rot = camera_rotation(forward, np.array([0.0, 1.0, 0.0]), roll)
    return np.column_stack([rot[:, 0], rot[:, 1], -rot @ centre])


def _fit_into(h: np.ndarray, corners: np.ndarray, size: tuple[int, int], fill: float,
              rng: np.random.Generator) -> np.ndarray:
    p = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h).reshape(-1, 2)
    lo, hi = p.min(axis=0), p.max(axis=0)
    span = hi - lo
    scale = fill * min(size[0] / span[0], size[1] / span[1])
    offset = (np.array(size) - span * scale) * rng.uniform(0.35, 0.65, size=2) - lo * scale
    return np.array([[scale, 0, offset[0]], [0, scale, offset[1]], [0, 0, 1]]) @ h


def _view(rng: np.random.Generator, max_tilt: float) -> ViewStyle:
    return ViewStyle(tilt=float(rng.uniform(0, max_tilt)), azimuth=float(rng.uniform(0, 360)),
                     roll=float(rng.uniform(-12, 12)) + float(rng.choice([0.0, 180.0])),
                     fill=float(rng.uniform(0.86, 0.95)), light=float(rng.uniform(0.05, 0.35)),
                     light_direction=float(rng.uniform(0, 360)), blur=float(rng.uniform(0.3, 0.9)),
                     noise=float(rng.uniform(1, 4)), jpeg=int(rng.integers(70, 95)))


def _table(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    base = np.array(rng.choice([(60, 90, 130), (40, 70, 40), (90, 90, 95), (30, 50, 90)]), np.float32)
    grain = cv2.resize(rng.normal(0, 1, (max(2, h // 40), max(2, w // 8))).astype(np.float32), (w, h))
    return base[None, None, :] * (1 + 0.12 * grain)[:, :, None]


def _hand(frame: np.ndarray, rng: np.random.Generator, avoid: Sequence[tuple[float, float]], reach: float) -> bool:
    """A hand (a skin-coloured palm and arm from the frame's edge) where it covers none of ``avoid``."""
    h, w = frame.shape[:2]
    for _ in range(30):
        side = int(rng.integers(4))
        t = float(rng.uniform(0.1, 0.9))
        edge = [(t * w, 0.0), (w - 1.0, t * h), (t * w, h - 1.0), (0.0, t * h)][side]
        inward = [(0, 1), (-1, 0), (0, -1), (1, 0)][side]
        depth = float(rng.uniform(0.08, 0.22)) * min(w, h)
        palm = (edge[0] + inward[0] * depth, edge[1] + inward[1] * depth)
        radius = 0.045 * min(w, h)
        if all(math.hypot(palm[0] - x, palm[1] - y) > radius * 2 + reach for x, y in avoid):
            colour = tuple(float(c) for c in rng.choice([(120, 160, 210), (90, 130, 180), (60, 90, 140)]))
            cv2.line(frame, (int(edge[0]), int(edge[1])), (int(palm[0]), int(palm[1])), colour, int(radius * 1.4))
            cv2.ellipse(frame, (int(palm[0]), int(palm[1])), (int(radius * 1.2), int(radius)),
                        float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
            return True
    return False


def render_table(
    layout: TableLayout,
    sheets: Sequence[Mat],
    seed: int,
    size: tuple[int, int] = (1280, 960),
    state: DiceTreasureState | None = None,
    max_tilt: float = 20.0,
    hands: float = 0.3,
    printed: CardPrint | None = None,
    pieces: int | None = None,
) -> TableFrame:
    """Draw ``layout`` on the mats ``sheets`` as a camera sees them; the frame and its truth. With ``pieces``
    (a recording's seed) each card, die and heap of loose dice lies as it did in the recording's other frames
    until it changes; without it everything is placed afresh from ``seed``."""
    rng = np.random.default_rng(seed)
    printed = printed or CardPrint.random(rng)
    k = CANVAS_PX_PER_MM
    style = SceneStyle(shadow=float(rng.uniform(0.2, 0.45)), camera_height=40.0,
                       light_direction=float(rng.uniform(0, 360)))
    placed: list[PlacedMat] = table_layout(sheets, rng, jitter=4.0)
    view = _view(rng, max_tilt)
    plane = _camera(view)
    corners = np.concatenate([
        cv2.perspectiveTransform(np.array([[(0, 0), (pm.mat.size[0], 0), pm.mat.size, (0, pm.mat.size[1])]],
                                          np.float64), pm.to_table())[0] for pm in placed])
    table_to_frame = _fit_into(plane, corners, size, view.fill, rng)
    big = (size[0] * 2, size[1] * 2)
    frame = _table(rng, big)
    up = _shift(0.5, 0.5) @ np.diag([2.0, 2.0, 1.0])
    truth_cards: list[CardTruth] = []
    to_frame: dict[str, np.ndarray] = {}
    loose: dict[str, list[Die]] = {}
    for pm in placed:
        mat_to_frame = table_to_frame @ pm.to_table()
        to_frame[pm.mat.key] = mat_to_frame
        canvas, spaces_px, drawn = _draw_mat(pm.mat, layout, rng, printed, k, style, pieces)
        loose.update(drawn)
        canvas_to_big = up @ mat_to_frame @ np.diag([1 / k, 1 / k, 1.0]) @ _shift(0.5, 0.5)
        quad = cv2.perspectiveTransform(np.array([[(0, 0), (canvas.shape[1], 0), (canvas.shape[1], canvas.shape[0]),
                                                   (0, canvas.shape[0])]], np.float64), canvas_to_big)[0]
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 2, big)
        if x1 > x0 and y1 > y0:
            # Transparent borders write only the sheet's own pixels; the 2x shrink below antialiases its edges.
            roi = np.ascontiguousarray(frame[y0:y1, x0:x1])
            cv2.warpPerspective(canvas, _shift(-x0, -y0) @ canvas_to_big, (int(x1 - x0), int(y1 - y0)), dst=roi,
                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
            frame[y0:y1, x0:x1] = roi
        canvas_to_frame = mat_to_frame @ np.diag([1 / k, 1 / k, 1.0]) @ _shift(0.5, 0.5)
        for (zone_key, spot), centres in spaces_px:
            card, dice = layout.cards[(zone_key, spot)]
            px = cv2.perspectiveTransform(np.array([centres], np.float64), canvas_to_frame)[0]
            truth_cards.append(CardTruth(zone_key, spot, card.id, tuple(dice), (zone_key, spot) in layout.upside_down,
                                         tuple((float(x), float(y)) for x, y in px)))
    image = cv2.resize(np.clip(frame, 0, 255).astype(np.uint8), size, interpolation=cv2.INTER_AREA)
    n_hands = 0
    if rng.random() < hands:
        avoid = [p for c in truth_cards for p in c.space_px]
        scale = float(np.sqrt(abs(np.linalg.det(table_to_frame[:2, :2]))))
        n_hands = int(_hand(image, rng, avoid, reach=60 * scale))
    image = _finish(image, rng, view)
    reserves = {int(key.split("-")[1]): tuple(d) for key, d in loose.items() if key.startswith("reserve-")}
    return TableFrame(image, state, tuple(truth_cards), tuple(loose.get("tray", ())), reserves,
                      tuple(loose.get("common-reserve", ())), to_frame, n_hands)


def _finish(image: np.ndarray, rng: np.random.Generator, view: ViewStyle) -> np.ndarray:
    # Always a JPEG: the tables are seen through a compressed stream.
    return finish_frame(image, rng, light=view.light, light_direction=view.light_direction, blur=view.blur,
                        noise=view.noise, jpeg=view.jpeg or 90)


# --- seeded engine states -----------------------------------------------------------------------------------


def _policy(actions: list[object], rng: random.Random) -> object:
    """Random, but places 9 times in 10 and ends the turn often (the engine's eager policy, in short)."""
    places = [a for a in actions if isinstance(a, Place)]
    if places and rng.random() < 0.9:
        return rng.choice(places)
    return rng.choice(actions)


def seeded_state(players: int, seed: int, decisions: int) -> DiceTreasureState:
    """A seeded game of ``players`` after about ``decisions`` decisions, stopped at a turn with dice in hand."""
    rng = random.Random(seed)
    state = GAME.initial_state([f"P{i + 1}" for i in range(players)])
    made = 0
    for _ in range(20_000):
        if state.phase is Phase.OVER:
            state = GAME.initial_state([f"P{i + 1}" for i in range(players)])
        if state.phase is Phase.TURN and made >= decisions and state.hand:
            return state
        if state.phase in (Phase.TURN, Phase.SOLO_FILL):
            action = _policy(list(GAME.legal_actions(state)), rng)
            made += 1
        else:
            action = GAME.random_chance(state, rng)
        state = GAME.apply(state, action)  # type: ignore[arg-type]
    raise RuntimeError(f"seed {seed}: no turn reached")


def seeded_turn(players: int, seed: int, places: int = 2) -> tuple[DiceTreasureState, tuple[Place, ...],
                                                                     DiceTreasureState]:
    """A seeded state at a turn, up to ``places`` legal placements from the hand, and the state after them."""
    rng = random.Random(seed * 7919 + 1)
    before = seeded_state(players, seed, decisions=rng.randint(0, 40))
    state = before
    made: list[Place] = []
    for _ in range(places):
        options = [a for a in GAME.legal_actions(state) if isinstance(a, Place)]
        if not options:
            break
        action = rng.choice(options)
        made.append(action)
        state = GAME.apply(state, action)
    return before, tuple(made), state


def render_state(state: DiceTreasureState, seed: int, size: tuple[int, int] = (1280, 960), hands: float = 0.3,
                 printed: CardPrint | None = None) -> TableFrame:
    """An engine state's table as a frame (every mat of the game)."""
    sheets = mats("dicetreasure", len(state.players))
    return render_table(layout_of(state), sheets, seed, size, state, hands=hands, printed=printed)


def render_enrolment(card: MotifCard, seed: int, size: tuple[int, int] = (1280, 960), spot: int = 0,
                     upside_down: bool = False, printed: CardPrint | None = None) -> TableFrame:
    """A card laid on a card spot of player 1's mat for enrolment (the camera sees that mat)."""
    layout = TableLayout({("motif-cards-1", spot): (card, (None,) * len(card.spaces))}, {},
                         frozenset({("motif-cards-1", spot)}) if upside_down else frozenset())
    return render_table(layout, mats("dicetreasure", 1)[:1], seed, size, None, max_tilt=15.0, hands=0.0,
                        printed=printed)


def render_teaching(seed: int, players: int = 2, size: tuple[int, int] = (1280, 960)) -> TableFrame:
    """One die of each Dice Treasure colour in the tray (random faces), for teaching the palette."""
    rng = random.Random(seed)
    dice = tuple(Die(rng.randint(1, 6), c) for c in ("red", "yellow", "green", "blue", "purple"))
    layout = TableLayout({}, {"tray": dice})
    return render_table(layout, mats("dicetreasure", players), seed, size, None, hands=0.0)


def render_dealt(state: DiceTreasureState, seed: int, size: tuple[int, int] = (1280, 960)) -> TableFrame:
    """The state's cards as they lay when dealt (no dice on them, none loose): the frame the camera identifies
    the round's cards on."""
    layout = layout_of(state)
    empty = TableLayout({key: (card, (None,) * len(card.spaces)) for key, (card, _) in layout.cards.items()}, {})
    return render_table(empty, mats("dicetreasure", len(state.players)), seed, size, state, hands=0.0)
