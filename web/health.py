"""``GET /healthz``: camera, engine and storage status in one JSON object ("ok" is false when something is down)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from web import services

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Any:
    # 200 always: "ok" says it; a status page must not look like a server fault
    return jsonify(services().session.health())
