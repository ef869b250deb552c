"""Every game package has the same shape, and what other code imported before the reshaping still imports.

The names each ``engine.<game>`` package exported before (commit 5f3dac8) are listed here, so that dropping one
is a failing test rather than a broken tool; the old module paths (``engine.pasa.rules``, ``engine.pasa.advisor``,
``engine.dicetreasure.rules``) forward to the new modules; phases are enums; every action class has its kind.
"""

from __future__ import annotations

import enum
import importlib
from pathlib import Path

import pytest

from engine import find_game, serial
from engine.game import GAME_MODULES

ENGINE = Path(__file__).resolve().parents[1] / "engine"

#: ``__all__`` of each package at commit 5f3dac8, before the reshaping.
EXPORTED_BEFORE = {
    "pasa": "ACTION_FORMS CATEGORIES DEFAULT_RULE MAX_ROLLS RULES RULE_OPTION TITLES Choose Enter PasaAction PasaGame "
    "PasaState Reroll Roll Stop check_category check_dice check_entry check_rule max_total parse_action score "
    "sub_multisets valid_scores",
    "pyradice": "CARDS TOKENS Action Board Card ObjectiveCard Observation Pass Phase Place PlayerState PyradiceGame "
    "PyradiceState Quarry Roll RollOff Skill Take UseReserve card_score explain_turn level_results objective_met "
    "register_card setup",
    "pyramido": "COLOURS GEMS LEGEND MIXES ActivationResult Area AreaActivation Back Block Colour Direction Domino Gem "
    "Gems Placement Pyramid Pyramido PyramidoState areas areas_of_view best_activation explain_placement "
    "generate_deck has_room legal_placements legend_search parse_back parse_domino parse_gems score_activation",
    "dicetreasure": "GAME Action BonusCard CardInPlay ClaimBonus Deal Deck DeckError DiceTreasure DiceTreasureState "
    "EndTurn Exchange FinishSetup MotifCard Phase Place PlayerState Reserve RevealBonus Roll Source Space "
    "legal_spaces load_deck new_game sample_deck validate_deck",
}


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_every_package_has_the_same_files_and_its_old_names(name: str) -> None:
    for module in ("state", "game", "observe", "words", "cli", "bench"):
        assert (ENGINE / name / f"{module}.py").is_file(), f"engine/{name}/{module}.py"
    package = importlib.import_module(GAME_MODULES[name])
    for exported in EXPORTED_BEFORE[name].split():
        assert hasattr(package, exported), f"engine.{name}.{exported}"
        assert exported in package.__all__
    game = find_game(name)
    assert type(game).__module__ == f"engine.{name}.game"
    assert importlib.import_module(f"engine.{name}.state").__doc__


def test_old_module_paths_forward_to_the_new_modules() -> None:
    from engine.dicetreasure import game as dicetreasure_game
    from engine.dicetreasure import rules as dicetreasure_rules
    from engine.pasa import advice, advisor, rules, scoring

    assert rules.score is scoring.score and rules.CATEGORIES is scoring.CATEGORIES
    assert rules._valid is scoring._valid  # private helpers too: old code reached for them
    assert advisor.get_advisor is advice.get_advisor and advisor.Advisor is advice.Advisor
    assert dicetreasure_rules.GAME is dicetreasure_game.GAME is find_game("dicetreasure")
    assert dicetreasure_rules.new_game is dicetreasure_game.new_game
    from engine.pasa.game import Choose, PasaState, Roll  # the state's names from the game modules, as before
    from engine.pasa.state import Choose as StateChoose
    from engine.pyramido.game import Phase, PyramidoState, Take
    from engine.pyramido.state import PyramidoState as StatePyramidoState

    assert Choose is StateChoose and PyramidoState is StatePyramidoState
    assert Roll and PasaState and Phase and Take
    with pytest.raises(AttributeError):
        rules.no_such_name  # noqa: B018


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_phases_are_enums_and_actions_have_kinds(name: str) -> None:
    game = find_game(name)
    state_module = importlib.import_module(f"engine.{name}.state")
    assert issubclass(state_module.Phase, enum.Enum)
    state = game.initial_state(game.default_players(), seed=1)
    assert isinstance(state.phase, state_module.Phase)
    kinds = serial.action_codec(game.action_type).kinds
    assert len(kinds) == len(serial.union_members(game.action_type))  # one kind per action class
    assert game.action_groups and "chance" in game.action_groups
    module = importlib.import_module(f"engine.{name}.game")
    for attr in ("GAME", "_GAME"):  # module-level game objects are the registered instance
        if hasattr(module, attr):
            assert getattr(module, attr) is game
