"""The "Hint" through the device and the page: GameSession.hint, GET /api/hint (its answers and its refusals), and
the shell's Hint card in headless Chromium (Debian's chromium through Playwright; never a downloaded browser)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from device.appliance import Appliance
from device.eventlog import EventLog
from device.hub import Hub
from device.session import GameSession
from tests.browser import DESKTOP, needs_chromium, open_page
from web import api, create_app


@pytest.fixture
def session(tmp_path: Path) -> Iterator[GameSession]:
    s = GameSession(EventLog(tmp_path / "events.sqlite3"), Hub())
    yield s
    s.log.close()


@pytest.fixture
def app(session: GameSession) -> Flask:
    return create_app({"TESTING": True, "PANEL_MODE": "mock", "SSE_ONCE": True}, session=session)


def test_no_game_or_chance_is_a_plain_no_hint_and_pasa_hints_exactly(session: GameSession, app: Flask) -> None:
    client = app.test_client()
    got = client.get("/api/hint")
    assert got.status_code == 200 and got.get_json()["hint"] is None
    assert got.get_json()["reason"] == "no hint now: no game is running"
    session.new_game(["Anna", "Ben"], game="pyradice", mode="offline", seed=5)
    got = client.get("/api/hint").get_json()  # the first-player roll-off is chance
    assert got["hint"] is None and "chance is awaited" in got["reason"]
    session.new_game(["Anna", "Ben"], game="pasa", mode="offline")
    session.apply_text("roll 1 2 3 4 5 6", "page")
    got = client.get("/api/hint").get_json()  # Paša's exact advisor answers, without playouts
    assert got["hint"]["measure"] == "expected total" and got["hint"]["options"][0]["exact"] is True


def test_a_hint_ranks_the_legal_options(session: GameSession, app: Flask) -> None:
    session.new_game(["Anna", "Ben"], game="pyradice", mode="offline", seed=5)
    session.apply_text("roll-off 6 1", "page")
    got = app.test_client().get("/api/hint?seed=3&budget=0.1")
    assert got.status_code == 200
    hint = got.get_json()["hint"]
    legal = {a["text"] for a in session.legal()["legal"]}
    assert hint["player"] == "Anna" and hint["measure"] == "expected margin" and hint["seed"] == 3
    texts = [o["text"] for o in hint["options"]]
    assert set(texts) == legal and hint["best"] == texts[0]
    assert max(o["playouts"] for o in hint["options"]) == hint["rounds"] >= 1
    # those played to the end first, each group by value
    keys = [(-o["playouts"], -o["value"]) for o in hint["options"]]
    assert keys == sorted(keys)
    # the same seed and playouts give the same ranking through the session as through the engine
    assert session.game is not None
    direct = session.game.advise(session.state, seed=3, playouts=hint["rounds"])
    assert direct is not None and [o.text for o in direct.options] == texts


@pytest.mark.parametrize("query", ["seed=x", "seed=-1", "seed=99999999999", "budget=abc", "budget=0", "budget=-1",
                                   "budget=2", "budget=nan", "budget=inf", "colour=red"])
def test_bad_queries_are_400_with_a_reason(session: GameSession, app: Flask, query: str) -> None:
    session.new_game(["Anna", "Ben"], game="pyradice", mode="offline", seed=5)
    got = app.test_client().get(f"/api/hint?{query}")
    assert got.status_code == 400
    assert query.split("=")[0] in got.get_json()["error"]


def test_one_hint_at_a_time(session: GameSession, app: Flask) -> None:
    assert api._hint_busy.acquire(blocking=False)
    try:
        got = app.test_client().get("/api/hint")
    finally:
        api._hint_busy.release()
    assert got.status_code == 429 and "ask again" in got.get_json()["error"]
    assert app.test_client().get("/api/hint").status_code == 200


# --- the page ------------------------------------------------------------------------------------------------

@pytest.mark.browser
@needs_chromium
def test_the_page_shows_a_hint_only_when_asked(web_appliance: tuple[Appliance, str], browser: Any) -> None:
    appliance, address = web_appliance
    session = appliance.session
    session.new_game(["Anna", "Ben"], game="dicetreasure", mode="offline", seed=9)
    page, errors = open_page(browser, address, DESKTOP)
    page.wait_for_selector("#hint-card:not([hidden])", timeout=5000)
    assert page.locator("#hint-options li").count() == 0  # never forced: nothing until asked
    page.click("#hint-button")  # Dice Treasure starts with chance (cards laid out): no hint now
    page.wait_for_selector("#hint-summary:text('no hint now')", timeout=5000)

    game = session.game
    assert game is not None
    import random

    rng = random.Random(1)
    while game.status(session.state).awaiting == "chance":
        session.apply(game.random_chance(session.state, rng), "page")
    version = str(session.hub.latest()[0])
    page.wait_for_selector(f"body[data-version='{version}']", timeout=5000)
    page.click("#hint-button")
    page.wait_for_selector("#hint-card[data-state='shown']", timeout=10000)
    shown = page.locator("#hint-options li").evaluate_all("(items) => items.map((li) => li.dataset.text)")
    legal = {a["text"] for a in session.legal()["legal"]}
    assert shown and set(shown) <= legal
    assert "playout" in page.inner_text("#hint-options li >> nth=0")
    assert "expected gold margin" in page.inner_text("#hint-summary")

    # The table moves on: the hint for the position left is taken away.
    session.apply_text(shown[0], "page")
    page.wait_for_selector("#hint-card[data-state='none']", timeout=5000)
    assert page.locator("#hint-options li").count() == 0
    assert errors == [], f"the page's scripts failed: {errors}"
