"""What the players read: every game's actions in words (Game.describe, Game.legal) and what chance awaits
(Game.chance_prompt), over seeded random games and in rulebook positions."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

from engine.dice import Die
from engine.dicetreasure import words as dt_words
from engine.dicetreasure.rules import GAME as DT
from engine.dicetreasure.rules import new_game
from engine.dicetreasure.simulate import eager_policy
from engine.dicetreasure.state import ClaimBonus, Deal, EndTurn, Exchange, Place, RevealBonus, Source
from engine.game import Game, find_game
from engine.pasa import words as pasa_words
from engine.pasa.game import Choose, PasaGame, Reroll, Stop
from engine.pasa.game import Roll as PasaRoll
from engine.pyradice import words as pyradice_words
from engine.pyradice.fixtures import DEFAULT_BOARD, filler, table
from engine.pyradice.game import PyradiceGame
from engine.pyradice.state import Board, Phase, RollOff, Skill
from engine.pyradice.state import Place as PyradicePlace
from engine.pyradice.state import Take as PyradiceTake
from engine.pyramido import words as pyramido_words
from engine.pyramido.dominoes import Gem, parse_back
from engine.pyramido.game import GAME as PYRAMIDO
from engine.pyramido.game import Draw, EndScoring, Flip, PendingKind, Take
from engine.simulate import Policy, play, uniform_policy
from tests.test_pyramido_game import give
from tests.test_pyramido_game import table as pyramido_table
from tests.test_pyramido_rules import EXAMPLE_23

WORDS: dict[str, ModuleType] = {
    "pasa": pasa_words,
    "pyradice": pyradice_words,
    "pyramido": pyramido_words,
    "dicetreasure": dt_words,
}

PASA = PasaGame()
PYRADICE = PyradiceGame()


# --- the checks every state gets --------------------------------------------------------------------


def check_words(game: Game[Any, Any], state: Any) -> None:
    """Decisions: every legal action described, its text parsing back to it, labels distinct and groups
    documented, no chance prompt. Chance: a prompt whose example parses and is accepted, no decisions."""
    groups = WORDS[game.name].GROUPS
    status = game.status(state)
    prompt = game.chance_prompt(state)
    if status.awaiting == "chance":
        assert prompt is not None, f"{game.name}: no prompt while chance is awaited ({status.phase})"
        assert prompt.group == "chance" and prompt.what.strip()
        example = game.parse_action(prompt.example, state)
        assert game.action_text(example) == prompt.example
        game.apply(state, example)  # accepted: raises if not
        assert game.describe(state, example).group == "chance"
        assert game.legal(state) == []
        return
    assert prompt is None, f"{game.name}: a chance prompt during {status.phase}: {prompt}"
    actions = game.legal_actions(state)
    described = game.legal(state)
    assert len(described) == len(actions)
    for action, legal in zip(actions, described, strict=True):
        assert legal.text == game.action_text(action)
        assert game.parse_action(legal.text, state) == action, legal.text
        assert legal.label.strip() and legal.label == legal.label.strip()
        assert legal.group in groups, f"{game.name}: group {legal.group!r} of {legal.text!r} is not in {groups}"
    repeated = [label for label, n in Counter(la.label for la in described).items() if n > 1]
    assert not repeated, f"{game.name} ({status.phase}): labels read the same: {repeated}"


def check_playout(game: Game[Any, Any], players: list[str], seed: int, policy: Policy = uniform_policy,
                  options: dict[str, str] | None = None) -> Counter[str]:
    """Check every state of one seeded game and every chance action taken; returns the groups seen."""
    playout = play(game, players, seed, policy=policy, options=options)
    seen: Counter[str] = Counter()
    for state, action in zip(playout.states, playout.actions, strict=False):
        check_words(game, state)
        described = game.describe(state, action)
        assert described.text == game.action_text(action)
        seen[described.group] += 1
    final = playout.final
    assert game.status(final).finished and game.chance_prompt(final) is None and game.legal(final) == []
    return seen


def play_examples(game: Game[Any, Any], state: Any, seed: int, policy: Policy = uniform_policy,
                  limit: int = 3000) -> Any:
    """Play on with every chance step answered by its prompt's example: the examples alone make a game."""
    rng = random.Random(seed)
    for _ in range(limit):
        status = game.status(state)
        if status.finished:
            return state
        check_words(game, state)
        if status.awaiting == "chance":
            prompt = game.chance_prompt(state)
            assert prompt is not None
            state = game.apply(state, game.parse_action(prompt.example, state))
        else:
            state = game.apply(state, policy(state, game.legal_actions(state), rng))
    raise AssertionError(f"{game.name}: no end within {limit} steps")


def test_every_game_documents_its_groups() -> None:
    for name, module in WORDS.items():
        game = find_game(name)
        assert module.GROUPS and len(set(module.GROUPS)) == len(module.GROUPS)
        assert "chance" in module.GROUPS
        for group in module.GROUPS:
            assert f"``{group}``" in (module.__doc__ or ""), f"{name}: group {group} is not documented in words"
            assert f"``{group}``" in (type(game).__doc__ or ""), f"{name}: group {group} not in the game's docstring"


# --- seeded random games, every state ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "seed", "rule"), [(1, 1, "even-pairs"), (2, 2, "distinct-pairs"), (3, 3, "strict-246")]
)
def test_pasa_random_games_read_in_words(players: int, seed: int, rule: str) -> None:
    seen = check_playout(PASA, [f"P{i}" for i in range(players)], seed, options={"pasa": rule})
    assert {"category", "hold", "stop", "chance"} <= set(seen)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_pyradice_random_games_read_in_words(players: int, seed: int) -> None:
    seen = check_playout(PYRADICE, [f"P{i}" for i in range(players)], seed)
    assert {"take", "place", "chance"} <= set(seen)


@pytest.mark.parametrize(("players", "seed", "legend"), [(1, 1, "a-legend"), (1, 4, "the-legend"), (2, 2, "a-legend"),
                                                         (4, 3, "a-legend")])
def test_pyramido_random_games_read_in_words(players: int, seed: int, legend: str) -> None:
    seen = check_playout(PYRAMIDO, [f"P{i}" for i in range(players)], seed, options={"legend": legend})
    assert {"take", "place", "score", "end", "chance"} <= set(seen)


@pytest.mark.parametrize(("players", "seed", "leprechauns"), [(1, 1, "on"), (2, 2, "on"), (3, 3, "off"), (4, 4, "on")])
def test_dicetreasure_random_games_read_in_words(players: int, seed: int, leprechauns: str) -> None:
    seen = check_playout(DT, [f"P{i}" for i in range(players)], seed, eager_policy, {"leprechauns": leprechauns})
    assert {"place", "end", "chance"} <= set(seen)


@pytest.mark.parametrize(("name", "players"), [("pasa", 2), ("pyradice", 3), ("pyramido", 1), ("dicetreasure", 2)])
def test_an_action_described_in_any_state_of_its_game_still_reads(name: str, players: int) -> None:
    """The page describes the last actions against the state before them; a stale or odd pairing must not fail."""
    game = find_game(name)
    policy = eager_policy if name == "dicetreasure" else uniform_policy
    playout = play(game, [f"P{i}" for i in range(players)], 5, policy=policy)
    actions = [*playout.actions, *(a for s in playout.states[::7] for a in game.legal_actions(s))]
    rng = random.Random(1)
    for action in rng.sample(actions, min(len(actions), 150)):
        for state in rng.sample(playout.states, 10):
            described = game.describe(state, action)
            assert described.label.strip() and described.text == game.action_text(action)


def test_the_prompts_examples_alone_play_whole_games() -> None:
    """At the table nothing is known in advance: answering every chance step with the example plays on."""
    play_examples(PASA, PASA.initial_state(["Ann", "Bob"]), 1)
    play_examples(PYRADICE, PYRADICE.initial_state(["Ann", "Bob", "Cleo"], seed=1), 2)
    play_examples(PYRAMIDO, PYRAMIDO.setup(["Ann", "Bob"]), 3)  # a table game: the deck is not known
    play_examples(PYRAMIDO, PYRAMIDO.setup(["Ann"]), 4)
    play_examples(DT, new_game(["Ann", "Bob"]), 5, eager_policy)
    play_examples(DT, new_game(["Ann"]), 6, eager_policy)


# --- Paša-řada-pyramida -----------------------------------------------------------------------------


def test_pasa_labels_in_the_rulebooks_pyramida_example() -> None:
    state = PASA.initial_state(["Ann", "Bob"])
    prompt = PASA.chance_prompt(state)
    assert prompt is not None and prompt.example == "roll 1 2 3 4 5 6"
    assert prompt.what.startswith("Ann, roll 1 of 3: roll all six dice")
    state = PASA.apply(state, PasaRoll((6, 6, 6, 4, 4, 5)))  # the rulebook's Pyramida: 31
    labels = {la.text: la.label for la in PASA.legal(state)}
    assert labels["choose pyramida"] == "Choose Pyramida (31 now)"
    assert labels["choose fours"] == "Choose Fours (8 now)"
    assert labels["choose rada"] == "Choose Řada (0 now)"
    assert labels["choose pasa"] == "Choose Paša (0 now)"
    assert {la.group for la in PASA.legal(state)} == {"category"}
    state = PASA.apply(state, Choose("fours"))
    holds = {la.text: la for la in PASA.legal(state)}
    assert len(holds) == 1 + 4 * 3 * 2 - 1  # stop, and every sub-multiset of 6 6 6 4 4 5 but all six
    assert holds["stop"].label == "End the turn: 8 in Fours" and holds["stop"].group == "stop"
    assert holds["reroll keep 4 4"].label == "Keep 4 4, re-roll 4" and holds["reroll keep 4 4"].group == "hold"
    assert holds["reroll keep -"].label == "Re-roll all 6 dice"
    assert holds["reroll keep 4 4 5 6 6"].label == "Keep 4 4 5 6 6, re-roll 1"
    state = PASA.apply(state, Reroll((4, 4)))
    prompt = PASA.chance_prompt(state)
    assert prompt is not None
    assert prompt.what == "Ann, roll 2 of 3: keep 4 4 and re-roll 4 dice, then enter all six dice on the table"
    assert prompt.example == "roll 1 2 3 4 4 4"
    state = PASA.apply(state, PasaRoll((4, 4, 4, 4, 2, 1)))
    assert PASA.describe(state, Stop()).label == "End the turn: 16 in Fours"


def test_pasa_offline_entry_and_paša_rules_in_words() -> None:
    state = PASA.initial_state(["Ann"], {"pasa": "even-pairs"})
    assert PASA.describe(state, PASA.parse_action("enter twos 12")) .label == "Write 12 in Twos"
    state = PASA.apply(state, PasaRoll((2, 2, 2, 2, 4, 4)))  # the rulebook's 16 Paša
    assert PASA.describe(state, Choose("pasa")).label == "Choose Paša (16 now)"
    strict = PASA.apply(PASA.initial_state(["Ann"], {"pasa": "strict-246"}), PasaRoll((2, 2, 2, 2, 4, 4)))
    assert PASA.describe(strict, Choose("pasa")).label == "Choose Paša (0 now)"


# --- Pyradice ---------------------------------------------------------------------------------------


def test_pyradice_roll_off_prompts_and_ties() -> None:
    state = PYRADICE.initial_state(["Ann", "Bob", "Cleo"], seed=3)
    prompt = PYRADICE.chance_prompt(state)
    assert prompt is not None and prompt.example == "roll-off 6 5 4"
    assert "Ann, Bob and Cleo each roll a die" in prompt.what
    tied = PYRADICE.apply(state, RollOff((5, 2, 5)))
    prompt = PYRADICE.chance_prompt(tied)
    assert prompt is not None and prompt.example == "roll-off 6 5"
    assert "the tied players roll again: Ann and Cleo each roll a die" in prompt.what
    assert PYRADICE.status(PYRADICE.apply(tied, PYRADICE.parse_action(prompt.example))).to_move == "Ann"


def test_pyradice_the_first_player_has_only_four_choices() -> None:
    state = PYRADICE.apply(PYRADICE.initial_state(["Ann", "Bob"], seed=3), RollOff((6, 1)))
    takes = PYRADICE.legal(state)
    assert [la.text for la in takes] == ["take q2,0,0", "take q2,0,3", "take q2,1,0", "take q2,1,3"]
    for la in takes:
        take = PYRADICE.parse_action(la.text)
        assert isinstance(take, PyradiceTake)
        die = state.quarry.dice[take.position]
        assert la.label == f"Take the {die.colour} {die.value} from {la.text.removeprefix('take ')}"
        assert la.group == "take"


def _skill_state(board: Board, dice: int, hand: Die, slot: tuple[int, int]) -> Any:
    """A 2-player state where ana has ``dice`` dice (filled from the left) and has just placed ``hand``."""
    state = table([filler(dice), filler(dice)], board=board, phase=Phase.PLACE, hand=hand)
    place = PYRADICE.describe(state, PyradicePlace(slot))
    assert place.label == f"Place the {hand.colour} {hand.value} on level {slot[0]}, slot {slot[1] + 1}"
    assert place.group == "place"
    return PYRADICE.apply(state, PyradicePlace(slot))


def test_pyradice_skill_labels_say_what_each_skill_does() -> None:
    # filler: level 1 is white 1, gray 1, maroon 1, orange 1, white 1, gray 1 from the left.
    state = _skill_state(DEFAULT_BOARD, 11, Die(5, "gray"), (3, 0))  # level 3 shows A3
    labels = {la.text: la.label for la in PYRADICE.legal(state)}
    assert labels["A3 1,0"] == "Skill A3: turn the white 1 on level 1, slot 1 over to 6"
    assert labels["A3 2,4"] == "Skill A3: turn the maroon 1 on level 2, slot 5 over to 6"
    assert labels["pass"] == "Pass: use no skill this turn"
    assert "A3 3,0" not in labels  # never the die just placed
    state = _skill_state(DEFAULT_BOARD, 6, Die(5, "gray"), (2, 0))  # level 2 shows A2
    labels = {la.text: la.label for la in PYRADICE.legal(state)}
    assert labels["A2 1,3"] == "Skill A2: re-roll the orange 1 on level 1, slot 4"
    after = PYRADICE.apply(state, Skill("A2", (1, 3)))
    prompt = PYRADICE.chance_prompt(after)
    assert prompt is not None and prompt.example == "roll 6"
    assert prompt.what == "Skill A2: roll the orange 1 on level 1, slot 4 again and enter the face it came up"
    assert PYRADICE.apply(after, PYRADICE.parse_action(prompt.example)).players[0].pyramid[(1, 3)] == Die(6, "orange")


def test_pyradice_b_side_skills_and_b6_borrowing() -> None:
    board = Board(("B2", "B3", "B4", "B5", "B6"), DEFAULT_BOARD.objectives)
    state = _skill_state(board, 6, Die(5, "gray"), (2, 1))
    labels = {la.text: la.label for la in PYRADICE.legal(state)}
    assert labels["B2 1,0"] == "Skill B2: set the white 1 on level 1, slot 1 to 5, the value of the die just placed"
    state = _skill_state(board, 13, Die(3, "maroon"), (3, 2))  # B3: reserve a quarry die
    uses = [la for la in PYRADICE.legal(state) if la.group == "skill"]
    assert uses and all(la.label.startswith("Skill B3: put the ") and "into your reserve" in la.label for la in uses)
    state = _skill_state(board, 15, Die(3, "maroon"), (4, 0))  # B4: one up or down, 1 only goes up
    labels = {la.text: la.label for la in PYRADICE.legal(state)}
    assert labels["B4 1,0 =2"] == "Skill B4: change the white 1 on level 1, slot 1 to 2"
    assert "B4 1,0 =0" not in labels
    state = _skill_state(board, 20, Die(6, "orange"), (6, 0))  # B6: any face-up skill of levels 2-5
    skills = [la for la in PYRADICE.legal(state) if la.group == "skill"]
    assert {la.label.split(":")[0] for la in skills} == {
        "Skill B2 (via B6)", "Skill B3 (via B6)", "Skill B4 (via B6)", "Skill B5 (via B6)"
    }
    assert "Skill B5 (via B6): copy a " in next(la.label for la in skills if la.text.startswith("B5"))


def test_pyradice_a_side_swaps_and_setting_a_value() -> None:
    board = Board(("A2", "A3", "A4", "A5", "A6"), DEFAULT_BOARD.objectives)
    state = _skill_state(board, 15, Die(3, "maroon"), (4, 0))  # A4: swap with a quarry die
    a4 = next(la for la in PYRADICE.legal(state) if la.text.startswith("A4 1,0 "))
    use = PYRADICE.parse_action(a4.text)
    assert isinstance(use, Skill) and use.quarry is not None
    die = state.quarry.dice[use.quarry]
    where = a4.text.split()[-1]
    assert a4.label == f"Skill A4: swap the white 1 on level 1, slot 1 with the {die.colour} {die.value} from {where}"
    state = _skill_state(board, 18, Die(3, "maroon"), (5, 0))  # A5: swap two of your dice
    labels = {la.text: la.label for la in PYRADICE.legal(state)}
    assert labels["A5 1,0 1,1"] == "Skill A5: swap the white 1 on level 1, slot 1 with the gray 1 on level 1, slot 2"
    state = _skill_state(board, 20, Die(3, "maroon"), (6, 0))  # A6 on the apex: any value
    labels = {la.text: la.label for la in PYRADICE.legal(state)}
    assert labels["A6 1,0 =6"] == "Skill A6: set the white 1 on level 1, slot 1 to 6"
    assert [t for t in labels if t.startswith("A6 1,0 ")] == [f"A6 1,0 ={v}" for v in range(1, 7)]


def test_pyradice_using_the_reserve_die() -> None:
    state = table([filler(3), filler(3)], reserves={0: Die(3, "gray")})
    reserve = next(la for la in PYRADICE.legal(state) if la.text == "reserve")
    assert reserve.label == "Use the reserve die (gray 3)" and reserve.group == "reserve"
    state = PYRADICE.apply(state, PYRADICE.parse_action("reserve"))
    assert PYRADICE.legal(state)[0].label == "Place the gray 3 on level 1, slot 4"


# --- Pyramido ---------------------------------------------------------------------------------------


def test_pyramido_a_turn_in_words() -> None:
    state = PYRAMIDO.initial_state(["Ann", "Bob"], seed=3)
    space = state.spaces[2]
    assert space.face_up is not None
    domino = f"{space.face_up.a.colour.value}-{space.face_up.b.colour.value}"
    takes = {la.text: la for la in PYRAMIDO.legal(state)}
    gem = next(g for g in Gem if space.gems[g.index])
    take = takes[f"take 3 {gem.letter}"]
    article = "an" if gem.value[0] in "aeiou" else "a"
    assert take.label == f"Take the {domino} domino of space 3 with {article} {gem.value} gem" and take.group == "take"
    state = PYRAMIDO.apply(state, PYRAMIDO.parse_action(take.text))
    assert [(la.text, la.label) for la in PYRAMIDO.legal(state)] == [
        (f"flip {p}", f"Turn over the top domino of pile {p}") for p in (2, 3, 4)
    ]
    state = PYRAMIDO.apply(state, Flip(3))
    prompt = PYRAMIDO.chance_prompt(state)
    assert prompt is not None
    assert prompt.what == "Reveal the top domino of pile 3 and enter its block colours and gem icon quadrants"
    state = PYRAMIDO.apply(state, PYRAMIDO.parse_action(prompt.example))
    held = state.holding
    assert held is not None
    places = {la.text: la for la in PYRAMIDO.legal(state)}
    assert places["place s1 0,0 S"].label == (
        f"Place the domino at 0,0 facing south: {held.a.colour.value} on 0,0, {held.b.colour.value} on 0,1"
    )
    assert places["place s1 0,0 W"].label.endswith(f"{held.b.colour.value} on -1,0")


def test_pyramido_set_up_prompts_at_the_table() -> None:
    state = PYRAMIDO.setup(["Ann"])  # solo: the Legend's first domino comes first
    prompt = PYRAMIDO.chance_prompt(state)
    assert prompt is not None and prompt.what.startswith("Reveal the Legend's first domino")
    state = PYRAMIDO.apply(state, PYRAMIDO.parse_action(prompt.example))
    prompt = PYRAMIDO.chance_prompt(state)
    assert prompt is not None and prompt.example == "draw o"
    assert prompt.what == "Draw a gem from the bag into the gem area of space 1 and enter its colour (3 to draw there)"
    for _ in range(15):
        state = PYRAMIDO.apply(state, PYRAMIDO.parse_action(PYRAMIDO.chance_prompt(state).example))  # type: ignore[union-attr]
    prompt = PYRAMIDO.chance_prompt(state)
    assert prompt is not None and prompt.what.startswith("Reveal the top domino of pile 1")


def test_pyramido_reveal_example_fits_the_back_seen() -> None:
    state = pyramido_table(["Ann", "Bob"])
    take = next(a for a in PYRAMIDO.legal_actions(state) if isinstance(a, Take) and a.space == 1)
    state = PYRAMIDO.apply(state, take)
    while state.pending:
        state = PYRAMIDO.apply(state, Draw(next(g for g in Gem if state.bag[g.index])))
    state = PYRAMIDO.apply(state, Flip(2, parse_back("r2-b0")))
    prompt = PYRAMIDO.chance_prompt(state)
    assert prompt is not None and state.pending[0].kind is PendingKind.DOMINO_TO_PILE
    revealed = PYRAMIDO.parse_action(prompt.example)
    assert str(revealed.domino.back()) == "b0-r2"  # type: ignore[union-attr]
    PYRAMIDO.apply(state, revealed)


def test_pyramido_refill_label_says_which_pile_gives_how_many() -> None:
    state = pyramido_table(["Ann", "Bob"])
    spaces = list(state.spaces)
    extra = spaces[0].face_down + spaces[3].face_down - 7
    spaces[0] = replace(spaces[0], face_down=0)
    spaces[3] = replace(spaces[3], face_down=7)
    spaces[1] = replace(spaces[1], face_down=spaces[1].face_down + extra)
    state = replace(state, spaces=tuple(spaces))
    labels = {la.text: la.label for la in PYRAMIDO.legal(state)}
    gem = next(g for g in Gem if state.spaces[0].gems[g.index])
    assert labels[f"take 1 {gem.letter} refill 4"].endswith("; pile 4 gives its bottom 3 dominoes to the empty pile 1")
    assert f"take 1 {gem.letter}" not in labels  # the refill must be named


def test_pyramido_scoring_in_words_the_rulebooks_23() -> None:
    state = pyramido_table(["Ann", "Bob"], {0: EXAMPLE_23, 1: EXAMPLE_23})
    state = give(give(state, 0, "o3 b1 p1 g1 r1 m1"), 1, "m3 r2 b2")
    state = PYRAMIDO._advance(state, 0)
    labels = {la.text: la for la in PYRAMIDO.legal(state)}
    assert all(la.group in ("score", "end") for la in labels.values())
    assert labels["activate 2,6 3c0m"].label.startswith("Double the orange area at 2,6 (")
    assert labels["activate 2,6 3c0m"].label.split(" with ")[1].startswith("3 orange gems: ")
    points = 0
    for text in ("activate 0,4 1c0m", "activate 4,0 1c0m", "activate 4,4 1c0m", "activate 0,0 1c0m",
                 "activate 2,6 3c0m"):
        legal = {la.text: la for la in PYRAMIDO.legal(state)}
        assert legal[text].label.startswith("Activate the " if text.endswith("1c0m") else "Double the ")
        points += int(legal[text].label.rsplit(": ", 1)[1].split()[0])
        state = PYRAMIDO.apply(state, PYRAMIDO.parse_action(text))
    end = PYRAMIDO.describe(state, EndScoring())
    assert end.label == f"Finish placing gems: 23 points in stage 1 ({points} from areas, 1 for mythical gems kept)"
    assert end.group == "end" and points == 22
    state = PYRAMIDO.apply(PYRAMIDO.apply(state, EndScoring()), EndScoring())  # Bob keeps 7 gems
    discards = PYRAMIDO.legal(state)
    assert {la.label for la in discards} == {
        "Discard a mythical gem (7 held, keep 5)", "Discard a red gem (7 held, keep 5)",
        "Discard a blue gem (7 held, keep 5)",
    }


# --- Dice Treasure ----------------------------------------------------------------------------------


def _dt_turn() -> Any:
    state = new_game(["Ann", "Bob"])
    state = DT.apply(state, RevealBonus(("blue-1", "yellow-1", "red-2", "red-3")))
    state = DT.apply(state, Deal("Ann", ("red-1", "red-2", "red-3", "red-4")))
    state = DT.apply(state, Deal("Bob", ("red-5", "red-6", "red-7", "red-8")))
    prompt = DT.chance_prompt(state)
    assert prompt is not None
    assert prompt.what == "Ann draws 6 dice from the bag and rolls them; enter each die's colour and face"
    return DT.apply(state, DT.parse_action("roll blue:4 red:4 green:2 yellow:6 purple:1 blue:3"))


def test_dicetreasure_set_up_prompts() -> None:
    state = new_game(["Ann", "Bob"])
    prompt = DT.chance_prompt(state)
    assert prompt is not None and prompt.what == "Lay out 4 leprechaun bonus cards face up and enter their ids"
    state = DT.apply(state, DT.parse_action(prompt.example))
    prompt = DT.chance_prompt(state)
    assert prompt is not None and prompt.what == "Deal 4 motif cards face up to Ann and enter their ids"
    assert prompt.example.startswith("deal Ann: ")
    off = new_game(["Ann"], options={"leprechauns": "off"})
    prompt = DT.chance_prompt(off)
    assert prompt is not None and prompt.what == "Deal 3 motif cards face up to Ann and enter their ids"


def test_dicetreasure_a_turn_in_words() -> None:
    state = _dt_turn()
    labels = {la.text: la for la in DT.legal(state)}
    # red-1: space 1 takes a blue die, spaces 2 and 3 any die; neighbours differ in colour and value.
    assert labels["place blue:4 red-1#1"].label == "Put the blue 4 on card red-1, space 1"
    assert labels["place blue:4 red-1#1"].group == "place"
    assert "place red:4 red-1#1" not in labels
    assert labels["end"].label == "End the turn keeping nothing; 6 dice to the common reserve"
    keep = labels["end keep blue:4 red:4"]
    assert keep.label == "End the turn keeping blue 4 and red 4; 4 dice to the common reserve" and keep.group == "end"
    assert DT.describe(state, ClaimBonus("blue-1")).label == "Claim leprechaun card blue-1: +2 gold"
    state = DT.apply(state, DT.parse_action("place blue:4 red-1#1"))
    after = {la.text: la.label for la in DT.legal(state)}
    assert "place red:4 red-1#2" not in after  # next to the blue 4: same value
    assert after["place green:2 red-1#2"] == "Put the green 2 on card red-1, space 2"
    state = DT.apply(state, DT.parse_action("place green:2 red-1#2"))
    fill = DT.describe(state, Place(Die(6, "yellow"), "red-1", 3))
    assert fill.label == "Put the yellow 6 on card red-1, space 3 (fills it: 1 gold coin)"
    state = DT.apply(state, EndTurn((Die(3, "blue"),)))
    state = DT.apply(state, DT.parse_action("roll red:1 red:2 red:3 red:5 red:6 yellow:1"))
    legal = DT.legal(state)
    swap = next(la for la in legal if la.text == "exchange red:1 for red:4")
    assert swap.label == "Swap your red 1 for the red 4 from the common reserve" and swap.group == "exchange"


def test_dicetreasure_reserve_dice_and_the_steal_phase_in_words() -> None:
    playout = play(DT, ["Ann", "Bob"], 7, policy=eager_policy)
    steal = reserve = 0
    for state in playout.states:
        for la in DT.legal(state):
            action = DT.parse_action(la.text)
            if isinstance(action, Place):
                assert (" in the middle, space " in la.label) == state.steal
                if action.source is Source.RESERVE:
                    reserve += 1
                    assert la.label.startswith("Put your reserve ")
                steal += state.steal
            if isinstance(action, Exchange) and action.source is Source.RESERVE:
                assert la.label.startswith("Swap your reserve ")
    assert steal and reserve
    solo = play(DT, ["Ann"], 2, policy=eager_policy)
    moves = [la for s in solo.states for la in DT.legal(s) if la.group == "reserve"]
    assert moves and all(la.label.startswith("Move the ") and la.label.endswith(" to your reserve") for la in moves)
    deals = [DT.chance_prompt(s) for s in solo.states if DT.status(s).phase == "solo-deal"]
    assert deals and all(p is not None and p.what.startswith("Before the second-to-last turn: deal 2") for p in deals)
