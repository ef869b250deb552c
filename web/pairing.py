"""Pairing a browser (ask, then CONFIRM on the device within the timeout) and the virtual panel that stands
in for the buttons when the panel runs on gpiozero's mock factory."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, jsonify, session

from web import services
from web.protocol import BUTTONS
from web.security import csrf_token, is_paired, json_body, protected

bp = Blueprint("pairing", __name__, url_prefix="/api")


@bp.get("/csrf")
def csrf() -> Any:
    """The CSRF token for this browser (readable only by pages of this origin)."""
    return jsonify(csrf=csrf_token(), paired=is_paired())


@bp.post("/pair")
@protected(pairing=False)
def ask() -> Any:
    token = secrets.token_urlsafe(16)
    session["pair_token"] = token
    services().session.ask_pairing(token)
    timeout = services().session.pairing_timeout_s
    return jsonify(status="waiting", timeout_s=timeout, message=f"press CONFIRM on the device within {timeout:g} s")


@bp.get("/pair")
def status() -> Any:
    if is_paired():
        return jsonify(paired=True, status="paired")
    token = session.get("pair_token")
    if not isinstance(token, str):
        return jsonify(paired=False, status="not asked")
    result = services().session.pairing_status(token)
    if result == "approved":
        session.pop("pair_token", None)
        session["paired"] = True
        session.permanent = True
        return jsonify(paired=True, status="paired")
    if result in ("expired", "unknown"):
        session.pop("pair_token", None)
    return jsonify(paired=False, status=result)


@bp.post("/unpair")
@protected(pairing=False)
def unpair() -> Any:
    session.pop("paired", None)
    return jsonify(paired=False, status="not asked")


@bp.post("/panel/press")
@protected(pairing=False)
def press() -> Any:
    """A press on the virtual panel: ``{"button": "confirm"|"undo"|"next", "long": false}`` (mock panel only).

    It stands for the physical buttons, but a browser that is not paired may only press CONFIRM to approve a
    pairing: anything that would change the game answers 403 (the session says so)."""
    if services().panel_mode != "mock":
        abort(404, "there is no virtual panel: the panel is not the mock one")
    data = json_body()
    button = data.get("button")
    if button not in BUTTONS:
        abort(400, f"'button' must be one of {', '.join(BUTTONS)}, got {button!r}")
    long = data.get("long", False)
    if not isinstance(long, bool):
        abort(400, "'long' must be true or false")
    did = services().session.press(str(button), long=long, origin="virtual panel", paired=is_paired())
    return jsonify(ok=True, did=did)
