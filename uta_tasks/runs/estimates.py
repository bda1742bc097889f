"""Point estimates and 95% intervals of every metric of a task or group of a run.

* Rates that are shares of units (judged turns, docs, verdicts; :func:`count_metrics`, the
  rows of :mod:`uta_tasks.metrics.table` with units):
  ``value = k / n`` with a Wilson interval. Counts come from the samples when they were
  logged, else from the results JSON (:mod:`uta_tasks.runs.approx`, flagged approximate).
  A group pools the units of its member tasks.
* ``genuine_followup_diff`` (perturbed minus base on the same docs): a paired bootstrap over
  docs from the samples, else Newcombe's interval from the two rates' counts.
* Any other metric: lm-eval's value, with ``value +- z * stderr`` when lm-eval's standard
  error is finite, else no interval. Group rows sum the count metrics lm-eval sums
  (``unjudged``, ``trunc_emptied``, ``judge_*``).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field
from typing import Any

from uta_tasks.metrics.table import observed_metrics, summed_metrics
from uta_tasks.runs.approx import approx_count, derived_value
from uta_tasks.runs.observations import Observations
from uta_tasks.runs.run import Run
from uta_tasks.runs.task_run import TaskRun
from uta_tasks.schema import output
from uta_tasks.stats import Interval, newcombe, paired_bootstrap, wilson, z_value

SAMPLES = "samples"
APPROXIMATE = "results (approximate)"



def count_metrics() -> tuple[str, ...]:
    """Metrics that are shares of units and get Wilson intervals (the table's rows with units)."""
    return observed_metrics()


def intervals_markdown() -> str:
    """The manual's table of which interval each metric gets (docs/report.md, checked by a test)."""
    from uta_tasks.metrics.table import PROBE_METRICS

    def names(found: list[str]) -> str:
        labels = [n for n in found if n.startswith(output.LABEL_PREFIX)]
        shown = [f"`{n}`" for n in found if n not in labels] + ([f"`{output.LABEL_PREFIX}<label>`"] if labels else [])
        return ", ".join(shown)

    shares = [m for m in count_metrics() if m != output.ACCURACY]
    others = [m.name for m in PROBE_METRICS if (m.units is None or m.count) and m.name != output.GENUINE_DIFF]
    return "\n".join([
        "| metric | interval |",
        "|---|---|",
        f"| `{output.ACCURACY}` | Wilson over docs (accuracy averaged over repeats counts fractionally) |",
        f"| shares of units: {names(shares)} | Wilson, `k` of `n` units (judged turns, docs, verdicts) |",
        f"| `{output.GENUINE_DIFF}` | paired bootstrap over docs (seeded), Newcombe without samples |",
        f"| {names(others)}, `{output.GENUINE_PASS_AT_K.removesuffix('k')}<k>` | `value ± z·stderr` when lm-eval's "
        "standard error is finite, else none; a count has none |",
    ])


@dataclass(frozen=True)
class EstimateSettings:
    """How intervals are computed.

    Attributes:
        confidence: coverage of every interval.
        iterations: paired bootstrap replicates.
        seed: seed of the bootstrap's numpy Generator.
    """

    confidence: float = 0.95
    iterations: int = 2000
    seed: int = 0

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        """Add ``--confidence``, ``--iterations`` and ``--seed`` (``uta-summary``, ``uta-report``).

        Args:
            parser: the command's parser.
        """
        parser.add_argument("--confidence", type=float, default=0.95, help="coverage of every interval (default 0.95)")
        parser.add_argument("--iterations", type=int, default=2000, help="paired bootstrap replicates (default 2000)")
        parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EstimateSettings:
        """The settings parsed by :meth:`add_arguments`.

        Args:
            args: the parsed command line.
        """
        return cls(args.confidence, args.iterations, args.seed)


@dataclass(frozen=True)
class Estimate:
    """A metric's value for one task or group of a run.

    Attributes:
        metric: metric name.
        value: the point estimate (None when nothing was measured, e.g. no judged turn).
        interval: its interval, or None.
        k: successes behind a rate (None for other metrics).
        n: units behind a rate: judged turns, docs or verdicts.
        counts: ``samples``, ``results (approximate)`` or None.
        lm_eval: the value in lm-eval's results JSON (tasks only; None for NaN or derived metrics).
        stderr: lm-eval's standard error (None when absent or NaN).
        extra: further keys of the summary entry (e.g. a corrected rate's ``note``).
    """

    metric: str
    value: float | None
    interval: Interval | None = None
    k: float | None = None
    n: int | None = None
    counts: str | None = None
    lm_eval: float | None = None
    stderr: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def approximate(self) -> bool:
        """True when the counts were derived from the results JSON alone."""
        return self.counts == APPROXIMATE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``interval`` flattened to ``ci_low``, ``ci_high``, ``ci_method``)."""
        iv = self.interval
        return {
            "value": self.value,
            "ci_low": iv.low if iv else None,
            "ci_high": iv.high if iv else None,
            "ci_method": iv.method if iv else None,
            "k": self.k,
            "n": self.n,
            "counts": self.counts,
            "lm_eval": self.lm_eval,
            "stderr": self.stderr,
            **self.extra,
        }


def task_count(task: TaskRun, metric: str) -> tuple[float, int, str] | None:
    """``(k, n, source)`` of a rate metric of one task.

    Args:
        task: the task.
        metric: one of :func:`count_metrics`.
    """
    if task.observations is not None:
        found = task.observations.count(metric)
        return None if found is None else (found[0], found[1], SAMPLES)
    found = approx_count(task, metric) if task.is_uta else None
    return None if found is None else (found[0], found[1], APPROXIMATE)


def _from_count(metric: str, k: float, n: int, source: str, settings: EstimateSettings, **extra: Any) -> Estimate:
    return Estimate(metric, k / n, wilson(k, n, settings.confidence), k, n, source, **extra)


def _stderr_estimate(metric: str, value: float | None, stderr: float | None, settings: EstimateSettings,
                     lm_eval: float | None) -> Estimate:
    interval = None
    if value is not None and stderr is not None:
        half = z_value(settings.confidence) * stderr
        interval = Interval(value - half, value + half, "normal_stderr", settings.confidence)
    return Estimate(metric, value, interval, lm_eval=lm_eval, stderr=stderr)


def _finite(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else x


def _diff(tasks: list[TaskRun], settings: EstimateSettings, lm_eval: float | None) -> Estimate | None:
    perturbed = [t for t in tasks if t.perturbation != output.PERTURBATION_NONE]
    if not perturbed:
        return None
    if all(t.observations is not None for t in perturbed):
        parts = [t.observations for t in perturbed if t.observations]
        cand, base = Observations.pooled(parts, output.GENUINE), Observations.pooled(parts, output.GENUINE_BASE)
        if not set(cand) & set(base):
            return Estimate(output.GENUINE_DIFF, None, counts=SAMPLES, lm_eval=lm_eval)
        pd = paired_bootstrap(cand, base, iterations=settings.iterations, seed=settings.seed,
                              confidence=settings.confidence)
        return Estimate(output.GENUINE_DIFF, pd.estimate, pd.interval, None, pd.units, SAMPLES, lm_eval)
    c = _pooled_count(perturbed, output.GENUINE)
    b = _pooled_count(perturbed, output.GENUINE_BASE)
    if c is None or b is None:
        return Estimate(output.GENUINE_DIFF, lm_eval, lm_eval=lm_eval)
    interval = newcombe(c[0], c[1], b[0], b[1], settings.confidence)
    return Estimate(output.GENUINE_DIFF, c[0] / c[1] - b[0] / b[1], interval, None, c[1], c[2], lm_eval)


def _reports(task: TaskRun, metric: str) -> bool:
    source = {output.ACCURACY: task.primary, output.UNJUDGED_SHARE: output.UNJUDGED}.get(metric, metric)
    return source is not None and source in task.values


def _pooled_count(tasks: list[TaskRun], metric: str) -> tuple[float, int, str] | None:
    k, n, sources = 0.0, 0, set()
    for task in tasks:
        found = task_count(task, metric)
        if found is not None:
            k, n = k + found[0], n + found[1]
            sources.add(found[2])
    if n <= 0:
        return None
    return k, n, APPROXIMATE if APPROXIMATE in sources else SAMPLES


def estimate(run: Run, name: str, metric: str, settings: EstimateSettings | None = None) -> Estimate | None:
    """The estimate of ``metric`` for a task or group of ``run``, or None when the run does not report it.

    A rate with no judged unit has ``value`` None (lm-eval's NaN).

    Args:
        run: the run.
        name: task or group name.
        metric: metric name (lm-eval's, or ``accuracy``, ``unjudged_share``).
        settings: interval settings (defaults: 95%, 2000 replicates, seed 0).
    """
    settings = settings or EstimateSettings()
    is_group = name in run.groups
    if not is_group and name not in run.tasks:
        return None
    tasks = [run.tasks[t] for t in run.members(name) if t in run.tasks]
    task = None if is_group else run.tasks[name]
    value = _finite(derived_value(task, metric)) if task else None
    # lm_eval: the value in the results file (None for a metric computed from the samples)
    lm_eval = None if task is not None and metric in task.from_samples else value
    if metric == output.GENUINE_DIFF:
        return _diff(tasks, settings, lm_eval)
    if metric in count_metrics():
        found = _pooled_count(tasks, metric)
        if found is not None:
            return _from_count(metric, *found, settings, lm_eval=lm_eval)
        return Estimate(metric, None, lm_eval=lm_eval) if any(_reports(t, metric) for t in tasks) else None
    if task is not None:
        if metric not in task.values:
            return None
        if metric in task.from_samples:  # not in the results file: computed from the samples
            return Estimate(metric, value, counts=SAMPLES)
        return _stderr_estimate(metric, lm_eval, _finite(task.stderrs.get(metric)), settings, lm_eval)
    if metric in summed_metrics() and any(metric in t.values for t in tasks):
        return Estimate(metric, float(sum(t.value(metric) or 0.0 for t in tasks)))
    return None


def metrics_of(run: Run, name: str) -> list[str]:
    """Every metric :func:`estimate` answers for a task or group, in a stable order.

    Args:
        run: the run.
        name: task or group name.
    """
    tasks = [run.tasks[t] for t in run.members(name) if t in run.tasks]
    reported: dict[str, None] = {}
    for task in tasks:
        reported.update(dict.fromkeys(task.values))
    ordered = [m for m in (*count_metrics(), output.GENUINE_DIFF) if m not in reported]
    candidates = [*reported, *ordered]
    return [m for m in candidates if estimate(run, name, m, EstimateSettings(iterations=100)) is not None]


def not_kept(run: Run, name: str, metric: str) -> str | None:
    """Why a metric that a full run of a task reports is missing from this run, or None when
    that is not the reason: the results file holds only the headline metrics
    (``metrics: headline``) and no samples were logged to compute it from.

    Args:
        run: the run.
        name: task or group name.
        metric: metric name.
    """
    from uta_tasks.datasets import BENCHMARKS
    from uta_tasks.metrics.shape import task_metrics
    from uta_tasks.probe.task_settings import TaskSettingError, TaskSettings

    for member in run.members(name):
        task = run.tasks.get(member)
        if task is None or not task.is_uta or task.logged or metric in task.values:
            continue
        meta = task.config.get("metadata") or {}
        try:
            settings = TaskSettings.from_metadata(member, meta)
        except TaskSettingError:
            settings = TaskSettings()
        specs = task_metrics(BENCHMARKS[str(task.benchmark)], task.perturbation, settings, judged=True)
        full = {s.name for s in specs} | set(count_metrics()) | {output.GENUINE_DIFF}
        if metric in full:
            return (
                f"metric '{metric}' was not kept by the run for '{member}': its results file holds only the headline "
                "metrics and no samples were logged to compute it from; rerun with --log_samples (the summary, "
                "report and gate then compute it from the samples), or with --metadata '{\"metrics\": \"full\"}' "
                "to keep every metric in the results file"
            )
    return None
