"""The game session over the event log: actions logged before anyone hears, undo through the log, rebuild at
start, readings that wait (cocked, unsure, wrong count), corrections, buttons and pairing."""

from __future__ import annotations

from pathlib import Path

import pytest

from device.config import Config, load_config
from device.errors import ConfigError, SessionError
from device.eventlog import EventLog
from device.hub import Hub
from device.session import GameSession, reading

pytest.importorskip("engine.pasa", reason="engine.pasa (the Paša game) is not in this build yet")


def table(values: list[int], **flags: object) -> list:
    return [reading(v, 100.0 + 100 * i, 100.0, **(flags if i == 2 else {})) for i, v in enumerate(values)]


@pytest.fixture
def session(tmp_path: Path) -> GameSession:
    s = GameSession(EventLog(tmp_path / "events.sqlite3"), Hub())
    s.new_game(["Anna", "Ben"], game="pasa")
    return s


def test_defaults_file_documents_every_default() -> None:
    assert load_config(Path(__file__).parents[1] / "device" / "companion.toml").replace() == load_config(
        Path(__file__).parents[1] / "device" / "companion.toml")
    loaded = load_config(Path(__file__).parents[1] / "device" / "companion.toml")
    assert {k: v for k, v in vars(loaded).items() if k != "source_file"} == {
        k: v for k, v in vars(Config()).items() if k != "source_file"}


def test_config_rejects_unknown_keys_and_wrong_types(tmp_path: Path) -> None:
    bad = tmp_path / "c.toml"
    bad.write_text('[camera]\nsorce = "opencv:0"\n')
    with pytest.raises(ConfigError, match="unknown key 'sorce'"):
        load_config(bad)
    bad.write_text('[web]\nport = "eighty"\n')
    with pytest.raises(ConfigError, match="port"):
        load_config(bad)
    bad.write_text('[panel]\nmode = "maybe"\n')
    with pytest.raises(ConfigError, match="mode"):
        load_config(bad)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")


def test_a_settled_roll_becomes_a_logged_action(session: GameSession) -> None:
    session.on_settled(table([2, 2, 4, 4, 6, 6]), moved=True)
    assert session.state.dice == (2, 2, 4, 4, 6, 6)
    assert session.origins == ["camera"]
    assert session.log.game(session.record.id).actions == (session.game.action_to_json(session.actions[0]),)
    live = session.snapshot()["game"]["live"]
    assert {c["name"]: c["now"] for c in live["categories"]}["pasa"] == 24


def test_dice_lying_still_at_turn_start_are_no_roll(session: GameSession) -> None:
    session.on_settled(table([1, 2, 3, 4, 5, 6]), moved=False)
    assert session.actions == []


def test_unsure_die_waits_until_corrected(session: GameSession) -> None:
    session.on_settled(table([1, 1, 5, 3, 3, 3], unsure=True), moved=True)
    snap = session.snapshot()
    assert session.actions == [] and snap["table"]["pending"] and snap["leds"]["attention"] == "on"
    assert "die 3 is hard to read" in snap["warnings"][0]
    session.correct(2, 6)
    assert session.state.dice == (1, 1, 3, 3, 3, 6)
    assert session.snapshot()["leds"]["attention"] == "off"


def test_cocked_die_waits_until_confirmed(session: GameSession) -> None:
    session.on_settled(table([1, 1, 5, 3, 3, 3], cocked=True), moved=True)
    assert session.actions == []
    assert session.press("confirm") == "accepted the table as read"
    assert session.state.dice == (1, 1, 3, 3, 3, 5)


def test_wrong_number_of_dice_is_refused(session: GameSession) -> None:
    session.on_settled(table([1, 2, 3]), moved=True)
    assert session.actions == [] and "6 dice expected" in session.snapshot()["warnings"][0]


def test_correcting_an_accepted_roll_replaces_it_through_the_log(session: GameSession) -> None:
    session.on_settled(table([1, 2, 3, 4, 5, 5]), moved=True)
    session.correct(5, 6)
    assert session.state.dice == (1, 2, 3, 4, 5, 6)
    assert [session.game.action_text(a) for a in session.actions] == ["roll 1 2 3 4 5 6"]


def test_buttons_choose_stop_and_undo(session: GameSession) -> None:
    session.on_settled(table([6, 6, 6, 1, 2, 3]), moved=True)
    session.press("next")
    selected = session.adapter.selection
    assert selected is not None
    session.press("confirm")
    assert session.state.category == selected
    session.press("confirm", long=True)
    assert session.state.sheets["Anna"] and session.state.player == "Ben"
    session.press("undo")
    assert session.state.player == "Anna" and session.state.category == selected
    with pytest.raises(SessionError):
        session.press("jump")


def test_reroll_before_choice_is_a_warning_not_an_action(session: GameSession) -> None:
    session.on_settled(table([6, 6, 6, 1, 2, 3]), moved=True)
    session.on_settled(table([6, 6, 6, 4, 4, 4]), moved=True)
    assert len(session.actions) == 1
    assert "choose a category" in session.snapshot()["warnings"][0]


def test_state_is_rebuilt_from_the_log(tmp_path: Path, session: GameSession) -> None:
    session.on_settled(table([6, 6, 6, 1, 2, 3]), moved=True)
    session.apply_text("choose sixes", "page")
    session.undo("page")
    session.apply_text("choose threes", "page")
    again = GameSession(EventLog(tmp_path / "events.sqlite3"), Hub())
    assert again.resume()
    assert again.state == session.state and again.state.category == "threes"


def test_undo_with_nothing_to_undo(session: GameSession) -> None:
    with pytest.raises(SessionError, match="nothing to undo"):
        session.undo("page")


def test_pairing_needs_confirm_within_the_timeout(session: GameSession) -> None:
    now = [100.0]
    session.clock = lambda: now[0]
    session.ask_pairing("t1")
    assert session.pairing_status("t1") == "waiting"
    assert session.leds()["attention"] == "blink"  # a request waits: seen at the device
    assert session.press("confirm") == "paired a browser"
    assert session.pairing_status("t1") == "approved" and session.leds()["attention"] == "off"
    session.ask_pairing("t2")
    now[0] += 31
    assert session.press("confirm") != "paired a browser"
    assert session.pairing_status("t2") in ("expired", "unknown")


def test_offline_scorekeeper_and_export(session: GameSession) -> None:
    session.new_game(["Ann", "Bo"], game="pasa", mode="offline")
    session.apply_text("enter ones 3", "page")
    with pytest.raises(Exception, match="5"):
        session.apply_text("enter twos 5", "page")
    exported = session.export()
    assert exported["mode"] == "offline" and exported["sheet"]["Ann"]["total"] == 3
    assert exported["actions"] == ["enter ones 3"]


def test_log_is_wal(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "e.sqlite3")
    assert log._query("PRAGMA journal_mode")[0][0] == "wal"
    assert log.check() == "ok"


def test_offline_mode_ignores_the_camera(session: GameSession) -> None:
    session.new_game(["Ann", "Bo"], game="pasa", mode="offline")
    session.on_settled(table([2, 2, 4, 4, 6, 6]), moved=True)
    assert session.actions == [] and not session.snapshot()["table"]["pending"]


def test_the_latest_roll_can_be_corrected_until_the_next_roll(session: GameSession) -> None:
    session.on_settled(table([6, 6, 6, 1, 2, 3]), moved=True)
    session.apply_text("choose sixes", "page")
    session.correct(3, 6)  # the category is chosen: the roll is still the latest, so it is replaced
    assert session.state.dice == (2, 3, 6, 6, 6, 6) and session.state.category == "sixes"
    assert [session.game.action_text(a) for a in session.actions] == ["roll 2 3 6 6 6 6", "choose sixes"]
    assert session.origins == ["page", "page"]
    session.apply_text("stop", "page")
    session.correct(4, 6)  # the turn is written: still the latest roll, the score follows the dice
    assert session.state.sheets["Anna"]["sixes"] == 30 and session.state.player == "Ben"
    again = GameSession(EventLog(session.log.path), Hub())
    assert again.resume() and again.state == session.state  # the correction is in the log, whole
    session.on_settled(table([1, 1, 2, 2, 3, 3]), moved=True)  # Ben's roll: Anna's dice are gone
    session.apply_text("choose ones", "page")
    session.correct(0, 4)
    assert session.state.dice == (1, 2, 2, 3, 3, 4) and session.state.player == "Ben"
    assert session.state.sheets["Anna"]["sixes"] == 30


def test_a_correction_drops_a_decision_that_no_longer_fits(session: GameSession) -> None:
    session.on_settled(table([6, 6, 6, 1, 2, 3]), moved=True)
    session.apply_text("choose sixes", "page")
    session.apply_text("reroll keep 6 6 6", "page")
    session.correct(0, 5)  # only two sixes were thrown: keeping three no longer fits
    assert [session.game.action_text(a) for a in session.actions] == ["roll 1 2 3 5 6 6", "choose sixes"]
    assert "reroll keep 6 6 6 no longer fits" in session.snapshot()["warnings"][0]
    assert GameSession(EventLog(session.log.path), Hub()).resume()


def test_every_action_is_logged_before_anyone_is_told(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.sqlite3")
    seen: list[tuple[int, int]] = []

    class CheckingHub(Hub):
        def publish(self, snapshot: dict) -> int:
            game = snapshot.get("game")
            if game is not None:
                seen.append((game["action_count"], len(log.game(game["id"]).actions)))
            return super().publish(snapshot)

    s = GameSession(log, CheckingHub())
    s.new_game(["Anna", "Ben"], game="pasa")
    s.on_settled(table([6, 6, 6, 1, 2, 3]), moved=True)
    s.press("confirm")
    s.press("confirm", long=True)
    s.undo("page")
    s.on_settled(table([6, 6, 6, 1, 2, 5]), moved=True)
    assert len(seen) >= 5 and all(told <= logged for told, logged in seen), seen


def test_a_game_that_cannot_be_resumed_is_reported_and_skipped(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.sqlite3")
    log.new_game("pyradice", ["Anna", "Ben"], {}, "offline")
    log.append(1, '{"this": "is no pyradice action"}', "page")
    s = GameSession(log, Hub())
    assert not s.resume()
    snap = s.snapshot()
    assert snap["game"] is None and "game 1 (pyradice) in the event log cannot be resumed" in snap["setup_problem"]
    assert s.health()["engine"]["status"] == "no game"
    s.new_game(["Anna", "Ben"], game="pyradice", mode="offline", seed=3)
    assert s.snapshot()["setup_problem"] is None and GameSession(log, Hub()).resume()


@pytest.mark.parametrize(("request_", "field"), [
    ({"game": "chess"}, "game"),
    ({"game": 7}, "game"),
    ({"players": "Anna"}, "players"),
    ({"players": [f"P{i}" for i in range(9)]}, "players"),
    ({"game": "pyradice", "players": ["Anna"], "mode": "offline"}, "players"),
    ({"players": ["Anna", "anna"]}, "players"),
    ({"players": ["Anna", ""]}, "players"),
    ({"players": ["Anna", "B" * 25]}, "players"),
    ({"players": ["Anna", "Be\nn"]}, "players"),
    ({"players": ["Anna", "Ben\x07"]}, "players"),
    ({"options": {"pasa": "nonsense"}}, "options"),
    ({"options": {"colour": "red"}}, "options"),
    ({"options": ["pasa"]}, "options"),
    ({"mode": "telepathy"}, "mode"),
    ({"seed": -1}, "seed"),
    ({"seed": "7"}, "seed"),
    ({"seed": True}, "seed"),
])
def test_set_up_is_checked_before_anything_is_written(tmp_path: Path, request_: dict, field: str) -> None:
    from device.session import SetupError

    log = EventLog(tmp_path / "events.sqlite3")
    s = GameSession(log, Hub())
    ask = {"game": "pasa", "players": ["Anna", "Ben"], "options": {}, "mode": "camera", "seed": None, **request_}
    with pytest.raises(SetupError) as refused:
        s.new_game(ask["players"], ask["options"], game=ask["game"], mode=ask["mode"], seed=ask["seed"])
    assert refused.value.field == field and str(refused.value)
    assert log.game_ids() == [] and not GameSession(log, Hub()).resume()


def test_a_game_the_camera_cannot_read_is_refused_in_camera_mode(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from device.session import SetupError
    from device.tables import adapter_class

    monkeypatch.setattr(adapter_class("pyramido"), "live", "offline")
    log = EventLog(tmp_path / "events.sqlite3")
    s = GameSession(log, Hub())
    with pytest.raises(SetupError) as refused:
        s.new_game(["Anna", "Ben"], {}, game="pyramido", mode="camera")
    assert refused.value.field == "mode" and "offline" in str(refused.value)
    assert log.game_ids() == []


def test_a_seeded_set_up_is_the_engines(session: GameSession) -> None:
    from engine.game import find_game

    for name in ("pyradice", "pyramido", "dicetreasure"):
        session.new_game(["Anna", "Ben"], game=name, mode="offline", seed=11)
        assert session.state == find_game(name).initial_state(("Anna", "Ben"), session.record.options, seed=11)
        assert session.snapshot()["game"]["seed"] == 11


def test_a_corrupt_event_log_is_a_storage_error(tmp_path: Path) -> None:
    from device.errors import StorageError

    bad = tmp_path / "events.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError, match="cannot open the event log"):
        EventLog(bad)


def test_hub_wakes_waiters_and_keeps_only_the_latest() -> None:
    hub = Hub()
    assert hub.wait(0, 0.01) is None
    hub.publish({"n": 1})
    hub.publish({"n": 2})
    got = hub.wait(0, 0.01)
    assert got is not None and got[0] == 2 and got[1]["n"] == 2
    hub.close()
    assert hub.wait(2, 5) is None and hub.closed


def test_a_die_is_found_by_where_it_lies(session: GameSession) -> None:
    session.on_settled(table([1, 1, 5, 3, 3, 3], unsure=True), moved=True)
    assert session.reading_at(305.0, 95.0) == 2
    session.correct(session.reading_at(305.0, 95.0), 6)
    assert session.state.dice == (1, 1, 3, 3, 3, 6)
