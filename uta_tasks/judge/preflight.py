"""Check, in seconds and before any generation, that judging can work.

Checks in order:

1. the prompt templates load;
2. the cache file opens and is writable (a probe row is written and deleted); a cache
   on a network file system (NFS, where WAL does not work across hosts) is warned about;
3. a key is present when the endpoint is OpenAI's API;
4. ``GET /models`` answers an OpenAI-compatible model list (a JSON object whose
   ``data`` entries carry string ids) naming the model, else ``GET /models/{id}``
   finds it; servers that do not list models (HTTP 404 and the like) skip this step;
5. one tiny chat completion in the real ``response_format`` (strict ``json_schema``,
   :data:`PROBE_TOKENS` tokens, rejected parameters adjusted as in a run) answers with a
   chat completion. Quota (HTTP 429 ``insufficient_quota``), permission (403), a model
   that rejects ``json_schema``, a missing model and an answer that is not a chat
   completion (an HTML page, ``{}``) all stop here. A plain rate limit passes with a
   warning: the run retries it.

Each request is bounded by ``min(judge_timeout, 10)`` seconds and is not retried, except
for a judge server started beside lm_eval (``judge_start_wait`` above 0). Such a server is
ready when it answers the test completion, and everything up to that answer shares the one
deadline of ``judge_start_wait`` seconds: a refused connection, an unanswered model
listing and a 503 (still loading) are asked again every :data:`START_POLL_SECONDS`, and the
first completion, which a cold server on a busy machine can take minutes to answer, is
waited for until that deadline, with no shorter timeout of its own. Each wait is logged
with what it waits for. :func:`start_preflight` runs checks 1-3 at once and, for such a
server, checks 4-5 in a thread beside generation (the model answers while the judge server
starts: 7 s of the quickstart's idle 2-core run were spent waiting before the first answer);
its :meth:`~PendingPreflight.wait` raises their failure before the first verdict is asked.
Every failure raises :class:`JudgeConfigError` naming the setting and the fix, with
secrets redacted.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import openai

from .cache import NETWORK_FILESYSTEMS, VerdictCache, filesystem_type
from .errors import JudgeConfigError, UnreadableReply
from .params import RequestParams
from .prompt import load_template
from .redact import install_log_redaction, redact
from .reply import error_field, error_message, error_object, read_completion
from .settings import JudgeSettings
from .urls import warn_key_transport

log = logging.getLogger(__name__)

PREFLIGHT_TIMEOUT = 10.0
START_POLL_SECONDS = 1.0
PROBE_TOKENS = 16
_SHOWN_MODELS = 10
_MAX_ADJUSTMENTS = 4
_EXCERPT = 80
_API_ROOT_HINT = "point judge_base_url at the API root, which usually ends in /v1 (e.g. http://127.0.0.1:8080/v1)"
_PROBE_MESSAGES = [
    {"role": "system", "content": "You check that an API works. Answer with the JSON the schema asks for."},
    {"role": "user", "content": "Reply with a short rationale, the label 'other' and genuine false."},
]


def preflight(settings: JudgeSettings) -> None:
    """Raise :class:`JudgeConfigError` if judging with ``settings`` cannot work.

    Args:
        settings: The judge settings; ``judge=none`` passes without checks.
    """
    if not settings.enabled:
        return
    _server_checks(settings, _local_checks(settings))


@dataclass(frozen=True)
class PendingPreflight:
    """Checks of :func:`start_preflight` that may still run beside generation.

    Attributes:
        server: the endpoint's checks in their thread, or None when they are done (or not needed).
    """

    server: Future[None] | None = None

    def wait(self) -> None:
        """Wait for the endpoint's checks; raise their :class:`JudgeConfigError`."""
        if self.server is not None:
            self.server.result()


def start_preflight(settings: JudgeSettings) -> PendingPreflight:
    """:func:`preflight`, except that for a judge server started beside lm_eval
    (``judge_start_wait`` above 0) the wait for it runs in a thread beside generation.

    Args:
        settings: The judge settings; ``judge=none`` passes without checks.

    Raises:
        JudgeConfigError: checks 1-3 (all checks without ``judge_start_wait``) failed.
    """
    if not settings.enabled:
        return PendingPreflight()
    key = _local_checks(settings)
    if settings.start_wait <= 0:
        _server_checks(settings, key)
        return PendingPreflight()
    checked: Future[None] = Future()
    checked.set_running_or_notify_cancel()

    def check() -> None:
        try:
            _server_checks(settings, key)
        except BaseException as exc:  # handed to wait()
            checked.set_exception(exc)
        else:
            checked.set_result(None)

    # A daemon: a run that fails while generating exits without waiting out judge_start_wait.
    threading.Thread(target=check, name="uta-judge-preflight", daemon=True).start()
    return PendingPreflight(checked)


def _local_checks(settings: JudgeSettings) -> str | None:
    """Checks 1-3; the API key."""
    key = settings.api_key()
    install_log_redaction(key)
    load_template(settings.prompt)
    if settings.cache:
        with VerdictCache(settings.cache, busy_timeout=PREFLIGHT_TIMEOUT) as cache:
            cache.check_writable()
        fs_type = filesystem_type(settings.cache)
        if fs_type in NETWORK_FILESYSTEMS:
            log.warning(
                "judge_cache=%r is on a %s file system, where sqlite's WAL locking does not work across "
                "hosts: two machines sharing it can corrupt it. Point judge_cache to a local disk.",
                settings.cache, fs_type,
            )
    if settings.is_openai_api and not key:
        raise JudgeConfigError(
            f"judge: ${settings.api_key_env} is not set and judge_base_url is the OpenAI API "
            f"({settings.base_url}). Export {settings.api_key_env}=<your key>, or point judge_base_url "
            "(or OPENAI_BASE_URL) to an OpenAI-compatible server, or pass judge=none to skip judging."
        )
    warn_key_transport(settings.base_url, settings.api_key_env, key)
    return key


def _server_checks(settings: JudgeSettings, key: str | None) -> None:
    """Checks 4-5: the endpoint lists the model and answers a completion in the schema."""
    client = openai.OpenAI(
        api_key=key or "no-key",
        base_url=settings.base_url,
        max_retries=0,
        timeout=min(settings.timeout, PREFLIGHT_TIMEOUT),
    )
    wait = _StartWait(settings)
    try:
        _check_model_listed(client, settings, key, wait)
        _probe_completion(client, settings, key, wait)
    finally:
        client.close()


class _StartWait:
    """The one deadline of ``judge_start_wait`` for a judge server that is still starting."""

    def __init__(self, settings: JudgeSettings) -> None:
        self.seconds = settings.start_wait
        self.started = time.monotonic()
        self.told: set[str] = set()

    @property
    def active(self) -> bool:
        """Whether a starting server is waited for at all."""
        return self.seconds > 0

    def waited(self) -> float:
        """Seconds since the check began."""
        return time.monotonic() - self.started

    def left(self) -> float:
        """Seconds left before the deadline."""
        return self.seconds - self.waited()

    def request_timeout(self, normal: float) -> float:
        """A request's timeout: ``normal``, or all the time left while a starting server is waited for."""
        return max(normal, self.left()) if self.active else normal

    def again(self, what: str, base_url: str) -> bool:
        """Whether to ask again (sleeping one poll first), saying once what is waited for."""
        if not self.active or self.waited() + START_POLL_SECONDS > self.seconds:
            return False
        if what not in self.told:
            log.info("judge endpoint %s %s; trying again every %g s for up to %g s in all (judge_start_wait)",
                     base_url, what, START_POLL_SECONDS, self.seconds)
            self.told.add(what)
        time.sleep(START_POLL_SECONDS)
        return True


def _list_models(client: openai.OpenAI, settings: JudgeSettings, key: str | None, wait: _StartWait) -> str:
    """The body of ``GET /models``; an error status is raised as such.

    While a starting server (``judge_start_wait``) refuses connections, leaves the listing
    unanswered or answers 503, it is asked again every :data:`START_POLL_SECONDS` until the
    deadline; any other answer ends the wait.
    """
    while True:
        try:
            text = client.models.with_raw_response.list().text
            break
        except openai.APIStatusError as exc:
            if exc.status_code == 503 and wait.again("is still loading (HTTP 503)", settings.base_url):
                continue
            if wait.told:
                log.info("judge endpoint %s answers after %.0f s", settings.base_url, wait.waited())
            raise
        except openai.APITimeoutError as exc:
            if wait.again(f"did not answer GET /models within {PREFLIGHT_TIMEOUT:g} s", settings.base_url):
                continue
            raise _connection_error(settings, exc, key, waited=wait.waited() if wait.active else None) from None
        except openai.APIConnectionError as exc:
            if wait.again("does not accept connections yet", settings.base_url):
                continue
            raise _connection_error(settings, exc, key, waited=wait.waited() if wait.active else None) from None
    if wait.told:
        log.info("judge endpoint %s answers after %.0f s", settings.base_url, wait.waited())
    return text


def _check_model_listed(client: openai.OpenAI, settings: JudgeSettings, key: str | None,
                        wait: _StartWait) -> None:
    try:
        text = _list_models(client, settings, key, wait)
    except openai.APIStatusError as exc:
        if exc.status_code in (401, 403):
            raise _key_error(settings, exc, key) from None
        log.info("judge endpoint does not list models (HTTP %s); the test completion decides", exc.status_code)
        return
    listed = _model_ids(settings, text)
    if not listed or settings.model in listed:
        return
    try:
        found = client.models.with_raw_response.retrieve(settings.model).text
        if _json_object(found).get("id") == settings.model:
            return
    except openai.APIStatusError:
        pass
    except openai.APIConnectionError as exc:
        raise _connection_error(settings, exc, key) from None
    shown = ", ".join(sorted(listed)[:_SHOWN_MODELS])
    raise JudgeConfigError(
        f"judge_model={settings.model!r} is not served by {settings.base_url}; it serves: {shown}. "
        "Set judge_model to one of these (or UTA_JUDGE_MODEL)."
    )


def _model_ids(settings: JudgeSettings, text: str) -> list[str]:
    """The ids of a ``GET /models`` answer; anything else is a clear error."""
    data = _json_object(text)
    what = None
    if not data:
        what = _describe_non_json(text) if not text.strip().startswith("{") else "a JSON object with no 'data' list"
    elif not isinstance(data.get("data"), list):
        what = "a JSON object with no 'data' list"
    elif not all(isinstance(entry, dict) and isinstance(entry.get("id"), str) for entry in data["data"]):
        what = "model entries without an id"
    if what is not None:
        raise JudgeConfigError(
            f"judge_base_url={settings.base_url!r} answered GET /models with {what}, not an "
            f"OpenAI-compatible model list: {_API_ROOT_HINT}"
        )
    return [entry["id"] for entry in data["data"]]


def _probe_completion(client: openai.OpenAI, settings: JudgeSettings, key: str | None, wait: _StartWait) -> None:
    params = RequestParams(settings)
    adjustments = 0
    while adjustments <= _MAX_ADJUSTMENTS:
        request = params.build(_PROBE_MESSAGES, max_tokens=PROBE_TOKENS)
        timeout = wait.request_timeout(min(settings.timeout, PREFLIGHT_TIMEOUT))
        if wait.active and "completion" not in wait.told:
            log.info("waiting up to %.0f s for the first completion of judge %s (a cold server's first answer; "
                     "judge_start_wait=%g)", timeout, settings.base_url, settings.start_wait)
            wait.told.add("completion")
        try:
            text = client.with_options(timeout=timeout).chat.completions.with_raw_response.create(**request).text
        except openai.APIStatusError as exc:
            error = error_object(exc.body)
            if exc.status_code == 400 and params.adjust(error_field(error, "param"), error_message(error, exc.message),
                                                        request):
                adjustments += 1
                continue
            if exc.status_code == 503 and wait.again("is still loading (HTTP 503)", settings.base_url):
                continue
            _raise_for_status(settings, exc, key)
            return
        except openai.APIConnectionError as exc:
            if not isinstance(exc, openai.APITimeoutError) and wait.again("does not accept connections yet",
                                                                            settings.base_url):
                continue
            raise _connection_error(settings, exc, key, timeout=timeout,
                                    waited=wait.waited() if wait.active else None) from None
        if wait.active:
            log.info("judge %s answered a completion after %.0f s", settings.base_url, wait.waited())
        try:
            read_completion(text)
        except UnreadableReply as exc:
            raise JudgeConfigError(
                f"judge: {settings.base_url} answered a test completion for judge_model={settings.model!r} "
                f"with something that is not a chat completion ({redact(str(exc), key)}): {_API_ROOT_HINT}"
            ) from None
        return
    raise JudgeConfigError(
        f"judge: {settings.base_url} kept rejecting request parameters for judge_model={settings.model!r} "
        f"({params.adjustments}). Check judge_model and judge_base_url."
    )


def _raise_for_status(settings: JudgeSettings, exc: openai.APIStatusError, key: str | None) -> None:
    """Turn a failed test completion into a clear error (a plain rate limit only warns)."""
    error = error_object(exc.body)
    status, message = exc.status_code, redact(error_message(error, exc.message), key)
    code = error_field(error, "code") or error_field(error, "type")
    where = f"judge: {settings.base_url} answered a test completion for judge_model={settings.model!r} with"
    if status == 401:
        raise _key_error(settings, exc, key) from None
    if status == 429 and code == "insufficient_quota":
        raise JudgeConfigError(
            f"{where} HTTP 429 insufficient_quota ({message}): the account behind ${settings.api_key_env} "
            "has no quota left. Add credit, use another key, or pass judge=none to skip judging."
        ) from None
    if status == 429:
        log.warning("judge endpoint is rate limiting already (HTTP 429: %s); the run retries with backoff", message)
        return
    if status == 403:
        raise JudgeConfigError(
            f"{where} HTTP 403 ({message}): the key in ${settings.api_key_env} has no permission for this "
            "model or project. Use a key with access, or another judge_model."
        ) from None
    if status == 404:
        raise JudgeConfigError(
            f"judge_model={settings.model!r}: {settings.base_url} answered 404 ({message}). "
            "Set judge_model to a model the endpoint serves."
        ) from None
    if status == 400 and ("json_schema" in message or "response_format" in message):
        raise JudgeConfigError(
            f"{where} HTTP 400 ({message}): the model does not accept response_format json_schema "
            "(strict structured output), which the judge needs. Use a model and server that support it "
            "(OpenAI gpt-4o or later, vLLM, llama-server), or another judge_model."
        ) from None
    raise JudgeConfigError(
        f"{where} HTTP {status} ({message}). Check judge_base_url and judge_model, or the server's health."
    ) from None


def _json_object(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _describe_non_json(text: str) -> str:
    flat = " ".join(text.split())
    excerpt = flat if len(flat) <= _EXCERPT else flat[:_EXCERPT] + "..."
    kind = "an HTML page" if flat.startswith("<") else "text that is not JSON"
    return f"{kind} ({excerpt!r})"


def _key_error(settings: JudgeSettings, exc: openai.APIStatusError, key: str | None) -> JudgeConfigError:
    source = f"${settings.api_key_env}" if key else "the request without a key"
    note = settings.withheld_key_note()
    return JudgeConfigError(
        f"judge: {settings.base_url} refused {source} (HTTP {exc.status_code}: "
        f"{redact(error_message(error_object(exc.body), exc.message), key)}). "
        + (f"{note}." if note else
           f"Set a valid key in {settings.api_key_env}, or set judge_api_key_env to the variable that holds it.")
    )


def _connection_error(settings: JudgeSettings, exc: Exception, key: str | None,
                      waited: float | None = None, timeout: float | None = None) -> JudgeConfigError:
    what = "timed out" if isinstance(exc, openai.APITimeoutError) else "cannot be reached"
    if waited is None:
        within = f"within {timeout or min(settings.timeout, PREFLIGHT_TIMEOUT):g}s"
        wait_hint = ("; a server that is still starting can be waited for with judge_start_wait=<seconds>"
                     if settings.start_wait <= 0 and what == "cannot be reached" else "")
    else:
        within = f"after trying for {waited:.0f}s (judge_start_wait={settings.start_wait:g})"
        wait_hint = "; raise judge_start_wait if the server needs longer to start"
    return JudgeConfigError(
        f"judge_base_url={settings.base_url!r} {what} {within} "
        f"({redact(type(exc).__name__ + ': ' + str(exc), key)}). Start the server or fix judge_base_url "
        f"(or OPENAI_BASE_URL){wait_hint}; pass judge=none to skip judging."
    )
