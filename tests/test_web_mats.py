"""The printable mats and the camera check on the page (web/mats.py through the session): sheets listed, a sheet
served as SVG true to scale (and PDF where Cairo is installed), what the camera sees of the mats, bad queries 4xx."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from device.eventlog import EventLog
from device.hub import Hub
from device.session import GameSession
from vision.lab.mat_render import ViewStyle, render_mats, table_layout
from vision.mats import mats
from web import create_app


@pytest.fixture
def session(tmp_path: Path) -> Iterator[GameSession]:
    s = GameSession(EventLog(tmp_path / "events.sqlite3"), Hub())
    s.new_game(["Anna", "Ben"], game="pyradice", mode="offline", seed=1)
    yield s
    s.log.close()


@pytest.fixture
def client(session: GameSession) -> FlaskClient:
    return create_app({"TESTING": True}, session=session).test_client()


def post(client: FlaskClient, url: str, body: object) -> Any:
    """A change as the page posts it (JSON with the CSRF token)."""
    import json

    return client.post(url, data=json.dumps(body), content_type="application/json",
                       headers={"X-CSRF-Token": client.get("/api/csrf").get_json()["csrf"]})


def pair(client: FlaskClient, session: GameSession) -> None:
    """Pair the test browser: asked, CONFIRM pressed on the device, completed at the browser's next look."""
    post(client, "/api/pair", {})
    session.press("confirm")
    assert client.get("/api/pair").get_json()["paired"]


def test_sheets_are_listed_and_served_true_to_scale(client: FlaskClient) -> None:
    listed = client.get("/mats/pyradice.json?players=3").get_json()
    assert [s["sheet"] for s in listed["sheets"]] == [1, 2, 3, 4]  # three boards and the quarry
    first = listed["sheets"][0]
    svg = client.get("/mats/pyradice/1.svg?players=3")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    text = svg.get_data(as_text=True)
    width, height = first["page_mm"]
    assert f'width="{width:g}mm"' in text and f'height="{height:g}mm"' in text and "viewBox" in text
    download = client.get("/mats/pyradice/1.svg?download=1")
    assert "attachment" in download.headers["Content-Disposition"]


@pytest.mark.skipif(importlib.util.find_spec("cairosvg") is None, reason="CairoSVG is not installed")
def test_a_sheet_as_pdf(client: FlaskClient) -> None:
    pdf = client.get("/mats/dicetreasure/1.pdf?paper=a3")
    if pdf.status_code == 400:  # CairoSVG without the Cairo library: said in one line
        assert "Cairo" in pdf.get_json()["error"]
        return
    assert pdf.status_code == 200 and pdf.data[:5] == b"%PDF-" and "attachment" in pdf.headers["Content-Disposition"]


@pytest.mark.parametrize("url", [
    "/mats/chess.json", "/mats/pyradice.json?players=9", "/mats/pyradice.json?players=x",
    "/mats/pyradice/9.svg", "/mats/pyradice/1.svg?paper=napkin", "/mats/pyradice/1.png",
    "/api/calibration", "/api/calibration?game=chess", "/api/calibration?game=pyradice&players=0",
])
def test_bad_queries_are_4xx_json(client: FlaskClient, url: str) -> None:
    response = client.get(url)
    assert 400 <= response.status_code < 500 and response.is_json and response.get_json()["error"]


def test_the_camera_check_says_what_it_sees(client: FlaskClient, session: GameSession) -> None:
    empty = client.get("/api/calibration?game=pyradice").get_json()
    assert not empty["ready"] and "no camera frame yet" in empty["advice"][0]
    assert client.get("/api/calibration.jpg?game=pyradice").status_code == 404
    sheets = mats("pyradice", 2)
    rng = np.random.default_rng(3)
    scene = render_mats(rng, table_layout(sheets[:2], rng), (960, 720), ViewStyle(tilt=15.0, fill=0.9), [])
    session.hub.put_frame(scene.image, ())
    report = client.get("/api/calibration?game=pyradice&players=2").get_json()
    by_sheet = {s["sheet"]: s for s in report["sheets"]}
    assert [by_sheet[m.key]["located"] for m in sheets] == [True, True, False]  # the quarry mat is not in view
    assert not report["ready"] and any("0 of" in a for a in report["advice"])
    assert all(by_sheet[m.key]["error_mm"] < 1.0 for m in sheets[:2])
    image = client.get("/api/calibration.jpg?game=pyradice&players=2")
    assert image.status_code == 200 and image.data[:2] == b"\xff\xd8"


def test_colours_are_taught_from_the_camera(client: FlaskClient, session: GameSession) -> None:

    from device.session import reading
    from vision.lab.render import DieSpec, SceneStyle, draw_die, render_surface

    before = client.get("/api/teach?game=pyradice").get_json()
    assert before["pieces"]["die"]["taught"] == [] and not before["complete"]

    def teach(body: object) -> Any:
        return post(client, "/api/teach", body)

    assert teach({"game": "pyradice"}).status_code == 403  # a change: pairing first
    pair(client, session)
    missing = teach({"game": "pyradice"})
    assert missing.status_code == 400 and "no camera frame yet" in missing.get_json()["error"]
    style = SceneStyle(surface=(70, 110, 60), grain=1.0, light_gradient=0.0, shadow=0.2, camera_height=8.0,
                       blur=0.3, noise=0.5, jpeg_quality=95, tray=False)
    rng = np.random.default_rng(5)
    image = render_surface(rng, 640, 480, style)
    bodies = {"white": (235, 235, 232), "gray": (130, 130, 128), "maroon": (40, 30, 120), "orange": (30, 130, 240)}
    for i, (name, bgr) in enumerate(bodies.items()):
        draw_die(image, DieSpec(value=3, centre=(110 + 140 * i, 240), side=70, angle=10.0, body=bgr,
                                colour_name=name), style, rng)
    session.hub.put_frame(image, (reading(3, 110, 240),))
    taught = teach({"game": "pyradice"})
    assert taught.status_code == 200, taught.get_json()
    report = taught.get_json()
    assert sorted(d["colour"] for d in report["measured"]) == sorted(bodies)
    assert report["complete"] and client.get("/api/teach?game=pyradice").get_json()["complete"]
    assert teach({"game": "pyramido"}).status_code == 400  # no Pyramido mat in view: said, nothing taught


def test_the_owners_deck_is_enrolled_card_by_card_from_the_camera(client: FlaskClient, session: GameSession,
                                                                   tmp_path: Path) -> None:
    import json

    from engine.dicetreasure import load_deck, sample_deck
    from vision.dicetreasure_read import canonical_entry
    from vision.lab.dicetreasure_render import render_enrolment

    empty = client.get("/api/deck").get_json()
    assert empty["motif_cards"] == 0 and not empty["saved"] and empty["partial"]

    def change(url: str, body: object) -> Any:
        return post(client, url, body)

    assert change("/api/deck/read", {}).status_code == 403  # a change: pairing first
    pair(client, session)
    missing = change("/api/deck/read", {})
    assert missing.status_code == 400 and "no camera frame yet" in missing.get_json()["error"]
    card = sample_deck().card("red-5")  # four spaces, two of them with values
    session.hub.put_frame(render_enrolment(card, 6102, (960, 720)).image, ())  # seed 6102: never used before
    read = change("/api/deck/read", {}).get_json()
    assert read["sure"] and read["entry"] == {**canonical_entry(card), "id": "red-1"}
    assert not (tmp_path / "deck.json").exists()  # reading saves nothing
    # The owner "fixes" it to 3 coins: a four-space card is worth 2, so the validator refuses it, naming why.
    refused = change("/api/deck/cards", {"card": {**read["entry"], "coins": 3}})
    assert refused.status_code == 400 and "not added" in refused.get_json()["error"]
    assert change("/api/deck/cards", {"card": "red-5"}).status_code == 400
    added = change("/api/deck/cards", {"card": {**read["entry"], "id": "whatever"}}).get_json()
    assert added["added"] == "red-1" and added["motif_cards"] == 1 and added["partial"]
    assert any("partial: 1 of 63" in w for w in added["warnings"])
    deck = load_deck(tmp_path / "deck.json")  # the file the validator accepts, the id the device chose
    assert [c.id for c in deck.motif_cards] == ["red-1"] and deck.partial
    # Leprechaun cards are typed: their ids never collide with a motif card's; a card the rules cannot have is
    # refused with the validator's words.
    bonus = change("/api/deck/bonus", {"requires": ["red", "blue", "any"], "reward": 2}).get_json()
    assert bonus["added"] == "leprechaun-1" and bonus["bonus"][0]["words"] == "leprechaun-1: red, blue, any -> 2 gold"
    assert change("/api/deck/bonus", {"requires": ["pink"], "reward": 2}).status_code == 400
    assert change("/api/deck/bonus", {"requires": "red", "reward": 2}).status_code == 400
    assert change("/api/deck/bonus", {"requires": ["red", "blue", "any"], "reward": "2"}).status_code == 400
    assert [b.id for b in load_deck(tmp_path / "deck.json").bonus_cards] == ["leprechaun-1"]
    assert change("/api/deck/remove", {"id": "leprechaun-1"}).get_json()["bonus_cards"] == 0
    assert change("/api/deck/remove", {"id": "red-9"}).status_code == 400
    removed = change("/api/deck/remove", {"id": "red-1"}).get_json()
    assert removed["motif_cards"] == 0 and json.loads((tmp_path / "deck.json").read_text())["motif_cards"] == []


def test_a_game_is_played_with_the_enrolled_deck_and_its_record_keeps_that_deck(
        client: FlaskClient, session: GameSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from device.deck import write_file
    from device.tables import live_table
    from engine.dicetreasure import sample_deck
    from vision.dicetreasure_read import canonical_entry

    def new_game(options: dict[str, str]) -> Any:
        return post(client, "/api/game", {"game": "dicetreasure", "players": ["Anna", "Ben"], "mode": "offline",
                                          "options": options})

    pair(client, session)
    nothing = new_game({"deck": "own", "leprechauns": "off"})
    assert nothing.status_code == 400 and "no motif card is enrolled" in nothing.get_json()["error"]
    stand_in = sample_deck()
    mine = [canonical_entry(stand_in.card(f"blue-{n}")) for n in range(1, 6)]
    write_file(tmp_path / "deck.json", {"format": "dicetreasure-deck/1", "name": "our box", "stand_in": False,
                                        "partial": True, "dice_colours": list(stand_in.dice_colours),
                                        "motif_cards": mine, "bonus_cards": []})
    started = new_game({"deck": "own", "leprechauns": "off"})
    assert started.status_code == 200, started.get_json()
    assert [c.id for c in session.state.draw_pile] == [f"blue-{n}" for n in range(1, 6)]
    shown = client.get("/api/state").get_json()["game"]
    assert shown["options"]["deck"] == "own"  # the page's set-up form shows the choice, not the deck's JSON
    assert shown["pieces"] == "own deck: our box, 5 motif cards (partial)"
    # Enrolling more later never changes the game's own deck: its record keeps the cards it was played with.
    write_file(tmp_path / "deck.json", {**json.loads((tmp_path / "deck.json").read_text()), "motif_cards": mine[:2]})
    assert session.resume() and len(session.state.draw_pile) == 5
    # The camera's reader at this table identifies cards against that deck.
    import vision.dicetreasure_read as dtr
    from device.tables import adapter_for

    decks: list[Any] = []
    real = dtr.DiceTreasureReader
    monkeypatch.setattr(dtr, "DiceTreasureReader", lambda deck, **kw: decks.append(deck) or real(deck, **kw))
    adapter_for(session.game).frame_reader(live_table(tmp_path, "dicetreasure", 2, session.record.options))
    assert [c.id for c in decks[0].motif_cards] == [f"blue-{n}" for n in range(1, 6)]
    assert new_game({"deck": "{not json"}).status_code == 400  # a forged record option is refused, named


def test_pyramido_block_colours_are_taught_from_player_1s_pyramid(client: FlaskClient, session: GameSession,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Dominoes showing each of the five colours on player 1's pyramid mat, under a warmer light than the nominal
    colours (white balance 1.3): each colour is taught as the reader measures it where the truth names the cells
    (the recorder's own teaching), the order on the mat and the old names not needed; too few colours teach
    nothing and say what to lay out."""
    import random

    from engine.game import find_game
    from vision.conditions import parse_condition
    from vision.lab import pyramido_render as pr
    from vision.pyramido_read import Palette, PyramidReader, measure_cells
    from vision.registration import locate

    game = find_game("pyramido")
    rng = random.Random(6201)  # seed 6201: never used before
    state = game.initial_state(["Anna", "Ben"], seed=6201)
    first_domino = None
    while len({v[0] for v in state.explorers[0].pyramid.top_view.values()}) < 5:
        if game.status(state).awaiting == "chance":
            state = game.apply(state, game.random_chance(state, rng))
        else:
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        if first_domino is None and state.explorers[0].pyramid.top_view:
            first_domino = state
    table = pr.make_table(6201, 2, state)
    warm = parse_condition("white:1.3")

    def teach() -> Any:
        return post(client, "/api/teach", {"game": "pyramido", "players": 2})

    pair(client, session)
    assert client.get("/api/teach?game=pyramido").get_json()["pieces"]["block"]["taught"] == []
    few = warm.apply(pr.render(table, first_domino, np.random.default_rng(1)).image, "few")
    session.hub.put_frame(few, ())
    refused = teach()
    assert refused.status_code == 400 and "each of the five colours" in refused.get_json()["error"]
    assert client.get("/api/teach?game=pyramido").get_json()["pieces"]["block"]["taught"] == []  # nothing taught
    frame = pr.render(table, state, np.random.default_rng(2))
    image = warm.apply(frame.image, "all")
    session.hub.put_frame(image, ())
    taught = teach()
    assert taught.status_code == 200, taught.get_json()
    assert taught.get_json()["pieces"]["block"]["missing"] == []
    from device.teaching import TeachingStore

    got = TeachingStore(session.log.path.parent).taught("pyramido", "block")
    view = locate(image, "pyramido", 2).zone("pyramid-1")
    assert view is not None
    aligned = PyramidReader(Palette.nominal()).read(image, view, state.explorers[0].pyramid.top_view, seat=0)
    truth = measure_cells(aligned, frame.views[0], image, view)
    assert sorted(c.value for c in truth) == sorted(got)
    for colour, lab in truth.items():  # 0.0-1.0 apart here; the five colours lie 29-40 apart
        assert np.linalg.norm(np.array(got[colour.value]) - np.array(lab)) < 3.0, colour
    # A camera game at this table reads with them.
    from device.tables import adapter_for, live_table

    given: list[dict[str, Any]] = []
    nominal = Palette.from_lessons
    monkeypatch.setattr(Palette, "from_lessons", classmethod(lambda cls, t: given.append(dict(t)) or nominal(t)))
    adapter_for(game).frame_reader(live_table(session.log.path.parent, "pyramido", 2))
    assert [{name: tuple(lab) for name, lab in t.items()} for t in given] == [got]
