"""Pairing a browser (ask, see a short code, then CONFIRM on the device within the timeout), the paired
browsers (listed, forgotten one by one or all), and the virtual panel that stands in for the buttons when
the panel runs on gpiozero's mock factory."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, jsonify, request, session

from web import services
from web.protocol import BUTTONS
from web.security import csrf_token, is_paired, json_body, protected

bp = Blueprint("pairing", __name__, url_prefix="/api")

#: What a refused request's page says (the device's press refused every request that waited at once).
REFUSED = "two browsers asked: ask again one at a time"


@bp.get("/csrf")
def csrf() -> Any:
    """The CSRF token for this browser (readable only by pages of this origin)."""
    return jsonify(csrf=csrf_token(), paired=is_paired())


@bp.post("/pair")
@protected(pairing=False)
def ask() -> Any:
    token = secrets.token_urlsafe(16)
    earlier = session.get("pair_token")
    session["pair_token"] = token
    code = services().session.ask_pairing(token, earlier if isinstance(earlier, str) else None)
    timeout = services().session.pairing_timeout_s
    shown = f"code {code}: " if code else ""
    return jsonify(status="waiting", timeout_s=timeout, code=code,
                   message=f"{shown}press CONFIRM on the device within {timeout:g} s "
                           "(a paired page shows the code of the browser that asks)")


@bp.get("/pair")
def status() -> Any:
    if is_paired():
        return jsonify(paired=True, status="paired")
    token = session.get("pair_token")
    if not isinstance(token, str):
        return jsonify(paired=False, status="not asked")
    result = services().session.pairing_status(token)
    if result == "approved":
        secret = services().session.claim_pairing(token, request.headers.get("User-Agent", "")[:200])
        session.pop("pair_token", None)
        if secret is None:
            return jsonify(paired=False, status="unknown")
        session["paired"] = True
        session["browser"] = secret
        session.permanent = True
        return jsonify(paired=True, status="paired")
    if result in ("expired", "unknown", "refused"):
        session.pop("pair_token", None)
    if result == "refused":
        return jsonify(paired=False, status="refused", message=REFUSED)
    return jsonify(paired=False, status=result)


def _forget_this_browser() -> None:
    browser = session.pop("browser", None)
    session.pop("paired", None)
    if isinstance(browser, str):
        services().session.forget_browser(browser)


@bp.post("/unpair")
@protected(pairing=False)
def unpair() -> Any:
    """Forget this browser: on the device too, so that a saved copy of its cookie no longer works."""
    _forget_this_browser()
    return jsonify(paired=False, status="not asked")


@bp.get("/browsers")
def browsers() -> Any:
    """The paired browsers (for a paired browser only): id, label, when paired, and which is this one."""
    if not is_paired():
        abort(403, "this browser is not paired: only a paired browser sees the paired ones")
    current = session.get("browser")
    return jsonify(browsers=services().session.paired_browsers(current if isinstance(current, str) else None))


@bp.post("/browsers/forget")
@protected()
def forget() -> Any:
    """Forget one paired browser: ``{"id": "..."}`` as listed, or ``{}`` for this browser."""
    data = json_body()
    browser = data.get("id")
    if browser is None:
        _forget_this_browser()
        return jsonify(ok=True, forgotten=1, paired=False)
    if not isinstance(browser, str) or not 1 <= len(browser) <= 64:
        abort(400, "'id' must be a paired browser's id as listed by GET /api/browsers")
    if not services().session.forget_browser(browser):
        abort(404, f"no paired browser {browser!r}")
    return jsonify(ok=True, forgotten=1, paired=is_paired())


@bp.post("/browsers/forget-all")
@protected()
def forget_all() -> Any:
    """Forget every paired browser, this one included: each must pair again."""
    count = services().session.forget_all_browsers()
    session.pop("paired", None)
    session.pop("browser", None)
    return jsonify(ok=True, forgotten=count, paired=False)


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
