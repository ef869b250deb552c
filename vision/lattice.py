"""Lattices fitted to the pieces inside a zone: where the slots are, measured from the pieces themselves.

The exact size of a player's Pyradice board, a Pyramido domino block or a Dice Treasure card is not known in
advance (the rulebooks give none), so the readers do not assume slot positions; they fit them, in the
rectified zone's millimetres (:mod:`vision.registration`), to what lies there:

* :class:`BrickLattice`: the Pyradice pyramid, a brick wall of 6, 5, 4, 3, 2, 1 die slots (level k has 7 - k;
  slot (k, i) rests on (k - 1, i) and (k - 1, i + 1), rules/RULES.md 1.3), fitted to die centres.
* :class:`HalfBlockGrid`: the Pyramido grid in half-block units (RULES.md 2.4), fitted to the first domino's
  corners and refined by every domino placed after it.
* :class:`SpaceGrid`: a card's spaces (rows x columns of equal pitch), fitted to the centres of the dice
  seen on it.

Each lattice is linear in its parameters once every piece is given its integer slot, so a fit alternates:
give each piece the nearest slot, then solve the parameters by least squares. A kept lattice is refined
by :meth:`refine` as more pieces appear (the old fit seeds the slot assignment). Points are (x, y) in mm,
x to the right and y down, as on the mat; "up" the pyramid is -y unless the fit finds otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PYRAMID_LEVELS = 6


class LatticeError(ValueError):
    """Too few pieces, or pieces that fit no lattice of the kind asked."""


def _points(points: Sequence[Sequence[float]] | np.ndarray, least: int) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if len(pts) < least:
        raise LatticeError(f"{len(pts)} pieces: a lattice needs at least {least}")
    return pts


def _nearest_spacing(pts: np.ndarray) -> float:
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


@dataclass(frozen=True)
class BrickLattice:
    """Slot (k, i) (level 1..6, index 0..6-k from the owner's left) is at
    ``origin + (i + (k - 1) / 2) * along + (k - 1) * up``."""

    origin: np.ndarray
    along: np.ndarray  # one slot to the right on a level
    up: np.ndarray  # one level up, less half a slot along
    residual_mm: float = 0.0

    @staticmethod
    def slots() -> list[tuple[int, int]]:
        return [(k, i) for k in range(1, PYRAMID_LEVELS + 1) for i in range(PYRAMID_LEVELS + 1 - k)]

    def centre(self, level: int, index: int) -> np.ndarray:
        return np.asarray(self.origin + (index + (level - 1) / 2) * self.along + (level - 1) * self.up)

    @property
    def pitch_mm(self) -> float:
        return float(np.linalg.norm(self.along))

    def nearest(self, point: Sequence[float] | np.ndarray) -> tuple[tuple[int, int], float]:
        """The slot nearest a point and its distance in mm."""
        p = np.asarray(point, np.float64)
        best = min(self.slots(), key=lambda s: float(np.linalg.norm(self.centre(*s) - p)))
        return best, float(np.linalg.norm(self.centre(*best) - p))

    @classmethod
    def fit(cls, centres: Sequence[Sequence[float]] | np.ndarray, up_hint: tuple[float, float] = (0.0, -1.0),
            seed: BrickLattice | None = None, first_slot: Sequence[float] | np.ndarray | None = None) -> BrickLattice:
        """Fit to die centres (at least 3, at least two of them on one level). ``up_hint`` is the direction of
        the pyramid's apex on the mat (the printed outline puts level 1 nearest the owner). ``first_slot`` is
        where slot (1, 0) is expected (from the board's outline); without it, the leftmost die of the lowest
        level is taken to be slot (1, 0)."""
        pts = _points(centres, 3)
        lattice = seed or cls._first_guess(pts, np.asarray(up_hint, np.float64), first_slot)
        for _ in range(10):
            slots = cls._assign(lattice, pts)
            refit = cls._solve(pts, slots, lattice)
            if refit is None:
                raise LatticeError("the dice do not span a brick lattice (all on one slot?)")
            done = np.allclose(refit.origin, lattice.origin, atol=1e-6) and np.allclose(refit.along, lattice.along,
                                                                                        atol=1e-6)
            lattice = refit
            if done:
                break
        if lattice.residual_mm > 0.25 * lattice.pitch_mm:
            raise LatticeError(f"the dice are {lattice.residual_mm:.1f} mm off the best brick lattice "
                               f"(pitch {lattice.pitch_mm:.1f} mm): not a pyramid")
        return lattice

    def refine(self, centres: Sequence[Sequence[float]] | np.ndarray) -> BrickLattice:
        """The lattice refitted to more dice, seeded by this one (a kept lattice grows with the pyramid)."""
        return BrickLattice.fit(centres, seed=self)

    @staticmethod
    def _first_guess(pts: np.ndarray, up_hint: np.ndarray, first_slot: Sequence[float] | np.ndarray | None
                     ) -> BrickLattice:
        pitch = _nearest_spacing(pts) if len(pts) > 1 else 20.0
        up_dir = up_hint / np.linalg.norm(up_hint)
        along_dir = np.array([-up_dir[1], up_dir[0]])  # the owner's right, with up = -y: +x
        # The lowest dice along up_hint are level 1; the leftmost of them is slot 0 or further right.
        heights = pts @ up_dir
        low = pts[heights <= heights.min() + pitch * 0.4]
        left = np.asarray(first_slot, np.float64) if first_slot is not None else low[np.argmin(low @ along_dir)]
        rise = pitch * math.sqrt(3) / 2  # dice stacked in contact; the fit corrects it
        return BrickLattice(left, along_dir * pitch, up_dir * rise)

    @staticmethod
    def _assign(lattice: BrickLattice, pts: np.ndarray) -> list[tuple[float, float]]:
        """(level - 1, index) per die as reals rounded to the lattice: solve origin + u*along + v*up = p."""
        basis = np.column_stack([lattice.along, lattice.up])
        uv = np.linalg.solve(basis, (pts - lattice.origin).T).T  # u = i + (k-1)/2, v = k-1
        out = []
        for u, v in uv:
            level0 = max(0, round(v))
            index = max(0, round(u - level0 / 2))
            out.append((float(level0), float(index)))
        return out

    @staticmethod
    def _solve(pts: np.ndarray, slots: list[tuple[float, float]], old: BrickLattice) -> BrickLattice | None:
        # Unknowns: origin (2), along (2), up (2); p = o + (i + l/2) * a + l * c with l = level - 1.
        rows, rhs = [], []
        for (x, y), (level0, index) in zip(pts, slots, strict=True):
            u = index + level0 / 2
            rows.append([1, 0, u, 0, level0, 0])
            rhs.append(x)
            rows.append([0, 1, 0, u, 0, level0])
            rhs.append(y)
        a = np.asarray(rows, np.float64)
        b = np.asarray(rhs, np.float64)
        levels = {s[0] for s in slots}
        if len(levels) < 2:
            # One level only: the rise cannot be measured; keep the old one, fit origin and along.
            a2, b2 = a[:, :4], b - a[:, 4:] @ old.up
            sol, *_ = np.linalg.lstsq(a2, b2, rcond=None)
            sol = np.concatenate([sol, old.up])
            if np.linalg.matrix_rank(a2) < 4:
                return None
        else:
            if np.linalg.matrix_rank(a) < 6:
                return None
            sol, *_ = np.linalg.lstsq(a, b, rcond=None)
        fitted = BrickLattice(sol[0:2], sol[2:4], sol[4:6])
        res = a @ sol - b
        rms = float(np.sqrt(np.mean(res.reshape(-1, 2) ** 2) * 2))
        return BrickLattice(fitted.origin, fitted.along, fitted.up, rms)


@dataclass(frozen=True)
class HalfBlockGrid:
    """Pyramido's grid in half-block units: grid point (m, n) is at ``origin + m * u + n * v`` with |u| = |v| =
    half a block. Stage-1 block (x, y) covers quarter cells [2x, 2x + 2) x [2y, 2y + 2) (RULES.md 2.4)."""

    origin: np.ndarray
    u: np.ndarray
    v: np.ndarray
    residual_mm: float = 0.0

    @property
    def block_mm(self) -> float:
        """A block's side: two half-block steps, averaged over the two directions."""
        return float(np.linalg.norm(self.u) + np.linalg.norm(self.v))

    def point(self, m: float, n: float) -> np.ndarray:
        return np.asarray(self.origin + m * self.u + n * self.v)

    def cell(self, point: Sequence[float] | np.ndarray) -> tuple[int, int]:
        """The quarter cell (half-block square) a point lies in."""
        mn = np.linalg.solve(np.column_stack([self.u, self.v]), np.asarray(point, np.float64) - self.origin)
        return (math.floor(mn[0]), math.floor(mn[1]))

    @classmethod
    def from_domino(cls, corners: Sequence[Sequence[float]] | np.ndarray) -> HalfBlockGrid:
        """The grid of the first domino: its four corners (in order round it), long side = 2 blocks = 4 half
        blocks, short side = 1 block = 2 half blocks. The grid's origin is the first corner."""
        c = _points(corners, 4)[:4]
        e1, e2 = c[1] - c[0], c[3] - c[0]
        l1, l2 = float(np.linalg.norm(e1)), float(np.linalg.norm(e2))
        if min(l1, l2) <= 0 or not 1.6 < max(l1, l2) / min(l1, l2) < 2.4:
            raise LatticeError(f"sides {l1:.1f} and {l2:.1f} mm are not a domino's (two blocks by one)")
        n1, n2 = (4, 2) if l1 >= l2 else (2, 4)
        grid = cls(c[0], e1 / n1, e2 / n2)
        return grid.refine([c], [(0, 0)], [(n1, n2)])

    def refine(self, dominoes: Sequence[Sequence[Sequence[float]] | np.ndarray],
               first: Sequence[tuple[int, int]] | None = None,
               spans: Sequence[tuple[int, int]] | None = None) -> HalfBlockGrid:
        """Refit to every domino's four corners: each corner goes to its nearest grid point (corners lie on
        even grid points of stage 1 and on odd ones for stage 2 and 4, so any grid point is allowed)."""
        pts: list[np.ndarray] = []
        ints: list[tuple[int, ...]] = []
        basis = np.column_stack([self.u, self.v])
        for k, quad in enumerate(dominoes):
            q = np.asarray(quad, np.float64).reshape(-1, 2)[:4]
            if first is not None and spans is not None:
                (m0, n0), (sm, sn) = first[k], spans[k]
                grid_pts = [(m0, n0), (m0 + sm, n0), (m0 + sm, n0 + sn), (m0, n0 + sn)]
            else:
                grid_pts = [tuple(np.rint(np.linalg.solve(basis, p - self.origin)).astype(int)) for p in q]
            pts.extend(q)
            ints.extend(grid_pts)
        p = np.asarray(pts)
        mn = np.asarray(ints, np.float64)
        a = np.zeros((2 * len(p), 6))
        a[0::2, 0], a[1::2, 1] = 1, 1
        a[0::2, 2], a[1::2, 3] = mn[:, 0], mn[:, 0]
        a[0::2, 4], a[1::2, 5] = mn[:, 1], mn[:, 1]
        sol, *_ = np.linalg.lstsq(a, p.reshape(-1), rcond=None)
        res = (a @ sol - p.reshape(-1)).reshape(-1, 2)
        return HalfBlockGrid(sol[0:2], sol[2:4], sol[4:6], float(np.sqrt(np.mean(np.sum(res**2, axis=1)))))


@dataclass(frozen=True)
class SpaceGrid:
    """A card's spaces: space (row, col) at ``origin + col * across + row * down``."""

    origin: np.ndarray
    across: np.ndarray
    down: np.ndarray
    rows: int
    cols: int
    residual_mm: float = 0.0

    def centre(self, row: int, col: int) -> np.ndarray:
        return np.asarray(self.origin + col * self.across + row * self.down)

    def nearest(self, point: Sequence[float] | np.ndarray) -> tuple[tuple[int, int], float]:
        basis = np.column_stack([self.across, self.down])
        cr = np.linalg.solve(basis, np.asarray(point, np.float64) - self.origin)
        col = int(np.clip(round(cr[0]), 0, self.cols - 1))
        row = int(np.clip(round(cr[1]), 0, self.rows - 1))
        return (row, col), float(np.linalg.norm(self.centre(row, col) - np.asarray(point)))

    @classmethod
    def fit(cls, centres: Sequence[Sequence[float]] | np.ndarray, card_corners: Sequence[Sequence[float]],
            rows: int, cols: int) -> SpaceGrid:
        """Fit a rows x cols grid of spaces to the dice seen on a card, inside its corners (TL, TR, BR, BL).
        With no dice yet, the grid divides the card evenly; each die then pulls the grid onto itself."""
        if rows < 1 or cols < 1:
            raise LatticeError(f"a card's grid needs at least one row and column, not {rows} x {cols}")
        c = np.asarray(card_corners, np.float64).reshape(4, 2)
        across_card, down_card = (c[1] - c[0]), (c[3] - c[0])
        grid = cls(c[0] + across_card / (2 * cols) + down_card / (2 * rows), across_card / cols, down_card / rows,
                   rows, cols)
        pts = np.asarray(centres, np.float64).reshape(-1, 2)
        if len(pts) < 2:
            if len(pts) == 1:
                (row, col), _ = grid.nearest(pts[0])
                shift = pts[0] - grid.centre(row, col)
                return cls(grid.origin + shift, grid.across, grid.down, rows, cols)
            return grid
        for _ in range(5):
            slots = [grid.nearest(p)[0] for p in pts]
            a = np.zeros((2 * len(pts), 6))
            a[0::2, 0], a[1::2, 1] = 1, 1
            for k, (row, col) in enumerate(slots):
                a[2 * k, 2], a[2 * k + 1, 3] = col, col
                a[2 * k, 4], a[2 * k + 1, 5] = row, row
            b = pts.reshape(-1)
            cols_used, rows_used = len({s[1] for s in slots}), len({s[0] for s in slots})
            # A pitch is measured only where dice span it; otherwise the card's own division stands.
            keep = [0, 1] + ([2, 3] if cols_used > 1 else []) + ([4, 5] if rows_used > 1 else [])
            fixed = np.concatenate([grid.origin, grid.across, grid.down])
            rhs = b - np.delete(a, keep, axis=1) @ np.delete(fixed, keep)
            sol, *_ = np.linalg.lstsq(a[:, keep], rhs, rcond=None)
            full = fixed.copy()
            full[keep] = sol
            res = (a @ full - b).reshape(-1, 2)
            grid = cls(full[0:2], full[2:4], full[4:6], rows, cols, float(np.sqrt(np.mean(np.sum(res**2, axis=1)))))
        return grid
