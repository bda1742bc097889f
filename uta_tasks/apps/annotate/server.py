"""The blinded annotation web app: a small stdlib HTTP server over the annotation database.

Routes (all responses are built here; nothing else is served):

- ``GET /`` the page; ``GET /static/app.js`` and ``/static/app.css`` its script and
  style (from ``uta_tasks/templates/annotate``; no CDN; the security headers of
  :data:`.guard.SECURITY_HEADERS`, no framing, on every response, errors included).
- ``GET /api/session?annotator=NAME`` -> ``{annotator, total, answered, position}``
  (position: the first item without a complete answer, else the last).
- ``GET /api/item?annotator=NAME&position=I`` -> ``{position, total, context, user_turn,
  answer}``; ``context`` is a list of ``{role, content}``; ``answer`` is
  ``{label, genuine}`` of this annotator or null.
- ``POST /api/answer`` with ``{annotator, position, label?, genuine?}`` saves at once and
  returns ``{saved, answer, answered}``.

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
read or answer; ``open_token=False`` (``--no-token``) turns that off, leaving only the
checks of :mod:`.guard`. The page and its static files hold no item and are served to
anyone whose request passes :mod:`.guard` (Host, Origin, body framing).
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import socket
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from uta_tasks.judge import LABELS
from uta_tasks.templates import TEMPLATES_DIR, render

from . import access, guard
from .db import AnnotationDB, AnnotationError, check_annotator

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
STATIC_DIR = TEMPLATES_DIR / "annotate"
_STATIC = {"/static/app.js": ("app.js", "text/javascript"), "/static/app.css": ("app.css", "text/css")}
_TIMEOUT_S = 60
_LINGER_S = 1.0
_LINGER_BYTES = 1 << 20
ResponseHook = Callable[[str, str, int, bytes], None]


def page() -> bytes:
    """The HTML page (labels and shortcuts from :data:`uta_tasks.judge.LABELS`)."""
    return render("annotate/index.html.j2", labels=list(LABELS)).encode("utf-8")


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
            :attr:`link` (default); False serves any local request (``--no-token``).
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
        self._httpd = ThreadingHTTPServer((host, port), _handler(self.db_path, on_response, self))
        self._httpd.daemon_threads = True
        self.served = guard.Served.of(int(self._httpd.server_address[1]), public_urls,
                                      any_host=not access.is_loopback(host))
        self._warned_forwarding = False
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:8765/``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    @property
    def link(self) -> str:
        """The URL to open: with the per-server token in its fragment in open mode, else :attr:`url`."""
        return self.url if self.token is None else access.invite_link(self.url, self.token)

    def token_matches(self, authorization: str | None) -> bool:
        """Whether a request carries this server's open-mode token.

        Args:
            authorization: the ``Authorization`` header.
        """
        scheme, _, sent = (authorization or "").strip().partition(" ")
        return (self.token is not None and scheme == access.AUTH_SCHEME
                and hmac.compare_digest(sent.strip().encode("utf-8", "replace"), self.token.encode()))

    def note_forwarding(self, headers: Any) -> None:
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
                "demand invites: anyone who reaches the proxy reaches it. Serve with --require-invites and "
                "--public-url https://YOUR.HOST/ behind a proxy"
            )

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted."""
        try:
            self._httpd.serve_forever()
        finally:
            self._httpd.server_close()

    def __enter__(self) -> AnnotationServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)


def _shown_json(db: AnnotationDB, annotator: str, position: int) -> dict[str, Any]:
    shown = db.shown(annotator, position)
    answer = None if shown.label is None and shown.genuine is None else {"label": shown.label, "genuine": shown.genuine}
    return {
        "position": shown.position,
        "total": shown.total,
        "context": [{"role": role, "content": content} for role, content in shown.context],
        "user_turn": shown.user_turn,
        "answer": answer,
    }


class AccessDenied(Exception):
    """A request without a valid secret, or for another annotator's name; carries the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class NameNeeded(AnnotationError):
    """An open-mode request that names no annotator (the page then asks for a name)."""


def _annotator(db: AnnotationDB, server: AnnotationServer, authorization: str | None, claimed: str) -> str:
    """The name a request acts under: the secret's when it has one, else the name it gives."""
    if server.token_matches(authorization):
        if not claimed.strip():
            raise NameNeeded("give your name")
        return claimed
    found = access.check(db, authorization, server.require_invites or server.token is not None)
    if found.decision != "bound" and server.token is not None:
        raise AccessDenied(401, "open the link 'uta-annotate serve' printed: it carries this server's key")
    if found.decision == "missing":
        raise AccessDenied(401, "this annotation server needs your personal link (uta-annotate invite): open it again")
    if found.decision == "invalid":
        raise AccessDenied(401, "this link is not (or no longer) valid: ask for a new one (uta-annotate invite)")
    if found.annotator is None:
        return claimed
    if claimed.strip() and check_annotator(claimed) != found.annotator:
        raise AccessDenied(403, f"this link belongs to {found.annotator}, not to {claimed.strip()}")
    return found.annotator


def _handler(db_path: Path, on_response: ResponseHook | None,
             server: AnnotationServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "uta-annotate"
        sys_version = ""
        timeout = _TIMEOUT_S

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            log.debug("%s %s", self.address_string(), format % args)

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in guard.SECURITY_HEADERS.items():
                self.send_header(name, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            if on_response is not None:
                on_response(str(self.command), str(getattr(self, "path", "")), status, body)

        def _json(self, status: int, payload: Any) -> None:
            # ASCII JSON: a lone surrogate in a model's text travels as a \ud800 escape.
            body = json.dumps(payload, ensure_ascii=True).encode("ascii")
            self._send(status, body, "application/json; charset=utf-8")

        def _error(self, status: int, message: str, **extra: Any) -> None:
            self._json(status, {"error": message, **extra})

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
            # http.server's own errors (malformed request line, 501 for unknown methods):
            # same headers as every response, and the connection is closed (a body may follow).
            self.close_connection = True
            self._error(code, message or self.responses.get(code, ("error",))[0])
            self._linger()

        def _linger(self) -> None:
            """Before closing on a body not read: stop sending, then discard what the client still
            sends (up to a bound, briefly), so the reply is not lost to a connection reset."""
            try:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_WR)
                self.connection.settimeout(_LINGER_S)
                left = _LINGER_BYTES
                while left > 0:
                    chunk = self.rfile.read1(min(left, 65536))  # type: ignore[attr-defined]
                    if not chunk:
                        break
                    left -= len(chunk)
            except OSError:
                pass

        def _body(self) -> bytes:
            """Read the request's whole body (or refuse and close): nothing is left on the connection."""
            length = guard.body_length(self.headers)
            return self.rfile.read(length) if length else b""

        def _guarded(self, route: Callable[[bytes], None]) -> None:
            try:
                body = self._body()
                path = urlparse(self.path).path
                guard.check_request(server.served, self.headers, api=path.startswith("/api/"))
                server.note_forwarding(self.headers)
                route(body)
            except guard.Refused as exc:
                if exc.close:
                    self.close_connection = True
                self._error(exc.status, str(exc))
                if exc.close:
                    self._linger()
            except AccessDenied as exc:
                self._error(exc.status, str(exc))
            except NameNeeded as exc:
                self._error(400, str(exc), need_name=True)
            except AnnotationError as exc:
                self._error(400, str(exc))
            except Exception:  # noqa: BLE001 - a request never kills its connection with a traceback
                log.exception("uta-annotate: %s %s failed", self.command, self.path)
                self.close_connection = True
                self._error(500, "internal error (see the server's log)")

        def do_GET(self) -> None:
            self._guarded(self._get)

        def do_HEAD(self) -> None:
            self._guarded(self._get)

        def do_POST(self) -> None:
            self._guarded(self._post)

        def _get(self, _body: bytes) -> None:
            url = urlparse(self.path)
            query = {key: values[-1] for key, values in parse_qs(url.query).items()}
            if url.path == "/":
                return self._send(200, page(), "text/html; charset=utf-8")
            if url.path in _STATIC:
                name, kind = _STATIC[url.path]
                return self._send(200, (STATIC_DIR / name).read_bytes(), f"{kind}; charset=utf-8")
            if url.path not in ("/api/session", "/api/item"):
                return self._error(404, f"no such page: {url.path}")
            with AnnotationDB(db_path) as db:
                name = _annotator(db, server, self.headers.get("Authorization"), query.get("annotator", ""))
                if url.path == "/api/session":
                    answered, first = db.progress(name)
                    total = db.size()
                    position = first if first is not None else total - 1
                    return self._json(200, {"annotator": name.strip(), "total": total, "answered": answered,
                                            "position": position})
                return self._json(200, _shown_json(db, name, _query_int(query.get("position", ""))))

        def _post(self, body: bytes) -> None:
            url = urlparse(self.path)
            if url.path != "/api/answer":
                return self._error(404, f"no such endpoint: {url.path}")
            guard.check_json_type(self.headers)
            data = guard.parse_object(body)
            changes: dict[str, Any] = {key: data[key] for key in ("label", "genuine") if key in data}
            claimed = data.get("annotator", "")
            if not isinstance(claimed, str):
                raise AnnotationError(f"annotator must be a name, got {claimed!r}")
            with AnnotationDB(db_path) as db:
                name = _annotator(db, server, self.headers.get("Authorization"), claimed)
                label, genuine = db.answer(name, _json_int(data.get("position")), changes)
                answered, _ = db.progress(name)
            self._json(200, {"saved": True, "answer": {"label": label, "genuine": genuine}, "answered": answered})

    return Handler


def _json_int(value: Any) -> int:
    """A position from a JSON body: an integer, nothing else (not 1.0, "1" or true)."""
    if type(value) is not int:
        raise AnnotationError(f"position must be an integer, got {value!r}")
    return value


def _query_int(value: str) -> int:
    """A position from a query string: decimal digits only."""
    if not (value.isascii() and value.isdigit()):
        raise AnnotationError(f"position must be an integer, got {value!r}")
    return int(value)
