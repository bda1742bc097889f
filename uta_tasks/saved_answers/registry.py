"""The sources of saved answers, one row each (``answers_from``).

A row says where a source's files are, how they are read as the probe's saved answers and what they
do not record (:class:`~uta_tasks.saved_answers.source.Source`). A new source is one module, one
:func:`register` call here and one test (CONTRIBUTING.md, "A source of saved answers"). The order is
the order a file is tried in: lm-eval's samples first.
"""

from __future__ import annotations

from uta_tasks.saved_answers import harness, helm, inspect_log, lighteval_details, lm_eval
from uta_tasks.saved_answers.source import Source
from uta_tasks.schema.probe import SAVED_HELM, SAVED_INSPECT, SAVED_LIGHTEVAL, SAVED_LM_EVAL

SOURCES: dict[str, Source] = {}


def register(source: Source) -> Source:
    """Add a source (its ``kind`` once)."""
    if source.kind in SOURCES:
        raise ValueError(f"the source {source.kind} is registered already")
    SOURCES[source.kind] = source
    return source


def get(kind: str) -> Source:
    """The source of a kind."""
    return SOURCES[kind]


def others() -> list[Source]:
    """Every source but lm-eval's own samples (other harnesses' logs), in their order."""
    return [source for source in SOURCES.values() if source.kind != SAVED_LM_EVAL]


register(Source(SAVED_LM_EVAL, "lm-eval", "an lm-eval samples_<task>_<date>.jsonl", lm_eval.files, lm_eval.read))
register(Source(SAVED_INSPECT, "inspect_ai", "an inspect_ai log (.eval)", inspect_log.files,
                harness.reader(inspect_log.read), unrecorded=("temperature", "max_gen_toks")))
register(Source(SAVED_LIGHTEVAL, "lighteval", "a lighteval details_<task>_<date>.parquet", lighteval_details.files,
                harness.reader(lighteval_details.read), unrecorded=("temperature", "model")))
register(Source(SAVED_HELM, "HELM", "HELM's scenario_state.json", helm.files, harness.reader(helm.read),
                searched=False))
