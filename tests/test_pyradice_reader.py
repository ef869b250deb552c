"""The Pyradice reader on rendered tables (vision.lab.pyradice_render -> vision.pyradice_read) and its table adapter.

Frames are rendered from seeded engine states (seeds used nowhere in tuning); the reader must get most slots,
faces and colours right and must mark every wrong reading unsure; the adapter turns a reading of a rendered
turn into the engine's actions, asking (never guessing) where the reading is in doubt."""

from __future__ import annotations

import math
import random
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device.errors import SessionError
from device.tables import Explained, adapter_for
from device.tables.pyradice import EMPTY_UNDER_BELIEF, OCCUPANCY_UNCLEAR, SWAPPED, TableSeen
from engine.dice import Die
from engine.game import find_game
from engine.pyradice.pyramid import SLOTS
from engine.pyradice.state import Phase, PyradiceState
from vision.lab.mat_render import random_view
from vision.lab.pyradice_measure import score_frame
from vision.lab.pyradice_render import TableFrame, random_table_style, render_table, seeded_state
from vision.pyradice_read import (
    EMPTY,
    PRESENT,
    PRINT_PX,
    UNLIKE_EMPTY,
    BoardReading,
    BrickLattice,
    DieRead,
    PositionReading,
    PyradiceReader,
    PyradiceReading,
    QuarryReading,
    ReserveReading,
    SlotReading,
    _occupancy,
    _print_decides,
    _teach_from_truth,
    _top_and_print,
    _unlike_print,
    fit_lattice,
)
from vision.registration import MarkerFinder, ZoneTracker, locate

SIZE = (1280, 960)


@pytest.fixture(scope="module")
def reader() -> PyradiceReader:
    return PyradiceReader(2)


def _frame(state: Any, seed: int, style: Any, k: int) -> TableFrame:
    rng = np.random.default_rng([seed, 2, k, 31])
    return render_table(state, rng, SIZE, random_view(rng, max_tilt=25.0), style)


def _taught(reader: PyradiceReader, seed: int, style: Any) -> None:
    """The players name the dice on the boards once per table (set-up), here from the truth."""
    teach = _frame(seeded_state(seed, 2, 4), seed, style, 0)
    reader.lattices.clear()
    reader.board_labs.clear()
    _teach_from_truth(reader, teach, teach.image, locate(teach.image, "pyradice", 2, MarkerFinder()))
    reader.lattices.clear()


def test_brick_lattice_found_from_a_few_dice_of_unknown_pitch() -> None:
    truth = BrickLattice((30.0, 100.0), (17.2 * math.cos(0.03), 17.2 * math.sin(0.03)),
                         (17.2 * math.sin(0.03), -17.2 * math.cos(0.03)))
    used = [(1, 0), (1, 1), (1, 2), (1, 4), (2, 0), (2, 1), (3, 0)]
    rng = np.random.default_rng(3)
    centres = np.array([truth.centre(s) for s in used]) + rng.normal(0, 0.4, (len(used), 2))
    prior = BrickLattice((27.0, 102.0), (17.5, 0.0), (0.0, -17.5))  # nominal pitch, board off by a few mm
    fitted = fit_lattice(centres, np.ones(len(used)), prior)
    assert fitted is not None and fitted.dice == len(used)
    assert abs(fitted.pitch - 17.2) < 0.3
    assert max(math.dist(fitted.centre(s), truth.centre(s)) for s in SLOTS) < 1.5  # every slot, filled or not


def test_a_lattice_kept_from_a_few_finds_does_not_say_which_cell_is_slot_1_0() -> None:
    """Which lattice cell is slot (1, 0) follows a kept lattice only once it was fitted on several dice, else the
    board's printed outline: one fitted on a few faint finds (tuning replay 5702: a pitch of 20.8 for 17.4) put
    the next fit a level off, and every die of a level was read, sure, as the one below it for the whole game."""
    truth = BrickLattice((30.0, 100.0), (17.2, 0.0), (0.0, -17.2))
    used = [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 0), (2, 1), (2, 2), (3, 0)]
    centres = np.array([truth.centre(s) for s in used]) + np.random.default_rng(4).normal(0, 0.3, (len(used), 2))
    prior = BrickLattice((28.0, 101.5), (17.5, 0.0), (0.0, -17.5))
    off = BrickLattice((30.0 - 8.6, 100.0 - 17.2), (17.2, 0.0), (0.0, -17.2), 5)  # slot (1, 0) where (2, 0) is
    fitted = fit_lattice(centres, np.ones(len(used)), prior, off)
    assert fitted is not None
    assert max(math.dist(fitted.centre(s), truth.centre(s)) for s in SLOTS) < 1.0
    kept = fit_lattice(centres, np.ones(len(used)), prior, replace(truth, dice=10))  # a kept one from many dice
    assert kept is not None and max(math.dist(kept.centre(s), truth.centre(s)) for s in SLOTS) < 1.0


@pytest.mark.parametrize(("seed", "turns"), [(7301, 10), (7302, 24)])
def test_rendered_tables_are_read_and_no_wrong_reading_is_sure(reader: PyradiceReader, seed: int,
                                                              turns: int) -> None:
    style = random_table_style(np.random.default_rng([seed, 99]), hand=0.0)
    _taught(reader, seed, style)
    state = seeded_state(seed, 2, turns)
    frame = _frame(state, seed, style, 1)
    reg = locate(frame.image, "pyradice", 2, MarkerFinder())
    assert {"board-1", "board-2", "quarry"} <= {z.zone.key for z in reg.zones}
    before = seeded_state(seed, 2, turns - 1).quarry.dice  # what the game believed before the last turn
    reading = reader.read(frame.image, reg, dict(before))
    counts = score_frame(reading, frame.truth)
    assert counts["slots"] == 42
    assert counts["sure_wrong"] == 0
    assert counts["occupancy_right"] >= 0.9 * counts["slots"]
    assert counts["dice"] >= 0.8 * sum(len(b.dice) for b in frame.truth.boards.values())
    assert counts["face_right"] >= 0.75 * counts["dice"] and counts["colour_right"] >= 0.75 * counts["dice"]
    assert counts["quarry_tops"] > 0 and counts["quarry_top_face_right"] >= 0.6 * counts["quarry_tops"]
    # Everything the reading reports carries a confidence and lands in the frame.
    for board in reading.boards:
        assert len(board.slots) == 21 and board.lattice is not None
        for s in board.slots:
            assert 0.0 <= s.occupancy <= 1.0 and 0 <= s.centre[0] < SIZE[0] and 0 <= s.centre[1] < SIZE[1]


def test_adapter_explains_a_rendered_turn_with_the_true_actions(reader: PyradiceReader) -> None:
    game = find_game("pyradice")
    table = adapter_for(game)
    seed = 7305
    style = random_table_style(np.random.default_rng([seed, 99]), hand=0.0)
    _taught(reader, seed, style)
    before = seeded_state(seed, 2, 9)
    rng = random.Random(seed)
    take = rng.choice([a for a in game.legal_actions(before) if a.kind == "take"])
    taken = game.apply(before, take)
    place = rng.choice(game.legal_actions(taken))
    after = game.apply(taken, place)
    frame = _frame(after, seed, style, 2)
    reader.lattices.clear()
    reading = reader.read(frame.image, locate(frame.image, "pyradice", 2, MarkerFinder()), dict(before.quarry.dice))
    seen = table.observe([reading], moved=True)
    explained = table.explain(before, seen)
    if explained.problems:
        # The table asks; the players correct what it named from what lies there (the truth) and it is explained.
        assert all("hard to read" in p or "changed" in p for p in explained.problems), explained.problems
        mine = frame.truth.boards[before.turn + 1].dice
        for k, place_ in enumerate(_index(reading)):
            if place_[0] == before.turn + 1:
                table_value = mine.get(place_[1])
                seen = table.correct(seen, k, table_value)
        explained = table.explain(before, seen)
    assert not explained.problems, explained.problems
    assert explained.actions[:2] == (take, place)
    assert table.seen_json(seen)["boards"][0]["slots"][0]["slot"] == "1,0"
    assert 0 <= table.reading_at(seen, *reading.boards[0].slots[0].centre) < len(_index(reading))


def _index(reading: PyradiceReading) -> list[tuple[int, Any]]:
    return [(b.seat, s.slot) for b in reading.boards for s in b.slots]


def _die(value: int, colour: str, unsure: bool = False) -> DieRead:
    return DieRead(value, colour, 0.99, 0.9, (50.0, 0.0, 0.0), unsure, "low confidence" if unsure else "")


def _reading_of(state: Any, unsure_slot: tuple[int, int] | None = None, seat_of_doubt: int = 1) -> PyradiceReading:
    """A reading that sees exactly ``state`` (every board, the quarry's uncovered tops), one slot in doubt."""
    boards = []
    for seat, player in enumerate(state.players, start=1):
        slots = []
        for s in SLOTS:
            die = player.pyramid.get(s)
            doubt = seat == seat_of_doubt and s == unsure_slot
            read = _die(die.value, die.colour, doubt) if die is not None else None
            slots.append(SlotReading(s, die is not None, 1.0 if die else 0.0, read, doubt,
                                     "low confidence" if doubt else "", (100.0 + s[1] * 20, 100.0 + s[0] * 20)))
        boards.append(BoardReading(seat, tuple(slots)))
    positions = []
    for pos in state.quarry.geometry.positions:
        die = state.quarry.dice.get(pos)
        covered = die is not None and any(q in state.quarry.dice for q in state.quarry.geometry.covers[pos])
        positions.append(PositionReading(pos, EMPTY if die is None else ("covered" if covered else PRESENT), 1.0,
                                         None if die is None or covered else _die(die.value, die.colour), False,
                                         "", (600.0, 600.0)))
    reserves = tuple(ReserveReading(seat, False, None, False) for seat in (1, 2))
    return PyradiceReading(2, tuple(boards), QuarryReading(tuple(positions)), reserves)


def test_a_doubtful_slot_is_asked_about_corrected_or_confirmed() -> None:
    game = find_game("pyradice")
    table = adapter_for(game)
    before = seeded_state(42, 2, 8)
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    taken = game.apply(before, take)
    place = game.legal_actions(taken)[0]
    after = game.apply(taken, place)
    slot = place.slot
    seen = table.observe([_reading_of(after, unsure_slot=slot, seat_of_doubt=before.turn + 1)], moved=True)
    explained = table.explain(before, seen)
    # The quarry (read sure) says which die was taken, and the one doubtful slot is where it can have gone:
    # the turn is explained without that reading (the engine leaves readings in doubt out of the match).
    assert not explained.problems and explained.actions[:2] == (take, place)
    # The quarry in doubt everywhere too: two doubtful readings that agree, each from its own place (the die placed
    # read as exactly the die whose position reads empty, every other die still read on top), say which was taken.
    quarry_doubt = _reading_of(after, unsure_slot=slot, seat_of_doubt=before.turn + 1)
    positions = tuple(replace(p, unsure=True) if p.position == take.position or p.state == PRESENT else p
                      for p in quarry_doubt.quarry.positions)
    agreeing = replace(quarry_doubt, quarry=QuarryReading(positions))
    assert table.explain(before, table.observe([agreeing], moved=True)).actions[:2] == (take, place)
    # The placed die's face read otherwise: they do not agree, and two turns are left open: asked, naming them.
    die = after.players[before.turn].pyramid[slot]
    mover = agreeing.boards[before.turn]
    misread = replace(mover, slots=tuple(replace(s, die=_die(die.value % 6 + 1, die.colour, True)) if s.slot == slot
                                         else s for s in mover.slots))
    seen = table.observe([replace(agreeing, boards=tuple(misread if b.seat == mover.seat else b
                                                         for b in agreeing.boards))], moved=True)
    explained = table.explain(before, seen)
    assert f"level {slot[0]}, slot {slot[1] + 1} is hard to read: correct it or press CONFIRM" in explained.problems
    assert table.explain(before, table.confirm(table.observe([agreeing], moved=True))).actions[:2] == (take, place)
    k = next(i for i, (seat, s) in enumerate(_index(seen.reading)) if seat == before.turn + 1 and s == slot)
    assert table.explain(before, table.correct(seen, k, str(die))).actions[:2] == (take, place)
    wrong = Die(die.value % 6 + 1, die.colour)
    assert table.explain(before, table.correct(seen, k, wrong)).problems  # no legal turn places that die
    with pytest.raises(SessionError):
        table.correct(seen, k, "purple:3")
    with pytest.raises(SessionError):
        table.correct(seen, 10_000, "white:3")
    # Nothing changed on the table: nothing to take; another player's die moved: asked, not ignored.
    assert table.explain(before, table.observe([_reading_of(before)], moved=False)).actions == ()
    bumped = _reading_of(before)
    other = before.turn ^ 1
    other_board = bumped.boards[other]
    first = next(s for s in other_board.slots if s.occupied)
    changed = (SlotReading(first.slot, False, 0.0, None, False, "", first.centre),
               *[s for s in other_board.slots if s.slot != first.slot])
    boards = list(bumped.boards)
    boards[other] = BoardReading(other_board.seat, tuple(sorted(changed, key=lambda s: SLOTS.index(s.slot))))
    problems = table.explain(before, table.observe([PyradiceReading(2, tuple(boards), bumped.quarry,
                                                                    bumped.reserves)], moved=True)).problems
    assert problems == (f"{before.players[other].name}'s {first.slot[0]},{first.slot[1]} changed: bumped?",)


def test_the_table_is_read_from_the_camera() -> None:
    table = adapter_for(find_game("pyradice"))
    assert table.live == "camera"
    with pytest.raises(SessionError, match="nothing of the table was read"):
        table.observe([], moved=True)
    assert isinstance(table.observe([_reading_of(seeded_state(1, 2, 2))], moved=False), TableSeen)


def test_a_reading_the_players_overrode_is_not_asked_about_again() -> None:
    """A die on another board read otherwise than the game has it is asked about ("bumped?"); when the players
    move the game on past the question (on the page), that reading is in doubt from then on, not asked again."""
    game = find_game("pyradice")
    table = adapter_for(game)
    before = seeded_state(43, 2, 8)
    bumped = _reading_of(before)
    other = before.turn ^ 1
    board = bumped.boards[other]
    first = next(s for s in board.slots if s.occupied)
    assert first.die is not None
    wrong = replace(first, die=replace(first.die, value=first.die.value % 6 + 1))
    boards = list(bumped.boards)
    boards[other] = replace(board, slots=tuple(wrong if s.slot == first.slot else s for s in board.slots))
    seen = table.observe([replace(bumped, boards=tuple(boards))], moved=True)
    assert any("bumped?" in p for p in table.explain(before, seen).problems)
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    moved_on = game.apply(before, take)  # the players answered on the page
    assert not any("bumped?" in p for p in table.explain(moved_on, seen).problems)
    later = table.observe([replace(bumped, boards=tuple(boards))], moved=True)  # the same misread, a new frame
    assert not any("bumped?" in p for p in table.explain(moved_on, later).problems)


def test_a_die_only_in_hand_on_readings_in_doubt_is_not_taken() -> None:
    """A still table whose only news is a quarry top read in doubt (from above, a lower die's top is seen almost
    where a taken one was; in replay 5305 one of two identical dice read so while the other was the one taken
    later): no take is made of it and nothing is asked; the die shows in its slot at the next still table."""
    game = find_game("pyradice")
    table = adapter_for(game)
    before = seeded_state(44, 2, 8)
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    taken = game.apply(before, take)
    seen = _reading_of(taken)
    doubtful = tuple(replace(p, state=PRESENT, unsure=True, reason="looks empty", die=_die(1, "white", True))
                     if p.position == take.position else p for p in seen.quarry.positions)
    explained = table.explain(before, table.observe([replace(seen, quarry=QuarryReading(doubtful))], moved=True))
    assert explained.actions == () and explained.problems == ()
    assert "seen only in doubt" in explained.waiting  # said on the page, not asked
    # Seen sure empty (a perfect reader), the take is the table's news: the die is in hand.
    assert table.explain(before, table.observe([seen], moved=True)).actions[:1] == (take,)
    # Placed, the die in its slot says which was taken.
    place = game.legal_actions(taken)[0]
    after = game.apply(taken, place)
    placed = _reading_of(after)
    placed = replace(placed, quarry=QuarryReading(tuple(
        replace(p, state=PRESENT, unsure=True, reason="looks empty", die=_die(1, "white", True))
        if p.position == take.position else p for p in placed.quarry.positions)))
    again = table.explain(before, table.observe([placed], moved=True))
    assert again.actions[:2] == (take, place)


def _placed_in_doubt() -> tuple[PyradiceState, Any, Any, Any, PyradiceReading]:
    """A 2-player game's take and placement, the table read after them with the placed die's slot in doubt: the
    state before the take, the take, the placement, another legal slot, and the reading."""
    game = find_game("pyradice")
    before = seeded_state(46, 2, 8)
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    taken = game.apply(before, take)
    place, other = game.legal_actions(taken)[:2]
    after = game.apply(taken, place)
    return before, take, place, other, _reading_of(after, unsure_slot=place.slot, seat_of_doubt=before.turn + 1)


def test_readings_in_doubt_say_where_the_die_went_once_the_quarry_says_which() -> None:
    """The quarry (read sure) says which die was taken; the slot it went to reads in doubt as that die and another
    legal slot in doubt as empty: the turn is taken without asking (in tuning replays of 3 and 4 players most
    placements were asked about so). Were the quarry in doubt too, the taken die's place read as still there, which
    die it was would be asked."""
    game = find_game("pyradice")
    table = adapter_for(game)
    before, take, place, other, reading = _placed_in_doubt()
    seat = before.turn + 1
    board = reading.boards[seat - 1]
    board = replace(board, slots=tuple(replace(s, unsure=True, reason="cannot tell") if s.slot == other.slot else s
                                       for s in board.slots))
    boards = tuple(board if b.seat == seat else b for b in reading.boards)
    explained = table.explain(before, table.observe([replace(reading, boards=boards)], moved=True))
    assert not explained.problems and explained.actions[:2] == (take, place)
    # The quarry in doubt too, the taken die's place read as still there (as from above a lower die's top may be):
    # which die it was is asked.
    gone = before.quarry.dice[take.position]
    still = _die(gone.value, gone.colour or "", True)
    twin = replace(reading, boards=boards, quarry=QuarryReading(tuple(
        replace(p, unsure=True) if p.state == PRESENT else
        replace(p, state=PRESENT, die=still, unsure=True) if p.position == take.position else p
        for p in reading.quarry.positions)))
    assert table.explain(before, table.observe([twin], moved=True)).problems


def test_at_the_skill_step_a_die_read_empty_in_doubt_is_asked_about() -> None:
    """At the skill step a die the skill swapped (A4) may read empty in doubt: asked about, never left for the
    CONFIRM that ends the step to record "no skill" (tuning replay 5306, action 78)."""
    game = find_game("pyradice")
    table = adapter_for(game)
    start = seeded_state(48, 2, 12)
    take = next(a for a in game.legal_actions(start) if a.kind == "take")
    taken = game.apply(start, take)
    step = next(s for s in (game.apply(taken, p) for p in game.legal_actions(taken)) if s.phase.value == "skill")
    seat = step.turn + 1
    older = sorted(s for s in step.players[seat - 1].pyramid if s != step.placed)[0]
    reading = _reading_of(step)
    board = reading.boards[seat - 1]
    def seen_with(why: str) -> TableSeen:
        doubt = replace(board, slots=tuple(replace(s, occupied=False, die=None, unsure=True, reason=why)
                                           if s.slot == older else s for s in board.slots))
        return table.observe([replace(reading, boards=tuple(doubt if b.seat == seat else b for b in reading.boards))],
                             moved=True)

    # Its picture changed since the game agreed with it, or it was never seen otherwise: at the skill step, where
    # dice change by hand, asked either way (between turns the second is no news: the change gate's test).
    assert table.explain(step, seen_with(SWAPPED)).problems
    assert table.explain(step, seen_with(EMPTY_UNDER_BELIEF)).problems


def a_skill_step(game: Any) -> tuple[Any, Any, Any, Any]:
    """A 2-player game (seed 49, 12 turns in): the state, a take, the placement that leads to a skill step, and
    that skill step."""
    start = seeded_state(49, 2, 12)
    take = next(a for a in game.legal_actions(start) if a.kind == "take")
    taken = game.apply(start, take)
    place = next(p for p in game.legal_actions(taken) if game.apply(taken, p).phase.value == "skill")
    return start, take, place, game.apply(taken, place)


def test_confirm_after_dice_moved_at_the_skill_step_is_not_taken_as_no_skill() -> None:
    """At the skill step a hand moved dice (a still table seen to move since the placement) and the camera saw no
    skill it can tell, the table read in doubt: CONFIRM ("the skill is done") is not recorded as "no skill" (a B2,
    an A5 and a B3 read in doubt were so in replays 5501, 5503, 5504); NEXT is "no skill". With nothing moved, or
    all read sure and as before (an A2 re-roll that came up its face), CONFIRM is "no skill"."""
    game = find_game("pyradice")
    table = adapter_for(game)
    start, take, place, step = a_skill_step(game)
    placed = table.observe([_reading_of(step)], moved=True)
    assert table.explain(start, placed).actions[:2] == (take, place)
    assert table.button(step, "confirm", long=False).action == game.parse_action("pass")  # nothing moved since
    same = table.observe([_reading_of(step)], moved=False)  # settled again, all read sure and as before
    assert table.explain(step, same).actions == ()
    assert table.button(step, "confirm", long=False).action == game.parse_action("pass")
    again = _reading_of(step, unsure_slot=step.placed, seat_of_doubt=step.turn + 1)
    moved = table.observe([again], moved=False)  # settled again after a hand: read in doubt, as before otherwise
    assert table.explain(step, moved).actions == ()
    pressed = table.button(step, "confirm", long=False)
    assert pressed.action is None and pressed.said is not None and "NEXT" in pressed.said
    assert table.button(step, "next", long=False).action == game.parse_action("pass")


def test_confirm_on_a_skill_step_begun_from_a_picture_in_doubt_is_not_no_skill() -> None:
    """The placement was explained from a picture with readings in doubt, which may already show what the skill
    did (the game a turn behind the table: a B3 in replay 5504): CONFIRM is then not "no skill"; NEXT is."""
    game = find_game("pyradice")
    table = adapter_for(game)
    start, take, place, step = a_skill_step(game)
    reading = _reading_of(step)
    far = next(p for p in reading.quarry.positions if p.state == PRESENT and p.position != take.position)
    doubtful = replace(reading, quarry=QuarryReading(tuple(replace(p, unsure=True, reason="low confidence")
                                                           if p is far else p for p in reading.quarry.positions)))
    assert table.explain(start, table.observe([doubtful], moved=True)).actions[:2] == (take, place)
    assert table.button(step, "confirm", long=False).action is None
    assert table.button(step, "next", long=False).action == game.parse_action("pass")


def test_a_table_ahead_of_the_game_is_caught_up_turn_by_turn_never_explained_as_another_action() -> None:
    """The table shows more than one turn (the next player's die already placed while the game is still at the
    mover's turn: replay 5503's wrong A5 began so, a "pass" tapped for the next turn landing on this turn's skill
    step): the mover's turn is explained from it and then the next one, the next player's die is never a problem
    ("bumped?") nor part of the mover's turn; where the mover's skill step is not over, that is asked."""
    game = find_game("pyradice")
    table = adapter_for(game)
    before = seeded_state(45, 2, 6)
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    taken = game.apply(before, take)

    def next_turn_on_level_1(state: Any) -> tuple[Any, Any, Any]:
        own = next(a for a in game.legal_actions(state) if a.kind == "take")
        held = game.apply(state, own)
        place = next(p for p in game.legal_actions(held) if p.slot[0] == 1)  # level 1: no skill step
        return own, place, game.apply(held, place)

    flat = next(p for p in game.legal_actions(taken) if p.slot[0] == 1)
    take2, place2, both = next_turn_on_level_1(game.apply(taken, flat))
    explained = table.explain(before, table.observe([_reading_of(both)], moved=True))
    assert not explained.problems and explained.actions == (take, flat, take2, place2)
    # The mover placed where a skill may follow and the next player moved on: the skill step is asked about before
    # anything is taken (tuning replay 5504: a "pass" tapped for the next turn landed on this skill step, a B3
    # read in doubt, and was recorded as no skill), and again at the skill step once the players answered.
    high = next(p for p in game.legal_actions(taken) if game.apply(taken, p).phase.value == "skill")
    step = game.apply(taken, high)
    passed = game.apply(step, game.parse_action("pass"))
    take3, place3, ahead = next_turn_on_level_1(passed)
    seen = table.observe([_reading_of(ahead)], moved=True)
    for at in (before, step):
        asked = table.explain(at, seen)
        assert not asked.actions and asked.problems[0].startswith("the table is ahead of the game")
        assert "skill step" in asked.problems[0]
    assert table.explain(passed, seen).actions == (take3, place3)  # the skill step ended (NEXT): the next turn


def test_after_an_answer_that_ends_the_turn_the_same_picture_is_no_news_of_the_next_turn() -> None:
    """The players answered a question about a turn (here the take and the placement, both read in doubt); the same
    picture, read again for the next player, shows only readings in doubt around the quarry (the die just taken):
    nothing is taken or asked from it (tuning replay 5502: each answer to such a question ran the game a turn
    further ahead of the table, up to 8 placements). A die on the next player's board is news: read sure, or read
    in doubt on a slot the game has empty (it may lie there: looked at now, session 17)."""
    game = find_game("pyradice")
    table = adapter_for(game)
    before = seeded_state(45, 2, 6)
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    taken = game.apply(before, take)
    after = game.apply(taken, next(p for p in game.legal_actions(taken) if p.slot[0] == 1))
    reading = _reading_of(after)
    nxt = next(a for a in game.legal_actions(after) if a.kind == "take")
    die = after.quarry.dice[nxt.position]
    held = game.apply(after, nxt)
    slot = next(p for p in game.legal_actions(held) if p.slot[0] == 1).slot

    def with_next(sure: bool) -> TableSeen:
        board = reading.boards[after.turn]
        board = replace(board, slots=tuple(replace(s, occupied=True, die=_die(die.value, die.colour, not sure),
                                                   unsure=not sure) if s.slot == slot else s for s in board.slots))
        quarry = tuple(replace(p, unsure=True, reason="looks empty, the game has it there")
                       if p.position in (take.position, nxt.position) else p for p in reading.quarry.positions)
        return table.observe([replace(reading, boards=tuple(board if b.seat == after.turn + 1 else b
                                                            for b in reading.boards),
                                      quarry=QuarryReading(quarry))], moved=True)

    placed = game.parse_action(f"place {slot[0]},{slot[1]}")
    for sure in (False, True):
        seen = with_next(sure)
        asked: Any = table
        asked._pending = (seen, before)  # asked about this picture at ``before``; the players answered since
        explained = table.explain(after, seen)
        # Read sure, the next turn is taken; in doubt, it is the one every fitting turn agrees on, or asked.
        assert explained.actions[:2] == (nxt, placed) if sure else (explained.problems or
                                                                    explained.actions[:2] == (nxt, placed))
        assert explained != Explained()
    quarry_only = table.observe([replace(reading, quarry=with_next(False).reading.quarry)], moved=True)
    asked._pending = (quarry_only, before)
    assert table.explain(after, quarry_only) == Explained()  # the answered turn's doubts: no news


def test_a_take_of_one_of_two_like_dice_is_asked_when_the_skill_may_have_moved_the_other() -> None:
    """The table shows a take, its placement on a level whose skill moves quarry dice (B3) and that skill done: one
    of two like dice gone sure, the other read empty in doubt. The shorter turn (the one gone sure taken, no skill
    yet) is not taken: the die taken may be the other one (tuning replay 5504, "take q0,2,5" for "take q0,0,3;
    place; B3 q0,2,5")."""
    game = find_game("pyradice")
    table = adapter_for(game)
    start = seeded_state(41, 2, 16)
    held = game.apply(start, game.parse_action("take q1,1,1"))
    after = game.apply(game.apply(held, game.parse_action("place 3,0")), game.parse_action("B3 q1,0,2"))
    reading = _reading_of(after)
    twin = start.quarry.dice[(1, 1, 1)]
    assert start.quarry.dice[(1, 0, 2)] == twin
    doubtful = tuple(replace(p, state=PRESENT, die=_die(twin.value, twin.colour or "", True), unsure=True,
                             reason="looks empty, the game has it there") if p.position == (1, 1, 1) else p
                     for p in reading.quarry.positions)
    reserves = tuple(replace(r, unsure=True) for r in reading.reserves)
    asked = table.explain(start, table.observe([replace(reading, quarry=QuarryReading(doubtful), reserves=reserves)],
                                               moved=True))
    assert not asked.actions and any("may have come from quarry" in p for p in asked.problems)
    # The twin read as still there, but a die seen (in doubt) on the mover's reserve spot: the B3 may be done too.
    mover = start.turn + 1
    held_die = _die(twin.value, twin.colour or "", True)
    on_spot = tuple(replace(r, occupied=True, die=held_die, unsure=True) if r.seat == mover else r
                    for r in reading.reserves)
    twin_there = tuple(replace(p, state=PRESENT, die=held_die, unsure=True, reason="hard to read")
                       if p.position == (1, 1, 1) else p for p in reading.quarry.positions)
    asked = table.explain(start, table.observe([replace(reading, quarry=QuarryReading(twin_there), reserves=on_spot)],
                                               moved=True))
    assert not asked.actions and any("reserve spot may hold a die" in p for p in asked.problems)


def test_a_die_of_the_movers_read_empty_in_doubt_does_not_make_a_plain_turn_a_question() -> None:
    """Dice never leave a pyramid and no take or placement empties a slot: a die of the mover's that reads empty in
    doubt (a white die on a light board under blur, picture after picture: tuning replay 5804, Anna's 1,5, asked
    about at each of her next turns) says nothing about a turn with no skill, which is explained as the rest of
    the table shows it. At a skill step it still counts (a swap read empty was once recorded as no skill)."""
    game = find_game("pyradice")
    table = adapter_for(game)
    before = seeded_state(42, 2, 8)
    seat = before.turn + 1
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    taken = game.apply(before, take)
    place = next(p for p in game.legal_actions(taken) if p.slot[0] == 1)  # level 1: no skill step
    after = game.apply(taken, place)
    reading = _reading_of(after)
    mover = reading.boards[seat - 1]
    old = next(s for s in sorted(before.mover.pyramid) if s != place.slot)
    blank = replace(mover, slots=tuple(replace(s, occupied=False, occupancy=0.0, die=None, unsure=True,
                                               reason="cannot tell whether a die is there") if s.slot == old else s
                                       for s in mover.slots))
    seen = table.observe([replace(reading, boards=tuple(blank if b.seat == seat else b for b in reading.boards))],
                         moved=True)
    explained = table.explain(before, seen)
    assert explained.problems == () and explained.actions[:2] == (take, place)


def test_only_the_slots_read_occupied_get_the_face_models_second_look(reader: PyradiceReader) -> None:
    """Whether a die is there is judged from the first look (pips, detector, colour, "not a die"); the second look
    (more views of a doubtful face through the model) is only for the slots read occupied: an empty slot has no
    face, and its second look was eight more crops through the model each."""
    seed = 9417
    state = seeded_state(seed, 2, 6)
    frame = _frame(state, seed, random_table_style(np.random.default_rng([seed, 3]), hand=0.0), 1)
    reg = locate(frame.image, "pyradice", 2, MarkerFinder())
    view = reg.zone("board-1")
    assert view is not None
    looked_again: list[int] = []
    plain = reader.faces.probabilities

    def counted(crops: np.ndarray) -> np.ndarray:
        looked_again.append(len(crops))
        return plain(crops)

    reader.forget_geometry()
    reader.faces.probabilities = counted  # type: ignore[method-assign]
    try:
        board = reader.read_board(frame.image, view, 1)
    finally:
        del reader.faces.probabilities
    occupied = sum(1 for s in board.slots if s.occupied)
    assert occupied < len(SLOTS) - 6  # most slots empty: the case this is about
    assert sum(looked_again) <= 8 * occupied


def test_a_known_quarry_die_read_sure_as_itself_is_there_unless_one_like_it_lies_under() -> None:
    """The top layer's dice, nearest the camera, are often found weakly and their pips not counted: a die the game
    knows, read there sure as exactly that die by the face model, is there, sure, when no die like it (nor one
    the game has not seen) lies anywhere under its footprint; where a die was taken the face model may read the
    top of a die under it sure (tuning 6001: a gray 4 where an orange 2 had been), so not with a like one under."""
    from engine.pyradice.quarry import geometry
    from vision.pyradice_read import _quarry_presence, _under

    orange2 = Die(2, "orange")
    sure = DieRead(2, "orange", 1.0, 1.0, (60.0, 30.0, 50.0), False)
    there = _quarry_presence(0.9, 0.1, sure, orange2, nothing_like_under=True)
    assert there[0] and there[2]
    assert _quarry_presence(0.9, 0.1, sure, orange2, nothing_like_under=False)[2] is False
    assert _quarry_presence(0.5, 0.1, sure, orange2, nothing_like_under=True)[2] is False  # "a die" not sure
    assert _quarry_presence(0.9, 0.1, replace(sure, unsure=True), orange2, nothing_like_under=True)[2] is False
    assert _quarry_presence(0.9, 0.1, replace(sure, value=3), orange2, nothing_like_under=True)[2] is False
    geo = geometry(1)
    top = max(geo.positions)
    under = _under(geo, top)
    assert set(geo.supports[top]) <= under and any(q[0] == 0 for q in under) and top not in under


def test_a_die_read_in_doubt_on_a_board_fitted_on_no_die_does_not_say_where_it_went() -> None:
    """The quarry says which die was taken and one slot reads it in doubt: on a board whose lattice is fitted on
    dice read sure that is where it went; on a board whose lattice is fitted on no die (the printed outline alone,
    which can put the slots a cell off: measured once on 6404, the first die taken as placed beside its slot) it
    is asked."""
    game = find_game("pyradice")
    before, take, place, other, reading = _placed_in_doubt()
    seat = before.turn + 1

    def seen(dice: int) -> PyradiceReading:
        board = reading.boards[seat - 1]
        board = replace(board, lattice=BrickLattice((30.0, 100.0), (17.5, 0.0), (0.0, -17.5), dice=dice),
                        slots=tuple(replace(s, unsure=True, reason="cannot tell") if s.slot == other.slot else s
                                    for s in board.slots))
        return replace(reading, boards=tuple(board if b.seat == seat else b for b in reading.boards))

    fitted = adapter_for(game).explain(before, adapter_for(game).observe([seen(4)], moved=True))
    assert not fitted.problems and fitted.actions[:2] == (take, place)
    table = adapter_for(game)
    unfitted = table.explain(before, table.observe([seen(0)], moved=True))
    assert unfitted.problems and "not fitted on any die" in unfitted.problems[-1]
    assert place not in unfitted.actions


def test_the_die_in_hand_read_in_doubt_in_its_slot_is_asked_in_words_of_its_own() -> None:
    """The take is known (seen, or answered by the players) and the die in hand would lie in a slot read in doubt
    ("cannot tell whether a die is there"): that is asked, never waited for in silence, and in words naming the
    die and the slot, not the take's question again (tuning 5802, 3 players: Cleo's apex, the game's last
    placement, read so after the players answered the take; the same question read as no news, the game never
    ended)."""
    game = find_game("pyradice")
    before = seeded_state(47, 2, 8)
    seat = before.turn + 1
    take = next(a for a in game.legal_actions(before) if a.kind == "take")
    taken = game.apply(before, take)
    place = game.legal_actions(taken)[0]

    def read(quarry_doubt: bool) -> PyradiceReading:
        reading = _reading_of(taken)  # the die not yet read in its slot
        mover = reading.boards[seat - 1]
        mover = replace(mover, slots=tuple(
            replace(s, occupied=False, occupancy=0.5, die=None, unsure=True,
                    reason="cannot tell whether a die is there") if s.slot == place.slot else s for s in mover.slots))
        positions = tuple(replace(p, state=PRESENT, unsure=True, reason="looks empty", die=_die(1, "white", True))
                          if quarry_doubt and p.position == take.position else p for p in reading.quarry.positions)
        return replace(reading, boards=tuple(mover if b.seat == seat else b for b in reading.boards),
                       quarry=QuarryReading(positions))

    # Only the slot in doubt: the die in hand may lie there, asked.
    table = adapter_for(game)
    alone = table.explain(taken, table.observe([read(False)], moved=True))
    assert alone.actions == () and any("the die taken" in p and "may lie at" in p for p in alone.problems)
    # With the die taken read in doubt too: asked about at the take, then (the take answered) in other words.
    table = adapter_for(game)
    seen = table.observe([read(True)], moved=True)
    at_take = table.explain(before, seen)
    assert at_take.problems and not at_take.actions
    after_answer = table.explain(taken, seen)
    assert after_answer.actions == () and after_answer.problems != at_take.problems
    assert any(f"may lie at level {place.slot[0]}, slot {place.slot[1] + 1}" in p for p in after_answer.problems)
    # A slot the die in hand cannot go to, read empty in doubt, is no news while the die is in hand.
    table = adapter_for(game)
    closed = next(s for s in SLOTS if s not in taken.mover.pyramid and s not in game.legal_slots(taken))
    reading = _reading_of(taken)
    mover = reading.boards[seat - 1]
    mover = replace(mover, slots=tuple(
        replace(s, occupancy=0.5, unsure=True, reason="cannot tell whether a die is there") if s.slot == closed else s
        for s in mover.slots))
    quiet = table.explain(taken, table.observe(
        [replace(reading, boards=tuple(mover if b.seat == seat else b for b in reading.boards))], moved=True))
    assert quiet.actions == () and quiet.problems == ()


def _recorded_turns(seed: int, players: int, placements: int) -> tuple[list[np.ndarray], list[Any], Any]:
    """A recorded table's pictures (``companion record``'s camera, boards and look): the set-up, then the table after
    each of the first ``placements`` placements; their truths, and the colours taught at set-up."""
    from device.record_pyradice import _Recorder, _teaching, _teaching_state, play

    game = find_game("pyradice")
    rec = _Recorder(Path(tempfile.mkdtemp(prefix="pyradice-prints-")), seed, players, None, SIZE)
    lessons = _teaching(rec, _teaching_state(seed, players))
    state, actions = play(seed, players)
    images, truths = [], []
    placed = -1
    for action in actions:
        if placed < 0 and state.phase is not Phase.ROLL_OFF:
            placed = 0
            _, _, drawn = rec.render(state, hand=False)
            images.append(drawn.image)
            truths.append(drawn.truth)
        state = game.apply(state, action)
        if action.kind == "place":
            placed += 1
            _, _, drawn = rec.render(state, hand=False)
            images.append(drawn.image)
            truths.append(drawn.truth)
            if placed == placements:
                break
    return images, truths, lessons


def test_a_light_die_on_a_light_board_is_found_against_its_slots_empty_print() -> None:
    """Tuning recording 6402 (2 players): white and gray dice on light cream boards, 18.5 px across in the frame.
    Their bodies lie 5 to 12.5 from the board's colour, the detector finds them faintly and no pips are counted:
    "cannot tell whether a die is there". Against its slot's own empty print, remembered from the set-up picture,
    a die's top changes every part of it: a die is there, sure (once the board's lattice is fitted on dice); and no
    slot is read so where no die lies. Each picture is read as the device reads it: the places a placement did not
    change carried from the table before (the change gate's part), the new die's slot read."""
    images, truths, lessons = _recorded_turns(6402, 2, 12)
    readers = [PyradiceReader(2), PyradiceReader(2)]  # the second forgets every print before each picture
    for r in readers:
        r.teach(lessons.items())
    tracker = ZoneTracker("pyradice", 2)
    found_by_print = 0
    before: dict[tuple[Any, ...], Any] = {}
    for k, (image, truth) in enumerate(zip(images, truths, strict=True)):
        reg = tracker.update(image)
        now = {("slot", seat, s): board.dice.get(s) for seat, board in truth.boards.items() for s in SLOTS}
        known = {place: die for place, die in now.items() if place in before and before[place] == die}
        readers[1].prints.clear()
        reading, afresh = (r.read(image, reg, known=known) for r in readers)
        before = now
        for board, plain in zip(reading.boards, afresh.boards, strict=True):
            for s, p in zip(board.slots, plain.slots, strict=True):
                true = truth.boards[board.seat].dice.get(s.slot)
                if not s.unsure:  # no sure reading is wrong, nor a die sure where none lies
                    assert s.occupied == (true is not None), (k, board.seat, s.slot, s.reason)
                if true is not None and p.unsure and p.reason == OCCUPANCY_UNCLEAR:
                    found_by_print += s.occupied and s.reason != OCCUPANCY_UNCLEAR
    assert found_by_print >= 2  # placed dice the print-less reader cannot tell about, found against their prints


def test_a_die_changes_every_part_of_its_slots_empty_print_a_neighbours_shadow_only_some() -> None:
    """How unlike its slot's empty print a top looks: the least changed of its nine parts. A die's top (a lighter
    body with pips, on a light board: its body only some 15 grey levels from the board) changes every part; the
    print seen two pixels off, or a neighbour's shadow over a third of it, leaves some part as it was."""
    rng = np.random.default_rng(5)
    board = np.full((PRINT_PX, PRINT_PX), 180.0, np.float32)
    cv2.rectangle(board, (14, 14), (41, 41), 150.0, 1)  # the printed recess
    board += rng.normal(0, 1.5, board.shape).astype(np.float32)
    corner = (100, 200)
    centre = (100 + PRINT_PX / 2, 200 + PRINT_PX / 2)
    zone = np.full((400, 400), 180.0, np.float32)

    def placed(patch: np.ndarray, at: tuple[int, int] = (0, 0)) -> np.ndarray:
        out = zone.copy()
        out[200 + at[1]:200 + at[1] + PRINT_PX, 100 + at[0]:100 + at[0] + PRINT_PX] = patch
        return out + rng.normal(0, 1.0, out.shape).astype(np.float32)  # the camera's noise, picture by picture

    def unlike(now: np.ndarray) -> float:
        pair = _top_and_print(now, (board, corner), centre)
        assert pair is not None
        return _unlike_print(*pair)

    assert unlike(placed(board)) < 3.0
    assert unlike(placed(board, (2, -2))) < 3.0  # registration's jitter, a lattice refitted
    shadow = board.copy()
    shadow[:, :22] -= 40.0
    assert unlike(placed(shadow)) < 3.0
    die = board.copy()
    die[12:44, 12:44] = 196.0
    for x, y in ((20, 20), (36, 36), (28, 28), (20, 36), (36, 20)):
        cv2.circle(die, (x, y), 2, 60.0, -1)
    assert unlike(placed(die)) >= UNLIKE_EMPTY


def test_the_print_decides_where_the_others_cannot_tell_never_against_their_sure_reading() -> None:
    """The print's "a die is there" (UNLIKE_EMPTY or more): a sure die where the other measures cannot tell; in doubt
    against their sure empty (never overruled), where the face model clearly sees no die, or the mat is covered;
    below UNLIKE_EMPTY no vote. More than UNLIKE_MOST slots of a board decided by it at once (a board moved, the light
    changed): none is."""
    board = np.array([68.0, 2.0, 14.0])
    unclear = (0.9, 0.4, None, (72.0, 2.0, 17.0), board)  # a faint find, the body 4 from the board's colour
    assert _occupancy(*unclear)[2] is False
    assert _occupancy(*unclear, unlike=UNLIKE_EMPTY)[::2] == (True, True)
    assert _occupancy(*unclear, unlike=UNLIKE_EMPTY - 1) == _occupancy(*unclear)
    assert _occupancy(*unclear, unlike=UNLIKE_EMPTY, covered=True)[::2] == (True, False)
    no_die = (0.3, 0.4, None, (72.0, 2.0, 17.0), board)  # the face model's clear "not a die"
    assert _occupancy(*no_die, unlike=20.0)[2] is False
    empty = (0.9, 0.0, None, (69.0, 2.0, 14.0), board)  # nothing found, the board's own colour: sure empty
    assert _occupancy(*empty)[::2] == (False, True)
    assert _occupancy(*empty, unlike=40.0)[::2] == (False, False)
    plain = {k: _occupancy(*unclear) for k in range(6)}
    judged = {k: _occupancy(*unclear, unlike=20.0) for k in range(6)}
    few, by_print = _print_decides(plain, {**plain, 0: judged[0], 1: judged[1]})
    assert by_print == [0, 1] and few[0][2] and few[1][2]
    many, by_print = _print_decides(plain, judged)
    assert by_print == [] and many == plain


def test_lattice_search_and_snap_choose_what_trying_every_candidate_chooses() -> None:
    """The lattice's phase search (every pitch of a turn at once) and its snap to the outline (only the cells near
    the best) choose, to the bit, what the plain loops over every candidate choose: random dice sets from none to a
    full pyramid, a kept lattice's narrow grid and the wide one, a single die (every pitch scores alike: the first
    best must stay the first), and the reference lattice itself (equidistant cells)."""
    from vision.pyradice_read import MAX_TURN, PITCH_RANGE, BrickLattice, _phase_search, _snap_origin

    def search_by_loop(centres: np.ndarray, weights: np.ndarray, pitches: Any, turns: Any) -> tuple[float, ...]:
        best: tuple[float, ...] | None = None
        for theta in turns:
            c, s = math.cos(theta), math.sin(theta)
            u = centres[:, 0] * c + centres[:, 1] * s
            v = centres[:, 0] * s - centres[:, 1] * c
            for p in pitches:
                lv = v / p
                ph_level = np.sum(weights * np.exp(2j * np.pi * lv))
                la = u / p - np.round(lv - np.angle(ph_level) / (2 * np.pi)) / 2
                ph_along = np.sum(weights * np.exp(2j * np.pi * la))
                score = abs(ph_level) + abs(ph_along)
                if best is None or score > best[0]:
                    best = (score, float(theta), float(p), float(np.angle(ph_level) / (2 * np.pi)),
                            float(np.angle(ph_along) / (2 * np.pi)))
        assert best is not None
        return best

    def snap_by_loop(lattice: BrickLattice, ref: BrickLattice) -> tuple[float, float]:
        ref_mid = np.array(ref.origin) + 2.5 * np.array(ref.step) + 2.5 * np.array(ref.up)
        offset = 2.5 * np.array(lattice.step) + 2.5 * np.array(lattice.up)
        best: tuple[float, tuple[float, float]] | None = None
        for dk in range(-12, 13):
            for di in range(-14, 15):
                along = di + dk / 2
                o = (lattice.origin[0] + along * lattice.step[0] + dk * lattice.up[0],
                     lattice.origin[1] + along * lattice.step[1] + dk * lattice.up[1])
                d = float(np.linalg.norm(np.array(o) + offset - ref_mid))
                if best is None or d < best[0]:
                    best = (d, o)
        assert best is not None
        return best[1]

    rng = np.random.default_rng(20)
    for trial in range(120):
        pitch, turn = rng.uniform(16, 20), math.radians(rng.normal(0, 3))
        step = (pitch * math.cos(turn), pitch * math.sin(turn))
        up = (pitch * math.sin(turn), -pitch * math.cos(turn))
        lattice = BrickLattice((float(rng.uniform(-30, 150)), float(rng.uniform(-30, 150))), step, up, 0)
        n = int(rng.integers(1, 22)) if trial % 5 else 1
        centres = rng.uniform(0, 130, (n, 2))
        weights = rng.uniform(0.3, 1.0, n)
        if trial % 2:
            pitches = np.linspace(pitch * 0.97, pitch * 1.03, 7)
            turns = np.radians(np.linspace(math.degrees(turn) - 1.5, math.degrees(turn) + 1.5, 7))
        else:
            pitches = np.arange(PITCH_RANGE[0], PITCH_RANGE[1] + 1e-6, 0.2)
            turns = np.radians(np.arange(-MAX_TURN, MAX_TURN + 1e-6, 1.0))
        assert _phase_search(centres, weights, pitches, turns) == search_by_loop(centres, weights, pitches, turns)
        other = BrickLattice((float(rng.uniform(0, 40)), float(rng.uniform(80, 130))), step, up, 0)
        for ref in (other, lattice):
            assert _snap_origin(lattice, ref).origin == snap_by_loop(lattice, ref), trial
