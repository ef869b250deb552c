"""The page's HTTP server: waitress, set up so that a few idle or slow clients cannot starve it.

waitress stops accepting connections once ``connection_limit`` are open, and closes idle ones only every
``cleanup_interval`` after ``channel_timeout``: 100 idle TCP connections (a neighbour's script) made every
request wait about a minute. Here, when the limit is reached the oldest connections that carry no request
being served (idle keep-alives, clients that never finish sending their headers) are closed to make room,
idle ones are closed after ``idle_timeout_s`` checked every second, and a live (SSE) stream holds its
worker only while it is within the session's stream limit (the page polls when refused one).
"""

from __future__ import annotations

from typing import Any

from waitress.server import TcpWSGIServer

#: Connections closed at once beyond the limit, so that the server is not at the edge on every poll.
SHED_MARGIN = 8


class SheddingServer(TcpWSGIServer):
    """waitress's TCP server, closing the oldest connections without a request in service at its limit."""

    def readable(self) -> bool:
        if self.accepting and len(self._map) >= self.adj.connection_limit:
            self.shed()
        return bool(super().readable())

    def shed(self) -> int:
        """Close the oldest channels that serve no request, enough to accept again; how many."""
        idle = sorted((ch for ch in self.active_channels.values()
                       if not ch.requests and not ch.will_close and not ch.total_outbufs_len),
                      key=lambda ch: ch.last_activity)
        excess = len(self._map) - self.adj.connection_limit + SHED_MARGIN
        closing = idle[:max(0, excess)]
        for channel in closing:
            channel.will_close = True  # closed by the loop on its next pass (handle_write)
        return len(closing)


def make_server(app: Any, *, host: str, port: int, threads: int, connection_limit: int = 64,
                idle_timeout_s: float = 20.0) -> SheddingServer:
    """The page's server on one address (not yet serving: run its loop)."""
    from waitress.adjustments import Adjustments
    from waitress.task import ThreadedTaskDispatcher

    adj = Adjustments(host=host, port=port, threads=threads, ident="companion",
                      connection_limit=connection_limit, channel_timeout=max(1, round(idle_timeout_s)),
                      cleanup_interval=1)
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    return SheddingServer(app, {}, True, None, dispatcher=dispatcher, adj=adj, sockinfo=adj.listen[0])
