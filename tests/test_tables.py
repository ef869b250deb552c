"""The seam: each game's table adapter on its own observations and buttons (device.tables), seeded games of
every game walked by the engine, the observations built from what the table would show."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from device.errors import SessionError
from device.session import reading
from device.tables import ADAPTER_MODULES, TableAdapter, adapter_for, catalog
from engine.game import GAME_MODULES, Game, find_game
from engine.pasa import TITLES


def walk(game: Game[Any, Any], players: tuple[str, ...], seed: int, until: Callable[[Any], bool],
         limit: int = 2000) -> Any:
    """A seeded random game from the set-up until ``until(state)`` holds (chance from the same generator)."""
    rng = random.Random(seed)
    state = game.initial_state(players, seed=seed)
    for _ in range(limit):
        if until(state):
            return state
        if game.status(state).awaiting == "chance":
            state = game.apply(state, game.random_chance(state, rng))
        else:
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    raise AssertionError("the condition was never met")


def test_a_game_without_a_reader_says_so() -> None:
    class Unread(TableAdapter):
        name = "pyradice"

    with pytest.raises(SessionError, match="cannot be read from the camera yet"):
        Unread(find_game("pyradice")).observe([], moved=True)


def test_every_game_has_an_adapter_and_a_catalog_entry() -> None:
    assert set(ADAPTER_MODULES) == set(GAME_MODULES)
    for entry in catalog():
        adapter = adapter_for(find_game(entry["name"]))
        assert isinstance(adapter, TableAdapter) and adapter.name == entry["name"] and entry["live"] == adapter.live


# --- Paša -----------------------------------------------------------------------------------------------
def tray(values: list[int], **flags: Any) -> list[Any]:
    return [reading(v, 100.0 + 100 * i, 100.0, **(flags if i == 1 else {})) for i, v in enumerate(values)]


def test_pasa_tray_explains_a_roll_and_asks_about_doubts() -> None:
    game = find_game("pasa")
    table = adapter_for(game)
    start = game.initial_state(["Anna", "Ben"])
    assert table.explain(start, table.observe(tray([1, 2, 3, 4, 5, 6]), moved=False)).actions == ()
    rolled = table.explain(start, table.observe(tray([6, 2, 3, 4, 5, 1]), moved=True))
    assert [str(a) for a in rolled.actions] == ["roll 1 2 3 4 5 6"] and not rolled.problems
    doubtful = table.observe(tray([6, 2, 3, 4, 5, 1], unsure=True), moved=True)
    assert table.explain(start, doubtful).problems == ("die 2 is hard to read (looks like 2): correct it or press "
                                                       "CONFIRM",)
    assert [str(a) for a in table.explain(start, table.correct(doubtful, 1, 3)).actions] == ["roll 1 3 3 4 5 6"]
    assert [str(a) for a in table.explain(start, table.confirm(doubtful)).actions] == ["roll 1 2 3 4 5 6"]
    assert "6 dice expected" in table.explain(start, table.observe(tray([1, 2]), moved=True)).problems[0]
    for index, value in ((6, 3), (0, 7), (0, True)):
        with pytest.raises(SessionError):
            table.correct(doubtful, index, value)


def test_pasa_buttons_cycle_categories_choose_and_end_the_turn() -> None:
    game = find_game("pasa")
    table = adapter_for(game)
    state = game.apply(game.initial_state(["Anna", "Ben"]), game.parse_action("roll 6 6 6 1 2 3"))
    said = table.button(state, "next", long=False).said
    assert said is not None and said.startswith("selected ")
    chosen = table.button(state, "confirm", long=False).action
    assert chosen is not None and said == f"selected {chosen.category}"
    assert table.button_meanings(state)["confirm"] == f"choose {TITLES[chosen.category]}"
    state = game.apply(state, chosen)
    assert str(table.button(state, "confirm", long=True).action) == "stop"
    assert table.button_meanings(state)["confirm_long"] == "end the turn and write the score"
    view = table.view(game.apply(game.initial_state(["Anna", "Ben"]), game.parse_action("roll 6 6 6 1 2 3")))
    assert view["kind"] == "pasa" and view["ranking"]
    best = view["ranking"][0]
    assert best["final"] == best["value"]  # nothing on Anna's sheet yet: the final total is the rest


# --- Pyradice -------------------------------------------------------------------------------------------
def test_pyradice_explains_a_turn_from_the_boards() -> None:
    from engine.pyradice import Observation
    from engine.pyradice.state import Phase

    game = find_game("pyradice")
    table = adapter_for(game)
    for seed in range(3):
        state = walk(game, ("Anna", "Ben"), seed, lambda s: s.phase is Phase.TAKE and len(s.mover.pyramid) >= 2)
        take = random.Random(seed).choice(game.legal_actions(state))
        taken = game.apply(state, take)
        place = game.legal_actions(taken)[0]
        after = game.apply(taken, place)
        mine = after.players[state.turn].pyramid  # the turn may have passed on already (no skill to use)
        seen = Observation(pyramid=dict(mine), quarry=dict(after.quarry.dice))
        explained = table.explain(state, seen)
        assert not explained.problems, explained.problems
        end = state
        for action in explained.actions:
            end = game.apply(end, action)
        assert end.players[state.turn].pyramid == mine and end.quarry == after.quarry
        wrong = Observation(pyramid=dict(mine), quarry=dict(state.quarry.dice))
        assert table.explain(state, wrong).problems  # nothing taken from the quarry, yet a die appeared


# --- Pyramido -------------------------------------------------------------------------------------------
def test_pyramido_explains_the_placement_of_the_domino_in_hand() -> None:
    from engine.pyramido.game import Place
    from engine.pyramido.observe import observed

    game = find_game("pyramido")
    table = adapter_for(game)
    from device.tables.pyramido import PyramidView

    for seed in range(3):
        state = walk(game, ("Anna", "Ben"), seed, lambda s: any(isinstance(a, Place) for a in game.legal_actions(s))
                     and len(s.explorers[s.order[s.turn]].pyramid.top_view) >= 8)
        seat = state.order[state.turn]
        places = [a for a in game.legal_actions(state) if isinstance(a, Place)]
        place = random.Random(seed).choice(places)
        after = game.apply(state, place)
        seen = PyramidView(seat, observed(after.explorers[seat].pyramid))
        assert table.explain(state, seen).actions == (place,) or len(
            {observed(game.apply(state, p).explorers[seat].pyramid) == seen.after for p in places}) > 1
        unchanged = PyramidView(seat, observed(state.explorers[seat].pyramid))
        assert "no change is seen" in table.explain(state, unchanged).problems[0]


def test_pyramido_a_placement_hidden_in_cells_read_unsure_is_asked_not_waited_for() -> None:
    """A domino placed where every cell it changes is read unsure looks like no change at all: the table
    then asks (naming the placements it could be) instead of waiting silently; sure cells rule it out."""
    from device.tables.pyramido import PyramidView, SeenCell, _unread_placements
    from engine.pyramido.game import Place
    from engine.pyramido.observe import observed

    game = find_game("pyramido")
    for seed in range(3):
        state = walk(game, ("Anna", "Ben"), seed, lambda s: any(isinstance(a, Place) for a in game.legal_actions(s))
                     and len(s.explorers[s.order[s.turn]].pyramid.top_view) >= 8)
        seat = state.order[state.turn]
        pyramid = state.explorers[seat].pyramid
        place = random.Random(seed).choice([a for a in game.legal_actions(state) if isinstance(a, Place)])
        before, after = observed(pyramid), observed(game.apply(state, place).explorers[seat].pyramid)
        changed = {c for c in set(before) | set(after) if before.get(c) != after.get(c)}
        cells = tuple(SeenCell(c, after.get(c), sure=c not in changed) for c in set(before) | set(after))
        hidden = PyramidView(seat, {c: v for c, v in before.items()}, cells=cells)
        assert place.placement in _unread_placements(hidden, pyramid, state.holding)
        plain = PyramidView(seat, dict(before), cells=tuple(SeenCell(c, v) for c, v in before.items()))
        assert _unread_placements(plain, pyramid, state.holding) == []


# --- Dice Treasure --------------------------------------------------------------------------------------
def test_dicetreasure_explains_dice_placed_on_the_cards() -> None:
    from device.tables.dicetreasure import CardsView
    from engine.dicetreasure.placement import target_cards
    from engine.dicetreasure.state import Phase, Place

    game = find_game("dicetreasure")
    table = adapter_for(game)
    for seed in range(3):
        state = walk(game, ("Anna", "Ben"), seed, lambda s: s.phase is Phase.TURN
                     and any(isinstance(a, Place) for a in game.legal_actions(s)))
        place = next(a for a in game.legal_actions(state) if isinstance(a, Place))
        after = game.apply(state, place)
        seen = CardsView({c.card.id: c.dice for c in target_cards(after)})
        explained = table.explain(state, seen)
        assert not explained.problems, explained.problems
        end = state
        for action in explained.actions:
            end = game.apply(end, action)
        assert {c.card.id: c.dice for c in target_cards(end)} == seen.cards
        assert table.explain(state, CardsView({c.card.id: c.dice for c in target_cards(state)})).actions == ()


# --- the generic buttons --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["pyradice", "pyramido", "dicetreasure"])
def test_board_game_buttons_point_at_and_take_legal_actions(name: str) -> None:
    game = find_game(name)
    table = adapter_for(game)
    state = walk(game, ("Anna", "Ben"), 4, lambda s: len(game.legal_actions(s)) >= 2)
    legal = game.legal(state)
    assert table.view(state)["cursor"]["text"] == legal[0].text
    said = table.button(state, "next", long=False).said
    assert said == f"pointing at: {legal[1].label}" and table.view(state)["cursor"]["text"] == legal[1].text
    assert table.button_meanings(state)["confirm"] == legal[1].label
    taken = table.button(state, "confirm", long=False).action
    assert game.action_text(taken) == legal[1].text
    assert table.button(state, "confirm", long=True).action is None  # a long press is no action mid-game
