"""For the camera: which legal placement explains an observed change of a pyramid's top view, or why none does.

The camera reports a top view as quarter cell -> (colour, whether a gem icon shows), in the pyramid's
quarter-cell coordinates (:mod:`engine.pyramido.geometry`). :func:`explain_placement` compares the view
before and after a turn with what each legal placement of the domino taken would show. When nothing
legal fits it says why: the change is not one domino, the domino is half-aligned, it lies where a rule
forbids (overlap, outside the frame, not connected, wrong stage) or it shows other colours or icons.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.errors import IllegalActionError, InvalidStateError
from engine.pyramido.dominoes import Colour, Domino
from engine.pyramido.geometry import DIRECTIONS, STAGES, Placement, Pyramid, check_placement, lay, legal_placements

Cell = tuple[int, int]
View = Mapping[Cell, tuple[Colour, bool]]


def observed(pyramid: Pyramid) -> dict[Cell, tuple[Colour, bool]]:
    """What the camera should see of ``pyramid``: quarter cell -> (colour, icon shows)."""
    return {c: (v[0], v[1]) for c, v in pyramid.top_view.items()}


def _differences(a: View, b: View) -> list[Cell]:
    return sorted((c for c in set(a) | set(b) if a.get(c) != b.get(c)), key=lambda c: (c[1], c[0]))


def _cells_text(cells: list[Cell], limit: int = 8) -> str:
    shown = " ".join(f"{x},{y}" for x, y in cells[:limit])
    return shown + (f" and {len(cells) - limit} more" if len(cells) > limit else "")


def _overlay(base: dict[Cell, tuple[Colour, bool]], domino: Domino, placement: Placement) -> dict[
    Cell, tuple[Colour, bool]
]:
    view = dict(base)
    k = placement.stage
    for (x, y), laid in lay(domino, placement):
        for q in range(4):
            view[(2 * x + k - 1 + q % 2, 2 * y + k - 1 + q // 2)] = (laid.colour, q in laid.icons)
    return view


def explain_placement(pyramid: Pyramid, domino: Domino, before: View, after: View) -> Placement:
    """The legal placement of ``domino`` that turns ``before`` into ``after``.

    Raises InvalidStateError if ``before`` is not the recorded pyramid, and IllegalActionError naming the
    quarter cells and the reason when no legal placement explains ``after``.
    """
    expected = observed(pyramid)
    wrong = _differences(expected, dict(before))
    if wrong:
        raise InvalidStateError(
            f"the pyramid seen before the turn differs from the recorded one at quarter cells {_cells_text(wrong)}"
        )
    changed = _differences(dict(before), dict(after))
    if not changed:
        raise IllegalActionError("no change is seen in the pyramid; the domino has not been placed yet")
    after_d = dict(after)
    for placement in legal_placements(pyramid, domino):
        if observed(pyramid.place(domino, placement)) == after_d:
            return placement

    xs = [c[0] for c in changed]
    ys = [c[1] for c in changed]
    w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    where = f"quarter cells {_cells_text(changed)}"
    if w > 4 or h > 4 or (w > 2 and h > 2):
        raise IllegalActionError(f"the change at {where} is not one domino (it spans {w}x{h} quarter cells)")
    # Anything on some stage's grid that shows exactly the view after: say which rule it breaks.
    reasons = []
    for k in range(1, STAGES + 1):
        for bx in range((min(xs) - k + 1) // 2 - 2, (max(xs) - k + 1) // 2 + 2):
            for by in range((min(ys) - k + 1) // 2 - 2, (max(ys) - k + 1) // 2 + 2):
                for d in DIRECTIONS:
                    p = Placement(k, bx, by, d)
                    if _overlay(expected, domino, p) != after_d:
                        continue
                    try:
                        check_placement(pyramid, p)
                    except IllegalActionError as exc:
                        reasons.append(str(exc))
    if reasons:
        raise IllegalActionError(f"the domino {domino} seen at {where} is not a legal placement: {reasons[0]}")
    if (w, h) in ((4, 2), (2, 4)):
        x0, y0 = min(xs), min(ys)
        stage = pyramid.stage
        if x0 % 2 != y0 % 2 or x0 % 2 != (stage - 1) % 2:
            raise IllegalActionError(
                f"the domino seen at {where} is half-aligned: its corner at quarter cell {x0},{y0} is not on the "
                f"stage-{stage} grid (block sides must line up fully)"
            )
    raise IllegalActionError(
        f"the change at {where} does not show domino {domino} in any turn (colours or gem icons differ)"
    )
