"""Re-judge the user turns of lm-eval output folders written with ``--log_samples``.

Every judged turn of the saved probe records (``u``, ``u_ref``, the held-out reference
turn) goes through the judge again with the given settings (one concurrent run per
folder set, the verdict cache in front of it), and each task's metrics are recomputed
with the task's own metric table and aggregations: the metric names, values and
aggregation equal those of a live run with the same judge. The model under test is never
loaded. A live run's folder re-judged with the same judge and a warm cache reproduces its
metrics with zero judge calls.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.datasets import BENCHMARKS
from uta_tasks.metrics import table
from uta_tasks.metrics.results import doc_metrics
from uta_tasks.probe import judging
from uta_tasks.probe.records import ProbeRecord, ProbeSpec
from uta_tasks.samples import find_samples

log = logging.getLogger(__name__)


@dataclass
class RejudgedTask:
    """One task's saved samples with fresh verdicts.

    Attributes:
        task: task name.
        source: the samples file read.
        samples: the logged samples (JSON dicts, records replaced after judging).
        records: per sample, its probe records (one per repeat).
        metrics: aggregated ``"<metric>,none"`` values and ``_stderr`` entries.
    """

    task: str
    source: Path
    samples: list[dict[str, Any]]
    records: list[list[ProbeRecord]]
    metrics: dict[str, Any] = field(default_factory=dict)


def _load(paths: Sequence[str | Path]) -> list[RejudgedTask]:
    tasks = []
    for found in find_samples(paths):
        samples = [json.loads(line) for line in found.path.read_text(encoding="utf-8").splitlines() if line.strip()]
        records = [[ProbeRecord.from_json(text) for text in s["filtered_resps"][0]] for s in samples]
        tasks.append(RejudgedTask(found.task, found.path, samples, records))
    return tasks


def _aggregate(task: RejudgedTask, bootstrap_iters: int) -> None:
    first = task.records[0][0]
    bench = BENCHMARKS[first.benchmark]
    shape = table.TaskShape(
        perturbation=first.perturbation, judged=True, held_out=bench.reference_user_turn is not None,
        primary=bench.primary,
    )
    specs = table.metrics_for(shape, bench.aggregations)
    per_doc = []
    for sample, records in zip(task.samples, task.records, strict=True):
        doc_values = doc_metrics(sample["doc"], records, specs, bench.score, bench.primary)
        per_doc.append(doc_values)
        sample.update(doc_values)
        texts = [r.to_json() for r in records]
        sample["filtered_resps"] = [texts]
        sample["resps"] = [texts]
    for spec in specs:
        values = [d[spec.name] for d in per_doc]
        task.metrics[f"{spec.name},none"] = spec.aggregation(values)
        task.metrics[f"{spec.name}_stderr,none"] = compat.stderr(spec.aggregation, values, bootstrap_iters)


def judge_saved(paths: Sequence[str | Path], judge_metadata: dict[str, Any]) -> list[RejudgedTask]:
    """Load the saved samples and judge every user turn of their records again (no metrics).

    Args:
        paths: lm-eval ``--output_path`` folders (or samples files) written with ``--log_samples``.
        judge_metadata: judge settings as ``--metadata`` keys.
    """
    tasks = _load(paths)
    flat = [r for t in tasks for records in t.records for r in records]
    for record in flat:
        record.verdict = record.verdict_ref = record.verdict_reference = None
    specs = [ProbeSpec(r.task, r.benchmark, r.perturbation, r.messages, judge=dict(judge_metadata)) for r in flat]
    judging.judge_records(flat, list(specs))
    return tasks


def rejudge(
    paths: Sequence[str | Path], judge_metadata: dict[str, Any], *, bootstrap_iters: int = 100000
) -> list[RejudgedTask]:
    """Judge every saved user turn under ``paths`` again and recompute the metrics.

    Args:
        paths: lm-eval ``--output_path`` folders (or samples files) written with ``--log_samples``.
        judge_metadata: judge settings as ``--metadata`` keys (``judge_model``, ``judge_base_url``, ...).
        bootstrap_iters: lm-eval's bootstrap iterations for the standard errors.
    """
    from uta_tasks.judge import judging_enabled, preflight
    from uta_tasks.judge.settings import JudgeSettings

    if not judging_enabled(judge_metadata):
        raise ValueError("uta-rejudge: the judge is off (judge=none): there is nothing to re-judge")
    preflight(JudgeSettings.from_metadata(judge_metadata))
    tasks = judge_saved(paths, judge_metadata)
    for task in tasks:
        _aggregate(task, bootstrap_iters)
    return tasks


def write(tasks: list[RejudgedTask], output_path: Path, judge_metadata: dict[str, Any], date: str) -> Path:
    """Write ``results_<date>.json`` (strict JSON: NaN as null) and one samples file per task.

    Args:
        tasks: from :func:`rejudge`.
        output_path: the folder to write into.
        judge_metadata: the judge settings used (recorded; never a key).
        date: the date id in the file names.
    """
    from uta_tasks.judge.settings import JudgeSettings

    output_path.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"results": {}, "n-samples": {}, "rejudge": {}}
    results["rejudge"] = {
        "judge": JudgeSettings.from_metadata(judge_metadata).describe(),
        "sources": {t.task: str(t.source) for t in tasks},
    }
    by_task: dict[str, list[dict]] = defaultdict(list)
    for task in tasks:
        results["results"][task.task] = {"alias": task.task, **task.metrics}
        results["n-samples"][task.task] = {"original": len(task.samples), "effective": len(task.samples)}
        by_task[task.task].extend(task.samples)
        (output_path / f"samples_{task.task}_{date}.jsonl").write_text(
            "".join(json.dumps(_strict(s), ensure_ascii=False) + "\n" for s in task.samples), encoding="utf-8"
        )
    path = output_path / f"results_{date}.json"
    path.write_text(json.dumps(_strict(results), indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def _strict(value: Any) -> Any:
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strict(v) for v in value]
    return value
