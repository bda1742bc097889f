"""Write lm-eval output folders as ``--log_samples`` would, with probe records whose
verdicts come from the real judge code path (:func:`uta_tasks.probe.judging.judge_records`,
the function the live probe calls) against the fault double of ``tests/judge``.

Also the fixtures ``judge_double`` (the double, per session) and ``judge_meta`` (judge
metadata for it), imported by the conftests of ``tests/annotate`` and ``tests/agreement``.

Layout: ``OUT/<model_sanitized>/results_<date>.json`` and
``OUT/<model_sanitized>/samples_<task>_<date>.jsonl``; each sample line holds the doc's
records as JSON strings in ``filtered_resps[0]``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judge"))

from fault_server import MODEL, FaultConfig, FaultServer  # noqa: E402

from uta_tasks.judge import JudgeSettings  # noqa: E402
from uta_tasks.probe import judging, reasoning  # noqa: E402
from uta_tasks.schema.probe import ProbeRecord, ProbeSpec  # noqa: E402

DATE = "2026-04-01T10-00-00.000001"
TASKS = {  # task -> (benchmark, perturbation)
    "uta_gsm8k": ("gsm8k", "none"),
    "uta_gsm8k_trunc": ("gsm8k", "trunc"),
    "uta_heldout_demo": ("healthbench", "none"),
}


def make_record(task: str, doc: int, model_tag: str, history: str = "final") -> dict[str, Any]:
    """One probe record with the fields the probe writes (before judging)."""
    benchmark, perturbation = TASKS[task]
    q = f"Problem {doc}: a crate holds {doc + 3} boxes of {doc + 2} pens. Count the pens."
    final = f"There are {(doc + 3) * (doc + 2)} pens ({doc + 3} x {doc + 2})."
    a = f"<think>multiply {doc + 3} by {doc + 2}</think>\n{final}" if doc % 2 else final
    split = reasoning.split(a)
    kept = a if history == "raw" else split.final
    shown = kept[: len(kept) // 2] if perturbation == "trunc" else kept
    u = f"Why multiply {doc + 3} by {doc + 2}?" if doc % 3 == 0 else q
    u_ref = u if perturbation == "none" else f"Could you check {doc + 2} again?"
    record: dict[str, Any] = {
        "task": task, "benchmark": benchmark, "perturbation": perturbation, "q": q,
        "messages": [{"role": "user", "content": q}], "a": a, "answer": split.final, "reasoning_form": split.form,
        "a_prime": shown, "u": u if doc % 5 else f"{u} [{model_tag}]", "u_ref": u_ref,
        "role_switch": {"name": "template", "history": history, "stop": []},
        "reference_user_turn": f"REFERENCE TURN {doc}: what about tax?" if benchmark == "healthbench" else None,
        "history": kept, "generation": {}, "given_answer": benchmark == "healthbench",
    }
    if perturbation == "none":
        record["u_ref"] = record["u"]
    return record


def write_run(
    out: Path, model: str, tasks: dict[str, int], judge: dict[str, Any] | None, history: str = "final",
    with_results: bool = True,
) -> Path:
    """Write one run's samples (and results file); returns the model folder.

    Args:
        out: The ``--output_path``.
        model: Model name (``pretrained=...``).
        tasks: Task -> number of docs.
        judge: Judge metadata for the real judge, or None (``--predict_only``: no verdicts).
        history: Role-switch history mode of the records.
        with_results: Also write ``results_<date>.json``.
    """
    folder = out / model.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    tag = hashlib.sha256(model.encode()).hexdigest()[:6]  # varies the turns per model without naming it
    for task, docs in tasks.items():
        records = [ProbeRecord.from_json(make_record(task, doc, tag, history)) for doc in range(docs)]
        settings = None if judge is None else JudgeSettings.from_metadata(judge)
        specs = [ProbeSpec(r.task, r.benchmark, r.perturbation, r.messages, judge=settings) for r in records]
        records = judging.judge_records(records, list(specs))
        lines = []
        for doc, probe_record in enumerate(records):
            record = json.loads(probe_record.to_json())
            lines.append(json.dumps({
                "doc_id": doc, "doc": {"question": probe_record.q}, "target": "",
                "arguments": {"gen_args_0": {"arg_0": probe_record.q}},
                "resps": [[json.dumps(record)]], "filtered_resps": [[json.dumps(record)]],
                "filter": "none", "metrics": ["genuine_followup"],
            }))
        (folder / f"samples_{task}_{DATE}.jsonl").write_text("\n".join(lines) + "\n")
    if with_results:
        results = {"results": {task: {} for task in tasks}, "model_name": model,
                   "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32"}}
        (folder / f"results_{DATE}.json").write_text(json.dumps(results))
    return folder


@pytest.fixture(scope="session")
def judge_double() -> Iterator[FaultServer]:
    with FaultServer(FaultConfig()) as server:
        yield server


@pytest.fixture(scope="session")
def judge_meta(judge_double: FaultServer, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., dict[str, Any]]:
    """Judge metadata for the fault double; the verdict cache is shared by the session (deterministic replies)."""
    cache = tmp_path_factory.mktemp("judge") / "judge.sqlite"

    def build(**overrides: Any) -> dict[str, Any]:
        return {"judge_base_url": judge_double.base_url, "judge_model": MODEL,
                "judge_cache": str(cache), "judge_max_retries": 0, **overrides}

    return build
