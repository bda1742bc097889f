"""Re-judge the user turns of lm-eval output folders written with ``--log_samples``.

Every judged turn of the saved probe records (``u``, ``u_ref``, the held-out reference
turn) goes through the judge again with the given settings (one concurrent run per
:data:`~uta_tasks.runs.rescore.JUDGE_CHUNK` records of the folder set, the verdict cache in
front of it; the docs are read a doc at a time and kept on disk), and each task's metrics are recomputed
with the task's own metric table and aggregations: the metric names, values and
aggregation equal those of a live run with the same judge. The model under test is never
loaded. A live run's folder re-judged with the same judge and a warm cache reproduces its
metrics with zero judge calls.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from uta_tasks.judge.settings import JudgeSettings
from uta_tasks.probe import judging
from uta_tasks.runs.rescore import ScoredTask, judge_docs, load_scored, rescore
from uta_tasks.schema.probe import ProbeRecord, ProbeSpec

log = logging.getLogger(__name__)

# The re-judged task: its logged samples with fresh verdicts (the run folder's own type).
RejudgedTask = ScoredTask


def judge_saved(paths: Sequence[str | Path], settings: JudgeSettings) -> list[RejudgedTask]:
    """Load the saved samples and judge every user turn of their records again (no metrics).

    Args:
        paths: lm-eval ``--output_path`` folders (or samples files) written with ``--log_samples``.
        settings: the judge settings (parsed once by the caller).
    """
    return judge_tasks(load_scored(paths), settings)


def judge_tasks(tasks: list[RejudgedTask], settings: JudgeSettings) -> list[RejudgedTask]:
    """Judge every user turn of the loaded tasks again (no metrics), in place, a chunk of docs at a
    time (:func:`uta_tasks.runs.rescore.judge_docs`).

    Args:
        tasks: from :func:`uta_tasks.runs.rescore.load_scored`.
        settings: the judge settings.
    """
    def judge(flat: list[ProbeRecord]) -> list[ProbeRecord]:
        specs = [ProbeSpec(r.task, r.benchmark, r.perturbation, r.messages, judge=settings) for r in flat]
        return judging.judge_records(flat, list(specs))  # every verdict slot filled anew

    judge_docs(tasks, judge)
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
    from uta_tasks.judge import preflight

    settings = JudgeSettings.from_metadata(judge_metadata)
    loaded = load_scored(paths)  # every file read (and a bad one named) before the judge is called
    if not settings.enabled:
        raise ValueError("uta-rejudge: the judge is off (judge=none): there is nothing to re-judge")
    preflight(settings)
    tasks = judge_tasks(loaded, settings)
    for task in tasks:
        rescore(task, judged=True, bootstrap_iters=bootstrap_iters)
    return tasks
