"""The real page in headless Chromium (Debian's chromium through Playwright; never a downloaded browser):
it loads, a live update arrives over SSE, the browser pairs through the virtual panel, a die is corrected."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from device.appliance import Appliance, truth_reader
from device.config import Config
from device.session import reading

pytest.importorskip("engine.pasa", reason="engine.pasa (the Paša game) is not in this build yet")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason=f"{CHROMIUM} is not installed (apt install chromium)"),
]


@pytest.fixture
def appliance(tmp_path: Path) -> Iterator[tuple[Appliance, str]]:
    config = Config().replace(panel={"mode": "mock"}, game={"players": ["Anna", "Ben"]})
    with Appliance(config, None, truth_reader, state_dir=tmp_path) as app:
        app.session.new_game(["Anna", "Ben"], mode="camera")  # readings are fed by the test, not a camera
        address = app.start_web("127.0.0.1", 0)
        yield app, address


@pytest.fixture
def page(appliance: tuple[Appliance, str]) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page()
            page.goto(appliance[1])
            yield page
        finally:
            browser.close()


def wait_until(check: Any, timeout: float = 5.0) -> None:
    """Poll ``check`` (the page's CSP forbids evaluating strings, so no wait_for_function)."""
    import time

    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out waiting for the page"
        time.sleep(0.05)


def test_live_update_pairing_and_correction(appliance: tuple[Appliance, str], page: Any, tmp_path: Path) -> None:
    app, _ = appliance
    page.wait_for_selector("#connection:text('live')", timeout=10000)
    # A live update: the table settles; the dice appear without a reload.
    app.session.on_settled([reading(v, 100.0 * i, 80.0, unsure=(i == 1)) for i, v in enumerate([6, 1, 6, 6, 2, 3])],
                           moved=True)
    wait_until(lambda: page.locator("#dice .die").count() == 6)
    assert page.locator("#dice .die.unsure").count() == 1
    assert "hard to read" in page.inner_text("#warnings")
    # Pair through the virtual panel (the mock panel is configured).
    page.click("#pair-button")
    wait_until(lambda: "CONFIRM" in page.inner_text("#pairing"))
    page.click("#virtual-panel button[data-button='confirm']:not([data-long])")
    page.wait_for_selector("#pairing:text('paired')", timeout=5000)
    # Correct the unsure die (the second one) to a six.
    page.click("#dice .die.unsure")
    page.click("#correct-dialog button.face-button[value='6']")
    wait_until(lambda: page.locator("#dice .die.unsure").count() == 0)
    assert app.session.state.dice == (2, 3, 6, 6, 6, 6)
    page.wait_for_selector("button.choose[data-category='sixes']", timeout=5000)
    page.screenshot(path=str(tmp_path / "live.png"), full_page=True)
    assert (tmp_path / "live.png").stat().st_size > 10000
    page.click("button.choose[data-category='sixes']")
    wait_until(lambda: page.inner_text("#category") == "Sixes")
    assert app.session.state.category == "sixes"
