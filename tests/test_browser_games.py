"""Every game on the real page in headless Chromium (Debian's chromium through Playwright; never a downloaded
browser), offline: set up from the form (built from /api/catalog), play a few turns with the page's buttons and
its chance box, undo, reload and see the same state. Paša is played to its end on the page's last button and
shows the winner plainly. Set-up mistakes are shown next to the field that is wrong. The mats to print and the
camera check of a board-game table."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from device.appliance import Appliance, truth_reader
from device.config import Config
from tests.browser import BROWSER_TESTS, DESKTOP, PHONE, drawn, open_page, pair, wait_until

#: Games whose set-up is random take a seed; the viewport alternates so both widths are played.
GAMES = {"pasa": (None, PHONE), "pyradice": (7, DESKTOP), "pyramido": (8, PHONE), "dicetreasure": (9, DESKTOP)}

pytestmark = BROWSER_TESTS


def count(app: Appliance) -> int:
    game = app.session.snapshot()["game"]
    return int(game["action_count"]) if game else -1


def set_up(page: Any, app: Appliance, name: str, seed: int | None) -> None:
    before = app.session.snapshot()["game"]
    page.select_option("#setup-game", name)
    page.fill("#setup-players", "Anna, Ben")
    if seed is not None:
        page.fill("#setup-seed", str(seed))
    page.select_option("#setup-mode", "offline")
    page.click("#setup-start")
    wait_until(lambda: (g := app.session.snapshot()["game"]) is not None and g["name"] == name
               and (before is None or g["id"] != before["id"]))
    wait_until(lambda: page.get_attribute("body", "data-game") == name and drawn(page, app))


def step(page: Any, app: Appliance, name: str) -> None:
    """One action through the page's own controls, as a player would take it."""
    n = count(app)
    if name == "pasa":
        if page.is_visible("#roll-form"):  # a roll, or in the hold phase a re-roll typed as all six dice
            page.fill("#roll-text", page.get_attribute("#roll-text", "placeholder"))
            page.click("#roll-form button[type='submit']")
        elif page.is_visible("#stop"):
            page.click("#stop")
        else:
            page.click("button.choose >> nth=0")
    elif page.is_visible("#chance-form"):
        page.click("#chance-example")  # what the table showed: here the example the engine gives
        page.click("#chance-submit")
    else:
        page.click("#legal-groups button.legal:visible >> nth=0")
    wait_until(lambda: count(app) == n + 1)
    wait_until(lambda: drawn(page, app))


def undo_once(page: Any, app: Appliance) -> None:
    left = count(app) - 1
    page.click("#turn-undo")
    wait_until(lambda: count(app) == left)


def view_text(page: Any) -> dict[str, str]:
    """What a player reads of the game: the turn, the scores, the last actions, the game over box."""
    out = {}
    for selector in ("#turn", "#scores", "#sheet", "#log", "#game-over"):
        if page.locator(selector).count():
            out[selector] = page.inner_text(selector)
    return out


@pytest.mark.parametrize("name", list(GAMES))
def test_play_offline_undo_and_reload(web_appliance: tuple[Appliance, str], browser: Any, name: str,
                                      tmp_path: Path) -> None:
    app, address = web_appliance
    seed, viewport = GAMES[name]
    page, errors = open_page(browser, address, viewport)
    pair(page)
    set_up(page, app, name, seed)
    game = app.session.snapshot()["game"]
    assert game["mode"] == "offline" and game["seed"] == seed and game["players"] == ["Anna", "Ben"]
    # A game with a page module of its own is drawn by it (its generic controls below it), else by the generic view.
    view = name if (Path(__file__).parents[1] / "web" / "static" / "games" / f"{name}.js").is_file() else "generic"
    assert page.get_attribute("#game-root .game-view", "data-view") == view

    # Something the engine cannot read, typed into the entry box: the reason stays beside the box.
    box, slot = ("#roll-text", "roll") if name == "pasa" else ("#chance-text", "chance")
    while page.is_hidden(box):  # play up to the first chance step
        step(page, app, name)
    page.fill(box, "nonsense 99")
    page.press(box, "Enter")
    error = f".errors[data-slot='{slot}'] .error"
    page.wait_for_selector(error, timeout=5000)
    assert "nonsense 99" in page.inner_text(error)
    time.sleep(0.5)
    assert page.is_visible(error)
    page.click(f"{error} .dismiss")
    assert page.locator(error).count() == 0
    while count(app):  # back to the start, with the game's own undo button
        undo_once(page, app)
    wait_until(lambda: drawn(page, app))

    movers = set()
    for _ in range(12):
        step(page, app, name)
        movers.add(app.session.snapshot()["game"]["status"]["to_move"])
    assert count(app) == 12
    assert {"Anna", "Ben"} <= movers or name == "dicetreasure"  # a Dice Treasure turn is longer than 12 actions
    snap = app.session.snapshot()["game"]
    # Last actions: in words, newest first.
    assert page.locator("#log li .words").all_inner_texts() == [a["words"] for a in reversed(snap["actions"])]
    scores = page.inner_text("#sheet" if name == "pasa" else "#scores")
    for player, score in snap["scores"].items():
        assert player in scores and str(score["total"]) in scores

    # Undo the last action from the game's own undo button.
    before = view_text(page)
    page.click("#turn-undo")
    wait_until(lambda: count(app) == 11)
    wait_until(lambda: drawn(page, app))
    undone = view_text(page)
    assert undone != before
    # A reload shows the same state.
    page.reload()
    page.wait_for_selector("#connection:text('live')", timeout=10000)
    wait_until(lambda: drawn(page, app) and page.get_attribute("body", "data-game") == name)
    assert view_text(page) == undone
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    assert errors == [], f"the page's scripts failed: {errors}"


def test_pasa_to_the_end_shows_the_winner(web_appliance: tuple[Appliance, str], browser: Any) -> None:
    import random

    from engine.game import find_game

    app, address = web_appliance
    page, errors = open_page(browser, address, DESKTOP)
    pair(page)
    set_up(page, app, "pasa", None)
    # Most of the game comes from the engine's own random play; the last turn's end is the page's button.
    rules, rng = find_game("pasa"), random.Random(5)
    while True:
        state = app.session.state
        if rules.status(state).awaiting == "chance":
            action = rules.random_chance(state, rng)
        else:
            legal = rules.legal_actions(state)
            action = legal[0] if len(legal) == 1 else rng.choice(legal[1:] or legal)
        after = rules.apply(state, action)
        if rules.status(after).finished:
            break
        app.session.apply_text(rules.action_text(action), "test")
    wait_until(lambda: drawn(page, app) and page.is_visible("#stop"))
    assert page.is_hidden("#game-over")
    page.click("#stop")
    page.wait_for_selector("#game-over:visible", timeout=5000)
    snap = app.session.snapshot()["game"]
    winners = snap["status"]["winners"]
    assert winners
    wait_until(lambda: drawn(page, app))
    text = page.inner_text("#game-over")
    assert "Game over" in text
    assert all(w in page.inner_text("#game-over .winner") for w in winners)
    for player, score in snap["scores"].items():
        assert page.inner_text(f"#game-over td[data-player='{player}']") == str(score["total"])
    assert "♛" in page.inner_text(f"#sheet td[data-player='{winners[0]}']")
    assert errors == []


def test_pasa_scorekeeper_writes_the_engines_entries(web_appliance: tuple[Appliance, str], browser: Any) -> None:
    app, address = web_appliance
    page, errors = open_page(browser, address, PHONE)
    pair(page)
    set_up(page, app, "pasa", None)
    wait_until(lambda: drawn(page, app) and page.is_visible("#enter-form"))
    page.select_option("#enter-category", "fours")
    # Fours can be 0, 4, 8, ... 24: the points offered are the engine's entries, nothing else.
    wait_until(lambda: page.locator("#enter-points option").all_inner_texts()
               == ["0", "4", "8", "12", "16", "20", "24"])
    page.select_option("#enter-points", label="12")
    page.click("#enter-form button[type=submit]")
    wait_until(lambda: app.session.state.sheets["Anna"] == {"fours": 12})
    assert app.session.origins == ["page"] and errors == []


def test_set_up_mistakes_are_shown_by_their_field(web_appliance: tuple[Appliance, str], browser: Any) -> None:
    app, address = web_appliance
    page, errors = open_page(browser, address, PHONE)
    pair(page)
    wait_until(lambda: page.locator("#setup-game option").count() == len(GAMES))
    before = app.session.snapshot()["game"]
    page.select_option("#setup-game", "pyradice")
    # The rule options come from the catalog, each with its words.
    catalog = {g["name"]: g for g in app.session.catalog()}
    for option, spec in catalog["pyradice"]["options"].items():
        assert page.input_value(f"#setup-option-{option}") == spec["default"]
        assert page.inner_text(f"#setup-option-{option}-doc") == spec["doc"]
    # The modes the game can be played in: the camera's only where its adapter reads it.
    modes = ["offline: enter every move on this page"]
    if catalog["pyradice"]["live"] == "camera":
        modes.insert(0, "camera: the device watches the table")
    assert page.locator("#setup-mode option").all_inner_texts() == modes
    page.fill("#setup-players", "Anna")
    page.click("#setup-start")
    page.wait_for_selector(".errors[data-slot='field-players'] .error", timeout=5000)
    assert "2 to 4 players" in page.inner_text(".errors[data-slot='field-players']")
    # A mistake only the device finds (names that differ only in case) comes back by its field too.
    page.fill("#setup-players", "Anna, anna")
    page.click("#setup-start")
    wait_until(lambda: "different" in page.inner_text(".errors[data-slot='field-players']"))
    assert app.session.snapshot()["game"] == before or app.session.snapshot()["game"]["id"] == before["id"]
    # A real table's set-up: its words asked only when "table" is chosen; a mistake in them named, nothing started.
    assert page.is_hidden("#setup-option-setup-text")
    page.select_option("#setup-option-setup", "table")
    assert page.is_visible("#setup-option-setup-text")
    page.fill("#setup-players", "Anna, Ben")
    page.fill("#setup-option-setup-text", "A2 B3 A4 B5 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:orange")
    page.click("#setup-start")
    wait_until(lambda: "none given for level 6" in page.inner_text("#setup-form"))
    assert app.session.snapshot()["game"] == before or app.session.snapshot()["game"]["id"] == before["id"]
    words = "A6 B5 A4 B3 A2 C1 D4 C2 C6 D7 many:white height:gray pairs:maroon big:orange"
    page.fill("#setup-option-setup-text", words)
    page.select_option("#setup-mode", "offline")
    page.click("#setup-start")
    wait_until(lambda: (g := app.session.snapshot()["game"]) is not None and g["options"].get("setup") == words)
    assert app.session.state.board.skills == ("A2", "B3", "A4", "B5", "A6") and not app.session.state.quarry.dice
    # Offline (or where the camera cannot read one), the players enter each uncovered quarry die in the chance box.
    app.session.apply_text("roll-off 5 2", "page")
    wait_until(lambda: "uncovered but not read yet" in page.inner_text("#chance-what"))
    page.fill("#chance-text", "reveal q2,0,0 gray:4")
    page.click("#chance-submit")
    wait_until(lambda: str(app.session.state.quarry.dice.get((2, 0, 0))) == "gray:4")
    assert errors == []


def test_a_logged_game_that_cannot_be_loaded_is_said_plainly(tmp_path: Path, browser: Any) -> None:
    from device.eventlog import EventLog

    log = EventLog(tmp_path / "events.sqlite3")
    log.new_game("pyradice", ["Anna", "Ben"], {}, "offline")
    log.append(1, '{"this": "is no pyradice action"}', "page")
    log.close()
    config = Config().replace(panel={"mode": "mock"}, game={"players": ["Anna", "Ben"]})
    with Appliance(config, None, truth_reader, state_dir=tmp_path, start_game=False) as app:
        page, errors = open_page(browser, app.start_web("127.0.0.1", 0), PHONE)
        page.wait_for_selector("#setup-problem:visible", timeout=5000)
        assert "cannot be resumed" in page.inner_text("#setup-problem")
        assert "No game running" in page.inner_text("#game-root")
        pair(page)
        set_up(page, app, "pyramido", 4)
        wait_until(lambda: page.is_hidden("#setup-problem"))
        assert errors == []


def test_mats_are_offered_and_the_camera_check_says_what_is_missing(web_appliance: tuple[Appliance, str],
                                                                    browser: Any) -> None:
    app, address = web_appliance
    app.session.new_game(["Anna", "Ben", "Cyril"], game="pyramido", mode="offline", seed=2)
    page, errors = open_page(browser, address, DESKTOP)
    wait_until(lambda: page.get_attribute("body", "data-table-setup") == "ready")
    options = page.locator("#mats-game option").all_inner_texts()
    assert options == ["Pyradice", "Pyramido: Forgotten Treasures", "Dice Treasure"]  # with mats; Paša needs none
    assert page.input_value("#mats-game") == "pyramido" and page.input_value("#mats-players") == "3"
    from vision.mats import mats

    assert page.locator("#mats-sheets li").count() == len(mats("pyramido", 3))
    wait_until(lambda: page.get_attribute("#mats-preview", "src") is not None and page.is_visible("#mats-preview"))
    svg = page.request.get(address.split()[0] + page.get_attribute("#mats-sheets li:first-child a.svg", "href"))
    assert svg.ok and b'mm"' in svg.body()[:600]
    # The camera sees two of the three players' mats and nothing of the exploration area.
    import numpy as np

    from vision.lab.mat_render import ViewStyle, render_mats, table_layout

    rng = np.random.default_rng(4)
    scene = render_mats(rng, table_layout(mats("pyramido", 3)[:2], rng), (960, 720), ViewStyle(tilt=12.0), [])
    app.hub.put_frame(scene.image, ())
    page.click("#camera-check")
    wait_until(lambda: page.is_visible("#camera-report") and page.locator("#camera-sheets tr").count() > 1)
    advice = page.inner_text("#camera-advice")
    assert "0 of" in advice and "Every mat is found" not in advice
    assert page.locator("#camera-sheets tr.located").count() == 2
    wait_until(lambda: page.is_visible("#camera-view"))
    assert page.inner_text("#teach-dice") == "Teach the block colours"  # from player 1's pyramid mat
    page.select_option("#mats-game", "dicetreasure")
    wait_until(lambda: page.locator("#mats-sheets li").count() == len(mats("dicetreasure", 3)))
    # Pyramido's line said "still to teach" too: wait for Dice Treasure's own report (its pieces are dice).
    wait_until(lambda: "die colours taught" in page.inner_text("#colours-taught"))
    assert "still to teach" in page.inner_text("#colours-taught")
    assert page.is_visible("#teach-dice")  # Dice Treasure's pieces are dice: taught from the camera
    assert page.inner_text("#teach-dice") == "Teach the dice colours"
    # The owners' own deck: the card on player 1's first spot is read, checked, fixed by the owner and added.
    from engine.dicetreasure import load_deck, sample_deck
    from vision.lab.dicetreasure_render import render_enrolment

    wait_until(lambda: "No card enrolled yet" in page.inner_text("#deck-status"))
    pair(page)
    card = sample_deck().card("red-5")
    app.hub.put_frame(render_enrolment(card, 6103, (960, 720)).image, ())  # seed 6103: never used before
    page.click("#deck-read")
    wait_until(lambda: page.is_visible("#deck-card"))
    assert page.locator("#deck-spaces tr[data-space]").count() == len(card.spaces)
    assert page.input_value("#deck-background") == "red"
    page.select_option("#deck-spaces tr[data-space='1'] select.value", "6")
    page.click("#deck-add")
    wait_until(lambda: page.locator("#deck-cards li").count() == 1)
    assert "1 of 63 motif cards enrolled (a partial deck)" in page.inner_text("#deck-status")
    assert page.is_hidden("#deck-card")
    saved = load_deck(app.session.log.path.parent / "deck.json").card("red-1")
    assert sorted(saved.spaces, key=lambda s: (s.pos[1], s.pos[0]))[0].value == 6  # the owner's fix was kept
    page.select_option("#deck-bonus select.requires >> nth=0", "red")
    page.click("#deck-bonus-add")
    wait_until(lambda: page.locator("#deck-bonus-cards li").count() == 1)
    assert "leprechaun-1: red, any, any -> 2 gold" in page.inner_text("#deck-bonus-cards")
    assert errors == []


def test_a_paired_browser_lists_and_forgets_the_others(web_appliance: tuple[Appliance, str], browser: Any) -> None:
    app, address = web_appliance
    app.session.new_game(["Anna", "Ben"], game="pyradice", mode="offline", seed=3)
    first, errors = open_page(browser, address, DESKTOP)
    assert first.is_hidden("#browsers-card")  # watching only: nothing to list
    pair(first)
    wait_until(lambda: first.is_visible("#browsers-card") and first.locator("#browsers li").count() == 1)
    assert "(this browser)" in first.inner_text("#browsers li")
    guest = browser.new_context(viewport=PHONE).new_page()  # another browser: its own cookies
    guest.goto(address)
    guest.wait_for_selector("#connection:text('live')", timeout=10000)
    pair(guest)
    first.reload()
    wait_until(lambda: first.locator("#browsers li").count() == 2)
    first.click("#browsers li:not(:has-text('this browser')) button.forget")
    wait_until(lambda: first.locator("#browsers li").count() == 1)
    # The guest's cookie no longer pairs it: its next change is refused where it pressed.
    example = app.session.legal()["chance"]["example"]
    guest.fill("#chance-text", example)
    guest.press("#chance-text", "Enter")
    wait_until(lambda: "not paired" in guest.inner_text("#game-root"))
    assert app.session.actions == [] and errors == []


def test_a_game_whose_view_cannot_load_is_drawn_by_the_generic_view(web_appliance: tuple[Appliance, str],
                                                                    browser: Any) -> None:
    """app.js shows the generic view when a game's own module fails to load: here the board games' shared
    drawing module (games/draw.js) is not served, so games/pyramido.js cannot load."""
    app, address = web_appliance
    app.session.new_game(["Anna", "Ben"], game="pyramido", mode="offline", seed=3)
    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    blocked: list[str] = []

    def refuse(route: Any) -> None:
        blocked.append(route.request.url)
        route.abort()

    page.route("**/static/games/draw.js", refuse)
    page.goto(address)
    page.wait_for_selector("#connection:text('live')", timeout=10000)
    wait_until(lambda: page.get_attribute("body", "data-game") == "pyramido" and drawn(page, app))
    assert blocked
    assert page.get_attribute("#game-root .game-view", "data-view") == "generic"
    assert page.locator("#pyramido-table").count() == 0
    assert page.locator("#legal-groups button.legal").count() == len(app.session.legal()["legal"]) > 0
    assert errors == []
