"""``GET /healthz``: camera, engine and storage status in one JSON object ("ok" is false when something is down)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from device.errors import StorageError
from web import services

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Any:
    session = services().session
    try:
        storage = session.log.check()
    except StorageError as exc:
        storage = str(exc)
    snapshot = session.snapshot()
    game = snapshot["game"]
    engine = "ok" if game is not None else "no game"
    camera = snapshot["camera"]
    healthy = storage == "ok" and camera["status"] not in ("lost",)
    body = {
        "ok": healthy,
        "camera": {"status": camera["status"], "detail": camera.get("detail", "")},
        "engine": {"status": engine, "game": game["name"] if game else None,
                   "phase": game["status"]["phase"] if game else None},
        "storage": {"status": storage, "path": str(session.log.path)},
    }
    return jsonify(body)  # 200 always: "ok" says it; a status page must not look like a server fault
