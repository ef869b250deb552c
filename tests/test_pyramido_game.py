"""Pyramido as a game: set-up, turns, chance as actions, lost turns, stage ends, tie rules, solo against the
Legend, JSON, defects, seeded random games and move-count data files."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from engine import find_game
from engine.errors import IllegalActionError, InvalidActionError, InvalidStateError
from engine.pyramido import (
    AreaActivation,
    Pyramid,
    legal_placements,
    legend_search,
    parse_back,
    parse_domino,
    parse_gems,
)
from engine.pyramido.dominoes import NO_GEMS, Gem, gems_add, gems_sub
from engine.pyramido.exploration import Space
from engine.pyramido.game import (
    LEGEND,
    Activate,
    Discard,
    Draw,
    EndScoring,
    Flip,
    LegendState,
    PendingKind,
    Phase,
    Place,
    Pyramido,
    PyramidoState,
    Reveal,
    Take,
    known_top,
    parse_action,
    pile_back,
)
from engine.pyramido.geometry import PlacedDomino, Placement
from engine.pyramido.legend import legend_stage_score
from engine.simulate import play
from tests.test_pyramido_rules import CARL, CARL_SCORING, CARL_STAGE_END, EXAMPLE_23

G = find_game("pyramido")
assert isinstance(G, Pyramido)
DATA = Path(__file__).parent / "data" / "pyramido"

GAPS = (  # a 5x4 stage 1 with holes at (4,0) and (0,3): no room
    "r-r @ s1 0,0 E", "r-r @ s1 2,0 E", "r-r @ s1 0,1 E", "r-r @ s1 2,1 E", "r-r @ s1 4,1 S",
    "r-r @ s1 0,2 E", "r-r @ s1 2,2 E", "r-r @ s1 1,3 E", "r-r @ s1 3,3 E",
)  # fmt: skip


# --- helpers --------------------------------------------------------------------------------------


def resolve(state: PyramidoState, rng: random.Random | None = None) -> PyramidoState:
    """Resolve pending chance: the first gem kind in the bag, and the domino ``o0-b1`` for reveals."""
    while state.pending:
        head = state.pending[0]
        if rng is not None:
            state = G.apply(state, G.random_chance(state, rng))
        elif head.kind in (PendingKind.GEM_TO_SPACE, PendingKind.GEM_TO_LEGEND):
            state = G.apply(state, Draw(next(g for g in Gem if state.bag[g.index])))
        else:
            state = G.apply(state, Reveal(parse_domino("o0-b1")))
    return state


def table(names: list[str], pyramids: dict[int, tuple[str, ...]] | None = None, **changes: object) -> PyramidoState:
    """A set-up table (seeded gems, unknown deck) with the given pyramids, dominoes taken from the piles."""
    state = resolve(G.setup(names), random.Random(7))
    explorers = list(state.explorers)
    spaces = list(state.spaces)
    for seat, texts in (pyramids or {}).items():
        explorers[seat] = replace(explorers[seat], pyramid=Pyramid.build(1, texts))
        need = len(texts)
        for i in (1, 3, 0, 2, 4):
            k = min(need, spaces[i].face_down - 1)
            spaces[i] = replace(spaces[i], face_down=spaces[i].face_down - k)
            need -= k
    state = replace(state, explorers=tuple(explorers), spaces=tuple(spaces))
    state = replace(state, **changes)
    assert G.defects(state) == []
    return state


def give(state: PyramidoState, seat: int, gems: str) -> PyramidoState:
    """Move gems from the bag into a player's inventory."""
    g = parse_gems(gems)
    e = state.explorers[seat]
    explorers = (*state.explorers[:seat], replace(e, inventory=gems_add(e.inventory, g)), *state.explorers[seat + 1 :])
    return replace(state, bag=gems_sub(state.bag, g), explorers=explorers)


def turn(state: PyramidoState, placement: str, space: int | None = None) -> PyramidoState:
    """Play one whole turn: take from ``space`` (default: first face-up) the first gem, flip, place."""
    legal = G.legal_actions(state)
    takes = [a for a in legal if isinstance(a, Take) and (space is None or a.space == space)]
    state = resolve(G.apply(state, takes[0]))
    if state.phase is Phase.FLIP:
        state = resolve(G.apply(state, G.legal_actions(state)[0]))
    return resolve(G.apply(state, Place(Placement.parse(placement))))


# --- set-up and a turn ----------------------------------------------------------------------------


def test_table_set_up_is_chance_pending_then_seeded() -> None:
    state = G.initial_state(["Ann", "Bob"])
    status = G.status(state)
    assert status.awaiting == "chance" and status.to_move is None and G.legal_actions(state) == []
    assert [p.kind for p in state.pending].count(PendingKind.GEM_TO_SPACE) == 15
    assert [p.target for p in state.pending if p.kind is PendingKind.DOMINO_TO_PILE] == [1, 3, 5]
    with pytest.raises(IllegalActionError, match="a gem is awaited"):
        G.apply(state, Reveal(parse_domino("r0-b1")))
    with pytest.raises(IllegalActionError, match="chance is awaited first"):
        G.apply(state, Flip(2))
    seeded = G.initial_state(["Ann", "Bob"], seed=5)
    assert seeded == G.initial_state(["Ann", "Bob"], seed=5)
    assert [s.face_up is not None for s in seeded.spaces] == [True, False, True, False, True]
    assert all(sum(s.gems) == 3 for s in seeded.spaces) and sum(seeded.bag) == 57 - 15
    assert [s.size for s in seeded.spaces] == [18] * 5
    assert G.status(seeded).to_move == "Ann" and G.status(seeded).phase == "stage 1: take"


def test_draws_must_come_from_the_bag() -> None:
    state = G.setup(["Ann", "Bob"])
    for _ in range(8):
        state = G.apply(state, Draw(Gem.RED))
    with pytest.raises(IllegalActionError, match="the bag holds no red gem"):
        G.apply(state, Draw(Gem.RED))


def test_a_whole_turn_and_the_next_player() -> None:
    state = G.initial_state(["Ann", "Bob"], seed=3)
    take = next(a for a in G.legal_actions(state) if isinstance(a, Take) and a.space == 3)
    state = G.apply(state, take)
    assert state.holding is not None and sum(state.explorers[0].inventory) == 1
    assert state.phase is Phase.FLIP
    assert G.legal_actions(state) == [Flip(2), Flip(3), Flip(4)]
    state = G.apply(state, Flip(3))
    assert G.status(state).awaiting == "chance"
    state = G.apply(state, G.random_chance(state, random.Random(1)))
    assert sum(1 for s in state.spaces if s.face_up is not None) == 3
    assert len(G.legal_actions(state)) == 4
    state = G.apply(state, Place(Placement.parse("s1 0,0 S")))
    assert G.status(state).to_move == "Bob" and state.phase is Phase.TAKE


def test_take_errors_name_the_problem() -> None:
    state = G.initial_state(["Ann", "Bob"], seed=3)
    with pytest.raises(IllegalActionError, match="space 2 has no face-up domino"):
        G.apply(state, Take(2, Gem.RED))
    missing = next(g for g in Gem if not state.spaces[0].gems[g.index])
    with pytest.raises(IllegalActionError, match=f"space 1 has no {missing.value} gem"):
        G.apply(state, Take(1, missing))
    gem = next(g for g in Gem if state.spaces[0].gems[g.index])
    with pytest.raises(IllegalActionError, match="pile 1 is not empty"):
        G.apply(state, Take(1, gem, 2))
    with pytest.raises(IllegalActionError, match="take one gem"):
        G.apply(state, Take(1, None))
    with pytest.raises(IllegalActionError, match="not legal now"):
        G.apply(state, Place(Placement.parse("s1 0,0 E")))


@pytest.mark.parametrize(("rule", "moved"), [("floor", 3), ("ceil", 4)])
def test_an_emptied_pile_takes_the_bottom_half_of_another(rule: str, moved: int) -> None:
    state = table(["Ann", "Bob"], options={**G.resolve_options(), "pile_refill": rule})
    spaces = list(state.spaces)
    # Pile 1: only its face-up domino; pile 4 gets 7 dominoes (6 face down + 1 face up is not needed).
    extra = spaces[0].face_down + spaces[3].face_down - 7
    spaces[0] = replace(spaces[0], face_down=0)
    spaces[3] = replace(spaces[3], face_down=7)
    spaces[1] = replace(spaces[1], face_down=spaces[1].face_down + extra)
    state = replace(state, spaces=tuple(spaces))
    assert G.defects(state) == []
    gem = next(g for g in Gem if state.spaces[0].gems[g.index])
    with pytest.raises(IllegalActionError, match="pile 1 is now empty; say which pile refills it"):
        G.apply(state, Take(1, gem))
    assert Take(1, gem, 4) in G.legal_actions(state)
    after = G.apply(state, Take(1, gem, 4))
    assert (after.spaces[0].face_down, after.spaces[3].face_down) == (moved, 7 - moved)


# --- the backs of face-down dominoes --------------------------------------------------------------


def _to_flip(state: PyramidoState, space: int = 1) -> PyramidoState:
    """Take space ``space``'s domino with its first gem: the flip comes next."""
    take = next(a for a in G.legal_actions(state) if isinstance(a, Take) and a.space == space)
    state = resolve(G.apply(state, take))
    assert state.phase is Phase.FLIP
    return state


def test_back_text_and_matching() -> None:
    back = parse_back("r1-b1")
    assert str(back) == "b1-r1" and back == parse_back("b1-r1")  # a back does not say which block is A
    assert parse_domino("r3-b0").back() == back == parse_domino("b2-r1").back()
    assert parse_domino("r03-b").back() != back
    with pytest.raises(InvalidActionError, match="shows 3 gem icons; every domino has 2"):
        parse_back("r2-b1")
    with pytest.raises(InvalidActionError, match="'x1-b1' is not two blocks"):
        parse_back("x1-b1")
    flip = Flip(2, back)
    assert parse_action(str(flip)) == flip and str(flip) == "flip 2 b1-r1"
    assert G.action_from_json(G.action_to_json(flip)) == flip


def test_table_game_a_reveal_against_the_back_seen_is_a_misread() -> None:
    state = _to_flip(table(["Ann", "Bob"]))  # unknown deck: the device knows only what it saw
    assert G.legal_actions(state) == [Flip(1), Flip(2), Flip(4)]
    flipped = G.apply(state, G.parse_action("flip 2 r1-b1"))
    assert str(flipped.spaces[1].back) == "b1-r1" and flipped.pending[0].target == 2
    with pytest.raises(
        IllegalActionError, match=r"misread\? pile 2's top showed the back b1-r1 .* r03-b has the back b0-r2"
    ):
        G.apply(flipped, Reveal(parse_domino("r03-b")))
    revealed = G.apply(flipped, Reveal(parse_domino("b2-r1")))  # turned round: still the back seen
    assert revealed.spaces[1].face_up == parse_domino("b2-r1") and revealed.spaces[1].back is None
    # Without a back seen, any domino is accepted (the device may not have seen it).
    assert G.apply(G.apply(state, Flip(2)), Reveal(parse_domino("r03-b"))).spaces[1].face_up is not None
    # The simulator's chance respects a back seen on the table.
    rng = random.Random(5)
    assert all(G.random_chance(flipped, rng).domino.back() == parse_back("r1-b1") for _ in range(20))  # type: ignore[union-attr]


def test_table_game_backs_observed_by_the_camera() -> None:
    state = table(["Ann", "Bob"])
    seen = G.observe_back(state, 4, parse_back("g0-g2"))
    assert str(seen.spaces[3].back) == "g0-g2" and G.defects(seen) == []
    assert G.observe_back(seen, 4, parse_back("g2-g0")) == seen  # the same back again
    with pytest.raises(IllegalActionError, match="a misread\\? pile 4's top was seen as the back g0-g2"):
        G.observe_back(seen, 4, parse_back("o1-g1"))
    with pytest.raises(IllegalActionError, match=r"that pile shows the face-up .*, not a back"):
        G.observe_back(state, 1, parse_back("g0-g2"))
    with pytest.raises(InvalidActionError, match="pile 6 is not 1-5"):
        G.observe_back(state, 6, parse_back("g0-g2"))
    seen = _to_flip(seen, space=1)
    with pytest.raises(IllegalActionError, match="a misread\\? pile 4's top was seen as the back g0-g2"):
        G.apply(seen, G.parse_action("flip 4 o1-g1"))
    with pytest.raises(IllegalActionError, match="pile 4's top showed the back g0-g2"):
        G.apply(G.apply(seen, Flip(4)), Reveal(parse_domino("o0-g0")))
    # A back recorded on a pile that shows none is a defect of a state read from the camera.
    broken = replace(state, spaces=(replace(state.spaces[0], back=parse_back("g0-g2")), *state.spaces[1:]))
    assert any("pile 1 has a back g0-g2 recorded but shows no back" in d for d in G.defects(broken))


def test_simulator_knows_the_backs_and_reveals_the_top() -> None:
    state = G.initial_state(["Ann", "Bob"], seed=3)
    assert state.unseen is not None
    backs = {p: pile_back(state, p) for p in (2, 4)}
    assert all(b is not None for b in backs.values()) and pile_back(state, 1) is None  # pile 1 is face up
    assert G.observe_back(state, 2, backs[2]) == state  # nothing new to the simulator
    wrong = next(d for d in state.unseen if d.back() != backs[2])
    with pytest.raises(IllegalActionError, match=f"a misread\\? pile 2's top the known deck has the back {backs[2]}"):
        G.observe_back(state, 2, wrong.back())
    state = _to_flip(state)
    with pytest.raises(IllegalActionError, match="a misread"):
        G.apply(state, Flip(2, wrong.back()))
    flipped = G.apply(state, Flip(2, backs[2]))
    top = known_top(state, 2)
    assert top is not None and G.random_chance(flipped, random.Random(0)) == Reveal(top)
    with pytest.raises(IllegalActionError, match="misread\\? pile 2's top showed the back"):
        G.apply(flipped, Reveal(wrong))
    other = next((d for d in state.unseen if d.back() == backs[2] and d != top), None)
    if other is not None:  # the right back but not the deck's top
        with pytest.raises(IllegalActionError, match=f"pile 2's top is {top} in the known deck, not {other}"):
            G.apply(flipped, Reveal(other))
    assert G.apply(flipped, Reveal(top)).spaces[1].face_up == top


@pytest.mark.parametrize("players", [1, 2, 4])
def test_seeded_games_reveal_the_back_shown_before_the_flip(players: int) -> None:
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    playout = play(G, names, seed=11 + players)
    flips = 0
    for before, action, after in zip(playout.states, playout.actions, playout.states[1:], strict=False):
        if isinstance(action, Flip):
            shown = pile_back(before, action.pile)
            assert shown is not None
            revealed = G.random_chance(after, random.Random(0))
            assert isinstance(revealed, Reveal) and revealed.domino.back() == shown
            flips += 1
    assert flips >= 15  # a player flips on most turns (20 per game)


def test_an_emptied_pile_gets_the_bottom_dominoes_of_the_known_deck() -> None:
    state = G.initial_state(["Ann", "Bob"], seed=3)
    assert state.unseen is not None
    spaces = list(state.spaces)
    # Pile 1 holds only its face-up domino; its face-down dominoes go to the bottom of pile 2.
    spaces[1] = replace(spaces[1], face_down=spaces[1].face_down + spaces[0].face_down)
    spaces[0] = replace(spaces[0], face_down=0)
    state = replace(state, spaces=tuple(spaces))
    assert G.defects(state) == []
    pile2 = state.unseen[: spaces[1].face_down]
    gem = next(g for g in Gem if state.spaces[0].gems[g.index])
    after = G.apply(state, Take(1, gem, 2))
    k = after.spaces[0].face_down
    assert k == (spaces[1].face_down) // 2
    assert known_top(after, 1) == pile2[-k] and known_top(after, 2) == pile2[0]
    assert after.unseen is not None and after.unseen[:k] == pile2[-k:]


# --- lost turns, stage ends, tie rules ------------------------------------------------------------


def test_a_player_without_room_loses_the_turn_and_the_others_go_on() -> None:
    state = table(["Ann", "Bob"], {0: GAPS, 1: EXAMPLE_23[:8]}, turn=1)  # Bob's row 4 is empty
    assert G.status(state).to_move == "Bob"
    state = turn(state, "s1 2,4 E")
    ann = state.explorers[0]
    assert ann.complete and ann.lost_turns == 1 and ann.inventory == NO_GEMS  # no domino, no gem
    assert G.status(state).to_move == "Bob" and state.phase is Phase.TAKE  # Bob goes again
    assert [str(p) for p in legal_placements(state.explorers[1].pyramid)] == ["s1 0,4 E", "s1 1,4 W"]
    state = turn(state, "s1 1,4 W")
    # Both stages are complete: scoring starts, in this stage's turn order.
    assert state.phase is Phase.SCORE and G.status(state).phase == "stage 1: score"
    assert G.status(state).to_move == "Ann"
    assert state.explorers[1].lost_turns == 1


@pytest.mark.parametrize(("order", "starter"), [((1, 2, 0), "Carl"), ((2, 1, 0), "Marc")])
def test_lowest_stage_score_starts_next_stage_ties_to_the_earliest(order: tuple[int, ...], starter: str) -> None:
    state = table(["Ann", "Carl", "Marc"], {0: EXAMPLE_23, 1: EXAMPLE_23, 2: EXAMPLE_23}, order=order, turn=0)
    state = give(give(give(state, 0, "m2"), 1, "m1"), 2, "m1")
    state = G._advance(state, 0)  # nobody has room: straight to scoring
    assert state.phase is Phase.SCORE
    for _ in range(3):
        state = G.apply(state, EndScoring())
    assert [e.stage_scores for e in state.explorers] == [(2,), (1,), (1,)]
    assert state.stage == 2 and G.status(state).to_move == starter
    names = [state.explorers[s].name for s in state.order]
    assert names[0] == starter and len(names) == 3  # then clockwise from the starter


def test_scoring_activations_discards_and_the_inventory_limit() -> None:
    state = table(["Ann", "Bob"], {0: EXAMPLE_23, 1: EXAMPLE_23})
    state = give(give(state, 0, "o3 b1 p1 g1 r1 m1"), 1, "m3 r2 b2")
    state = G._advance(state, 0)
    ann = [
        "activate 0,4 1c0m", "activate 4,0 1c0m", "activate 4,4 1c0m", "activate 0,0 1c0m", "activate 2,6 3c0m",
    ]  # fmt: skip
    for text in ann:
        state = G.apply(state, G.parse_action(text))
    with pytest.raises(IllegalActionError, match="already activated"):
        G.apply(state, G.parse_action("activate 0,0 0c2m"))
    with pytest.raises(IllegalActionError, match="needs r1 for the red area but Ann holds m1"):
        G.apply(state, G.parse_action("activate 4,8 1c0m"))
    with pytest.raises(InvalidActionError, match="not an allowed mix"):
        G.apply(state, G.parse_action("activate 4,8 0c1m"))
    state = G.apply(state, EndScoring())
    assert state.explorers[0].stage_scores == (23,)  # the rulebook's stage-1 example
    assert G.status(state).to_move == "Bob"
    state = G.apply(state, EndScoring())  # Bob places nothing: 3 mythical left = 3 points, 7 gems
    assert state.explorers[1].stage_scores == (3,)
    assert G.status(state).phase == "stage 1: discard" and G.status(state).to_move == "Bob"
    assert all(isinstance(a, Discard) for a in G.legal_actions(state))
    with pytest.raises(IllegalActionError, match="holds no orange gem"):
        G.apply(state, Discard(Gem.ORANGE))
    state = G.apply(G.apply(state, Discard(Gem.RED)), Discard(Gem.BLUE))
    assert state.stage == 2 and sum(state.explorers[1].inventory) == 5
    assert G.status(state).to_move == "Bob"  # 3 points is the lowest
    assert G.defects(state) == []


def test_rulebook_scoring_examples_stage_after_stage_in_a_game() -> None:
    """Carl plays the rulebook's four scoring examples in one game: 23, 20, 21 and 14 points.

    His pyramid grows by legal placements between scorings (turns are tested above); each stage he holds
    the rulebook's inventory, takes the optimiser's advice, and the game's stage-end scoring counts it.
    Ann has the same pyramid and places nothing, so she scores 0 and starts every next stage.
    """
    state = table(["Ann", "Carl"], {0: CARL[:10], 1: CARL[:10]})
    for stage in (1, 2, 3, 4):
        _view, inventory, expected, _left, total = CARL_SCORING[stage]
        if stage > 1:
            texts = CARL[CARL_STAGE_END[stage - 1] : CARL_STAGE_END[stage]]
            explorers = list(state.explorers)
            for seat in (0, 1):
                p = explorers[seat].pyramid
                for pd in map(PlacedDomino.parse, texts):
                    p = p.place(pd.domino, pd.placement)
                explorers[seat] = replace(explorers[seat], pyramid=p)
            spaces = list(state.spaces)
            need = 2 * len(texts)  # the dominoes came from the piles
            for i in range(5):
                k = min(need, spaces[i].face_down - 1)
                spaces[i] = replace(spaces[i], face_down=spaces[i].face_down - k)
                need -= k
            state = replace(state, explorers=tuple(explorers), spaces=tuple(spaces))
        # Carl's inventory this stage is the rulebook's: what he kept goes back to the bag first.
        carl_now = state.explorers[1]
        state = replace(
            state,
            bag=gems_add(state.bag, carl_now.inventory),
            explorers=(state.explorers[0], replace(carl_now, inventory=NO_GEMS)),
        )
        state = G._advance(give(state, 1, inventory), 0)  # neither has room: stage-end scoring
        assert G.defects(state) == [] and state.phase is Phase.SCORE and state.stage == stage
        assert G.status(state).to_move == "Ann"
        state = G.apply(state, EndScoring())  # Ann places nothing
        advice = G.advice(state)
        assert advice.points == total
        chosen = [Activate(AreaActivation(anchor, coloured, 0)) for anchor, _c, _i, coloured in expected]
        assert sorted(advice.activations, key=str) == sorted((a.activation for a in chosen), key=str)
        for action in [*chosen, EndScoring()]:
            state = G.apply(state, G.parse_action(str(action)))
        assert state.explorers[1].stage_scores[-1] == total
        if stage < 4:
            assert state.stage == stage + 1 and G.status(state).to_move == "Ann"  # 0 points: she starts
    assert state.explorers[1].stage_scores == (23, 20, 21, 14)
    assert G.status(state).finished and G.status(state).winners == ("Carl",)
    assert G.score(state).players["Carl"].total == 78


def test_end_of_game_tie_breaks() -> None:
    base = replace(table(["Ann", "Bob", "Cy"]), phase=Phase.OVER, stage=4)

    def over(*players: tuple[tuple[int, ...], str]) -> tuple[str, ...]:
        explorers = tuple(
            replace(e, stage_scores=scores, inventory=parse_gems(gems))
            for e, (scores, gems) in zip(base.explorers, players, strict=True)
        )
        return G.winners(replace(base, explorers=explorers))

    assert over(((5, 5, 5, 5), ""), ((5, 5, 5, 6), ""), ((1, 1, 1, 1), "m5")) == ("Bob",)
    assert over(((5, 5, 5, 5), "r1"), ((5, 5, 5, 5), "r1 b1"), ((1, 1, 1, 1), "")) == ("Bob",)  # most gems
    assert over(((2, 8, 5, 5), "r1"), ((5, 5, 5, 5), "b1"), ((1, 1, 1, 1), "")) == ("Ann",)  # best stage
    assert over(((5, 5, 5, 5), "r1"), ((5, 5, 5, 5), "b1"), ((1, 1, 1, 1), "")) == ("Ann", "Bob")  # shared


# --- solo: the Legend -----------------------------------------------------------------------------


def _spaces(*spec: tuple[bool, str]) -> tuple[Space, ...]:
    return tuple(Space(5, parse_domino("o-o01") if up else None, parse_gems(g)) for up, g in spec)


@pytest.mark.parametrize(
    ("wants", "spaces", "taken", "domino_space", "random_gem"),
    [
        # two coloured gems from the first space, even a pair of one colour
        ("r0-b0", [(True, "r1 b1 m1"), (False, ""), (True, "r1"), (False, ""), (True, "")], "1r 1b", 1, False),
        ("r01-b", [(True, "r2 m1"), (False, ""), (True, "r1"), (False, ""), (True, "")], "1r 1r", 1, False),
        # one from each of two spaces; the domino comes from the space of the last gem
        ("r01-b", [(True, "r1 b2"), (False, "r2"), (True, "r1 m1"), (False, ""), (True, "")], "1r 3r", 3, False),
        # face-down spaces are not searched; one coloured, then one mythical from the leftmost space with one
        ("r0-b0", [(True, "m1 g2"), (False, "r1 b1"), (True, "b1"), (False, ""), (True, "m1")], "3b 1m", 1, False),
        # no coloured match: two mythical, one from each space
        ("r0-b0", [(True, "g3"), (False, "m3"), (True, "m1 o2"), (False, ""), (True, "m2")], "3m 5m", 5, False),
        # no coloured match, only one mythical anywhere: he takes just that one
        ("r0-b0", [(True, "g3"), (False, "m3"), (True, "o3"), (False, ""), (True, "m1 g2")], "5m", 5, False),
        # nothing at all: the leftmost face-up domino and a random gem
        ("r0-b0", [(False, "r3"), (True, "g3"), (True, "o3"), (False, ""), (True, "p2")], "", 2, True),
    ],
)
def test_legend_search_every_branch(
    wants: str, spaces: list[tuple[bool, str]], taken: str, domino_space: int, random_gem: bool
) -> None:
    result = legend_search(_spaces(*spaces), parse_domino(wants))
    assert " ".join(f"{s}{g.letter}" for s, g in result.gems) == taken
    assert (result.domino_space, result.draws_random_gem) == (domino_space, random_gem)


def test_legend_wants_icon_colours_not_block_colours() -> None:
    # A blue block with both icons and a red block with none: he wants blue, blue.
    spaces = _spaces((True, "r2 b1"), (False, ""), (True, "b1"), (False, ""), (True, ""))
    result = legend_search(spaces, parse_domino("b03-r"))
    assert [(s, g.letter) for s, g in result.gems] == [(1, "b"), (3, "b")]


def test_legend_turn_follows_each_player_turn_and_the_stage_completing_one() -> None:
    state = table(["Solo"], {0: EXAMPLE_23[:9]})
    assert state.legend is not None and len(state.legend.pile) == 1
    before = state
    state = G.apply(state, G.legal_actions(state)[0])
    state = resolve(state)
    if state.phase is Phase.FLIP:
        state = resolve(G.apply(state, G.legal_actions(state)[0]))
    predicted = legend_search(state.spaces, state.legend.pile[-1] if state.legend else None)
    state = G.apply(state, Place(Placement.parse("s1 2,4 E")))  # completes the stage
    assert state.legend is not None and len(state.legend.pile) == 2
    assert sum(state.legend.inventory) == max(1, len(predicted.gems)) - (1 if predicted.draws_random_gem else 0)
    state = resolve(state)
    assert state.phase is Phase.SCORE and sum(state.legend.inventory) == max(1, len(predicted.gems))
    assert state.explorers[0].lost_turns == 1 and before.explorers[0].lost_turns == 0
    assert G.defects(state) == []


def test_legend_scoring_keeps_mythical_gems_and_discards_coloured() -> None:
    assert legend_stage_score(parse_gems("r2 b2 o1 m6"), 3) == 27  # the rulebook example: 15 + 12
    state = table(["Solo"], {0: EXAMPLE_23})
    legend_gems = parse_gems("r2 b2 o1 m6")
    state = replace(state, bag=gems_sub(state.bag, legend_gems), legend=replace(state.legend, inventory=legend_gems))
    state = G._advance(state, 0)
    state = G.apply(state, EndScoring())
    assert state.legend is not None and state.legend.stage_scores == (5 + 12,)
    assert state.legend.inventory == parse_gems("m6") and state.discards == parse_gems("r2 b2 o1")
    assert state.stage == 2 and G.status(state).to_move == "Solo" and not state.pending
    assert G.score(state).totals() == {"Solo": 0, LEGEND: 17}


@pytest.mark.parametrize(("mode", "draws"), [("a-legend", 0), ("the-legend", 1)])
def test_the_legend_draws_a_gem_at_stage_start_with_seven_mythical(mode: str, draws: int) -> None:
    state = table(["Solo"], {0: EXAMPLE_23}, options={**G.resolve_options(), "legend": mode})
    legend_gems = parse_gems("m7")
    state = replace(state, bag=gems_sub(state.bag, legend_gems), legend=replace(state.legend, inventory=legend_gems))
    state = G.apply(G._advance(state, 0), EndScoring())
    assert [p.kind for p in state.pending] == [PendingKind.GEM_TO_LEGEND] * draws
    state = resolve(state)
    assert state.legend is not None and sum(state.legend.inventory) == 7 + draws


def test_the_legend_wins_ties() -> None:
    state = replace(table(["Solo"]), phase=Phase.OVER, stage=4)
    state = replace(
        state,
        explorers=(replace(state.explorers[0], stage_scores=(5, 5, 5, 5)),),
        legend=LegendState(state.legend.pile if state.legend else (), NO_GEMS, (5, 5, 5, 5)),
    )
    assert G.winners(state) == (LEGEND,)
    state = replace(state, explorers=(replace(state.explorers[0], stage_scores=(5, 5, 5, 6)),))
    assert G.winners(state) == ("Solo",)


def test_the_name_legend_is_taken_in_solo() -> None:
    with pytest.raises(InvalidActionError, match="solo opponent"):
        G.initial_state([LEGEND])
    with pytest.raises(InvalidActionError, match="takes 1 to 4 players"):
        G.initial_state(["a", "b", "c", "d", "e"])


# --- text, JSON and defects -----------------------------------------------------------------------


def test_actions_print_as_text_that_rebuilds_them_and_json_round_trips() -> None:
    playout = play(G, ["Ann", "Bob"], seed=11)
    for action in playout.actions:
        assert parse_action(str(action)) == action
        assert G.action_from_json(G.action_to_json(action)) == action
    for state in playout.states[::40]:
        text = G.state_to_json(state)
        again = G.state_from_json(text)
        assert again == state and G.state_to_json(again) == text
        assert G.status(again) == G.status(state)
    for bad, needle in (("jump 3", "does not start with"), ("take x r", "malformed"), ("reveal r9-b", "'r9'")):
        with pytest.raises(InvalidActionError, match=needle):
            G.parse_action(bad)
    with pytest.raises(InvalidActionError, match="fits no action"):
        G.action_from_json('{"hop": {}}')
    with pytest.raises(InvalidActionError, match="'hop' is not one of take, flip"):
        G.action_from_json('{"kind": "hop"}')


def test_defects_of_a_state_read_from_json() -> None:
    state = G.initial_state(["Ann", "Bob"], seed=2)
    data = json.loads(G.state_to_json(state))
    data["bag"][0] += 1
    data["spaces"][1]["face_down"] -= 1
    data["explorers"][0]["pyramid"]["placed"] = [
        {"domino": data["spaces"][0]["face_up"], "placement": {"stage": 1, "x": 3, "y": 3, "direction": "E"}}
    ]
    bad = G.state_from_json(json.dumps(data))
    defects = G.status(bad).defects
    assert any("gems do not add up" in d for d in defects)
    assert any("the first domino's block A goes on 0,0" in d for d in defects)
    assert G.status(bad).to_move is None
    with pytest.raises(InvalidStateError, match="inconsistent"):
        G.check_state(bad)
    with pytest.raises(InvalidStateError, match="stage"):
        G.state_from_json(G.state_to_json(state).replace('"stage":1', '"stage":"one"', 1))


# --- seeded random games --------------------------------------------------------------------------


def _check_invariants(state: PyramidoState) -> None:
    total = gems_add(state.bag, state.discards)
    for s in state.spaces:
        total = gems_add(total, s.gems)
    for e in state.explorers:
        total = gems_add(total, e.inventory)
        for k, cap in enumerate((10, 6, 3, 1), start=1):
            assert e.pyramid.stage_count(k) <= cap
    if state.legend is not None:
        total = gems_add(total, state.legend.inventory)
    assert total == state.supply
    if state.phase is Phase.TAKE and not state.pending:
        assert sum(1 for s in state.spaces if s.face_up is not None) == 3
    if state.stage >= 2:
        for e in state.explorers:
            frame = e.pyramid.frame
            assert frame is not None and {frame.width, frame.height} == {4, 5}


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_seeded_random_games_keep_the_invariants(players: int) -> None:
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    games = {1: 300, 2: 300, 3: 200, 4: 200}[players]  # 1000 games in all
    for seed in range(games):
        playout = play(G, names, seed=seed, keep_states=seed % 25 == 0)
        final = playout.final
        status = G.status(final)
        assert status.finished and status.winners and G.defects(final) == []
        assert all(len(e.stage_scores) == 4 for e in final.explorers)
        totals = G.score(final).totals()
        assert all(totals[e.name] == sum(e.stage_scores) for e in final.explorers)
        if players == 1:
            assert final.legend is not None and len(final.legend.stage_scores) == 4
        _check_invariants(final)
        for state in playout.states[::7] if len(playout.states) > 1 else ():
            _check_invariants(state)
            assert G.defects(state) == []


def test_move_count_data_file() -> None:
    """Counts pinned from fixed positions: placements per stage and legal actions along seeded games."""
    data = json.loads((DATA / "move_counts.json").read_text())
    for case in data["placements"]:
        pyramid = Pyramid.build(case["stage"], case["placed"])
        assert len(legal_placements(pyramid)) == case["count"], case["name"]
    for case in data["playouts"]:
        playout = play(G, case["players"], seed=case["seed"], options=case.get("options"))
        counts = [len(G.legal_actions(s)) for s in playout.states[: len(case["legal_counts"])]]
        assert counts == case["legal_counts"], case["name"]


# --- what the device asks -------------------------------------------------------------------------


def test_advice_applied_as_actions_scores_what_it_promised() -> None:
    state = table(["Ann", "Bob"], {0: EXAMPLE_23, 1: EXAMPLE_23})
    state = give(give(state, 0, "o3 b1 p1 g1 r1 m1"), 1, "r2 m2")
    state = G._advance(state, 0)
    for seat in (0, 1):
        advice = G.advice(state)
        for action in G.activation_actions(advice):
            state = G.apply(state, action)
        assert state.explorers[seat].stage_scores == (advice.points,)
    assert [e.stage_scores for e in state.explorers] == [(23,), (4 + 2 + 5,)]  # Bob: both reds, m2 on orange
    with pytest.raises(IllegalActionError, match="no player is placing gems"):
        G.advice(state)


def test_the_camera_view_becomes_a_place_action() -> None:
    from engine.pyramido.observe import observed

    state = table(["Ann", "Bob"], {0: EXAMPLE_23[:9]})
    state = resolve(G.apply(state, G.legal_actions(state)[0]))
    state = resolve(G.apply(state, G.legal_actions(state)[0]))
    assert state.phase is Phase.PLACE and state.holding is not None
    pyramid = state.explorers[0].pyramid
    target = Placement.parse("s1 3,4 W")
    after = observed(pyramid.place(state.holding, target))
    action = G.explain_place(state, observed(pyramid), after)
    assert observed(G.apply(state, action).explorers[0].pyramid) == after


def test_a_misread_domino_and_a_broken_state_are_refused() -> None:
    state = G.setup(["Ann", "Bob"])
    for _ in range(15):
        state = G.apply(state, Draw(next(g for g in Gem if state.bag[g.index])))
    with pytest.raises(IllegalActionError, match="exactly 2 gem icons, r0-b shows 1"):
        G.apply(state, Reveal(parse_domino("r0-b")))
    broken = replace(state, bag=gems_add(state.bag, parse_gems("r1")), options={"gems": "all"})
    defects = G.status(broken).defects
    assert any("gems='all' is not one of" in d for d in defects)
    with pytest.raises(InvalidStateError, match="inconsistent"):
        G.apply(broken, Reveal(parse_domino("r0-b1")))


@pytest.mark.parametrize("players", [["Solo"], ["Ann", "Bob", "Cy"]])
def test_a_table_game_with_unknown_dominoes_plays_to_the_end(players: list[str]) -> None:
    """Tracking a real table: set-up and every reveal come in as chance actions, the deck stays unknown."""
    rng = random.Random(len(players))
    state = G.initial_state(players)  # no seed: nothing drawn yet
    assert state.unseen is None
    steps = 0
    while not G.status(state).finished:
        legal = G.legal_actions(state)
        action = G.random_chance(state, rng) if not legal else rng.choice(legal)
        state = G.apply(state, G.parse_action(str(action)))  # as text, the way the device records it
        steps += 1
        assert steps < 5000
    assert G.defects(state) == [] and G.status(state).winners
