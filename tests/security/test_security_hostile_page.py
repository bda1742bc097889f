"""A hostile page served from another 127.0.0.1 port, opened in headless Chromium, tries to
write answers into the annotation server (a ``no-cors`` ``text/plain`` fetch, an
auto-submitted ``enctype=text/plain`` form, a JSON fetch that needs a preflight) and to
frame its page, against the server in open mode (its token), open mode without the token
(``--no_token``) and invite mode. Nothing is written and nothing is framed; the server
log shows the attempts arrived and were refused."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from browser import start_chromium

from uta_tasks.apps.annotate import AnnotationDB, AnnotationServer, access

pytestmark = pytest.mark.slow

ANSWER = {"annotator": "alice", "position": 0, "label": "other", "genuine": True}


def hostile_page(target: str) -> str:
    """The attacker's page: three write attempts and a frame of the annotation page."""
    body = json.dumps(ANSWER)
    name, value = body[:-1] + ', "pad": "', '"}'  # text/plain form body: name=value is the JSON answer
    return f"""<!doctype html><html><body data-done="0">
<iframe name="sink" id="sink"></iframe>
<iframe id="framed" src="{target}"></iframe>
<form id="form" method="POST" action="{target}api/answer" enctype="text/plain" target="sink">
  <input type="hidden" name='{name}' value='{value}'>
</form>
<script>
  const done = () => {{ document.body.dataset.done = String(Number(document.body.dataset.done) + 1); }};
  fetch("{target}api/answer", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                                body: {json.dumps(body)}}}).then(done, done);
  fetch("{target}api/answer", {{method: "POST", headers: {{"Content-Type": "application/json"}},
                                body: {json.dumps(body)}}}).then(done, done);
  fetch("{target}api/session?annotator=alice", {{mode: "no-cors"}}).then(done, done);
  document.getElementById("form").submit();
</script></body></html>"""


@contextmanager
def attacker(page: str) -> Iterator[str]:
    """Serve ``page`` on another 127.0.0.1 port; yields its URL."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _wait(driver, condition, what: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20, poll_frequency=0.05).until(lambda d: condition(d), message=what)


@pytest.mark.parametrize("mode", ["open", "open --no_token", "invites"])
def test_a_hostile_page_writes_nothing_and_frames_nothing(packet: Path, tmp_path: Path, mode: str) -> None:
    if mode == "invites":
        with AnnotationDB(packet) as db:
            access.invite(db, "alice")
    seen: list[tuple[str, str, int, bytes]] = []
    server = AnnotationServer(packet, port=0, on_response=lambda *entry: seen.append(entry),
                              require_invites=mode == "invites", open_token=mode != "open --no_token")
    driver = start_chromium(tmp_path / "profile")
    try:
        with server, attacker(hostile_page(server.url)) as evil:
            driver.get(evil)
            _wait(driver, lambda d: d.execute_script("return document.body.dataset.done") == "3", "fetches settled")
            _wait(driver, lambda d: sum(1 for m, p, _, _ in seen if m == "POST") >= 2, "both POSTs reached the server")
            _wait(driver, lambda d: any(p == "/" for _, p, _, _ in seen), "the frame was requested")
            driver.switch_to.frame(driver.find_element("id", "framed"))
            framed = driver.execute_script("return [location.href, document.title, "
                                           "!!document.getElementById('conversation')]")
            driver.switch_to.default_content()
    finally:
        driver.quit()
    with AnnotationDB(packet) as db:
        assert db.export() == ([], 0), mode
    posts = [status for method, path, status, _ in seen if method == "POST"]
    assert posts and all(status in (403, 415) for status in posts), posts
    assert not any(path.startswith("/api/") and status == 200 for _, path, status, _ in seen), seen
    assert framed[2] is False and framed[1] != "Follow-up annotation", framed  # Chromium refused to render it


def test_the_hostile_report_runs_no_payload_and_its_own_script_under_its_csp(tmp_path: Path, judge_meta) -> None:
    from hostile_run import hostile_run

    from uta_tasks.apps.report.cli import main as report_main

    runs = tmp_path / "runs"
    hostile_run(runs, judge_meta())
    assert report_main([str(runs), "--output_path", str(tmp_path / "report")]) == 0
    page = tmp_path / "report" / "report.html"
    assert "Content-Security-Policy" in page.read_text(encoding="utf-8")
    driver = start_chromium(tmp_path / "profile")
    try:
        driver.get(page.as_uri())
        _wait(driver, lambda d: d.execute_script("return document.querySelectorAll('#sample-list .sample').length")
              > 0, "the page's own script drew the sample browser")
        shown = driver.execute_script(  # (strings with lone surrogates cannot come back through WebDriver)
            "const texts = Array.from(document.querySelectorAll('#sample-list pre')).map(p => p.textContent);"
            "return arguments[0].map(needle => texts.some(text => text.includes(needle)));",
            ['<img src=x onerror="window.__pwned=1">', "</script><script>", "\ufffd\ufffd\ufffd( bytes", "A" * 1000])
        pwned = driver.execute_script("return window.__pwned === undefined ? null : window.__pwned")
        live = driver.execute_script("return document.querySelectorAll('#sample-list img, #sample-list svg, "
                                     "table img, #sample-list script').length")
        logs = driver.get_log("browser")
    finally:
        driver.quit()
    assert pwned is None and live == 0
    assert shown == [True, True, True, True]  # payloads, broken bytes and the 1 MB turn shown as text
    assert not [entry for entry in logs if "Content Security Policy" in entry["message"]], logs
