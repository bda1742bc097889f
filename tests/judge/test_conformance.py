"""The 24 constructed conformance cases (issue 17) and ``uta-conformance``, run against a
scripted judge on 127.0.0.1 (the real openai client) that answers each case from a table."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fault_server import CANDIDATE

from uta_tasks.apps.conformance import CASES, load_cases, main
from uta_tasks.judge.labels import FAILURE_LABELS, GENUINE_LABELS, LABELS


class TableJudge:
    """Answers a candidate user turn with ``answers[u]`` ((label, genuine)); counts requests."""

    def __init__(self, answers: dict[str, tuple[str, bool]]) -> None:
        self.answers = answers
        self.requests = 0
        judge = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, payload: dict[str, Any]) -> None:
                body = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._send({"object": "list", "data": [{"id": "table-judge", "object": "model", "created": 0,
                                                        "owned_by": "test"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                judge.requests += 1
                match = CANDIDATE.search(body["messages"][-1]["content"])
                label, genuine = judge.answers[match.group("u") if match else ""]
                content = json.dumps({"rationale": "table", "decision": {"label": label, "genuine": genuine}})
                self._send({"id": "c", "object": "chat.completion", "created": 0, "model": "table-judge",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}],
                            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> TableJudge:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def expected() -> dict[str, tuple[str, bool]]:
    return {c.user_turn: (c.label, c.genuine) for c in load_cases()}


@pytest.fixture()
def table_judge(expected) -> Iterator[TableJudge]:
    with TableJudge(dict(expected)) as judge:
        yield judge


def test_twenty_four_cases_three_per_label_each_with_its_source():
    cases = load_cases()
    assert len(cases) == 24 and Counter(c.label for c in cases) == {label: 3 for label in LABELS}
    assert len({c.id for c in cases}) == 24 and len({c.user_turn for c in cases}) == 24
    for case in cases:
        assert case.context[-1][0] == "assistant" and case.source.strip()
        assert case.genuine if case.label in GENUINE_LABELS else not case.genuine if case.label in FAILURE_LABELS \
            else True  # other: either


def _meta(judge: TableJudge, tmp_path) -> str:
    return json.dumps({"judge_base_url": judge.base_url, "judge_model": "table-judge",
                       "judge_cache": str(tmp_path / "cache.sqlite")})


def test_a_judge_that_agrees_scores_24_of_24(table_judge, tmp_path, capsys):
    out = tmp_path / "conformance.json"
    assert main(["--metadata", _meta(table_judge, tmp_path), "--json", str(out), "--min-binary", "1"]) == 0
    text = capsys.readouterr().out
    assert "binary agreement: 24/24 judged (0 unjudged); label agreement: 24/24" in text
    assert "table-judge (followupeval-v3)" in text  # the default prompt, named with its version
    report = json.loads(out.read_text())
    assert report["binary_agree"] == 24 and report["prompt_version"] == "followupeval-v3"
    assert table_judge.requests == 24


def test_disagreements_are_named_and_fail_the_threshold(table_judge, expected, tmp_path, capsys):
    cases = {c.id: c for c in load_cases()}
    # A v2-like judge: a reworded restart is previous_turn_restate; a CoT continuation is genuine.
    table_judge.answers[cases["other-1"].user_turn] = ("previous_turn_restate", False)
    table_judge.answers[cases["assistant_turn_restate-2"].user_turn] = ("plausible_followup", True)
    code = main(["--metadata", _meta(table_judge, tmp_path), "--min-binary", "1"])
    text = capsys.readouterr().out
    assert code == 1 and "binary agreement: 23/24 judged (0 unjudged); label agreement: 22/24" in text
    assert "| other-1 | other / False | previous_turn_restate / False | ok | NO |" in text


def test_the_cache_key_carries_the_prompt_version(table_judge, tmp_path, capsys):
    meta = json.loads(_meta(table_judge, tmp_path))
    main(["--metadata", json.dumps(meta)])
    main(["--metadata", json.dumps(meta)])
    assert table_judge.requests == 24  # the second run reads every verdict from the cache
    main(["--metadata", json.dumps({**meta, "judge_prompt": "followupeval-v2"})])
    assert table_judge.requests == 48  # another version is another key
    assert "table-judge (followupeval-v2)" in capsys.readouterr().out


def test_bad_settings_exit_2_naming_the_setting(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--metadata", json.dumps({"judge_concurrency": "many"}), "--cases", str(CASES)])
    assert exc.value.code == 2 and "judge_concurrency" in capsys.readouterr().err
