"""One task of a run as read from its output folder: results, settings, and what its samples show."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.runs.observations import Observations
from uta_tasks.runs.samples import DocSample

if TYPE_CHECKING:
    from uta_tasks.runs.facts import SampleFacts


@dataclass
class TaskRun:
    """One task of a run.

    Attributes:
        name: task name.
        benchmark: ``uta_benchmark`` of the task config (None for tasks that are not uta tasks).
        perturbation: ``none``, ``trunc`` or ``question``.
        repeats: lm-eval ``repeats``.
        n_docs: docs evaluated (lm-eval's effective n-samples), or None when not reported.
        values: metric -> value from the results JSON (NaN where lm-eval wrote NaN).
        stderrs: metric -> lm-eval's bootstrap standard error (NaN or absent when it has none).
        config: the task config lm-eval dumped.
        observations: per-turn observations from the samples, or None without them.
        run_config: the run's own settings from the results JSON (``config``: model,
            ``model_args``, ``gen_kwargs``, ``limit``; and ``system_instruction``).
        from_samples: metrics the results file does not hold (a run with ``metrics: headline``),
            computed from the samples into ``values``.
        facts: what the logged samples show besides metrics (settings, user turns), or None
            without samples.
        examples: the first logged docs in doc order, as many as the reader asked for
            (``load_run(..., examples=N)``: the report's sample browser).
        all_docs: every logged doc, only from ``load_run(..., all_docs=True)`` (see :attr:`docs`).
    """

    name: str
    benchmark: str | None
    perturbation: str
    repeats: int
    n_docs: int | None
    values: dict[str, float]
    stderrs: dict[str, float]
    config: dict[str, Any]
    observations: Observations | None = None
    run_config: dict[str, Any] = field(default_factory=dict)
    from_samples: frozenset[str] = frozenset()
    facts: SampleFacts | None = None
    examples: list[DocSample] = field(default_factory=list)
    all_docs: list[DocSample] | None = field(default=None, repr=False)

    @property
    def logged(self) -> bool:
        """True when the task's samples were logged (``--log_samples``) and read."""
        return self.facts is not None

    @property
    def docs(self) -> list[DocSample] | None:
        """Every logged doc in doc order, or None without samples.

        Raises:
            RuntimeError: the run was read in one streaming pass, which keeps no docs: read
                it with ``load_run(..., all_docs=True)``.
        """
        if self.all_docs is None and self.facts is not None:
            raise RuntimeError(f"{self.name}: the run was read without keeping its docs; read it with "
                               "load_run(path, all_docs=True) to get every logged doc")
        return self.all_docs

    @property
    def model_args(self) -> Any:
        """lm-eval's ``--model_args`` of the run (string or dict as lm-eval wrote it)."""
        return self.run_config.get("model_args")

    @property
    def gen_kwargs(self) -> Any:
        """lm-eval's ``--gen_kwargs`` of the run."""
        return self.run_config.get("gen_kwargs")

    @property
    def system_instruction(self) -> str | None:
        """lm-eval's ``--system_instruction`` of the run, or None."""
        value = self.run_config.get("system_instruction")
        return None if value in (None, "") else str(value)

    @property
    def primary(self) -> str | None:
        """The benchmark's primary accuracy metric (a wrapped lm-eval task's is in its config)."""
        bench = BENCHMARKS.get(self.benchmark) if self.benchmark else None
        return (self.config.get("metadata") or {}).get("uta_primary") if bench is None else bench.primary

    @property
    def is_uta(self) -> bool:
        """True for a uta task (its config names a uta benchmark)."""
        return self.benchmark is not None

    def value(self, metric: str) -> float | None:
        """A metric's value from the results JSON (None when absent or NaN).

        Args:
            metric: metric name as lm-eval reports it.
        """
        value = self.values.get(metric)
        return None if value is None or not math.isfinite(value) else value
