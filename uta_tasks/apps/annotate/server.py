"""The blinded annotation web app: Starlette routes (:mod:`.routes`) behind the checks of
:mod:`.guard`, served by uvicorn (started here, programmatically) on 127.0.0.1 by default.

Blinding: the only item fields any response carries are the context turns and the
candidate user turn (from ``packet_items``); model, task, benchmark, perturbation,
reference turn and judge output never leave the database. The server listens on
127.0.0.1 unless told otherwise.

Access: beyond loopback (or with ``require_invites``, or behind a proxy given by
``public_urls``) every ``/api/*`` request needs an annotator's secret (``Authorization:
Bearer``, see :mod:`.access`) and acts under the name it was issued to; the server refuses
to start there before anyone is invited. On loopback without invites, the server makes a
random token at start (:attr:`AnnotationServer.link` carries it in the fragment, as an
invite does) and every ``/api/*`` request needs it, so no other page or local program can
read or answer; ``open_token=False`` (``--no_token``) turns that off, leaving only the
checks of :mod:`.guard`. The page and its static files hold no item and are served to
anyone whose request passes :mod:`.guard` (Host, Origin, body framing).

HTTP is parsed by h11 (uvicorn's pure-Python protocol, chosen explicitly so that every
install behaves alike), through :mod:`.protocol`: a request h11 cannot parse (a malformed
request line, header or chunk, a ``Content-Length`` that is not one byte count of at most 20
digits, no ``Host``) gets 400 with the security headers and a JSON error, one log line and no
traceback, and its connection is closed; a request that does not arrive whole within
``read_timeout`` seconds is cut off. uvicorn reads no proxy headers (a forwarded address is
never trusted) and logs no access lines; a client that disconnects early is uvicorn's to
handle, without a traceback.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import socket
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import uvicorn
from starlette.datastructures import Headers

from . import access, guard
from .db import AnnotationDB, AnnotationError
from .protocol import DEFAULT_READ_TIMEOUT_S, with_read_timeout
from .routes import Policy, build_app

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
_KEEP_ALIVE_S = 60
_STARTED_POLL_S = 0.01
ResponseHook = guard.ResponseHook


class AnnotationServer:
    """Serve a database in a background thread: ``with AnnotationServer(db) as s: s.link``.

    Args:
        db_path: The annotation database (must hold a packet).
        host: Interface to bind (default 127.0.0.1).
        port: Port (0: any free port).
        on_response: Called with ``(method, path, status, body)`` for every response
            sent (an audit hook; tests use it to check blinding).
        require_invites: Demand a secret even on loopback (it is always demanded beyond it,
            and behind a proxy).
        public_urls: Addresses annotators reach the server at through a reverse proxy
            (e.g. ``https://annot.lab/``): their hosts and origins are accepted, and invites
            are required.
        open_token: On loopback without invites, demand the per-server token of
            :attr:`link` (default); False serves any local request (``--no_token``).
        read_timeout: Seconds a request may take to arrive whole, head and body
            (``--read_timeout``); a client that is slower is disconnected (:mod:`.protocol`).
    """

    def __init__(
        self,
        db_path: str | Path,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        on_response: ResponseHook | None = None,
        require_invites: bool = False,
        public_urls: Sequence[str] = (),
        open_token: bool = True,
        read_timeout: float = DEFAULT_READ_TIMEOUT_S,
    ) -> None:
        self.db_path = Path(db_path)
        self.require_invites = require_invites or not access.is_loopback(host) or bool(public_urls)
        self.token = None if self.require_invites or not open_token else secrets.token_urlsafe(access.SECRET_BYTES)
        with AnnotationDB(self.db_path) as db:
            if db.size() == 0:
                raise AnnotationError(
                    f"{self.db_path} holds no packet: draw one first (uta-annotate serve OUTPUT_DIR ...)"
                )
            if self.require_invites and db.invite_count() == 0:
                where = (f"listens on {host}, beyond this machine" if not access.is_loopback(host)
                         else "is behind a proxy" if public_urls else "needs invites")
                raise AnnotationError(
                    f"the annotation server {where}, and {self.db_path} has no invited annotator: run "
                    f"'uta-annotate invite NAME --db {self.db_path} --url http://HOST:PORT/' for each annotator "
                    "(it prints their personal link), then serve again; or serve on 127.0.0.1"
                )
        served = guard.Served.of(port, public_urls, any_host=not access.is_loopback(host))
        self._socket = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
        self.served = dataclasses.replace(served, port=int(self._socket.getsockname()[1]))
        policy = Policy(self.db_path, self.require_invites, self.token)
        app = guard.Guard(build_app(policy), self.served, self.note_forwarding, on_response)
        self._uvicorn = uvicorn.Server(uvicorn.Config(
            app, interface="asgi3", http=with_read_timeout(read_timeout), loop="asyncio", lifespan="off", log_config=None, log_level="warning",
            access_log=False, proxy_headers=False, server_header=False, timeout_keep_alive=_KEEP_ALIVE_S,
        ))
        self._warned_forwarding = False
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:8765/``."""
        host, port = self._socket.getsockname()[:2]
        return f"http://[{host}]:{port}/" if ":" in str(host) else f"http://{host!s}:{port}/"

    @property
    def link(self) -> str:
        """The URL to open: with the per-server token in its fragment in open mode, else :attr:`url`."""
        return self.url if self.token is None else access.invite_link(self.url, self.token)

    def note_forwarding(self, headers: Headers) -> None:
        """Warn once when a proxy forwards requests to a server that does not demand invites.

        Args:
            headers: the request headers.
        """
        if self.require_invites or self._warned_forwarding:
            return
        if any(headers.get(name) is not None for name in guard.FORWARDING_HEADERS):
            self._warned_forwarding = True
            log.warning(
                "uta-annotate: a request came through a proxy (forwarding headers), but this server does not "
                "demand invites: anyone who reaches the proxy reaches it. Serve with --require_invites and "
                "--public_url https://YOUR.HOST/ behind a proxy"
            )

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (Ctrl-C: uvicorn stops, then KeyboardInterrupt)."""
        try:
            self._uvicorn.run(sockets=[self._socket])
        finally:
            self._socket.close()

    def __enter__(self) -> AnnotationServer:
        self._thread = threading.Thread(target=self._uvicorn.run, kwargs={"sockets": [self._socket]},
                                        name="uta-annotate", daemon=True)
        self._thread.start()
        while not self._uvicorn.started:  # the socket already listens; this waits for uvicorn's loop
            if not self._thread.is_alive():
                self._socket.close()
                raise AnnotationError("the annotation server stopped while starting (see the log above)")
            time.sleep(_STARTED_POLL_S)
        return self

    def __exit__(self, *exc: object) -> None:
        self._uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join()
        self._socket.close()
