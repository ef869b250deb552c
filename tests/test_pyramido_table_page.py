"""The Pyramido page module (web/static/games/pyramido.js) in headless Chromium (Debian's chromium through
Playwright; never a downloaded browser): the pyramids drawn as SVG, one dashed ghost per legal placement of the
domino in hand, the exploration area, and the stage-end screen with the suggested activation that a long
CONFIRM records; and the camera's reading, where a cell read in doubt is tapped and said."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from device.appliance import Appliance
from device.tables.pyramido import ExplorationSeen, PyramidView, SeenCell, SpaceSeen
from engine.pyramido import legal_placements
from engine.pyramido.dominoes import Colour
from engine.pyramido.game import Phase, Take
from tests.browser import BROWSER_TESTS, DESKTOP, drawn, open_page, pair, wait_until

pytestmark = BROWSER_TESTS


@pytest.fixture
def page(web_appliance: tuple[Appliance, str], browser: Any) -> Iterator[Any]:
    page, errors = open_page(browser, web_appliance[1], DESKTOP)
    yield page
    assert errors == []


def play_until(app: Appliance, done: Callable[[Any], bool], rng: random.Random) -> None:
    session = app.session
    game = session.game
    assert game is not None
    while not done(session.state):
        state = session.state
        action = game.random_chance(state, rng) if state.pending else rng.choice(game.legal_actions(state))
        session.apply(action, "page")


def test_the_pyramids_ghost_placements_and_the_stage_end_screen(web_appliance: tuple[Appliance, str],
                                                                 page: Any) -> None:
    app, _ = web_appliance
    app.session.new_game(["Anna", "Ben"], game="pyramido", mode="offline", seed=12)
    rng = random.Random(12)
    play_until(app, lambda s: len(s.explorers[1].pyramid.placed) >= 3 and s.phase is Phase.PLACE, rng)
    wait_until(lambda: page.get_attribute("body", "data-game") == "pyramido" and drawn(page, app))
    wait_until(lambda: page.locator("#pyramido-pyramids svg").count() == 2)
    state = app.session.state
    seat = state.order[state.turn]
    mover = state.explorers[seat]
    # One ghost per legal placement of the domino in hand, on the mover's pyramid only.
    ghosts = page.locator(f"figure.pyramid[data-seat='{seat}'] rect.ghost")
    assert ghosts.count() == len(legal_placements(mover.pyramid, state.holding)) > 0
    assert page.locator(f"figure.pyramid[data-seat='{1 - seat}'] rect.ghost").count() == 0
    # Every quarter cell of each pyramid is drawn.
    assert page.locator(f"figure.pyramid[data-seat='{seat}'] rect.cell").count() == len(mover.pyramid.top_view)
    assert str(state.holding) in page.inner_text("#pyramido-hand")
    assert page.locator("#pyramido-spaces tr[data-pile]").count() == 5
    face_up = next(s.face_up for s in state.spaces if s.face_up is not None)
    assert str(face_up) in page.inner_text("#pyramido-spaces")

    # The stage end: the suggested activation and what a long CONFIRM records next.
    play_until(app, lambda s: s.phase is Phase.SCORE, rng)
    wait_until(lambda: drawn(page, app) and page.locator("#pyramido-stage-end").count() == 1)
    live = app.session.snapshot()["game"]["live"]
    assert live["scoring"]["next"] in page.inner_text("#pyramido-next")
    before = len(app.session.history)
    app.session.press("confirm", long=True, origin="panel")
    assert len(app.session.history) == before + 1
    assert app.session.game is not None
    assert app.session.game.action_text(app.session.history[-1].action) == live["scoring"]["next"]
    wait_until(lambda: drawn(page, app))


def test_a_cell_read_in_doubt_is_tapped_and_said_on_the_page(web_appliance: tuple[Appliance, str], page: Any) -> None:
    app, _ = web_appliance
    app.session.new_game(["Anna", "Ben"], game="pyramido", mode="camera", seed=3)
    state = app.session.state
    seat = state.order[state.turn]
    # The camera read the mover's empty mat with one quarter cell in doubt (a red block? a shadow?).
    doubt = SeenCell((4, 2), (Colour.RED, False), sure=False, centre=(320.0, 240.0), confidence=0.41)
    sure = SeenCell((5, 2), None, sure=True, centre=(330.0, 240.0))
    view = PyramidView(seat, {(4, 2): (Colour.RED, False)}, None, (doubt, sure))
    app.session.set_camera("ok", "test frames")
    app.hub.put_frame(np.full((480, 640, 3), 128, np.uint8), (view,))
    app.session.on_settled([view], moved=False)
    assert app.session.table.pending
    # The camera frame as the device draws it (the cells read marked on it) is shown.
    page.wait_for_selector("#pyramido-frame:not([hidden])", timeout=5000)
    wait_until(lambda: page.locator("#pyramido-camera rect.seen-cell").count() == 2)
    assert page.is_visible("#pyramido-camera")
    assert page.locator("#pyramido-camera rect.seen-cell.unsure").count() == 1
    pair(page)
    page.click("#pyramido-camera rect.seen-cell.unsure")
    page.click("#pyramido-correct button.cell-choice[value='-']")
    # The players said it is empty: the reading is corrected, nothing is in doubt, no domino was placed.
    wait_until(lambda: page.locator("#pyramido-camera rect.seen-cell.corrected").count() == 1)
    assert page.locator("#pyramido-camera rect.seen-cell.unsure").count() == 0
    seen = app.session.table.seen
    assert isinstance(seen, PyramidView) and seen.corrections == (((4, 2), None),)
    assert app.session.history == []


def test_a_gem_count_in_doubt_is_tapped_and_said_by_colour(web_appliance: tuple[Appliance, str], page: Any) -> None:
    app, _ = web_appliance
    app.session.new_game(["Anna", "Ben"], game="pyramido", mode="camera", seed=3)
    state = app.session.state
    # A face-up domino taken with a gem of its area: the camera sees the back below it and two gems left, but
    # cannot count them surely (a pale gem?), so it asks which gem was taken.
    k = next(i for i, sp in enumerate(state.spaces) if sp.face_up is not None)
    left = list(state.spaces[k].gems)
    taken = next(g for g, n in enumerate(left) if n)
    left[taken] -= 1
    spaces = tuple(
        SpaceSeen(i + 1, (), False, False, tuple(left[:5]), False, left[5]) if i == k else
        SpaceSeen(i + 1, (sp.face_up,) if sp.face_up else (), sp.face_up is not None, True, tuple(sp.gems[:5]), True,
                  sp.gems[5], tuple(sorted((sp.face_up.a.colour.letter, sp.face_up.b.colour.letter)))
                  if sp.face_up else ())
        for i, sp in enumerate(state.spaces))
    app.session.set_camera("ok", "test frames")
    app.hub.put_frame(np.full((480, 640, 3), 128, np.uint8), ())
    app.session.on_settled([ExplorationSeen(spaces)], moved=False)
    assert app.session.table.pending and app.session.history == []
    wait_until(lambda: page.locator("#pyramido-gems-seen li.gem-read.unsure").count() == 1)
    assert f"Gem area {k + 1}" in page.inner_text("#pyramido-gems-seen li.gem-read.unsure")
    pair(page)
    page.click("#pyramido-gems-seen li.gem-read.unsure")
    for gem, n in zip(("orange", "blue", "purple", "green", "red", "mythical"), left, strict=True):
        page.fill(f"#pyramido-gems-correct input[data-gem='{gem}']", str(n))
    page.click("#pyramido-gems-correct button.gems-ok")
    # The players said the two gems left: the take is explained (the gem missing is the one taken), said on the page.
    wait_until(lambda: bool(app.session.history))
    action = app.session.history[0].action
    assert isinstance(action, Take) and action.space == k + 1 and action.gem is not None
    assert action.gem.index == taken
