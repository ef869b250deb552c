"""The hub: the latest published snapshot of the appliance (game, table, camera, panel), for any reader.

The session publishes a new snapshot after every change (always after the event log has the change);
the web page's SSE streams and the LEDs wait on a condition variable for the next version. Readers
never block the writer and always get the newest snapshot, skipping any they were too slow for.
The latest camera frame and what was read on it are kept here too, for the camera view.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class FrameShot:
    """The latest frame the pipeline looked at, with what was read on it (for the camera view)."""

    image: np.ndarray
    readings: tuple[Any, ...]  # the game's readings (dice for Paša)
    at: float


class Hub:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._version = 0
        self._snapshot: dict[str, Any] = {}
        self._published_at = 0.0
        self._closed = False
        self._frame: FrameShot | None = None
        self._frame_lock = threading.Lock()

    def publish(self, snapshot: dict[str, Any]) -> int:
        with self._cond:
            self._version += 1
            self._snapshot = {**snapshot, "version": self._version}
            self._published_at = time.monotonic()
            self._cond.notify_all()
            return self._version

    def latest(self) -> tuple[int, dict[str, Any]]:
        with self._cond:
            return self._version, self._snapshot

    def wait(self, after: int, timeout: float) -> tuple[int, dict[str, Any]] | None:
        """The newest snapshot once its version is past ``after``; ``None`` on timeout or close."""
        with self._cond:
            self._cond.wait_for(lambda: self._version > after or self._closed, timeout)
            if self._version > after:
                return self._version, self._snapshot
            return None

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Wake every waiting reader so that SSE streams end (at shutdown)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def put_frame(self, image: np.ndarray, readings: tuple[Any, ...]) -> None:
        with self._frame_lock:
            self._frame = FrameShot(image, readings, time.monotonic())

    def frame(self) -> FrameShot | None:
        with self._frame_lock:
            return self._frame
