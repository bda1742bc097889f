"""A controllable OpenAI-compatible test double on 127.0.0.1, for the faults a real
server will not produce on demand.

It answers ``/v1/chat/completions`` with a deterministic verdict computed from the
candidate user turn (``genuine`` iff it contains ``?``), unless ``faults`` names that
candidate text: then the first ``count`` requests for it (every request when
``count`` is None) get the fault instead. Fault kinds:

``429`` (with ``Retry-After``), ``500``, ``503``, ``503_retry`` (503 with ``Retry-After``), ``hang`` (no answer for
``hang_seconds``), ``reset`` (the connection is closed without an answer), ``badbody``
(HTTP 200 whose body is not JSON), ``html`` (HTTP 200 with an HTML page),
``empty_object`` (HTTP 200 ``{}``), ``usage_na`` (``usage.prompt_tokens: "n/a"``),
``usage_list`` (``usage: {"prompt_tokens": [1]}``), ``choices_object`` (``choices`` is an
object), ``no_message`` (a choice without ``message``), ``malformed`` (message content
is not JSON), ``schema`` (JSON that violates the verdict schema), ``length``
(``finish_reason=length``), ``401`` (echoes the bearer token, as some APIs echo keys),
``400``, ``403`` (permission denied), ``quota`` (HTTP 429 ``insufficient_quota``),
``schema_rejected`` (HTTP 400: the model does not support ``json_schema``), ``flip`` (a valid
verdict with the opposite genuine decision: a judge that changes its mind between calls).

``capacity`` makes it a remote API with a limit: a chat request arriving while
``capacity`` others are in flight is answered at once with HTTP 429 and ``Retry-After``
(``retry_after``; None sends no ``Retry-After``, as some APIs do), counted as
``capacity_429`` in ``served``; with ``delay`` (the fixed latency of every answer) this
simulates an endpoint of ``capacity / delay`` requests/s.

``sequences`` names, per candidate text, the kind of each successive request (``ok``
for a normal answer; requests past the end are normal). ``chat_fault`` applies one
kind to every chat request (a candidate-less preflight probe included);
``models_body`` replaces the ``GET /models`` answer. ``served`` counts the faults
actually served per kind; ``on_chat`` is called with the number of chat requests
received so far (before answering), to change the world mid-run.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CANDIDATE = re.compile(
    r"<<<CANDIDATE USER TURN \| (id-[0-9a-f]+)>>>\n(?P<u>.*)\n<<<END CANDIDATE USER TURN \| \1>>>",
    re.DOTALL,
)
MODEL = "fault-judge"


def expected_verdict(user_turn: str) -> dict[str, Any]:
    """The verdict the double returns for a candidate user turn when there is no fault."""
    genuine = "?" in user_turn
    digest = hashlib.sha256(user_turn.encode()).hexdigest()[:8]
    return {
        "rationale": f"deterministic test verdict {digest}",
        "label": "plausible_followup" if genuine else "previous_turn_restate",
        "genuine": genuine,
    }


@dataclass
class Recorded:
    """One request the double received."""

    at: float
    path: str
    body: dict[str, Any]
    authorization: str | None
    user_turn: str | None
    answered: float | None = None  # when a chat request's answer was written (None: not answered)
    status: int | None = None


@dataclass
class FaultConfig:
    """What the double does; change attributes between runs."""

    faults: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    sequences: dict[str, list[str]] = field(default_factory=dict)
    chat_fault: str | None = None
    models_body: bytes | None = None
    models_content_type: str = "application/json"
    reply_model: str | None = None
    system_fingerprint: str | None = "fp_fault_1"
    on_chat: Callable[[int], None] | None = None
    retry_after: str | None = "0"
    hang_seconds: float = 5.0
    delay: float = 0.0
    capacity: int | None = None
    reject_param: str | None = None
    list_models: bool = True
    models: tuple[str, ...] = (MODEL,)
    reject_all_with_401: bool = False


class FaultServer:
    """Run the double in a background thread: ``with FaultServer() as server: server.base_url``."""

    def __init__(self, config: FaultConfig | None = None, port: int = 0) -> None:
        self.config = config or FaultConfig()
        self.requests: list[Recorded] = []
        self.max_in_flight = 0
        self.served: Counter[str] = Counter()
        self._in_flight = 0
        self._chats = 0
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = _Server(("127.0.0.1", port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def chat_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()
            self._seen.clear()
            self.served.clear()
            self._chats = 0
            self.max_in_flight = 0

    def __enter__(self) -> FaultServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    # called by the handler
    def next_fault(self, user_turn: str | None) -> str | None:
        config = self.config
        if config.chat_fault is not None:
            return self._serve(config.chat_fault)
        if user_turn is None or (user_turn not in config.faults and user_turn not in config.sequences):
            return None
        with self._lock:
            seen = self._seen.get(user_turn, 0)
            self._seen[user_turn] = seen + 1
        if user_turn in config.sequences:
            steps = config.sequences[user_turn]
            kind: str | None = steps[seen] if seen < len(steps) else None
            return None if kind in (None, "ok") else self._serve(kind)
        kind, count = config.faults[user_turn]
        return self._serve(kind) if count is None or seen < count else None

    def _serve(self, kind: str) -> str:
        with self._lock:
            self.served[kind] += 1
        return kind

    def count_chat(self) -> int:
        with self._lock:
            self._chats += 1
            return self._chats

    def enter(self) -> bool:
        """Count a chat request in flight; False (and not counted) when over ``capacity``."""
        with self._lock:
            capacity = self.config.capacity
            if capacity is not None and self._in_flight >= capacity:
                self.served["capacity_429"] += 1
                return False
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            return True

    def leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # a burst of new connections must not overflow the listen backlog


def _handler(server: FaultServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        record: Recorded | None = None
        disable_nagle_algorithm = True  # answer at once, as a production server does (no 40 ms Nagle stall)

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None, raw: bytes | None = None,
                  content_type: str = "application/json") -> None:
            body = raw if raw is not None else json.dumps(payload).encode()
            if self.record is not None:
                self.record.status = status
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            if self.record is not None:
                self.record.answered = time.monotonic()

        def _record(self, body: dict[str, Any]) -> Recorded:
            user_turn = None
            for message in body.get("messages", []):
                match = CANDIDATE.search(message.get("content", ""))
                if match:
                    user_turn = match.group("u")
            record = Recorded(time.monotonic(), self.path, body, self.headers.get("Authorization"), user_turn)
            with server._lock:
                server.requests.append(record)
            return record

        def do_GET(self) -> None:
            self.record = None  # a GET on a connection that served a chat request before
            self._record({})
            config = server.config
            if config.reject_all_with_401:
                return self._unauthorized()
            if not config.list_models:
                return self._send(404, {"error": {"message": "Not found", "type": "not_found"}})
            if config.models_body is not None:
                return self._send(200, None, raw=config.models_body, content_type=config.models_content_type)
            if self.path.rstrip("/").endswith("/models"):
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in config.models]
                return self._send(200, {"object": "list", "data": data})
            model = self.path.rsplit("/", 1)[-1]
            if model in config.models:
                return self._send(200, {"id": model, "object": "model", "created": 0, "owned_by": "test"})
            return self._send(404, {"error": {"message": f"model {model} not found", "type": "not_found"}})

        def _unauthorized(self) -> None:
            token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            message = f"Incorrect API key provided: {token}. You can find your API key in your account."
            self._send(401, {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            record = self.record = self._record(body)
            if server.config.on_chat is not None:
                server.config.on_chat(server.count_chat())
            if not server.enter():
                return self._send(429, {"error": {"message": "Too many requests in flight", "type": "requests"}},
                                  headers=_retry_after(server.config))
            try:
                self._chat(body, record)
            finally:
                server.leave()

        def _chat(self, body: dict[str, Any], record: Recorded) -> None:
            config = server.config
            if config.reject_all_with_401:
                return self._unauthorized()
            if config.reject_param and config.reject_param in body:
                name = config.reject_param
                return self._send(400, {"error": {
                    "message": f"Unsupported parameter: '{name}' is not supported with this model.",
                    "type": "invalid_request_error", "param": name, "code": "unsupported_parameter"}})
            if not config.list_models and body.get("model") not in config.models:
                return self._send(404, {"error": {"message": "model not found", "type": "not_found"}})
            if config.delay:
                server._stop.wait(config.delay)
            fault = server.next_fault(record.user_turn)
            verdict = expected_verdict(record.user_turn or "")
            decision = {"label": verdict["label"], "genuine": verdict["genuine"]}
            content = json.dumps({"rationale": verdict["rationale"], "decision": decision})  # the schema's shape
            finish = "stop"
            if fault == "429":
                return self._send(429, {"error": {"message": "Rate limit reached", "type": "requests"}},
                                  headers=_retry_after(config))
            if fault == "503_retry":
                return self._send(503, {"error": _ERRORS["503"][1]}, headers=_retry_after(config))
            if fault in _ERRORS:
                status, error = _ERRORS[fault]
                return self._send(status, {"error": error})
            if fault == "reset":
                return self._reset()
            if fault in _RAW_200:
                content_type, raw = _RAW_200[fault]
                return self._send(200, None, raw=raw, content_type=content_type)
            if fault == "401":
                return self._unauthorized()
            if fault == "400":
                return self._send(400, {"error": {"message": "Invalid request", "type": "invalid_request_error"}})
            if fault == "hang":
                server._stop.wait(config.hang_seconds)
            if fault == "malformed":
                content = '{"rationale": "unterminated'
            if fault == "flip":  # a valid verdict with the opposite decision: a judge that changes its mind
                flipped = not verdict["genuine"]
                label = "plausible_followup" if flipped else "previous_turn_restate"
                content = json.dumps({"rationale": verdict["rationale"], "decision": {"label": label,
                                                                                     "genuine": flipped}})
            if fault == "contradiction":  # a failure label with genuine true: what the schema forbids
                content = json.dumps({"rationale": "r", "decision": {"label": "previous_turn_restate", "genuine": True}})
            if fault == "schema":
                content = json.dumps({"rationale": "r", "label": "genuine_followup", "genuine": "yes"})
            if fault == "length":
                content, finish = content[: len(content) // 2], "length"
            prompt_chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
            reply: dict[str, Any] = {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                "model": config.reply_model or body.get("model"),
                "system_fingerprint": config.system_fingerprint,
                "choices": [{"index": 0, "finish_reason": finish,
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4,
                          "total_tokens": prompt_chars // 4 + len(content) // 4},
            }
            if fault == "usage_na":
                reply["usage"]["prompt_tokens"] = "n/a"
            if fault == "usage_list":
                reply["usage"] = {"prompt_tokens": [1]}
            if fault == "choices_object":
                reply["choices"] = reply["choices"][0]
            if fault == "no_message":
                del reply["choices"][0]["message"]
            self._send(200, reply)

        def _reset(self) -> None:
            """Close the connection at once (RST), without any answer."""
            try:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
            except OSError:
                pass
            self.close_connection = True

    return Handler


def _retry_after(config: FaultConfig) -> dict[str, str]:
    return {} if config.retry_after is None else {"Retry-After": config.retry_after}


_ERRORS: dict[str, tuple[int, dict[str, Any]]] = {
    "500": (500, {"message": "The server had an error", "type": "server_error"}),
    "503": (503, {"message": "Service unavailable", "type": "server_error"}),
    "403": (403, {"message": "You are not allowed to use this model", "type": "invalid_request_error",
                  "code": "permission_denied"}),
    "quota": (429, {"message": "You exceeded your current quota, please check your plan and billing details.",
                    "type": "insufficient_quota", "code": "insufficient_quota"}),
    "schema_rejected": (400, {"message": "response_format json_schema is not supported by this model",
                              "type": "invalid_request_error", "param": "response_format"}),
}
_RAW_200: dict[str, tuple[str, bytes]] = {
    "badbody": ("application/json", b'{"id": "x", "choices": [ this is not json'),
    "html": ("text/html", b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>"),
    "empty_object": ("application/json", b"{}"),
}
