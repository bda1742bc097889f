"""Per-annotator access: invite links, a real server on 127.0.0.1 with the check forced on,
secrets bound to their names, stored hashed, and absent from exports, logs and other pages."""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from saved_runs import write_run

from uta_tasks.apps.annotate import AnnotationDB, AnnotationError, AnnotationServer, draw_packet
from uta_tasks.apps.annotate.access import is_loopback
from uta_tasks.apps.annotate.cli import main as annotate_main
from uta_tasks.runs.sample_items import sample_items


def _call(url: str, key: str | None = None, payload: object = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _invite(db_path: Path, name: str, capsys) -> tuple[str, str]:
    assert annotate_main(["invite", name, "--db", str(db_path), "--url", "http://annot.lab:8765/"]) == 0
    link = capsys.readouterr().out.strip().splitlines()[-1]
    match = re.fullmatch(r"http://annot\.lab:8765/#key=([A-Za-z0-9_-]{32})", link)
    assert match, link
    return link, match.group(1)


@pytest.fixture
def packet(tmp_path: Path, judge_meta) -> Path:
    write_run(tmp_path / "runs", "org/secret-model-7b", {"uta_gsm8k_trunc": 4}, judge_meta())
    db_path = tmp_path / "ann.sqlite"
    with AnnotationDB(db_path) as db:
        db.create_packet(draw_packet(sample_items([tmp_path / "runs"]), n=6, seed=0), {"seed": 0})
    return db_path


def test_without_invites_a_server_that_needs_them_refuses_to_start(packet: Path, capsys) -> None:
    with pytest.raises(AnnotationError, match="no invited annotator: run 'uta-annotate invite NAME"):
        AnnotationServer(packet, port=0, require_invites=True)
    with pytest.raises(AnnotationError, match="listens on 0.0.0.0, beyond this machine"):
        AnnotationServer(packet, host="0.0.0.0", port=0)
    assert annotate_main(["serve", "--db", str(packet), "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "beyond this machine" in capsys.readouterr().err
    assert [is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "::1", "localhost", "0.0.0.0", "192.168.1.5", "::")] \
        == [True, True, True, True, False, False, False]


def test_each_secret_reads_and_answers_only_as_its_own_annotator(packet: Path, capsys, caplog) -> None:
    alice_link, alice = _invite(packet, "alice", capsys)
    _, bob = _invite(packet, "bob", capsys)
    caplog.set_level(logging.DEBUG)
    seen: list[tuple[str, str, int, bytes]] = []
    with AnnotationServer(packet, port=0, require_invites=True, on_response=lambda *e: seen.append(e)) as server:
        url = server.url
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=10) as response:  # the page itself holds no item
            assert response.status == 200
        assert _call(url + "api/session?annotator=alice")[0] == 401
        assert _call(url + "api/item?annotator=alice&position=0")[0] == 401
        assert _call(url + "api/answer", None, {"annotator": "alice", "position": 0, "label": "other"})[0] == 401
        status, body = _call(url + "api/item?annotator=alice&position=0", key=alice[::-1])
        assert status == 401 and "not (or no longer) valid" in body["error"]

        status, session = _call(url + "api/session", key=alice)  # the link alone names its annotator
        assert status == 200 and session["annotator"] == "alice" and session["total"] == 6
        status, body = _call(url + "api/item?annotator=bob&position=0", key=alice)
        assert status == 403 and body["error"] == "this link belongs to alice, not to bob"
        status, body = _call(url + "api/answer", alice, {"annotator": "bob", "position": 0, "label": "other"})
        assert status == 403
        status, saved = _call(url + "api/answer", alice, {"position": 0, "label": "other", "genuine": False})
        assert status == 200 and saved["answered"] == 1
        status, saved = _call(url + "api/answer", bob, {"annotator": "bob", "position": 1, "label": "other",
                                                         "genuine": True})
        assert status == 200 and saved["answered"] == 1
        assert _call(url + "api/item?position=0", key=bob)[1]["answer"] is None  # bob's order, bob's answers

        _, alice_again = _invite(packet, "alice", capsys)  # a new link replaces the old one
        assert _call(url + "api/session", key=alice)[0] == 401
        assert _call(url + "api/session", key=alice_again)[1]["answered"] == 1

    out = packet.parent / "human.jsonl"
    assert annotate_main(["export", "--db", str(packet), "--output", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((r["annotator"], r["genuine"]) for r in rows) == [("alice", False), ("bob", True)]
    secrets_ = (alice, bob, alice_again)
    stored = b"".join(p.read_bytes() for p in packet.parent.glob("ann.sqlite*"))
    texts = {
        "export": out.read_text(),
        "logs": caplog.text + capsys.readouterr().err,
        "responses": b"".join(body + path.encode() for _, path, _, body in seen).decode(),
        "database": stored.decode("latin-1"),
    }
    for where, text in texts.items():
        for secret in secrets_:
            assert secret not in text, where
    assert alice_link.split("#key=")[1] not in texts["database"]


def test_loopback_without_invites_needs_the_servers_own_link(packet: Path) -> None:
    with AnnotationServer(packet, port=0) as server:
        assert server.token is not None and server.link == f"{server.url}#key={server.token}"
        assert _call(server.url + "api/session?annotator=carol")[0] == 401
        assert _call(server.url + "api/session?annotator=carol", key=server.token[::-1])[0] == 401
        status, session = _call(server.url + "api/session?annotator=carol", key=server.token)
        assert status == 200 and session["annotator"] == "carol"
        status, body = _call(server.url + "api/session", key=server.token)  # the page then asks for a name
        assert status == 400 and body["need_name"] is True
    with AnnotationServer(packet, port=0, open_token=False) as server:  # --no_token: the old open mode
        assert server.token is None and server.link == server.url
        status, session = _call(server.url + "api/session?annotator=carol")
        assert status == 200 and session["annotator"] == "carol"
