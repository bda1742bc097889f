"""Batch input files: one chat-completion request per line, split at the API's limits.

A line is ``{"custom_id": KEY, "method": "POST", "url": "/v1/chat/completions",
"body": {...}}`` where ``KEY`` is the verdict cache key of the item
(:func:`uta_tasks.judge.cache.cache_key`) and ``body`` holds exactly the parameters a
live call would send (:meth:`uta_tasks.judge.params.RequestParams.build`). The OpenAI
Batch API takes at most 50,000 requests and 200 MB per input file; both limits are
parameters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from uta_tasks.judge.prompt import estimated_tokens

ENDPOINT: Final = "/v1/chat/completions"
MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1000 * 1000  # 200 MB, counted in decimal megabytes to stay on the safe side


@dataclass(frozen=True)
class RequestLine:
    """One encoded request.

    Attributes:
        key: Cache key, sent as ``custom_id``.
        data: The JSON line, newline included, UTF-8.
        prompt_chars: Characters of the prompt messages (for the token estimate).
    """

    key: str
    data: bytes
    prompt_chars: int


@dataclass
class Chunk:
    """The requests of one batch input file.

    Attributes:
        lines: Its requests, in order.
        n_bytes: Size of the file.
    """

    lines: list[RequestLine] = field(default_factory=list)
    n_bytes: int = 0

    @property
    def keys(self) -> list[str]:
        """The ``custom_id`` of every request."""
        return [line.key for line in self.lines]

    def content(self) -> bytes:
        """The file content (JSONL)."""
        return b"".join(line.data for line in self.lines)


def encode_request(key: str, body: dict) -> RequestLine:
    """Encode one request line.

    Args:
        key: Its cache key (``custom_id``).
        body: The chat-completion parameters.
    """
    line = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}
    data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    chars = sum(len(message.get("content", "")) for message in body.get("messages", []))
    return RequestLine(key=key, data=data, prompt_chars=chars)


def iter_chunks(
    lines: Iterable[RequestLine], max_requests: int = MAX_REQUESTS, max_bytes: int = MAX_BYTES
) -> Iterator[Chunk]:
    """Pack lines, in order, into files at the limits (lazily: one file in memory at a time).

    Args:
        lines: The encoded requests.
        max_requests: Requests per file at most.
        max_bytes: Bytes per file at most.

    Raises:
        ValueError: A limit is not positive, or one request alone exceeds ``max_bytes``.
    """
    if max_requests < 1 or max_bytes < 1:
        raise ValueError(f"batch limits must be positive, got max_requests={max_requests}, max_bytes={max_bytes}")
    current = Chunk()
    for line in lines:
        size = len(line.data)
        if size > max_bytes:
            raise ValueError(
                f"request {line.key[:12]} is {size} bytes, over the batch file limit of {max_bytes} bytes: "
                "judge it with live calls (uta_tasks.judge.judge_all) instead"
            )
        if current.lines and (len(current.lines) >= max_requests or current.n_bytes + size > max_bytes):
            yield current
            current = Chunk()
        current.lines.append(line)
        current.n_bytes += size
    if current.lines:
        yield current


def estimate_tokens(requests: int, prompt_chars: int, max_tokens: int) -> dict[str, int]:
    """A rough token estimate of a submission (printed before polling).

    Args:
        requests: Requests submitted.
        prompt_chars: Characters of their prompts.
        max_tokens: ``judge_max_tokens``, the completion limit per request.

    Returns:
        ``requests``, ``input_tokens_estimate`` (prompt characters / 4) and
        ``output_tokens_max`` (requests x ``max_tokens``).
    """
    return {
        "requests": requests,
        "input_tokens_estimate": estimated_tokens(prompt_chars),
        "output_tokens_max": requests * max_tokens,
    }
