"""Shared fixtures. Paths to the shared data sit beside the checkout (``../shared``).

Under CI (``CI`` set, as ``.ci/run`` does) the property tests draw the same examples on every run, so that a
failure there is one anybody can run again; elsewhere they draw new ones each run, to keep finding cases.

The page's tests in headless Chromium share one browser (``browser``) and a device serving the page
(``web_appliance``); what else they share is in ``tests/browser.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

if TYPE_CHECKING:
    from device.appliance import Appliance

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared data not found at {SHARED}")
    return SHARED


#: The Playwright driver and the Chromium it started, while browser tests run one after another.
_chromium: list[Any] = []


def _close_chromium() -> None:
    if _chromium:
        driver, chromium = _chromium
        _chromium.clear()
        try:
            chromium.close()
        finally:
            driver.stop()


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's, tests/browser.py), started once for a run of browser tests in a row: starting
    it costs seconds a test. Each test gets it clean: the contexts (pages, cookies) a test opened are closed
    after it. It is stopped before any other test runs (``pytest_runtest_setup``), because while Playwright's
    sync driver lives it marks its asyncio loop as the thread's running one."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.browser import ARGS, CHROMIUM

    if _chromium and not _chromium[1].is_connected():  # it crashed or was closed: start a new one
        _close_chromium()
    if not _chromium:
        driver = sync_api.sync_playwright().start()
        try:
            _chromium[:] = [driver, driver.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)]
        except BaseException:
            driver.stop()
            raise
    chromium = _chromium[1]
    try:
        yield chromium
    finally:
        for context in chromium.contexts:
            context.close()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("browser") is None:
        _close_chromium()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _close_chromium()


@pytest.fixture
def web_appliance(tmp_path: Path) -> Iterator[tuple[Appliance, str]]:
    """A device for two players (Anna and Ben) with the mock panel and no camera (truth readings), its page
    served on a free loopback port: (the appliance, the page's address)."""
    from device.appliance import Appliance, truth_reader
    from device.config import Config

    config = Config().replace(panel={"mode": "mock"}, game={"players": ["Anna", "Ben"]})
    with Appliance(config, None, truth_reader, state_dir=tmp_path) as app:
        yield app, app.start_web("127.0.0.1", 0)
