"""The web app with Flask's test client: page and assets local, state and SSE, pairing, CSRF, 4xx JSON on
bad or unauthorised requests, the virtual panel, export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from device.eventlog import EventLog
from device.hub import Hub
from device.session import GameSession, reading
from web import create_app

pytest.importorskip("engine.pasa", reason="engine.pasa (the Paša game) is not in this build yet")


@pytest.fixture
def session(tmp_path: Path) -> Iterator[GameSession]:
    s = GameSession(EventLog(tmp_path / "events.sqlite3"), Hub())
    s.new_game(["Anna", "Ben"], game="pasa")
    yield s
    s.log.close()


@pytest.fixture
def app(session: GameSession) -> Flask:
    return create_app({"TESTING": True, "PANEL_MODE": "mock", "SSE_ONCE": True}, session=session)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf(client: FlaskClient) -> str:
    token: str = client.get("/api/csrf").get_json()["csrf"]
    return token


def post(client: FlaskClient, url: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"X-CSRF-Token": token if token is not None else csrf(client)}
    return client.post(url, data=json.dumps(body or {}), content_type="application/json", headers=headers)


def pair(client: FlaskClient, session: GameSession) -> None:
    assert post(client, "/api/pair").status_code == 200
    assert client.get("/api/pair").get_json()["status"] == "waiting"
    session.press("confirm")
    assert client.get("/api/pair").get_json()["paired"] is True


def test_page_and_assets_are_local(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "/static/app.js" in html and "/static/style.css" in html
    assert "http://" not in html and "https://" not in html
    for asset in ("/static/app.js", "/static/style.css"):
        response = client.get(asset)
        assert response.status_code == 200
        response.close()
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]


def test_state_and_health(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    assert state["game"]["players"] == ["Anna", "Ben"] and state["game"]["live"]["phase"] == "roll"
    health = client.get("/healthz").get_json()
    assert health["storage"]["status"] == "ok" and health["engine"]["status"] == "ok"


def test_sse_sends_the_current_snapshot(client: FlaskClient, session: GameSession) -> None:
    session.on_settled([reading(v, 100.0 * i, 50.0) for i, v in enumerate([1, 2, 3, 4, 5, 6])], moved=True)
    response = client.get("/api/events")
    assert response.mimetype == "text/event-stream"
    body = response.get_data(as_text=True)
    data = json.loads(body.split("data: ", 1)[1].split("\n", 1)[0])
    assert data["game"]["live"]["dice"] == [1, 2, 3, 4, 5, 6]


def test_changes_need_pairing_and_csrf(client: FlaskClient, session: GameSession) -> None:
    refused = post(client, "/api/undo")
    assert refused.status_code == 403 and "not paired" in refused.get_json()["error"]
    pair(client, session)
    assert post(client, "/api/undo", token="forged").status_code == 403
    form = client.post("/api/undo", data="x=1", headers={"X-CSRF-Token": csrf(client)})
    assert form.status_code == 415
    assert post(client, "/api/action", {"text": "enter ones 3"}).status_code == 200
    assert session.state.sheets["Anna"] == {"ones": 3}
    assert post(client, "/api/undo").status_code == 200
    assert session.state.sheets["Anna"] == {}


def test_pairing_expires(client: FlaskClient, session: GameSession) -> None:
    now = [0.0]
    session.clock = lambda: now[0]
    post(client, "/api/pair")
    now[0] = 31.0
    assert client.get("/api/pair").get_json()["paired"] is False
    session.press("confirm")
    assert client.get("/api/pair").get_json()["paired"] is False


def test_correct_choose_stop_over_http(client: FlaskClient, session: GameSession) -> None:
    pair(client, session)
    session.on_settled([reading(v, 100.0 * i, 50.0, unsure=(i == 0)) for i, v in enumerate([1, 6, 6, 6, 2, 3])],
                       moved=True)
    assert session.actions == []
    assert post(client, "/api/correct", {"index": 0, "value": 6}).status_code == 200
    assert session.state.dice == (2, 3, 6, 6, 6, 6)
    assert post(client, "/api/action", {"text": "choose sixes"}).status_code == 200
    assert post(client, "/api/action", {"text": "stop"}).status_code == 200
    assert session.state.sheets["Anna"] == {"sixes": 24}


@pytest.mark.parametrize(
    ("url", "body", "status"),
    [
        ("/api/correct", {"index": "x", "value": 3}, 400),
        ("/api/correct", {"index": 9, "value": 3}, 400),
        ("/api/correct", [1, 2], 400),
        ("/api/correct", {"index": 0, "value": "six"}, 400),
        ("/api/correct", {"index": 0, "value": "x" * 40}, 400),
        ("/api/correct", {"index": 0, "value": [6]}, 400),
        ("/api/action", {"text": ""}, 400),
        ("/api/action", {"text": "fly away"}, 400),
        ("/api/action", {"text": "stop"}, 409),
        ("/api/action", {"text": "enter twos 5"}, 400),
        ("/api/game", {"game": "pasa", "players": "Anna"}, 400),
        ("/api/game", {"game": "pasa", "players": ["A", "A"]}, 400),
        ("/api/game", {"game": "pasa", "players": ["A"], "options": {"pasa": "nonsense"}}, 400),
        ("/api/game", {"game": "pasa", "players": ["A"], "mode": "telepathy"}, 400),
        ("/api/game", {"players": ["A"]}, 400),
        ("/api/game", {"game": "pasa", "players": ["A"], "colour": "red"}, 400),
        ("/api/confirm", {}, 409),
        ("/api/panel/press", {"button": "self-destruct"}, 400),
        ("/api/panel/press", {"button": "next", "long": "yes"}, 400),
    ],
)
def test_bad_requests_get_4xx_json(client: FlaskClient, session: GameSession, url: str, body: Any,
                                   status: int) -> None:
    pair(client, session)
    response = post(client, url, body)
    assert response.status_code == status, response.get_json()
    assert response.is_json and response.get_json()["error"]


def test_unknown_routes_and_methods_are_json(client: FlaskClient) -> None:
    for response in (client.get("/nope"), client.delete("/api/undo"), client.get("/api/games/999"),
                     client.post("/api/undo", data=b"\xff" * 70000, content_type="application/json")):
        assert 400 <= response.status_code < 500 and response.is_json


def test_virtual_panel_presses(client: FlaskClient, session: GameSession) -> None:
    session.on_settled([reading(v, 100.0 * i, 50.0) for i, v in enumerate([1, 6, 6, 6, 2, 3])], moved=True)
    for button, long in (("undo", False), ("confirm", True), ("next", False)):
        refused = post(client, "/api/panel/press", {"button": button, "long": long})
        assert refused.status_code == 403 and "not paired" in refused.get_json()["error"]
    assert len(session.actions) == 1  # an unpaired browser changed nothing
    post(client, "/api/pair")
    assert post(client, "/api/panel/press", {"button": "confirm"}).get_json()["did"] == "paired a browser"
    assert client.get("/api/pair").get_json()["paired"] is True
    assert post(client, "/api/panel/press", {"button": "undo"}).get_json()["did"] == "undone"
    assert session.actions == []


def test_catalog_comes_from_the_engine(client: FlaskClient) -> None:
    from engine.game import GAME_MODULES, find_game

    games = client.get("/api/catalog").get_json()["games"]
    assert [g["name"] for g in games] == list(GAME_MODULES)
    for entry in games:
        game = find_game(entry["name"])
        assert entry["title"] == game.title and entry["players"] == [game.min_players, game.max_players]
        assert entry["options"] == {o.name: {"choices": list(o.choices), "default": o.default, "doc": o.doc,
                                             **({"text": o.text} if o.text else {})}
                                    for o in game.options}
    pyradice = next(g for g in games if g["name"] == "pyradice")
    assert pyradice["options"]["setup"]["text"].startswith("A2 ")  # a real table's words, by example
    from device.tables import adapter_class

    assert {g["name"]: g["live"] for g in games} == {name: adapter_class(name).live for name in GAME_MODULES}
    assert {g["name"]: g["live"] for g in games}["pasa"] == "camera"


def test_set_up_refusals_name_the_field_and_write_nothing(client: FlaskClient, session: GameSession,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from device.tables import adapter_class

    monkeypatch.setattr(adapter_class("pyradice"), "live", "offline")  # a game the camera cannot read
    monkeypatch.setattr(session, "_catalog", None)
    pair(client, session)
    before = session.log.game_ids()
    for body, field in (({"game": "pyradice", "players": ["Anna", "Ben"], "mode": "camera"}, "mode"),
                        ({"game": "pyradice", "players": ["Anna"], "mode": "offline"}, "players"),
                        ({"game": "nim", "players": ["Anna", "Ben"]}, "game"),
                        ({"game": "pasa", "players": ["Anna", "Ben"], "seed": 1.5}, "seed")):
        refused = post(client, "/api/game", body)
        assert refused.status_code == 400 and refused.get_json()["field"] == field, refused.get_json()
    assert session.log.game_ids() == before
    assert client.get("/healthz").get_json()["engine"]["status"] == "ok"


def test_a_board_game_is_set_up_and_played_on_the_page(client: FlaskClient, session: GameSession) -> None:
    """The issue's reproduction: a Pyradice game from the page, then a restart finds it again."""
    pair(client, session)
    assert post(client, "/api/game", {"game": "pyradice", "players": ["Anna", "Ben"], "mode": "offline",
                                      "seed": 5}).status_code == 200
    assert client.get("/healthz").get_json()["engine"] == {"status": "ok", "game": "pyradice",
                                                           "phase": "roll-off", "problem": None}
    legal = client.get("/api/legal").get_json()
    assert legal["legal"] == [] and legal["chance"]["example"]
    assert post(client, "/api/action", {"text": legal["chance"]["example"]}).status_code == 200
    legal = client.get("/api/legal").get_json()
    assert legal["chance"] is None and legal["legal"] and {"text", "label", "group"} <= set(legal["legal"][0])
    assert post(client, "/api/action", {"text": legal["legal"][0]["text"]}).status_code == 200
    state = client.get("/api/state").get_json()["game"]
    assert state["name"] == "pyradice" and state["action_count"] == 2 and state["live"]["kind"] == "pyradice"
    assert state["actions"][-1]["words"]
    again = GameSession(EventLog(session.log.path), Hub())
    assert again.resume() and again.state == session.state


def test_a_tap_from_a_page_that_showed_an_older_state_is_refused(client: FlaskClient, session: GameSession) -> None:
    """Two players tap "pass" on two pages showing one decision: the first is taken, the second would land on the
    next decision and is refused (409, in words) instead; an undo from a stale page too. Nothing is logged."""
    pair(client, session)
    post(client, "/api/game", {"game": "pyradice", "players": ["Anna", "Ben"], "mode": "offline", "seed": 5})
    post(client, "/api/action", {"text": client.get("/api/legal").get_json()["chance"]["example"], "at": 0})
    shown = client.get("/api/state").get_json()["game"]["action_count"]
    first = client.get("/api/legal").get_json()["legal"][0]["text"]
    assert post(client, "/api/action", {"text": first, "at": shown}).status_code == 200
    again = client.get("/api/legal").get_json()["legal"][0]["text"]
    stale = post(client, "/api/action", {"text": again, "at": shown})
    assert stale.status_code == 409 and "moved on" in stale.get_json()["error"]
    assert post(client, "/api/undo", {"at": shown}).status_code == 409
    assert client.get("/api/state").get_json()["game"]["action_count"] == shown + 1
    assert post(client, "/api/action", {"text": again, "at": -1}).status_code == 400
    assert post(client, "/api/undo", {"at": shown + 1}).status_code == 200  # the page that saw it may undo it


class FakeSession:
    """The protocol the page needs, and nothing of the device: what the app asks is recorded."""

    pairing_timeout_s = 30.0

    def __init__(self) -> None:
        self.hub = Hub()
        self.calls: list[tuple[Any, ...]] = []
        self.hub.publish({"game": None, "warnings": []})

    def publish(self) -> None:
        self.hub.publish({"game": None, "warnings": []})

    def catalog(self) -> list[dict[str, Any]]:
        return [{"name": "nim", "title": "Nim", "players": [2, 2], "options": {}, "live": "offline"}]

    def new_game(self, players: object, options: object = None, *, game: object, mode: object = "camera",
                 seed: object = None) -> None:
        self.calls.append(("new_game", players, options, game, mode, seed))

    def legal(self) -> dict[str, Any]:
        return {"legal": [{"text": "take 1", "label": "Take one", "group": "take"}], "chance": None, "version": 1}

    def apply_text(self, text: str, origin: str, at: int | None = None) -> None:
        from engine.errors import IllegalActionError

        if text != "take 1":
            raise IllegalActionError(f"{text!r} refused")
        self.calls.append(("apply_text", text, origin))

    def undo(self, origin: str, at: int | None = None) -> None:
        self.calls.append(("undo", origin))

    def correct(self, index: int, value: Any, origin: str = "page") -> None:
        self.calls.append(("correct", index, value, origin))

    def confirm_table(self) -> bool:
        return False

    def press(self, button: str, *, long: bool = False, origin: str = "panel", paired: bool = True) -> str:
        if button == "confirm" and not long:
            self.approved = True
            return "paired a browser"
        return "nothing to do"

    def ask_pairing(self, token: str, replaces: str | None = None) -> str | None:
        self.approved = False
        return None

    def pairing_status(self, token: str) -> str:
        return "approved" if getattr(self, "approved", False) else "waiting"

    def claim_pairing(self, token: str, label: str = "") -> str | None:
        self.browser = "secret"
        return self.browser

    def is_paired(self, browser: str) -> bool:
        return browser == getattr(self, "browser", None)

    def paired_browsers(self, current: str | None = None) -> list[dict[str, Any]]:
        return []

    def forget_browser(self, browser: str) -> bool:
        return False

    def forget_all_browsers(self) -> int:
        return 0

    def games(self) -> list[dict[str, Any]]:
        return []

    def export(self, game_id: int | None = None) -> dict[str, Any]:
        raise ValueError(f"no game {game_id} in the event log")

    def health(self) -> dict[str, Any]:
        return {"ok": True}

    def frame_jpeg(self, width: int = 800) -> bytes | None:
        return None


def test_the_app_needs_only_the_protocol() -> None:
    fake = FakeSession()
    client = create_app({"TESTING": True, "PANEL_MODE": "mock"}, session=fake).test_client()
    assert client.get("/api/catalog").get_json()["games"][0]["name"] == "nim"
    assert client.get("/api/legal").get_json()["legal"][0]["label"] == "Take one"
    assert client.get("/healthz").get_json() == {"ok": True}
    assert client.get("/api/frame.jpg").status_code == 404
    assert client.get("/api/games/3").status_code == 400  # a ValueError without http_status
    post(client, "/api/pair")
    fake.press("confirm")
    assert client.get("/api/pair").get_json()["paired"] is True
    assert post(client, "/api/action", {"text": "take 1"}).status_code == 200
    assert post(client, "/api/action", {"text": "take 9"}).status_code == 409
    assert post(client, "/api/game", {"game": "nim", "players": ["A", "B"], "seed": 4}).status_code == 200
    assert fake.calls == [("apply_text", "take 1", "page"), ("new_game", ["A", "B"], None, "nim", "camera", 4)]


def test_no_virtual_panel_without_the_mock(session: GameSession) -> None:
    client = create_app({"TESTING": True, "PANEL_MODE": "gpio"}, session=session).test_client()
    assert post(client, "/api/panel/press", {"button": "confirm"}).status_code == 404


def test_new_game_and_export(client: FlaskClient, session: GameSession) -> None:
    pair(client, session)
    assert post(client, "/api/game", {"game": "pasa", "players": ["Cy", "Di"], "mode": "offline",
                                      "options": {"pasa": "distinct-pairs"}}).status_code == 200
    post(client, "/api/action", {"text": "enter pasa 30"})
    games = client.get("/api/games").get_json()["games"]
    assert games[0]["players"] == ["Cy", "Di"]
    exported = client.get(f"/api/games/{games[0]['id']}").get_json()
    assert exported["sheet"]["Cy"]["total"] == 30 and exported["options"] == {"pasa": "distinct-pairs"}


def test_camera_view(client: FlaskClient, session: GameSession) -> None:
    import numpy as np

    assert client.get("/api/frame.jpg").status_code == 404
    session.hub.put_frame(np.full((960, 1280, 3), 90, np.uint8), (reading(3, 200.0, 200.0, unsure=True),))
    image = client.get("/api/frame.jpg")
    assert image.status_code == 200 and image.data[:2] == b"\xff\xd8"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=20) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
ENDPOINTS = ["/api/correct", "/api/confirm", "/api/action", "/api/undo", "/api/game", "/api/pair",
             "/api/panel/press", "/api/unpair"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url=st.sampled_from(ENDPOINTS), body=json_values | st.fixed_dictionaries(
    {"index": json_values, "value": json_values, "text": json_values, "players": json_values,
     "button": json_values, "long": json_values, "game": st.sampled_from(["pasa", "pyradice", "x"]) | json_values,
     "mode": json_values, "seed": json_values, "options": json_values}))
def test_no_request_body_makes_a_5xx(client: FlaskClient, session: GameSession, url: str, body: Any) -> None:
    if not client.get("/api/pair").get_json()["paired"]:
        pair(client, session)
    response = post(client, url, body)
    assert response.status_code < 500, response.get_json()
    assert response.is_json


def test_live_streams_are_limited(session: GameSession) -> None:
    app = create_app({"TESTING": True, "SSE_ONCE": True, "SSE_MAX_STREAMS": 1}, session=session)
    client = app.test_client()
    held = client.get("/api/events", buffered=False)
    refused = client.get("/api/events")
    assert refused.status_code == 429 and refused.is_json
    held.close()
    again = client.get("/api/events")
    assert again.status_code == 200
    again.close()
