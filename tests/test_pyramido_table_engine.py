"""The engine changes the camera needs (issue 23): same-looking placements asked about, a placement that looks
like what it covers named, unknown cells left out, one misread cell of the view before tolerated, the first
domino anywhere, half-aligned reported first."""

from __future__ import annotations

import pytest

from engine.errors import AmbiguousActionError, IllegalActionError, InvalidStateError
from engine.pyramido import (
    Colour,
    Placement,
    Pyramid,
    explain_first_placement,
    explain_placement,
    invisible_placements,
    legal_placements,
    parse_domino,
)
from engine.pyramido.observe import observed

GREEN_STAGE_ONE = [f"g-g @ s1 {x},{y} E" for y in range(4) for x in (0, 2)] + ["g-g @ s1 4,0 S", "g-g @ s1 4,2 S"]


def test_two_placements_that_look_the_same_are_asked_about_not_taken_silently() -> None:
    p = Pyramid.build(1, ["r0-b @ s1 0,0 E"])
    plain = parse_domino("g-g")
    after = observed(p.place(plain, Placement.parse("s1 0,1 E")))
    with pytest.raises(AmbiguousActionError) as err:
        explain_placement(p, plain, observed(p), after)
    # Block A on 0,1 facing E and block A on 1,1 facing W show the same plain green pair.
    assert "s1 0,1 E" in str(err.value) and "s1 1,1 W" in str(err.value)


def test_a_placement_that_looks_like_what_it_covers_is_named_not_waited_for() -> None:
    s2 = Pyramid.build(2, GREEN_STAGE_ONE)
    plain = parse_domino("g-g")
    hidden = invisible_placements(s2, plain)
    # On a plain green stage 1, a plain green domino looks the same wherever it lies in stage 2.
    assert Placement.parse("s2 0,0 E") in hidden and hidden == legal_placements(s2, plain)
    with pytest.raises(AmbiguousActionError, match="look exactly like what it covers"):
        explain_placement(s2, plain, observed(s2), observed(s2))
    # A domino that shows (an icon) is not invisible: no change seen means it is not placed yet.
    assert invisible_placements(s2, parse_domino("g0-g")) == []
    with pytest.raises(IllegalActionError, match="not been placed yet"):
        explain_placement(s2, parse_domino("g0-g"), observed(s2), observed(s2))


def test_unknown_cells_are_left_out_and_one_misread_cell_before_is_tolerated() -> None:
    p = Pyramid.build(1, ["r0-b @ s1 0,0 E", "o-p @ s1 0,1 E"])
    d = parse_domino("g1-b3")
    truth = Placement.parse("s1 2,0 S")
    after = observed(p.place(d, truth))
    # A hand over two of the new block's quarter cells: they are read as nothing.
    hand = frozenset({(4, 0), (5, 0)})
    seen = {c: v for c, v in after.items() if c not in hand}
    with pytest.raises(IllegalActionError):
        explain_placement(p, d, observed(p), seen)
    assert explain_placement(p, d, observed(p), seen, unknown=hand) == truth
    # One cell of the view before misread (glare on a red cell): still the same placement.
    before = dict(observed(p))
    before[(0, 0)] = (Colour.ORANGE, False)
    assert explain_placement(p, d, before, after) == truth
    before[(1, 1)] = (Colour.ORANGE, False)
    with pytest.raises(InvalidStateError, match="0,0 1,1"):
        explain_placement(p, d, before, after)


def test_the_first_domino_may_lie_anywhere_in_the_camera_coordinates() -> None:
    d = parse_domino("r0-b3")
    for truth in (Placement.parse("s1 0,0 E"), Placement.parse("s1 0,0 S"), Placement.parse("s1 0,0 N")):
        view = observed(Pyramid(1).place(d, truth))
        for dx, dy in ((7, -3), (-2, 11), (1, 1)):
            moved = {(x + dx, y + dy): v for (x, y), v in view.items()}
            placement, shift = explain_first_placement(d, moved)
            assert placement == truth and shift == (-dx, -dy)
    with pytest.raises(IllegalActionError, match="does not show"):
        explain_first_placement(d, observed(Pyramid(1).place(parse_domino("g-b3"), Placement.parse("s1 0,0 E"))))
    # A plain single-colour domino looks the same turned round: asked.
    with pytest.raises(AmbiguousActionError):
        explain_first_placement(parse_domino("g-g"), observed(Pyramid(1).place(parse_domino("g-g"),
                                                                              Placement.parse("s1 0,0 E"))))


def test_a_stage_one_domino_half_a_block_off_in_both_axes_is_half_aligned() -> None:
    p = Pyramid.build(1, ["r0-b @ s1 0,0 E", "o-p @ s1 0,1 E"])
    d = parse_domino("g-g")
    after = dict(observed(p))
    for qx in range(1, 5):
        for qy in (3, 4):
            after[(qx, qy)] = (Colour.GREEN, False)
    with pytest.raises(IllegalActionError, match="half-aligned"):
        explain_placement(p, d, observed(p), after)
