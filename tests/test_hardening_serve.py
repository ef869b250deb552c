"""Issue 26, a page no neighbour can block: with 100 idle TCP connections and 20 live streams held open (on
the loopback address only), /healthz and a new page load still answer within 2 s; the page polls when the
device refuses it a live stream."""

from __future__ import annotations

import http.client
import socket
import time
from pathlib import Path

import pytest

from device.appliance import Appliance, truth_reader
from device.config import Config

pytest.importorskip("engine.pasa", reason="engine.pasa (the Paša game) is not in this build yet")
REPO = Path(__file__).resolve().parents[1]


def timed_get(port: int, path: str) -> tuple[float, int]:
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return time.monotonic() - start, response.status
    finally:
        conn.close()


def test_idle_connections_and_streams_do_not_starve_the_page(tmp_path: Path) -> None:
    config = Config().replace(panel={"mode": "none"}, web={"threads": 16})
    held: list[socket.socket] = []
    with Appliance(config, None, truth_reader, state_dir=tmp_path) as app:
        address = app.start_web("127.0.0.1", 0)
        port = int(address.split(":")[2].split("/")[0])
        try:
            for _ in range(100):  # idle: connected, never a byte sent
                held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            for _ in range(20):  # live pages that never read
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                held.append(s)
            time.sleep(0.5)
            for path in ("/healthz", "/", "/api/state"):
                took, status = timed_get(port, path)
                assert status == 200 and took < 2.0, (path, took)
        finally:
            for s in held:
                s.close()


def test_the_page_polls_when_refused_a_live_stream() -> None:
    script = (REPO / "web" / "static" / "app.js").read_text()
    assert "EventSource.CLOSED" in script and 'fetch("/api/state"' in script
