"""Pairing browsers: the requests that wait for CONFIRM, and the paired browsers the device keeps.

A browser asks to pair and is shown a short code; the device approves **one** request per CONFIRM press:
with several waiting at once nobody is paired ("two browsers asked: ask again one at a time"), so that
a neighbour who keeps asking cannot ride along on a player's press. The waiting request's code is in
every snapshot, so the page of a browser already paired (and the ATTENTION LED, which blinks while a
request waits) lets the players check that the request is theirs before they press.

An approved browser gets a secret (kept in its signed cookie); the device keeps only the secret's hash,
in ``paired_browsers.json`` in the state directory, so that a browser can be listed and forgotten: a
forgotten (or "forget all") browser's saved cookie is refused from then on. The file is written whole
and renamed into place; one that cannot be read pairs nobody (and is said in the log), never everybody.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: What a press says when several browsers wait at once (and what their pages then show).
SEVERAL_ASKED = "two browsers asked: ask again one at a time"
#: How many paired browsers the device keeps (the oldest is forgotten first).
MAX_BROWSERS = 32
#: How many requests may wait at once (each is refused anyway when more than one waits).
MAX_WAITING = 64
LABEL_MAX = 60


@dataclass
class Request:
    """One browser's request to pair."""

    token: str
    code: str
    asked: float
    state: str = "waiting"  # "waiting", "approved", "refused"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def handle(secret: str) -> str:
    """The public name of a paired browser (what the list shows and "forget" takes)."""
    return _digest(secret)[:12]


def make_code() -> str:
    """A short code of three digits 1 to 5 (easy to read off a page, or to count off a blinking LED)."""
    return "".join(str(secrets.randbelow(5) + 1) for _ in range(3))


class Pairings:
    """Waiting requests (in memory) and paired browsers (in ``path``; None: in memory only)."""

    def __init__(self, path: Path | None, *, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, timeout_s: float = 30.0) -> None:
        self.path = path
        self.clock = clock
        self.wall = wall
        self.timeout_s = timeout_s
        self._lock = threading.RLock()
        self._requests: dict[str, Request] = {}
        self._browsers: dict[str, dict[str, Any]] = self._load()

    # --- the file --------------------------------------------------------------------------------
    def _load(self) -> dict[str, dict[str, Any]]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            browsers = {str(b["digest"]): {"label": str(b.get("label", ""))[:LABEL_MAX],
                                           "paired_at": float(b.get("paired_at", 0.0))}
                        for b in data["browsers"]}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.error("paired browsers in %s cannot be read (%s): no browser is paired", self.path, exc)
            return {}
        return browsers

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"format": 1, "browsers": [{"digest": d, **b} for d, b in self._browsers.items()]}
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.path)

    # --- requests --------------------------------------------------------------------------------
    def _prune(self) -> None:
        now = self.clock()
        self._requests = {t: r for t, r in self._requests.items() if now - r.asked < self.timeout_s}

    def ask(self, token: str, replaces: str | None = None) -> str:
        """A browser asks to pair (``token`` is kept in its cookie; ``replaces``: its earlier request, which
        a second ask cancels, so one browser asking twice is not two browsers); returns its code."""
        with self._lock:
            self._prune()
            if replaces is not None and replaces != token:
                self._requests.pop(replaces, None)
            if len(self._requests) >= MAX_WAITING:  # a flood: forget the oldest (they are refused anyway)
                oldest = min(self._requests.values(), key=lambda r: r.asked)
                del self._requests[oldest.token]
            request = Request(token, make_code(), self.clock())
            self._requests[token] = request
            return request.code

    def status(self, token: str) -> str:
        """"waiting", "approved" (then :meth:`claim`), "refused" (several asked), "expired" or "unknown"."""
        with self._lock:
            request = self._requests.get(token)
            if request is None:
                return "unknown"
            if request.state != "waiting":
                if request.state == "refused":
                    del self._requests[token]
                return request.state
            if self.clock() - request.asked >= self.timeout_s:
                del self._requests[token]
                return "expired"
            return "waiting"

    def code(self, token: str) -> str | None:
        with self._lock:
            request = self._requests.get(token)
            return None if request is None else request.code

    def waiting(self) -> list[Request]:
        """The requests that wait for CONFIRM now, oldest first."""
        with self._lock:
            now = self.clock()
            return sorted((r for r in self._requests.values()
                           if r.state == "waiting" and now - r.asked < self.timeout_s), key=lambda r: r.asked)

    def waiting_code(self) -> str | None:
        """The code of the one request that waits (None when none or several wait)."""
        waiting = self.waiting()
        return waiting[0].code if len(waiting) == 1 else None

    def press(self) -> str | None:
        """CONFIRM was pressed: approve the one waiting request ("paired a browser"), refuse them all when
        several wait (:data:`SEVERAL_ASKED`); None when none waits (the press is for the game)."""
        with self._lock:
            waiting = self.waiting()
            if not waiting:
                return None
            if len(waiting) > 1:
                for request in waiting:
                    request.state = "refused"
                return SEVERAL_ASKED
            waiting[0].state = "approved"
            return "paired a browser"

    def claim(self, token: str, label: str = "") -> str | None:
        """The approved request ``token`` becomes a paired browser: its secret (for the cookie), once."""
        with self._lock:
            request = self._requests.get(token)
            if request is None or request.state != "approved":
                return None
            del self._requests[token]
            secret = secrets.token_urlsafe(24)
            self._browsers[_digest(secret)] = {"label": label.strip()[:LABEL_MAX] or "a browser",
                                               "paired_at": round(self.wall(), 3)}
            while len(self._browsers) > MAX_BROWSERS:
                oldest = min(self._browsers, key=lambda d: self._browsers[d]["paired_at"])
                del self._browsers[oldest]
            self._save()
            return secret

    # --- paired browsers ---------------------------------------------------------------------------
    def is_paired(self, secret: str) -> bool:
        with self._lock:
            return bool(secret) and _digest(secret) in self._browsers

    def browsers(self, current: str | None = None) -> list[dict[str, Any]]:
        """Every paired browser, oldest first: its id (for :meth:`forget`), label, when it was paired, and
        whether it is the browser holding ``current``."""
        with self._lock:
            mine = _digest(current) if current else None
            return [{"id": d[:12], "label": b["label"], "paired_at": b["paired_at"], "this": d == mine}
                    for d, b in sorted(self._browsers.items(), key=lambda item: item[1]["paired_at"])]

    def forget(self, browser: str) -> bool:
        """Forget the browser with this id (as listed) or this secret; False when none is paired so."""
        with self._lock:
            digest = _digest(browser)
            found = [d for d in self._browsers if d == digest or (len(browser) == 12 and d[:12] == browser)]
            for d in found:
                del self._browsers[d]
            if found:
                self._save()
            return bool(found)

    def forget_all(self) -> int:
        with self._lock:
            count = len(self._browsers)
            self._browsers.clear()
            self._save()
            return count
