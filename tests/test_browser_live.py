"""The real page in headless Chromium (Debian's chromium through Playwright; never a downloaded browser), Paša in
camera mode: it loads, live updates arrive over SSE, an unpaired browser's panel press is refused with the error
next to the panel (it stays until dismissed, on a phone's width too), the browser pairs through the virtual
panel, a die in doubt is corrected, the category is chosen on the sheet, the latest roll is corrected after
the choice, and a new roll in doubt is shown alone (no previous holds, "Now" column or advice)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from device.appliance import Appliance
from device.session import reading
from tests.browser import BROWSER_TESTS, PHONE, drawn, open_page, pair, wait_until

pytest.importorskip("engine.pasa", reason="engine.pasa (the Paša game) is not in this build yet")
pytestmark = BROWSER_TESTS


@pytest.fixture
def appliance(web_appliance: tuple[Appliance, str]) -> tuple[Appliance, str]:
    web_appliance[0].session.new_game(["Anna", "Ben"], game="pasa", mode="camera")  # readings are fed by the test
    return web_appliance


@pytest.fixture
def page(appliance: tuple[Appliance, str], browser: Any) -> Iterator[Any]:
    page, errors = open_page(browser, appliance[1], PHONE, live=False)
    yield page
    assert errors == [], f"the page's scripts failed: {errors}"


def tray(values: list[int], unsure: int | None = None) -> list[Any]:
    return [reading(v, 100.0 * i, 80.0, unsure=(i == unsure)) for i, v in enumerate(values)]


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    if box is None:
        return False
    return bool(box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] and box["width"] <= PHONE["width"])


def test_live_update_pairing_and_correction(appliance: tuple[Appliance, str], page: Any, tmp_path: Path) -> None:
    app, _ = appliance
    page.wait_for_selector("#connection:text('live')", timeout=10000)
    wait_until(lambda: page.get_attribute("body", "data-game") == "pasa")

    # An unpaired browser may not undo with the virtual panel: the refusal sits by the panel and stays.
    page.click("#virtual-panel button[data-button='undo']")
    page.wait_for_selector(".errors[data-slot='panel'] .error", timeout=5000)
    assert "not paired" in page.inner_text(".errors[data-slot='panel']")
    assert in_view(page, ".errors[data-slot='panel'] .error")
    time.sleep(1.0)
    assert page.locator(".errors[data-slot='panel'] .error").count() == 1
    page.click(".errors[data-slot='panel'] .error .dismiss")
    assert page.locator(".errors[data-slot='panel'] .error").count() == 0

    # A live update: the table settles with a die in doubt; only that reading is shown, waiting.
    app.session.on_settled(tray([6, 1, 6, 6, 2, 3], unsure=1), moved=True)
    wait_until(lambda: page.locator("#dice .die").count() == 6)
    assert page.locator("#dice .die.unsure").count() == 1
    assert "hard to read" in page.inner_text("#pending")
    assert page.is_visible("#accept")

    # Pair through the virtual panel (the mock panel is configured).
    pair(page)

    # Correct the unsure die (the second one) to a six: the roll is accepted.
    page.click("#dice .die.unsure")
    page.click("#correct-dialog button.face-button[value='6']")
    wait_until(lambda: page.locator("#dice .die.unsure").count() == 0)
    assert app.session.state.dice == (2, 3, 6, 6, 6, 6)
    page.wait_for_selector("button.choose[data-category='sixes']", timeout=5000)
    wait_until(lambda: drawn(page, app))
    # The advisor's figure is the expected final total (sheet + expected rest), labelled so.
    live = app.session.snapshot()["game"]["live"]
    first = live["ranking"][0]
    assert first["final"] is not None
    assert f"expected final total {first['final']:.1f}" in page.inner_text("#advice li:first-child")
    page.screenshot(path=str(tmp_path / "live.png"), full_page=True)
    assert (tmp_path / "live.png").stat().st_size > 10000
    page.click("button.choose[data-category='sixes']")
    wait_until(lambda: page.inner_text("#category") == "Sixes")
    assert app.session.state.category == "sixes"

    # The latest roll can still be corrected after the choice: the three becomes a six.
    wait_until(lambda: drawn(page, app))
    page.click("#dice .die[data-value='3']")
    page.click("#correct-dialog button.face-button[value='6']")
    wait_until(lambda: app.session.state.dice == (2, 6, 6, 6, 6, 6))
    assert app.session.state.category == "sixes"
    assert app.session.snapshot()["game"]["actions"][-1]["origin"] == "page"
    wait_until(lambda: page.locator("#dice .die[data-value='6']").count() == 5)
    wait_until(lambda: page.locator("#dice .die.hold").count() > 0)  # the advisor's holds for this roll

    # A re-roll in doubt: only the new dice are shown, without the old roll's holds, "Now" or advice.
    app.session.on_settled(tray([6, 6, 6, 6, 6, 4], unsure=5), moved=True)
    wait_until(lambda: page.locator("#dice .die.unsure").count() == 1)
    wait_until(lambda: drawn(page, app))
    assert page.locator("#dice .die.hold").count() == 0
    assert page.locator("#advice li").count() == 0
    assert "Now" not in page.inner_text("#sheet")
    assert page.is_hidden("#stop")
    assert [page.get_attribute(f"#dice .die >> nth={i}", "data-value") for i in range(6)] == list("666664")
    page.click("#accept")
    wait_until(lambda: app.session.state.dice == (4, 6, 6, 6, 6, 6))
    wait_until(lambda: page.locator("#dice .die.unsure").count() == 0 and page.is_visible("#stop"))
    # Last actions read in words, newest first.
    wait_until(lambda: drawn(page, app))
    words = [a["words"] for a in reversed(app.session.snapshot()["game"]["actions"])]
    assert page.locator("#log li .words").all_inner_texts() == words
