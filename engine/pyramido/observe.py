"""For the camera: which legal placement explains an observed change of a pyramid's top view, or why none does.

The camera reports a top view as quarter cell -> (colour, whether a gem icon shows), in the pyramid's
quarter-cell coordinates (:mod:`engine.pyramido.geometry`). :func:`explain_placement` compares the view
before and after a turn with what each legal placement of the domino taken would show. When nothing
legal fits it says why: the change is not one domino, the domino is half-aligned, it lies where a rule
forbids (overlap, outside the frame, not connected, wrong stage) or it shows other colours or icons.

What a camera needs besides: two legal placements that show the same top view raise AmbiguousActionError
naming both (the players choose; the first is never taken silently); a placement that looks exactly like
what it covers is named by :func:`invisible_placements` ("no change is seen" is then a question, not a
wait); cells the camera cannot see (``unknown``: a hand, glare) are left out of every comparison, and one
misread cell of the "before" view is tolerated; the first domino may lie anywhere in the camera's
coordinates (:func:`explain_first_placement` says by which translation); a stage-1 domino half a block off
in both axes is reported as half-aligned before anything else.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.errors import AmbiguousActionError, IllegalActionError, InvalidStateError
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


def _known(view: View, unknown: frozenset[Cell]) -> dict[Cell, tuple[Colour, bool]]:
    return {c: v for c, v in view.items() if c not in unknown} if unknown else dict(view)


def _same(a: View, b: View, unknown: frozenset[Cell]) -> bool:
    return _known(a, unknown) == _known(b, unknown)


def invisible_placements(pyramid: Pyramid, domino: Domino, unknown: frozenset[Cell] = frozenset()) -> list[Placement]:
    """The legal placements of ``domino`` that leave the top view as it is (blocks and icons the same as the
    ones they cover): from above, nothing shows that it was placed there."""
    before = observed(pyramid)
    return [p for p in legal_placements(pyramid, domino) if _same(observed(pyramid.place(domino, p)), before, unknown)]


def explain_first_placement(domino: Domino, after: View) -> tuple[Placement, tuple[int, int]]:
    """A first domino seen anywhere (``after`` in the camera's own quarter cells): its placement and the
    translation (dx, dy) that takes the camera's cells onto the pyramid's (block A on 0,0).

    AmbiguousActionError when two turns show the same (a domino whose halves look alike turned round)."""
    seen = dict(after)
    if not seen:
        raise IllegalActionError("no domino is seen; the first domino has not been placed yet")
    sx, sy = min(c[0] for c in seen), min(c[1] for c in seen)
    found: list[tuple[Placement, tuple[int, int]]] = []
    for p in legal_placements(Pyramid(1), domino):
        expected = observed(Pyramid(1).place(domino, p))
        dx = min(c[0] for c in expected) - sx
        dy = min(c[1] for c in expected) - sy
        if {(c[0] + dx, c[1] + dy): v for c, v in seen.items()} == expected:
            found.append((p, (dx, dy)))
    if not found:
        raise IllegalActionError(f"the first domino seen does not show {domino} (colours or gem icons differ)")
    if len(found) > 1:
        raise AmbiguousActionError(
            f"the first domino {domino} could lie as {' or '.join(str(p) for p, _ in found)} (the same from above): "
            "choose the placement"
        )
    return found[0]


def explain_placement(pyramid: Pyramid, domino: Domino, before: View, after: View, *,
                      unknown: frozenset[Cell] = frozenset()) -> Placement:
    """The legal placement of ``domino`` that turns ``before`` into ``after``.

    Cells in ``unknown`` (the camera could not see them) are left out of every comparison; one cell of
    ``before`` that differs from the record is taken as misread. Raises InvalidStateError if ``before`` is
    not the recorded pyramid, AmbiguousActionError when several legal placements show ``after`` (or, with no
    change seen, when the domino may lie where it looks exactly like what it covers), and IllegalActionError
    naming the quarter cells and the reason when no legal placement explains ``after``.
    """
    unknown = frozenset(unknown)
    expected = observed(pyramid)
    wrong = _differences(_known(expected, unknown), _known(before, unknown))
    if len(wrong) > 1:
        raise InvalidStateError(
            f"the pyramid seen before the turn differs from the recorded one at quarter cells {_cells_text(wrong)}"
        )
    before_d = dict(expected)  # one misread cell of the view before: the record is what lay there
    changed = _differences(_known(before_d, unknown), _known(after, unknown))
    if not changed:
        hidden = invisible_placements(pyramid, domino, unknown)
        if hidden:
            raise AmbiguousActionError(
                f"no change is seen in the pyramid, but {domino} would look exactly like what it covers at "
                f"{' or '.join(str(p) for p in hidden)}: has it been placed there? (choose the placement)"
            )
        raise IllegalActionError("no change is seen in the pyramid; the domino has not been placed yet")
    after_d = _known(after, unknown)
    half = _half_aligned_stage_one(pyramid, changed)
    if half:
        raise IllegalActionError(half)
    matches = [p for p in legal_placements(pyramid, domino)
               if _known(observed(pyramid.place(domino, p)), unknown) == after_d]
    if len(matches) > 1:
        raise AmbiguousActionError(
            f"the domino {domino} seen could lie as {' or '.join(str(p) for p in matches)} (the same from above): "
            "choose the placement"
        )
    if matches:
        return matches[0]

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
                    if _known(_overlay(expected, domino, p), unknown) != after_d:
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


def _half_aligned_stage_one(pyramid: Pyramid, changed: list[Cell]) -> str | None:
    """A stage-1 domino laid half a block off in both axes shows a stage-2 position: say it is half-aligned
    (rather than "the pyramid is building stage 1, not stage 2")."""
    if pyramid.stage != 1 or not changed:
        return None
    xs, ys = [c[0] for c in changed], [c[1] for c in changed]
    w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    if (w, h) in ((4, 2), (2, 4)) and min(xs) % 2 == 1 and min(ys) % 2 == 1:
        return (f"the domino seen at quarter cells {_cells_text(changed)} is half-aligned: it lies half a block off "
                "in both directions (block sides must line up fully with the blocks beside it)")
    return None
