"""Dice Treasure at the table: whole recorded games (device.record_dicetreasure) replayed through the pipeline.

With the truth reader (``--reader truth``) the frames are cheap synthetic pictures (they only need to show
motion and stillness) and each frame's readings come from its recorded truth: the adapter, the stability
filter, the engine's explain_table and the session are tested apart from vision. The players answer only what
the camera cannot see (the leprechaun cards laid out, a leprechaun card offered), counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from device.commands import replay
from device.record_dicetreasure import Table, canonical, make, mark_done, truth_of
from device.recording import load_recording
from device.tables import Explained, adapter_for
from device.tables.dicetreasure import Snapshot, SpotReading, ZoneReading, snapshot_from_truth
from engine.dice import Die
from engine.dicetreasure import GAME, EndTurn, Roll
from engine.dicetreasure.state import DiceTreasureState as GameState

DEALT = ("deal Anna: red-1 red-2 red-3 red-4", "deal Ben: blue-1 blue-2 blue-3 blue-4")
ROLLED = (*DEALT, "roll red:1 red:2 yellow:5 green:4 blue:3 purple:6")


def played(texts: tuple[str, ...]) -> tuple[GameState, Table]:
    """A 2-player game (no leprechaun cards) after these actions, and the table that followed them."""
    state, table = GAME.initial_state(["Anna", "Ben"], {"leprechauns": "off"}), Table(2)
    for text in texts:
        before, state = state, GAME.apply(state, GAME.parse_action(text, state))
        table.follow(before, GAME.parse_action(text, before), state)
    return state, table


def placed_on_red_1() -> tuple[GameState, GameState, Snapshot]:
    """After ROLLED: the state, the state once a die of the roll is placed on Anna's card red-1, and that table
    as a perfect reader reads it."""
    from engine.dicetreasure import Place

    state, table = played(ROLLED)
    place = next(a for a in GAME.legal_actions(state) if isinstance(a, Place) and a.card == "red-1")
    placed = GAME.apply(state, place)
    table.follow(state, place, placed)
    return state, placed, snapshot_from_truth(truth_of(placed, table))


@pytest.mark.parametrize(("players", "seed"), [(1, 21), (2, 22)])
def test_a_whole_game_replays_to_its_true_record_from_the_table_alone(tmp_path: Path, players: int,
                                                                      seed: int) -> None:
    # Seeds 21 and 22 were never used while writing the adapter or explain_table (those used 0-6).
    data = make(tmp_path / "rec", seed, players, draw="plain")
    recording = load_recording(tmp_path / "rec")
    assert recording.seed == seed and recording.table["players"] == players
    assert all(f.truth is not None for f in recording.frames)
    result = replay(tmp_path / "rec", reader_name="truth")
    assert result["matches_expected"] is True
    assert result["sheet"] == result["expected_sheet"]
    actions = len(data["expected"]["actions"])
    assert actions > 60
    # A perfect reading asks nothing about what it saw; the players' own part is counted apart: the leprechaun
    # cards laid out (the camera does not read them), and each leprechaun card claimed (offered to the player).
    claims = sum(1 for a in data["expected"]["actions"] if a.startswith("claim"))
    assert result["players_answered"] == 0
    assert 1 + claims <= result["players_decided"] <= 1 + claims + 1
    assert set(result["origins"]) <= {"camera", "players"}


def test_a_short_recording_stops_where_asked_and_its_truth_is_the_table(tmp_path: Path) -> None:
    data = make(tmp_path / "rec", 5, 2, actions=12, draw="plain")
    assert len(data["expected"]["actions"]) == 12
    first, last = data["frames"][0]["truth"], data["frames"][-1]["truth"]
    assert first["cards"] == [] and first["tray"] == []
    assert {c["zone"] for c in last["cards"]} == {"motif-cards-1", "motif-cards-2"}
    assert len([c for c in last["cards"] if c["zone"] == "motif-cards-1"]) == 4
    # Hands over the table (motion) then still frames sharing one picture, for every change of the table.
    files = [f["file"] for f in data["frames"]]
    hands = sum(1 for f in files if f.endswith("-hand.png"))
    assert hands == 2 * sum(1 for f in set(files) if f.endswith("-hand.png"))  # two hand frames, then 7 still ones
    assert hands * 7 == 2 * (len(files) - hands)
    # Each frame says how many of the true actions its table shows: every action before the one that changed the
    # table again (the leprechaun cards laid out change nothing on it), all of them at the end.
    done = [f["truth"]["done"] for f in data["frames"]]
    assert done == sorted(done) and done[0] == 1 and done[-1] == 12
    state = GAME.initial_state(data["players"], {}, seed=5)
    table = Table(2)
    for n, text in enumerate(data["expected"]["actions"]):
        if n in done:
            shown = next(f["truth"] for f in data["frames"] if f["truth"]["done"] == n)
            assert {k: v for k, v in shown.items() if k != "done"} == json.loads(json.dumps(truth_of(state, table)))
        action = GAME.parse_action(text, state)
        before, state = state, GAME.apply(state, action)
        table.follow(before, action, state)
    # A recording made before frames carried it gets the same from the game re-run (and refuses a table it is not).
    bare = {**data, "frames": [{**f, "truth": {k: v for k, v in f["truth"].items() if k != "done"}}
                               for f in data["frames"]]}
    assert mark_done(bare)["frames"] == data["frames"]
    other = [*bare["frames"][:-1], {**bare["frames"][-1], "truth": {**bare["frames"][-1]["truth"], "tray": ["red:1"]}}]
    with pytest.raises(ValueError, match="not the table of the game re-run"):
        mark_done({**bare, "frames": other})
    result = replay(tmp_path / "rec", reader_name="truth")
    assert result["actions"][: len(result["actions"])] == data["expected"]["actions"][: len(result["actions"])]


def test_the_truth_reads_as_snapshots_that_agree_only_when_the_table_is_the_same() -> None:
    adapter = adapter_for(GAME)
    state, table = played(DEALT)
    roll = canonical(state, Roll((Die(6, "purple"), Die(1, "red"), Die(3, "blue"), Die(2, "red"), Die(4, "green"),
                                  Die(5, "yellow"))))
    assert isinstance(roll, Roll)
    assert str(roll) == "roll red:1 red:2 yellow:5 green:4 blue:3 purple:6"
    assert canonical(state, EndTurn((Die(2, "blue"), Die(1, "red")))) == EndTurn((Die(1, "red"), Die(2, "blue")))
    dealt = truth_of(state, table)
    after = truth_of(GAME.apply(state, roll), table)
    a, b = adapter.truth_readings(dealt), adapter.truth_readings(after)
    assert isinstance(a[0], Snapshot) and adapter.readings_agree(a, adapter.truth_readings(dealt))
    assert not adapter.readings_agree(a, b)
    view = adapter.observe(b, moved=True)
    assert view.mats == {1: ("red-1", "red-2", "red-3", "red-4"), 2: ("blue-1", "blue-2", "blue-3", "blue-4")}
    assert view.tray is not None and sorted(map(str, view.tray)) == sorted(str(d) for d in roll.dice)
    # From the state before the deal, the table explains both deals and the roll at once.
    start = GAME.initial_state(["Anna", "Ben"], {"leprechauns": "off"})
    explained = adapter.explain(start, view)
    assert [str(x) for x in explained.actions] == ["deal Anna: red-1 red-2 red-3 red-4",
                                                    "deal Ben: blue-1 blue-2 blue-3 blue-4", str(roll)]
    assert snapshot_from_truth(json.loads(json.dumps(after))) == b[0]


def test_what_the_camera_cannot_see_is_asked() -> None:
    adapter = adapter_for(GAME)
    start = GAME.initial_state(["Anna", "Ben"])  # leprechauns on: the cards laid out at setup are asked for
    view = adapter.observe(adapter.truth_readings({"cards": [], "tray": [], "common": [], "reserves": {}}),
                           moved=False)
    laid_out = adapter.explain(start, view).problems
    assert "lay out 4 leprechaun cards and enter them on the page" in laid_out[0]
    assert adapter.players_decide(start, laid_out)  # the players' entry, no doubt of what the camera saw
    # A die read in the tray, but not surely: asked, not guessed.
    state = GAME.initial_state(["Anna", "Ben"], {"leprechauns": "off"})
    for text in ("deal Anna: red-1 red-2 red-3 red-4", "deal Ben: blue-1 blue-2 blue-3 blue-4"):
        state = GAME.apply(state, GAME.parse_action(text))
    table = Table(2)
    table.follow(start, GAME.parse_action("deal Anna: red-1 red-2 red-3 red-4"), state)
    snapshot = snapshot_from_truth(truth_of(state, table))
    from dataclasses import replace

    from device.tables.dicetreasure import ZoneReading

    unsure = replace(snapshot, zones=(ZoneReading("tray", (Die(3, "red"),) * 6, sure=False), *snapshot.zones[1:]))
    problems = adapter.explain(state, adapter.observe([unsure], moved=True)).problems
    assert problems == ("the dice in the tray are hard to read (look red:3 red:3 red:3 red:3 red:3 red:3): correct "
                        "them on the page or press CONFIRM",)
    assert not adapter.players_decide(state, problems) and not adapter.players_decide(state, [*laid_out, *problems])
    assert not adapter.players_decide(state, []) and not adapter.players_decide(state, laid_out)  # not this state's
    # Accepted as read (CONFIRM): the roll is taken.
    confirmed = adapter.explain(state, adapter.confirm(adapter.observe([unsure], moved=True)))
    assert [str(a) for a in confirmed.actions] == ["roll red:3 red:3 red:3 red:3 red:3 red:3"]


def test_dice_lying_where_the_last_turns_dice_lay_are_no_new_roll() -> None:
    from dataclasses import replace

    from device.tables.dicetreasure import ZoneReading

    adapter = adapter_for(GAME)
    state, table = played(DEALT)
    roll = canonical(state, Roll((Die(6, "purple"), Die(1, "red"), Die(3, "blue"), Die(2, "red"), Die(4, "green"),
                                  Die(5, "yellow"))))
    assert isinstance(roll, Roll)
    turn = GAME.apply(state, roll)
    where = tuple((100.0 + 30 * i, 200.0) for i in range(len(roll.dice)))

    def seen(at: GameState, centres: tuple[tuple[float, float], ...]) -> object:
        snapshot = snapshot_from_truth(truth_of(at, table))
        tray = ZoneReading("tray", roll.dice, True, centres)
        return adapter.observe([replace(snapshot, zones=(tray, *snapshot.zones[1:]))], moved=False)

    assert [str(a) for a in adapter.explain(state, seen(turn, where)).actions] == [str(roll)]
    assert adapter.explain(turn, seen(turn, where)).actions == ()  # Anna's roll, still in the tray
    ended = GAME.apply(turn, GAME.parse_action("end", turn))  # Ben rolls next
    # The players went ahead of the table: Anna's dice still lie in the tray, where they lay. No roll for Ben.
    assert adapter.explain(ended, seen(ended, where)).actions == ()
    # The same faces rolled again land elsewhere: Ben's roll.
    moved = tuple((x + 11.0, y + 7.0) for x, y in where)
    assert [str(a) for a in adapter.explain(ended, seen(ended, moved)).actions] == [str(roll)]


def test_a_reserve_read_in_doubt_as_the_game_has_it_is_no_question_before_the_roll() -> None:
    from dataclasses import replace

    from device.tables.dicetreasure import ZoneReading

    adapter = adapter_for(GAME)
    state, table = played(ROLLED)
    ended = GAME.apply(state, GAME.parse_action("end keep red:1 blue:3", state))  # Ben rolls next
    table.follow(state, GAME.parse_action("end keep red:1 blue:3", state), ended)
    snapshot = snapshot_from_truth(truth_of(ended, table))
    ben = (Die(2, "green"), Die(6, "yellow"), Die(1, "purple"), Die(4, "blue"), Die(3, "red"), Die(5, "green"))

    def seen(anna: tuple[Die, ...], could_be: tuple[str, ...] = ()) -> object:
        zones = [z for z in snapshot.zones if z.zone not in ("tray", "reserve-1")]
        zones += [ZoneReading("tray", ben), ZoneReading("reserve-1", anna, sure=False, could_be=could_be)]
        return adapter.observe([replace(snapshot, zones=tuple(zones))], moved=False)

    roll = adapter.explain(ended, seen((Die(1, "red"), Die(3, "blue"))))
    assert [str(a) for a in roll.actions] == [str(canonical(ended, Roll(ben)))] and not roll.problems
    # Read in doubt as something else than the game has: asked.
    asked = adapter.explain(ended, seen((Die(1, "red"), Die(5, "blue"))))
    assert not asked.actions and "reserve 1 are hard to read" in asked.problems[0]
    # Only a colour in doubt, the other colour the reader named being the game's: the game's (blue read as purple).
    roll = adapter.explain(ended, seen((Die(1, "red"), Die(3, "purple")), ("", "blue")))
    assert [str(a) for a in roll.actions] == [str(canonical(ended, Roll(ben)))] and not roll.problems
    # ...but not when the reader named another colour, nor for a die the reader was sure of.
    for could_be in (("", "green"), ("blue", "")):
        asked = adapter.explain(ended, seen((Die(1, "red"), Die(3, "purple")), could_be))
        assert not asked.actions and "reserve 1 are hard to read" in asked.problems[0]


def test_loose_dice_agree_in_doubt_only_through_the_colours_the_reader_named() -> None:
    from device.tables.dicetreasure import _agrees_in_doubt

    blue4, purple4, yellow4 = Die(4, "blue"), Die(4, "purple"), Die(4, "yellow")
    assert _agrees_in_doubt((purple4, yellow4), ("blue", ""), (yellow4, blue4))
    assert _agrees_in_doubt((purple4, purple4), ("", "blue"), (purple4, blue4))  # either of the two may be it
    assert not _agrees_in_doubt((purple4, purple4), ("", ""), (purple4, blue4))
    assert not _agrees_in_doubt((purple4,), ("blue",), (blue4, yellow4))  # a die missing
    assert not _agrees_in_doubt((Die(5, "purple"),), ("blue",), (blue4,))  # another face
    assert not _agrees_in_doubt((purple4, purple4), ("blue", "blue"), (blue4,))


def test_a_space_in_doubt_that_looks_empty_is_empty_when_every_die_is_seen_elsewhere() -> None:
    from dataclasses import replace

    adapter = adapter_for(GAME)
    state, table = played(ROLLED)
    snapshot = snapshot_from_truth(truth_of(state, table))
    spot = next(s for s in snapshot.spots if s.card == "red-1")  # Anna's, empty in the game
    doubtful = replace(spot, why=("looks empty, but not clearly", *spot.why[1:]))
    spots = tuple(doubtful if s is spot else s for s in snapshot.spots)

    def explain(tray: tuple[Die, ...]) -> Explained:
        zones = tuple(replace(z, dice=tray) if z.zone == "tray" else z for z in snapshot.zones)
        return adapter.explain(state, adapter.observe([replace(snapshot, spots=spots, zones=zones)], moved=False))

    # Every die of the roll still lies in the tray: nothing was placed, nothing to ask.
    quiet = explain(state.hand)
    assert quiet.actions == () and quiet.problems == ()
    # A die gone from the tray and seen nowhere: it may be on that space, asked.
    asked = explain(state.hand[1:])
    assert asked.problems and "card red-1 space 1: looks empty, but not clearly" in asked.problems[0]


def test_a_space_read_in_doubt_as_its_own_print_is_empty_when_every_die_is_seen_elsewhere() -> None:
    from dataclasses import replace

    adapter = adapter_for(GAME)
    # orange-1's first space asks for a yellow 3: printed yellow with three pips, read as a yellow:3 in doubt (seed
    # 4602: yellow-6's purple 6 space, asked on every table of a round).
    state, table = played(("deal Anna: orange-1 red-2 red-3 red-4", *ROLLED[1:]))
    snapshot = snapshot_from_truth(truth_of(state, table))
    spot = next(s for s in snapshot.spots if s.card == "orange-1")

    def explain(die: Die, tray: tuple[Die, ...]) -> Explained:
        doubtful = replace(spot, dice=(die, *spot.dice[1:]),
                           why=("face hard to read (looks like 3); the space may be empty", *spot.why[1:]))
        spots = tuple(doubtful if s is spot else s for s in snapshot.spots)
        zones = tuple(replace(z, dice=tray) if z.zone == "tray" else z for z in snapshot.zones)
        return adapter.explain(state, adapter.observe([replace(snapshot, spots=spots, zones=zones)], moved=False))

    assert explain(Die(3, "yellow"), state.hand) == Explained()  # every die of the roll still in the tray
    # Another die read there (not the print), or a die gone from the tray: asked.
    assert "card orange-1 space 1" in explain(Die(4, "yellow"), state.hand).problems[0]
    assert "card orange-1 space 1" in explain(Die(3, "yellow"), state.hand[1:]).problems[0]


def test_a_doubt_between_two_cards_in_play_is_settled_by_the_dice_the_game_has_on_them() -> None:
    from dataclasses import replace

    adapter = adapter_for(GAME)
    state, placed, snapshot = placed_on_red_1()

    def doubted(card: str, other: str) -> Explained:
        spots = tuple(replace(s, doubt=other) if s.card == card else s for s in snapshot.spots)
        return adapter.explain(placed, adapter.observe([replace(snapshot, spots=spots)], moved=False))

    # red-1 holds the die just placed, red-2 none: the dice read say which card it is, and the reader is told to
    # keep it on its spot (the same doubt was asked on every table: seeds 4602, 4605).
    settled: list[tuple[tuple[str, int], str]] = []

    class Reader:
        def forget(self) -> None:
            pass

        def settle(self, key: tuple[str, int], card: str) -> bool:
            settled.append((key, card))
            return True

    adapter._reader = Reader()  # type: ignore[attr-defined]
    adapter._round = placed.round  # type: ignore[attr-defined]  # (the round's deal already seen)
    assert doubted("red-1", "red-2") == Explained()
    assert settled == [(("motif-cards-1", 0), "red-1")]
    # The same with another space of red-1 read in doubt: the spaces read surely say it (seed 4804).
    spots = tuple(replace(s, doubt="red-2", why=(*s.why[:2], "looks empty, but not clearly"))
                  if s.card == "red-1" else s for s in snapshot.spots)
    assert adapter.explain(placed, adapter.observe([replace(snapshot, spots=spots)], moved=False)) == Explained()
    assert settled[1:] == [(("motif-cards-1", 0), "red-1")]
    del settled[1:]
    # An empty card doubted as another empty one: which it is does not matter while nothing lies on it.
    assert doubted("red-2", "red-3") == Explained()
    assert len(settled) == 1  # nothing says which it is
    # A die read on a card where the game has none on either: asked (it may be either card's placement).
    spots = tuple(replace(s, doubt="red-2") if s.card == "red-1" else s for s in snapshot.spots)
    fresh = adapter_for(GAME)
    fresh._reader, fresh._round = Reader(), placed.round  # type: ignore[attr-defined]
    asked = fresh.explain(state, fresh.observe([replace(snapshot, spots=spots)], moved=False))
    assert asked.problems and "looks like red-1 but could be red-2" in asked.problems[0]
    assert len(settled) == 1


def placed_dice(state: GameState, card: str) -> tuple[Die | None, ...]:
    """The dice the game has on ``card`` (in play)."""
    return next(c.dice for p in state.players for c in p.cards if c.card.id == card)


def _with_zones(snapshot: Snapshot, **dice: tuple[Die, ...]) -> Snapshot:
    """``snapshot`` with these loose zones' dice (``tray``, ``common``: the common reserve) replaced."""
    from dataclasses import replace

    names = {"tray": "tray", "common": "common-reserve"}
    wanted = {names[k]: v for k, v in dice.items()}
    return replace(snapshot, zones=tuple(replace(z, dice=wanted[z.zone]) if z.zone in wanted else z
                                         for z in snapshot.zones))


def _waits(explained: Explained) -> bool:
    """Nothing taken, nothing asked, and the page told why: the table shows a turn the game has passed."""
    return explained.actions == () and explained.problems == () and "already passed" in explained.waiting


def test_a_table_the_game_has_passed_is_waited_for_and_an_exchange_needs_both_dice_seen() -> None:
    adapter = adapter_for(GAME)
    state, table = played(ROLLED)
    anna = snapshot_from_truth(truth_of(state, table))
    assert adapter.explain(state, adapter.observe([anna], moved=False)) == Explained()
    # The players answered ahead of the table (Anna's end, Ben's roll); the table still shows Anna's roll. It is
    # a table the game has passed: no roll, no exchange, no question (held-out seeds 4406, 4408).
    ended = GAME.apply(state, GAME.parse_action("end keep red:1 blue:3", state))
    table.follow(state, GAME.parse_action("end keep red:1 blue:3", state), ended)
    assert _waits(adapter.explain(ended, adapter.observe([anna], moved=False)))
    roll = GAME.parse_action("roll red:3 red:4 yellow:1 green:2 blue:5 purple:1", ended)
    ben = GAME.apply(ended, roll)
    table.follow(ended, roll, ben)
    assert _waits(adapter.explain(ben, adapter.observe([anna], moved=False)))
    # Ben's roll on the table, then one die swapped with the common reserve's green:4.
    now = snapshot_from_truth(truth_of(ben, table))
    assert adapter.explain(ben, adapter.observe([now], moved=False)) == Explained()
    green4, red3 = Die(4, "green"), Die(3, "red")
    tray = (*[d for d in ben.hand if d != red3], green4)
    common = [*ben.common]
    common.remove(green4)
    # Both dice seen to swap (red:3 now in the common reserve): the exchange.
    swapped = adapter.explain(ben, adapter.observe([_with_zones(now, tray=tray, common=(*common, red3))],
                                                   moved=False))
    assert [str(a) for a in swapped.actions] == ["exchange red:3 for green:4"]
    # The common reserve read as it was (green:4 still there, no red:3): asked, not taken.
    unseen = adapter.explain(ben, adapter.observe([_with_zones(now, tray=tray, common=ben.common)], moved=False))
    assert not unseen.actions and "looks like an exchange" in unseen.problems[0]
    # The tray emptied: Ben's turn ended only if his dice are seen in the common reserve (held-out seed 4408: a
    # table cleared at the round's end was taken for the end of a turn).
    cleared = adapter.explain(ben, adapter.observe([_with_zones(now, tray=(), common=ben.common)], moved=False))
    assert not cleared.actions and "looks like the end of the turn" in cleared.problems[0]
    ended_too = adapter.explain(ben, adapter.observe([_with_zones(now, tray=(), common=(*ben.common, *ben.hand))],
                                                     moved=False))
    assert [str(a) for a in ended_too.actions] == ["end"]
    # One die that lay there before missed among the common reserve's dozen: still the end; one of Ben's missed: no.
    assert len(ben.common) >= 2
    missed = adapter.explain(ben, adapter.observe([_with_zones(now, tray=(), common=(*ben.common[1:], *ben.hand))],
                                                  moved=False))
    assert [str(a) for a in missed.actions] == ["end"]
    missed_his = adapter.explain(ben, adapter.observe([_with_zones(now, tray=(), common=(*ben.common, *ben.hand[1:]))],
                                                      moved=False))
    assert not missed_his.actions and missed_his.problems


def test_a_doubt_between_a_card_on_its_players_mat_and_one_on_another_mat_is_no_question() -> None:
    from dataclasses import replace

    adapter = adapter_for(GAME)
    state, table = played(ROLLED)
    snapshot = snapshot_from_truth(truth_of(state, table))

    def doubted(card: str, other: str) -> Explained:
        spots = tuple(replace(s, doubt=other) if s.card == card else s for s in snapshot.spots)
        return adapter.explain(state, adapter.observe([replace(snapshot, spots=spots)], moved=False))

    # red-2 lies on Anna's mat, where the game has it; blue-2 is Ben's: the mat says which (seed 4409).
    assert doubted("red-2", "blue-2") == Explained()
    # Two of Anna's own cards: the mat does not tell them apart, but both are empty, and so is the card read: nothing
    # happened on it whichever it is (asked once a die lies on it: the test above).
    assert doubted("red-2", "red-3") == Explained()


def _gated_red_1_in_doubt(patches_for: Callable[[Snapshot], dict[object, np.ndarray]]) -> tuple[
        Any, GameState, SpotReading, Snapshot, dict[object, np.ndarray]]:
    """A rolled table read surely with the change gate's pictures ``patches_for`` makes (the reference, with the
    game's belief), and the same table read with red-1's first space and the tray in doubt: the adapter, the state,
    red-1's spot, the doubtful snapshot and the pictures (changed in place by the caller)."""
    from dataclasses import replace

    from device.tables.dicetreasure import DiceTreasureTable
    from vision.change import ChangeGate

    adapter = adapter_for(GAME)
    assert isinstance(adapter, DiceTreasureTable)
    state, table = played(ROLLED)
    snapshot = snapshot_from_truth(truth_of(state, table))
    patches = patches_for(snapshot)
    adapter._gate, adapter._patches = ChangeGate(), patches  # as the model reader's frame_reader sets them
    # Read surely and as the game has it: the reference, with the game's belief.
    assert adapter.explain(state, adapter.observe([snapshot], moved=False)) == Explained()
    spot = next(s for s in snapshot.spots if s.card == "red-1")
    spots = tuple(replace(s, why=("looks empty, but not clearly", *s.why[1:])) if s is spot else s
                  for s in snapshot.spots)
    tray = ZoneReading("tray", state.hand, sure=False)
    doubtful = replace(snapshot, spots=spots, zones=tuple(tray if z.zone == "tray" else z for z in snapshot.zones))
    return adapter, state, spot, doubtful, patches


def test_a_place_whose_picture_has_not_changed_keeps_the_games_belief_surely() -> None:
    rng = np.random.default_rng(5)

    def pictures(snapshot: Snapshot) -> dict[object, np.ndarray]:
        patches: dict[object, np.ndarray] = {(s.zone, s.spot, i + 1): rng.integers(0, 255, (12, 12, 3),
                                                                                   dtype=np.uint8)
                                             for s in snapshot.spots for i in range(len(s.dice))}
        patches.update({z.zone: rng.integers(0, 255, (40, 60, 3), dtype=np.uint8) for z in snapshot.zones})
        return patches

    adapter, state, spot, doubtful, patches = _gated_red_1_in_doubt(pictures)
    # The same pictures read in doubt: the belief is kept, nothing to ask.
    assert adapter.explain(state, adapter.observe([doubtful], moved=False)) == Explained()
    # The space's picture changed (something lies there now), and the tray's: read, and asked about.
    patches[(spot.zone, spot.spot, 1)] = np.invert(patches[(spot.zone, spot.spot, 1)])
    patches["tray"] = np.invert(patches["tray"])
    asked = adapter.explain(state, adapter.observe([doubtful], moved=False))
    assert asked.problems and "card red-1 space 1: looks empty, but not clearly" in asked.problems[0]


def test_a_space_whose_picture_changed_colour_as_a_whole_is_read_again_whatever_the_gate_says() -> None:
    rng = np.random.default_rng(7)
    grain = rng.integers(-3, 4, (12, 12, 3))
    green = np.clip(np.array([70, 185, 70]) + grain, 0, 255).astype(np.uint8)
    # (The tray has no picture: it is not carried, so the space is not accounted.)
    adapter, state, spot, doubtful, patches = _gated_red_1_in_doubt(
        lambda snapshot: {(s.zone, s.spot, i + 1): green.copy() for s in snapshot.spots for i in range(len(s.dice))})
    # The same pictures: the belief is kept, the space is not asked about.
    kept = adapter.explain(state, adapter.observe([doubtful], moved=False))
    assert not any("card red-1 space 1" in p for p in kept.problems)
    # A die of one colour lying over the whole patch, its pips too faint to see (a blur): the gate, which takes each
    # place's own mean difference out, calls the place unchanged; its mean colour moved far more than the table's.
    key = (spot.zone, spot.spot, 1)
    patches[key] = np.clip(np.array([140, 35, 125]) + grain, 0, 255).astype(np.uint8)
    assert not adapter._gate.changed({key: patches[key]})[key]
    asked = adapter.explain(state, adapter.observe([doubtful], moved=False))
    assert asked.problems and "card red-1 space 1: looks empty, but not clearly" in asked.problems[0]


def test_a_die_the_game_has_on_a_card_missed_by_the_camera_is_the_games_when_the_zones_agree() -> None:
    from dataclasses import replace


    adapter = adapter_for(GAME)
    state, placed, snapshot = placed_on_red_1()
    missed = replace(snapshot, spots=tuple(replace(s, dice=tuple(None for _ in s.dice)) if s.card == "red-1" else s
                                           for s in snapshot.spots))
    # Every loose zone as the game has it after the placement: the die is on its card (seed 4604), nothing asked.
    assert adapter.explain(placed, adapter.observe([missed], moved=False)) == Explained()
    # The die still in the tray: the table is not the game's; not taken for the game's die.
    behind = _with_zones(missed, tray=state.hand)
    assert adapter.explain(placed, adapter.observe([behind], moved=False)).problems
    # The players answered ahead of the table (another die placed on red-2): the table, its die on red-1 still
    # missed, shows a state the game passed and is waited for; and the die placed since the table last showed the
    # game is not given to the reading (three players, seed 4602: an "end" from a table a turn behind the game).
    from device.tables.dicetreasure import _with_missed
    from engine.dicetreasure import Place

    place = next(a for a in GAME.legal_actions(placed) if isinstance(a, Place) and a.card == "red-2")
    ahead = GAME.apply(placed, place)
    fresh = adapter_for(GAME)
    assert fresh.explain(placed, fresh.observe([missed], moved=False)) == Explained()
    assert _waits(fresh.explain(ahead, fresh.observe([missed], moved=False)))
    seen = adapter.observe([missed], moved=False)
    given = _with_missed(ahead, seen, placed)
    assert given is not None and given.cards["red-1"] == placed_dice(placed, "red-1")
    assert all(d is None for d in given.cards["red-2"])  # ahead's die there is not given


def test_a_turn_ended_from_a_cleared_table_after_a_table_not_read_clearly_is_asked() -> None:
    import random

    from engine.dicetreasure.simulate import eager_policy

    # A seeded game played to the last turn of its first round, with a die still in hand (the end clears the table).
    state, rng = GAME.initial_state(["Anna", "Ben"], {"leprechauns": "off"}), random.Random(3)
    while not (state.phase.value == "turn" and state.hand and GAME.apply(state, EndTurn(())).round != state.round):
        turn = state.phase.value in ("turn", "solo-fill")
        state = GAME.apply(state, eager_policy(state, GAME.legal_actions(state), rng) if turn
                           else GAME.random_chance(state, rng))
    adapter = adapter_for(GAME)
    cleared = adapter.observe(adapter.truth_readings({"cards": [], "tray": [], "common": [],
                                                      "reserves": {"1": [], "2": []}}),
                              moved=False)
    assert [str(a) for a in adapter.explain(state, cleared).actions] == ["end"]  # the last table was read clearly
    adapter._unsettled = True  # type: ignore[attr-defined]  # the table before it left a question
    asked = adapter.explain(state, cleared)
    assert not asked.actions and "the table is cleared" in asked.problems[0]


def test_a_die_read_in_doubt_on_a_space_before_it_left_the_tray_is_no_placement() -> None:
    from dataclasses import replace

    from engine.dicetreasure import Place

    state, table = played(ROLLED)
    snapshot = snapshot_from_truth(truth_of(state, table))
    place = next(a for a in GAME.legal_actions(state) if isinstance(a, Place) and a.card == "red-1")
    die, at = place.die, place.space - 1
    spot = next(s for s in snapshot.spots if s.card == "red-1")
    left = list(state.hand)
    left.remove(die)

    def seen(tray: tuple[Die, ...]) -> Snapshot:
        # A space of red-1 read in doubt as a die of the roll.
        dice, why = list(spot.dice), list(spot.why)
        dice[at], why[at] = die, "face hard to read"
        doubtful = replace(spot, dice=tuple(dice), why=tuple(why))
        return _with_zones(replace(snapshot, spots=tuple(doubtful if s is spot else s for s in snapshot.spots)),
                           tray=tray)

    def placed(before_too: bool) -> Explained:
        adapter = adapter_for(GAME)
        if before_too:  # the table before: the same doubt while the die still lay in the tray
            assert adapter.explain(state, adapter.observe([seen(state.hand)], moved=False)).problems
        return adapter.explain(state, adapter.observe([seen(tuple(left))], moved=False))

    # First seen with the die gone from the tray: the rules explain the reading, the placement is taken.
    assert [str(a) for a in placed(False).actions] == [str(place)]
    # The same doubt came before the die left the tray (seed 4604): asked, not taken.
    asked = placed(True)
    assert not asked.actions and f"card red-1 space {place.space}" in asked.problems[0]


def test_the_camera_view_marks_each_die_read_and_rings_the_doubts() -> None:
    adapter = adapter_for(GAME)
    frame = np.full((960, 1280, 3), 128, np.uint8)
    spot = SpotReading("motif-cards-1", 0, "red-1", (Die(4, "blue"), None), ("pips hard to count", ""),
                       ((200.0, 200.0), (300.0, 200.0)))
    tray = ZoneReading("tray", (Die(6, "yellow"),), True, ((600.0, 500.0),))
    drawn = adapter.annotate(frame, [Snapshot((spot,), (tray,))])
    assert (frame == 128).all()  # a copy
    assert tuple(drawn[200, 192]) == (174, 79, 31)  # the blue die's disc, beside its face
    assert tuple(drawn[500, 592]) == (30, 210, 235)  # the yellow die in the tray
    red = (drawn[..., 2] > 200) & (drawn[..., 0] < 60) & (drawn[..., 1] < 60)
    assert red[185:216, 185:216].any() and not red[485:516, 585:616].any()  # only the doubt is ringed
    assert tuple(drawn[200, 300]) == (128, 128, 128)  # an empty space: a hollow ring only


def test_a_doubt_on_the_mat_of_a_player_dealt_already_is_no_question_at_the_next_players_deal() -> None:
    from dataclasses import replace

    state, table = played(DEALT[:1])  # Anna dealt red-1..red-4; Ben's cards now
    ben = GAME.apply(state, GAME.parse_action(DEALT[1], state))
    table.follow(state, GAME.parse_action(DEALT[1], state), ben)
    snapshot = snapshot_from_truth(truth_of(ben, table))

    def doubted(zone: str) -> Snapshot:
        spot = next(s for s in snapshot.spots if s.zone == zone)
        return replace(snapshot, spots=tuple(replace(s, doubt="red-9") if s is spot else s for s in snapshot.spots))

    adapter = adapter_for(GAME)
    dealt = adapter.explain(state, adapter.observe([doubted("motif-cards-1")], moved=False))
    assert [str(a) for a in dealt.actions][:1] == [DEALT[1]] and not dealt.problems
    # A doubt on the mat being dealt is asked, as before.
    adapter = adapter_for(GAME)
    asked = adapter.explain(state, adapter.observe([doubted("motif-cards-2")], moved=False))
    assert not asked.actions and "motif-cards-2 card 1: looks like" in asked.problems[0]


def test_the_dice_colours_are_learnt_from_loose_dice_read_as_the_game_has_them() -> None:
    from dataclasses import replace

    from device.tables.dicetreasure import LEARN_AFTER, CardsView, DiceTreasureTable
    from vision.dicetreasure_read import DiceTreasureReader, dicetreasure_palette

    adapter = adapter_for(GAME)
    assert isinstance(adapter, DiceTreasureTable)
    state, _ = played(ROLLED)
    reader = DiceTreasureReader.__new__(DiceTreasureReader)  # only its palette is used here
    from vision.recognize import DiceRecognizer

    reader.recognizer = DiceRecognizer.__new__(DiceRecognizer)
    taught = replace(dicetreasure_palette(), kinds=())  # one reference per colour, as the table's reader has
    reader.recognizer.palette = taught
    adapter._reader, adapter._taught = reader, taught
    blue = dict(taught.colours)["blue"]
    hand = tuple(state.hand)
    i = next(n for n, d in enumerate(hand) if d.colour == "blue")
    for k in range(LEARN_AFTER):
        # The blue die read as purple in doubt (named blue by the game), a little otherwise on each table.
        seen_blue = (blue[0], blue[1] + 2.0, blue[2] + 5.0 + 0.1 * k)
        read = tuple(replace(d, colour="purple") if n == i else d for n, d in enumerate(hand))
        labs = tuple(seen_blue if n == i else dict(taught.colours)[str(d.colour)] for n, d in enumerate(hand))
        could_be = tuple("blue" if n == i else "" for n in range(len(hand)))
        view = CardsView({}, read={"tray": read}, labs={"tray": labs}, could_be={"tray": could_be})
        before = reader.recognizer.palette
        adapter._learn_colours(state, view)
        # A reading that does not agree with the game teaches nothing.
        adapter._learn_colours(state, replace(view, read={"tray": read[1:]}, labs={"tray": labs[1:]},
                                              could_be={"tray": could_be[1:]}))
    learnt = dict(reader.recognizer.palette.colours)["blue"]
    assert before is taught and learnt != blue and abs(learnt[2] - (blue[2] + 5.25)) < 0.2
    assert dict(reader.recognizer.palette.colours)["purple"] == dict(taught.colours)["purple"]
    # Dice "blue" that lie nearer the taught purple than the taught blue teach blue nothing.
    adapter._colour_seen.clear()
    reader.recognizer.palette = taught
    for k in range(LEARN_AFTER):
        far = (blue[0], blue[1] + 8.0, blue[2] + 13.0 + 0.1 * k)
        labs = tuple(far if n == i else dict(taught.colours)[str(d.colour)] for n, d in enumerate(hand))
        adapter._learn_colours(state, CardsView({}, read={"tray": hand}, labs={"tray": labs}))
    assert dict(reader.recognizer.palette.colours)["blue"] == blue


def test_a_table_cleared_at_the_rounds_end_is_not_taken_for_a_state_the_game_passed() -> None:
    from device.tables.dicetreasure import DiceTreasureTable

    adapter = adapter_for(GAME)
    assert isinstance(adapter, DiceTreasureTable)
    bare, _ = played(())
    state, _ = played(ROLLED)
    cleared = adapter.observe([Snapshot((), (ZoneReading("tray", ()), ZoneReading("common-reserve", ()),
                                             ZoneReading("reserve-1", ()), ZoneReading("reserve-2", ())))],
                              moved=False)
    adapter._since = [bare, state]
    assert not adapter._passed(state, cleared)
    adapter._since = [played(DEALT)[0], state]  # cards dealt, no die anywhere yet
    assert not adapter._passed(state, cleared)
    # A table that shows a state the game passed with cards dealt is still waited for.
    adapter._since = [played(DEALT)[0], state]
    dealt = adapter.observe([snapshot_from_truth(truth_of(*played(DEALT)))], moved=False)
    assert adapter._passed(state, dealt)


def test_a_die_missed_in_the_common_reserve_is_no_end_when_a_reserve_die_went_there() -> None:
    from dataclasses import replace

    from device.tables.dicetreasure import _common_shows

    state, _ = played(ROLLED)
    anna, ben = state.players
    purple6 = Die(6, "purple")
    common = (Die(4, "green"), Die(2, "red"), Die(5, "yellow"))
    before = replace(state, common=common, players=(replace(anna, reserve=(purple6,)), ben))
    after = replace(before, common=(*common, purple6), players=(replace(anna, reserve=()), ben))
    assert _common_shows(before, after, after.common)
    # green:4 not seen: taken for a die missed among the heap, unless the reserve's purple:6 went there (an exchange
    # of it for green:4, placed on a card the camera missed, looks so).
    assert not _common_shows(before, after, after.common[1:])
    kept = replace(before, common=(*common, Die(1, "blue")))
    assert _common_shows(before, kept, kept.common[1:])


def test_a_table_read_as_a_state_before_one_the_camera_explained_is_not_waited_for() -> None:
    from dataclasses import replace

    adapter = adapter_for(GAME)
    state, placed, snapshot = placed_on_red_1()
    assert adapter.explain(state, adapter.observe([snapshot], moved=False)).actions
    # The die just placed missed on its card and back where it lay: a misreading, asked about, not a wait.
    spots = tuple(replace(s, dice=tuple(None for _ in s.dice)) if s.card == "red-1" else s for s in snapshot.spots)
    before = replace(snapshot, spots=spots, zones=snapshot_from_truth(truth_of(*played(ROLLED))).zones)
    assert adapter.explain(placed, adapter.observe([before], moved=False)).problems


def test_the_same_game_whatever_order_the_common_reserves_dice_lie_in() -> None:
    # A replay's players tell steps the device took as fewer actions by the state reached (tuning seed 5004: an
    # exchange and an end seen as one end left the common reserve's dice in another order, the same game).
    from engine.dicetreasure.game import replace as replace_state

    adapter = adapter_for(GAME)
    state = GAME.initial_state(["Anna", "Ben"])
    heap = (Die(6, "blue"), Die(1, "blue"), Die(3, "red"))
    a = replace_state(state, common=heap)
    assert adapter.same_state(a, replace_state(state, common=heap[::-1]))
    assert not adapter.same_state(a, replace_state(state, common=(Die(6, "blue"), Die(1, "blue"), Die(4, "red"))))
    assert not adapter.same_state(a, replace_state(state, common=heap[:2]))
    assert not adapter.same_state(a, replace_state(a, phase=next(p for p in type(a.phase) if p is not a.phase)))


def test_replay_players_confirm_only_what_they_were_asked_and_is_right() -> None:
    """The replay's players press CONFIRM when every question is a reading in doubt the page offers CONFIRM for and
    what the device says it looks like is what lies there (the frame's truth), never otherwise: a card that looks
    like the one lying there, a space's die as it lies, a loose zone's dice in any order; a wrong guess, a question
    of another kind, or no truth, and they answer with the record's next action instead."""
    adapter = adapter_for(GAME)
    state = GAME.initial_state(["Anna", "Ben"], {}, seed=1)
    truth = {"cards": [{"zone": "middle", "spot": 5, "card": "indigo-3", "dice": [None, "red:2", "blue:2"]}],
             "tray": ["green:3", "yellow:2"], "common": [], "reserves": {"1": ["green:1"], "2": []}}
    card = "middle card 6: looks like indigo-3 but could be orange-6: straighten it or press CONFIRM"
    space = "card indigo-3 space 2: face hard to read (looks like 2) (looks red:2): correct it or press CONFIRM"
    empty = ("card indigo-3 space 1: something covers the space, but no die is read (looks empty): correct it or "
             "press CONFIRM")
    tray = "the dice in the tray are hard to read (look yellow:2 green:3): correct them on the page or press CONFIRM"
    assert adapter.confirmable(state, [truth], [card, space, empty, tray])
    assert adapter.confirmable(state, [truth], [card])
    wrong = [card.replace("card 6", "card 7"), space.replace("red:2)", "red:3)"), tray.replace("green:3", "green:4"),
             "card indigo-3 space 2: something covers the space, but no die is read (looks empty): correct it or "
             "press CONFIRM"]
    for question in wrong:
        assert not adapter.confirmable(state, [truth], [card, question]), question
    other = "the tray holds 1 dice; Ben draws 4 now: roll them all in the tray"
    assert not adapter.confirmable(state, [truth], [card, other])
    assert not adapter.confirmable(state, [], [card])
    assert not adapter.confirmable(state, [truth], [])


def test_a_roll_is_not_taken_while_the_cards_show_dice_the_game_has_not_placed() -> None:
    """A roll explained while a card in play shows a die on a space the game has empty, which the explanation does
    not place there, is the table ahead of the game (a roll and its placements missed, the next roll in the tray):
    the dice are named and the roll is asked about, never taken (fresh seed 6704 under blur took the next turn's roll
    for this one). A die the explanation places, or none, changes nothing."""
    from device.tables.dicetreasure import CardsView, _dice_not_placed
    from engine.dicetreasure import Place

    state, _ = played(DEALT)
    card = state.players[0].cards[0]
    die = Die(3, "yellow")
    shown = tuple(die if n == 0 else None for n in range(len(card.dice)))
    seen = CardsView({card.card.id: shown})
    roll = GAME.parse_action("roll blue:1 blue:6 purple:3", state)
    assert _dice_not_placed(state, seen, (roll,)) == [f"{card.card.id} space 1: yellow:3"]
    assert _dice_not_placed(state, seen, (roll, Place(die, card.card.id, 1))) == []
    assert _dice_not_placed(state, CardsView({card.card.id: tuple(card.dice)}), (roll,)) == []


def test_the_active_reserve_read_between_two_colours_is_named_by_the_dice_the_player_holds() -> None:
    """A die of the active player's personal reserve read with only its colour in doubt (purple, could be blue) is
    the game's blue die when the player holds no purple one (during a turn the reserve only loses dice; the end keeps
    reserve or current dice): the placement from the reserve is explained, no exchange and no question (tuning 6705).
    Where the player holds a die of the colour read, or the reader named no other colour, it stays a question."""
    from dataclasses import replace

    adapter = adapter_for(GAME)
    blue6, purple6, purple2 = Die(6, "blue"), Die(6, "purple"), Die(2, "purple")

    def explained(roll: str, reserve_read: tuple[Die, ...], could_be: tuple[str, ...]) -> Explained:
        state, table = played((*DEALT, roll))
        anna, ben = state.players
        state = replace(state, players=(replace(anna, reserve=(blue6, purple2)), ben))
        after = GAME.apply(state, GAME.parse_action("place reserve purple:2 red-1#2", state))
        snap = snapshot_from_truth(truth_of(after, table))
        zones = tuple(ZoneReading("reserve-1", reserve_read, sure=False, could_be=could_be) if z.zone == "reserve-1"
                      else z for z in snap.zones)
        return adapter.explain(state, adapter.observe([replace(snap, zones=zones)], moved=False))

    no_purple6 = "roll red:1 red:2 yellow:5 green:4 blue:3 yellow:6"
    for reading in ((blue6,), ()), ((purple6,), ("blue",)):
        result = explained(no_purple6, *reading)
        assert [str(a) for a in result.actions] == ["place reserve purple:2 red-1#2"] and not result.problems
    asked = "the dice in the reserve 1 are hard to read (look purple:6): correct them on the page or press CONFIRM"
    assert explained(no_purple6, (purple6,), ("",)).problems == (asked,)
    held = explained("roll red:1 red:2 yellow:5 green:4 blue:3 purple:6", (purple6,), ("blue",))
    assert not held.actions and held.problems == (asked,)


def test_a_die_read_in_doubt_on_a_plain_space_of_its_colour_may_be_the_print() -> None:
    """A plain coloured space (a colour asked, no pips) read as a die of that colour in doubt, any face, is the
    space's own print when every die of the turn is seen elsewhere (fresh seed 6901: yellow-9's plain blue space
    read as a blue:2 in doubt, asked about at nine tables). Another colour, or a die missing from the tray: asked."""
    from dataclasses import replace

    adapter = adapter_for(GAME)
    state, table = played(ROLLED)  # red-1's first space asks for blue, with no pips
    snapshot = snapshot_from_truth(truth_of(state, table))
    spot = next(s for s in snapshot.spots if s.card == "red-1")

    def explain(die: Die, tray: tuple[Die, ...]) -> Explained:
        doubtful = replace(spot, dice=(die, *spot.dice[1:]),
                           why=(f"face hard to read (looks like {die.value})", *spot.why[1:]))
        spots = tuple(doubtful if s is spot else s for s in snapshot.spots)
        zones = tuple(replace(z, dice=tray) if z.zone == "tray" else z for z in snapshot.zones)
        return adapter.explain(state, adapter.observe([replace(snapshot, spots=spots, zones=zones)], moved=False))

    assert explain(Die(2, "blue"), state.hand) == Explained()
    assert "card red-1 space 1" in explain(Die(2, "red"), state.hand).problems[0]
    assert "card red-1 space 1" in explain(Die(2, "blue"), state.hand[1:]).problems[0]  # red:1 seen nowhere
    # The blue die of the roll gone from the tray and read there: placed (its face the one blue value in hand).
    placed = explain(Die(3, "blue"), tuple(d for d in state.hand if d.colour != "blue"))
    assert [str(a) for a in placed.actions] == ["place blue:3 red-1#1"]


def _every_die_placed() -> tuple[GameState, Table]:
    """After ROLLED, Anna's six dice all placed on her cards (the first such order found), and the table."""
    from engine.dicetreasure import Place

    state, table = played(ROLLED)

    def search(at: GameState, path: tuple[Any, ...]) -> tuple[Any, ...] | None:
        if not at.hand:
            return path
        for action in GAME.legal_actions(at):
            if isinstance(action, Place) and action.card in {c.card.id for c in at.players[0].cards}:
                found = search(GAME.apply(at, action), (*path, action))
                if found is not None:
                    return found
        return None

    path = search(state, ())
    assert path is not None
    for action in path:
        before, state = state, GAME.apply(state, action)
        table.follow(before, action, state)
    return state, table


def test_with_every_die_placed_a_roll_read_in_doubt_ends_the_turn_and_is_asked() -> None:
    """Every die of the turn placed, the tray holding the next roll read in doubt: those dice cannot be the
    player's, so the turn's end is taken and only the roll is asked (fresh seed 6901: the end was waited for
    silently, then the next player's first die asked about as placed out of turn). A die seen then on the next
    player's card is named as placed from a roll not read yet."""
    from dataclasses import replace

    adapter = adapter_for(GAME)
    state, table = _every_die_placed()
    snapshot = snapshot_from_truth(truth_of(state, table))
    roll = (Die(1, "green"), Die(4, "blue"), Die(6, "red"), Die(2, "yellow"), Die(5, "purple"), Die(3, "green"))

    def seen(tray: tuple[Die, ...], shot: Snapshot = snapshot) -> object:
        zones = tuple(ZoneReading("tray", tray, sure=False) if z.zone == "tray" else z for z in shot.zones)
        return adapter.observe([replace(shot, zones=zones)], moved=False)

    ended = adapter.explain(state, seen(roll))
    assert [type(a) for a in ended.actions] == [EndTurn] and not ended.problems
    after = GAME.apply(state, ended.actions[0])
    assert after.players[after.active].name == "Ben"
    asked = adapter.explain(after, seen(roll)).problems
    assert asked and "the dice in the tray are hard to read" in asked[0]
    # Ben placed a die of that roll on blue-1 before the camera read the roll.
    shot = snapshot_from_truth(truth_of(after, table))
    spots = tuple(replace(s, dice=(roll[0], *s.dice[1:])) if s.card == "blue-1" else s for s in shot.spots)
    early = adapter.explain(after, seen(roll[1:], replace(shot, spots=spots))).problems
    assert early == ("card blue-1 space 1 (Ben's): the game has nothing, the camera sees green:1; the roll has not "
                     "been read yet: enter it on the page",)
