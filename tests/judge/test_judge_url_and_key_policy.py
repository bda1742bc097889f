"""Items 6-7: no credentials in judge URLs, none in any log; OPENAI_API_KEY goes only to
the OpenAI API, to an endpoint the user paired it with, or when its variable is named."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from fault_server import MODEL, FaultServer

from uta_tasks.judge import (
    JudgeConfigError,
    JudgeItem,
    JudgeSettings,
    judge_all,
    preflight,
)
from uta_tasks.judge.client import JudgeClient

PASSWORD = "Pw-9d1c77e0-DO-NOT-PRINT"
SECRET = "sk-test-ONLY-FOR-OPENAI-5b8e2f"


@pytest.mark.parametrize(
    "url",
    [
        f"http://judge:{PASSWORD}@127.0.0.1:8080/v1",
        f"https://{PASSWORD}@proxy.example.com/v1",
        f"https://proxy.example.com/v1?api_key={PASSWORD}",
        f"https://proxy.example.com/v1?key={PASSWORD}",
        f"https://proxy.example.com/v1?token={PASSWORD}&x=1",
        f"https://proxy.example.com/v1?access_token={PASSWORD}",
        f"https://blob.example.com/v1?sv=2024&sig={PASSWORD}",
        f"https://proxy.example.com/v1?X-Api-Key={PASSWORD}",
    ],
)
def test_urls_with_credentials_are_refused_without_echoing_them(url: str) -> None:
    with pytest.raises(JudgeConfigError) as info:
        JudgeSettings.from_metadata({"judge_base_url": url})
    message = str(info.value)
    assert PASSWORD not in message and "judge_base_url" in message
    assert "judge_api_key_env" in message  # says where a key belongs
    with pytest.raises(JudgeConfigError) as direct:
        JudgeSettings(base_url=url)
    assert PASSWORD not in str(direct.value)


@pytest.mark.parametrize("variable", ["UTA_JUDGE_BASE_URL", "OPENAI_BASE_URL"])
def test_credentials_in_url_variables_are_refused(variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, f"http://u:{PASSWORD}@127.0.0.1:8080/v1")
    with pytest.raises(JudgeConfigError, match=variable) as info:
        JudgeSettings.from_metadata({})
    assert PASSWORD not in str(info.value)


def test_harmless_query_strings_are_kept() -> None:
    url = "https://my-resource.openai.azure.com/openai/deployments/judge?api-version=2024-10-21"
    assert JudgeSettings.from_metadata({"judge_base_url": url}).base_url == url


def test_transport_logs_are_redacted(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                     items: Callable[..., list[JudgeItem]], caplog: pytest.LogCaptureFixture) -> None:
    try:
        import httpx2 as transport  # the openai SDK's transport in this environment
    except ImportError:  # pragma: no cover - older openai releases use httpx
        import httpx as transport  # type: ignore[no-redef]
    caplog.set_level(logging.DEBUG)
    judge_all(items(1), fault_settings(cache="none"))  # a judge run installs the redaction
    port = fault_server.base_url.split(":")[2].split("/")[0]
    transport.get(f"http://judge:{PASSWORD}@127.0.0.1:{port}/v1/models?token={PASSWORD}")
    requests = [r for r in caplog.records if "HTTP Request" in r.getMessage()]
    assert any("/v1/models" in r.getMessage() for r in requests)  # the transport did log the request
    assert PASSWORD not in caplog.text


def _authorizations(server: FaultServer) -> list[str | None]:
    return [r.authorization for r in server.chat_requests()]


def test_openai_key_is_not_sent_to_another_endpoint(fault_server: FaultServer,
                                                    fault_settings: Callable[..., JudgeSettings],
                                                    items: Callable[..., list[JudgeItem]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    judge_all(items(1), fault_settings(cache="none"))  # judge_base_url given as a setting
    monkeypatch.setenv("UTA_JUDGE_BASE_URL", fault_server.base_url)
    judge_all(items(1), JudgeSettings.from_metadata({"judge_model": MODEL, "judge_cache": "none"}))
    assert len(_authorizations(fault_server)) == 2
    assert all(SECRET not in (auth or "") for auth in _authorizations(fault_server))


def test_openai_key_is_sent_when_named_or_paired_through_openai_base_url(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    judge_all(items(1), fault_settings(cache="none", api_key_env="OPENAI_API_KEY"))
    monkeypatch.setenv("UTA_JUDGE_API_KEY_ENV", "OPENAI_API_KEY")
    judge_all(items(1), fault_settings(cache="none"))
    monkeypatch.delenv("UTA_JUDGE_API_KEY_ENV")
    monkeypatch.setenv("OPENAI_BASE_URL", fault_server.base_url)
    judge_all(items(1), JudgeSettings.from_metadata({"judge_model": MODEL, "judge_cache": "none"}))
    assert _authorizations(fault_server) == [f"Bearer {SECRET}"] * 3


def test_openai_api_is_recognised_by_host_not_by_substring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert JudgeSettings.from_metadata({}).api_key() == SECRET
    for url in ("https://api.openai.com.evil.example/v1", "https://evil.example/api.openai.com/v1"):
        settings = JudgeSettings.from_metadata({"judge_base_url": url})
        assert not settings.is_openai_api and settings.api_key() is None


def test_preflight_explains_a_withheld_key(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    fault_server.config.reject_all_with_401 = True
    with pytest.raises(JudgeConfigError, match="judge_api_key_env") as info:
        preflight(fault_settings())
    assert "not sent" in str(info.value) and SECRET not in str(info.value)


@pytest.mark.parametrize(
    ("url", "warned"),
    [
        ("http://judge.internal.example:8000/v1", True),
        ("http://10.0.0.7:8000/v1", True),
        ("https://judge.internal.example/v1", False),
        ("http://127.0.0.1:8000/v1", False),
        ("http://localhost:8000/v1", False),
        ("http://[::1]:8000/v1", False),
    ],
)
def test_key_over_plain_http_to_a_remote_host_warns(url: str, warned: bool, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", SECRET)
    settings = JudgeSettings.from_metadata({"judge_base_url": url, "judge_api_key_env": "MY_JUDGE_KEY"})
    caplog.set_level(logging.WARNING)
    JudgeClient(settings)
    messages = [r.getMessage() for r in caplog.records if "plain http" in r.getMessage()]
    assert bool(messages) == warned
    assert SECRET not in caplog.text
