"""Item 8: preflight is not fooled by answers that are not an API, and sends one tiny
completion in the real response format, so quota, permission and json_schema problems
stop the run before generation."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import pytest
from fault_server import FaultServer

from uta_tasks.judge import JudgeConfigError, JudgeSettings, preflight

HTML = b"<!doctype html><html><body>It works!</body></html>"


@pytest.mark.parametrize(
    ("body", "content_type", "what"),
    [
        (HTML, "text/html", "HTML"),
        (b"{}", "application/json", "no 'data' list"),
        (json.dumps({"object": "list", "data": [{"object": "model"}]}).encode(), "application/json", "without an id"),
        (json.dumps({"object": "list", "data": "fault-judge"}).encode(), "application/json", "no 'data' list"),
    ],
)
def test_model_listing_that_is_not_an_api_is_a_clear_error(body: bytes, content_type: str, what: str,
                                                           fault_server: FaultServer,
                                                           fault_settings: Callable[..., JudgeSettings]) -> None:
    fault_server.config.models_body = body
    fault_server.config.models_content_type = content_type
    with pytest.raises(JudgeConfigError, match="judge_base_url") as info:
        preflight(fault_settings())
    assert what in str(info.value) and "/v1" in str(info.value)


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("quota", "insufficient_quota"),
        ("403", "HTTP 403"),
        ("schema_rejected", "json_schema"),
        ("html", "not a chat completion"),
        ("empty_object", "not a chat completion"),
        ("no_message", "not a chat completion"),
        ("500", "HTTP 500"),
    ],
)
def test_test_completion_failures_stop_before_generation(fault: str, expected: str, fault_server: FaultServer,
                                                         fault_settings: Callable[..., JudgeSettings]) -> None:
    fault_server.config.chat_fault = fault
    with pytest.raises(JudgeConfigError, match="judge") as info:
        preflight(fault_settings())
    assert expected in str(info.value)
    assert len(fault_server.chat_requests()) == 1  # one probe, not retried


def test_probe_is_one_tiny_completion_in_the_real_format(fault_server: FaultServer,
                                                         fault_settings: Callable[..., JudgeSettings]) -> None:
    preflight(fault_settings())
    chats = fault_server.chat_requests()
    assert len(chats) == 1
    body = chats[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["max_completion_tokens"] <= 32 and body["model"] == "fault-judge"


def test_probe_adjusts_rejected_parameters_like_a_run(fault_server: FaultServer,
                                                      fault_settings: Callable[..., JudgeSettings]) -> None:
    fault_server.config.reject_param = "temperature"
    preflight(fault_settings())
    bodies = [r.body for r in fault_server.chat_requests()]
    assert len(bodies) == 2 and "temperature" in bodies[0] and "temperature" not in bodies[1]


def test_a_rate_limited_probe_passes_with_a_warning(fault_server: FaultServer,
                                                    fault_settings: Callable[..., JudgeSettings],
                                                    caplog: pytest.LogCaptureFixture) -> None:
    fault_server.config.chat_fault = "429"
    caplog.set_level(logging.WARNING)
    preflight(fault_settings())  # a rate limit is retried during the run; it proves the endpoint works
    assert any("rate" in r.getMessage() for r in caplog.records)
