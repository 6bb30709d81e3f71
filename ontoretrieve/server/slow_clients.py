"""Slow and half-open clients never hold the HTTP server: a deadline per request.

uvicorn times out an idle keep-alive connection, but not one that opened and
sends nothing, nor one that sends its request a byte at a time (each byte
resets the idle timer). ``ReadDeadlineProtocol`` (uvicorn's h11 protocol)
gives each request a deadline, from the connection's first moment or the
previous response, to arrive whole, head and body; past it the connection is
closed (a request already being answered is told its client left). A client
that sends its request in time is never affected.

>>> protocol_class(5.0).read_deadline_seconds
5.0
"""

from __future__ import annotations

import asyncio
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["ReadDeadlineProtocol", "protocol_class"]

log = logging.getLogger(__name__)


class ReadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each whole request."""

    read_deadline_seconds: float = 30.0

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm()  # the whole request is in: the app answers at its own pace

    def on_response_complete(self) -> None:
        self._arm()  # the next request on this connection has its own deadline
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.read_deadline_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        log.warning("closed a connection from %s: no whole request within %.0f s",
                    self.client, self.read_deadline_seconds)
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self.transport.close()


def protocol_class(read_deadline_seconds: float) -> type[ReadDeadlineProtocol]:
    """The protocol class for ``uvicorn.run(http=...)`` with this deadline."""
    return type("ReadDeadlineProtocol", (ReadDeadlineProtocol,),
                {"read_deadline_seconds": read_deadline_seconds})
