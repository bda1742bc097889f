"""Turn a finished batch's output and error files into verdicts and failure reasons.

Each line of the output file is ``{"custom_id", "response": {"status_code", "body"},
"error"}``; the error file has the same shape, with ``error.code`` such as
``batch_expired`` or ``batch_cancelled`` for requests that never ran. A reply with
status 200 is validated by :func:`uta_tasks.judge.parse.parse_reply`, exactly like a
live reply. A request is *failed* (with its reason) when its reply is not a valid
verdict, when it has an error entry, or when it appears in neither file; failed
requests go to live calls (or stay unjudged), so batch mode caches judged verdicts only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from uta_tasks.judge.errors import ReplyError
from uta_tasks.judge.parse import parse_reply
from uta_tasks.judge.prompt import PromptTemplate
from uta_tasks.judge.records import Verdict
from uta_tasks.judge.settings import JudgeSettings

TERMINAL = ("completed", "expired", "failed", "cancelled")
_EXCERPT = 300


@dataclass
class Collected:
    """What one batch produced for the requests we know.

    Attributes:
        verdicts: Cache key -> judged verdict.
        failed: Cache key -> why there is no verdict.
        input_tokens: Prompt tokens reported in the output.
        output_tokens: Completion tokens reported in the output.
    """

    verdicts: dict[str, Verdict] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0


def collect(
    batch: Any,
    output: bytes | None,
    errors: bytes | None,
    keys: list[str],
    prompts: dict[str, list[dict[str, str]]],
    settings: JudgeSettings,
    template: PromptTemplate,
) -> Collected:
    """Read a terminal batch's files.

    Args:
        batch: The batch object (``id``, ``status``, ``errors``).
        output: Content of its output file, if it has one.
        errors: Content of its error file, if it has one.
        keys: The requests of the batch whose prompt is known (others are left alone).
        prompts: Cache key -> the judge prompt of that request.
        settings: Judge settings (model name for the verdict).
        template: The prompt template (version and digest for the verdict).
    """
    wanted = set(keys)
    result = Collected()
    for line in _lines(output):
        key = line.get("custom_id")
        if key not in wanted or key in result.verdicts:
            continue
        reason = _entry_error(line)
        if reason is not None:
            result.failed[key] = f"batch {batch.id}: {reason}"
            continue
        body = line["response"]["body"]
        usage = body.get("usage") or {}
        result.input_tokens += int(usage.get("prompt_tokens") or 0)
        result.output_tokens += int(usage.get("completion_tokens") or 0)
        outcome = _verdict(body, prompts[key], settings, template)
        if isinstance(outcome, Verdict):
            result.verdicts[key] = outcome
            result.failed.pop(key, None)
        else:
            result.failed[key] = f"batch {batch.id}: {outcome}"
    for line in _lines(errors):
        key = line.get("custom_id")
        if key in wanted and key not in result.verdicts:
            result.failed[key] = f"batch {batch.id}: {_entry_error(line) or 'listed in the error file'}"
    missing = _missing_reason(batch)
    for key in keys:
        if key not in result.verdicts and key not in result.failed:
            result.failed[key] = missing
    return result


def _verdict(
    body: dict[str, Any], prompt: list[dict[str, str]], settings: JudgeSettings, template: PromptTemplate
) -> Verdict | str:
    try:
        choice = body["choices"][0]
        message = choice.get("message") or {}
        content = message.get("content")
        parsed = parse_reply(content, finish_reason=choice.get("finish_reason"), refusal=message.get("refusal"))
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        return f"unreadable reply body ({type(exc).__name__}: {exc})"
    except ReplyError as exc:
        return f"invalid reply: {exc}"
    return Verdict.judged_as(
        parsed.label, parsed.genuine, rationale=parsed.rationale, prompt=prompt, judge_model=settings.model,
        prompt_version=template.version, prompt_sha=template.sha, raw_reply=content, attempts=1,
        reply_model=body.get("model"), system_fingerprint=body.get("system_fingerprint"),
    )


def _entry_error(line: dict[str, Any]) -> str | None:
    error = line.get("error")
    if error:
        if isinstance(error, dict):
            return _excerpt(f"{error.get('code') or 'error'}: {error.get('message') or ''}".strip())
        return _excerpt(str(error))
    response = line.get("response")
    if not isinstance(response, dict) or not isinstance(response.get("body"), dict):
        return "entry has no response body"
    status = response.get("status_code")
    if status != 200:
        inner = response["body"].get("error")
        message = inner.get("message") if isinstance(inner, dict) else None
        return _excerpt(f"HTTP {status}: {message or json.dumps(response['body'])}")
    return None


def _missing_reason(batch: Any) -> str:
    status = getattr(batch, "status", None)
    if status == "failed":
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        detail = "; ".join(f"{getattr(e, 'code', '')}: {getattr(e, 'message', '')}" for e in errors[:3]) or "no detail"
        return _excerpt(f"batch {batch.id} failed: {detail}")
    if status == "expired":
        return f"batch {batch.id} expired before this request ran"
    if status == "cancelled":
        return f"batch {batch.id} was cancelled before this request ran"
    return f"batch {batch.id} ({status}) returned nothing for this request"


def _lines(content: bytes | None) -> Iterator[dict[str, Any]]:
    if not content:
        return
    for raw in content.decode("utf-8", errors="replace").splitlines():
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # an unreadable line names no request; its request is then reported missing
        if isinstance(line, dict):
            yield line


def _excerpt(text: str) -> str:
    return text if len(text) <= _EXCERPT else text[:_EXCERPT] + "..."
