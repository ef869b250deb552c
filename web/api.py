"""JSON endpoints: the state, the SSE event stream, the camera view, the games on offer and the legal actions
now, and every change a player can make (correct a reading, accept the table, take an action, undo, set up a
game) plus finished games as JSON."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request, stream_with_context

from web import services
from web.security import json_body, protected

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/state")
def state() -> Any:
    _, snapshot = services().session.hub.latest()
    if not snapshot:
        services().session.publish()
        _version, snapshot = services().session.hub.latest()
    return jsonify(snapshot)


def _sse(version: int, snapshot: dict[str, Any]) -> str:
    return f"id: {version}\nevent: state\ndata: {json.dumps(snapshot, separators=(',', ':'))}\n\n"


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: the current snapshot at once, then every newer one (slow readers skip)."""
    hub = services().session.hub
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])
    once = bool(current_app.config.get("SSE_ONCE", False))
    streams = services().streams
    # Each stream holds a server thread; keep some threads free for the requests that change things.
    if not streams.acquire(blocking=False):
        abort(429, "too many live pages open on this device; close one and reload")

    def stream() -> Iterator[str]:
        version, snapshot = hub.latest()
        yield "retry: 1000\n\n"
        if snapshot:
            yield _sse(version, snapshot)
        while not hub.closed and not once:
            got = hub.wait(version, keepalive)
            if got is None:
                if hub.closed:
                    break
                yield ": keep-alive\n\n"
                continue
            version, snapshot = got
            yield _sse(version, snapshot)

    released = threading.Event()

    def release() -> None:  # once, however the stream ends (finished, client gone, never started)
        if not released.is_set():
            released.set()
            streams.release()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(stream_with_context(stream()), mimetype="text/event-stream", headers=headers)
    response.call_on_close(release)
    return response


@bp.get("/frame.jpg")
def frame() -> Response:
    """The latest camera frame with what was read drawn on it (drawn by the device: boxes, values)."""
    jpeg = services().session.frame_jpeg()
    if jpeg is None:
        abort(404, "no camera frame yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/catalog")
def catalog() -> Any:
    """Every game on offer: name, title, player counts, rule options, and whether the camera reads it."""
    return jsonify(games=services().session.catalog())


@bp.get("/legal")
def legal() -> Any:
    """The legal actions now (engine text, words, group) and what chance awaits, if anything."""
    return jsonify(services().session.legal())


#: The longest a client may ask the playouts of one hint to take, and the seeds it may name.
HINT_BUDGET_MAX_S = 1.0
HINT_SEED_MAX = 2**31 - 1
_hint_busy = threading.Lock()  # one hint at a time: each takes a core for its budget


@bp.get("/hint")
def hint() -> Any:
    """The decision now's options ranked by expected margin from seeded playouts, on request ("Hint").

    Query: ``seed`` (0..2**31-1, default 0), ``budget`` (seconds, above 0 and at most 1, default 0.3). No hint
    to give (no game, the game over, chance awaited) is ``{"hint": null, "reason": ...}``; a bad query is 400; a
    hint asked while another is being worked out is 429."""
    args = request.args
    unknown = sorted(set(args) - {"seed", "budget"})
    if unknown:
        abort(400, f"unknown query parameter(s) {', '.join(unknown)}; a hint takes seed and budget")
    seed_text, budget_text = args.get("seed", "0"), args.get("budget", "0.3")
    try:
        seed = int(seed_text)
    except ValueError:
        abort(400, f"'seed' must be a whole number 0..{HINT_SEED_MAX}, got {seed_text!r}")
    try:
        budget = float(budget_text)
    except ValueError:
        abort(400, f"'budget' must be a number of seconds, got {budget_text!r}")
    if not 0 <= seed <= HINT_SEED_MAX:
        abort(400, f"'seed' must be a whole number 0..{HINT_SEED_MAX}, got {seed}")
    if not 0 < budget <= HINT_BUDGET_MAX_S:  # also refuses nan and inf
        abort(400, f"'budget' must be above 0 and at most {HINT_BUDGET_MAX_S:g} seconds, got {budget_text!r}")
    if not _hint_busy.acquire(blocking=False):
        abort(429, "a hint is being worked out already; ask again in a moment")
    try:
        return jsonify(services().session.hint(seed=seed, budget_s=budget))
    finally:
        _hint_busy.release()


#: The longest text a correction's value may be (a reading is named in a few characters).
MAX_VALUE_TEXT = 16


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        abort(400, f"{key!r} must be an integer, got {value!r}")
    return value


def _ok() -> Any:
    _, snapshot = services().session.hub.latest()
    return jsonify(ok=True, version=snapshot.get("version"))


@bp.post("/correct")
@protected()
def correct() -> Any:
    """A misread piece: ``{"index": I (0-based, as shown), "value": V}``: for Paša a die and its face (a number),
    for Pyramido a quarter cell and what it shows (a short text such as ``"r*"``); the game's adapter says what
    is wrong with a value it cannot take."""
    data = json_body()
    value = data.get("value")
    if isinstance(value, str):
        if not 0 < len(value) <= MAX_VALUE_TEXT:
            abort(400, f"'value' must be a text of 1 to {MAX_VALUE_TEXT} characters, got {value!r}")
    else:
        value = _int(data, "value")
    services().session.correct(_int(data, "index"), value, "page")
    return _ok()


@bp.post("/confirm")
@protected()
def confirm() -> Any:
    """Accept what lies on the table as read (a doubtful reading included)."""
    if not services().session.confirm_table():
        abort(409, "nothing on the table waits for confirmation")
    return _ok()


@bp.post("/action")
@protected()
def action() -> Any:
    """An action as the game's text: ``{"text": "choose pasa"}``, ``"stop"``, ``"enter ones 3"``...; with
    ``"at"``, the number of actions the page showed, it is refused (409) if the game has moved on since."""
    data = json_body()
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        abort(400, "'text' must be the action's text, e.g. \"choose ones\" or \"stop\"")
    services().session.apply_text(text, "page", _at(data))
    return _ok()


@bp.post("/undo")
@protected()
def undo() -> Any:
    """Take back the last action (``"at"`` as for an action)."""
    services().session.undo("page", _at(json_body()))
    return _ok()


def _at(data: dict[str, Any]) -> int | None:
    at = data.get("at")
    if at is not None and (isinstance(at, bool) or not isinstance(at, int) or at < 0):
        abort(400, "'at' must be the number of actions the page showed (a whole number)")
    return at


@bp.post("/game")
@protected()
def new_game() -> Any:
    """Set up a game: ``{"game", "players": [...], "options": {...}, "mode": "camera"|"offline", "seed"?}``.

    The session checks every field before anything is written; a refusal names the field."""
    data = json_body()
    unknown = sorted(set(data) - {"game", "players", "options", "mode", "seed"})
    if unknown:
        abort(400, f"unknown field(s) {', '.join(unknown)}; a set-up has game, players, options, mode, seed")
    services().session.new_game(data.get("players"), data.get("options"), game=data.get("game"),
                                mode=data.get("mode", "camera"), seed=data.get("seed"))
    return _ok()


@bp.get("/games")
def games() -> Any:
    return jsonify(games=services().session.games())


@bp.get("/games/<int:game_id>")
def export(game_id: int) -> Any:
    response = jsonify(services().session.export(game_id))
    response.headers["Content-Disposition"] = f'attachment; filename="game-{game_id}.json"'
    return response
