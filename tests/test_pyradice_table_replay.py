"""A rendered Pyradice game replayed through the whole pipeline (frames -> stability filter -> the adapter ->
the engine -> the session) to its true record, and the recorder's and the adapter's own checks (issue 22).

The frames are rendered small (the truth reader reads the recording's truth, not the picture; the picture
still drives the stability filter's motion), so the whole game stays fast. The learned reader on full-size
frames is measured by `companion replay DIR --json` (docs/pyradice-table.md), not here: it takes minutes.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace as changed
from pathlib import Path

import pytest

from device.appliance import Pipeline
from device.commands import replay
from device.eventlog import EventLog
from device.hub import Hub
from device.record_pyradice import make, play
from device.recording import load_recording
from device.session import GameSession
from device.sources import Frame
from device.stability import StabilityFilter
from device.tables import adapter_for
from engine.dice import Die
from engine.pyradice import PyradiceGame
from engine.pyradice.state import Pass, Phase, Skill

GAME = PyradiceGame()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pyradice") / "game"
    make(out, 4242, 2, None, size=(320, 240), teach=False)
    return out


def test_the_recording_holds_a_whole_game_with_its_truth(recorded: Path) -> None:
    data = json.loads((recorded / "recording.json").read_text())
    rec = load_recording(recorded)
    assert rec.game == "pyradice" and rec.seed == 4242 and rec.table["players"] == 2
    frames = data["frames"]
    last = frames[-1]["truth"]
    assert all(len(dice) == 21 for dice in last["boards"].values())  # the game ended: every pyramid is full
    _, actions = play(4242, 2)
    assert data["expected"]["actions"] == [GAME.action_text(a) for a in actions]
    # inputs are only what the camera cannot read: the roll-off, "no skill", and the CONFIRM ending a skill step
    inputs = [i for f in frames for i in f["inputs"]]
    texts = {i.get("text", "").split()[0] if i["kind"] == "action" else i["kind"] for i in inputs}
    assert texts <= {"roll-off", "pass", "press"}
    skills = sum(isinstance(a, Skill) for a in actions)
    presses = sum(i["kind"] == "press" for i in inputs)
    assert presses == skills > 0
    assert len({f["file"] for f in frames}) < len(frames)  # still frames share their picture
    # each page input names the step it is for (the action count the page showed), and each frame how many of
    # the true actions the players have taken by then (the replay's players answer with none beyond them)
    texts_at = [(i["at"], i["text"]) for i in inputs if i["kind"] == "action"]
    assert all(data["expected"]["actions"][at] == text for at, text in texts_at)
    assert all(isinstance(actions[i["at"]], Skill) for i in inputs if i["kind"] == "press")
    done = [f["truth"]["done"] for f in frames]
    assert done == sorted(done) and done[-1] == len(actions)


def test_a_recorded_game_replays_from_its_truth_to_the_true_record(recorded: Path) -> None:
    result = replay(recorded, reader_name="truth")
    assert result["matches_expected"] is True
    assert result["sheet"] == result["expected_sheet"]
    assert result["players_answered"] == 0  # a perfect reading needs no question
    assert result["finished"] is True


def test_a_recorded_game_replays_as_at_a_real_table_from_its_truth(recorded: Path) -> None:
    # Without the seed (companion replay --at-table): the players type the board and cards, the quarry is read as
    # it shows (every die seen once, when first uncovered), and the game is followed action for action as with the
    # seed (a B2 that copied the value the die had is seen as no skill in both: the same state).
    result = replay(recorded, reader_name="truth", at_table=True)
    assert result["matches_expected"] is True and result["players_answered"] == 0
    moves = [a for a in result["actions"] if not a.startswith("reveal")]
    assert moves == replay(recorded, reader_name="truth")["actions"]
    dealt = GAME.initial_state(["Anna", "Ben"], seed=4242).quarry.dice
    reveals = [GAME.parse_action(a) for a in result["actions"] if a.startswith("reveal")]
    assert len(reveals) == len({r.position for r in reveals}) >= 42  # type: ignore[union-attr]
    assert all(dealt[r.position] == r.die for r in reveals)  # type: ignore[union-attr]
    # The players say what the device asks about of a die it could not read, as the truth last showed it.
    table = adapter_for(GAME)
    frames = json.loads((recorded / "recording.json").read_text())["frames"]
    state = GAME.initial_state(["Anna", "Ben"], result["options"])
    assert table.told(state, [f["truth"] for f in frames[:3]], ["level 1, slot 1 is hard to read"]) == ()
    said = table.told(state, [f["truth"] for f in frames[:3]], ["quarry q2,0,1 is hard to read (colour unclear)"])
    assert [str(a) for a in said] == [f"reveal q2,0,1 {dealt[(2, 0, 1)]}"]


def test_the_truth_reader_sees_covered_quarry_dice_without_their_value(recorded: Path) -> None:
    table = adapter_for(GAME)
    frame = json.loads((recorded / "recording.json").read_text())["frames"][0]
    (reading,) = table.truth_readings(frame["truth"])
    covered = [p for p in reading.quarry.positions if p.state == "covered"]
    assert len(covered) == 47 - 8 and all(p.die is None for p in covered)
    assert table.readings_agree([reading], table.truth_readings(frame["truth"]))
    seen = table.observe([reading], moved=False)
    state = GAME.initial_state(["Anna", "Ben"], seed=4242)
    while state.phase is Phase.ROLL_OFF:
        state = GAME.apply(state, GAME.parse_action("roll-off 6 1") if len(state.rolling) == 2 else
                           GAME.parse_action("roll-off 6"))
    assert table.explain(state, seen).problems == () and table.explain(state, seen).actions == ()


def test_an_inferred_skill_waits_for_confirm_and_next_declines_it() -> None:
    state, actions = play(4242, 2)
    k = next(i for i, a in enumerate(actions) if isinstance(a, Skill) and a.code in ("A2", "B2", "A3", "B4", "B5",
                                                                                      "A6"))
    for a in actions[:k]:
        state = GAME.apply(state, a)
    after = GAME.apply(state, actions[k])
    assert state.phase is Phase.SKILL
    from engine.pyradice import Observation

    table = adapter_for(GAME)
    mine = after.players[state.turn]
    seen = Observation(dict(mine.pyramid), dict(after.quarry.dice), mine.reserve, True)
    explained = table.explain(state, seen)
    assert explained.actions == () and not explained.problems  # shown, not taken
    assert "take the skill seen" in table.button_meanings(state)["confirm"]
    assert table.view(state)["skill_step"]["seen"]["action"] == str(actions[k])
    assert table.button(state, "confirm", long=False).action == actions[k]
    table.explain(state, seen)
    assert table.button(state, "next", long=False).action == GAME.parse_action("pass")


def test_the_page_view_shows_quarry_pyramids_slots_objectives_and_totals() -> None:
    state, actions = play(77, 2)
    for a in actions[:9]:
        state = GAME.apply(state, a)
    view = adapter_for(GAME).view(state)
    assert view["kind"] == "pyradice"
    assert view["layers"] == [[4, 6], [3, 5], [2, 4]]
    assert {q["position"] for q in view["quarry"] if q["available"]} == set(view["available"])
    assert len(view["players"]) == 2 and len(view["cards"]) == 4
    for p in view["players"]:
        assert [lv["level"] for lv in p["levels"]] == [1, 2, 3, 4, 5, 6]
        assert {lv["result"] for lv in p["levels"][:5]} <= {"met", "possible", "impossible"}
        assert p["total"] == GAME.score(state).players[p["name"]].total
    if state.phase in (Phase.TAKE, Phase.PLACE):
        assert view["legal_slots"] == [f"{k},{i}" for k, i in GAME.legal_slots(state)]


def test_a_bad_table_section_is_a_clear_message() -> None:
    from device.errors import SessionError

    with pytest.raises(SessionError, match="player count"):
        adapter_for(GAME).frame_reader({"players": "many"})
    with pytest.raises(SessionError, match="nothing of the table was read"):
        adapter_for(GAME).observe([Die(3, "white")], moved=False)


def test_at_a_camera_table_the_buttons_make_no_take(recorded: Path) -> None:
    """A CONFIRM meant for a skill step that is already over must not take a die: takes come from the camera."""
    table = adapter_for(GAME)
    frame = json.loads((recorded / "recording.json").read_text())["frames"][0]
    state = GAME.apply(GAME.initial_state(["Anna", "Ben"], seed=4242), GAME.parse_action("roll-off 6 1"))
    assert table.button(state, "confirm", long=False).action is not None  # a game played on the page
    table.explain(state, table.observe(table.truth_readings(frame["truth"]), moved=False))
    choice = table.button(state, "confirm", long=False)
    assert choice.action is None and "camera" in (choice.said or "")


def test_a_page_tap_waits_for_its_own_step_and_players_answer_only_what_they_did(tmp_path: Path) -> None:
    """A "no skill" tapped while the game is behind the table (at an earlier skill step) waits for the step it
    was tapped for, instead of ending the earlier one (every wrong action measured in session 16); a tap for a
    step the game has passed is refused; the replay's players never answer with a turn the table does not show."""
    _, actions = play(4242, 2)
    texts = [GAME.action_text(a) for a in actions]
    steps = [i for i, a in enumerate(actions) if isinstance(a, (Pass, Skill))]
    early, later = next((e, p) for e, p in itertools.pairwise(steps) if isinstance(actions[p], Pass))
    with EventLog(tmp_path / "events.sqlite3") as log:
        session = GameSession(log, Hub())
        session.new_game(["Anna", "Ben"], {}, game="pyradice", mode="camera", seed=4242)
        pipeline = Pipeline(session, StabilityFilter(lambda image: []), lambda frame: [], session.hub,
                            players_answer=True, expected_actions=texts)
        for text in texts[:early]:
            session.apply_text(text, "players")
        pipeline.process(Frame(None, 0, 0.0), ({"kind": "action", "text": "pass", "at": later},))
        assert len(session.history) == early  # not taken as the earlier player's "no skill"
        for text in texts[early:later]:
            session.apply_text(text, "players")
        pipeline.process(Frame(None, 1, 0.0))
        assert [GAME.action_text(h.action) for h in session.history] == texts[:later + 1]
        pipeline.process(Frame(None, 2, 0.0), ({"kind": "press", "button": "confirm", "at": early},))
        assert len(session.history) == later + 1 and session.warnings  # a stale tap: refused, said
        # a question about a table that shows no more than the game has: nothing to answer it with
        session.table = changed(session.table, pending=True)
        pipeline._players_answer(Frame(None, 3, 0.0, truth={"done": later + 1}))
        assert pipeline.answers == 0 and len(session.history) == later + 1
        pipeline._players_answer(Frame(None, 4, 0.0, truth={"done": later + 2}))
        assert pipeline.answers == 1 and [GAME.action_text(h.action) for h in session.history] == texts[:later + 2]
