"""The local web page: a Flask app factory that renders what the running game session holds.

:func:`create_app` takes a configuration mapping and the running session (anything that implements
:class:`web.protocol.TableSession`; kept in ``app.extensions["companion"]``), as the Flask tutorial's app is
handed its database; one blueprint per concern: :mod:`web.pages` (the HTML page),
:mod:`web.api` (state, SSE events, game changes), :mod:`web.pairing` (pairing and the virtual panel),
:mod:`web.health` (``/healthz``). The page never talks to the camera or GPIO; it asks the session.
Every error is a JSON body with a 4xx status (a bug is a 500 JSON, never a traceback page). Before any
view, the request's ``Host`` must be one of the device's own names (:func:`web.security.check_host`:
its hostname, ``hostname.local``, localhost, an IP address, and ``ALLOWED_HOSTS`` from the configuration).
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from engine.errors import AmbiguousActionError, IllegalActionError
from web.protocol import TableSession

log = logging.getLogger(__name__)


@dataclass
class Services:
    """The long-lived objects the blueprints use."""

    session: TableSession
    panel_mode: str = "none"
    #: Live (SSE) streams still allowed; each holds one of the server's threads.
    streams: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(12))


def services(app: Flask | None = None) -> Services:
    from flask import current_app

    result: Services = (app or current_app).extensions["companion"]
    return result


def create_app(config: Mapping[str, Any] | None = None, *, session: TableSession) -> Flask:
    """The web app for the running ``session``."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="companion",
        PANEL_MODE="none",
        MAX_CONTENT_LENGTH=64 * 1024,
        SSE_KEEPALIVE_S=15.0,
        SSE_MAX_STREAMS=12,
        ALLOWED_HOSTS=(),
        DEBUG=False,
    )
    app.config.update(dict(config or {}))
    from web.security import check_host, own_names

    app.config["OWN_NAMES"] = own_names(app.config["ALLOWED_HOSTS"])
    app.debug = False  # never: the debugger would run code for anyone on the network
    app.extensions["companion"] = Services(
        session=session,
        panel_mode=str(app.config["PANEL_MODE"]),
        streams=threading.BoundedSemaphore(int(app.config["SSE_MAX_STREAMS"])),
    )

    from web import api, health, mats, pages, pairing

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(pairing.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(mats.bp)

    app.before_request(check_host)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        return jsonify(error=exc.description or exc.name, status=exc.code), exc.code or 400

    @app.errorhandler(IllegalActionError)
    @app.errorhandler(AmbiguousActionError)
    def refused(exc: Exception) -> Any:
        return jsonify(error=str(exc), status=409), 409

    @app.errorhandler(ValueError)
    def bad_request(exc: Exception) -> Any:
        status = int(getattr(exc, "http_status", 400))
        return jsonify(error=str(exc), status=status, field=getattr(exc, "field", None)), status

    @app.errorhandler(RecursionError)
    def too_deep(exc: Exception) -> Any:  # a body nested deeper than any parser should follow
        return jsonify(error="the request is nested too deeply", status=400), 400

    @app.errorhandler(OSError)
    def storage(exc: Exception) -> Any:
        log.error("storage: %s", exc)
        return jsonify(error=f"storage failed: {exc}", status=503), 503

    @app.errorhandler(Exception)
    def bug(exc: Exception) -> Any:
        log.exception("internal error")
        return jsonify(error=f"internal error ({type(exc).__name__})", status=500), 500

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
        )
        return response

    return app
