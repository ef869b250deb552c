"""Stage-end gem activation: the allowed mixes, checking a player's activation, and the optimiser (2.5).

An area is *activated* with 1 gem of its colour or 2 mythical gems (its icons score once), or *doubled*
with 3 coloured-gem equivalents: 3C, 2C+2M, 1C+4M or 6M (its icons score twice, FT8). Each area
activates at most once per scoring (FT7). Every mythical gem left in the inventory after placing scores 1.

The optimiser uses *units*: a coloured gem is one unit of its colour and two mythical gems are one unit of
any colour. Every allowed mix is "1 unit" (activate) or "3 units" (double) with any split of those units
between coloured gems and mythical pairs, so a colour's best score depends only on how many units it gets.
It finds, per colour, the best points for each unit count (a small knapsack over that colour's areas),
then shares the mythical pairs among the colours, weighing each pair against the 2 points the two gems
would score if left in the inventory. Among activations that score the same it uses the fewest gems, so
the rest stay in the inventory for later stages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import IllegalActionError, InvalidActionError
from engine.pyramido.areas import Area, Cell
from engine.pyramido.dominoes import COLOURS, MYTHICAL, NO_GEMS, Gems, gems_sub, gems_text

#: The allowed (coloured, mythical) mixes and how many times they score the area's icons.
MIXES: dict[tuple[int, int], int] = {(1, 0): 1, (0, 2): 1, (3, 0): 2, (2, 2): 2, (1, 4): 2, (0, 6): 2}


@dataclass(frozen=True, slots=True)
class AreaActivation:
    """Gems placed on one area: ``coloured`` gems of the area's colour and ``mythical`` gems."""

    anchor: Cell
    coloured: int
    mythical: int

    @property
    def multiplier(self) -> int:
        return MIXES.get((self.coloured, self.mythical), 0)

    def __str__(self) -> str:
        return f"{self.anchor[0]},{self.anchor[1]} {self.coloured}c{self.mythical}m"

    @classmethod
    def parse(cls, text: str) -> AreaActivation:
        """Read ``X,Y NcMm`` (area anchor, coloured and mythical gems), e.g. ``4,2 1c0m``."""
        try:
            xy, mix = text.split()
            xs, ys = xy.split(",")
            c, _, rest = mix.lower().partition("c")
            m = rest.removesuffix("m")
            return cls((int(xs), int(ys)), int(c), int(m))
        except ValueError:
            raise InvalidActionError(
                f"activation {text!r} is not 'X,Y NcMm' (area anchor, coloured and mythical gems, e.g. '4,2 1c0m')"
            ) from None


def check_mix(coloured: int, mythical: int) -> int:
    """The multiplier of a mix, or InvalidActionError listing the allowed mixes."""
    mult = MIXES.get((coloured, mythical))
    if mult is None:
        allowed = ", ".join(f"{c}c{m}m" for c, m in MIXES)
        raise InvalidActionError(f"{coloured} coloured + {mythical} mythical gems is not an allowed mix ({allowed})")
    return mult


def gems_for(area: Area, coloured: int, mythical: int) -> Gems:
    counts = [0] * 6
    counts[area.colour.index] = coloured
    counts[MYTHICAL] = mythical
    return tuple(counts)


@dataclass(frozen=True)
class ActivationResult:
    """An activation, the gems it uses and what it scores (area points + 1 per mythical gem left)."""

    activations: tuple[AreaActivation, ...]
    used: Gems
    area_points: int
    mythical_left: int

    @property
    def points(self) -> int:
        return self.area_points + self.mythical_left

    def __str__(self) -> str:
        acts = "; ".join(str(a) for a in self.activations) or "nothing"
        return (
            f"{acts} -> {self.area_points} from areas + {self.mythical_left} mythical left = {self.points} "
            f"(uses {gems_text(self.used)})"
        )


def score_activation(
    found: Sequence[Area], inventory: Gems, activations: Sequence[AreaActivation]
) -> ActivationResult:
    """Check an activation a player chose and score it; errors name the area and the reason."""
    by_anchor = {a.anchor: a for a in found}
    used = NO_GEMS
    seen: set[Cell] = set()
    points = 0
    for act in activations:
        area = by_anchor.get(act.anchor)
        if area is None:
            raise IllegalActionError(f"activation {act}: no area has its anchor at {act.anchor[0]},{act.anchor[1]}")
        if act.anchor in seen:
            raise IllegalActionError(
                f"activation {act}: the {area.colour.value} area is already activated this scoring"
            )
        seen.add(act.anchor)
        mult = check_mix(act.coloured, act.mythical)
        need = gems_for(area, act.coloured, act.mythical)
        used = tuple(u + n for u, n in zip(used, need, strict=True))
        try:
            gems_sub(inventory, used)
        except InvalidActionError:
            raise IllegalActionError(
                f"activation {act}: the inventory {gems_text(inventory)} does not hold {gems_text(used)}"
            ) from None
        points += mult * area.icons
    return ActivationResult(tuple(activations), used, points, inventory[MYTHICAL] - used[MYTHICAL])


def _colour_table(values: list[int]) -> tuple[list[int], list[int], list[tuple[int, ...]]]:
    """For one colour's areas: per unit budget u (0..3n) the best points with at most u units, the fewest
    units that reach them, and per exact unit count the units each area gets (0, 1 or 3)."""
    cap = 3 * len(values)
    exact: list[tuple[int, tuple[int, ...]] | None] = [None] * (cap + 1)
    exact[0] = (0, ())
    for v in values:
        new: list[tuple[int, tuple[int, ...]] | None] = [None] * (cap + 1)
        for u, entry in enumerate(exact):
            if entry is None:
                continue
            pts, ch = entry
            for cost, gain in ((0, 0), (1, v), (3, 2 * v)):
                w = u + cost
                if w > cap:
                    continue
                old = new[w]
                if old is None or pts + gain > old[0]:
                    new[w] = (pts + gain, (*ch, cost))
        exact = new
    best_pts: list[int] = []
    best_units: list[int] = []
    cur_pts, cur_u = 0, 0
    for u, entry in enumerate(exact):
        if entry is not None and entry[0] > cur_pts:
            cur_pts, cur_u = entry[0], u
        best_pts.append(cur_pts)
        best_units.append(cur_u)
    assign = [e[1] if e is not None else () for e in exact]
    return best_pts, best_units, assign


def best_activation(found: Sequence[Area], inventory: Gems, keep: Gems = NO_GEMS) -> ActivationResult:
    """The activation that scores the most this stage (ties: fewest gems), never touching the gems in ``keep``.

    Kept mythical gems still score 1 each as leftovers.
    """
    try:
        usable = gems_sub(inventory, keep)
    except InvalidActionError:
        raise IllegalActionError(
            f"cannot keep {gems_text(keep)}: the inventory holds only {gems_text(inventory)}"
        ) from None
    pairs = usable[MYTHICAL] // 2
    per_colour: list[tuple[list[Area], list[int], list[int], list[tuple[int, ...]]]] = []
    for colour in COLOURS:
        mine = sorted((a for a in found if a.colour is colour and a.icons > 0), key=lambda a: -a.icons)
        per_colour.append((mine, *_colour_table([a.icons for a in mine])))

    # Share the mythical pairs among colours: pairs used so far -> (area points, -gems used, units per colour).
    states: dict[int, tuple[int, int, tuple[int, ...]]] = {0: (0, 0, ())}
    for ci, (_mine, pts, units_for, _assign) in enumerate(per_colour):
        n_c = usable[ci]
        cap = len(pts) - 1
        nxt: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        for used_pairs, (p0, g0, ch) in states.items():
            for p in range(pairs - used_pairs + 1):
                budget = min(n_c + p, cap)
                u = units_for[budget]
                if max(0, u - n_c) == p:  # otherwise a smaller p reaches the same points
                    cand = (p0 + pts[u], g0 - (min(u, n_c) + 2 * p), (*ch, u))
                    old = nxt.get(used_pairs + p)
                    if old is None or cand[:2] > old[:2]:
                        nxt[used_pairs + p] = cand
                if budget == cap:
                    break
        states = nxt
    best_key = max(states, key=lambda k: (states[k][0] - 2 * k, states[k][1], -k))
    units = states[best_key][2]

    activations: list[AreaActivation] = []
    used = [0] * 6
    area_points = 0
    for ci, ((mine, _pts, _units, assign), u) in enumerate(zip(per_colour, units, strict=True)):
        if u == 0:
            continue
        coloured_left = min(u, usable[ci])
        for area, cost in zip(mine, assign[u], strict=True):
            if cost == 0:
                continue
            c = min(cost, coloured_left)
            coloured_left -= c
            m = 2 * (cost - c)
            activations.append(AreaActivation(area.anchor, c, m))
            used[ci] += c
            used[MYTHICAL] += m
            area_points += area.icons * (1 if cost == 1 else 2)
    activations.sort(key=lambda a: (a.anchor[1], a.anchor[0]))
    return ActivationResult(tuple(activations), tuple(used), area_points, inventory[MYTHICAL] - used[MYTHICAL])


def all_activations(found: Sequence[Area], inventory: Gems) -> list[ActivationResult]:
    """Every legal activation, by brute force over the 7 choices per area (for tests on small cases)."""
    options: list[tuple[int, int] | None] = [None, *MIXES]
    results: list[ActivationResult] = []
    scorable = list(found)

    def walk(i: int, acts: list[AreaActivation], used: Gems) -> None:
        if i == len(scorable):
            results.append(score_activation(scorable, inventory, acts))
            return
        area = scorable[i]
        for opt in options:
            if opt is None:
                walk(i + 1, acts, used)
                continue
            need = gems_for(area, *opt)
            total = tuple(a + b for a, b in zip(used, need, strict=True))
            if all(t <= h for t, h in zip(total, inventory, strict=True)):
                walk(i + 1, [*acts, AreaActivation(area.anchor, *opt)], total)

    walk(0, [], NO_GEMS)
    return results
