"""The annotation server under hostile HTTP, over raw sockets on 127.0.0.1: request desync
on kept-alive connections, malformed and oversized requests, foreign Host and Origin,
non-JSON bodies, loose types, lost updates under parallel writers, and the security
headers on every response."""

from __future__ import annotations

import json
import logging
import socket
import threading
from pathlib import Path

import pytest

from uta_tasks.apps.annotate import AnnotationDB, AnnotationError, AnnotationServer
from uta_tasks.apps.annotate.guard import SECURITY_HEADERS


@pytest.fixture
def served(packet: Path):
    with AnnotationServer(packet, port=0) as server:
        yield server


def _host(server: AnnotationServer) -> str:
    return server.url.removeprefix("http://").rstrip("/")


def _request(server: AnnotationServer, method: str, path: str, body: bytes = b"", headers: dict | None = None,
             token: bool = True, keep_alive: bool = False) -> bytes:
    """One raw HTTP/1.1 request (the connection closed after it unless ``keep_alive``)."""
    head = {"Host": _host(server), **({"Authorization": f"Bearer {server.token}"} if token else {}),
            **({} if keep_alive else {"Connection": "close"}), **(headers or {})}
    if body and "Content-Length" not in head:
        head["Content-Length"] = str(len(body))
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in head.items() if v is not None)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _responses(server: AnnotationServer, raw: bytes, wait_for: int = 1) -> list[tuple[int, dict, bytes]]:
    """Send raw bytes on one connection; read until the server closes it or ``wait_for`` replies came."""
    host, port = _host(server).rsplit(":", 1)
    host = "127.0.0.1" if host == "0.0.0.0" else host  # a server on every interface, reached on loopback
    out: list[tuple[int, dict, bytes]] = []
    buffer = b""
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(raw)
        while True:
            while b"\r\n\r\n" in buffer:
                head, rest = buffer.split(b"\r\n\r\n", 1)
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
                length = int(headers.get("content-length", "0"))
                if len(rest) < length:
                    break
                out.append((int(lines[0].split()[1]), headers, rest[:length]))
                buffer = rest[length:]
            if len(out) >= wait_for and not buffer:
                sock.settimeout(0.5)  # anything more (a smuggled reply) arrives right behind
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            buffer += chunk
    return out


def _answer(position: int = 0, **fields) -> bytes:
    return json.dumps({"annotator": "alice", "position": position, **fields}).encode()


def test_a_404_post_with_a_smuggled_request_in_its_body_gets_one_reply(served) -> None:
    smuggled = _request(served, "GET", "/api/session?annotator=smuggled", keep_alive=True)
    raw = _request(served, "POST", "/nowhere", smuggled, {"Content-Type": "application/json"}, keep_alive=True)
    replies = _responses(served, raw + _request(served, "GET", "/api/session?annotator=alice"), wait_for=2)
    assert [status for status, _, _ in replies] == [404, 200]
    assert json.loads(replies[1][2])["annotator"] == "alice"  # the body was read, not parsed as a request


def test_an_oversized_post_is_refused_and_its_connection_closed(served) -> None:
    smuggled = _request(served, "GET", "/api/session?annotator=smuggled", keep_alive=True)
    body = smuggled + b" " * (70_000 - len(smuggled))
    replies = _responses(served, _request(served, "POST", "/api/answer", body, {"Content-Type": "application/json"},
                                          keep_alive=True), wait_for=1)
    assert [(status, headers.get("connection")) for status, headers, _ in replies] == [(413, "close")]
    assert b"smuggled" not in b"".join(reply for _, _, reply in replies)


@pytest.mark.parametrize("length", ["abc", "-5", "12, 13", "0x10", "+12"])
def test_a_bad_content_length_gets_400_and_a_closed_connection(served, length: str) -> None:
    raw = _request(served, "POST", "/api/answer", _answer(label="other"),
                   {"Content-Type": "application/json", "Content-Length": length}, keep_alive=True)
    (status, headers, body), = _responses(served, raw)
    assert status == 400 and headers["connection"] == "close" and "Content-Length" in json.loads(body)["error"]


def test_chunked_bodies_and_unknown_methods_are_refused_with_closed_connections(served) -> None:
    chunked = _request(served, "POST", "/api/answer", b"", {"Content-Type": "application/json",
                                                             "Transfer-Encoding": "chunked"}, keep_alive=True)
    (status, headers, _), = _responses(served, chunked + b"5\r\nhello\r\n0\r\n\r\n")
    assert status == 411 and headers["connection"] == "close"
    for method in ("PUT", "DELETE", "OPTIONS", "PATCH"):
        raw = _request(served, method, "/api/answer", _answer(label="other"), keep_alive=True)
        (status, headers, _), = _responses(served, raw)
        assert status == 501 and headers["connection"] == "close"
        assert headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in headers["content-security-policy"]


@pytest.mark.parametrize("body", [
    b"[" * 5000 + b"]" * 5000,
    b'{"annotator": "alice", "position": 0, "label": ' + b"[" * 50_000 + b"]" * 10,
    b"not json at all",
    b"\xff\xfe{}",
    b'["a", "list"]',
    b'{"annotator": "\\ud800", "position": 0, "label": "other"}',
    b'{"annotator": ["alice"], "position": 0, "label": "other"}',
])
def test_non_json_and_deeply_nested_bodies_get_400_never_a_traceback(served, body: bytes, caplog) -> None:
    with caplog.at_level(logging.ERROR):
        raw = _request(served, "POST", "/api/answer", body, {"Content-Type": "application/json"}, keep_alive=True)
        replies = _responses(served, raw + _request(served, "GET", "/api/session?annotator=alice"), wait_for=2)
    assert [status for status, _, _ in replies] == [400, 200]
    assert "Traceback" not in caplog.text and not caplog.records


@pytest.mark.parametrize("field,value", [("genuine", 1), ("genuine", 1.0), ("genuine", 0), ("genuine", "true"),
                                         ("position", 1.9), ("position", 1.0), ("position", "1"),
                                         ("position", True), ("position", None)])
def test_answers_are_typed_strictly(served, field: str, value: object) -> None:
    payload = {"annotator": "alice", "position": 0, "label": "other", field: value}
    raw = _request(served, "POST", "/api/answer", json.dumps(payload).encode(), {"Content-Type": "application/json"})
    (status, _, body), = _responses(served, raw)
    assert status == 400 and field in json.loads(body)["error"]
    with AnnotationDB(served.db_path) as db:
        assert db.export() == ([], 0)


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x",
                                  None, "application/jsonx"])
def test_only_json_posts_are_accepted(served, kind: str | None) -> None:
    raw = _request(served, "POST", "/api/answer", _answer(label="other"), {"Content-Type": kind})
    (status, _, _), = _responses(served, raw)
    assert status == 415
    with AnnotationDB(served.db_path) as db:
        assert db.export() == ([], 0)


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:{port}", "127.0.0.1.nip.io:{port}",
                                  "localhost.attacker.example:{port}", "127.0.0.1:1", "", None])
def test_a_foreign_host_is_refused_so_dns_rebinding_reads_and_writes_nothing(served, host: str | None) -> None:
    port = _host(served).rsplit(":", 1)[1]
    value = None if host is None else host.format(port=port)
    for raw in (_request(served, "GET", "/api/session?annotator=alice", headers={"Host": value}),
                _request(served, "POST", "/api/answer", _answer(label="other"),
                         {"Host": value, "Content-Type": "application/json"}),
                _request(served, "GET", "/", headers={"Host": value})):
        (status, headers, _), = _responses(served, raw)
        # No Host at all is a malformed HTTP/1.1 request (RFC 9112 3.2: 400), refused by h11 before any route.
        assert status == (400 if value is None else 421) and headers["x-frame-options"] == "DENY"
    with AnnotationDB(served.db_path) as db:
        assert db.export() == ([], 0)


def test_accepted_hosts_and_origins(served) -> None:
    port = _host(served).rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "127.0.0.1", f"[::1]:{port}"):
        raw = _request(served, "GET", "/api/session?annotator=alice", headers={"Host": host})
        assert _responses(served, raw)[0][0] == 200, host
    for origin, expected in ((f"http://127.0.0.1:{port}", 200), ("http://127.0.0.1:1", 403), ("null", 403),
                             (f"http://localhost:{port}", 403), ("https://attacker.example", 403)):
        raw = _request(served, "POST", "/api/answer", _answer(label="other"),
                       {"Content-Type": "application/json", "Origin": origin})
        assert _responses(served, raw)[0][0] == expected, origin
    for site, expected in (("same-origin", 200), ("none", 200), ("same-site", 403), ("cross-site", 403)):
        raw = _request(served, "GET", "/api/session?annotator=alice", headers={"Sec-Fetch-Site": site})
        assert _responses(served, raw)[0][0] == expected, site


def test_every_response_carries_the_security_headers(served) -> None:
    requests = [
        _request(served, "GET", "/"), _request(served, "GET", "/static/app.js"),
        _request(served, "GET", "/nowhere"), _request(served, "GET", "/api/session?annotator=alice", token=False),
        _request(served, "GET", "/api/item?annotator=alice&position=x"),
        _request(served, "POST", "/api/answer", b"{}", {"Content-Type": "text/plain"}),
        _request(served, "GET", "/a b"), _request(served, "BREW", "/"),
    ]
    statuses = set()
    for raw in requests:
        for status, headers, _ in _responses(served, raw):
            statuses.add(status)
            for name, value in SECURITY_HEADERS.items():
                assert headers.get(name.lower()) == value, (raw[:30], name)
    assert statuses >= {200, 400, 401, 404, 415, 501}


def test_the_open_mode_token_is_needed_for_reads_and_writes(served) -> None:
    for raw in (_request(served, "GET", "/api/session?annotator=alice", token=False),
                _request(served, "GET", "/api/item?annotator=alice&position=0", token=False),
                _request(served, "POST", "/api/answer", _answer(label="other"), {"Content-Type": "application/json"},
                         token=False),
                _request(served, "POST", "/api/answer", _answer(label="other"),
                         {"Content-Type": "application/json", "Authorization": "Bearer guessed"}, token=False)):
        assert _responses(served, raw)[0][0] == 401
    assert "#key=" + str(served.token) in served.link


def test_concurrent_label_and_genuine_saves_never_lose_a_field(served) -> None:
    """16 rounds of a label save and a genuine save for one item, sent at the same instant."""
    lost = []
    for trial in range(16):
        position = trial % 6
        barrier = threading.Barrier(2)
        label = ["other", "meta_planning"][trial % 2]
        genuine = trial % 3 == 0

        def send(fields: dict, position: int = position, barrier: threading.Barrier = barrier) -> None:
            raw = _request(served, "POST", "/api/answer", _answer(position, **fields),
                           {"Content-Type": "application/json"})
            barrier.wait()
            assert _responses(served, raw)[0][0] == 200

        threads = [threading.Thread(target=send, args=({"label": label},)),
                   threading.Thread(target=send, args=({"genuine": genuine},))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with AnnotationDB(served.db_path) as db:
            shown = db.shown("alice", position)
        if (shown.label, shown.genuine) != (label, genuine):
            lost.append((trial, shown.label, shown.genuine))
    assert lost == []


def test_parallel_database_writers_never_lose_a_field(packet: Path) -> None:
    """Many connections saving different fields of one item at once (no HTTP in between)."""
    fields = [("label", "other"), ("genuine", True)] * 4
    for trial in range(6):
        with AnnotationDB(packet) as db:
            db.answer("bob", trial % 6, {"label": None, "genuine": None})
        barrier = threading.Barrier(len(fields))

        def save(key: str, value: object, position: int = trial % 6, barrier: threading.Barrier = barrier) -> None:
            with AnnotationDB(packet) as db:
                barrier.wait()
                db.answer("bob", position, {key: value})

        threads = [threading.Thread(target=save, args=field) for field in fields]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with AnnotationDB(packet) as db:
            shown = db.shown("bob", trial % 6)
        assert (shown.label, shown.genuine) == ("other", True), trial


def test_behind_a_proxy_invites_are_required_and_forwarding_without_them_is_warned(packet: Path, caplog) -> None:
    with pytest.raises(AnnotationError, match="behind a proxy"):
        AnnotationServer(packet, port=0, public_urls=["https://annot.lab/"])
    with AnnotationDB(packet) as db:
        from uta_tasks.apps.annotate import access

        secret = access.invite(db, "alice")
    with AnnotationServer(packet, port=0, public_urls=["https://annot.lab/"]) as server:
        assert server.require_invites and server.token is None
        raw = _request(server, "POST", "/api/answer", _answer(label="other"), token=False, headers={
            "Host": "annot.lab", "Origin": "https://annot.lab", "Content-Type": "application/json",
            "Authorization": f"Bearer {secret}", "X-Forwarded-For": "10.0.0.7"})
        assert _responses(server, raw)[0][0] == 200
        raw = _request(server, "GET", "/api/session", token=False, headers={"Host": "annot.lab"})
        assert _responses(server, raw)[0][0] == 401
    with caplog.at_level(logging.WARNING), AnnotationServer(packet, port=0) as server:
        for _ in range(2):
            raw = _request(server, "GET", "/", headers={"X-Forwarded-For": "10.0.0.7"})
            assert _responses(server, raw)[0][0] == 200
    assert caplog.text.count("--require_invites") == 1


def test_beyond_loopback_any_name_reaches_the_server_but_only_an_invite_reads(packet: Path) -> None:
    from uta_tasks.apps.annotate import access

    with AnnotationDB(packet) as db:
        secret = access.invite(db, "alice")
    with AnnotationServer(packet, host="0.0.0.0", port=0) as server:
        port = server.url.rsplit(":", 1)[1].rstrip("/")
        name = {"Host": f"annot.lab:{port}", "Origin": f"http://annot.lab:{port}"}
        raw = _request(server, "GET", "/api/session", token=False, headers={**name, "Authorization": f"Bearer {secret}"})
        (status, _, body), = _responses(server, raw)
        assert status == 200 and json.loads(body)["annotator"] == "alice"
        raw = _request(server, "GET", "/api/session?annotator=alice", token=False, headers=name)
        assert _responses(server, raw)[0][0] == 401
        raw = _request(server, "POST", "/api/answer", _answer(label="other"), token=False,
                       headers={**name, "Origin": "http://attacker.example", "Content-Type": "application/json",
                                "Authorization": f"Bearer {secret}"})
        assert _responses(server, raw)[0][0] == 403



def test_huge_numbers_in_a_request_get_a_4xx_and_no_traceback(served, caplog) -> None:
    """A 5,000-digit Content-Length, query position or JSON position (beyond Python's int parsing limit)."""
    digits = "9" * 5000
    with caplog.at_level(logging.ERROR):
        raw = _request(served, "POST", "/api/answer", _answer(label="other"),
                       {"Content-Type": "application/json", "Content-Length": digits}, keep_alive=True)
        (status, headers, body), = _responses(served, raw)
        assert status == 400 and headers["connection"] == "close" and "Content-Length" in json.loads(body)["error"]
        assert headers["x-frame-options"] == "DENY"
        (status, _, body), = _responses(served, _request(served, "GET", f"/api/item?annotator=alice&position={digits}"))
        assert status == 400 and "position" in json.loads(body)["error"] and len(body) < 500
        for position in (digits, "1" + "0" * 30, "-" + digits):
            answer = f'{{"annotator": "alice", "position": {position}, "label": "other"}}'.encode()
            raw = _request(served, "POST", "/api/answer", answer, {"Content-Type": "application/json"})
            (status, _, body), = _responses(served, raw)
            assert status == 400 and len(body) < 500, position
    assert "Traceback" not in caplog.text and not caplog.records
    with AnnotationDB(served.db_path) as db:
        assert db.export() == ([], 0)


def test_clients_that_disconnect_early_leave_no_traceback_in_the_log(packet: Path, caplog, capfd) -> None:
    """Requests abandoned at every stage; the server is stopped (which waits for every request) before the log is read."""
    with caplog.at_level(logging.WARNING), AnnotationServer(packet, port=0) as server:
        host, port = _host(server).rsplit(":", 1)
        page = _request(server, "GET", "/", keep_alive=True)
        answer = _request(server, "POST", "/api/answer", _answer(label="other"), {"Content-Type": "application/json"},
                          keep_alive=True)
        abandoned = [
            b"",  # connected, sent nothing
            page[:20],  # half a request line
            page * 50,  # pipelined requests, none of the replies read
            answer[:-10],  # a body cut short
            answer,  # a whole request, its reply never read
        ]
        for raw in abandoned:
            for reset in (False, True):
                sock = socket.create_connection((host, int(port)), timeout=10)
                if reset:  # close with a TCP reset, so the server's writes fail (broken pipe / reset)
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                sock.sendall(raw)
                sock.close()
        (status, _, _), = _responses(server, _request(server, "GET", "/api/session?annotator=alice"))
        assert status == 200  # the server still answers
    assert "Traceback" not in caplog.text and "Traceback" not in capfd.readouterr().err
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []
