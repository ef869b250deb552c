"""The one crop rule (vision.crop): upright, centred, scaled, the same for boxes and candidates."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.crop import CROP_MARGIN, as_bgr, box_to_candidate, crop_batch, crop_die, folded_edges_each
from vision.lab.render import DieSpec, SceneStyle, render_scene
from vision.types import DieCandidate


def square_corners(centre: tuple[float, float], side: float, angle: float) -> np.ndarray:
    """Corners of a square turned by ``angle`` degrees the way vision.lab.render turns dice (y down)."""
    a = math.radians(angle)
    u = np.array([math.cos(a), math.sin(a)]) * side / 2
    v = np.array([-math.sin(a), math.cos(a)]) * side / 2
    c = np.array(centre)
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def marked_square(angle: float, side: float = 60.0) -> np.ndarray:
    """A grey square on black with its top-left quarter (in the square's own frame) white."""
    image = np.zeros((200, 240, 3), np.uint8)
    corners = square_corners((120.0, 100.0), side, angle)
    cv2.fillConvexPoly(image, np.round(corners * 16).astype(np.int32), (128, 128, 128), cv2.LINE_AA, shift=4)
    a = math.radians(angle)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-math.sin(a), math.cos(a)])
    centre = np.array([120.0, 100.0])
    quarter = np.array([centre - (u + v) * side / 2, centre - v * side / 2, centre, centre - u * side / 2])
    cv2.fillConvexPoly(image, np.round(quarter * 16).astype(np.int32), (255, 255, 255), cv2.LINE_AA, shift=4)
    return image


@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 63.0, 89.0])
def test_crop_turns_the_die_upright_with_its_own_top_left_at_top_left(angle: float) -> None:
    image = marked_square(angle)
    crop = crop_die(image, DieCandidate((120.0, 100.0), 60.0, angle, 1.0), size=50)
    grey = crop[:, :, 0].astype(int)
    die = 50 / (1 + CROP_MARGIN)  # the die spans this many crop pixels
    lo, hi = round(25 - die / 2) + 2, round(25 + die / 2) - 2
    # Upright: the die fills a centred axis-aligned square, the margin around it is table (black).
    assert grey[lo:hi, lo:hi].min() > 100
    assert grey[:2].max() < 40 and grey[-2:].max() < 40 and grey[:, :2].max() < 40 and grey[:, -2:].max() < 40
    # The white quarter ends up top-left: the rotation goes the same way as the renderer's.
    assert grey[lo + 2 : 22, lo + 2 : 22].mean() > 230
    assert grey[28 : hi - 2, 28 : hi - 2].mean() < 150


def test_rendered_dice_come_out_upright_and_centred() -> None:
    rng = np.random.default_rng(3)
    specs = [DieSpec(value=5, centre=(80.0 + 110 * i, 120.0), side=50.0, angle=a) for i, a in enumerate((10, 35, 70))]
    image, truth = render_scene(rng, (400, 240), dice=specs, style=SceneStyle(surface=(40, 40, 40), camera_height=50))
    for die in truth:
        crop = crop_die(image, DieCandidate(die.centre, die.side, die.angle, 1.0), size=60)
        mask = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) > 120).astype(np.uint8)
        ys, xs = np.nonzero(mask)
        # The white die body spans the middle 60/1.25 = 48 px, edges axis-aligned.
        assert abs(xs.mean() - 29.5) < 2 and abs(ys.mean() - 29.5) < 2
        assert 42 <= xs.max() - xs.min() + 1 <= 52 and 42 <= ys.max() - ys.min() + 1 <= 52
        _, _, rect_angle = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        assert min(rect_angle % 90, 90 - rect_angle % 90) < 4


def test_a_box_is_taken_at_angle_zero_and_a_squashed_box_is_unsquashed() -> None:
    image = np.zeros((100, 200, 3), np.uint8)
    cv2.rectangle(image, (40, 30), (119, 69), (200, 200, 200), -1)  # 80 x 40: a die photographed squashed
    crop = crop_die(image, (40.0, 30.0, 120.0, 70.0), size=40, margin=0.0)
    assert crop.min() > 150  # the box fills the crop exactly, stretched to a square
    candidate = crop_die(image, box_to_candidate((40.0, 30.0, 120.0, 70.0)), size=40, margin=0.0)
    assert candidate.shape == (40, 40, 3)


def test_box_to_candidate_is_the_square_the_box_bounds() -> None:
    c = box_to_candidate((0.0, 0.0, 100.0, 100.0), angle=45.0)
    assert c.centre == (50.0, 50.0)
    assert c.side == pytest.approx(100 / math.sqrt(2))
    assert c.box == pytest.approx((0.0, 0.0, 100.0, 100.0))


def test_big_dice_are_area_averaged_not_aliased() -> None:
    # A fine checkerboard (1 px squares) shrunk 10x must come out mid-grey, not striped.
    board = ((np.indices((600, 600)).sum(axis=0) % 2) * 255).astype(np.uint8)
    crop = crop_die(board, DieCandidate((300.0, 300.0), 320.0, 0.0, 1.0), size=32)
    assert abs(float(crop.mean()) - 127.5) < 12 and float(crop.std()) < 12


def test_grey_and_bgra_images_give_bgr_crops() -> None:
    grey = np.full((80, 80), 90, np.uint8)
    crop = crop_die(grey, (20.0, 20.0, 60.0, 60.0))
    assert crop.shape == (32, 32, 3) and int(crop.min()) == int(crop.max()) == 90
    bgra = np.zeros((80, 80, 4), np.uint8)
    assert crop_die(bgra, (20.0, 20.0, 60.0, 60.0)).shape == (32, 32, 3)
    assert as_bgr(np.zeros((4, 4), np.uint16)).dtype == np.uint8


def test_crop_batch_stacks_and_handles_none() -> None:
    image = np.zeros((50, 50, 3), np.uint8)
    assert crop_batch(image, []).shape == (0, 32, 32, 3)
    assert crop_batch(image, [(0.0, 0.0, 10.0, 10.0), (5.0, 5.0, 20.0, 20.0)]).shape == (2, 32, 32, 3)


def test_bad_targets_and_images_are_refused_clearly() -> None:
    image = np.zeros((50, 50, 3), np.uint8)
    with pytest.raises(ValueError, match="no area"):
        crop_die(image, (10.0, 10.0, 10.0, 20.0))
    with pytest.raises(ValueError, match="x0, y0, x1, y1"):
        crop_die(image, (1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="empty"):
        crop_die(np.zeros((0, 0, 3), np.uint8), (0.0, 0.0, 5.0, 5.0))
    with pytest.raises(ValueError, match="neither grey"):
        crop_die(np.zeros((5, 5, 2), np.uint8), (0.0, 0.0, 5.0, 5.0))
    # Off the edge of the image is fine: the border repeats.
    assert crop_die(image, DieCandidate((-5.0, 60.0), 20.0, 30.0, 1.0)).shape == (32, 32, 3)


def test_one_conversion_for_every_stage_keeps_a_16_bit_frame_as_bright_as_it_is() -> None:
    # Issue 25: the detector had its own conversion, which clipped a 16-bit frame to almost white (mean 252)
    # where the crop rule kept its top 8 bits (mean 116). Both stages now use the one in vision.crop.
    import vision.detect
    import vision.faces
    import vision.recognize

    assert vision.detect.as_bgr is as_bgr and vision.recognize.as_bgr is as_bgr
    deep = np.full((20, 30), 116 * 256 + 40, np.uint16)
    assert float(as_bgr(deep).mean()) == 116.0
    assert float(as_bgr(deep.astype(np.float32) / 65535.0).mean()) == pytest.approx(116.0, abs=1.0)
    with pytest.raises(ValueError, match="expected a numeric image"):
        as_bgr(np.zeros((4, 4), bool))
    # The pip layout is the runtime's: the reader needs nothing of the renderer.
    import ast
    from pathlib import Path

    tree = ast.parse(Path(vision.faces.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "vision.lab.render" not in imported and "vision.types" in imported


def test_as_bgr_hands_a_frame_back_uncopied_and_makes_a_view_contiguous() -> None:
    # Every crop passes its frame through as_bgr: a contiguous BGR frame must come back as itself (no copy, no
    # checks' cost), and a strided view of one as the same pixels, contiguous (OpenCV needs that).
    frame = np.random.default_rng(0).integers(0, 256, (40, 60, 3), dtype=np.uint8)
    assert as_bgr(frame) is frame
    view = frame[:, ::2]
    out = as_bgr(view)
    assert out.flags.c_contiguous and np.array_equal(out, view)


def one_window(image: np.ndarray, centre: tuple[float, float], half: int, weight) -> tuple[float, float, float] | None:  # type: ignore[no-untyped-def]
    """The edge sums of one window as vision.crop computed them until session 19 (one window a call)."""
    x, y = centre
    h, w = image.shape[:2]
    x0, x1 = max(0, int(x) - half), min(w, int(x) + half + 1)
    y0, y1 = max(0, int(y) - half), min(h, int(y) + half + 1)
    if x1 - x0 < 5 or y1 - y0 < 5:
        return None
    patch = image[y0:y1, x0:x1]
    grey = (cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    xx = np.arange(x0, x1, dtype=np.float32)[None, :]
    yy = np.arange(y0, y1, dtype=np.float32)[:, None]
    strength = np.hypot(gx, gy) * weight(xx - x, yy - y)
    folded = 4 * np.arctan2(gy, gx)
    return float((strength * np.cos(folded)).sum()), float((strength * np.sin(folded)).sum()), float(strength.sum())


def test_a_frames_edge_windows_read_together_are_to_the_bit_those_read_one_at_a_time() -> None:
    image, truth = render_scene(np.random.default_rng(19), (320, 240), n_dice=(8, 8), side_range=(20, 50))
    centres = [d.centre for d in truth] + [(2.0, 3.0), (-3.0, 50.0), (318.5, 239.0)]  # corner, outside, edge
    halves = [max(4, round(d.side * 0.6)) for d in truth] + [9, 4, 12]

    def gauss(spread: float):  # type: ignore[no-untyped-def]
        return lambda dx, dy: np.exp(-(dx**2 + dy**2) / spread)

    weights = [gauss(2 * (h / 1.2) ** 2) for h in halves]
    for picture in (image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)):
        together = folded_edges_each(picture, centres, halves, weights)
        apart = [one_window(picture, c, h, w) for c, h, w in zip(centres, halves, weights, strict=True)]
        assert together == apart
        assert together[-2] is None and together[0] is not None  # a window of under 5 px holds no edges
    assert folded_edges_each(image, [], [], []) == []
