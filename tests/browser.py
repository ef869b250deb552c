"""What the tests that drive the real page in headless Chromium share: Debian's chromium (through Playwright,
never a downloaded browser) and how it is started, the marks that skip those tests where it is missing, the
viewports, and the steps every such test takes (open the page until it is live, wait for a drawing, pair).

The browser itself is the ``browser`` fixture in ``tests/conftest.py``: one Chromium serves a run of browser
tests, each test in contexts of its own (its own cookies) that are closed after it.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import Any

import pytest

from device.appliance import Appliance

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

#: A browser test is skipped where chromium is not installed.
needs_chromium = pytest.mark.skipif(shutil.which(CHROMIUM) is None,
                                    reason=f"{CHROMIUM} is not installed (apt install chromium)")
#: ``pytestmark`` of a module of browser tests: marked ``browser``, skipped where chromium is not installed.
BROWSER_TESTS = [pytest.mark.browser, needs_chromium]


def open_page(browser: Any, address: str, viewport: dict[str, int], live: bool = True) -> tuple[Any, list[str]]:
    """A new page (in a context of its own) at ``address``, and the list its script errors are gathered in.

    With ``live`` it waits until the page's event stream is connected."""
    page = browser.new_page(viewport=viewport)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(address)
    if live:
        page.wait_for_selector("#connection:text('live')", timeout=10000)
    return page, errors


def wait_until(check: Callable[[], Any], timeout: float = 8.0) -> None:
    """Poll ``check`` (the page's CSP forbids evaluating strings, so no wait_for_function)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out waiting for the page"
        time.sleep(0.05)


def drawn(page: Any, app: Appliance) -> bool:
    """Whether the page has drawn the latest published snapshot."""
    return bool(page.get_attribute("body", "data-version") == str(app.session.hub.latest()[0]))


def pair(page: Any) -> None:
    """Pair the page's browser through the virtual panel (the mock panel): PAIR, then a short CONFIRM."""
    page.click("#pair-button")
    wait_until(lambda: "CONFIRM" in page.inner_text("#pairing"))
    page.click("#virtual-panel button[data-button='confirm']:not([data-long])")
    page.wait_for_selector("#pairing[data-paired='yes']", timeout=5000)
