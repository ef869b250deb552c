"""Lattices fitted to pieces (vision/lattice.py): the Pyradice brick wall from die centres, the Pyramido
half-block grid from a domino, a card's space grid from the dice on it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.lattice import BrickLattice, HalfBlockGrid, LatticeError, SpaceGrid


def _turn(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


TRUE = BrickLattice(np.array([40.0, 120.0]), _turn(4) @ np.array([21.0, 0.0]), _turn(4) @ np.array([0.0, -19.0]))


def test_the_brick_wall_has_21_slots_in_six_levels() -> None:
    slots = BrickLattice.slots()
    assert len(slots) == 21
    assert [sum(1 for k, _ in slots if k == level) for level in range(1, 7)] == [6, 5, 4, 3, 2, 1]
    # (k, i) rests between (k-1, i) and (k-1, i+1): its centre is half a slot along from (k-1, i).
    mid = (TRUE.centre(1, 2) + TRUE.centre(1, 3)) / 2
    assert np.allclose(TRUE.centre(2, 2) - TRUE.up, mid)


def test_brick_lattice_from_the_first_levels_predicts_every_slot() -> None:
    rng = np.random.default_rng(0)
    some = [(1, i) for i in range(6)] + [(2, 0), (2, 1), (2, 3)]
    centres = np.array([TRUE.centre(*s) for s in some]) + rng.normal(0, 0.5, (len(some), 2))
    fit = BrickLattice.fit(centres)
    assert fit.pitch_mm == pytest.approx(21.0, abs=0.5)
    for slot in BrickLattice.slots():
        found, off = fit.nearest(TRUE.centre(*slot))
        assert found == slot and off < 0.2 * 21  # levels 3 to 6 are extrapolated from two levels
    # Kept and refined: all 21 dice pull it onto the true wall.
    everything = np.array([TRUE.centre(*s) for s in BrickLattice.slots()]) + rng.normal(0, 0.5, (21, 2))
    refined = fit.refine(everything)
    assert max(np.linalg.norm(refined.centre(*s) - TRUE.centre(*s)) for s in BrickLattice.slots()) < 0.6


def test_brick_lattice_uses_the_outline_to_name_slots_when_the_left_is_empty() -> None:
    centres = np.array([TRUE.centre(1, i) for i in (2, 3, 4)] + [TRUE.centre(2, 2)])
    without = BrickLattice.fit(centres)
    assert without.nearest(TRUE.centre(1, 2))[0] == (1, 0)  # nothing says where the wall starts
    with_hint = BrickLattice.fit(centres, first_slot=TRUE.centre(1, 0) + np.array([1.5, -1.0]))
    assert with_hint.nearest(TRUE.centre(1, 2))[0] == (1, 2)


def test_scattered_dice_are_not_a_pyramid() -> None:
    rng = np.random.default_rng(3)
    with pytest.raises(LatticeError, match=r"not a pyramid|do not span a brick lattice"):
        BrickLattice.fit(rng.uniform(0, 150, (8, 2)))
    square = [(x * 20.0, y * 20.0) for x in range(4) for y in range(3)]  # a square grid, not a brick wall
    with pytest.raises(LatticeError, match="not a pyramid"):
        BrickLattice.fit(square)
    with pytest.raises(LatticeError, match="at least 3"):
        BrickLattice.fit([(0, 0), (20, 0)])


def test_half_block_grid_from_the_first_domino_and_refined_by_the_next() -> None:
    turn = _turn(-7)
    block = 34.0
    o = np.array([60.0, 50.0])
    u, v = turn @ np.array([block / 2, 0.0]), turn @ np.array([0.0, block / 2])

    def domino(m: int, n: int, long_across: bool) -> np.ndarray:
        sm, sn = (4, 2) if long_across else (2, 4)
        return np.array([o + m * u + n * v, o + (m + sm) * u + n * v, o + (m + sm) * u + (n + sn) * v,
                         o + m * u + (n + sn) * v])

    first = domino(0, 0, True)
    grid = HalfBlockGrid.from_domino(first + np.random.default_rng(1).normal(0, 0.4, (4, 2)))
    assert grid.block_mm == pytest.approx(block, abs=0.8)
    # The second domino, standing the other way below-right of the first, lands on whole grid points.
    second = domino(4, 0, False)
    refined = grid.refine([first, second])
    assert refined.residual_mm < 1e-6
    assert refined.cell(o + 5.5 * u + 3.5 * v) == (5, 3)
    assert np.allclose(refined.point(6, 4), o + 6 * u + 4 * v)
    # A stage-2 domino sits half a block in: its corners are odd grid points, still on the grid.
    stage2 = domino(1, 1, True)
    assert grid.refine([first, second, stage2]).residual_mm < 1e-6
    with pytest.raises(LatticeError, match="not a domino"):
        HalfBlockGrid.from_domino([(0, 0), (30, 0), (30, 30), (0, 30)])


def test_card_space_grid_follows_the_dice_on_the_card() -> None:
    card = [(100.0, 40.0), (163.0, 40.0), (163.0, 128.0), (100.0, 128.0)]
    empty = SpaceGrid.fit([], card, rows=3, cols=2)
    assert np.allclose(empty.centre(0, 0), (100 + 63 / 4, 40 + 88 / 6))
    # Spaces printed closer together than an even division: two dice measure the pitch.
    dice = [(118.0, 60.0), (146.0, 60.4), (118.2, 86.0), (145.8, 112.1)]
    grid = SpaceGrid.fit(dice, card, rows=3, cols=2)
    assert grid.residual_mm < 0.5
    assert np.linalg.norm(grid.across - (28.0, 0.0)) < 0.5 and np.linalg.norm(grid.down - (0.0, 26.0)) < 0.5
    assert grid.nearest((146.0, 86.0))[0] == (1, 1)
    one = SpaceGrid.fit([(120.0, 57.0)], card, rows=3, cols=2)
    assert np.allclose(one.centre(0, 0), (120.0, 57.0))
    with pytest.raises(LatticeError):
        SpaceGrid.fit([], card, rows=0, cols=2)
