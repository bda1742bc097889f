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

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.datasets import BENCHMARKS
from uta_tasks.metrics import table
from uta_tasks.metrics.results import doc_metrics
from uta_tasks.probe import judging
from uta_tasks.runs.jsonio import read_jsonl
from uta_tasks.runs.sample_files import SamplesFile, find_samples
from uta_tasks.schema.probe import ProbeRecord, ProbeSpec

log = logging.getLogger(__name__)


@dataclass
class RejudgedTask:
    """One task's saved samples with fresh verdicts.

    Attributes:
        task: task name.
        source: the samples file read.
        root: the folder (or file) given on the command line that holds ``source``.
        samples: the logged samples (JSON dicts, records replaced after judging).
        records: per sample, its probe records (one per repeat).
        metrics: aggregated ``"<metric>,none"`` values and ``_stderr`` entries.
        higher_is_better: lm-eval's flag for every metric in ``metrics``.
    """

    task: str
    source: SamplesFile
    root: Path
    samples: list[dict[str, Any]]
    records: list[list[ProbeRecord]]
    metrics: dict[str, Any] = field(default_factory=dict)
    higher_is_better: dict[str, bool] = field(default_factory=dict)


def _load(paths: Sequence[str | Path]) -> list[RejudgedTask]:
    tasks: dict[Path, RejudgedTask] = {}
    for raw in paths:
        root = Path(raw).expanduser().resolve()
        for found in find_samples([root]):
            if found.path in tasks:
                continue
            samples = [row for _, row in read_jsonl(found.path)]  # bytes that are not UTF-8 read as U+FFFD
            records = [[ProbeRecord.from_json(text) for text in s["filtered_resps"][0]] for s in samples]
            tasks[found.path] = RejudgedTask(found.task, found, root, samples, records)
    return list(tasks.values())


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
        task.higher_is_better[spec.name] = spec.higher_is_better
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
