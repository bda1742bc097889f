"""CONTRIBUTING's worked example of a metric, carried out: the block on the page (a function
in values.py, a row in table.py) registers the share of user turns that end with a question;
lm-eval's results, ``summary.json`` and ``report.html`` then hold it, with nothing else
edited. The registration is undone after each test (monkeypatch)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from pipeline_run import NO_JUDGE, evaluate, records
from scripted_lm import chatml_script

ROOT = Path(__file__).resolve().parents[2]
TASK = "uta_ifbench"


def _example() -> tuple[str, str]:
    """The page's two parts: the function's source and the row's expression."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("- **A metric** is one function and one row", 1)[1].split("\n- **", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "CONTRIBUTING's metric section holds one python block"
    function, row = textwrap.dedent(found.group(1)).split("# uta_tasks/metrics/table.py", 1)
    return function, row.split("\n", 1)[1].strip().removesuffix(",")


@pytest.fixture()
def example_row(monkeypatch):
    """The example registered exactly as the page says, for this test only."""
    from uta_tasks.metrics import table, values

    function, row = _example()
    namespace = dict(vars(values))
    exec(function, namespace)  # the function, in values.py's namespace
    monkeypatch.setattr(values, "question_ending", namespace["question_ending"], raising=False)
    spec = eval(row, dict(vars(table)))  # the row, in table.py's namespace
    monkeypatch.setattr(table, "PROBE_METRICS", (*table.PROBE_METRICS, spec))
    return spec


def asks_on_some_docs(prompt: str, gen_kwargs: dict) -> str:
    """Pass 2: the default question, or 'Thanks.' when the prompt's length is even."""
    reply = chatml_script(prompt, gen_kwargs)
    return "Thanks." if prompt.endswith("<|im_start|>user\n") and len(prompt) % 2 == 0 else reply


def test_the_function_counts_every_user_sample(example_row):
    from uta_tasks.metrics.values import Doc
    from uta_tasks.schema.probe import ProbeRecord

    base = dict(task="t", benchmark="b", perturbation="none", q="q", messages=[], a="a", answer="a",
                reasoning_form="plain", history="a", a_prime="a", role_switch={}, generation={}, given_answer=False)
    doc = Doc((ProbeRecord(**base, u="Why? ", u_samples=["Why? ", "ok", "And then?"]), ProbeRecord(**base, u="ok")),
              (0, 1))
    assert example_row.units(doc) == {(0, 0): 1.0, (0, 1): 0.0, (0, 2): 1.0, (1, 0): 0.0}
    assert not example_row.needs_judge and example_row.section == "generation"


def test_the_example_is_in_the_results_the_summary_and_the_report(example_row, scripted, tmp_path):
    from lm_eval.loggers import EvaluationTracker

    from uta_tasks.apps.report import build_report
    from uta_tasks.apps.summary import main as summary_main

    scripted.script = asks_on_some_docs
    results = evaluate(scripted, [TASK], limit=4, metadata={**NO_JUDGE, "metrics": "full"})
    asked = [r.u.rstrip().endswith("?") for r in records(results, TASK)]
    assert 0 < sum(asked) < len(asked), asked  # both kinds of user turn
    assert results["results"][TASK]["question_ending,none"] == pytest.approx(sum(asked) / len(asked))

    out = tmp_path / "run"
    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name=TASK, samples=samples[TASK])

    assert summary_main([str(out)]) == 0
    (summary,) = out.rglob("summary.json")
    entry = json.loads(summary.read_text())["tasks"][TASK]["metrics"]["question_ending"]
    assert entry["ci_method"] == "wilson" and (entry["k"], entry["n"]) == (sum(asked), len(asked))

    page = build_report([out], tmp_path / "report").html.read_text()
    generation = page.split('id="table-metrics-generation"', 1)[1].split("</table>", 1)[0]
    assert "<th>question_ending</th>" in generation
