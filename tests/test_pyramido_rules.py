"""Pyramido pieces, geometry, areas, activation and the camera's explanation of a placement.

The hand-drawn pyramid EXAMPLE_23 is a full 4x5 stage 1 built so that the rulebook's stage-1 scoring
example (2 + 3 + 3 + 4 + 5 doubled + 1 mythical = 23) can be played on it:

    quarter rows 0-9, one letter per block (x 0-3, y 0-4), icons per block in brackets
    y0: R[1] R[1] B[2] B[0]
    y1: R[1] R[1] B[1] G[1]
    y2: G[1] G[1] P[1] P[1]
    y3: G[0] O[2] O[1] P[1]
    y4: O[1] O[1] R[1] R[1]

CARL is a whole 4-stage pyramid on which the rulebook's four scoring examples (23, 20, 21 and 14 points)
are played stage by stage; CARL_SCORING lists its top views, inventories and activated areas.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import AmbiguousActionError, IllegalActionError, InvalidActionError, InvalidStateError
from engine.pyramido import (
    Area,
    AreaActivation,
    Colour,
    Placement,
    Pyramid,
    areas,
    best_activation,
    explain_placement,
    generate_deck,
    legal_placements,
    parse_domino,
    parse_gems,
    score_activation,
)
from engine.pyramido.activation import all_activations
from engine.pyramido.areas import find_area, render
from engine.pyramido.dominoes import Block, Domino, deck_problems, gems_text
from engine.pyramido.geometry import Direction, has_room, turn_quadrant
from engine.pyramido.observe import observed

EXAMPLE_23 = (
    "r0-r3 @ s1 0,0 E",
    "b02-b @ s1 2,0 E",
    "r2-r1 @ s1 0,1 E",
    "b3-g0 @ s1 2,1 E",
    "g0-g1 @ s1 0,2 E",
    "p0-p1 @ s1 2,2 E",
    "g-o01 @ s1 0,3 E",
    "o0-p0 @ s1 2,3 E",
    "o0-o1 @ s1 0,4 E",
    "r0-r1 @ s1 2,4 E",
)


def example_23() -> Pyramid:
    return Pyramid.build(1, EXAMPLE_23)


def full_stage(stage: int) -> Pyramid:
    """EXAMPLE_23 with every stage up to ``stage - 1`` filled by plain blue dominoes, building ``stage``."""
    p = example_23()
    for k in range(2, stage + 1):
        p = p.next_stage()
        if k == stage:
            break
        while legal_placements(p):
            p = p.place(parse_domino("b-b"), legal_placements(p)[0])
    return p


# --- dominoes and decks ---------------------------------------------------------------------------


def test_domino_text_round_trips_and_rejects_bad_text() -> None:
    d = parse_domino("r03-b")
    assert d == Domino(Block(Colour.RED, (0, 3)), Block(Colour.BLUE))
    assert str(d) == "r03-b" and str(d.back()) == "b0-r2" and d.icon_colours() == (Colour.RED, Colour.RED)
    assert str(parse_domino("O30-p1")) == "o03-p1"
    for bad, needle in (("r03", "two blocks"), ("x0-b", "'x0'"), ("r4-b", "'r4'"), ("r00-b", "distinct")):
        with pytest.raises(InvalidActionError, match=needle):
            parse_domino(bad)


def test_gem_text() -> None:
    assert parse_gems("o2 b1 m3") == (2, 1, 0, 0, 0, 3)
    assert parse_gems("r r m") == (0, 0, 0, 0, 2, 1)
    assert gems_text((0, 0, 0, 0, 2, 1)) == "r2 m1" and parse_gems("none") == (0,) * 6
    with pytest.raises(InvalidActionError, match="'x2'"):
        parse_gems("x2")


@pytest.mark.parametrize("seed", range(20))
def test_generated_decks_meet_the_published_totals(seed: int) -> None:
    deck = generate_deck(seed)
    assert deck_problems(deck) == []
    assert len(deck) == 90 and all(d.icon_count == 2 for d in deck)
    assert generate_deck(seed) == deck  # seeded


def test_deck_problems_name_the_fault() -> None:
    deck = list(generate_deck(1))
    deck[0] = parse_domino("r0-r")
    problems = deck_problems(deck)
    assert any("r0-r has 1 gem icons" in p for p in problems)
    assert any("red gem icons" in p for p in problems) or any("red blocks" in p for p in problems)
    assert deck_problems(deck[:-1])[0] == "deck has 89 dominoes, not 90"


# --- geometry -------------------------------------------------------------------------------------


def test_quadrants_turn_with_the_domino() -> None:
    assert [turn_quadrant(0, t) for t in range(4)] == [0, 1, 3, 2]  # TL -> TR -> BR -> BL
    assert all(turn_quadrant(q, 4) == q for q in range(4))
    p = Pyramid().place(parse_domino("r0-b"), Placement(1, 0, 0, Direction.S))
    # Turned 90 degrees clockwise: block B is below A, and A's top-left icon is now top-right.
    assert p.top_view[(1, 0)] == (Colour.RED, True, 1)
    assert p.top_view[(0, 2)][0] is Colour.BLUE


def test_first_domino_four_turns_and_second_domino_hand_count() -> None:
    empty = Pyramid()
    assert legal_placements(empty) == [Placement(1, 0, 0, d) for d in Direction]
    # Next to a horizontal domino on (0,0)-(1,0): 8 horizontal and 8 vertical positions, 2 turns each.
    one = empty.place(parse_domino("r-b"), Placement(1, 0, 0, Direction.E))
    assert len(legal_placements(one)) == 32
    # perft(2) by symmetry: each first turn leaves 32.
    assert sum(len(legal_placements(empty.place(parse_domino("r-b"), p))) for p in legal_placements(empty)) == 128


def test_stage_grids_are_inset_half_a_block_per_stage() -> None:
    s1 = example_23()
    assert s1.frame is not None and (s1.frame.width, s1.frame.height) == (4, 5)
    assert not has_room(s1)
    # Stage 2 is 3x4 blocks: 3*3 + 2*4... counted: horizontal pairs 2 per row x 4 rows, vertical 3 per column x 3.
    s2 = s1.next_stage()
    assert len(legal_placements(s2)) == 2 * (2 * 4 + 3 * 3)
    s3 = full_stage(3)
    assert len(legal_placements(s3)) == 2 * (1 * 3 + 2 * 2)
    s4 = full_stage(4)
    assert len(legal_placements(s4)) == 2 * (0 * 2 + 1 * 1)
    # A stage-2 block's corners sit on the centres of the 4 stage-1 blocks below it.
    p = s2.place(parse_domino("r-r"), Placement(2, 0, 0, Direction.E))
    covered = {c for c, v in p.top_view.items() if v[2] == 2}
    assert covered == {(x, y) for x in range(1, 5) for y in range(1, 3)}


def test_visible_parts_of_stage_one_after_stage_two() -> None:
    p = full_stage(3)  # stages 1 and 2 full
    visible: dict[tuple[int, int], int] = {}
    for (qx, qy), (_c, _i, stage) in p.top_view.items():
        if stage == 1:
            visible[(qx // 2, qy // 2)] = visible.get((qx // 2, qy // 2), 0) + 1
    corners = {(0, 0), (3, 0), (0, 4), (3, 4)}
    assert {b for b, n in visible.items() if n == 3} == corners
    assert all(n == 2 for b, n in visible.items() if b not in corners)
    assert len(visible) == 20 - 6  # the 6 interior blocks are hidden


@pytest.mark.parametrize(
    ("placement", "needle"),
    [
        ("s1 0,0 E", "block 0,0 of stage 1 is already covered"),
        ("s1 5,0 E", "not connected; it must share a full block edge"),
        ("s1 4,0 E", "stage 1 would span 6x5 blocks; it must fit 5x4 or 4x5"),
        ("s1 0,5 E", "stage 1 would span 4x6 blocks"),
        ("s2 0,0 E", "building stage 1, not stage 2"),
    ],
)
def test_illegal_stage_one_placements_name_position_and_reason(placement: str, needle: str) -> None:
    p = Pyramid.build(1, EXAMPLE_23[:9])  # (2,4)-(3,4) still free
    with pytest.raises(IllegalActionError) as err:
        p.place(parse_domino("r-r"), Placement.parse(placement))
    assert needle in str(err.value) and f"placement {placement}" in str(err.value)


def test_stage_one_must_fit_five_by_four() -> None:
    p = Pyramid.build(1, ["r-r @ s1 0,0 E", "r-r @ s1 2,0 E"])  # 4 wide
    with pytest.raises(IllegalActionError, match="would span 6x1"):
        p.place(parse_domino("r-r"), Placement.parse("s1 4,0 E"))
    p = p.place(parse_domino("r-r"), Placement.parse("s1 4,0 S"))  # 5 wide, 2 tall: fine
    with pytest.raises(IllegalActionError, match="would span 5x5"):
        Pyramid.build(1, [*(str(x) for x in p.placed), "r-r @ s1 0,1 S", "r-r @ s1 0,3 S"])


def test_later_stages_stay_in_their_frame_and_the_first_domino_on_the_origin() -> None:
    s2 = example_23().next_stage()
    with pytest.raises(IllegalActionError, match=r"block 3,0 is outside the stage-2 frame \(x 0..2, y 0..3\)"):
        s2.place(parse_domino("r-r"), Placement.parse("s2 2,0 E"))
    # Stage 2 needs no contact: opposite corners are both fine.
    s2 = s2.place(parse_domino("r-r"), Placement.parse("s2 0,0 E")).place(
        parse_domino("r-r"), Placement.parse("s2 2,3 W")
    )
    with pytest.raises(IllegalActionError, match="goes on 0,0"):
        Pyramid().place(parse_domino("r-r"), Placement.parse("s1 1,1 E"))


def test_no_room_with_gaps_means_a_lost_turn() -> None:
    # A 5x4 frame with two single holes, (4,0) and (0,3): no domino fits although 2 blocks are empty.
    rows = [
        "r-r @ s1 0,0 E", "r-r @ s1 2,0 E", "r-r @ s1 0,1 E", "r-r @ s1 2,1 E", "r-r @ s1 4,1 S",
        "r-r @ s1 0,2 E", "r-r @ s1 2,2 E", "r-r @ s1 1,3 E", "r-r @ s1 3,3 E",
    ]  # fmt: skip
    p = Pyramid.build(1, rows)
    assert p.frame is not None and (p.frame.width, p.frame.height) == (5, 4)
    assert {(x, y) for x in range(5) for y in range(4)} - set(p.blocks[0]) == {(4, 0), (0, 3)}
    assert not has_room(p) and legal_placements(p) == []
    assert has_room(Pyramid.build(1, rows[:-1]))


def test_placement_text() -> None:
    assert Placement.parse("s2 1,-1 n") == Placement(2, 1, -1, Direction.N)
    assert str(Placement(3, 0, 1, Direction.W)) == "s3 0,1 W"
    with pytest.raises(InvalidActionError, match="'s1 1 E'"):
        Placement.parse("s1 1 E")


# --- areas ----------------------------------------------------------------------------------------


def test_areas_of_the_example_pyramid() -> None:
    found = areas(example_23())
    summary = sorted((a.colour.value, a.anchor, len(a.cells) // 4, a.icons) for a in found)
    assert summary == [
        ("blue", (4, 0), 3, 3),
        ("green", (0, 4), 3, 2),
        ("green", (6, 2), 1, 1),
        ("orange", (2, 6), 4, 5),
        ("purple", (4, 4), 3, 3),
        ("red", (0, 0), 4, 4),
        ("red", (4, 8), 2, 2),
    ]
    assert sum(a.icons for a in found) == 20
    assert render(example_23()).splitlines()[0] == "RrrrBbbb"


def test_areas_span_stages_and_covered_icons_do_not_count() -> None:
    # A red stage-2 domino over the red top-left area and part of the blue area.
    p = example_23().next_stage().place(parse_domino("r0-r"), Placement.parse("s2 0,0 E"))
    found = areas(p)
    red = find_area(found, (0, 0))
    assert red is not None
    # Red: stage-1 icons at quarter cells (0,0) and (0,3) stay visible, (3,1) and (3,2) are covered; plus the
    # stage-2 icon at (1,1). The stage-2 block B over blue joins the red area too.
    assert red.icons == 3
    assert (4, 1) in red.cells and (4, 2) in red.cells
    assert {v[2] for c, v in p.top_view.items() if c in red.cells} == {1, 2}
    blue = find_area(found, (4, 0))
    assert blue is not None and blue.icons == 2  # its icon at (4,1) is now covered
    assert len(blue.cells) == 12 - 2
    # A stage-2 block that covers a colour boundary splits nothing it does not touch.
    assert sum(a.icons for a in found) == 20 - 3 + 1


def test_area_joining_through_a_higher_stage() -> None:
    # A purple stage-2 domino over the middle joins the purple stage-1 area and covers red and green.
    p = full_stage(2).place(parse_domino("p-p"), Placement.parse("s2 1,1 E"))
    purple = find_area(areas(p), (4, 4))
    assert purple is not None and (3, 3) in purple.cells  # reaches over the red block at (1,1)


# --- activation -----------------------------------------------------------------------------------


def _areas(*spec: tuple[Colour, int]) -> tuple[Area, ...]:
    return tuple(Area(c, frozenset({(2 * i, 0)}), n) for i, (c, n) in enumerate(spec))


def test_rulebook_stage_one_example_scores_23_on_a_real_pyramid() -> None:
    found = areas(example_23())
    inventory = parse_gems("o3 b1 p1 g1 r1 m1")
    acts = [
        AreaActivation((0, 4), 1, 0),  # green, 2 icons
        AreaActivation((4, 0), 1, 0),  # blue, 3
        AreaActivation((4, 4), 1, 0),  # purple, 3
        AreaActivation((0, 0), 1, 0),  # red, 4
        AreaActivation((2, 6), 3, 0),  # orange, 5, doubled
    ]
    result = score_activation(found, inventory, acts)
    assert (result.area_points, result.mythical_left, result.points) == (22, 1, 23)
    assert best_activation(found, inventory).points == 23


#: Carl's pyramid, built for the rulebook's four scoring examples: stage 1 (10 dominoes, the 23-point
#: example again), stage 2 (6, the 20-point one), stage 3 (3, the 21-point one) and stage 4 (1, the
#: 14-point one). Every domino carries 2 icons and is placed by a legal placement; the areas come from the
#: top view of all stages together, so stage-1 rims and stage-2 blocks join areas in later stages.
CARL = (
    "b-r12 @ s1 0,0 E", "r1-b0 @ s1 2,0 E", "g3-g2 @ s1 0,1 E", "b0-b3 @ s1 2,1 E", "g2-r0 @ s1 0,2 E",
    "b3-p3 @ s1 2,2 E", "g02-p @ s1 0,3 E", "p-p01 @ s1 2,3 E", "b1-o2 @ s1 0,4 E", "o3-g3 @ s1 2,4 E",
    "r01-p @ s2 0,0 S", "p0-r0 @ s2 1,0 S", "r0-p0 @ s2 2,0 S", "g2-g2 @ s2 0,2 S", "p-o02 @ s2 1,2 S",
    "b3-r0 @ s2 2,2 S",
    "p3-p2 @ s3 0,0 E", "r1-g1 @ s3 0,1 E", "g-g23 @ s3 0,2 E",
    "p01-b @ s4 0,0 S",
)  # fmt: skip
CARL_STAGE_END = {1: 10, 2: 16, 3: 19, 4: 20}

#: Per stage: the top view (render: a letter per quarter cell, upper case where an icon shows), the
#: inventory, the activated areas in the rulebook's order as (anchor, colour, icons, coloured gems), the
#: mythical gems left and the stage score the rulebook gives.
CARL_SCORING: dict[int, tuple[str, str, tuple[tuple[tuple[int, int], Colour, int, int], ...], int, int]] = {
    1: (
        "bbrRrRBb bbRrrrbb ggggBbbb gGGgbbbB ggRrbbpp GgrrbBpP GgppppPP Ggpppppp bBoooogg bbOooOgG",
        "g3 b1 r1 p1 o1 m1",
        (((2, 8), Colour.ORANGE, 2, 1), ((6, 0), Colour.BLUE, 4, 1), ((6, 4), Colour.PURPLE, 3, 1),
         ((2, 0), Colour.RED, 3, 1), ((0, 2), Colour.GREEN, 5, 3)),
        1, 23,  # 2 + 4 + 3 + 3 + 5 doubled + 1 mythical (the rulebook's 2 + 3 + 3 + 4 + 5x2 + 1)
    ),
    2: (
        "bbrRrRBb brRpPrRb grRpprrb gpprRpPB gpprrppp GGgppbbP GggppBbP GGgOOrRp bggoorrg bbOooOgG",
        "o1 p1 r1 b1 g1 m1",
        (((3, 7), Colour.ORANGE, 4, 1), ((5, 3), Colour.PURPLE, 3, 1), ((2, 0), Colour.RED, 5, 1),
         ((6, 0), Colour.BLUE, 2, 1), ((0, 2), Colour.GREEN, 5, 1)),
        1, 20,  # 4 + 3 + 5 + 2 + 5 + 1 mythical
    ),
    3: (
        "bbrRrRBb brRpPrRb grpppprb gppPPpPB gprRgGpp GGrrggbP GgggggbP GGggGGRp bggoorrg bbOooOgG",
        "r1 g1 b1 p1 m1",
        (((2, 0), Colour.RED, 4, 1), ((0, 2), Colour.GREEN, 8, 1), ((6, 0), Colour.BLUE, 2, 1),
         ((3, 1), Colour.PURPLE, 6, 1)),
        1, 21,  # 4 + 8 + 2 + 6 + 1 mythical
    ),
    4: (
        "bbrRrRBb brRpPrRb grpppprb gpppPpPB gprpPGpp GGrbbgbP GggbbgbP GGggGGRp bggoorrg bbOooOgG",
        "g1 p1",
        (((0, 2), Colour.GREEN, 8, 1), ((3, 1), Colour.PURPLE, 6, 1)),
        0, 14,  # 8 + 6
    ),
}


def carl(stage: int) -> Pyramid:
    """Carl's pyramid with ``stage`` complete (built placement by placement, each checked)."""
    return Pyramid.build(stage, CARL[: CARL_STAGE_END[stage]])


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
def test_rulebook_scoring_examples_on_one_real_pyramid(stage: int) -> None:
    view, inventory_text, expected, mythical_left, total = CARL_SCORING[stage]
    p = carl(stage)
    assert not has_room(p) and all(pd.domino.icon_count == 2 for pd in p.placed)
    assert render(p).split() == view.split()
    found = areas(p)
    acts = []
    for anchor, colour, icons, coloured in expected:
        area = find_area(found, anchor)
        assert area is not None and area.anchor == anchor and (area.colour, area.icons) == (colour, icons)
        # The rulebook's areas are each the best of their colour, so the optimiser can find the same score.
        assert icons == max(a.icons for a in found if a.colour is colour)
        acts.append(AreaActivation(anchor, coloured, 0))
    inventory = parse_gems(inventory_text)
    result = score_activation(found, inventory, acts)
    assert (result.mythical_left, result.points) == (mythical_left, total)
    best = best_activation(found, inventory)
    assert best.points == total and score_activation(found, inventory, best.activations).points == total
    assert best.points == max(r.points for r in all_activations([a for a in found if a.icons], inventory))


def test_mixes_and_bad_activations() -> None:
    found = _areas((Colour.RED, 5), (Colour.BLUE, 2))
    inv = parse_gems("r1 m4")
    assert score_activation(found, inv, [AreaActivation((0, 0), 1, 4)]).points == 10
    assert score_activation(found, inv, [AreaActivation((0, 0), 0, 2), AreaActivation((2, 0), 0, 2)]).points == 7
    with pytest.raises(InvalidActionError, match="1 coloured \\+ 1 mythical gems is not an allowed mix"):
        score_activation(found, inv, [AreaActivation((0, 0), 1, 1)])
    with pytest.raises(IllegalActionError, match="does not hold b1"):
        score_activation(found, inv, [AreaActivation((2, 0), 1, 0)])  # wrong colour: no blue gem
    with pytest.raises(IllegalActionError, match="already activated"):
        score_activation(found, inv, [AreaActivation((0, 0), 1, 0), AreaActivation((0, 0), 0, 2)])
    with pytest.raises(IllegalActionError, match="no area has its anchor at 9,9"):
        score_activation(found, inv, [AreaActivation((9, 9), 1, 0)])


def test_best_activation_weighs_mythical_gems_against_their_leftover_point() -> None:
    # Two mythical gems on a 2-icon area score 2 but lose 2 leftover points: not worth it, keep them.
    found = _areas((Colour.RED, 2))
    best = best_activation(found, parse_gems("m2"))
    assert best.points == 2 and best.activations == ()
    # On a 3-icon area they gain 1.
    best = best_activation(_areas((Colour.RED, 3)), parse_gems("m2"))
    assert best.points == 3 and best.activations == (AreaActivation((0, 0), 0, 2),)


def test_best_activation_keeping_gems_for_later() -> None:
    found = _areas((Colour.RED, 5), (Colour.RED, 4))
    inv = parse_gems("r3 m2")
    full = best_activation(found, inv)
    assert full.points == 14 == max(r.points for r in all_activations(found, inv))  # 5 doubled + 4
    kept = best_activation(found, inv, keep=parse_gems("r2"))
    assert (kept.points, kept.used) == (9, parse_gems("r1 m2"))  # 5 + 4, nothing left over
    kept_m = best_activation(found, inv, keep=parse_gems("m2"))
    assert (kept_m.points, kept_m.mythical_left) == (12, 2)  # 5 doubled + the 2 kept mythical gems
    with pytest.raises(IllegalActionError, match="cannot keep b1"):
        best_activation(found, inv, keep=parse_gems("b1"))


def test_optimiser_matches_brute_force_on_random_small_cases() -> None:
    rng = random.Random(2026)
    colours = list(Colour)
    for _ in range(250):
        n = rng.randint(0, 5)
        found = _areas(*((rng.choice(colours[:3]), rng.randint(0, 6)) for _ in range(n)))
        inv = (*(rng.randint(0, 4) for _ in range(3)), 0, 0, rng.randint(0, 8))
        best = best_activation(found, inv)
        every = all_activations(found, inv)
        top = max(r.points for r in every)
        assert best.points == top, (found, inv, best)
        # Ties go to the fewest gems used, and what it returns checks out.
        assert sum(best.used) == min(sum(r.used) for r in every if r.points == top)
        assert score_activation(found, inv, best.activations).points == best.points


def test_optimiser_on_a_full_four_stage_pyramid() -> None:
    p = full_stage(4).place(parse_domino("o0-o1"), Placement.parse("s4 0,0 S"))
    assert not has_room(p) and p.stage_count(4) == 1
    found = areas(p)
    inv = parse_gems("o2 b2 r1 m3")
    best = best_activation(found, inv)
    assert score_activation(found, inv, best.activations).points == best.points
    # Only orange, blue and red areas can use coloured gems; brute force over those areas agrees.
    useful = tuple(a for a in found if a.icons and a.colour in (Colour.ORANGE, Colour.BLUE, Colour.RED))
    assert len(useful) <= 8
    assert best.points >= max(r.points for r in all_activations(useful, inv))


# --- the camera -----------------------------------------------------------------------------------


def test_explain_placement_finds_the_legal_placement() -> None:
    p = Pyramid(1, example_23().placed[:9])
    d = parse_domino("r0-r1")
    after = observed(p.place(d, Placement.parse("s1 2,4 E")))
    assert explain_placement(p, d, observed(p), after) == Placement.parse("s1 2,4 E")
    # The same domino turned round shows other icon positions: the W turn from 3,4.
    after_w = observed(p.place(d, Placement.parse("s1 3,4 W")))
    assert explain_placement(p, d, observed(p), after_w) == Placement.parse("s1 3,4 W")


def test_explain_placement_says_why_nothing_fits() -> None:
    s2 = example_23().next_stage()
    d = parse_domino("r0-b")
    before = observed(s2)
    # Nothing changed.
    with pytest.raises(IllegalActionError, match="no change"):
        explain_placement(s2, d, before, before)
    # Seen before differs from the record in two cells (one misread cell is taken as misread: see below).
    wrong = dict(before)
    wrong[(0, 0)] = (Colour.BLUE, False)
    wrong[(1, 0)] = (Colour.BLUE, False)
    with pytest.raises(InvalidStateError, match="quarter cells 0,0 1,0"):
        explain_placement(s2, d, wrong, before)
    # Outside the stage-2 frame (a stage-2 domino at x 2-3 sticks out).
    after = dict(before)
    for qx in range(5, 9):
        for qy in (1, 2):
            after[(qx, qy)] = (Colour.RED if qx < 7 else Colour.BLUE, (qx, qy) == (5, 1))
    with pytest.raises(IllegalActionError, match="outside the stage-2 frame"):
        explain_placement(s2, d, before, after)
    # Half-aligned: on the stage-1 grid while stage 2 is being built.
    after = dict(before)
    for qx in range(0, 4):
        for qy in (2, 3):
            after[(qx, qy)] = (Colour.RED if qx < 2 else Colour.BLUE, (qx, qy) == (0, 2))
    with pytest.raises(IllegalActionError) as err:
        explain_placement(s2, d, before, after)
    assert "stage 2, not stage 1" in str(err.value) or "half-aligned" in str(err.value)
    after = dict(before)
    for qx in range(1, 5):
        for qy in (2, 3):
            after[(qx, qy)] = (Colour.GREEN, False)
    with pytest.raises(IllegalActionError, match="half-aligned"):
        explain_placement(s2, d, before, after)
    # Two separate changes are not one domino.
    after = dict(before)
    after[(0, 0)] = (Colour.GREEN, False)
    after[(7, 9)] = (Colour.GREEN, False)
    with pytest.raises(IllegalActionError, match="not one domino"):
        explain_placement(s2, d, before, after)
    # Right place, wrong colours.
    after = observed(s2.place(parse_domino("g0-b"), Placement.parse("s2 0,0 E")))
    with pytest.raises(IllegalActionError, match="colours or gem icons differ"):
        explain_placement(s2, d, before, after)


def test_every_legal_placement_is_explained_by_its_own_view() -> None:
    p = Pyramid(1, example_23().placed[:6])
    d = parse_domino("o03-g")
    before = observed(p)
    for placement in legal_placements(p, d):
        after = observed(p.place(d, placement))
        found = explain_placement(p, d, before, after)
        assert observed(p.place(d, found)) == after


def test_all_pairs_in_stage_one_are_either_legal_or_refused_with_a_reason() -> None:
    p = Pyramid(1, example_23().placed[:5])
    legal = set(legal_placements(p))
    for x, y, direction in itertools.product(range(-2, 6), range(-2, 7), Direction):
        placement = Placement(1, x, y, direction)
        if placement in legal:
            p.place(parse_domino("r-r"), placement)
        else:
            with pytest.raises(IllegalActionError, match=str(placement)):
                p.place(parse_domino("r-r"), placement)


# --- properties on random pyramids ----------------------------------------------------------------


def random_pyramid(seed: int) -> Pyramid:
    """A seeded random pyramid part-way through a random stage, built by random legal placements."""
    rng = random.Random(seed)
    deck = list(generate_deck(seed))
    p = Pyramid()
    stop_stage = rng.randint(1, 4)
    for stage in range(1, stop_stage + 1):
        if stage > 1:
            p = p.next_stage()
        limit = rng.randint(0, 10) if stage == stop_stage else 99
        for _ in range(limit):
            options = legal_placements(p)
            if not options:
                break
            p = p.place(deck.pop(), rng.choice(options))
    return p


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_areas_partition_the_top_view(seed: int) -> None:
    p = random_pyramid(seed)
    view = p.top_view
    found = areas(p)
    cells = [c for a in found for c in a.cells]
    assert len(cells) == len(set(cells)) == len(view)
    owner = {c: a for a in found for c in a.cells}
    for (x, y), (colour, _icon, _stage) in view.items():
        assert owner[(x, y)].colour is colour
        for n in ((x + 1, y), (x, y + 1)):
            if n in view:
                # Same colour side by side: same area; different colours: different areas.
                assert (owner[n] is owner[(x, y)]) == (view[n][0] is colour)
    assert sum(a.icons for a in found) == sum(1 for v in view.values() if v[1])
    # Icons on blocks entirely hidden by higher stages do not show.
    shown = sum(len(pd.domino.a.icons) + len(pd.domino.b.icons) for pd in p.placed)
    assert sum(a.icons for a in found) <= shown


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_the_camera_explains_random_placements_on_every_stage(seed: int) -> None:
    p = random_pyramid(seed)
    options = legal_placements(p)
    if not options:
        return
    rng = random.Random(seed)
    d = generate_deck(seed + 1)[0]
    placement = rng.choice(options)
    after = observed(p.place(d, placement))
    try:
        found = explain_placement(p, d, observed(p), after)
    except AmbiguousActionError:
        # Two placements that look the same from above are asked about, never resolved to one of them.
        alike = [q for q in options if observed(p.place(d, q)) == after]
        assert placement in alike and len(alike) > 1
        return
    assert observed(p.place(d, found)) == after
    assert [q for q in options if observed(p.place(d, q)) == after] == [found]


def test_an_area_spanning_three_stages_by_hand() -> None:
    # EXAMPLE_23 under a stage 2 of 6 plain blue dominoes: the stage-2 blue (48 quarter cells) joins the
    # visible top row of the stage-1 blue area (4,0)..(7,0) and the corner quadrant (7,1); the stage-1 blue
    # icon at (4,0) shows, the one at (4,1) is covered.
    p = full_stage(3)
    blue = find_area(areas(p), (4, 0))
    assert blue is not None and (len(blue.cells), blue.icons) == (48 + 5, 1)
    green_corner = find_area(areas(p), (7, 2))  # the lone green block (3,1): only its right column shows
    assert green_corner is not None and green_corner.cells == frozenset({(7, 2), (7, 3)}) and green_corner.icons == 0
    # A blue stage-3 domino with an icon on the blue: same cells, one more icon.
    p = p.place(parse_domino("b1-b"), Placement.parse("s3 0,0 E"))
    blue = find_area(areas(p), (4, 0))
    assert blue is not None and (len(blue.cells), blue.icons) == (53, 2)
    # A red stage-3 domino on top makes a red island of 8 quarter cells with its 2 icons.
    p = p.place(parse_domino("r0-r0"), Placement.parse("s3 0,1 S"))
    found = areas(p)
    red = find_area(found, (2, 4))
    blue = find_area(found, (4, 0))
    assert red is not None and (len(red.cells), red.icons) == (8, 2)
    assert blue is not None and (len(blue.cells), blue.icons) == (53 - 8, 2)
