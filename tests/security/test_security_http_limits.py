"""The annotation server (issue 44, item 5): no traceback for any malformed request, slow
clients cut off after the read timeout while a real client is served, and one normal form
of an annotator's name on every route. Raw sockets on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import re
import socket
import time
from pathlib import Path

import pytest
from test_security_http import _answer, _host, _request, _responses

from uta_tasks.apps.annotate import AnnotationServer

SLOW_CLIENTS = 200
READ_TIMEOUT_S = 1.0
GENEROUS_WAIT_S = 60.0  # how long a slow client may stay connected before the test calls it a hang


def _head(server: AnnotationServer, method: str, path: str, extra: str = "") -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: {_host(server)}\r\nAuthorization: Bearer {server.token}\r\n"
            f"{extra}").encode("latin-1")


def _malformed(server: AnnotationServer) -> list[bytes]:
    chunked = "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    return [
        _head(server, "POST", "/api/answer", chunked) + b"zz\r\n",  # issue 44: a malformed chunk size
        _head(server, "POST", "/api/answer", chunked) + b"5\r\nhello\r\nzz\r\n",
        _head(server, "GET", "/", "Transfer-Encoding: chunked\r\n\r\n") + b"zz\r\n",
        _head(server, "GET", "/api/session?annotator=alice", "\r\n") + b"zz\r\n\r\n",  # garbage after a whole request
        _head(server, "POST", "/api/answer", "Content-Length: 2\r\n\r\n") + b"{}GARBAGE / HTTP/9\r\n\r\n",
        _head(server, "GET", "/", "no colon here\r\n\r\n"),
        _head(server, "GET", "/", "Content-Length: -1\r\n\r\n"),
        _head(server, "GET", "/", "Content-Length: 1\r\nContent-Length: 2\r\n\r\n"),
        b"GET /\x00 HTTP/1.1\r\n\r\n",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        _head(server, "GET", "/", "X-Big: " + "a" * 70_000),  # a head past h11's bound, never ended
        b"\r\n\r\n\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
    ]


def _drain(server: AnnotationServer, raw: bytes) -> bytes:
    """Send ``raw`` and read until the server closes the connection."""
    host, port = _host(server).rsplit(":", 1)
    received = b""
    with socket.create_connection((host, int(port)), timeout=GENEROUS_WAIT_S) as sock:
        try:
            sock.sendall(raw)
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionError:  # a reset is a close too
            pass
    return received


def test_malformed_requests_get_an_answer_and_no_traceback(packet: Path, caplog, capfd) -> None:
    with caplog.at_level(logging.DEBUG), AnnotationServer(packet, port=0) as server:
        for raw in _malformed(server):
            reply = _drain(server, raw)
            statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", reply)
            assert b"500" not in statuses and statuses[-1:] != [b"200"], (raw[:80], reply[:300])
        (status, _, _), = _responses(server, _request(server, "GET", "/api/session?annotator=alice"))
        assert status == 200
    assert "Traceback" not in caplog.text and "Traceback" not in capfd.readouterr().err
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_slow_clients_are_cut_off_after_the_read_timeout_while_a_real_client_is_served(packet: Path) -> None:
    with AnnotationServer(packet, port=0, read_timeout=READ_TIMEOUT_S) as server:
        host, port = _host(server).rsplit(":", 1)
        partial = [_head(server, "GET", "/api/session?annotator=alice")[:40],  # half a head
                   _head(server, "POST", "/api/answer", "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n")
                   + b'{"annotator": "alice"',  # a whole head, a tenth of its body
                   b""]  # nothing at all
        slow = []
        for index in range(SLOW_CLIENTS):
            sock = socket.create_connection((host, int(port)), timeout=GENEROUS_WAIT_S)
            sock.sendall(partial[index % len(partial)])
            slow.append(sock)
        served = 0
        for position in range(3):  # a real client meanwhile, on fresh and kept-alive connections
            raw = _request(server, "POST", "/api/answer", _answer(position, label="other", genuine=False),
                           {"Content-Type": "application/json"}, keep_alive=True)
            replies = _responses(server, raw + _request(server, "GET", "/api/session?annotator=alice"), wait_for=2)
            served += [status for status, _, _ in replies] == [200, 200]
        assert served == 3
        deadline = time.monotonic() + GENEROUS_WAIT_S  # one budget for all: a hang fails within it
        closed = 0
        for sock in slow:  # each must be closed by the server: recv returns b"" (or a reset)
            with sock:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    closed += sock.recv(1) == b""
                except ConnectionError:
                    closed += 1
                except TimeoutError:
                    pass
        assert closed == SLOW_CLIENTS


def test_an_annotator_name_has_one_normal_form_on_every_route(packet: Path) -> None:
    with AnnotationServer(packet, port=0) as server:
        raw = _request(server, "POST", "/api/answer",
                       json.dumps({"annotator": "carol ", "position": 0, "label": "other", "genuine": False}).encode(),
                       {"Content-Type": "application/json"})
        (status, _, _), = _responses(server, raw)
        assert status == 200
        for name in ("carol%20", "carol", "%20carol%20%20"):
            (status, _, body), = _responses(server, _request(server, "GET", f"/api/item?annotator={name}&position=0"))
            assert status == 200 and json.loads(body)["answer"] == {"label": "other", "genuine": False}, name
            (status, _, body), = _responses(server, _request(server, "GET", f"/api/session?annotator={name}"))
            assert json.loads(body)["annotator"] == "carol" and json.loads(body)["answered"] == 1, name
        (status, _, body), = _responses(server, _request(server, "GET", "/api/item?annotator=Carol&position=0"))
        assert status == 200


@pytest.mark.parametrize("seconds", [0, -1, float("nan")])
def test_a_read_timeout_must_be_positive(packet: Path, seconds: float) -> None:
    with pytest.raises(ValueError, match="read timeout"):
        AnnotationServer(packet, port=0, read_timeout=seconds)
