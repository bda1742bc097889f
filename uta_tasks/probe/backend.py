"""One batched backend call for a list of prompts.

The backend is the lm-eval model object itself (``hf``, ``vllm``, ...): prompts go through
its own ``generate_until``, so its batching, stop handling and device placement are used
unchanged. Two savings on top:

* identical greedy requests (same prompt, same generation settings) are generated once;
* with ``--use_cache``, results are looked up in and written to lm-eval's own request cache
  under the same key lm-eval uses for ``generate_until``; sampled requests are never
  cached, as in lm-eval.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.schema.generation import is_greedy

log = logging.getLogger(__name__)


def temperature(gen_kwargs: Mapping[str, Any]) -> float:
    """The temperature lm-eval will decode these settings at (0 when greedy).

    Args:
        gen_kwargs: generation settings of one request.
    """
    return 0.0 if is_greedy(dict(gen_kwargs)) else float(gen_kwargs.get("temperature", 0.0) or 0.0)


@dataclass
class BatchStats:
    """What one batched call did.

    Attributes:
        requested: prompts asked for.
        unique: after merging identical greedy requests.
        cached: served from lm-eval's request cache.
        generated: sent to the backend.
    """

    requested: int = 0
    unique: int = 0
    cached: int = 0
    generated: int = 0
    calls: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass
class Backend:
    """Wraps an lm-eval model for batched, deduplicated, cached generation.

    Args:
        lm: the underlying lm-eval model (not the ``CachingLM`` wrapper).
    """

    lm: Any
    stats: dict[str, BatchStats] = field(default_factory=dict)

    def _cache(self) -> Any:
        return compat.request_cache(self.lm)

    def generate(self, prompts: list[tuple[str, dict]], *, name: str) -> list[str]:
        """Generate a continuation for every (prompt, gen_kwargs) in ONE backend call.

        Args:
            prompts: the requests, in order.
            name: label for logs and :attr:`stats` (``assistant`` or ``user``).
        """
        stats = BatchStats(requested=len(prompts))
        self.stats[name] = stats
        cache = self._cache()
        results: list[str | None] = [None] * len(prompts)
        first_of: dict[str, int] = {}
        todo: list[int] = []
        for i, (prompt, gen_kwargs) in enumerate(prompts):
            greedy = is_greedy(gen_kwargs)
            key = json.dumps([prompt, gen_kwargs], sort_keys=True) if greedy else f"sample:{i}"
            if key in first_of:
                continue
            first_of[key] = i
            if greedy and cache is not None:
                hit = cache.get(compat.request_cache_key(prompt, gen_kwargs))
                if hit is not None:
                    results[i] = hit
                    stats.cached += 1
                    continue
            todo.append(i)
        stats.unique = len(first_of)
        if todo:
            instances = [compat.backend_instance(prompts[i]) for i in todo]
            outputs = self.lm.generate_until(instances)
            stats.calls = 1
            stats.generated = len(todo)
            for i, text in zip(todo, outputs, strict=True):
                results[i] = text
                prompt, gen_kwargs = prompts[i]
                if cache is not None and is_greedy(gen_kwargs):
                    cache[compat.request_cache_key(prompt, gen_kwargs)] = text
            if cache is not None and hasattr(cache, "commit"):
                cache.commit()
        for i, (prompt, gen_kwargs) in enumerate(prompts):
            if results[i] is None:
                key = json.dumps([prompt, gen_kwargs], sort_keys=True)
                results[i] = results[first_of[key]]
        log.info("uta %s pass (%s)", name, stats.as_dict())  # not "pass: {": the log redaction masks a "pass:" value
        return [r if r is not None else "" for r in results]
