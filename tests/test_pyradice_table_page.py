"""The Pyradice page module (web/static/games/pyradice.js) in headless Chromium (Debian's chromium through
Playwright; never a downloaded browser): the quarry in three SVG layers with the available dice outlined, each
pyramid with its objective token per level and skills, the die in hand with its legal slots glowing, the
objective cards with each player's points, and the live totals; the generic action buttons still play; and the
camera card, where a die read in doubt is tapped and said."""

from __future__ import annotations

from typing import Any

from device.appliance import Appliance
from tests.browser import BROWSER_TESTS, DESKTOP, drawn, open_page, pair, wait_until
from vision.pyradice_read import BoardReading, DieRead, PyradiceReading, QuarryReading, SlotReading

pytestmark = BROWSER_TESTS


def test_the_pyradice_page_draws_the_table(web_appliance: tuple[Appliance, str], browser: Any) -> None:
    app, address = web_appliance
    session = app.session
    session.new_game(["Anna", "Ben"], game="pyradice", mode="offline", seed=12)
    session.apply_text("roll-off 6 2", "page")
    for _ in range(3):  # three turns (one die each) of take and place on level 1 (no skill step there)
        legal = session.legal()["legal"]
        session.apply_text(next(a["text"] for a in legal if a["group"] == "take"), "page")
        legal = session.legal()["legal"]
        session.apply_text(next(a["text"] for a in legal if a["text"].startswith("place 1,")), "page")
    legal = session.legal()["legal"]
    session.apply_text(next(a["text"] for a in legal if a["group"] == "take"), "page")  # a die in hand
    live = session.snapshot()["game"]["live"]
    assert live["kind"] == "pyradice" and live["hand"]
    page, errors = open_page(browser, address, DESKTOP)
    wait_until(lambda: page.get_attribute("body", "data-game") == "pyradice" and drawn(page, app))
    page.wait_for_selector("#quarry-svg g.qdie")
    assert page.locator("#quarry-svg g.layer").count() == 3
    assert page.locator("#quarry-svg g.qdie").count() == len(live["quarry"]) == 47 - 4
    outlined = page.locator("#quarry-svg g.qdie.available")
    assert outlined.count() == len(live["available"])
    assert {outlined.nth(i).get_attribute("data-position") for i in range(outlined.count())} == set(live["available"])
    assert page.locator("figure.pyramid").count() == 2
    mover = page.locator("figure.pyramid.to-move")
    assert mover.count() == 1
    glowing = mover.locator("rect.slot.legal")
    assert glowing.count() == len(live["legal_slots"]) > 0
    assert {glowing.nth(i).get_attribute("data-slot") for i in range(glowing.count())} == set(live["legal_slots"])
    assert page.locator("figure.pyramid[data-player='Anna'] g.pdie").count() + \
        page.locator("figure.pyramid[data-player='Ben'] g.pdie").count() == 3
    # objective tokens per level, with met / possible / impossible, and the skill per level
    assert mover.locator("text.objective").count() == 5 and mover.locator("text.skill").count() == 5
    results = {mover.locator("text.objective").nth(i).get_attribute("data-result") for i in range(5)}
    assert results <= {"met", "possible", "impossible"}
    assert "holds" in page.inner_text("#pyradice-hand")
    # the cards with a row each and every player's points, and the live totals
    assert page.locator("#pyradice-cards tr[data-card]").count() == 4
    for p in live["players"]:
        assert page.inner_text(f"#pyradice-cards tr.total td[data-player='{p['name']}']") == str(p["total"])
    # the generic part still plays: placing the die in hand from the page's button
    n = session.snapshot()["game"]["action_count"]
    session.apply_text(f"place {live['legal_slots'][0]}", "page")
    wait_until(lambda: drawn(page, app))
    wait_until(lambda: page.locator("figure.pyramid g.pdie").count() == 4)
    assert session.snapshot()["game"]["action_count"] == n + 1
    assert not errors, errors


def test_a_die_read_in_doubt_is_tapped_and_said_on_the_page(web_appliance: tuple[Appliance, str],
                                                            browser: Any) -> None:
    app, address = web_appliance
    session = app.session
    session.new_game(["Anna", "Ben"], game="pyradice", mode="camera", seed=12)
    session.apply_text("roll-off 6 2", "page")
    page, errors = open_page(browser, address, DESKTOP)
    wait_until(lambda: page.get_attribute("body", "data-game") == "pyradice" and drawn(page, app))
    # The camera read a die on Anna's first slot whose face it could not tell (a 3? a 5?).
    doubt = DieRead(3, "maroon", 0.55, 0.99, (30.0, 40.0, 20.0), True, "face hard to read")
    slot = SlotReading((1, 0), True, 0.97, doubt, True, "face hard to read", (120.0, 200.0))
    reading = PyradiceReading(2, (BoardReading(1, (slot,)), BoardReading(2, ())), QuarryReading(), ())
    session.on_settled([reading], moved=False)
    assert session.table.pending
    page.wait_for_selector("#pyradice-camera button.reading.unsure", timeout=5000)
    assert "Anna's slot" in page.inner_text("#pyradice-camera button.reading.unsure")
    pair(page)
    page.click("#pyradice-camera button.reading.unsure")
    page.check("#pyradice-correct input[name='colour'][value='maroon']")
    page.click("#pyradice-correct button.face-button[value='5']")
    # The players said a maroon 5: the reading is corrected (the device then explains the table with it).
    wait_until(lambda: page.locator("#pyradice-camera button.reading.corrected").count() == 1)
    assert session.snapshot()["table"]["seen"]["corrections"] == [
        {"index": 0, "place": "player 1's level 1, slot 1", "die": "maroon:5"}]
    assert errors == []
