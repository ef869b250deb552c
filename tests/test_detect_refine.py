"""The side refinement from a die's own edges (vision.detect.edge_side / refine_side)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.detect import SIDE_BIAS, SIDE_BLEND, SIDE_MAX_LOG_CHANGE, edge_side, refine_side


def drawn_die(side: float, angle: float, centre: tuple[float, float] = (80.0, 80.0), body: int = 230,
              table: int = 90, pips: bool = True) -> np.ndarray:
    image = np.full((160, 160, 3), table, np.uint8)
    pts = cv2.boxPoints((centre, (side, side), angle)).astype(np.float32)
    cv2.fillConvexPoly(image, np.round(pts * 16).astype(np.int32), (body, body, body), cv2.LINE_AA, 4)
    if pips:  # a five: pips near the corners must not be taken for the outline
        a = math.radians(angle)
        for u, v in ((-0.27, -0.27), (0.27, 0.27), (-0.27, 0.27), (0.27, -0.27), (0.0, 0.0)):
            x = centre[0] + side * (u * math.cos(a) - v * math.sin(a))
            y = centre[1] + side * (u * math.sin(a) + v * math.cos(a))
            cv2.circle(image, (round(x), round(y)), max(2, round(side * 0.08)), (20, 20, 20), -1, cv2.LINE_AA)
    return image


@pytest.mark.parametrize("angle", [0.0, 17.0, 33.0, 45.0, 71.0])
@pytest.mark.parametrize("true_side", [24.0, 40.0, 64.0])
@pytest.mark.parametrize("guess_factor", [0.9, 1.0, 1.1])
def test_edge_side_measures_a_drawn_die_from_a_guess_within_ten_percent(angle: float, true_side: float,
                                                           guess_factor: float) -> None:
    # The prior on where an edge lies keeps the search near half the guessed side; a guess 20% off can
    # lock onto the pips instead, which is why refine_side only moves the side halfway and caps it.
    image = drawn_die(true_side, angle)
    measured = edge_side(image, (80.0, 80.0), true_side * guess_factor, angle)
    assert measured is not None
    assert measured == pytest.approx(true_side, rel=0.08)


def test_edge_side_is_off_centre_tolerant() -> None:
    image = drawn_die(40.0, 20.0)
    measured = edge_side(image, (84.0, 77.0), 40.0, 20.0)
    assert measured is not None and measured == pytest.approx(40.0, rel=0.1)


def test_a_flat_patch_has_no_edges() -> None:
    image = np.full((160, 160, 3), 128, np.uint8)
    assert edge_side(image, (80.0, 80.0), 40.0, 10.0) is None
    assert refine_side(image, (80.0, 80.0), 40.0, 10.0) == 40.0


@pytest.mark.parametrize("guess_factor", [0.9, 1.12])
def test_refine_side_moves_toward_the_edges_but_only_partly(guess_factor: float) -> None:
    image = drawn_die(40.0, 25.0)
    guess = 40.0 * guess_factor
    refined = refine_side(image, (80.0, 80.0), guess, 25.0)
    measured = edge_side(image, (80.0, 80.0), guess, 25.0)
    assert measured is not None
    expected = guess * math.exp(SIDE_BIAS + SIDE_BLEND * math.log(measured / guess))
    assert refined == pytest.approx(expected)
    # Closer to the truth (times the bias for the labelled perspective sides) than the guess was.
    assert abs(math.log(refined / (40.0 * math.exp(SIDE_BIAS)))) < abs(math.log(guess / 40.0))


def test_refine_side_caps_the_change() -> None:
    image = drawn_die(60.0, 0.0)
    guess = 25.0  # the edges found will be far out: the change is capped
    refined = refine_side(image, (80.0, 80.0), guess, 0.0)
    assert refined <= guess * math.exp(SIDE_BIAS + SIDE_BLEND * SIDE_MAX_LOG_CHANGE) + 1e-9
    assert refined >= guess * math.exp(SIDE_BIAS - SIDE_BLEND * SIDE_MAX_LOG_CHANGE) - 1e-9


def test_die_at_the_image_border_does_not_fail() -> None:
    image = drawn_die(40.0, 10.0, centre=(10.0, 150.0))
    refined = refine_side(image, (10.0, 150.0), 40.0, 10.0)
    assert 40.0 * math.exp(-0.3) < refined < 40.0 * math.exp(0.3)


def test_centre_rule_matches_a_die_found_in_place_with_a_wrong_size() -> None:
    from vision.lab.detect_eval import match

    truth = [(0.0, 0.0, 40.0, 40.0), (50.0, 0.0, 90.0, 40.0)]
    found = [(10.0, 10.0, 30.0, 30.0), (100.0, 0.0, 140.0, 40.0)]  # too small (IoU 0.25); elsewhere
    assert match(found, [0.9, 0.8], truth) == []
    assert match(found, [0.9, 0.8], truth, centre=True) == [(0, 0)]
    # One label, two finds inside it: only the stronger one matches.
    assert match([(5.0, 5.0, 35.0, 35.0), (0.0, 0.0, 40.0, 40.0)], [0.5, 0.9], truth[:1], centre=True) == [(1, 0)]


def test_edge_side_measures_rendered_dice_from_the_networks_guess() -> None:
    # Held-out rendered scenes (vision.lab.render; exact top-face sides): started from the detector's own side
    # and angle, the edges measure the side to a few percent for the typical die.
    from vision.detect import DiceDetector, edge_sides
    from vision.lab.detect_eval import score_image
    from vision.lab.detect_train import rendered_records

    detector = DiceDetector(threads=1, refine=False)
    errors = []
    for image, boxes, _ in rendered_records(4, 5000):
        found = detector.find(image)
        measured = edge_sides(image, [d.centre for d in found], [d.side for d in found], [d.angle for d in found])
        for i, j in score_image(found, boxes, centre=True)["pairs"]:
            angle = math.radians(found[i].angle)
            true_side = (boxes[j][2] - boxes[j][0]) / (abs(math.cos(angle)) + abs(math.sin(angle)))
            side = measured[i]
            if side is not None:
                errors.append(abs(math.log(side / true_side)))
    assert len(errors) > 20
    assert float(np.median(errors)) < 0.06
