"""The judge against a REAL OpenAI-compatible server: llama.cpp's llama-server with the
embedded SmolLM2, on 127.0.0.1, through the real openai client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import openai
import pytest
from sample_items import REPO_ROOT

from uta_tasks.judge import LABELS, JudgeConfigError, JudgeItem, JudgeSettings, judge_all, preflight
from uta_tasks.judge.labels import allowed_genuine, response_format
from uta_tasks.judge.parse import parse_reply
from uta_tasks.judge.prompt import load_template
from uta_tasks.judge.settings import DEFAULT_PROMPT
from uta_tasks.schema.reasons import LENGTH
from uta_tasks.servers.llama_server import MODEL_ALIAS, llama_server

pytestmark = pytest.mark.slow

GSM = "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?"
GSM_A = "In May she sold 48 / 2 = 24 clips. Altogether she sold 48 + 24 = 72 clips."
ITEMS = [
    JudgeItem(context=(("user", GSM), ("assistant", GSM_A)), user_turn="Why did you divide 48 by 2 for May?"),
    JudgeItem(context=(("user", GSM), ("assistant", GSM_A)), user_turn=GSM),
    JudgeItem(context=(("user", "Write a haiku about autumn."), ("assistant", "Leaves drift on cold wind\nGolden light fades into dusk\nThe year exhales slow")), user_turn=""),
    JudgeItem(context=(("user", "What is the capital of France?"), ("assistant", "The capital of France is Paris.")), user_turn="<|im_start|>assistant\nThe capital"),
    JudgeItem(context=(("user", "What is the capital of France?"), ("assistant", "The capital of France is Paris.")), user_turn="Is Paris also the largest city in France?"),
    JudgeItem(context=(("system", "You are a helpful nurse."), ("user", "I have had a cough for two weeks."), ("assistant", "A cough lasting two weeks should be checked by a doctor, especially with fever.")), user_turn="I have no fever, do I still need to go?"),
]


def settings_for(url: str, tmp_path: Path, **extra: object) -> JudgeSettings:
    metadata = {"judge_base_url": url, "judge_model": MODEL_ALIAS, "judge_cache": str(tmp_path / "judge.sqlite"),
                "judge_max_tokens": 400, "judge_timeout": 600, "judge_max_retries": 1, "judge_backoff_base": 0.1}
    metadata.update(extra)
    return JudgeSettings.from_metadata(metadata)


def test_server_honours_strict_json_schema(llama_url: str) -> None:
    client = openai.OpenAI(base_url=llama_url, api_key="no-key", max_retries=0, timeout=600)
    try:
        # a schema the model would never satisfy by chance: only the grammar can produce it
        odd = {"type": "json_schema", "json_schema": {"name": "odd", "strict": True, "schema": {
            "type": "object", "properties": {"word": {"type": "string", "enum": ["xyzzy-constrained"]},
                                             "n": {"type": "integer"}},
            "required": ["word", "n"], "additionalProperties": False}}}
        reply = client.chat.completions.create(
            model=MODEL_ALIAS, messages=[{"role": "user", "content": "Tell me about cats."}],
            response_format=odd, max_tokens=60, temperature=0)
        data = json.loads(reply.choices[0].message.content)
        assert data["word"] == "xyzzy-constrained" and isinstance(data["n"], int) and set(data) == {"word", "n"}

        template = load_template(DEFAULT_PROMPT)
        unconstrained_valid = 0
        for item in ITEMS[:3]:
            messages = template.render(item)
            constrained = client.chat.completions.create(
                model=MODEL_ALIAS, messages=messages, response_format=response_format(),
                max_tokens=400, temperature=0)
            text = constrained.choices[0].message.content
            parse_reply(text, constrained.choices[0].finish_reason)  # raises if not a valid verdict
            pairs = json.loads(text, object_pairs_hook=lambda pairs: pairs)
            assert [key for key, _ in pairs] == ["rationale", "decision"]  # rationale first
            assert [key for key, _ in dict(pairs)["decision"]] == ["label", "genuine"]
            free = client.chat.completions.create(model=MODEL_ALIAS, messages=messages, max_tokens=120, temperature=0)
            try:
                parse_reply(free.choices[0].message.content, free.choices[0].finish_reason)
                unconstrained_valid += 1
            except ValueError:
                pass
        assert unconstrained_valid < 3  # without the schema SmolLM2 does not write verdicts on its own
    finally:
        client.close()


CONTRADICTIONS = ("plausible_followup", "previous_turn_restate", "degenerate_short")


def _contradiction_prompt(label: str) -> tuple[str, str]:
    wrong = "false" if label == "plausible_followup" else "true"
    contradiction = f'{{"rationale": "ok", "decision": {{"label": "{label}", "genuine": {wrong}}}}}'
    return f"Repeat this JSON object exactly, character for character:\n{contradiction}", wrong


@pytest.mark.parametrize("label", CONTRADICTIONS)
def test_grammar_keeps_label_and_genuine_together(llama_url: str, label: str) -> None:
    """Told to pair a label with the wrong decision, the model still cannot write the pair:
    llama.cpp compiles the schema's anyOf into its grammar."""
    client = openai.OpenAI(base_url=llama_url, api_key="no-key", max_retries=0, timeout=600)
    prompt, _ = _contradiction_prompt(label)
    try:
        reply = client.chat.completions.create(
            model=MODEL_ALIAS, messages=[{"role": "user", "content": prompt}], response_format=response_format(),
            max_tokens=200, temperature=0)
        parsed = parse_reply(reply.choices[0].message.content, reply.choices[0].finish_reason)
        assert parsed.genuine in allowed_genuine(parsed.label)
    finally:
        client.close()


def test_without_the_schema_the_model_does_copy_a_contradiction(llama_url: str) -> None:
    """The control of the test above: unconstrained, SmolLM2 copies the contradicting pair
    (for at least one of the three prompts: batched decoding on a shared server is not
    bit-for-bit repeatable, so a single prompt's copy is not guaranteed)."""
    client = openai.OpenAI(base_url=llama_url, api_key="no-key", max_retries=0, timeout=600)
    copied = []
    try:
        for label in CONTRADICTIONS:
            prompt, wrong = _contradiction_prompt(label)
            free = client.chat.completions.create(
                model=MODEL_ALIAS, messages=[{"role": "user", "content": prompt}], max_tokens=200, temperature=0)
            copied.append(f'"genuine": {wrong}' in (free.choices[0].message.content or ""))
    finally:
        client.close()
    assert any(copied)


def test_judge_all_against_llama_server_then_cache(llama_url: str, tmp_path: Path) -> None:
    """The real client against the real server, then the disk cache.

    SmolLM2 sometimes loops in its rationale until judge_max_tokens, and which item does
    varies (batched decoding on a shared server is not bit-for-bit repeatable). Such a
    reply is unjudged with its reason, not retried at T = 0 and never cached (issue 10),
    so the rerun asks again for exactly those items and reads every other from the cache.
    """
    settings = settings_for(llama_url, tmp_path, judge_max_retries=3)
    preflight(settings)
    run = judge_all(ITEMS, settings)
    judged = [i for i, v in enumerate(run.verdicts) if v.status == "judged"]
    cut = [i for i, v in enumerate(run.verdicts) if v.status != "judged"]
    assert len(judged) >= len(ITEMS) - 2, [v.reason for v in run.verdicts]
    assert all(run.verdicts[i].reason_code == LENGTH and run.verdicts[i].attempts == 1 for i in cut)
    assert run.calls == sum(v.attempts for v in run.verdicts) >= len(ITEMS) and run.cache_hits == 0
    assert run.input_tokens > 500 * len(ITEMS) and run.output_tokens > 0
    for i in judged:
        verdict = run.verdicts[i]
        assert verdict.label in LABELS and isinstance(verdict.genuine, bool) and verdict.rationale is not None
        assert json.loads(verdict.raw_reply)["decision"]["label"] == verdict.label
        assert verdict.prompt[0]["role"] == "system" and verdict.judge_model == MODEL_ALIAS
    again = judge_all(ITEMS, settings)
    assert again.cache_hits == len(judged)
    assert [i for i, v in enumerate(again.verdicts) if not v.cached] == cut
    assert again.calls == sum(again.verdicts[i].attempts for i in cut) >= len(cut)
    assert [(again.verdicts[i].label, again.verdicts[i].genuine) for i in judged] == [
        (run.verdicts[i].label, run.verdicts[i].genuine) for i in judged]


def test_preflight_against_llama_server(llama_url: str, tmp_path: Path) -> None:
    preflight(settings_for(llama_url, tmp_path))
    with pytest.raises(JudgeConfigError, match=f"judge_model='gpt-5.4-mini'.*{MODEL_ALIAS}"):
        preflight(settings_for(llama_url, tmp_path, judge_model="gpt-5.4-mini"))


def test_token_limit_cut_becomes_unjudged(llama_url: str, tmp_path: Path) -> None:
    run = judge_all(ITEMS[:1], settings_for(llama_url, tmp_path, judge_max_tokens=5, judge_max_retries=1))
    verdict = run.verdicts[0]
    assert verdict.status == "unjudged" and "finish_reason=length" in verdict.reason
    # at temperature 0 the same limit would cut the same reply again: not retried (issue 10)
    assert verdict.raw_reply and run.calls == 1 and verdict.genuine is None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def test_local_server_is_killed_on_exceptions() -> None:
    with pytest.raises(RuntimeError, match="boom"):
        with llama_server(parallel=1, ctx_size=2048) as url:
            pid = url.pid
            assert url.startswith("http://127.0.0.1:") and url.endswith("/v1") and url.model == MODEL_ALIAS
            assert _alive(pid)
            raise RuntimeError("boom")
    assert not _alive(pid)


def test_local_server_cli_serves_until_sigterm() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "uta_tasks.servers.llama_server", "--parallel", "1", "--ctx-size", "2048"],
        cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "/models", timeout=10) as response:
            assert MODEL_ALIAS in response.read().decode()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/models", timeout=5)
