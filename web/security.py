"""Who may change things: pairing (a signed cookie given after CONFIRM on the device) and protection
against cross-site requests.

Anyone on the network may watch. A state-changing request must (1) be a POST with a JSON body, (2)
carry the ``X-CSRF-Token`` header equal to the token in the signed session cookie, which only pages
of this origin can read, and (3) come from a paired browser. The cookie is ``SameSite=Strict`` and
``HttpOnly`` and signed with the device's own key (in the state directory).
"""

from __future__ import annotations

import functools
import hmac
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from flask import abort, request, session

F = TypeVar("F", bound=Callable[..., Any])


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def is_paired() -> bool:
    return session.get("paired") is True


def check_csrf() -> None:
    if request.method != "POST":
        abort(405)
    if not request.is_json:
        abort(415, "send the request body as JSON (Content-Type: application/json)")
    expected = session.get("csrf")
    given = request.headers.get("X-CSRF-Token", "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected, given):
        abort(403, "missing or wrong X-CSRF-Token header; reload the page")


def protected(*, pairing: bool = True) -> Callable[[F], F]:
    """Decorate a state-changing view: CSRF check always, pairing unless ``pairing=False``."""

    def wrap(view: F) -> F:
        @functools.wraps(view)
        def inner(*args: Any, **kwargs: Any) -> Any:
            check_csrf()
            if pairing and not is_paired():
                abort(403, "this browser is not paired: press Pair, then CONFIRM on the device within 30 s")
            return view(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap


def json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(400, "the request body must be a JSON object")
    return data
