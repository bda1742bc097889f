"""Keep secrets out of every value that leaves the process: the judge's reasons, errors and
logs, ``summary.json``, the gate's outputs, the report and re-judged results.

Which names hold a secret is one rule, :mod:`.secret_names`; here it is applied by
structure:

- **Strings** (:func:`redact`): the API key in use, anything shaped like one (``sk-...``),
  ``Bearer``/``Basic`` credentials, every URL's userinfo (all of ``scheme://...@`` up to the
  last ``@`` before a space or quote, whatever the password holds), every URL query value
  whose name is not on the allow-list (``api-version``, ``version``, ``revision``), and the
  value of every ``name=value`` or ``name: value`` whose name is secret (``pw=...``,
  ``passphrase: ...``, ``X-Auth: ...``, ``"api-key": "..."``).
- **Data** (:func:`redact_value`, dicts and lists at any depth): the whole value of a key
  whose name is secret (``None`` and booleans are kept: they hold no secret; the keys of the
  dicts keyed by task name, :data:`TASK_KEYED`, are task names, not read as names); every header
  value under a ``headers`` key (``headers``, ``judge_headers``, ``default_headers``...)
  except the harmless headers (``Content-Type``, ``Accept``, ``User-Agent``...); every other
  string through :func:`redact`.
- **lm-eval's** ``model_args`` (:func:`redact_model_args`): by allow-list, the value of every
  key not on :data:`HARMLESS_MODEL_ARGS` (``pretrained``, ``dtype``, ``max_model_len``,
  ``base_url``...) is masked, whatever its spelling, quoting, commas, headers or dicts; the
  harmless ones keep their value through :func:`redact`. A piece that is not ``key=value``
  is masked.
- **Log lines** (:func:`install_log_redaction`): every record of every logger, the HTTP
  stack's (``httpx``, ``httpcore``, ``openai``, ``aiohttp``...) included, is rewritten with
  :func:`redact` when it is made, and so is the API key in use.
"""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from typing import Any, TextIO

from .secret_names import is_harmless_header, is_harmless_query_key, is_headers_name, is_secret_name

MASK = "[REDACTED]"
# OpenAI-style keys, also the partly masked forms some endpoints echo back ("sk-ab****cd").
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}")
_BEARER = re.compile(r"(?i)\b((?:bearer|basic)\s+)(?!\[REDACTED\])[^\s'\",}]+")
# scheme://user:pass@host or scheme://token@host: up to the LAST @ before a space or quote, so
# that a password holding @, / or : is masked whole (a URL with an @ later in its path or
# query loses a little more than its userinfo, never less).
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s'\"<>`]*@")
# a URL's query and fragment: every value whose name is not on the allow-list is masked
_URL_QUERY = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s'\"<>`?#]*)([?#][^\s'\"<>`]*)")
_QUERY_PAIR = re.compile(r"([?#&;])([^=&;#]*)=([^&;#]*)")
# name=value and name: value (names quoted or not): the value of a secret name is masked. An
# unquoted value after "=" runs to a space or separator; after ":" (a header, YAML) to the line's end.
_ASSIGN = re.compile(
    r"""(?<![A-Za-z0-9_.%\-])(['"]?)([A-Za-z_][A-Za-z0-9_.%\-]*)\1(\s*=\s*|\s*:\s*)"""
    r"""("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|(?<==)\s*[^\s,;&'"}\])]+|[^\n\r,;&'"}\]]+)"""
)
# model_args keys whose values are kept: what names the model and how it is run, never a
# credential. Every other key's value is masked.
HARMLESS_MODEL_ARGS = frozenset({
    "pretrained", "model", "peft", "delta", "path", "engine", "revision", "tokenizer", "tokenizer_mode",
    "dtype", "device", "batch_size", "max_batch_size", "max_length", "max_model_len", "max_gen_toks",
    "tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size", "gpu_memory_utilization",
    "trust_remote_code", "enforce_eager", "seed", "add_bos_token", "parallelize", "quantization",
    "num_concurrent", "max_retries", "timeout", "tokenized_requests", "think_end_token", "enable_thinking",
    "base_url", "swap_space", "max_num_seqs", "kv_cache_dtype",
})
# the top-level pieces of a model_args string: commas outside quotes and brackets split them
_PIECE = re.compile(r"""(?:'[^']*'?|"[^"]*"?|\{[^}]*\}?|\[[^\]]*\]?|\([^)]*\)?|[^,'"{\[(])+""")
_KEY_VALUE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*=(.*)$", re.DOTALL)
# lm-eval's and the summary's dicts keyed by task or group name: a key there names a task
# (``uta:password_strength``), never a setting, so it is not read as a secret name
TASK_KEYED = frozenset({
    "results", "groups", "configs", "versions", "n-shot", "higher_is_better", "n-samples", "task_hashes",
    "group_subtasks", "tasks", "samples_files", "sources",
})
_HEADER_LINE = re.compile(r"(?m)^(\s*)([^\s:]+)(\s*:\s*)(.*)$")


def redact(text: str, secret: str | None) -> str:
    """``text`` with every secret of the string rules (see the module) replaced by ``[REDACTED]``.

    Args:
        text: Any message about to be logged, raised or stored.
        secret: The API key in use (may be None).

    Returns:
        The text with secrets replaced by ``[REDACTED]``.
    """
    if secret and len(secret) >= 4:
        text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda match: match.group(1) + MASK, text)
    text = _URL_USERINFO.sub(lambda match: match.group(1) + MASK + "@", text)
    text = _URL_QUERY.sub(lambda match: match.group(1) + _QUERY_PAIR.sub(_query_pair, match.group(2)), text)
    text = _assignments(text)
    return _KEY_LIKE.sub(MASK, text)


def _query_pair(match: re.Match[str]) -> str:
    lead, name, value = match.groups()
    keep = is_harmless_query_key(name) or not value or value == MASK
    return f"{lead}{name}={value if keep else MASK}"


def _assignments(text: str) -> str:
    """``text`` with the value of every ``name=value``/``name: value`` of a secret name masked
    (a name that is not secret is passed over, so ``note: pw=...`` still finds ``pw``)."""
    out: list[str] = []
    position = 0
    while (match := _ASSIGN.search(text, position)) is not None:
        quote, name, operator, value = match.groups()
        stripped = value.strip()
        if not is_secret_name(name) or not stripped or MASK[:-1] in stripped:
            out.append(text[position:match.end(2)])
            position = match.end(2)
            continue
        out.append(text[position:match.start()])
        mask = f"{stripped[0]}{MASK}{stripped[0]}" if stripped[0] in "'\"" else MASK
        out.append(f"{quote}{name}{quote}{operator}{mask}")
        position = match.end()
    out.append(text[position:])
    return "".join(out)


def redact_value(value: Any, secret: str | None = None) -> Any:
    """A copy of JSON-like data with every credential masked (see the module's rules).

    Args:
        value: dicts, lists, strings, scalars (e.g. lm-eval's ``config`` and ``configs``).
        secret: an exact key to mask as well.

    Returns:
        The same structure: ``model_args`` through :func:`redact_model_args`, headers through
        :func:`redact_headers`, the whole value of a secret name masked, strings through
        :func:`redact`.
    """
    if isinstance(value, str):
        return redact(value, secret)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            name = str(key)
            if name == "model_args":
                out[key] = redact_model_args(item, secret)
            elif name in TASK_KEYED and isinstance(item, dict):
                out[key] = {task: redact_value(entry, secret) for task, entry in item.items()}
            elif is_headers_name(name):
                out[key] = redact_headers(item, secret)
            elif is_secret_name(name):
                out[key] = _masked(item)
            else:
                out[key] = redact_value(item, secret)
        return out
    if isinstance(value, (list, tuple)):
        return [redact_value(item, secret) for item in value]
    return value


def _masked(value: Any) -> Any:
    """The value under a secret name: None and booleans as they are, anything else masked."""
    return value if value is None or isinstance(value, bool) else MASK


def redact_headers(value: Any, secret: str | None = None) -> Any:
    """HTTP headers (a dict, ``[name, value]`` pairs, JSON text or ``Name: value`` lines) with
    the value of every header not on the harmless list masked.

    Args:
        value: the headers as a user wrote them.
        secret: an exact key to mask as well.
    """
    if isinstance(value, dict):
        return {name: (redact_value(item, secret) if is_harmless_header(str(name)) else _masked(item))
                for name, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [[pair[0], redact_value(pair[1], secret) if is_harmless_header(str(pair[0])) else _masked(pair[1])]
                if isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str)
                else redact_headers(pair, secret) if isinstance(pair, dict) else _masked(pair) for pair in value]
    if not isinstance(value, str):
        return _masked(value)
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if isinstance(parsed, (dict, list)):
        return json.dumps(redact_headers(parsed, secret))
    if not _HEADER_LINE.search(value):
        return MASK if value.strip() else value
    return _HEADER_LINE.sub(lambda match: match.group(0) if is_harmless_header(match.group(2))
                            else f"{match.group(1)}{match.group(2)}{match.group(3)}{MASK}", value)


def redact_model_args(value: Any, secret: str | None = None) -> Any:
    """lm-eval's ``model_args`` (a ``key=value,...`` string or a dict) with the value of every
    key not on :data:`HARMLESS_MODEL_ARGS` masked, and URL credentials masked in the rest.

    Args:
        value: the ``model_args`` as lm-eval recorded them.
        secret: an exact key to mask as well.

    Returns:
        The same shape: a string stays a string, a dict a dict; anything else is masked.
    """
    if value is None:
        return None
    if isinstance(value, dict):
        return {key: (_harmless(value_, secret) if str(key).strip().lower() in HARMLESS_MODEL_ARGS
                      else (value_ if value_ is None else MASK))
                for key, value_ in value.items()}
    if not isinstance(value, str):
        return MASK
    pieces: list[str] = []
    for piece in _PIECE.findall(value):
        found = _KEY_VALUE.match(piece)
        if found and found.group(1).lower() in HARMLESS_MODEL_ARGS:
            pieces.append(f"{found.group(1)}={redact(found.group(2), secret)}")
        elif found:
            pieces.append(f"{found.group(1)}={MASK}")
        elif not pieces or not pieces[-1].endswith(MASK):  # a piece that is not key=value: masked once
            pieces.append(MASK)
    return ",".join(pieces)


def _harmless(value: Any, secret: str | None) -> Any:
    """The value of a harmless model_args key: strings lose URL credentials, containers are masked."""
    if isinstance(value, str):
        return redact(value, secret)
    return value if value is None or isinstance(value, (bool, int, float)) else MASK


def redact_config(results: dict[str, Any]) -> dict[str, Any]:
    """lm-eval's aggregated results with their top-level ``config`` (``model_args`` and the
    rest) redacted (:func:`redact_value`); the rest is left to the tasks' own configs.

    Args:
        results: what lm-eval's ``EvaluationTracker`` is about to write.
    """
    if not isinstance(results, dict) or not isinstance(results.get("config"), dict):
        return results
    return {**results, "config": redact_value(results["config"])}


class RedactingStream(io.TextIOBase):
    """A text stream that writes whole lines through :func:`redact` to another one (lm-eval's
    command prints its ``--model_args`` on stdout).

    Args:
        target: the stream to write to (``sys.stdout``).
    """

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self._target = target
        self._pending = ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:  # a child process writes there directly
        return self._target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._target.encoding

    def write(self, text: str) -> int:
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        if lines:
            self._target.write("".join(redact(line, None) + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._target.write(redact(self._pending, None))
            self._pending = ""
        self._target.flush()


class _Redaction:
    """The process's log redaction: every record is rewritten with :func:`redact` when it is
    made (a log record factory wrapping the one in place), the known API keys included."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._lock = threading.Lock()
        self._installed = False

    def add_secret(self, secret: str | None) -> None:
        if secret and len(secret) >= 4:
            with self._lock:
                self._secrets.add(secret)

    def install(self) -> None:
        with self._lock:
            if self._installed:
                return
            self._installed = True
            make = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make(*args, **kwargs)
            self.clean(record)
            return record

        logging.setLogRecordFactory(factory)

    def clean(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is logging's business, not ours
            return
        cleaned = redact(message, None)
        with self._lock:
            secrets = tuple(self._secrets)
        for secret in secrets:
            cleaned = cleaned.replace(secret, MASK)
        if cleaned != message:
            record.msg, record.args = cleaned, None


_REDACTION = _Redaction()


def install_log_redaction(secret: str | None = None) -> None:
    """Redact every log record of the process from now on (idempotent): HTTP clients print
    full URLs, lm-eval prints its model arguments.

    Args:
        secret: An API key of the run, masked wherever it appears.
    """
    _REDACTION.add_secret(secret)
    _REDACTION.install()
