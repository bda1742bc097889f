"""Check, in seconds and before any generation, that judging can work.

Checks in order: the prompt templates load; the cache file opens; a key is present
when the endpoint is OpenAI's API; the endpoint answers; the model exists. Model
existence is read from ``GET /models`` (then ``GET /models/{id}`` when the model is not
in the listing); servers that do not list models get one tiny chat completion instead.
Each request is bounded by ``min(judge_timeout, 10)`` seconds and is not retried.
Every failure raises :class:`JudgeConfigError` naming the setting and the fix, with
the API key redacted.
"""

from __future__ import annotations

import logging

import openai

from .cache import VerdictCache
from .errors import JudgeConfigError
from .prompt import load_template
from .redact import redact
from .settings import JudgeSettings

log = logging.getLogger(__name__)

PREFLIGHT_TIMEOUT = 10.0
_SHOWN_MODELS = 10


def preflight(settings: JudgeSettings) -> None:
    """Raise :class:`JudgeConfigError` if judging with ``settings`` cannot work.

    Args:
        settings: The judge settings; ``judge=none`` passes without checks.
    """
    if not settings.enabled:
        return
    load_template(settings.prompt)
    if settings.cache:
        VerdictCache(settings.cache).close()
    key = settings.api_key()
    if settings.is_openai_api and not key:
        raise JudgeConfigError(
            f"judge: ${settings.api_key_env} is not set and judge_base_url is the OpenAI API "
            f"({settings.base_url}). Export {settings.api_key_env}=<your key>, or point judge_base_url "
            "(or OPENAI_BASE_URL) to an OpenAI-compatible server, or pass judge=none to skip judging."
        )
    client = openai.OpenAI(
        api_key=key or "no-key",
        base_url=settings.base_url,
        max_retries=0,
        timeout=min(settings.timeout, PREFLIGHT_TIMEOUT),
    )
    try:
        _check_model(client, settings, key)
    finally:
        client.close()


def _check_model(client: openai.OpenAI, settings: JudgeSettings, key: str | None) -> None:
    try:
        listed = [model.id for model in client.models.list().data]
    except openai.APIStatusError as exc:
        if exc.status_code in (401, 403):
            raise _key_error(settings, exc, key) from None
        log.info("judge endpoint does not list models (HTTP %s); probing with one completion", exc.status_code)
        _probe_completion(client, settings, key)
        return
    except openai.APIConnectionError as exc:
        raise _connection_error(settings, exc, key) from None
    if not listed:
        _probe_completion(client, settings, key)
        return
    if settings.model in listed:
        return
    try:
        client.models.retrieve(settings.model)
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


def _probe_completion(client: openai.OpenAI, settings: JudgeSettings, key: str | None) -> None:
    messages = [{"role": "user", "content": "Reply with OK."}]
    last: openai.APIStatusError | None = None
    for token_param in ("max_completion_tokens", "max_tokens"):
        try:
            client.chat.completions.create(model=settings.model, messages=messages, **{token_param: 8})
            return
        except openai.APIStatusError as exc:
            last = exc
            if exc.status_code in (401, 403):
                raise _key_error(settings, exc, key) from None
            if exc.status_code == 404:
                raise JudgeConfigError(
                    f"judge_model={settings.model!r}: {settings.base_url} answered 404 "
                    f"({redact(exc.message, key)}). Set judge_model to a model the endpoint serves."
                ) from None
            if exc.status_code != 400 or token_param not in str(exc.message):
                break
        except openai.APIConnectionError as exc:
            raise _connection_error(settings, exc, key) from None
    assert last is not None
    raise JudgeConfigError(
        f"judge: {settings.base_url} rejected a test completion for judge_model={settings.model!r} "
        f"(HTTP {last.status_code}: {redact(str(last.message), key)}). Check judge_base_url and judge_model."
    )


def _key_error(settings: JudgeSettings, exc: openai.APIStatusError, key: str | None) -> JudgeConfigError:
    source = f"${settings.api_key_env}" if key else f"no key (${settings.api_key_env} is unset)"
    return JudgeConfigError(
        f"judge: {settings.base_url} refused {source} (HTTP {exc.status_code}: "
        f"{redact(str(exc.message), key)}). Set a valid key in {settings.api_key_env}, or set "
        "judge_api_key_env to the variable that holds it."
    )


def _connection_error(settings: JudgeSettings, exc: Exception, key: str | None) -> JudgeConfigError:
    what = "timed out" if isinstance(exc, openai.APITimeoutError) else "cannot be reached"
    return JudgeConfigError(
        f"judge_base_url={settings.base_url!r} {what} within {min(settings.timeout, PREFLIGHT_TIMEOUT):g}s "
        f"({redact(type(exc).__name__ + ': ' + str(exc), key)}). Start the server or fix judge_base_url "
        "(or OPENAI_BASE_URL); pass judge=none to skip judging."
    )
