"""The benchmarks of the user-turn probe: data, the user turn ``q``, and accuracy.

``BENCHMARKS`` maps each name to its :class:`~uta_tasks.datasets.base.Benchmark`: one
module per benchmark (``BENCHMARK``), GPQA's one module for its two configs (``BENCHMARKS``).
Self-generated: gsm8k, ifeval, ifbench, gpqa_main, gpqa_diamond. Held-out (the
assistant turn comes from the data): healthbench, conversations. Each module's
``load`` is an lm-eval ``custom_dataset``; data settings are described in
:mod:`uta_tasks.datasets.sources`.
"""

from __future__ import annotations

from . import conversations, gpqa, gsm8k, healthbench, ifbench, ifeval
from .base import Benchmark
from .errors import BenchmarkDataError, BenchmarkScorerError

BENCHMARKS: dict[str, Benchmark] = {
    bench.name: bench
    for bench in (gsm8k.BENCHMARK, ifeval.BENCHMARK, ifbench.BENCHMARK, *gpqa.BENCHMARKS, healthbench.BENCHMARK,
                  conversations.BENCHMARK)
}

__all__ = ["BENCHMARKS", "Benchmark", "BenchmarkDataError", "BenchmarkScorerError"]
