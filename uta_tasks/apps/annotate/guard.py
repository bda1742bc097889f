"""What the annotation server checks on every request before it touches the database.

A page from another site can make the annotator's browser send requests to
``127.0.0.1``: plain forms and ``no-cors`` fetches (``text/plain`` bodies, no custom
header), frames, and requests to a name the attacker re-points at 127.0.0.1 (DNS
rebinding). The server refuses them all:

- **Host**: the ``Host`` header must name what the server serves: an IP address (a
  rebinding attack needs a DNS name), ``localhost``, or the host of ``--public_url``. A
  server listening beyond loopback without ``--public_url`` takes any name (it demands an
  invite for every API request, which a rebinding page does not have).
- **Origin**: a request that carries ``Origin`` (browsers send it with every POST and
  every cross-origin fetch) must come from the server's own origin (the ``Host`` it was
  sent to, or ``--public_url``); ``Origin: null`` and other sites are refused, and so is
  ``Sec-Fetch-Site: cross-site`` / ``same-site`` on the API.
- **POST bodies** are ``application/json`` only (a cross-site page cannot send that
  without a CORS preflight, which is never granted), at most :data:`MAX_BODY` bytes, with a
  ``Content-Length`` and no ``Transfer-Encoding``. The HTTP framing itself (request line,
  header syntax, a ``Content-Length`` that is not a byte count) is h11's, under uvicorn: a
  body is always consumed by its declared length, so no body is ever parsed as the next
  request, and a malformed request gets 400 with the connection closed (see :mod:`.server`).
- **Methods** other than GET, HEAD and POST get 501 and a closed connection.
- **Answers** are JSON objects, nested at most :data:`MAX_DEPTH` deep.
- Every response carries :data:`SECURITY_HEADERS` (no framing, no sniffing, no caching).

:class:`Guard` applies all of it as ASGI middleware around the Starlette app of
:mod:`.routes`, so no route can be reached without it.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY = 64 * 1024
MAX_DEPTH = 8
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
}
FORWARDING_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-IP")
_ALLOWED_FETCH_SITES = ("same-origin", "none")
METHODS = ("GET", "HEAD", "POST")
ResponseHook = Callable[[str, str, int, bytes], None]


class Refused(Exception):
    """A request refused before it reached the database; carries the HTTP status.

    Attributes:
        status: the HTTP status to answer.
        close: whether the connection must be closed (its body was not read).
    """

    def __init__(self, status: int, message: str, close: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.close = close


@dataclass(frozen=True)
class Served:
    """What the server serves: the names and origins a request may carry.

    Attributes:
        port: the port the server listens on.
        public: ``(scheme, host[:port])`` of each ``--public_url`` (a reverse proxy's address).
    """

    port: int
    public: tuple[tuple[str, str], ...] = ()
    any_host: bool = False

    @classmethod
    def of(cls, port: int, public_urls: Iterable[str] = (), any_host: bool = False) -> Served:
        """Build from the listening port and the ``--public_url`` values.

        Args:
            port: the listening port.
            public_urls: addresses annotators reach the server at, e.g. ``https://annot.lab/``.
            any_host: accept every ``Host`` (a server beyond loopback without ``--public_url``:
                annotators reach it by a name it cannot know, and every request needs an invite).
        """
        public = []
        for url in public_urls:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.netloc or "@" in parts.netloc:
                raise ValueError(f"--public_url {url!r}: give the address annotators open, e.g. https://annot.lab/")
            public.append((parts.scheme, parts.netloc.lower()))
        return cls(port, tuple(public), any_host and not public)

    def host_allowed(self, host: str | None) -> bool:
        """Whether a ``Host`` header names this server (IP literal, localhost, or a public URL's host).

        Args:
            host: the header's value.
        """
        if not host:
            return False
        if self.any_host:
            return True
        host = host.strip().lower()
        if any(host == netloc for _, netloc in self.public):
            return True
        name, port = _split_host(host)
        if name is None or (port is not None and port != self.port):
            return False
        if name == "localhost":
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def origin_allowed(self, origin: str, host: str) -> bool:
        """Whether an ``Origin`` header is this server's own origin.

        Args:
            origin: the header's value.
            host: the request's (already checked) ``Host``.
        """
        origin = origin.strip().lower()
        if origin == f"http://{host.strip().lower()}":
            return True
        return any(origin == f"{scheme}://{netloc}" for scheme, netloc in self.public)


def _split_host(host: str) -> tuple[str | None, int | None]:
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        if rest and not rest.startswith(":"):
            return None, None
        port_text = rest[1:] if rest else ""
    else:
        name, _, port_text = host.partition(":")
        if ":" in port_text:
            return None, None
    if port_text and not port_text.isdigit():
        return None, None
    return name, int(port_text) if port_text else None


def check_request(served: Served, headers: Headers, api: bool) -> None:
    """Refuse a request sent to another name, or from another site.

    Args:
        served: what this server serves.
        headers: the request headers.
        api: whether the request is for ``/api/*`` (a fetch-metadata check applies).

    Raises:
        Refused: 421 for a foreign ``Host``, 403 for a foreign origin.
    """
    host = headers.get("Host")
    if not served.host_allowed(host):
        raise Refused(421, f"this annotation server does not serve the host {host!r}")
    origin = headers.get("Origin")
    if origin is not None and not served.origin_allowed(origin, host or ""):
        raise Refused(403, f"requests from {origin!r} are refused: open the annotation page itself")
    site = headers.get("Sec-Fetch-Site")
    if api and site is not None and site.strip().lower() not in _ALLOWED_FETCH_SITES:
        raise Refused(403, f"a {site} request is refused: open the annotation page itself")


def body_length(headers: Headers) -> int:
    """The declared body length of a request, checked (h11 has already refused a malformed one).

    Args:
        headers: the request headers.

    Raises:
        Refused: chunked or otherwise encoded bodies (411), a ``Content-Length`` that is not
            one byte count (400) or one over :data:`MAX_BODY` (413); the connection must then
            be closed.
    """
    if headers.get("Transfer-Encoding") is not None:
        raise Refused(411, "send the body with a Content-Length, not a Transfer-Encoding", close=True)
    raw = {value.strip() for value in headers.getlist("Content-Length")}
    if not raw:
        return 0
    text = raw.pop()
    if raw or not (text.isascii() and text.isdigit()) or len(text) > len(str(MAX_BODY)) + 12:
        raise Refused(400, "the Content-Length is not one byte count", close=True)
    length = int(text)
    if length > MAX_BODY:
        raise Refused(413, f"a request body is at most {MAX_BODY} bytes, got {length}", close=True)
    return length


def check_json_type(headers: Headers) -> None:
    """Refuse a POST whose body is not declared ``application/json``.

    Args:
        headers: the request headers.

    Raises:
        Refused: 415.
    """
    kind = (headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, f"an answer is sent as application/json, not {kind or 'an untyped body'!r}")


def parse_object(body: bytes) -> dict[str, Any]:
    """Decode a JSON object body (UTF-8, nested at most :data:`MAX_DEPTH` deep).

    Args:
        body: the request body.

    Raises:
        Refused: 400 for anything else.
    """
    depth = deepest = 0
    in_string = escaped = False
    for byte in body:  # a cheap bracket count: refuse deep nesting before the decoder recurses
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    if deepest > MAX_DEPTH:
        raise Refused(400, f"an answer is a flat JSON object (nested {deepest} deep)")
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Refused(400, f"an answer is a JSON object ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise Refused(400, "an answer is a JSON object")
    return data


def json_response(status: int, payload: Any, close: bool = False) -> Response:
    """A JSON response, ASCII-only (a lone surrogate in a model's text travels as a ``\\ud800`` escape).

    Args:
        status: the HTTP status.
        payload: what to encode.
        close: ask the server to close the connection after it.
    """
    body = json.dumps(payload, ensure_ascii=True).encode("ascii")
    return Response(body, status, {"Connection": "close"} if close else None, "application/json; charset=utf-8")


def error_response(status: int, message: str, close: bool = False, **extra: Any) -> Response:
    """``{"error": message, ...}`` with a status.

    Args:
        status: the HTTP status.
        message: what the client reads.
        close: ask the server to close the connection after it.
        **extra: further fields (e.g. ``need_name``).
    """
    return json_response(status, {"error": message, **extra}, close)


class Guard:
    """ASGI middleware: the checks of this module before any route, the security headers on every response.

    Args:
        app: the Starlette app of the routes.
        served: what this server serves (names and origins).
        on_forwarded: called with the headers of each request that passes (the server warns once
            about forwarding headers there).
        on_response: called with ``(method, path?query, status, body)`` after each response.
    """

    def __init__(self, app: ASGIApp, served: Served, on_forwarded: Callable[[Headers], None],
                 on_response: ResponseHook | None = None) -> None:
        self.app = app
        self.served = served
        self.on_forwarded = on_forwarded
        self.on_response = on_response

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = self._sending(scope, send)
        headers = Headers(scope=scope)
        try:
            if scope["method"] not in METHODS:
                raise Refused(501, f"{scope['method']} is not served: only {', '.join(METHODS)}", close=True)
            body_length(headers)
            check_request(self.served, headers, api=str(scope["path"]).startswith("/api/"))
        except Refused as exc:
            await error_response(exc.status, str(exc), exc.close)(scope, receive, send)
            return
        self.on_forwarded(headers)
        await self.app(scope, receive, send)

    def _sending(self, scope: Scope, send: Send) -> Callable[[Message], Awaitable[None]]:
        """``send`` with the security headers added to every response, and the response hook called."""
        query = scope.get("query_string", b"").decode("latin-1")
        path = str(scope["path"]) + (f"?{query}" if query else "")
        status = 0
        body = bytearray()

        async def guarded(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)
            if message["type"] == "http.response.body" and self.on_response is not None:
                body.extend(message.get("body", b""))
                if not message.get("more_body", False):
                    self.on_response(str(scope["method"]), path, status, bytes(body))

        return guarded
