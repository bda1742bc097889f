"""The Files and Batches endpoints, through the real ``openai`` client.

Reads (retrieve, list, file content) and uploads use the SDK's bounded retries
(``judge_max_retries``). ``batches.create`` is sent once (``max_retries=0``): a retried
create could start a second batch for the same file. Every batch carries its chunk id in
``metadata["uta_chunk"]``, so :meth:`BatchAPI.find` can recover one whose id was never
recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import openai

from uta_tasks.judge.errors import JudgeConfigError
from uta_tasks.judge.redact import redact
from uta_tasks.judge.settings import JudgeSettings

from .requests import ENDPOINT

log = logging.getLogger(__name__)

COMPLETION_WINDOW: Literal["24h"] = "24h"
METADATA_KEY = "uta_chunk"
UPLOAD_TIMEOUT_S = 900.0
_LIST_PAGE = 100
_LIST_MAX_ITEMS = 2000
T = TypeVar("T")


class BatchAPIError(RuntimeError):
    """A Files or Batches call failed; the message names the call, the endpoint and the fix."""


class BatchAPI:
    """The batch calls of one run.

    Args:
        settings: Judge settings (endpoint, key variable, timeout, retries).
    """

    def __init__(self, settings: JudgeSettings) -> None:
        self._base_url = settings.base_url
        self._upload_timeout = max(UPLOAD_TIMEOUT_S, settings.timeout)
        self._secret = settings.api_key()
        if settings.is_openai_api and not self._secret:
            raise JudgeConfigError(
                f"judge batch: ${settings.api_key_env} is not set; the Batch API of {settings.base_url} needs a key. "
                f"Export {settings.api_key_env}=<your key>."
            )
        self._client = openai.OpenAI(
            api_key=self._secret or "no-key",
            base_url=settings.base_url,
            max_retries=settings.max_retries,
            timeout=settings.timeout,
        )

    def close(self) -> None:
        """Release the HTTP connections."""
        self._client.close()

    def upload(self, name: str, content: bytes) -> str:
        """Upload a batch input file.

        Args:
            name: File name shown by the API.
            content: The JSONL bytes.

        Returns:
            The file id.
        """
        client = self._client.with_options(timeout=self._upload_timeout)
        uploaded = self._call(
            f"upload {name}", lambda: client.files.create(file=(name, content, "application/jsonl"), purpose="batch")
        )
        return str(uploaded.id)

    def create(self, file_id: str, chunk_id: str) -> Any:
        """Create a batch over an uploaded file (sent once, never retried).

        Args:
            file_id: The input file.
            chunk_id: Stored in the batch's metadata.
        """
        client = self._client.with_options(max_retries=0)
        return self._call(
            f"create a batch for file {file_id}",
            lambda: client.batches.create(
                input_file_id=file_id,
                endpoint=ENDPOINT,
                completion_window=COMPLETION_WINDOW,
                metadata={METADATA_KEY: chunk_id},
            ),
        )

    def retrieve(self, batch_id: str) -> Any:
        """The batch object.

        Args:
            batch_id: Its id.
        """
        return self._call(f"retrieve batch {batch_id}", lambda: self._client.batches.retrieve(batch_id))

    def find(self, chunk_id: str, file_id: str) -> Any | None:
        """A batch created for this chunk whose id was never recorded, if any.

        Args:
            chunk_id: The chunk id in the batch metadata.
            file_id: Its input file (matched too, for endpoints that drop metadata).
        """

        def scan() -> Any | None:
            seen = 0
            for batch in self._client.batches.list(limit=_LIST_PAGE):
                metadata = batch.metadata or {}
                if metadata.get(METADATA_KEY) == chunk_id or batch.input_file_id == file_id:
                    return batch
                seen += 1
                if seen >= _LIST_MAX_ITEMS:
                    break
            return None

        return self._call(f"list batches to find chunk {chunk_id}", scan)

    def content(self, file_id: str) -> bytes:
        """Download an output or error file.

        Args:
            file_id: The file.
        """
        return self._call(f"download file {file_id}", lambda: self._client.files.content(file_id).read())

    def _call(self, what: str, call: Callable[[], T]) -> T:
        try:
            return call()
        except openai.OpenAIError as exc:
            message = redact(f"{type(exc).__name__}: {exc}", self._secret)
            if isinstance(exc, openai.APIStatusError) and exc.status_code in (404, 405, 501):
                raise BatchAPIError(
                    f"judge batch: {self._base_url} does not offer the Files/Batches API (could not {what}: "
                    f"{message}). Batch mode needs the OpenAI API; judge this endpoint with live calls instead."
                ) from None
            raise BatchAPIError(
                f"judge batch: could not {what} at {self._base_url} ({message}). Nothing was lost: fix the "
                "cause and rerun the same command to resume."
            ) from None
