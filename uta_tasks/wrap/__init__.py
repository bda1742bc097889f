"""Any lm-eval ``generate_until`` task as a user-turn probe family (``uta:NAME``).

- :mod:`.names`: the names of a wrapped task, its family group, and its benchmark.
- :mod:`.settings`: the settings of a wrapped task (few-shot count, local data, primary metric).
- :mod:`.check`: which tasks can be wrapped, decided from lm-eval's index without running
  task code; a refusal names the task and the reason.
- :mod:`.benchmark`: the :class:`~uta_tasks.datasets.base.Benchmark` of a wrapped task,
  built from the source task itself (its docs, its prompt, its filters and scoring).
- :mod:`.yamls`: the task and group YAML of a wrapped family, for ``--include_path``.
- :mod:`.command`: ``python -m uta_tasks wrap`` and the ``uta:NAME`` expansion of ``uta-eval``.

Everything read from lm-eval goes through :mod:`uta_tasks.lm_eval_compat.source_tasks`.
"""

from __future__ import annotations

from .names import WRAP_PREFIX, is_wrapped
from .settings import WrapError

__all__ = ["WRAP_PREFIX", "WrapError", "is_wrapped"]
