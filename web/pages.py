"""The HTML page: one live page (table, sheets, advice, camera view, set-up, pairing, virtual panel).

Everything else is drawn by ``static/app.js`` from the JSON snapshot it gets over SSE; all scripts and
styles are served from here, so the page works with no internet.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from web import services
from web.security import csrf_token, is_paired

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> Any:
    return render_template(
        "index.html", csrf=csrf_token(), paired=is_paired(), panel_mode=services().panel_mode,
    )
