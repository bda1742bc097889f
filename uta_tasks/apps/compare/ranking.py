"""The leaderboard: for each headline rate (the genuine follow-up rate of each task, so of each
benchmark and perturbation) the models ranked, each with its Wilson interval (the run
summary's), its rank interval and whether it differs significantly from the next
(:func:`uta_tasks.stats.ranks.rank_bootstrap`); and, per benchmark, each model's accuracy and
follow-up rate side by side, as the paper sets its models side by side (*Beyond the Assistant
Turn*, arXiv 2604.02315: Fig. 3 and Tables 3 and 5).

Models whose runs differ in a setting that changes the measurement (the comparability table,
:mod:`uta_tasks.runs.comparability`, the gate's settings but the model's own ``thinking``) are
ranked all the same, and each such difference is a note of the model and of the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from uta_tasks.apps.compare.reading import ModelRun
from uta_tasks.datasets import BENCHMARKS
from uta_tasks.probe import perturbations
from uta_tasks.runs import Estimate, EstimateSettings
from uta_tasks.runs.comparability import GATE_KEYS, differences
from uta_tasks.schema import output
from uta_tasks.stats import Interval
from uta_tasks.stats.ranks import DocCounts, RankRange, rank_bootstrap

# A setting of the model itself, not of the measurement: models may differ in it.
_MODEL_OWN = frozenset({"thinking"})


@dataclass(frozen=True)
class Placed:
    """One model on one headline rate.

    Attributes:
        model: its index in :attr:`Leaderboard.models`.
        estimate: its rate with the Wilson interval (value None: no judged turn).
        rank: its rank and rank interval (None when it has no judged turn).
        next_difference: its rate minus the next model's over the same bootstrap replicates (None for the last).
        significant: whether that difference is significant (None for the last).
    """

    model: int
    estimate: Estimate
    rank: RankRange | None = None
    next_difference: Interval | None = None
    significant: bool | None = None


@dataclass(frozen=True)
class RateRanking:
    """The models ranked on one task's genuine follow-up rate.

    Attributes:
        task: the task.
        benchmark: its benchmark.
        perturbation: its perturbation.
        docs: documents resampled (every model's together).
        placed: the ranked models, best first, then those without a judged turn.
    """

    task: str
    benchmark: str
    perturbation: str
    docs: int
    placed: list[Placed]


@dataclass(frozen=True)
class AccuracyPoint:
    """One model on one benchmark: accuracy and follow-up rate, each with its interval.

    Attributes:
        model: its index in :attr:`Leaderboard.models`.
        accuracy: the benchmark's accuracy (the probe's score of the answers, which equals the
            saved run's for answers read from it).
        genuine: the unperturbed task's genuine follow-up rate.
    """

    model: int
    accuracy: Estimate
    genuine: Estimate


@dataclass(frozen=True)
class Leaderboard:
    """Everything the page shows.

    Attributes:
        models: the models, in the comparison's order.
        rankings: one per task, in the package's benchmark and perturbation order.
        scatter: benchmark -> each model's accuracy and follow-up rate.
        notes: model index -> why it is not comparable with the first model (settings named).
        settings: the interval settings.
    """

    models: list[ModelRun]
    rankings: list[RateRanking]
    scatter: dict[str, list[AccuracyPoint]]
    notes: dict[int, list[str]]
    settings: EstimateSettings


def _task_order(models: Sequence[ModelRun]) -> list[tuple[str, str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for model in models:
        if model.summary is None:
            continue
        for name, row in model.summary.tasks.items():
            if row.benchmark is not None:
                found.setdefault(name, (row.benchmark, row.perturbation or output.PERTURBATION_NONE))
    benches, perts = list(BENCHMARKS), {p: i for i, p in enumerate(perturbations.names())}
    return sorted(((t, b, p) for t, (b, p) in found.items()),
                  key=lambda x: (benches.index(x[1]) if x[1] in benches else len(benches), x[1], perts.get(x[2], 99),
                                 x[0]))


def _estimate(model: ModelRun, task: str, metric: str) -> Estimate:
    row = model.task(task)
    found = None if row is None else row.metric(metric)
    return found or Estimate(metric, None)


def rank_task(models: Sequence[ModelRun], task: str, benchmark: str, perturbation: str,
              settings: EstimateSettings) -> RateRanking:
    """The models ranked on one task's genuine follow-up rate.

    Args:
        models: the models.
        task: the task.
        benchmark: its benchmark.
        perturbation: its perturbation.
        settings: the bootstrap's replicates, seed and confidence.
    """
    present = [i for i, m in enumerate(models) if m.task(task) is not None and task in m.counts]
    counts: list[DocCounts] = [models[i].counts[task] for i in present]
    ranking = rank_bootstrap(counts, iterations=settings.iterations, seed=settings.seed,
                             confidence=settings.confidence)
    placed = []
    for position, column in enumerate(ranking.order):
        last = position == len(ranking.order) - 1
        placed.append(Placed(present[column], _estimate(models[present[column]], task, output.GENUINE),
                             ranking.ranks[column], None if last else ranking.next_difference[position],
                             None if last else ranking.significant(position)))
    ranked = {p.model for p in placed}
    placed += [Placed(i, _estimate(models[i], task, output.GENUINE)) for i, m in enumerate(models)
               if m.task(task) is not None and i not in ranked]
    return RateRanking(task, benchmark, perturbation, ranking.docs, placed)


def _scatter(models: Sequence[ModelRun], order: list[tuple[str, str, str]]) -> dict[str, list[AccuracyPoint]]:
    out: dict[str, list[AccuracyPoint]] = {}
    for benchmark in dict.fromkeys(b for _, b, _ in order):
        tasks = [t for t, b, p in order if b == benchmark and p == output.PERTURBATION_NONE]
        if not tasks:
            continue
        points = []
        for i, model in enumerate(models):
            genuine = _estimate(model, tasks[0], output.GENUINE)
            accuracy = _estimate(model, tasks[0], output.ACCURACY)
            if genuine.value is not None or accuracy.value is not None:
                points.append(AccuracyPoint(i, accuracy, genuine))
        if points:
            out[benchmark] = points
    return out


def _notes(models: Sequence[ModelRun]) -> dict[int, list[str]]:
    """Per model, the settings in which its runs differ from the first readable model's."""
    keys = [k for k in GATE_KEYS if k not in _MODEL_OWN]
    readable = [i for i, m in enumerate(models) if m.summary is not None]
    if not readable:
        return {}
    first = models[readable[0]]
    assert first.summary is not None
    out: dict[int, list[str]] = {}
    for i in readable[1:]:
        summary = models[i].summary
        assert summary is not None
        found = []
        for task in summary.tasks:
            if task in first.summary.tasks and summary.tasks[task].benchmark is not None:
                found += [f"{task}: {d}" for d in differences(first.summary.task_provenance(task),
                                                              summary.task_provenance(task), keys)]
        if found:
            out[i] = [f"not comparable with {first.name}: {d}" for d in found]
    return out


def leaderboard(models: Sequence[ModelRun], settings: EstimateSettings) -> Leaderboard:
    """Rank the models on every headline rate (module doc).

    Args:
        models: each model's run (those that could not be read are listed, not ranked).
        settings: interval settings.
    """
    order = _task_order(models)
    rankings = [rank_task(models, task, bench, pert, settings) for task, bench, pert in order]
    return Leaderboard(list(models), rankings, _scatter(models, order), _notes(models), settings)
