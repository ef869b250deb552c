"""The printable mats, the camera check and the colours taught: ``/mats/GAME.json`` lists a game's sheets,
``/mats/GAME/N.svg`` (or ``.pdf``) is one sheet to print at 100 %, ``/api/calibration`` says what the camera sees
of the mats now and ``/api/calibration.jpg`` is the frame with the markers and zones found drawn on it;
``/api/teach`` says which colours are taught and (POST, paired) teaches the dice colours from the camera."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, jsonify, request

from web import services
from web.security import json_body, protected

bp = Blueprint("mats", __name__)

MIMETYPES = {"svg": "image/svg+xml", "pdf": "application/pdf"}


def _players() -> int:
    text = request.args.get("players", "2")
    if not text.isdigit() or not 1 <= int(text) <= 4:
        abort(400, f"'players' must be 1 to 4, got {text!r}")
    return int(text)


def _game() -> str:
    game = request.args.get("game", "")
    if not game:
        abort(400, "'game' is missing: which game's mats? (pyradice, pyramido, dicetreasure)")
    return game


@bp.get("/mats/<game>.json")
def sheets(game: str) -> Any:
    return jsonify(game=game, sheets=services().session.mat_sheets(game, _players()))


@bp.get("/mats/<game>/<int:number>.<kind>")
def sheet(game: str, number: int, kind: str) -> Response:
    if kind not in MIMETYPES:
        abort(404, f"a mat is served as .svg or .pdf, not .{kind}")
    paper = request.args.get("paper") or None
    data = services().session.mat_sheet(game, number, _players(), paper, kind)
    headers = {"Cache-Control": "no-cache"}
    if kind == "pdf" or request.args.get("download"):
        headers["Content-Disposition"] = f'attachment; filename="{game}-mat-{number}.{kind}"'
    return Response(data, mimetype=MIMETYPES[kind], headers=headers)


@bp.get("/api/calibration")
def calibration() -> Any:
    report, _ = services().session.calibration(_game(), _players())
    return jsonify(report)


@bp.get("/api/calibration.jpg")
def calibration_frame() -> Response:
    _, jpeg = services().session.calibration(_game(), _players())
    if jpeg is None:
        abort(404, "no camera frame yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/teach")
def taught() -> Any:
    return jsonify(services().session.taught_colours(_game()))


@bp.post("/api/teach")
@protected()
def teach() -> Any:
    """``{"game": GAME}``: one die of each of the game's colours lies in the camera's view; teach them."""
    game = json_body().get("game")
    if not isinstance(game, str) or not game:
        abort(400, "'game' must name the game whose dice are in view")
    return jsonify(services().session.teach_colours(game))
