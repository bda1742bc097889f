"""perf/tools_scale.py's folders: made of the records a real run writes (lm-eval, the scripted
model under the real hook, the real judge client against the judge double), replicated with
new doc ids and read back by the package's own reader; and a tool that overruns is stopped
with its figures marked as lower bounds. No timing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[2] / "perf"
sys.path.insert(0, str(PERF))

import _real_records  # noqa: E402
import tools_scale  # noqa: E402

DOCS = 50  # per task: 150 answers and more user turns, so 1 in 50 and 1 in 40 are long


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _real_records.template_run(tmp_path_factory.mktemp("template"), docs=DOCS)


def _docs(folder: Path) -> dict[str, list]:
    from uta_tasks.runs import load_run

    run = load_run(folder, all_docs=True)
    return {name: sorted(task.docs, key=lambda doc: doc.doc_id) for name, task in run.tasks.items()}


def test_the_template_holds_a_live_judged_runs_records_with_long_texts(template: Path) -> None:
    docs = _docs(template)
    assert set(docs) == set(_real_records.TASKS) and all(len(found) == DOCS for found in docs.values())
    records = [record for found in docs.values() for doc in found for record in doc.records]
    low, high = _real_records.LONG_CHARS
    long_answers = [r for r in records if len(r.a) >= low]
    long_turns = [r for r in records if len(r.u) >= low]
    assert long_answers and long_turns and all(len(r.a) < high + 500 for r in records)
    assert len(long_answers) < len(records) / 20  # 1 answer in 50, not every one
    statuses = {r.verdict.judged for r in records if r.verdict is not None}
    assert statuses == {True, False}  # judged by the client, and some verdicts unjudged


def test_a_replicated_folder_is_the_template_again_with_new_doc_ids(template: Path, tmp_path: Path) -> None:
    per_task = 2 * DOCS + 7
    folder = _real_records.replicate(template, len(_real_records.TASKS) * per_task, tmp_path / "run")
    source, copied = _docs(template), _docs(folder)
    for task, found in copied.items():
        assert [doc.doc_id for doc in found] == list(range(per_task))  # each id once
        for doc in found:
            original = source[task][doc.doc_id % DOCS]
            assert [(r.a, r.u, r.verdict) for r in doc.records] == [(r.a, r.u, r.verdict) for r in original.records]
            assert doc.metrics == original.metrics


def test_a_tool_over_its_cap_is_stopped_and_its_figures_are_lower_bounds() -> None:
    cost = tools_scale.run([sys.executable, "-c", "import time; time.sleep(600)"], cap=1)
    assert cost.stopped and cost.bound == "at least "
    done = tools_scale.Cost(2.0, 1.0, 50.0, 0)
    rows = tools_scale.rows_from({10: {"costs": {"uta-x": done}},
                                  100: {"costs": {"uta-x": cost}, "megabytes_on_disk": 1.0,
                                        "template_kb_per_sample": 30.0}}, 10, 100, "0.1")
    assert all("lower bounds" in row["note"] and "at least" in row["note"] for row in rows)
