"""The engine changes the camera needs (issue 22): a quarry whose covered dice are unknown until first seen,
readings in doubt left out of the match, and skill outcomes inferred from one changed die never accepted
silently (the issue's one-pip misreads of older dice)."""

from __future__ import annotations

import numpy as np
import pytest

from engine import AmbiguousActionError, IllegalActionError
from engine.dice import Die
from engine.errors import GameError
from engine.pyradice import Observation, Phase, PyradiceGame, PyradiceState, Reveal, Skill, Take
from engine.pyradice import pyramid as pyr
from engine.pyradice.game import setup
from engine.pyradice.observe import board_changes, explain
from engine.pyradice.quarry import Position, Quarry
from engine.simulate import play

G = PyradiceGame()


def _camera_quarry(state: PyradiceState) -> Quarry:
    q = state.quarry
    return Quarry.seen_at_setup(len(state.players), {p: d for p, d in q.dice.items() if not q.covered(p)})


def _seen(after: PyradiceState, seat: int) -> Observation:
    """What a perfect camera sees after a turn: covered quarry dice are present with no value."""
    q = after.quarry
    quarry: dict[Position, Die | None] = {p: (None if q.covered(p) else d) for p, d in q.dice.items()}
    p = after.players[seat]
    return Observation(p.pyramid, quarry, p.reserve, True)


def test_a_quarry_seen_at_setup_knows_only_the_uncovered_dice() -> None:
    true = G.initial_state(["ana", "ben"], seed=11)
    q = _camera_quarry(true)
    assert len(q) == 47 and len(q.dice) == 8 and len(q.unknown) == 39  # only the top layer is seen
    assert q.available() == true.quarry.available()
    assert q.to_reveal() == []  # every uncovered die was seen
    covered = sorted(q.unknown)[0]
    with pytest.raises(IllegalActionError, match="still covered"):
        q.reveal(covered, Die(3, "white"))
    with pytest.raises(GameError, match="were not seen"):
        Quarry.seen_at_setup(2, {})


def test_an_unknown_die_cannot_be_taken_until_it_is_revealed() -> None:
    # Take the whole top layer away in the true game; the camera game learns each die as it is uncovered.
    true = G.initial_state(["ana", "ben"], seed=5)
    state = setup(["ana", "ben"], quarry=_camera_quarry(true), board=true.board, cards=true.cards, first="ana")
    assert G.reveals_needed(state) == []
    q = state.quarry
    unknown_available = [p for p in q.available() if p in q.unknown]
    assert not unknown_available  # at set-up every available die is uncovered, so seen
    # a take that uncovers a die: its value must come from the camera before it can be used
    pos = q.known_available()[0]
    after = G.apply(G.apply(state, Take(pos)), G.legal_actions(G.apply(state, Take(pos)))[0])
    for p in G.reveals_needed(after):
        with pytest.raises(IllegalActionError, match="not been seen"):
            after.quarry.remove(p)
        die = true.quarry.dice[p]
        revealed = G.apply(after, Reveal(p, die))
        assert p not in revealed.quarry.unknown and revealed.phase is after.phase
        assert G.parse_action(str(Reveal(p, die))) == Reveal(p, die)


@pytest.mark.parametrize(("players", "seed"), [(2, 21), (3, 22), (4, 23)])
def test_a_whole_game_is_followed_from_a_camera_set_up(players: int, seed: int) -> None:
    """The true game knows every die; the tracked one starts from what the camera saw at set-up and learns
    each covered die from the observation of the turn that uncovers it. Both reach the same score sheet."""
    playout = play(G, ["ana", "ben", "cleo", "dan"][:players], seed)
    states = playout.states
    first = next(i for i, s in enumerate(states) if s.phase is Phase.TAKE)
    true0 = states[first]
    tracked = setup(true0.players and [p.name for p in true0.players], quarry=_camera_quarry(true0),
                    board=true0.board, cards=true0.cards, first=true0.players[true0.turn].name)
    reveals = 0
    i = first
    while states[i].phase is not Phase.OVER:
        before = states[i]
        j = next(k for k in range(i + 1, len(states)) if states[k].phase is Phase.OVER or states[k].turn != before.turn)
        for action in explain(tracked, _seen(states[j], before.turn)).actions:
            reveals += isinstance(action, Reveal)
            tracked = G.apply(tracked, action)
        i = j
    assert tracked.phase is Phase.OVER and reveals > 0
    assert G.score(tracked) == G.score(states[-1])


def _turns(seed: int, players: int = 2) -> list[tuple[PyradiceState, PyradiceState]]:
    playout = play(G, ["ana", "ben", "cleo", "dan"][:players], seed)
    states = playout.states
    out = []
    for i, s in enumerate(states):
        if s.phase is Phase.TAKE and i + 1 < len(states):
            j = next((k for k in range(i + 1, len(states)) if states[k].phase is Phase.OVER
                      or states[k].turn != s.turn), None)
            if j is not None:
                out.append((s, states[j]))
    return out


def test_a_doubtful_slot_is_left_out_when_one_turn_still_fits() -> None:
    for before, after in _turns(31)[4:12]:
        seat = before.turn
        now, was = after.players[seat].pyramid, before.players[seat].pyramid
        placed = next(s for s in pyr.SLOTS if s in now and s not in was)
        older = [s for s in before.players[seat].pyramid if s != placed]
        unsure = frozenset(older[:1])
        seen = Observation(after.players[seat].pyramid, dict(after.quarry.dice), after.players[seat].reserve, True,
                           unsure_slots=unsure)
        try:
            found = explain(before, seen).actions
        except AmbiguousActionError:
            continue  # the doubtful die decides it: asked, never guessed
        state = before
        for a in found:
            state = G.apply(state, a)
        assert state.players[seat].pyramid == after.players[seat].pyramid


def _misreads(count: int) -> list[tuple[PyradiceState, Observation]]:
    """One-pip misreads of an older die (not the one placed, not one the skill changed), from seeded games."""
    out: list[tuple[PyradiceState, Observation]] = []
    seed = 100
    while len(out) < count:
        for n, (before, after) in enumerate(_turns(seed)):
            seat = before.turn
            mine, now = before.players[seat].pyramid, after.players[seat].pyramid
            older = [s for s in pyr.SLOTS if s in mine and mine[s] == now.get(s)]
            if not older:
                continue
            slot = older[(seed + n) % len(older)]
            die = now[slot]
            step = 1 if (seed + n) % 2 else -1
            value = die.value + step if 1 <= die.value + step <= 6 else die.value - step
            read = {**now, slot: Die(value, die.colour)}
            out.append((before, Observation(read, dict(after.quarry.dice), after.players[seat].reserve, True)))
            if len(out) == count:
                break
        seed += 1
    return out


def test_no_one_pip_misread_of_an_older_die_is_accepted_silently() -> None:
    """The issue's measurement: 145 one-pip misreads of older dice; 17 were taken as skill uses before. Now each
    is refused (no legal turn, or several) or shown as an inferred skill that waits for CONFIRM."""
    cases = _misreads(145)
    assert len(cases) == 145
    outcomes = {"refused": 0, "ambiguous": 0, "confirm": 0, "silent": 0}
    for before, seen in cases:
        try:
            found = explain(before, seen, partial=True)
        except AmbiguousActionError:
            outcomes["ambiguous"] += 1
            continue
        except IllegalActionError:
            outcomes["refused"] += 1
            continue
        outcomes["confirm" if found.needs_confirm else "silent"] += 1
    assert outcomes["silent"] == 0, outcomes
    assert outcomes["confirm"] > 0  # skills that could produce the misread value are shown, not taken


def test_a_sure_quarry_swap_is_not_inferred_but_a_value_change_is() -> None:
    seen_kinds: set[str] = set()
    for seed in range(40, 60):
        for before, after in _turns(seed):
            seat = before.turn
            found = explain(before, Observation(after.players[seat].pyramid, dict(after.quarry.dice),
                                                after.players[seat].reserve, True))
            skills = [a for a in found.actions if isinstance(a, Skill)]
            if not skills:
                assert not found.inferred
                continue
            code = skills[0].code
            if code in ("A4", "A5", "B3"):
                assert not found.inferred, (code, found)
                seen_kinds.add("sure")
            elif code in ("B4", "A6", "A3", "B5", "A2"):
                assert found.inferred and "misread" in found.inferred[0]
                seen_kinds.add("inferred")
        if seen_kinds == {"sure", "inferred"}:
            break
    assert seen_kinds == {"sure", "inferred"}


def test_a_change_on_another_board_is_a_warning() -> None:
    before, after = _turns(71)[6]
    other = after.players[1 - before.turn]
    slot = next(iter(other.pyramid))
    die = other.pyramid[slot]
    bumped = {**other.pyramid, slot: Die(7 - die.value, die.colour)}
    assert board_changes(other, bumped) == [f"{other.name}'s {pyr.slot_text(slot)} changed: bumped?"]
    assert board_changes(other, bumped, frozenset({slot})) == []
    assert board_changes(other, dict(other.pyramid)) == []


def test_the_camera_view_marks_each_place_read_and_rings_the_doubts() -> None:
    from device.tables import adapter_for
    from engine.game import find_game
    from vision.pyradice_read import BoardReading, DieRead, PositionReading, PyradiceReading, QuarryReading, SlotReading

    adapter = adapter_for(find_game("pyradice"))
    frame = np.full((960, 1280, 3), 128, np.uint8)
    sure = SlotReading((1, 0), True, 0.99, DieRead(2, "maroon", 0.99, 0.99, (30.0, 40.0, 20.0), False), False, "",
                       (200.0, 200.0))
    empty = SlotReading((1, 1), False, 0.02, None, False, "", (400.0, 200.0))
    doubt = PositionReading((1, 1, 1), "top", 0.98, DieRead(5, "orange", 0.5, 0.99, (60.0, 30.0, 60.0), True),
                            True, "face hard to read", (600.0, 500.0))
    reading = PyradiceReading(2, (BoardReading(1, (sure, empty)),), QuarryReading((doubt,)), ())
    drawn = adapter.annotate(frame, [reading])
    assert (frame == 128).all()  # a copy
    assert tuple(drawn[200, 190]) == (48, 36, 122)  # the maroon die's disc, beside its face
    assert tuple(drawn[500, 590]) == (46, 138, 232)  # the orange quarry die
    red = (drawn[..., 2] > 200) & (drawn[..., 0] < 60) & (drawn[..., 1] < 60)
    assert red[480:521, 580:621].any() and not red[180:221, 180:221].any()  # only the doubt is ringed
    assert tuple(drawn[200, 400]) == (128, 128, 128)  # an empty slot: a hollow ring only


def test_an_a4_with_a_quarry_die_not_seen_yet_read_in_doubt_is_explained() -> None:
    """At a table set up by its players a die uncovered but read in doubt is not known yet; an A4 that swaps it
    into the pyramid shows it there (read sure) while its place shows the pyramid's old die, in doubt: the die is
    learned as the one now in the pyramid, and the swap explained (inferred: the quarry side is in doubt)."""
    from dataclasses import replace

    from engine.pyradice import Place
    from engine.pyradice.skills import usable_codes

    for seed in range(40, 90):
        playout = play(G, ["ana", "ben"], seed)
        for before, action, after in zip(playout.states, playout.actions, playout.states[1:], strict=False):
            if not (isinstance(action, Skill) and action.code == "A4" and action.quarry is not None):
                continue
            assert before.phase is Phase.SKILL and "A4" in usable_codes(before.board.skills, before.placed[0])
            camera = replace(before, quarry=replace(before.quarry, dice={
                p: d for p, d in before.quarry.dice.items() if p != action.quarry},
                unknown=before.quarry.unknown | {action.quarry}))
            seat = before.turn
            seen = _seen(after, seat)
            seen = replace(seen, quarry={p: d for p, d in seen.quarry.items() if p != action.quarry},
                           quarry_unsure=frozenset({action.quarry}))
            found = explain(camera, seen, partial=True)
            revealed = Reveal(action.quarry, before.quarry.dice[action.quarry])
            assert found.actions == (revealed, action) and found.inferred
            assert not any(isinstance(a, Place) for a in found.actions)
            return
    pytest.fail("no A4 with a quarry die in the seeded games")
