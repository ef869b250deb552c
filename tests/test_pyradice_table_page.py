"""The Pyradice page module (web/static/games/pyradice.js) in headless Chromium (Debian's chromium through
Playwright; never a downloaded browser): the quarry in three SVG layers with the available dice outlined, each
pyramid with its objective token per level and skills, the die in hand with its legal slots glowing, the
objective cards with each player's points, and the live totals; the generic action buttons still play."""

from __future__ import annotations

from typing import Any

from device.appliance import Appliance
from tests.browser import BROWSER_TESTS, DESKTOP, drawn, open_page, wait_until

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
