"""JSON endpoints: the state, the SSE event stream, the camera view, and every change a player can make
(correct a die, accept the table, take an action, undo, set up a game) plus finished games as JSON."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
from flask import Blueprint, Response, abort, current_app, jsonify, stream_with_context

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
    """The latest camera frame with what was read drawn on it (boxes, faces; red: cocked or unsure)."""
    shot = services().session.hub.frame()
    if shot is None:
        abort(404, "no camera frame yet")
    image = shot.image.copy()
    for d in shot.readings:
        x0, y0, x1, y1 = (round(v) for v in d.box)
        colour = (0, 0, 230) if (d.cocked or d.unsure) else (0, 190, 0)
        cv2.rectangle(image, (x0, y0), (x1, y1), colour, 2)
        label = f"{d.value}{'?' if d.unsure else ''}{'/' if d.cocked else ''}"
        cv2.putText(image, label, (x0, max(y0 - 6, 12)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, 2)
    h, w = image.shape[:2]
    if w > 800:
        image = cv2.resize(image, (800, round(h * 800 / w)), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(image), [cv2.IMWRITE_JPEG_QUALITY, 75])
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 image
        abort(404, "frame could not be encoded")
    return Response(buf.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


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
    """A misread die: ``{"index": I (0-based, as shown), "value": V}``."""
    data = json_body()
    services().session.correct(_int(data, "index"), _int(data, "value"))
    return _ok()


@bp.post("/confirm")
@protected()
def confirm() -> Any:
    """Accept the dice on the table as read (a cocked or unsure die included)."""
    if not services().session.confirm_table():
        abort(409, "nothing on the table waits for confirmation")
    return _ok()


@bp.post("/action")
@protected()
def action() -> Any:
    """An action as the game's text: ``{"text": "choose pasa"}``, ``"stop"``, ``"enter ones 3"``..."""
    text = json_body().get("text")
    if not isinstance(text, str) or not text.strip():
        abort(400, "'text' must be the action's text, e.g. \"choose ones\" or \"stop\"")
    services().session.apply_text(text, "page")
    return _ok()


@bp.post("/undo")
@protected()
def undo() -> Any:
    services().session.undo("page")
    return _ok()


@bp.post("/game")
@protected()
def new_game() -> Any:
    """Set up a game: ``{"players": [...], "options": {...}, "mode": "camera"|"offline", "game": "pasa"}``."""
    data = json_body()
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        abort(400, "'players' must be a list of names")
    options = data.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
        abort(400, "'options' must map rule option names to values")
    mode = data.get("mode", "camera")
    game = data.get("game", "pasa")
    if not isinstance(mode, str) or not isinstance(game, str):
        abort(400, "'mode' and 'game' must be strings")
    services().session.new_game(players, options, game=game, mode=mode)
    return _ok()


@bp.get("/games")
def games() -> Any:
    log = services().session.log
    out = []
    for gid in reversed(log.game_ids()):
        record = log.game(gid)
        out.append({"id": gid, "game": record.game, "players": list(record.players), "mode": record.mode,
                    "finished": record.finished is not None, "actions": len(record.actions)})
    return jsonify(games=out)


@bp.get("/games/<int:game_id>")
def export(game_id: int) -> Any:
    if game_id not in services().session.log.game_ids():
        abort(404, f"no game {game_id}")
    response = jsonify(services().session.export(game_id))
    response.headers["Content-Disposition"] = f'attachment; filename="game-{game_id}.json"'
    return response
