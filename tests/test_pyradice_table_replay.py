"""A rendered Pyradice game replayed through the whole pipeline (frames -> stability filter -> the adapter ->
the engine -> the session) to its true record, and the recorder's and the adapter's own checks (issue 22).

The frames are rendered small (the truth reader reads the recording's truth, not the picture; the picture
still drives the stability filter's motion), so the whole game stays fast. The learned reader on full-size
frames is measured by `companion replay DIR --json` (docs/pyradice-table.md), not here: it takes minutes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device.commands import replay
from device.record_pyradice import make, play
from device.recording import load_recording
from device.tables import adapter_for
from engine.dice import Die
from engine.pyradice import PyradiceGame
from engine.pyradice.state import Phase, Skill

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


def test_a_recorded_game_replays_from_its_truth_to_the_true_record(recorded: Path) -> None:
    result = replay(recorded, reader_name="truth")
    assert result["matches_expected"] is True
    assert result["sheet"] == result["expected_sheet"]
    assert result["players_answered"] == 0  # a perfect reading needs no question
    assert result["finished"] is True


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
