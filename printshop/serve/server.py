"""The studio's HTTP server: uvicorn with clocks on slow clients and a quick, quiet stop.

uvicorn times out an idle keep-alive connection but not a client that sends a request's head
or body slowly (one byte every few seconds keeps a connection, and a worker, forever); the
protocol below closes a connection whose head is not complete within HEAD_SECONDS, or whose
body is not complete within BODY_SECONDS of its head. On stop, open event streams are ended
first, so uvicorn need not wait for them and cancel them (a traceback) after its grace time.
"""

from __future__ import annotations

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_SECONDS = 10.0
BODY_SECONDS = 10.0


class Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with a clock on each request's head and body."""

    head_seconds = HEAD_SECONDS
    body_seconds = BODY_SECONDS

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._clock = None
        self._phase = None
        self._start("head")

    def _start(self, phase: str) -> None:
        self._stop()
        self._phase = phase
        seconds = self.head_seconds if phase == "head" else self.body_seconds
        self._clock = self.loop.call_later(seconds, self._too_slow)

    def _stop(self) -> None:
        if self._clock is not None:
            self._clock.cancel()
        self._clock, self._phase = None, None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def _follow(self) -> None:
        """Move the clock along with the request: head, then body, then none."""
        state = self.conn.their_state
        if state is h11.SEND_BODY and self._phase != "body":
            self._start("body")
        elif state is not h11.IDLE and state is not h11.SEND_BODY:
            self._stop()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            if self.conn.their_state is h11.IDLE:
                self._start("head")
            else:
                self._follow()

    def connection_lost(self, exc) -> None:
        self._stop()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        """Close a connection whose client sends too slowly (its request, if any, ends)."""
        self._clock = None
        if not self.transport.is_closing():
            self.transport.close()


class Server(uvicorn.Server):
    """uvicorn's server that ends the studio's event streams as soon as it begins to stop."""

    def __init__(self, config: uvicorn.Config, on_stop=None):
        super().__init__(config)
        self.on_stop = on_stop

    async def shutdown(self, sockets=None) -> None:
        if self.on_stop is not None:
            self.on_stop()
        await super().shutdown(sockets)


def make_server(app, grace: float = 1.0) -> Server:
    """Return the server for a studio app (made by app.create_app)."""
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=grace,
                            lifespan="on", http=Protocol, timeout_keep_alive=5)
    return Server(config, on_stop=app.state.studio.events.close)
