"""Issue 25's learnt cocked flag: the table's field of tilts (vision.faces), the frames the tilt model's readings
live in, the trainer's symmetries, and the flag in the reader on a small rendered table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.faces import COCKED_TILT, cocked_from_tilts, table_field_residuals, to_image_frame
from vision.lab.read_tilt import symmetry, to_crop_frame


def _table(n: int, rng: np.random.Generator, k: float, a: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """``n`` dice on a 640 px image whose flat tilts follow a + k * (position - centre), with a little noise."""
    positions = rng.uniform(40, 600, (n, 2))
    tilts = np.array(a) + k * (positions - 320) / 640 + rng.normal(0, 0.02, (n, 2))
    return positions, tilts


@pytest.mark.parametrize("k", [0.05, 0.6])  # a camera 20 image widths high, and one under 2
def test_only_the_die_that_stands_out_of_its_table_is_flagged(k: float) -> None:
    rng = np.random.default_rng(3)
    positions, tilts = _table(9, rng, k, (0.04, -0.03))
    tilts[4] += (0.0, 0.4)  # leaning about 24 degrees
    residual = table_field_residuals(positions, tilts, (640, 640))
    assert residual[4] > COCKED_TILT and np.delete(residual, 4).max() < COCKED_TILT / 2


def test_two_leaning_dice_do_not_hide_each_other_or_flag_their_neighbours() -> None:
    rng = np.random.default_rng(4)
    positions, tilts = _table(8, rng, 0.4, (0.0, 0.0))
    tilts[0] += (0.35, 0.0)
    tilts[1] += (0.3, 0.1)
    residual = table_field_residuals(positions, tilts, (640, 640))
    assert (residual > COCKED_TILT).tolist() == [True, True] + [False] * 6


def test_a_lone_die_is_judged_against_a_level_camera_of_middle_height() -> None:
    flat = table_field_residuals(np.array([[480.0, 320.0]]), np.array([[0.12, 0.0]]), (640, 640))
    leaning = table_field_residuals(np.array([[320.0, 320.0]]), np.array([[0.0, 0.4]]), (640, 640))
    assert flat[0] < COCKED_TILT < leaning[0]
    assert table_field_residuals(np.zeros((0, 2)), np.zeros((0, 2)), (640, 640)).shape == (0,)


def test_crop_and_image_frames_are_inverse_and_follow_crop_die() -> None:
    rng = np.random.default_rng(5)
    vectors, angles = rng.normal(0, 1, (20, 2)), rng.uniform(0, 90, 20)
    assert np.allclose(to_image_frame(to_crop_frame(vectors, angles), angles), vectors)
    # crop_die turns the die's edges by +angle onto the crop's axes: the crop's x axis is the image's (cos, sin).
    assert np.allclose(to_image_frame(np.array([[1.0, 0.0]]), np.array([30.0])), [[np.cos(np.pi / 6), 0.5]])
    flags = cocked_from_tilts(np.array([[320.0, 320.0]]), np.array([[0.0, 0.0]]), np.array([10.0]), (640, 640))
    assert flags.tolist() == [False]


def test_the_trainers_symmetries_turn_the_target_with_the_crop() -> None:
    crops = np.zeros((1, 9, 9, 3), np.uint8)
    crops[0, 4, 7] = 255  # a bright pixel right of the centre: the vector (3, 0)
    for k in range(4):
        for flip in (False, True):
            turned, target = symmetry(crops, np.array([[3.0, 0.0]], np.float32), k, flip)
            y, x = np.argwhere(turned[0, :, :, 0] == 255)[0]
            assert (x - 4, y - 4) == tuple(int(v) for v in target[0])


def test_the_reader_flags_a_rendered_die_leaning_on_a_flat_table() -> None:
    from vision.faces import load_tilt_model
    from vision.lab.render import SceneStyle, random_die, render_scene
    from vision.recognize import DiceRecognizer, FixedDetector
    from vision.types import DieCandidate

    if load_tilt_model() is None:
        pytest.skip("no tilt model in this build")
    rng = np.random.default_rng(11)
    specs = [random_die(rng, (34, 44)) for _ in range(7)]
    specs[0] = replace(specs[0], tilt=28.0, tilt_direction=60.0)
    image, truth = render_scene(rng, size=(320, 320), dice=specs, style=SceneStyle(camera_height=3.0, noise=1.0))
    reader = DiceRecognizer(detector=FixedDetector(), tilt=True)
    readings = reader.read_candidates(image, [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth])
    flags = {r.centre: r.cocked for r in readings}
    assert [flags[d.centre] for d in truth] == [d.tilt > 0 for d in truth]
    assert all(r.unsure for r in readings if r.cocked)
    plain = DiceRecognizer(detector=FixedDetector()).read_candidates(
        image, [DieCandidate(d.centre, d.side, d.angle, 1.0) for d in truth]
    )
    assert not any(r.cocked for r in plain)  # off by default: the elongation rule alone, which misses this lean


def test_the_evaluation_counts_cocked_dice_apart_from_the_value_doubts() -> None:
    from vision.lab.evaluate import Evaluation, ImageResult

    def row(unsure: bool, cocked: bool, doubts: str) -> dict[str, object]:
        return {"status": "matched", "correct": True, "unsure": unsure, "cocked": cocked, "doubts": doubts}

    evaluation = Evaluation(images=[ImageResult("a.jpg", 4, 4, 4, 0, 0, 3)])
    evaluation.rows = [row(True, True, "cocked"), row(True, True, "low confidence; cocked"),
                       row(True, False, "low confidence"), row(False, False, "")]  # fmt: skip
    summary = evaluation.summary()
    # the leaning die that is only cocked is a re-roll, not a value doubt; one that is both counts as both
    assert (summary["unsure"], summary["cocked"], summary["unsure_for_value"]) == (3, 2, 2)
