"""Record version 4 on a live-judged run (lm-eval's evaluator, the real hook, the real judge
client against the scripted judge server): each text once, no judge prompt in any samples line,
a line at most 3x its own texts plus 4 kB, and the same judge prompts, pass-2 prompts and
re-judged metrics as the same records written as version 3."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from pipeline_run import DATA, evaluate
from scripted_lm import ScriptedLM, load_tokenizer
from test_rejudge import _save

TASK = "uta_gsm8k_trunc"
GEN = {"max_gen_toks": 256, "temperature": 0.7, "do_sample": True}
# The run: a gsm8k answer of about 170 characters, short user turns, three per answer.
ANSWER = ("She bakes 24 muffins in the morning and 18 in the afternoon, 24 + 18 = 42 muffins. "
          "She sells 30 of them, so 42 - 30 = 12 muffins are left at the end of the day. #### 12")
TURNS = ["Why subtract 30?", "Thanks.", "Can you check the sum?", "Ok."]
LINE_ALLOWANCE = 4096  # lm-eval's own fields and the settings


def _script():
    calls = {"n": 0}

    def script(prompt: str, kwargs: dict) -> str:
        if prompt.endswith("<|im_start|>assistant\n"):
            return ANSWER
        calls["n"] += 1
        return TURNS[hashlib.sha256(f"{prompt}{calls['n']}".encode()).digest()[0] % len(TURNS)]

    return script


def _live_run(judge_server, out: Path) -> Path:
    meta = {"user_samples": 3, "user_max_gen_toks": 16, "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"),
            "judge_base_url": judge_server.base_url, "judge_model": "fault-judge",
            "judge_cache": str(out / "judge.sqlite")}
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), _script())
    results = evaluate(lm, [TASK], limit=3, metadata=meta, gen_kwargs=GEN, bootstrap_iters=0)
    _save(results, out / "run", [TASK])
    (path,) = (out / "run").rglob(f"samples_{TASK}_*.jsonl")
    return path


def _as_version_3(line: dict) -> dict:
    """The line as record version 3 wrote it: every text and judge prompt in the record, the
    record in both resps and filtered_resps."""
    from uta_tasks.probe.verdict_prompts import record_prompts, slot_verdict
    from uta_tasks.runs.samples import decode_records

    texts = []
    for record in decode_records(line):
        prompts = record_prompts(record)
        whole = replace(record, record_version=3, verdict_samples=list(record.verdict_samples))
        for slot, messages in prompts.items():
            verdict = replace(slot_verdict(record, slot), prompt=messages, prompt_by_ref=False)
            if slot.startswith("verdict_samples#"):
                whole.verdict_samples[int(slot.split("#")[1])] = verdict
            else:
                setattr(whole, slot, verdict)
        if whole.verdict_samples:
            whole.verdict_samples[0] = whole.verdict
        texts.append(json.dumps(whole.to_dict(), ensure_ascii=False))
    return {**line, "resps": [texts], "filtered_resps": [texts]}


def test_a_live_judged_line_holds_each_text_once(judge_server, tmp_path):
    from uta_tasks.runs.samples import decode_records
    from uta_tasks.schema.record_texts import texts_of

    path = _live_run(judge_server, tmp_path)
    system = "You are FOLLOWUPEVAL"
    for text in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        records = decode_records(line)
        assert line["filtered_resps"] == [[f"resps[0][{i}]" for i in range(len(records))]]
        assert all(r.record_version == 4 and r.verdict is not None and r.verdict.prompt_by_ref for r in records)
        own = sum(len(t.encode()) for r in records for t in texts_of(r.to_dict()))
        assert len(text.encode()) <= 3 * own + LINE_ALLOWANCE, (len(text.encode()), own)
        assert system not in text
        assert text.count(ANSWER[:60]) == 1  # the answer once (a; answer, history, a' and the prompts refer to it)


def test_a_version_3_record_and_its_version_4_give_the_same_prompts_and_rejudged_metrics(judge_server, tmp_path):
    from uta_tasks.apps.annotate.packet import draw_packet
    from uta_tasks.apps.rejudge import rejudge
    from uta_tasks.probe.judging import RecordItems
    from uta_tasks.probe.verdict_prompts import record_prompts
    from uta_tasks.runs.sample_items import sample_items
    from uta_tasks.runs.samples import decode_records

    path = _live_run(judge_server, tmp_path)
    v3_dir = tmp_path / "v3" / path.parent.name
    v3_dir.mkdir(parents=True)
    lines = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines()]
    old = [_as_version_3(line) for line in lines]
    (v3_dir / path.name).write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in old), encoding="utf-8")
    for result in path.parent.glob("results_*.json"):
        (v3_dir / result.name).write_bytes(result.read_bytes())
    system = "You are FOLLOWUPEVAL"
    assert system in (v3_dir / path.name).read_text(encoding="utf-8")  # version 3 stored every judge prompt

    for new_line, old_line in zip(lines, old, strict=True):
        for new, was in zip(decode_records(new_line), decode_records(old_line), strict=True):
            assert was.record_version == 3 and not was.verdict.prompt_by_ref
            assert record_prompts(new) == record_prompts(was) and record_prompts(new)
            assert (new.pass2_prompt, new.pass2_ref_prompt) == (was.pass2_prompt, was.pass2_ref_prompt)
            assert RecordItems.of(new).pairs() == RecordItems.of(was).pairs()

    packets = [draw_packet(sample_items([folder]), n=20, seed=3) for folder in (tmp_path / "run", tmp_path / "v3")]
    assert packets[0] == packets[1] and packets[0]
    judge = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge",
             "judge_cache": str(tmp_path / "judge.sqlite")}
    metrics = [{t.task: t.metrics for t in rejudge([folder], judge, bootstrap_iters=0)}
               for folder in (tmp_path / "run", tmp_path / "v3")]
    assert metrics[0] == metrics[1] and metrics[0][TASK]
