"""Batch mode against the local fake of the Files and Batches endpoints."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest
from fake_batch_api import FakeBatchAPI
from fault_server import expected_verdict
from sample_items import make_items

from uta_tasks.apps.batch import BatchAPIError, BatchOptions, judge_batch
from uta_tasks.apps.batch.lock import exclusive
from uta_tasks.judge import JudgeConfigError, JudgeSettings, judge_all
from uta_tasks.judge.params import RequestParams
from uta_tasks.judge.prompt import load_template

FAST = {"poll_interval": 0.01, "max_wait": 20.0}


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def _check_verdicts(items, verdicts) -> None:
    for item, verdict in zip(items, verdicts, strict=True):
        assert verdict.judged, verdict.reason
        expected = expected_verdict(item.user_turn)
        assert (verdict.label, verdict.genuine, verdict.rationale) == (
            expected["label"], expected["genuine"], expected["rationale"]
        )


def test_submits_only_uncached_items_split_into_files_and_fills_the_live_cache(
    fake_api: FakeBatchAPI, batch_settings: Callable[..., JudgeSettings]
) -> None:
    settings = batch_settings()
    items = make_items(7)
    assert judge_all(items[:1], settings).calls == 1  # one item already judged live
    stream = io.StringIO()
    run = judge_batch(items + items[2:4], settings, BatchOptions(max_requests=3, progress=stream, **FAST))

    assert fake_api.uploads == 2 and fake_api.create_calls == 2
    assert run.submitted == 6 and run.collected == 6 and run.cache_hits == 1 and run.pending == 0
    assert run.new_batch_ids == run.batch_ids == ["batch_0001", "batch_0002"]
    _check_verdicts(items + items[2:4], run.verdicts)
    assert [v.cached for v in run.verdicts[:3]] == [True, False, False]
    # Every request line is exactly what a live call would send, keyed by the cache key.
    template = load_template(settings.prompt)
    by_turn = {item.user_turn: item for item in items}
    sent = [line for data in fake_api.uploaded_inputs() for line in _lines(data)]
    assert [len(_lines(data)) for data in fake_api.uploaded_inputs()] == [3, 3]
    assert sorted(fake_api.submitted_ids) == sorted({line["custom_id"] for line in sent})
    for line in sent:
        prompt = line["body"]["messages"][1]["content"]
        (item,) = [i for turn, i in by_turn.items() if f"\n{turn}\n<<<END CANDIDATE" in prompt]
        assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
        assert line["body"] == RequestParams(settings).build(template.render(item))
    # Progress and the token estimate went to the stream.
    text = stream.getvalue()
    assert "batch_0001, batch_0002" in text and "input tokens" in text and "requests 6/6 done" in text
    assert run.estimate["requests"] == 6 and run.estimate["output_tokens_max"] == 6 * 256

    calls_before = fake_api.chat_calls
    rejudge = judge_all(items, settings)  # the live judge now finds everything cached
    assert rejudge.calls == 0 and rejudge.cache_hits == 7 and fake_api.chat_calls == calls_before
    again = judge_batch(items, settings, BatchOptions(**FAST, quiet=True))
    assert again.submitted == 0 and again.collected == 0 and fake_api.create_calls == 2
    _check_verdicts(items, again.verdicts)


def test_files_are_split_at_the_byte_limit(fake_api: FakeBatchAPI, batch_settings) -> None:
    settings = batch_settings()
    items = make_items(6)
    line_sizes = []
    template = load_template(settings.prompt)
    for item in items:
        body = RequestParams(settings).build(template.render(item))
        line_sizes.append(len(json.dumps({"custom_id": "x" * 64, "method": "POST", "url": "/v1/chat/completions",
                                          "body": body}, ensure_ascii=False, separators=(",", ":")).encode()) + 1)
    limit = max(line_sizes) * 2 + 10
    run = judge_batch(items, settings, BatchOptions(max_bytes=limit, quiet=True, **FAST))
    sizes = [len(data) for data in fake_api.uploaded_inputs()]
    assert len(sizes) == 3 and all(size <= limit for size in sizes)
    assert run.unjudged == 0 and len(set(fake_api.submitted_ids)) == len(fake_api.submitted_ids) == 6
    calls = fake_api.chat_calls
    big = make_items(1, prefix="big")  # one request over the limit: never submitted, judged live
    single = judge_batch(big, settings, BatchOptions(max_bytes=100, quiet=True, **FAST))
    assert single.submitted == 0 and single.fallback.calls == 1 == fake_api.chat_calls - calls
    _check_verdicts(big, single.verdicts)
    options = BatchOptions(max_bytes=100, fallback=False, quiet=True)
    alone = judge_batch(make_items(1, prefix="bigger"), settings, options)
    assert "exceeds the batch file limit of 100" in alone.verdicts[0].reason and len(fake_api.batches) == 3


@pytest.mark.parametrize("outcome, from_batch", [("expire", 2), ("cancel", 2), ("fail", 0)])
def test_expired_cancelled_and_failed_requests_fall_back_to_live_calls(
    fake_api: FakeBatchAPI, batch_settings, outcome: str, from_batch: int
) -> None:
    fake_api.config.outcomes, fake_api.config.stop_after, fake_api.config.step = [outcome], 2, 1
    items = make_items(5)
    run = judge_batch(items, batch_settings(), BatchOptions(quiet=True, **FAST))
    assert run.collected == from_batch
    assert fake_api.chat_calls == 5 - from_batch == run.fallback.calls
    _check_verdicts(items, run.verdicts)
    assert len(fake_api.submitted_ids) == 5 and fake_api.create_calls == 1


def test_without_fallback_failed_requests_stay_unjudged_with_a_reason_and_are_never_resubmitted(
    fake_api: FakeBatchAPI, batch_settings
) -> None:
    fake_api.config.outcomes, fake_api.config.stop_after = ["expire"], 3
    items, settings = make_items(5), batch_settings()
    run = judge_batch(items, settings, BatchOptions(fallback=False, quiet=True, **FAST))
    assert fake_api.chat_calls == 0 and run.fallback is None
    assert [v.judged for v in run.verdicts] == [True, True, True, False, False]
    for verdict in run.verdicts[3:]:
        assert "batch_0001" in verdict.reason and "batch_expired" in verdict.reason
        assert "fallback off" in verdict.reason and verdict.label is None and verdict.genuine is None
    rerun = judge_batch(items, settings, BatchOptions(quiet=True, **FAST))
    assert fake_api.create_calls == 1 and rerun.submitted == 0 and fake_api.chat_calls == 2
    _check_verdicts(items, rerun.verdicts)


def test_invalid_replies_and_request_errors_take_the_fallback(fake_api: FakeBatchAPI, batch_settings) -> None:
    items = make_items(4)
    fake_api.config.reply_faults = {items[0].user_turn: "schema", items[1].user_turn: "400"}
    run = judge_batch(items, batch_settings(), BatchOptions(quiet=True, **FAST))
    assert run.collected == 2 and fake_api.chat_calls == 2
    _check_verdicts(items, run.verdicts)


def test_no_wait_returns_pending_items_and_a_rerun_collects_the_same_batch(
    fake_api: FakeBatchAPI, batch_settings
) -> None:
    fake_api.config.step = 1
    items, settings = make_items(4), batch_settings()
    first = judge_batch(items, settings, BatchOptions(wait=False, quiet=True, **FAST))
    assert first.pending == 4 and first.unjudged == 4 and first.batch_ids == ["batch_0001"]
    assert all("still waiting in batch batch_0001" in v.reason for v in first.verdicts)
    second = judge_batch(items, settings, BatchOptions(quiet=True, **FAST))
    assert second.submitted == 0 and second.collected == 4 and fake_api.create_calls == 1
    _check_verdicts(items, second.verdicts)


def test_a_failed_create_is_retried_on_rerun_with_the_same_upload(fake_api: FakeBatchAPI, batch_settings) -> None:
    fake_api.config.fail_create_at = 1
    items, settings = make_items(3), batch_settings()
    with pytest.raises(BatchAPIError, match="create a batch for file file-in-0001.*rerun"):
        judge_batch(items, settings, BatchOptions(quiet=True, **FAST))
    run = judge_batch(items, settings, BatchOptions(quiet=True, **FAST))
    assert fake_api.uploads == 1 and fake_api.create_calls == 2 and len(fake_api.batches) == 1
    _check_verdicts(items, run.verdicts)


def test_settings_that_cannot_batch_are_refused(fake_api: FakeBatchAPI, batch_settings, tmp_path) -> None:
    with pytest.raises(JudgeConfigError, match="judge_cache=none"):
        judge_batch(make_items(1), batch_settings(judge_cache="none"), BatchOptions(quiet=True))
    with pytest.raises(JudgeConfigError, match="judge=none"):
        judge_batch(make_items(1), batch_settings(judge="none"), BatchOptions(quiet=True))
    settings = batch_settings()
    with exclusive(settings.cache), pytest.raises(JudgeConfigError, match="in use by another batch run"):
        judge_batch(make_items(1), settings, BatchOptions(quiet=True))
    assert fake_api.uploads == 0


def test_open_batches_of_another_endpoint_are_not_mixed_up(fake_api: FakeBatchAPI, batch_settings) -> None:
    fake_api.config.step = 1
    settings = batch_settings()
    judge_batch(make_items(3), settings, BatchOptions(wait=False, quiet=True, **FAST))
    other = batch_settings(judge_base_url=fake_api.base_url.replace("127.0.0.1", "localhost"))
    with pytest.raises(JudgeConfigError, match="holds open batches of"):
        judge_batch(make_items(3), other, BatchOptions(quiet=True, **FAST))


def test_the_api_key_lands_nowhere(fake_api: FakeBatchAPI, batch_settings, monkeypatch, tmp_path) -> None:
    secret = "sk-uta-batch-test-0123456789-DO-NOT-LEAK"
    monkeypatch.setenv("UTA_TEST_KEY", secret)
    fake_api.config.outcomes, fake_api.config.stop_after = ["expire"], 1
    settings = batch_settings(judge_api_key_env="UTA_TEST_KEY")
    stream = io.StringIO()
    run = judge_batch(make_items(3), settings, BatchOptions(progress=stream, **FAST))
    assert run.unjudged == 0
    texts = [stream.getvalue(), json.dumps([v.to_dict() for v in run.verdicts])]
    texts += [p.read_bytes().decode("latin-1") for p in tmp_path.iterdir() if p.is_file()]
    assert not any(secret in text for text in texts)


def test_an_endpoint_without_the_batch_api_is_named(fake_api: FakeBatchAPI, batch_settings) -> None:
    fake_api.config.batch_api = False
    with pytest.raises(BatchAPIError, match="does not offer the Files/Batches API.*live calls"):
        judge_batch(make_items(2), batch_settings(), BatchOptions(quiet=True, **FAST))
