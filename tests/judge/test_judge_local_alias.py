"""Item 5: the local llama-server launcher names the served model after its GGUF file, so
two different models are never served (and cached) under one name. A stand-in
``llama-server`` executable (found through ``UTA_LLAMA_SERVER``) records its arguments,
binds the port it is given (0: one the system chooses) and logs it as llama-server does, and answers ``/health`` and ``/v1/models`` on 127.0.0.1, so this runs in a second."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path

import pytest

from uta_tasks.servers import llama_server as local_server
from uta_tasks.servers.llama_server import MODEL_ALIAS, llama_server

FAKE_SERVER = """#!{python}
import http.server, json, sys
args = sys.argv[1:]
port, alias = int(args[args.index("--port") + 1]), args[args.index("--alias") + 1]
with open({record!r}, "w") as sink:
    json.dump(args, sink)

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        models = {{"object": "list", "data": [{{"id": alias}}]}}
        body = b"{{}}" if self.path == "/health" else json.dumps(models).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

server = http.server.HTTPServer(("127.0.0.1", port), Handler)
print(f"listening on http://127.0.0.1:{{server.server_port}}", flush=True)  # as llama-server logs it
server.serve_forever()
"""


@pytest.fixture
def fake_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    record = tmp_path / "args.json"
    script = tmp_path / "llama-server"
    script.write_text(FAKE_SERVER.format(python=sys.executable, record=str(record)))
    script.chmod(0o755)
    monkeypatch.setenv("UTA_LLAMA_SERVER", str(script))
    return record


def _served_ids(url: str) -> list[str]:
    with urllib.request.urlopen(f"{url}/models", timeout=5) as response:
        return [entry["id"] for entry in json.load(response)["data"]]


def test_alias_defaults_to_the_gguf_file_name(fake_binary: Path, tmp_path: Path) -> None:
    gguf = tmp_path / "Qwen2.5-7B-Instruct-Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF")
    with llama_server(gguf, parallel=1, ctx_size=512, threads=1, ready_timeout=20) as url:
        assert url.model == "Qwen2.5-7B-Instruct-Q4_K_M"
        assert _served_ids(url) == ["Qwen2.5-7B-Instruct-Q4_K_M"]
    args = json.loads(fake_binary.read_text())
    assert args[args.index("--alias") + 1] == "Qwen2.5-7B-Instruct-Q4_K_M"


def test_explicit_alias_and_the_embedded_default(fake_binary: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    gguf = tmp_path / "judge.gguf"
    gguf.write_bytes(b"GGUF")
    with llama_server(gguf, alias="my-judge", parallel=1, ctx_size=512, threads=1, ready_timeout=20) as url:
        assert url.model == "my-judge" and _served_ids(url) == ["my-judge"]
    from uta_tasks.embedded import smollm2

    monkeypatch.setattr(smollm2, "gguf_path", lambda: gguf)
    with llama_server(parallel=1, ctx_size=512, threads=1, ready_timeout=20) as url:
        assert url.model == MODEL_ALIAS  # the embedded SmolLM2 keeps the name quickstart and tests use


def test_cli_takes_an_alias() -> None:
    assert local_server.parse_args(["--model", "x.gguf", "--alias", "served-name"]).alias == "served-name"
    assert local_server.parse_args([]).alias is None
    assert os.path.basename(local_server.default_alias(Path("/m/Llama-3.1-8B.Q8_0.gguf"))) == "Llama-3.1-8B.Q8_0"
