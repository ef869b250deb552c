"""The procedural dice renderer: reproducible, truthful boxes, and the pips it draws are the value."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.lab.render import (
    SIDE_RING,
    DieSpec,
    SceneStyle,
    SeeThrough,
    far_pips,
    marble_veins,
    place_tokens,
    render_scene,
    render_token,
)

PLAIN = SceneStyle(surface=(200, 200, 200), grain=0, light_gradient=0, shadow=0, camera_height=50, blur=0,
                   noise=0, jpeg_quality=100)


def dark_blobs(image: np.ndarray) -> int:
    """How many dark blobs of pip size (over 40 px) the image shows: the pips drawn on a light die."""
    dark = (cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) < 90).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    return sum(1 for s in stats[1:] if s[cv2.CC_STAT_AREA] > 40)


def test_same_seed_same_scene() -> None:
    a, ta = render_scene(np.random.default_rng(7), cocked_fraction=0.2)
    b, tb = render_scene(np.random.default_rng(7), cocked_fraction=0.2)
    assert np.array_equal(a, b) and ta == tb
    c, _ = render_scene(np.random.default_rng(8))
    assert not np.array_equal(a, c)


def test_truth_boxes_lie_in_the_image_and_around_the_centre() -> None:
    for seed in range(5):
        image, truth = render_scene(np.random.default_rng(seed), size=(1280, 960), side_range=(40, 90))
        assert image.shape == (960, 1280, 3) and image.dtype == np.uint8
        assert truth, "a random scene has at least one die"
        for die in truth:
            x0, y0, x1, y1 = die.box
            assert 0 <= x0 < die.centre[0] < x1 <= 1280 and 0 <= y0 < die.centre[1] < y1 <= 960
            assert x1 - x0 >= die.side * 0.95


def test_side_faces_are_a_real_die() -> None:
    for top, ring in SIDE_RING.items():
        assert sorted((top, 7 - top, *ring)) == [1, 2, 3, 4, 5, 6]
        assert all(ring[i] + ring[(i + 2) % 4] == 7 for i in range(4)), "opposite side faces sum to 7"


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_drawn_pips_count_the_value(value: int) -> None:
    spec = DieSpec(value=value, body=(240, 240, 240), pips=(20, 20, 20), centre=(100.0, 100.0), side=120.0,
                   angle=17.0)
    image, truth = render_scene(np.random.default_rng(0), size=(200, 200), dice=[spec], style=PLAIN)
    assert [d.value for d in truth] == [value] and not truth[0].cocked
    assert dark_blobs(image) == value


def test_a_tipped_die_is_marked_cocked_and_shows_a_second_face() -> None:
    spec = DieSpec(value=3, centre=(100.0, 100.0), side=80.0, angle=0.0, tilt=30.0, tilt_direction=0.0)
    _, truth = render_scene(np.random.default_rng(1), size=(200, 200), dice=[spec], style=PLAIN)
    (die,) = truth
    assert die.cocked
    width, height = die.box[2] - die.box[0], die.box[3] - die.box[1]
    assert max(width, height) > 80 * 1.15, "the tipped die's outline grows along the tilt"


@pytest.mark.parametrize("option", ["faint_pips", "swirled", "translucent"])
def test_hard_dice_options_change_nothing_when_off_and_something_when_on(option: str) -> None:
    # Off, they draw nothing from the generator, so every seeded scene (training data, demo, tests) stays.
    scene = {"size": (480, 480), "n_dice": (20, 20), "side_range": (30, 40)}
    plain, truth = render_scene(np.random.default_rng(5), **scene)  # type: ignore[arg-type]
    off, truth_off = render_scene(np.random.default_rng(5), **scene, **{option: 0.0})  # type: ignore[arg-type]
    assert np.array_equal(plain, off) and truth == truth_off
    on, _ = render_scene(np.random.default_rng(5), **scene, **{option: 1.0})  # type: ignore[arg-type]
    assert not np.array_equal(plain, on)


def test_faint_pips_blend_only_dark_dice() -> None:
    def pip_contrast(image: np.ndarray, die: object) -> float:
        # Lab distance between the die's body and its most different pixels, on its top face.
        x, y = (round(v) for v in die.centre)  # type: ignore[attr-defined]
        half = round(die.side * 0.35)  # type: ignore[attr-defined]
        lab = cv2.cvtColor(image[y - half : y + half, x - half : x + half], cv2.COLOR_BGR2LAB).reshape(-1, 3)
        distance = np.linalg.norm(lab.astype(float) - np.median(lab, axis=0), axis=1)
        return float(np.percentile(distance, 97))

    specs = [DieSpec(value=5, body=body, pips=(40, 30, 190), centre=(60.0 + 120 * i, 60.0), side=80.0, angle=0.0)
             for i, body in enumerate([(35, 35, 35), (30, 210, 235)])]  # fmt: skip
    sharp, _ = render_scene(np.random.default_rng(0), size=(240, 120), dice=specs, style=PLAIN)
    faint, _ = render_scene(np.random.default_rng(0), size=(240, 120), dice=specs, style=PLAIN, faint_pips=1.0)
    assert np.array_equal(sharp, faint), "dice given by the caller keep their own pips"
    rng_scenes = [
        render_scene(np.random.default_rng(s), size=(480, 480), n_dice=(20, 20), side_range=(40, 50), faint_pips=f)
        for s in range(3)
        for f in (0.0, 1.0)
    ]
    dark = [
        (pip_contrast(image, die), f)
        for (image, dice), f in zip(rng_scenes, [0.0, 1.0] * 3, strict=True)
        for die in dice
        if 0.114 * die.body[0] + 0.587 * die.body[1] + 0.299 * die.body[2] < 90 and not die.cocked
    ]
    sharp_mean = np.mean([c for c, f in dark if f == 0.0])
    faint_mean = np.mean([c for c, f in dark if f == 1.0])
    assert faint_mean < 0.8 * sharp_mean


def test_marbled_bodies_have_veins_and_keep_their_pips() -> None:
    veins = marble_veins(3)
    assert veins.min() >= 0 and veins.max() <= 1 and 0.02 < (veins > 0.5).mean() < 0.6, "veins, not a new body"
    assert np.array_equal(veins, marble_veins(3)) and not np.array_equal(veins, marble_veins(4))

    def face(swirl: tuple[int, int, int] | None, value: int) -> np.ndarray:
        spec = DieSpec(value=value, body=(30, 210, 235), pips=(20, 20, 20), centre=(100.0, 100.0), side=120.0,
                       angle=0.0, swirl=swirl, swirl_seed=11)  # fmt: skip
        image, _ = render_scene(np.random.default_rng(0), size=(200, 200), dice=[spec], style=PLAIN)
        return image[50:150, 50:150]

    for value in (1, 2, 3, 4, 5, 6):
        assert dark_blobs(face((250, 250, 250), value)) == value, "pips are drawn over the veins"
    body_pixels = cv2.cvtColor(face(None, 1), cv2.COLOR_BGR2GRAY) > 90
    spread_plain = cv2.cvtColor(face(None, 1), cv2.COLOR_BGR2LAB)[body_pixels].std(axis=0).sum()
    spread_marbled = cv2.cvtColor(face((250, 250, 250), 1), cv2.COLOR_BGR2LAB)[body_pixels].std(axis=0).sum()
    assert spread_marbled > 3 * spread_plain + 5


def test_a_translucent_die_shows_its_far_face_under_its_own_pips() -> None:
    def top(see_through: SeeThrough | None, value: int) -> np.ndarray:
        spec = DieSpec(value=value, body=(235, 238, 240), pips=(20, 20, 20), centre=(100.0, 100.0), side=120.0,
                       angle=0.0, see_through=see_through)  # fmt: skip
        image, _ = render_scene(np.random.default_rng(0), size=(200, 200), dice=[spec], style=PLAIN)
        return image[50:150, 50:150]

    # Strong and sharp, the far face is plain to see: a 1 on top shows the six pips of its bottom face too.
    clear = SeeThrough(strength=1.0, scale=1.0, blur=0.0)
    assert dark_blobs(top(clear, 1)) == 1 + 6
    # As on real translucent dice, the far pips are fainter than the face's own: the counter at the level of
    # solid pips sees only those, but the body is no longer plain.
    faint = SeeThrough(strength=0.4, shift=(0.04, -0.03), scale=0.85, turns=1, blur=0.03)
    for value in (1, 2, 3, 4, 5, 6):
        assert dark_blobs(top(faint, value)) == value, value
    plain, seen = top(None, 2).astype(float), top(faint, 2).astype(float)
    assert np.abs(plain - seen).max() > 40, "the far pips show"


def test_far_pips_are_the_opposite_face_seen_from_inside() -> None:
    weights = far_pips(3, SeeThrough(strength=1.0, scale=1.0, blur=0.0), n=96)
    # The far face of a 4 is a 3; seen through the die its diagonal runs the other way (mirrored).
    assert weights[24, 71] > 0.9 and weights[71, 24] > 0.9 and weights[48, 48] > 0.9
    assert weights[24, 24] < 0.1 and weights[71, 71] < 0.1
    assert far_pips(3, SeeThrough(strength=0.5, scale=1.0, blur=0.0), n=96).max() == pytest.approx(0.5)


def test_tokens_are_round_things_without_pips_where_they_are_said_to_be() -> None:
    rng = np.random.default_rng(11)
    for _ in range(30):
        image, (cx, cy), diameter = render_token(rng, 96)
        assert image.shape == (96, 96, 3) and image.dtype == np.uint8
        assert 0.3 * 96 <= diameter <= 0.6 * 96 and abs(cx - 48) <= 10 and abs(cy - 48) <= 10
        yy, xx = np.mgrid[0:96, 0:96]
        distance = np.hypot(xx - cx, yy - cy)
        inside = image[distance < 0.6 * diameter / 2].astype(np.float64)
        ring = image[(distance > 0.55 * diameter) & (distance < 0.75 * diameter)].astype(np.float64)
        # The token stands out from the table around it (holes only a little), and its middle holds no pip:
        # nothing there differs from the token's own colour as a pip does from a die's body.
        assert np.abs(inside.mean(axis=0) - ring.mean(axis=0)).max() > 4
        assert (np.abs(inside - np.median(inside, axis=0)).max(axis=1) > 80).mean() < 0.02
    a, again = render_token(np.random.default_rng(3)), render_token(np.random.default_rng(3))
    assert np.array_equal(a[0], again[0]) and a[1:] == again[1:], "the same seed draws the same token"


def test_tokens_in_a_scene_lie_apart_from_the_dice_and_are_not_in_the_truth() -> None:
    scene = {"size": (640, 640), "n_dice": (10, 10), "side_range": (30, 40), "style": PLAIN}
    plain, truth = render_scene(np.random.default_rng(4), **scene)  # type: ignore[arg-type]
    # Off, nothing is drawn from the generator: every seeded scene of the trainers stays as it was.
    off, truth_off = render_scene(np.random.default_rng(4), **scene, tokens=(0, 0))  # type: ignore[arg-type]
    assert np.array_equal(plain, off) and truth == truth_off
    rng = np.random.default_rng(4)
    with_tokens, truth_tokens = render_scene(rng, **scene, tokens=(4, 4))  # type: ignore[arg-type]
    assert truth_tokens == truth, "the tokens are drawn after the dice are placed, and are not dice"
    # Where the image changed, away from every die's box, is where the tokens are: four round blobs.
    changed = (np.abs(with_tokens.astype(int) - plain.astype(int)).max(axis=2) > 8).astype(np.uint8)
    for die in truth:
        x0, y0, x1, y1 = (round(v) for v in die.box)
        changed[max(0, y0 - 3) : y1 + 3, max(0, x0 - 3) : x1 + 3] = 0
    _, _, stats, _ = cv2.connectedComponentsWithStats(changed)
    blobs = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 100]
    assert len(blobs) == 4
    for _x, _y, w, h, area in blobs:
        assert 0.7 * 30 * 0.9 <= max(w, h) <= 1.5 * 40 * 1.2 and abs(w - h) <= 0.2 * max(w, h)
        assert area >= 0.6 * w * h, "a disc fills about pi/4 of its box"


def test_place_tokens_keeps_them_clear_of_dice_and_of_each_other() -> None:
    dice = [DieSpec(value=3, centre=(100.0, 100.0), side=40.0, angle=0.0)]
    placed = place_tokens(np.random.default_rng(0), 12, dice, (30, 40), 300, 300)
    assert 1 <= len(placed) <= 12
    for i, (centre, diameter) in enumerate(placed):
        assert 0.7 * 30 <= diameter <= 1.5 * 40
        assert diameter * 0.6 <= centre[0] <= 300 - diameter * 0.6
        # A disc of that diameter inside its square never reaches the die's square.
        assert max(abs(centre[0] - 100), abs(centre[1] - 100)) >= (40 + diameter) / 2
        for other, d in placed[i + 1 :]:
            assert np.hypot(centre[0] - other[0], centre[1] - other[1]) > (diameter + d) / 2
    assert place_tokens(np.random.default_rng(0), 3, [], (30, 40), 20, 20) == [], "no room on a tiny table"
