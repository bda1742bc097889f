"""A local double of the Hugging Face Hub's dataset endpoints on 127.0.0.1, for
``uta_tasks.saved_answers.hub`` (huggingface_hub's ``snapshot_download`` pointed at it with
``HF_ENDPOINT``): a gated repo and a missing revision cannot be produced on demand by the real Hub.

It serves what ``snapshot_download`` calls, as huggingface_hub reads it:

- ``GET /api/datasets/<repo>/revision/<rev>``: the commit a branch, tag or commit id resolves to
  (``sha``) and its files (``siblings``);
- ``GET /api/datasets/<repo>/tree/<commit>[/<path>]``: the files and folders of a commit
  (one page);
- ``HEAD`` / ``GET /datasets/<repo>/resolve/<commit>/<path>``: a file, with ``X-Repo-Commit``,
  ``ETag`` and ``Content-Length``.

A gated repo answers 403 with ``X-Error-Code: GatedRepo``, an unknown revision 404 with
``X-Error-Code: RevisionNotFound``, an unknown repo 404 with ``X-Error-Code: RepoNotFound``,
an unknown file 404 with ``X-Error-Code: EntryNotFound``. Every request is recorded with its
``Authorization`` header.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit


@dataclass
class Repo:
    """A dataset repo: commits (id -> path -> bytes), refs (branch or tag -> commit id), gated."""

    commits: dict[str, dict[str, bytes]]
    refs: dict[str, str]
    gated: bool = False

    def commit(self, revision: str) -> str | None:
        return self.refs.get(revision) or (revision if revision in self.commits else None)


@dataclass
class Request:
    """One request the double received."""

    method: str
    path: str
    authorization: str | None


def blob_id(data: bytes) -> str:
    """git's blob id of a file's bytes (the Hub's ``oid`` and ``ETag`` of a file not in LFS)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class HubDouble:
    """Run the double in a background thread: ``with HubDouble(repos) as hub: hub.endpoint``."""

    repos: dict[str, Repo]
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        """The ``HF_ENDPOINT`` of the double (its port is the one the system gave)."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def downloaded(self) -> list[tuple[str, str]]:
        """The (commit, path) of each file whose bytes were asked for (``GET .../resolve/...``), in order."""
        with self._lock:
            gets = [r.path.split("/resolve/", 1)[1] for r in self.requests
                    if r.method == "GET" and "/resolve/" in r.path]
        return [(commit, name) for commit, name in (get.split("/", 1) for get in gets)]

    def record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def __enter__(self) -> HubDouble:
        self._thread.start()
        deadline = time.monotonic() + 30
        while True:  # until it answers
            try:
                with urllib.request.urlopen(f"{self.endpoint}/api/health", timeout=5) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop serving and close the port (a second call does nothing)."""
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join(timeout=10)
        self._httpd.server_close()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(hub: HubDouble) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def do_GET(self) -> None:
            self._answer(body=True)

        def _send(self, status: int, data: bytes, headers: dict[str, str], body: bool) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def _error(self, status: int, code: str, message: str, body: bool) -> None:
            data = json.dumps({"error": message}).encode()
            self._send(status, data, {"Content-Type": "application/json", "X-Error-Code": code,
                                      "X-Error-Message": message}, body)

        def _answer(self, body: bool) -> None:
            path = urlsplit(self.path).path
            hub.record(Request(self.command, path, self.headers.get("Authorization")))
            if path == "/api/health":
                return self._send(200, b"{}", {"Content-Type": "application/json"}, body)
            api = path.startswith("/api/datasets/")
            parts = [unquote(p) for p in path.removeprefix("/api/datasets/" if api else "/datasets/").split("/")]
            if len(parts) < 4 or (not api and not path.startswith("/datasets/")):
                return self._error(404, "NotFound", "not a route of the double", body)
            repo_id, action, revision, rest = "/".join(parts[:2]), parts[2], parts[3], "/".join(parts[4:])
            repo = hub.repos.get(repo_id)
            if repo is None:
                return self._error(404, "RepoNotFound", "Repository not found", body)
            if repo.gated:
                return self._error(403, "GatedRepo", f"Access to dataset {repo_id} is restricted. You must have "
                                   "access to it and be authenticated to access it. Please log in.", body)
            commit = repo.commit(revision)
            if commit is None:
                return self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}", body)
            files = repo.commits[commit]
            headers = {"X-Repo-Commit": commit}
            if api and action == "revision":
                info = {"id": repo_id, "sha": commit, "private": False, "gated": False,
                        "siblings": [{"rfilename": name} for name in sorted(files)]}
                return self._send(200, json.dumps(info).encode(), {**headers, "Content-Type": "application/json"}, body)
            if api and action == "tree":
                prefix = f"{rest}/" if rest else ""
                entries: list[dict[str, Any]] = []
                folders = sorted({name.rsplit("/", 1)[0] for name in files if "/" in name})
                entries += [{"type": "directory", "oid": blob_id(f.encode()), "path": f} for f in folders
                            if f.startswith(prefix)]
                entries += [{"type": "file", "oid": blob_id(data), "size": len(data), "path": name}
                            for name, data in sorted(files.items()) if name.startswith(prefix)]
                return self._send(200, json.dumps(entries).encode(), {**headers, "Content-Type": "application/json"},
                                  body)
            if not api and action == "resolve":
                data = files.get(rest)
                if data is None:
                    return self._error(404, "EntryNotFound", f"{rest} does not exist", body)
                return self._send(200, data, {**headers, "ETag": f'"{blob_id(data)}"',
                                              "Content-Type": "application/octet-stream"}, body)
            return self._error(404, "NotFound", "not a route of the double", body)

    return Handler
