"""The small pieces the attack suite relies on: credential redaction of lm-eval's
model_args, atomic writes, display escaping, and reading samples with broken bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from uta_tasks.judge.redact import HARMLESS_MODEL_ARGS, MASK, redact, redact_model_args, redact_value
from uta_tasks.runs import atomic
from uta_tasks.runs.jsonio import read_jsonl, write_json
from uta_tasks.templates.escape import code_span, display_text, markdown_text


@pytest.mark.parametrize("args,secrets", [
    ("pretrained=m,base_url=https://bob:hunter2@api.example.com/v1", ["bob", "hunter2"]),
    ("model=gpt,api_key=sk-proj-abcdefgh,num_concurrent=4", ["sk-proj-abcdefgh"]),
    ("model=x,token=hf_abcdef,trust_remote_code=True", ["hf_abcdef"]),
    ("header={'Authorization': 'Bearer tok-123', 'api-key': 'AZ-456'}", ["tok-123", "AZ-456"]),
    ('header={"Authorization": "Basic dXNlcjpwYXNz"}', ["dXNlcjpwYXNz"]),
    ("base_url=http://h/v1?api_key=q-999&x=1", ["q-999"]),
])
def test_model_args_strings_lose_their_credentials(args: str, secrets: list[str]) -> None:
    cleaned = redact_model_args(args)
    assert MASK in cleaned
    for secret in secrets:
        assert secret not in cleaned


def test_model_args_dicts_lose_their_credentials_and_keep_the_rest() -> None:
    config = {"model_args": {"pretrained": "org/m", "api_key": "abc", "headers": {"Authorization": "Bearer q"},
                             "base_url": "http://u:p@h/v1", "max_length": 2048, "password": None},
              "limit": 3}
    assert redact_value(config) == {
        "model_args": {"pretrained": "org/m", "api_key": MASK, "headers": MASK,
                       "base_url": f"http://{MASK}@h/v1", "max_length": 2048, "password": None},
        "limit": 3}
    plain = "pretrained=HuggingFaceTB/SmolLM2-135M-Instruct,dtype=float32,max_length=2048,tokenizer=x"
    assert redact_value(plain) == plain


SECRET = "S3CR3T"
# spellings of a credential's key: names no list of names would hold, as well as the usual ones
_KEYS = ("key", "auth", "pass", "pw", "api_key", "API-KEY", "apiKey", "X-Api-Key", "password", "credentials",
         "token", "hf_token", "secret", "passphrase", "session", "cookie", "bearer", "signature", "x", "extra.k")
# shapes of its value: plain, quoted with commas and spaces, headers, nested dicts, URLs
_VALUES = (
    "{s}", "abc,{s}", "'a b {s}'", '"a,b {s}"', "'a\\'b,{s}", "{{'Authorization': 'Token a {s}'}}",
    "{{'pw': '{s}', 'n': {{'deep': ['{s}']}}}}", "[{s}, 1]", "({s})", "Bearer {s}", "Basic {s}",
    "https://user:{s}@host/v1", "https://u:p@ss/{s}@host/v1", "sk-{s}abcdef", "{s}=={s}", " {s} ",
)
_URLS = ("https://bob:{s}@api.example.com/v1", "https://bob:p@{s}@h/v1", "http://{s}@h:8000/v1",
         "https://u:a/b?c#d@{s}@h/v1", "https://u:{s}:{s}@h/v1?api_key={s}")


def _spellings() -> list[tuple[str, str]]:
    """(key, value) pairs: each key with each value shape, in a seeded order."""
    import random

    rng = random.Random(3)
    pairs = [(key, value.format(s=SECRET)) for key in _KEYS for value in _VALUES]
    rng.shuffle(pairs)
    return pairs


def test_no_spelling_of_a_credential_in_model_args_survives() -> None:
    pairs = _spellings()
    for index in range(0, len(pairs), 3):
        chunk = pairs[index:index + 3]
        text = ",".join(["pretrained=org/m", *(f"{k}={v}" for k, v in chunk), "dtype=float32"])
        for args in (text, text.replace(",", " , "), {k: v for k, v in chunk} | {"pretrained": "org/m"}):
            cleaned = redact_value({"config": {"model_args": args}})["config"]["model_args"]
            assert SECRET not in str(cleaned), (args, cleaned)
            assert "org/m" in str(cleaned), (args, cleaned)
    for url in _URLS:
        for args in (f"pretrained=m,base_url={url.format(s=SECRET)}", {"base_url": url.format(s=SECRET)}):
            cleaned = redact_model_args(args)
            assert SECRET not in str(cleaned) and "h" in str(cleaned), (args, cleaned)
        assert SECRET not in redact(f"calling {url.format(s=SECRET)} now", None)


def test_harmless_model_args_are_kept_as_written() -> None:
    plain = ("pretrained=HuggingFaceTB/SmolLM2-135M-Instruct,dtype=float32,max_model_len=2048,"
             "tensor_parallel_size=1,base_url=http://127.0.0.1:8000/v1/completions,enable_thinking=False")
    assert redact_model_args(plain) == plain
    assert redact_model_args({"pretrained": "m", "max_length": 2048, "trust_remote_code": True}) == \
        {"pretrained": "m", "max_length": 2048, "trust_remote_code": True}
    assert {"pretrained", "dtype", "tensor_parallel_size", "max_model_len", "base_url"} <= HARMLESS_MODEL_ARGS


def test_atomic_writes_replace_whole_files_and_leave_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old and good")
    os.chmod(target, 0o640)
    atomic.write_text(target, "new \ud800 text")
    assert target.read_bytes() == b"new \\ud800 text" and (target.stat().st_mode & 0o777) == 0o640
    assert (atomic.write_text(tmp_path / "fresh.txt", "x").stat().st_mode & 0o777) == atomic.NEW_FILE_MODE
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "inside").write_text("keep")
    with pytest.raises(OSError):  # the rename fails: a folder holds the name
        atomic.write_text(tmp_path / "busy", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy", "fresh.txt", "report.html"]
    assert (tmp_path / "busy" / "inside").read_text() == "keep"


def test_json_with_lone_surrogates_round_trips(tmp_path: Path) -> None:
    value = {"u": "a \ud800 b \udfff c \x00 \u202e"}
    write_json(tmp_path / "s.json", value)
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == value


def test_samples_with_bytes_that_are_not_utf8_are_read_with_replacement(tmp_path: Path, caplog) -> None:
    path = tmp_path / "samples_x.jsonl"
    path.write_bytes(b'{"u": "ok"}\n{"u": "bad \xff\xfe here \\ud800"}\n')
    rows = [row for _, row in read_jsonl(path)]
    assert rows == [{"u": "ok"}, {"u": "bad \ufffd\ufffd here \ud800"}]
    assert f"{path}:2" in caplog.text


def test_display_escaping() -> None:
    assert display_text("a\x00b\x1b[2J\u202ec\ud800\td\ne") == "a\\u0000b\\u001b[2J\\u202ec\\ud800\td\ne"
    assert display_text("plain — ünïcode 中文 العربية") == "plain — ünïcode 中文 العربية"
    assert markdown_text("<img src=x onerror=alert(1)> a|b [l](u) *e* uta_gsm8k") == \
        "\\<img src=x onerror=alert(1)> a\\|b [l\\](u) \\*e\\* uta_gsm8k"
    assert code_span("a``b") == "``` a``b ```"
