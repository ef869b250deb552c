"""The printable mats and the camera check on the page (web/mats.py through the session): sheets listed, a sheet
served as SVG true to scale (and PDF where Cairo is installed), what the camera sees of the mats, bad queries 4xx."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from flask.testing import FlaskClient

from device.eventlog import EventLog
from device.hub import Hub
from device.session import GameSession
from vision.mat_render import ViewStyle, render_mats, table_layout
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
