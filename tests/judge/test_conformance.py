"""The constructed conformance cases (set v2: the 24 of v1 reviewed, plus the boundary cases) and
``uta-conformance``, run against a scripted judge on 127.0.0.1 (the real openai client) that
answers each case from a table."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fault_server import CANDIDATE

from uta_tasks.apps.conformance import CASES, CORE, load_cases, main
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


BOUNDARIES = {"voice", "missing_information", "related_task", "plausibility", "other", "app_c_drill", "restart"}
SEED_SOURCES = ("summary", "page, ", "figures, ")
V1 = CASES.with_name("followupeval-cases-v1.jsonl")


def test_set_v2_holds_the_24_reviewed_cases_and_every_boundary():
    cases = load_cases()
    assert len(cases) >= 36 and len({c.id for c in cases}) == len(cases) == len({c.user_turn for c in cases})
    assert {c.boundary for c in cases} == BOUNDARIES | {CORE}
    boundary = Counter(c.boundary for c in cases)
    assert sum(n for b, n in boundary.items() if b != CORE) >= 12 and all(boundary[b] >= 2 for b in BOUNDARIES)
    assert set(Counter(c.label for c in cases)) == set(LABELS)
    v1 = {c.user_turn: c for c in load_cases(V1)}
    kept = [c for c in cases if c.user_turn in v1]
    assert len(kept) == 24  # every case of v1 is in v2, reviewed
    changed = {c.id: (v1[c.user_turn].label, c.label) for c in kept if c.label != v1[c.user_turn].label}
    assert changed == {"previous_turn_restate-4": ("other", "previous_turn_restate")}  # a reworded restart (v4)


def test_each_case_cites_the_paper_or_is_the_projects_choice_and_pairs_label_and_decision():
    for case in load_cases():
        assert case.context[-1][0] == "assistant", case.id
        source = case.source.lower()
        assert "protocol" not in source, case.id
        assert any(seed in source for seed in SEED_SOURCES) or "project's choice" in source, case.id
        assert case.genuine if case.label in GENUINE_LABELS else not case.genuine if case.label in FAILURE_LABELS \
            else True  # other: either


def test_the_boundaries_hold_both_sides():
    by = {c.id: c for c in load_cases()}
    # voice: the same sub-problem as the user (genuine) and as the assistant's chain of thought (not)
    assert (by["voice-1"].label, by["voice-2"].label) == ("plausible_followup", "assistant_turn_restate")
    assert (by["app-c-drill-1"].genuine, by["app-c-drill-3"].genuine) == (True, False)
    # other with either decision
    assert {c.genuine for c in by.values() if c.label == "other"} == {True, False}
    # a grounded turn no user would write is not genuine
    assert not any(c.genuine for c in by.values() if c.boundary == "plausibility" and c.label != "plausible_followup")


def _meta(judge: TableJudge, tmp_path) -> str:
    return json.dumps({"judge_base_url": judge.base_url, "judge_model": "table-judge",
                       "judge_cache": str(tmp_path / "cache.sqlite")})


def test_a_judge_that_agrees_scores_every_case(table_judge, tmp_path, capsys):
    n = len(load_cases())
    out = tmp_path / "conformance.json"
    assert main(["--metadata", _meta(table_judge, tmp_path), "--json", str(out), "--min_binary", "1"]) == 0
    text = capsys.readouterr().out
    assert f"binary agreement: {n}/{n} judged (0 unjudged); label agreement: {n}/{n}" in text
    assert "table-judge (followupeval-v4)" in text  # the default prompt, named with its version
    assert "| voice | 3 | 3 | 3/3 | 3/3 |" in text and "| plausible_followup | 11 | 11 | 11/11 | 11/11 |" in text
    report = json.loads(out.read_text())
    assert report["binary_agree"] == n and report["prompt_version"] == "followupeval-v4"
    assert report["by_boundary"]["app_c_drill"] == {"cases": 3, "judged": 3, "binary_agree": 3, "label_agree": 3}
    assert set(report["by_label"]) == set(LABELS) and table_judge.requests == n


def test_disagreements_are_named_per_label_and_boundary_and_fail_the_threshold(table_judge, tmp_path, capsys):
    cases = {c.id: c for c in load_cases()}
    n = len(cases)
    # A v3-like judge: a reworded restart is other; a CoT continuation of the sub-problem is genuine.
    table_judge.answers[cases["previous_turn_restate-4"].user_turn] = ("other", False)
    table_judge.answers[cases["voice-2"].user_turn] = ("plausible_followup", True)
    out = tmp_path / "conformance.json"
    code = main(["--metadata", _meta(table_judge, tmp_path), "--min_binary", "1", "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 1 and f"binary agreement: {n - 1}/{n} judged (0 unjudged); label agreement: {n - 2}/{n}" in text
    assert "| previous_turn_restate-4 | restart | previous_turn_restate / False | other / False | ok | NO |" in text
    assert "| voice | 3 | 3 | 2/3 | 2/3 |" in text and "| restart | 3 | 3 | 3/3 | 2/3 |" in text
    report = json.loads(out.read_text())
    assert report["by_label"]["assistant_turn_restate"]["binary_agree"] == report["by_label"][
        "assistant_turn_restate"]["cases"] - 1
    assert sorted(report["disagreements"]) == ["previous_turn_restate-4", "voice-2"]


def test_set_v1_stays_runnable(table_judge, tmp_path, capsys):
    table_judge.answers.update({c.user_turn: (c.label, c.genuine) for c in load_cases(V1)})
    assert main(["--metadata", _meta(table_judge, tmp_path), "--cases", str(V1), "--min_binary", "1"]) == 0
    assert "binary agreement: 24/24 judged (0 unjudged); label agreement: 24/24" in capsys.readouterr().out


def test_the_cache_key_carries_the_prompt_version(table_judge, tmp_path, capsys):
    meta = json.loads(_meta(table_judge, tmp_path))
    main(["--metadata", json.dumps(meta)])
    main(["--metadata", json.dumps(meta)])
    n = len(load_cases())
    assert table_judge.requests == n  # the second run reads every verdict from the cache
    main(["--metadata", json.dumps({**meta, "judge_prompt": "followupeval-v3"})])
    assert table_judge.requests == 2 * n  # another version is another key
    assert "table-judge (followupeval-v3)" in capsys.readouterr().out


def test_bad_settings_exit_2_naming_the_setting(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--metadata", json.dumps({"judge_concurrency": "many"}), "--cases", str(CASES)])
    assert exc.value.code == 2 and "judge_concurrency" in capsys.readouterr().err
