"""What the judge's HTTP session sends, and where: the chat-completions path under the base
URL with its query kept, the key as a bearer token, OpenAI's organization and project only
to OpenAI's API, and the proxy the environment names (``NO_PROXY`` respected). Against the
fault double, a real HTTP server on 127.0.0.1 (as a proxy too: it answers any POST)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fault_server import FaultServer

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all
from uta_tasks.judge.transport import Endpoint
from uta_tasks.schema import reasons

UNRESOLVABLE = "http://judge.invalid:8000/v1"  # .invalid never resolves (RFC 2606)


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The test's own proxy variables only."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


def test_requests_go_to_chat_completions_under_the_base_url_with_its_query(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]], no_proxy_env: pytest.MonkeyPatch) -> None:
    no_proxy_env.setenv("MY_JUDGE_KEY", "sk-test-endpoint")
    settings = fault_settings(judge_base_url=f"{fault_server.base_url}/?api-version=2024-06-01",
                              judge_api_key_env="MY_JUDGE_KEY")
    run = judge_all(items(2), settings)
    assert all(v.judged for v in run.verdicts)
    requests = fault_server.requests
    assert [r.path for r in requests] == ["/v1/chat/completions?api-version=2024-06-01"] * 2
    assert {r.authorization for r in requests} == {"Bearer sk-test-endpoint"}


def test_a_proxy_named_by_the_environment_carries_the_requests(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]], no_proxy_env: pytest.MonkeyPatch) -> None:
    no_proxy_env.setenv("HTTP_PROXY", fault_server.base_url.removesuffix("/v1"))
    run = judge_all(items(2), fault_settings(judge_base_url=UNRESOLVABLE, judge_cache="none"))
    assert all(v.judged for v in run.verdicts)
    assert [r.path for r in fault_server.chat_requests()] == [f"{UNRESOLVABLE}/chat/completions"] * 2


def test_no_proxy_sends_directly(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                 items: Callable[..., list[JudgeItem]], no_proxy_env: pytest.MonkeyPatch) -> None:
    no_proxy_env.setenv("HTTP_PROXY", fault_server.base_url.removesuffix("/v1"))
    no_proxy_env.setenv("NO_PROXY", "judge.invalid")
    run = judge_all(items(1), fault_settings(judge_base_url=UNRESOLVABLE, judge_cache="none", judge_max_retries=0))
    assert not run.verdicts[0].judged
    assert run.verdicts[0].reason_code == reasons.CONNECTION
    assert "Cannot connect to host judge.invalid:8000" in (run.verdicts[0].reason or "")
    assert fault_server.requests == []


def test_organization_and_project_go_only_to_openais_api(no_proxy_env: pytest.MonkeyPatch) -> None:
    no_proxy_env.setenv("OPENAI_ORG_ID", "org-test")
    no_proxy_env.setenv("OPENAI_PROJECT_ID", "proj-test")
    openai_api = Endpoint("https://api.openai.com/v1", "sk-test", 5.0)
    assert openai_api.headers["OpenAI-Organization"] == "org-test"
    assert openai_api.headers["OpenAI-Project"] == "proj-test"
    other = Endpoint("https://judge.example/v1", "sk-test", 5.0)
    assert "OpenAI-Organization" not in other.headers and "OpenAI-Project" not in other.headers
    assert other.headers["Authorization"] == "Bearer sk-test"
    assert "Authorization" not in Endpoint("http://127.0.0.1:8000/v1", None, 5.0).headers
