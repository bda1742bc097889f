"""The blinded annotation web app: a small stdlib HTTP server over the annotation database.

Routes (all responses are built here; nothing else is served):

- ``GET /`` the page; ``GET /static/app.js`` and ``/static/app.css`` its script and
  style (from ``uta_tasks/templates/annotate``; no CDN, ``Content-Security-Policy:
  default-src 'self'``).
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

Access: beyond loopback (or with ``require_invites``) every ``/api/*`` request needs an
annotator's secret (``Authorization: Bearer``, see :mod:`.access`) and acts under the name
it was issued to; the server refuses to start there before anyone is invited. The page
and its static files hold no item and are served to anyone.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from uta_tasks.judge import LABELS
from uta_tasks.templates import TEMPLATES_DIR, render

from . import access
from .db import AnnotationDB, AnnotationError, check_annotator

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
STATIC_DIR = TEMPLATES_DIR / "annotate"
_STATIC = {"/static/app.js": ("app.js", "text/javascript"), "/static/app.css": ("app.css", "text/css")}
_MAX_BODY = 64 * 1024
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
ResponseHook = Callable[[str, str, int, bytes], None]


def page() -> bytes:
    """The HTML page (labels and shortcuts from :data:`uta_tasks.judge.LABELS`)."""
    return render("annotate/index.html.j2", labels=list(LABELS)).encode("utf-8")


class AnnotationServer:
    """Serve a database in a background thread: ``with AnnotationServer(db) as s: s.url``.

    Args:
        db_path: The annotation database (must hold a packet).
        host: Interface to bind (default 127.0.0.1).
        port: Port (0: any free port).
        on_response: Called with ``(method, path, status, body)`` for every response
            sent (an audit hook; tests use it to check blinding).
        require_invites: Demand a secret even on loopback (it is always demanded beyond it).
    """

    def __init__(
        self,
        db_path: str | Path,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        on_response: ResponseHook | None = None,
        require_invites: bool = False,
    ) -> None:
        self.db_path = Path(db_path)
        self.require_invites = require_invites or not access.is_loopback(host)
        with AnnotationDB(self.db_path) as db:
            if db.size() == 0:
                raise AnnotationError(
                    f"{self.db_path} holds no packet: draw one first (uta-annotate serve OUTPUT_DIR ...)"
                )
            if self.require_invites and db.invite_count() == 0:
                where = "needs invites" if access.is_loopback(host) else f"listens on {host}, beyond this machine"
                raise AnnotationError(
                    f"the annotation server {where}, and {self.db_path} has no invited annotator: run "
                    f"'uta-annotate invite NAME --db {self.db_path} --url http://HOST:PORT/' for each annotator "
                    "(it prints their personal link), then serve again; or serve on 127.0.0.1"
                )
        self._httpd = ThreadingHTTPServer((host, port), _handler(self.db_path, on_response, self.require_invites))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:8765/``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

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


def _annotator(db: AnnotationDB, authorization: str | None, required: bool, claimed: str) -> str:
    """The name a request acts under: the secret's when it has one, else the name it gives."""
    found = access.check(db, authorization, required)
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
             required: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "uta-annotate"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            log.debug("%s %s", self.address_string(), format % args)

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in _HEADERS.items():
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            if on_response is not None:
                on_response(self.command, self.path, status, body)

        def _json(self, status: int, payload: Any) -> None:
            body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self._send(status, body, "application/json; charset=utf-8")

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": message})

        def do_GET(self) -> None:
            url = urlparse(self.path)
            query = {key: values[-1] for key, values in parse_qs(url.query).items()}
            try:
                if url.path == "/":
                    return self._send(200, page(), "text/html; charset=utf-8")
                if url.path in _STATIC:
                    name, kind = _STATIC[url.path]
                    return self._send(200, (STATIC_DIR / name).read_bytes(), f"{kind}; charset=utf-8")
                with AnnotationDB(db_path) as db:
                    if url.path.startswith("/api/"):
                        name = _annotator(db, self.headers.get("Authorization"), required, query.get("annotator", ""))
                    if url.path == "/api/session":
                        answered, first = db.progress(name)
                        total = db.size()
                        position = first if first is not None else total - 1
                        return self._json(200, {"annotator": name.strip(), "total": total, "answered": answered,
                                                "position": position})
                    if url.path == "/api/item":
                        position = _int(query.get("position", ""))
                        return self._json(200, _shown_json(db, name, position))
                self._error(404, f"no such page: {url.path}")
            except AccessDenied as exc:
                self._error(exc.status, str(exc))
            except AnnotationError as exc:
                self._error(400, str(exc))

        def do_POST(self) -> None:
            url = urlparse(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            if url.path != "/api/answer":
                return self._error(404, f"no such endpoint: {url.path}")
            if not 0 < length <= _MAX_BODY:
                return self._error(400, "an answer is a small JSON object")
            try:
                data = json.loads(self.rfile.read(length))
                if not isinstance(data, dict):
                    raise AnnotationError("an answer is a JSON object")
                changes = {key: data[key] for key in ("label", "genuine") if key in data}
                with AnnotationDB(db_path) as db:
                    name = _annotator(db, self.headers.get("Authorization"), required, str(data.get("annotator", "")))
                    label, genuine = db.answer(name, _int(data.get("position")), changes)
                    answered, _ = db.progress(name)
                self._json(200, {"saved": True, "answer": {"label": label, "genuine": genuine}, "answered": answered})
            except AccessDenied as exc:
                self._error(exc.status, str(exc))
            except (AnnotationError, ValueError) as exc:
                self._error(400, str(exc))

    return Handler


def _int(value: Any) -> int:
    if isinstance(value, bool):
        raise AnnotationError(f"position must be an integer, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise AnnotationError(f"position must be an integer, got {value!r}") from None
