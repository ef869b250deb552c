"""Who may change things: pairing (a signed cookie given after CONFIRM on the device, checked against the
device's list of paired browsers), protection against cross-site requests and DNS rebinding, and the
checks every request body passes.

Anyone on the network may watch. Every request must name the device itself in its ``Host`` header (its
hostname, ``hostname.local``, ``localhost``, an IP address, or a name the configuration adds): a page on
another site that rebinds its own name to the device's address sends its own name and is refused (403).
A state-changing request must (1) be a POST with a JSON body, (2) come from this origin when the browser
says where it comes from (``Origin``, ``Sec-Fetch-Site``), (3) carry the ``X-CSRF-Token`` header equal
to the token in the signed session cookie, which only pages of this origin can read, and (4) come from a
paired browser whose pairing the device still holds (a forgotten browser's saved cookie is refused). The
cookie is ``SameSite=Strict`` and ``HttpOnly`` and signed with the device's own key (in the state
directory).
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import secrets
import socket
from collections.abc import Callable, Iterable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import abort, current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])

#: How deeply a request body may nest its lists and objects (a set-up needs 3).
JSON_MAX_DEPTH = 16


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def is_paired() -> bool:
    """This browser is paired: its cookie says so and the device still holds that pairing."""
    if session.get("paired") is not True:
        return False
    browser = session.get("browser")
    if not isinstance(browser, str):
        return False  # a cookie from before paired browsers were kept on the device
    from web import services

    return services().session.is_paired(browser)


# --- Host and Origin --------------------------------------------------------------------------------
def own_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """The names the device answers to (besides any IP address): its hostname, hostname.local, localhost,
    and ``extra`` (from the configuration); lower case, without a port."""
    host = socket.gethostname().lower().rstrip(".")
    short = host.split(".")[0]
    names = {"localhost", host, f"{host}.local", short, f"{short}.local"}
    names.update(n.lower().rstrip(".") for n in extra if n)
    return frozenset(names)


def host_name(host: str) -> str | None:
    """The name or address of a ``Host`` header value without its port; None when it is malformed."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8080
        name, bracket, port = host[1:].partition("]")
        if not bracket or (port and not (port.startswith(":") and port[1:].isdigit())):
            return None
        return name
    name, colon, port = host.partition(":")
    if colon and not port.isdigit():
        return None
    return name.rstrip(".")


def allowed_host(host: str, names: frozenset[str]) -> bool:
    name = host_name(host)
    if not name:
        return False
    if name in names or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name.split("%")[0])  # an IP literal cannot be rebound
    except ValueError:
        return False
    return True


def check_host() -> None:
    """Refuse (403) a request whose Host is not one of the device's names (DNS rebinding)."""
    names: frozenset[str] = current_app.config["OWN_NAMES"]
    host = request.headers.get("Host", "")
    if not allowed_host(host, names):
        shown = host[:60] if host.isprintable() else repr(host[:60])
        abort(403, f"this device does not answer to the name {shown!r}; open it by its own name or address "
                   "(add other names under [web] allowed_hosts)")


def check_origin() -> None:
    """Refuse (403) a state-changing request that the browser says comes from another site."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        abort(403, f"refused a change sent from another site (Sec-Fetch-Site: {site[:20]})")
    origin = request.headers.get("Origin")
    if origin is None:
        return  # not a browser, or an old one; the CSRF token still guards the change
    try:
        netloc = urlsplit(origin).netloc.lower()
    except ValueError:
        netloc = ""
    if not netloc or netloc != request.headers.get("Host", "").strip().lower():
        abort(403, f"refused a change sent from another site (Origin {origin[:60]!r})")


# --- state-changing requests ---------------------------------------------------------------------------
def check_csrf() -> None:
    if request.method != "POST":
        abort(405)
    if not request.is_json:
        abort(415, "send the request body as JSON (Content-Type: application/json)")
    check_origin()
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


def nesting_depth(text: str, limit: int) -> int:
    """How deeply ``text`` nests JSON lists and objects, counted up to ``limit + 1`` (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif ch in "]}":
            depth -= 1
    return deepest


def json_body() -> dict[str, Any]:
    """The request's JSON object; 400 for anything else (malformed, too deeply nested, not an object)."""
    raw = request.get_data(cache=True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        abort(400, "the request body must be JSON in UTF-8")
    # Deep nesting is refused before parsing: the parser would recurse once per level (RecursionError).
    if nesting_depth(text, JSON_MAX_DEPTH) > JSON_MAX_DEPTH:
        abort(400, f"the request body nests lists or objects more than {JSON_MAX_DEPTH} deep")
    try:
        data = json.loads(text) if text.strip() else None
    except (ValueError, RecursionError):
        abort(400, "the request body is not valid JSON")
    if not isinstance(data, dict):
        abort(400, "the request body must be a JSON object")
    return data
