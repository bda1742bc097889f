"""Exceptions of the benchmarks package.

Every message names the benchmark, the data set or resource, and the fix (the
``--metadata`` key to set, how to get access, what to install), so that a run that
cannot score honestly stops early with instructions instead of reporting a wrong number.
"""

from __future__ import annotations


class BenchmarkDataError(ValueError):
    """A benchmark's data cannot be loaded (missing file, offline, gated, malformed)."""


class BenchmarkScorerError(RuntimeError):
    """A benchmark's reference scorer cannot run here (missing verifier package or its
    NLTK data), so no score is given rather than a wrong one."""
