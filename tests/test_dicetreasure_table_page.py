"""The Dice Treasure page module (web/static/games/dicetreasure.js) in headless Chromium (Debian's chromium
through Playwright; never a downloaded browser): every card with its spaces and dice, the tray and the reserves,
gold per player; choosing a die makes exactly the engine's legal spaces glow and greys out those the neighbour
rule forbids; the generic action buttons still play."""

from __future__ import annotations

from typing import Any

from device.appliance import Appliance
from device.tables.dicetreasure import Snapshot, SpotReading, ZoneReading
from engine.dice import Die
from engine.dicetreasure import legal_spaces
from tests.browser import BROWSER_TESTS, DESKTOP, drawn, open_page, pair, wait_until

pytestmark = BROWSER_TESTS


def dealt_and_rolled(session: Any, mode: str) -> None:
    """Anna and Ben, four cards each (the stand-in deck's reds and blues), Anna's six dice rolled."""
    session.new_game(["Anna", "Ben"], {"leprechauns": "off"}, game="dicetreasure", mode=mode)
    session.apply_text("deal Anna: red-1 red-2 red-5 red-8", "page")
    session.apply_text("deal Ben: blue-1 blue-2 blue-5 blue-8", "page")
    session.apply_text("roll red:1 red:2 yellow:3 green:4 blue:5 purple:6", "page")


def test_the_dicetreasure_page_draws_the_table_and_the_legal_spaces(web_appliance: tuple[Appliance, str],
                                                                     browser: Any) -> None:
    app, address = web_appliance
    session = app.session
    dealt_and_rolled(session, "offline")
    legal = session.legal()["legal"]
    first = next(a["text"] for a in legal if a["group"] == "place")
    session.apply_text(first, "page")
    live = session.snapshot()["game"]["live"]
    assert live["kind"] == "dicetreasure" and len(live["tray"]) == 5
    page, errors = open_page(browser, address, DESKTOP)
    wait_until(lambda: page.get_attribute("body", "data-game") == "dicetreasure" and drawn(page, app))
    page.wait_for_selector("figure.dt-card")
    assert page.get_attribute("#game-root .game-view", "data-view") == "dicetreasure"
    assert page.locator("figure.dt-card").count() == 8
    assert page.locator("section.dt-player.to-move").get_attribute("data-player") == "Anna"
    assert page.locator("#dt-tray svg.dt-die").count() == 5
    assert page.locator("figure.dt-card svg.dt-die").count() == 1  # the die just placed
    assert "0 gold" in page.inner_text("section.dt-player[data-player='Anna'] h3")
    # Choose each die in turn: the glowing spaces are exactly the engine's legal ones for it.
    state = session.state
    for die in live["movable"]:
        page.click(f"#dt-pick button[data-die='{die}']")
        page.wait_for_selector(f"#dt-pick button.selected[data-die='{die}']")
        glowing = page.locator("g.space.legal")
        got = {(glowing.nth(i).locator("xpath=ancestor::figure").get_attribute("data-card"),
                int(glowing.nth(i).get_attribute("data-space") or 0)) for i in range(glowing.count())}
        assert got == set(legal_spaces(state, Die.parse(die))), die
    # A space the neighbour rule forbids for the selected die is greyed, with the reason.
    blocked = [(c["card"], sp["space"], d) for c in live["players"][0]["cards"] for sp in c["spaces"]
               for d in sp.get("blocked_for", {})]
    if blocked:
        card, space, die = blocked[0]
        page.click(f"#dt-pick button[data-die='{die}']")
        node = page.locator(f"figure.dt-card[data-card='{card}'] g.space.blocked[data-space='{space}']")
        assert node.count() == 1 and "next to" in (node.locator("title").text_content() or "")
    # A table the camera waits for (an adapter's Explained.waiting) is said above the game, asking nothing.
    session.table.waiting = "the table shows a turn the game has already passed"
    session.publish()
    page.wait_for_selector("#table-waiting", timeout=5000)
    assert "already passed" in page.inner_text("#table-waiting")
    session.table.waiting = ""
    session.publish()
    page.wait_for_selector("#table-waiting", state="detached", timeout=5000)
    # The generic buttons below still play (for a paired browser).
    pair(page)
    n = session.snapshot()["game"]["action_count"]
    page.click("#legal-groups button.legal:visible >> nth=0")
    wait_until(lambda: session.snapshot()["game"]["action_count"] == n + 1)
    assert errors == []


def test_a_space_read_in_doubt_is_tapped_and_said_on_the_page(web_appliance: tuple[Appliance, str],
                                                              browser: Any) -> None:
    app, address = web_appliance
    session = app.session
    dealt_and_rolled(session, "camera")
    page, errors = open_page(browser, address, DESKTOP)
    wait_until(lambda: page.get_attribute("body", "data-game") == "dicetreasure" and drawn(page, app))
    # The camera saw a die on Anna's card red-1 whose face it could not tell; the rest of the table as it is.
    spaces = {c.card.id: len(c.dice) for p in session.state.players for c in p.cards}
    spots = []
    for spot, card in enumerate(("red-1", "red-2", "red-5", "red-8")):
        n = spaces[card]
        dice: tuple[Die | None, ...] = (None,) * n
        why = ("",) * n
        if spot == 0:
            dice, why = (Die(2, "red"), *dice[1:]), ("pips hard to count", *why[1:])
        centres = tuple((100.0 + 20 * i, 100.0) for i in range(n))
        spots.append(SpotReading("motif-cards-1", spot, card, dice, why, centres))
    tray = ZoneReading("tray", (Die(1, "red"), Die(3, "yellow"), Die(4, "green"), Die(5, "blue"), Die(6, "purple")))
    session.on_settled([Snapshot(tuple(spots), (tray,))], moved=False)
    assert session.table.pending
    page.wait_for_selector("#dicetreasure-camera button.reading.unsure", timeout=5000)
    assert "card red-1, space 1" in page.inner_text("#dicetreasure-camera button.reading.unsure")
    pair(page)
    page.click("#dicetreasure-camera button.reading.unsure")
    offered = page.locator("#dicetreasure-correct input[name='colour']")
    assert [offered.nth(i).get_attribute("value") for i in range(offered.count())] == list(session.state.dice_colours)
    page.check("#dicetreasure-correct input[name='colour'][value='red']")
    page.click("#dicetreasure-correct button.face-button[value='2']")
    # The players said a red 2: the space is corrected, sure now.
    wait_until(lambda: page.locator("#dicetreasure-camera button.reading.corrected").count() == 1)
    seen = session.snapshot()["table"]["seen"]
    assert [s for s in seen["spaces"] if s["corrected"]] == [
        {"card": "red-1", "space": 1, "die": "red:2", "unsure": False, "why": "pips hard to count",
         "centre": [100.0, 100.0], "corrected": True}]
    assert errors == []
