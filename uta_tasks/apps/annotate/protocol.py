"""The annotation server's HTTP/1.1 connection: uvicorn's h11 protocol with three changes.

- **A malformed request gets one 400 and one log line, never a traceback.** h11 refuses the
  bytes (a bad request line or header, a ``Content-Length`` that is not a byte count, a
  malformed chunk such as ``zz\\r\\n``); uvicorn logs one warning and calls
  :meth:`ReadLimitedProtocol.send_400_response`, which answers with the security headers and
  a JSON error when no answer has begun, and closes the connection. The request's handler,
  which may already be running (its head was whole), is told the client is gone, so it sends
  nothing more (uvicorn's default would try to answer on a finished connection and log h11's
  ``LocalProtocolError`` with a traceback).
- **A request must arrive whole within** ``read_timeout`` **seconds** (``uta-annotate serve
  --read_timeout``, default :data:`DEFAULT_READ_TIMEOUT_S`): from a connection's first
  moment, and from the first byte of each later request on a kept-alive connection, to the
  end of its body. A client that sends part of a head or a body and then stalls is
  disconnected when the time is up, however many of them there are, while other clients are
  served. uvicorn has no such limit of its own: its ``timeout_keep_alive`` applies only
  between requests, and stops at the first byte of the next one.
- Waiting between requests is uvicorn's ``timeout_keep_alive``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from . import guard

log = logging.getLogger(__name__)

DEFAULT_READ_TIMEOUT_S = 20.0
# h11 states in which the client's request is still (partly) to come
_READING = (h11.IDLE, h11.SEND_BODY)


class ReadLimitedProtocol(H11Protocol):
    """uvicorn's h11 protocol with a bounded request read and a quiet 400 (see the module).

    ``read_timeout`` is a class attribute: uvicorn builds one protocol object per
    connection from the class (:func:`with_read_timeout` makes the class of one server).
    """

    read_timeout: float = DEFAULT_READ_TIMEOUT_S
    _read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch_read()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_read()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_read_timer()
        super().connection_lost(exc)

    def _watch_read(self) -> None:
        """Start the clock when a request is to come, stop it when it has come whole."""
        reading = self.conn.their_state in _READING and not self.transport.is_closing()
        if reading and self._read_timer is None:
            self._read_timer = self.loop.call_later(self.read_timeout, self._read_timed_out)
        elif not reading:
            self._stop_read_timer()

    def _stop_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.conn.their_state not in _READING or self.transport.is_closing():
            return
        log.debug("uta-annotate: %s sent no whole request within %.3g s: disconnected", self.client, self.read_timeout)
        self._abandon_request()
        self.transport.close()

    def _abandon_request(self) -> None:
        """The request being handled gets no answer from its handler: the client is gone for it."""
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
            self.cycle.message_event.set()

    def send_400_response(self, msg: str) -> None:
        refused = sys.exc_info()[1]  # called while uvicorn handles h11's RemoteProtocolError
        self._abandon_request()
        self._stop_read_timer()
        if self.conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            self.transport.close()  # an answer has begun or is done: nothing more can be said
            return
        detail = f"a malformed HTTP request ({refused})" if refused is not None else msg
        body = json.dumps({"error": detail}, ensure_ascii=True).encode("ascii")
        headers = [("Content-Type", "application/json; charset=utf-8"), ("Content-Length", str(len(body))),
                   ("Connection", "close"), *guard.SECURITY_HEADERS.items()]
        try:
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event) or b"")
        except h11.LocalProtocolError:  # h11 will not answer in this state: close without one
            pass
        self.transport.close()


def with_read_timeout(seconds: float) -> type[ReadLimitedProtocol]:
    """The protocol class of a server whose requests must arrive whole within ``seconds``.

    Args:
        seconds: the limit (> 0).
    """
    if not seconds > 0:
        raise ValueError(f"read timeout {seconds!r}: give a number of seconds above 0")
    return type("ReadLimitedProtocol", (ReadLimitedProtocol,), {"read_timeout": float(seconds)})
