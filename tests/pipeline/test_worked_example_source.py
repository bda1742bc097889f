"""CONTRIBUTING's worked example of a source of saved answers, carried out: the block on the page
(a module and its registry row) is executed as written, and a ``*.pairs.jsonl`` file is probed through
lm-eval's evaluator with the scripted model: one module, one row and this test."""

from __future__ import annotations

import json
import re
import textwrap
import types
from pathlib import Path

import pytest
from harness_logs import TASK
from harness_logs import probe as _probe
from pipeline_run import records
from saved_lm_eval_runs import END, GSM8K, USER

from uta_tasks.lm_eval_task import UTATaskError
from uta_tasks.saved_answers import harness, registry
from uta_tasks.saved_answers.harness import HarnessLog
from uta_tasks.saved_answers.lm_eval_lines import SavedLine
from uta_tasks.saved_answers.source import SavedFiles, Source

ROOT = Path(__file__).resolve().parents[2]
STATED = {"temperature": 0.0, "max_gen_toks": 200, "until": [], "model": "scripted"}


def _example() -> tuple[str, str]:
    """The module and the row, as CONTRIBUTING.md shows them."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("- **A source of saved answers**", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "CONTRIBUTING's source section holds one python block"
    module, row = textwrap.dedent(found.group(1)).split("# uta_tasks/saved_answers/registry.py", 1)
    return module, row.split("\n", 1)[1].strip()


@pytest.fixture()
def pairs(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The example registered in a copy of the registry (the module's own is back afterwards)."""
    monkeypatch.setattr(registry, "SOURCES", dict(registry.SOURCES))
    module, row = _example()
    pairs = types.ModuleType("pairs")
    pairs.__dict__.update(Path=Path, Any=object, Mapping=dict, json=json, SavedFiles=SavedFiles,
                          HarnessLog=HarnessLog, SavedLine=SavedLine, harness=harness)
    exec("from __future__ import annotations\nfrom typing import Any\nfrom collections.abc import Mapping\n" + module,
         pairs.__dict__)
    exec(row, {"register": registry.register, "Source": Source, "pairs": pairs, "harness": harness})
    return pairs


def test_the_worked_example_is_a_source_the_probe_reads(pairs, ended, tokenizer, wrap, tmp_path):
    assert registry.get("pairs").unrecorded == ("temperature", "max_gen_toks", "until", "model")
    questions = [json.loads(line)["question"] for line in GSM8K.read_text().splitlines()[:3]]
    prompts = [tokenizer.apply_chat_template([{"role": "user", "content": q}], tokenize=False,
                                             add_generation_prompt=True) for q in questions]
    log = tmp_path / "gsm8k.pairs.jsonl"
    log.write_text("".join(json.dumps({"prompt": p, "answer": f"The answer is {k}."}) + "\n"
                           for k, p in enumerate(prompts)))
    with pytest.raises(UTATaskError, match=r"does not record the temperature.*answers_from_settings"):
        _probe(ended, wrap, log)  # what the file does not record is stated, never guessed
    probed = _probe(ended, wrap, log, answers_from_settings=STATED)
    for k, record in enumerate(records(probed, TASK)):
        assert record.pass1_prompt == prompts[k] and record.a == f"The answer is {k}."
        assert record.pass2_prompt == f"{record.pass1_prompt}{record.a}{END}\n{USER}"
        assert record.answer_source["harness"] == "pairs"
        assert record.answer_source["harness_log"]["stated"] == STATED


def test_the_registry_is_back_after_a_test():
    assert "pairs" not in registry.SOURCES
