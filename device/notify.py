"""systemd notification (``sd_notify``) over ``$NOTIFY_SOCKET``: READY, WATCHDOG and STATUS messages.

A few lines over a datagram socket instead of a dependency. Without ``$NOTIFY_SOCKET`` (not run by
systemd) every call does nothing. The main loop calls :meth:`Notifier.watchdog` on every pass, so a
stuck loop stops feeding the watchdog and systemd restarts the service.
"""

from __future__ import annotations

import os
import socket
import time


class Notifier:
    def __init__(self, address: str | None = None, *, min_interval_s: float = 1.0) -> None:
        address = address if address is not None else os.environ.get("NOTIFY_SOCKET")
        self._address: str | None = None
        self._sock: socket.socket | None = None
        self.min_interval_s = min_interval_s
        self._last_watchdog = 0.0
        if address:
            # An address starting with "@" is in the abstract namespace (a leading NUL byte).
            self._address = "\0" + address[1:] if address.startswith("@") else address
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, message: str) -> bool:
        if self._sock is None or self._address is None:
            return False
        try:
            self._sock.sendto(message.encode(), self._address)
        except OSError:
            return False
        return True

    def ready(self, status: str = "running") -> bool:
        return self.send(f"READY=1\nSTATUS={status}")

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={status}")

    def watchdog(self) -> bool:
        """Feed the watchdog, at most once per ``min_interval_s`` (the main loop may spin fast)."""
        now = time.monotonic()
        if now - self._last_watchdog < self.min_interval_s:
            return False
        self._last_watchdog = now
        return self.send("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.send("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
