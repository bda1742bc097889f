"""Redaction by structure (issue 44, item 4): every spelling of a secret name, at any depth,
in dicts, lists, ``name=value`` and ``name: value`` strings, URL queries and headers, is masked;
the names the package and lm-eval write stay readable; the judge URL check refuses exactly
the query values redaction would mask; log lines of every logger are redacted."""

from __future__ import annotations

import dataclasses
import json
import logging
import random

import pytest

from uta_tasks.judge.errors import JudgeConfigError
from uta_tasks.judge.redact import HARMLESS_MODEL_ARGS, MASK, install_log_redaction, redact, redact_value
from uta_tasks.judge.secret_names import is_secret_name
from uta_tasks.judge.urls import check_url

SECRET = "Zq7SECRETvalue"
# the leaks of issue 44, and the usual names
_NAMES = ("X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "pass", "jwt", "pw", "passphrase",
          "password", "X-Auth", "X-Custom-Auth", "api_key", "access_token", "client_secret", "token", "auth",
          "credentials", "session", "cookie", "signature", "sig", "hf_token", "private_key", "authorization")


def _spellings(name: str) -> set[str]:
    """``name`` in upper, lower and title case, with ``-``, ``_``, ``.`` or no separator, in
    camelCase, and URL-encoded."""
    words = name.replace("-", "_").split("_")
    out = set()
    for joined in ("-".join(words), "_".join(words), ".".join(words), "".join(words),
                   words[0].lower() + "".join(w.title() for w in words[1:])):
        out |= {joined, joined.upper(), joined.lower(), joined.title()}
    out |= {spelling.replace("-", "%2D").replace("_", "%5F") for spelling in list(out)}
    return out


def _cases() -> list[str]:
    names = sorted({spelling for name in _NAMES for spelling in _spellings(name)})
    random.Random(44).shuffle(names)
    return names


@pytest.mark.parametrize("name", _cases()[:: max(1, len(_cases()) // 150)] + list(_NAMES))
def test_every_spelling_of_a_secret_name_is_masked_everywhere(name: str) -> None:
    assert is_secret_name(name), name
    value = SECRET
    shapes = [
        {name: value},
        {"metadata": {"outer": [{"inner": {name: value}}, [1, {name: [value, {"x": value}]}]]}},
        {"metadata": {"note": f"see {name}={value}, then more"}},
        {"metadata": {"note": f"line one\n{name}: {value}\nline three"}},
        {"metadata": {"note": json.dumps({name: value, "model": "m"})}},
        {"metadata": {"note": str({name: value, "model": "m"})}},
        {"config": {"model_args": f"pretrained=m,base_url=https://h.example/v1?{name}={value}&api-version=2024"}},
        {"config": {"base": f"https://h.example/v1?a=1&{name}={value}#x"}},
        {"judge_headers": {name: value, "Content-Type": "application/json"}},
        {"configs": {"t": {"metadata": {"default_headers": json.dumps({name: value})}}}},
        {"headers": f"Accept: text/plain\n{name}: {value}"},
    ]
    for shape in shapes:
        cleaned = redact_value(shape)
        assert SECRET not in json.dumps(cleaned), (shape, cleaned)
        assert MASK in json.dumps(cleaned), shape
    assert SECRET not in redact(f"GET https://h.example/v1/models?{name}={value} 200", None)


def test_the_leaks_of_issue_44_are_masked_and_harmless_values_kept() -> None:
    results = {
        "config": {"model": "local-completions", "model_args": (
            f"pretrained=org/m,base_url=https://s3.example/v1?X-Amz-Signature={SECRET}1&X-Amz-Credential={SECRET}2"
            f"&pass={SECRET}3&jwt={SECRET}4&api-version=2024-10-21")},
        "configs": {"uta_gsm8k": {"task": "uta_gsm8k", "doc_to_text": "Question: {{question}}\nAnswer:",
                                  "metadata": {"judge_headers": {"X-Custom-Auth": f"{SECRET}5", "User-Agent": "ua/1"},
                                               "note": f"pw={SECRET}6, passphrase: {SECRET}7",
                                               "contact": f"X-Auth: {SECRET}8",
                                               "deep": {"list": [{"passphrase": f"{SECRET}9"}]},
                                               "judge_api_key_env": "MY_JUDGE_KEY", "judge_max_tokens": 64,
                                               "pass2_context": "rendered", "uta_benchmark": "gsm8k"}}},
        "results": {"uta_gsm8k": {"genuine_pass_at_k,none": 0.5, "pass@1,none": 0.25}},
        "tokenizer_pad_token": ["<|endoftext|>", "2"],
    }
    cleaned = redact_value(results)
    assert SECRET not in json.dumps(cleaned)
    assert "https://s3.example/v1?" in cleaned["config"]["model_args"] and "api-version=2024-10-21" in \
        cleaned["config"]["model_args"]
    meta = cleaned["configs"]["uta_gsm8k"]["metadata"]
    assert meta["judge_headers"]["User-Agent"] == "ua/1"
    assert (meta["judge_api_key_env"], meta["judge_max_tokens"], meta["pass2_context"], meta["uta_benchmark"]) == \
        ("MY_JUDGE_KEY", 64, "rendered", "gsm8k")
    assert cleaned["configs"]["uta_gsm8k"]["doc_to_text"] == "Question: {{question}}\nAnswer:"
    assert cleaned["results"] == results["results"] and cleaned["tokenizer_pad_token"] == ["<|endoftext|>", "2"]


def test_the_names_the_package_and_lm_eval_write_are_not_secret() -> None:
    try:
        from lm_eval.config.task import TaskConfig  # lm-eval 0.5
    except ImportError:
        from lm_eval.api.task import TaskConfig  # lm-eval 0.4.13

    from uta_tasks.judge.settings import SETTING_KEYS
    from uta_tasks.metrics.table import PROBE_METRICS
    from uta_tasks.probe import task_settings
    from uta_tasks.schema import output
    from uta_tasks.wrap.settings import KEYS as WRAP_KEYS

    names = {*task_settings.KEYS, *SETTING_KEYS, *WRAP_KEYS, *HARMLESS_MODEL_ARGS, *(m.name for m in PROBE_METRICS),
             *(f.name for f in dataclasses.fields(TaskConfig)),
             *(v for k, v in vars(output).items() if k.isupper() and isinstance(v, str)),
             # lm-eval's results file
             "tokenizer_pad_token", "tokenizer_eos_token", "tokenizer_bos_token", "eot_token_id", "task_hashes",
             "chat_template_sha", "system_instruction_sha", "model_name_sanitized", "pretty_env_info",
             "max_gen_toks", "until", "do_sample", "temperature", "pass@1", "genuine_pass_at_k"}
    assert [name for name in sorted(names) if is_secret_name(name)] == []


@pytest.mark.parametrize("name", ["key", "api-key", "jwt", "JWT", "pass", "X-Amz-Signature", "X-Amz-Credential",
                                  "x%2Damz%2Dsignature", "sig", "token", "session", "X-Amz-Date", "anything"])
def test_the_judge_url_refuses_every_query_value_redaction_would_mask(name: str) -> None:
    url = f"https://judge.example/v1?{name}={SECRET}"
    assert SECRET not in redact(url, None)
    with pytest.raises(JudgeConfigError, match="judge_base_url") as info:
        check_url("judge_base_url", url)
    assert SECRET not in str(info.value)
    kept = "https://judge.example/openai/deployments/j?api-version=2024-10-21"
    assert check_url("judge_base_url", kept) == kept and redact(kept, None) == kept


@pytest.mark.parametrize("logger", ["httpx", "httpcore.http11", "openai._base_client", "aiohttp.client",
                                    "urllib3.connectionpool", "lm-eval", "uta_tasks.some.module"])
def test_log_lines_of_every_logger_are_redacted(logger: str, caplog: pytest.LogCaptureFixture) -> None:
    install_log_redaction("sk-the-key-in-use-123")
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger(logger)
    log.info('HTTP Request: POST %s "HTTP/1.1 200 OK"', f"http://127.0.0.1:1/v1/chat?jwt={SECRET}&pass={SECRET}")
    log.warning("settings: %s", {"passphrase": SECRET, "nested": {"X-Custom-Auth": SECRET}})
    log.debug("sent with sk-the-key-in-use-123 and pw=%s", SECRET)
    assert len(caplog.records) == 3
    assert SECRET not in caplog.text and "sk-the-key-in-use-123" not in caplog.text
    assert "POST http://127.0.0.1:1/v1/chat?jwt=" in caplog.text


def test_task_names_are_not_read_as_secret_names() -> None:
    results = {"results": {"uta:password_strength": {"acc,none": 0.5}},
               "configs": {"uta:password_strength": {"task": "uta:password_strength",
                                                     "metadata": {"password": SECRET, "version": 1}}},
               "versions": {"uta:password_strength": 1}}
    cleaned = redact_value(results)
    assert cleaned["results"] == results["results"] and cleaned["versions"] == results["versions"]
    assert cleaned["configs"]["uta:password_strength"]["metadata"] == {"password": MASK, "version": 1}
