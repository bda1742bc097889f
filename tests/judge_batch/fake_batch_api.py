"""A local fake of OpenAI's Files and Batches endpoints on 127.0.0.1 (plus the chat
completions and model listing the live fallback and preflight use).

Behaviour, deterministic and driven by :class:`FakeConfig`:

- ``POST /v1/files`` (multipart, ``purpose=batch``) stores the file;
  ``GET /v1/files/{id}/content`` returns any stored file (inputs, outputs, errors).
- ``POST /v1/batches`` validates the input file (JSONL, unique ``custom_id``, method, url,
  model) and creates a batch in ``validating``; ``GET /v1/batches`` lists them newest
  first (``limit``/``after``); ``POST /v1/batches/{id}/cancel`` cancels.
- Each ``GET /v1/batches/{id}`` advances the batch one step: ``validating`` ->
  ``in_progress`` -> ``step`` requests processed per retrieve -> ``finalizing`` ->
  ``completed``, writing the output and error files. The outcome of the n-th batch
  created is ``config.outcomes[n]`` (default ``complete``): ``expire`` or ``cancel``
  after ``stop_after`` processed requests (the rest go to the error file as
  ``batch_expired`` / ``batch_cancelled``), ``fail`` (validation fails: no files).
- A processed request's reply is the deterministic verdict of
  ``tests/judge/fault_server.expected_verdict`` unless ``reply_faults`` names its
  candidate user turn: ``schema`` (a reply that violates the verdict schema) or
  ``400`` (an error-file entry with HTTP 400).
- ``hold_create_at``: the n-th ``POST /v1/batches`` (1-based) creates the batch and then
  holds its response until :meth:`FakeBatchAPI.release` (or ``hold_seconds``), so a
  test can kill a client between the remote create and its local record.
- ``fail_create_at``: the n-th create answers HTTP 500 without creating anything.
- ``batch_api=False``: ``/v1/files`` and ``/v1/batches`` answer 404, like a server that
  only offers chat completions.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judge"))

from fault_server import CANDIDATE, MODEL, expected_verdict  # noqa: E402

TERMINAL = ("completed", "expired", "failed", "cancelled")


@dataclass
class FakeConfig:
    """What the fake does; change attributes between runs."""

    outcomes: list[str] = field(default_factory=list)
    step: int = 1000
    stop_after: int = 0
    reply_faults: dict[str, str] = field(default_factory=dict)
    hold_create_at: int | None = None
    hold_seconds: float = 30.0
    fail_create_at: int | None = None
    batch_api: bool = True  # False: answer 404 on /files and /batches, like a chat-only server


@dataclass
class FakeBatch:
    """Server-side state of one batch."""

    id: str
    input_file_id: str
    endpoint: str
    metadata: dict[str, str]
    outcome: str
    requests: list[dict[str, Any]]
    status: str = "validating"
    processed: int = 0
    created_at: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        total = len(self.requests)
        failed = sum(1 for r in self.requests[: self.processed] if r.get("_fault") == "400")
        return {
            "id": self.id, "object": "batch", "endpoint": self.endpoint, "input_file_id": self.input_file_id,
            "completion_window": "24h", "status": self.status, "created_at": self.created_at,
            "output_file_id": self.output_file_id, "error_file_id": self.error_file_id,
            "errors": {"object": "list", "data": self.errors} if self.errors else None,
            "request_counts": {"total": total, "completed": self.processed - failed, "failed": failed},
            "metadata": self.metadata,
        }


class FakeBatchAPI:
    """Run the fake in a background thread: ``with FakeBatchAPI() as api: api.base_url``."""

    def __init__(self, config: FakeConfig | None = None) -> None:
        self.config = config or FakeConfig()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.uploads = 0
        self.create_calls = 0
        self.chat_calls = 0
        self.preflight_calls = 0
        self.submitted_ids: list[str] = []
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._holding = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def release(self) -> None:
        """Let a held create respond."""
        self._release.set()

    def wait_holding(self, timeout: float) -> bool:
        """Block until a create is being held (True) or ``timeout`` passes."""
        return self._holding.wait(timeout)

    def uploaded_inputs(self) -> list[bytes]:
        """Contents of every uploaded file, in upload order."""
        with self._lock:
            return [data for name, data in self.files.items() if name.startswith("file-in-")]

    def __enter__(self) -> FakeBatchAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    # --- called by the handler, under no lock unless said
    def upload(self, data: bytes) -> dict[str, Any]:
        with self._lock:
            self.uploads += 1
            file_id = f"file-in-{self.uploads:04d}"
            self.files[file_id] = data
        return _file_json(file_id, data, "batch")

    def create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.create_calls += 1
            number = self.create_calls
            if number == self.config.fail_create_at:
                return 500, {"error": {"message": "The server had an error creating the batch", "type": "server_error"}}
            data = self.files.get(body.get("input_file_id", ""))
            if data is None:
                return 404, {"error": {"message": f"No such File object: {body.get('input_file_id')}"}}
            requests, problem = _validate(data, body.get("endpoint", ""))
            index = len(self.batches)
            outcome = self.config.outcomes[index] if index < len(self.config.outcomes) else "complete"
            batch = FakeBatch(
                id=f"batch_{index + 1:04d}", input_file_id=body["input_file_id"], endpoint=body["endpoint"],
                metadata=dict(body.get("metadata") or {}), outcome="fail" if problem else outcome,
                requests=requests, created_at=int(time.time()) + index,
            )
            if problem:
                batch.errors = [{"code": "invalid_request", "message": problem, "line": 1, "param": None}]
            for request in requests:
                self.submitted_ids.append(request["custom_id"])
                fault = self.config.reply_faults.get(user_turn_of(request["body"]))
                if fault:
                    request["_fault"] = fault
            self.batches[batch.id] = batch
            payload = batch.to_json()
        if number == self.config.hold_create_at:
            self._holding.set()
            self._release.wait(self.config.hold_seconds)
        return 200, payload

    def retrieve(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return None
            self._advance(batch)
            return batch.to_json()

    def cancel(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return None
            if batch.status not in TERMINAL:
                batch.outcome, self.config.stop_after = "cancel", batch.processed
                batch.status = "cancelling"
            return batch.to_json()

    def listing(self, limit: int, after: str | None) -> dict[str, Any]:
        with self._lock:
            ordered = sorted(self.batches.values(), key=lambda b: b.id, reverse=True)
            if after:
                ids = [b.id for b in ordered]
                ordered = ordered[ids.index(after) + 1 :] if after in ids else []
            page = ordered[:limit]
            return {
                "object": "list", "data": [b.to_json() for b in page],
                "first_id": page[0].id if page else None, "last_id": page[-1].id if page else None,
                "has_more": len(ordered) > limit,
            }

    def _advance(self, batch: FakeBatch) -> None:
        if batch.status in TERMINAL:
            return
        if batch.status == "validating":
            batch.status = "failed" if batch.outcome == "fail" else "in_progress"
            if batch.outcome == "fail" and not batch.errors:
                batch.errors = [{"code": "batch_failed", "message": "The batch failed validation.", "line": None}]
            return
        if batch.status == "finalizing":
            self._finish(batch, "completed")
            return
        stop = len(batch.requests)
        if batch.outcome in ("expire", "cancel"):
            stop = min(stop, self.config.stop_after)
        batch.processed = min(stop, batch.processed + self.config.step)
        if batch.processed >= stop:
            if batch.outcome == "expire":
                self._finish(batch, "expired")
            elif batch.outcome == "cancel":
                self._finish(batch, "cancelled")
            else:
                batch.status = "finalizing"

    def _finish(self, batch: FakeBatch, status: str) -> None:
        output, errors = [], []
        for number, request in enumerate(batch.requests):
            entry_id = f"batch_req_{batch.id}_{number}"
            if number >= batch.processed:
                code = {"expired": "batch_expired", "cancelled": "batch_cancelled"}[status]
                errors.append({"id": entry_id, "custom_id": request["custom_id"], "response": None,
                               "error": {"code": code, "message": f"This request was not executed ({status})."}})
                continue
            if request.get("_fault") == "400":
                errors.append({"id": entry_id, "custom_id": request["custom_id"], "error": None, "response": {
                    "status_code": 400, "request_id": entry_id,
                    "body": {"error": {"message": "Unsupported parameter: 'temperature'",
                                       "type": "invalid_request_error"}},
                }})
                continue
            output.append({"id": entry_id, "custom_id": request["custom_id"], "error": None, "response": {
                "status_code": 200, "request_id": entry_id, "body": completion(request["body"], request.get("_fault")),
            }})
        batch.status = status
        if output:
            batch.output_file_id = f"file-out-{batch.id}"
            self.files[batch.output_file_id] = _jsonl(output)
        if errors:
            batch.error_file_id = f"file-err-{batch.id}"
            self.files[batch.error_file_id] = _jsonl(errors)


def user_turn_of(body: dict[str, Any]) -> str:
    """The candidate user turn inside a judge prompt."""
    for message in body.get("messages", []):
        match = CANDIDATE.search(message.get("content", ""))
        if match:
            return match.group("u")
    return ""


def completion(body: dict[str, Any], fault: str | None = None) -> dict[str, Any]:
    """A chat completion answering a judge prompt."""
    content = json.dumps(expected_verdict(user_turn_of(body)))
    if fault == "schema":
        content = json.dumps({"rationale": "r", "label": "genuine_followup", "genuine": "yes"})
    prompt_chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": body.get("model"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4,
                  "total_tokens": prompt_chars // 4 + len(content) // 4},
    }


def _validate(data: bytes, endpoint: str) -> tuple[list[dict[str, Any]], str | None]:
    requests: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
        try:
            line = json.loads(raw)
        except ValueError:
            return [], f"line {number} is not JSON"
        if line.get("method") != "POST" or line.get("url") != endpoint or not line.get("body", {}).get("model"):
            return [], f"line {number}: method, url or body.model is wrong"
        if line["custom_id"] in seen:
            return [], f"line {number}: duplicate custom_id {line['custom_id']}"
        seen.add(line["custom_id"])
        requests.append(line)
    return requests, None


def _file_json(file_id: str, data: bytes, purpose: str) -> dict[str, Any]:
    return {"id": file_id, "object": "file", "bytes": len(data), "created_at": 0, "filename": f"{file_id}.jsonl",
            "purpose": purpose, "status": "processed"}


def _jsonl(entries: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(entry) + "\n" for entry in entries).encode()


def _multipart_file(content_type: str, body: bytes) -> bytes:
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            return part.get_payload(decode=True) or b""
    raise ValueError("multipart body has no 'file' part")


def _handler(api: FakeBatchAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: Any = None, raw: bytes | None = None) -> None:
            body = raw if raw is not None else json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream" if raw is not None else "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        return data
                    data += self.rfile.read(size)
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))

        def do_GET(self) -> None:
            url = urlparse(self.path)
            path = url.path.rstrip("/")
            if path.endswith("/models"):
                return self._send(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0,
                                                                    "owned_by": "fake"}]})
            if match := re.fullmatch(r"/v1/files/([\w-]+)/content", path):
                data = api.files.get(match.group(1))
                if data is None:
                    return self._send(404, {"error": {"message": "no file"}})
                return self._send(200, raw=data)
            if match := re.fullmatch(r"/v1/batches/([\w-]+)", path):
                batch = api.retrieve(match.group(1))
                return self._send(200, batch) if batch else self._send(404, {"error": {"message": "no batch"}})
            if path == "/v1/batches":
                query = parse_qs(url.query)
                return self._send(200, api.listing(int(query.get("limit", ["20"])[0]), query.get("after", [None])[0]))
            self._send(404, {"error": {"message": f"unknown path {path}"}})

        def do_POST(self) -> None:
            path = urlparse(self.path).path.rstrip("/")
            raw = self._body()
            if not api.config.batch_api and path.startswith(("/v1/files", "/v1/batches")):
                return self._send(404, {"error": {"message": f"File Not Found: {path}"}})
            if path == "/v1/files":
                return self._send(200, api.upload(_multipart_file(self.headers.get("Content-Type", ""), raw)))
            body = json.loads(raw or b"{}")
            if path == "/v1/batches":
                status, payload = api.create(body)
                return self._send(status, payload)
            if match := re.fullmatch(r"/v1/batches/([\w-]+)/cancel", path):
                batch = api.cancel(match.group(1))
                return self._send(200, batch) if batch else self._send(404, {"error": {"message": "no batch"}})
            if path == "/v1/chat/completions":
                with api._lock:
                    # Live judge calls only: the judge preflight's test completion carries
                    # no candidate turn and is counted apart.
                    if any(CANDIDATE.search(m.get("content", "")) for m in body.get("messages", [])):
                        api.chat_calls += 1
                    else:
                        api.preflight_calls += 1
                return self._send(200, completion(body))
            self._send(404, {"error": {"message": f"unknown path {path}"}})

    return Handler
