"""vision.change.ChangeGate: what did not change is told from what did, under the camera's nuisances.

Patches are dice drawn with sub-pixel placement (at four times the size, then shrunk), given sensor noise and
JPEG: the same die seen again half a pixel off must read unchanged, and every change a turn can make (another
face, another colour with the same face, a die gone, a hand resting over it) must read changed.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.change import ChangeGate
from vision.types import PIP_LAYOUT

BOARD = (90, 120, 150)
WHITE, GRAY = (230, 230, 230), (130, 130, 130)
MAROON, ORANGE = (40, 30, 120), (30, 120, 230)


def die(value: int | None, body: tuple[int, int, int] = WHITE, pip: tuple[int, int, int] = (30, 30, 30),
        off: tuple[float, float] = (0.0, 0.0), size: int = 48, side: int = 32) -> np.ndarray:  # fmt: skip
    """A die's top (None: the bare board) on a 48 px patch, its corner at `off` px from the centred place."""
    k = 4
    image = np.full((size * k, size * k, 3), BOARD, np.uint8)
    if value is not None:
        x0, y0 = (size - side) / 2 + off[0], (size - side) / 2 + off[1]
        cv2.rectangle(image, (int(x0 * k), int(y0 * k)), (int((x0 + side) * k), int((y0 + side) * k)), body, -1)
        for u, v in PIP_LAYOUT[value]:
            centre = (int((x0 + u * side) * k), int((y0 + v * side) * k))
            cv2.circle(image, centre, int(side * 0.09 * k), pip, -1)
    return cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)


def camera(patch: np.ndarray, rng: np.random.Generator, gain: tuple[float, float, float] = (1, 1, 1)) -> np.ndarray:
    """The patch as a camera gives it: a gain per channel, sensor noise (sigma 8) and JPEG at quality 40."""
    seen = patch.astype(np.float32) * np.array(gain, np.float32) + rng.normal(0, 8, patch.shape)
    ok, data = cv2.imencode(".jpg", np.clip(seen, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 40])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def gate_on(reference: np.ndarray) -> ChangeGate:
    gate = ChangeGate()
    gate.propose({"slot": reference})
    gate.accept()
    return gate


def test_the_same_die_seen_again_is_unchanged_despite_noise_jpeg_and_a_sub_pixel_shift() -> None:
    rng = np.random.default_rng(7)
    for trial in range(24):
        value = trial % 6 + 1
        off = tuple(rng.uniform(-1.5, 1.5, 2))
        again = tuple(np.array(off) + rng.uniform(-0.7, 0.7, 2))
        gate = gate_on(camera(die(value, off=off), rng))
        assert not gate.changed({"slot": camera(die(value, off=again), rng)})["slot"], (value, off, again)


def test_the_same_die_cut_two_and_a_bit_pixels_off_is_unchanged() -> None:
    # Whole and half misplacements in every direction: the shifts the correlation ranks must include the right one.
    rng = np.random.default_rng(8)
    for trial in range(16):
        value = trial % 6 + 1
        direction = rng.uniform(0, 2 * np.pi)
        again = (2.3 * np.cos(direction), 2.3 * np.sin(direction))
        gate = gate_on(camera(die(value), rng))
        assert not gate.changed({"slot": camera(die(value, off=again), rng)})["slot"], (value, again)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (die(3), die(4)),  # a skill turned the die
        (die(5), die(5, body=GRAY)),  # another colour, the same face (a swap)
        (die(2, body=MAROON, pip=WHITE), die(2, body=ORANGE, pip=WHITE)),
        (die(None), die(1)),  # a die placed in an empty slot: a single pip on a body near the board's colour
        (die(6), die(None)),  # a die taken
    ],
    ids=["face", "white-to-gray", "maroon-to-orange", "placed", "taken"],
)
def test_every_change_a_turn_makes_is_changed(before: np.ndarray, after: np.ndarray) -> None:
    rng = np.random.default_rng(11)
    gate = gate_on(camera(before, rng))
    assert gate.changed({"slot": camera(after, rng)})["slot"]


def test_a_hand_resting_still_over_a_place_is_changed() -> None:
    rng = np.random.default_rng(3)
    gate = gate_on(camera(die(4), rng))
    covered = die(4)
    cv2.ellipse(covered, (30, 40), (20, 12), 30, 0, 360, (120, 150, 210), -1)  # a fingertip's colour
    assert gate.changed({"slot": camera(covered, rng)})["slot"]


def test_a_patch_cut_where_the_die_is_not_is_changed() -> None:
    """A lattice refit that moved the place by more than the forgiven shift must not pass for the same die."""
    rng = np.random.default_rng(5)
    gate = gate_on(camera(die(2), rng))
    assert gate.changed({"slot": camera(die(2, off=(5.0, 0.0)), rng)})["slot"]


def test_a_uniform_change_of_exposure_and_white_balance_over_the_table_is_not_a_change() -> None:
    rng = np.random.default_rng(9)
    places = {i: die(i % 6 + 1, off=(0.3 * i % 1.0, 0.0)) for i in range(8)}
    gate = ChangeGate()
    gate.propose({k: camera(p, rng) for k, p in places.items()})
    gate.accept()
    warmer = {k: camera(p, rng, gain=(0.85, 1.0, 1.2)) for k, p in places.items()}
    assert not any(gate.changed(warmer).values())
    warmer[3] = camera(die(3 % 6 + 2), rng, gain=(0.85, 1.0, 1.2))
    assert [k for k, c in gate.changed(warmer).items() if c] == [3]


def test_the_reference_is_only_what_was_accepted() -> None:
    rng = np.random.default_rng(1)
    first, second = camera(die(1), rng), camera(die(6), rng)
    gate = ChangeGate()
    assert gate.changed({"slot": first}) == {"slot": True}  # nothing to compare with: changed
    gate.propose({"slot": first})
    assert gate.changed({"slot": first}) == {"slot": True}  # proposed, not accepted
    gate.accept()
    assert gate.changed({"slot": first}) == {"slot": False}
    gate.propose({"slot": second})
    gate.discard()  # the frame was not agreed with
    gate.accept()
    assert gate.changed({"slot": second}) == {"slot": True}
    gate.reset(["slot"])
    assert not gate.has_reference("slot")
    assert gate.compare({"slot": first})["slot"] == float("inf")


def test_a_patch_of_another_shape_has_no_reference() -> None:
    gate = gate_on(die(2))
    assert gate.changed({"slot": die(2, size=40)})["slot"]


def test_bad_settings_are_refused_with_a_message() -> None:
    with pytest.raises(ValueError, match="threshold"):
        ChangeGate(threshold=0)
