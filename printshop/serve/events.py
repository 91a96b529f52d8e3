"""Server-sent events: every open page gets each change as one `data:` line of JSON."""

from __future__ import annotations

import asyncio
import json

KEEPALIVE_SECONDS = 15.0


class Broadcaster:
    """Hands each published event to every connected listener."""

    def __init__(self) -> None:
        self.queues: set[asyncio.Queue] = set()
        self.closed = asyncio.Event()

    def publish(self, event: dict) -> None:
        """Queue an event for every listener (call from the event loop)."""
        for queue in list(self.queues):
            queue.put_nowait(event)

    def close(self) -> None:
        """End every stream, so the server can stop at once."""
        self.closed.set()
        for queue in list(self.queues):
            queue.put_nowait(None)

    async def stream(self, disconnected=None, hello: dict | None = None):
        """Yield the event stream's text for one listener until it leaves or the server stops.

        ``hello`` is sent first: a page that finds another studio instance there than the one
        that served it (the server restarted) loads itself again."""
        queue: asyncio.Queue = asyncio.Queue()
        self.queues.add(queue)
        try:
            yield "retry: 1000\n\n"
            if hello is not None:
                yield f"event: hello\ndata: {json.dumps(hello)}\n\n"
            while not self.closed.is_set():
                try:
                    event = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
                except asyncio.TimeoutError:
                    if disconnected is not None and await disconnected():
                        return
                    yield ": keep-alive\n\n"
                    continue
                if event is None:
                    return
                yield f"event: {event.get('type', 'message')}\ndata: {json.dumps(event)}\n\n"
        finally:
            self.queues.discard(queue)
