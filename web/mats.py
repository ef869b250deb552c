"""The printable mats, the camera check and the colours taught: ``/mats/GAME.json`` lists a game's sheets,
``/mats/GAME/N.svg`` (or ``.pdf``) is one sheet to print at 100 %, ``/api/calibration`` says what the camera sees
of the mats now and ``/api/calibration.jpg`` is the frame with the markers and zones found drawn on it;
``/api/teach`` says which colours are taught and (POST, paired) teaches the dice colours from the camera;
``/api/deck`` is the owners' own Dice Treasure deck: ``POST /api/deck/read`` reads the card on player 1's first
card spot (nothing saved), ``POST /api/deck/cards`` adds the card as the owner checked it, ``POST
/api/deck/bonus`` adds a leprechaun card as typed, ``POST /api/deck/remove`` takes one out (all paired)."""

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
    """``{"game": GAME, "players": N}``: one die of each of the game's colours lies in the camera's view (Pyramido:
    dominoes showing each block colour on player 1's pyramid mat); teach them."""
    body = json_body()
    game, players = body.get("game"), body.get("players")
    if not isinstance(game, str) or not game:
        abort(400, "'game' must name the game whose pieces are in view")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 4):
        abort(400, "'players' must be 1 to 4")
    return jsonify(services().session.teach_colours(game, players))


@bp.get("/api/deck")
def deck() -> Any:
    return jsonify(services().session.deck())


@bp.post("/api/deck/read")
@protected()
def read_card() -> Any:
    """The card lying on player 1's first card spot, as it would be enrolled: check it, fix it, then add it."""
    return jsonify(services().session.read_deck_card())


@bp.post("/api/deck/cards")
@protected()
def add_card() -> Any:
    """``{"card": {"background", "coins", "spaces": [{"at", "colour", "value"}, ...]}}``: add it to the deck."""
    return jsonify(services().session.add_deck_card(json_body().get("card")))


@bp.post("/api/deck/bonus")
@protected()
def add_bonus() -> Any:
    """``{"requires": ["red", "blue", "any"], "reward": 2}``: a leprechaun card, typed (the camera does not read
    them)."""
    body = json_body()
    return jsonify(services().session.add_deck_bonus(body.get("requires"), body.get("reward")))


@bp.post("/api/deck/remove")
@protected()
def remove_card() -> Any:
    """``{"id": CARD}``: take a card enrolled by mistake out of the deck."""
    card = json_body().get("id")
    if not isinstance(card, str) or not card:
        abort(400, "'id' must name a card of the deck")
    return jsonify(services().session.remove_deck_card(card))
