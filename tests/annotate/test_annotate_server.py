"""The annotation server's HTTP API (no browser): blinded payloads, saving, errors."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from saved_runs import write_run

from uta_tasks.apps.annotate import AnnotationDB, AnnotationServer, draw_packet
from uta_tasks.runs.sample_items import sample_items


def _get(url: str, token: str | None = None) -> tuple[int, dict]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _post(url: str, payload: object, token: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def served(tmp_path: Path, judge_meta):
    write_run(tmp_path / "runs", "org/secret-model-7b", {"uta_gsm8k_trunc": 4}, judge_meta())
    db_path = tmp_path / "ann.sqlite"
    with AnnotationDB(db_path) as db:
        db.create_packet(draw_packet(sample_items([tmp_path / "runs"]), n=6, seed=0), {"seed": 0})
    seen: list[tuple[str, str, int, bytes]] = []
    with AnnotationServer(db_path, port=0, on_response=lambda *entry: seen.append(entry)) as server:
        yield server, seen


def test_api_serves_only_context_and_user_turn_and_saves_at_once(served) -> None:
    server, seen = served
    assert server.url.startswith("http://127.0.0.1:")
    status, session = _get(server.url + "api/session?annotator=alice", server.token)
    assert status == 200 and session == {"annotator": "alice", "total": 6, "answered": 0, "position": 0}
    status, item = _get(server.url + "api/item?annotator=alice&position=0", server.token)
    assert status == 200 and set(item) == {"position", "total", "context", "user_turn", "answer"}
    assert item["answer"] is None and item["context"][-1]["role"] == "assistant"
    assert all(set(turn) == {"role", "content"} for turn in item["context"])
    status, saved = _post(server.url + "api/answer", {"annotator": "alice", "position": 0, "label": "other"}, server.token)
    assert status == 200 and saved == {"saved": True, "answer": {"label": "other", "genuine": None}, "answered": 0}
    status, saved = _post(server.url + "api/answer", {"annotator": "alice", "position": 0, "genuine": True}, server.token)
    assert saved["answer"] == {"label": "other", "genuine": True} and saved["answered"] == 1
    assert _get(server.url + "api/item?annotator=alice&position=0", server.token)[1]["answer"] == {"label": "other", "genuine": True}
    assert _get(server.url + "api/session?annotator=alice", server.token)[1]["position"] == 1
    texts = b"".join(body for *_, body in seen).decode()
    for secret in ("secret-model", "gsm8k", "trunc", "judge", "rationale", "verdict", "deterministic test verdict"):
        assert secret not in texts


def test_bad_requests_get_a_reason(served) -> None:
    server, _ = served
    assert _get(server.url + "api/item?annotator=alice&position=99", server.token)[0] == 400
    assert _get(server.url + "api/item?annotator=&position=0", server.token)[0] == 400
    assert _get(server.url + "api/nothing", server.token)[0] == 404
    status, body = _post(server.url + "api/answer", {"annotator": "alice", "position": 0, "label": "nope"}, server.token)
    assert status == 400 and "not one of" in body["error"]
    status, body = _post(server.url + "api/answer", {"annotator": "alice", "position": 0, "genuine": "yes"}, server.token)
    assert status == 400 and "genuine" in body["error"]
    status, body = _post(server.url + "api/answer", {"annotator": "alice", "position": 0, "model": "x"}, server.token)
    assert status == 400


def test_page_and_assets_are_local(served) -> None:
    server, _ = served
    with urllib.request.urlopen(server.url, timeout=10) as response:
        html = response.read().decode()
        assert response.headers["Content-Security-Policy"].startswith("default-src 'self'; frame-ancestors 'none'")
        assert response.headers["X-Frame-Options"] == "DENY"
    assert "/static/app.js" in html and "/static/app.css" in html and "http" not in html.replace("http-equiv", "")
    for label in ("plausible_followup", "malformed_artifact", "other"):
        assert f'data-label="{label}"' in html
    for asset in ("static/app.js", "static/app.css"):
        with urllib.request.urlopen(server.url + asset, timeout=10) as response:
            assert response.status == 200 and b"http://" not in response.read() and b"https://" not in response.read()


def test_a_database_without_packet_is_refused(tmp_path: Path) -> None:
    from uta_tasks.apps.annotate import AnnotationError

    with pytest.raises(AnnotationError, match="holds no packet"):
        AnnotationServer(tmp_path / "empty.sqlite", port=0)
