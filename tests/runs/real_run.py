"""A real small run on disk, shared by the runs, gate and report tests.

``write_real_run`` runs lm-eval in process (``simple_evaluate`` on an already loaded
``--model hf`` SmolLM2) on 3 docs of uta_ifbench and uta_ifbench_trunc, judged by the local
llama-server, and saves the output folder exactly as the ``lm_eval`` command does with
``--output_path ... --log_samples``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

TASKS = ["uta_ifbench", "uta_ifbench_trunc"]
LIMIT = 3


def judge_metadata(url: Any, cache: Path) -> dict[str, Any]:
    """``--metadata`` of the run: the local judge and small budgets for the CPU."""
    return {
        "judge": "openai",
        "judge_base_url": str(url),
        "judge_model": getattr(url, "model", "smollm2-135m-instruct"),
        "judge_cache": str(cache),
        "judge_max_tokens": 384,
        "ifbench_unverifiable": "drop",
        "user_max_gen_toks": 24,
        "metrics": "full",
    }


def write_real_run(lm: Any, model_dir: Path, url: Any, out: Path, *, temperature: float = 0.0,
                   predict_only: bool = False) -> Path:
    """Run the two uta tasks and write an lm-eval output folder.

    Args:
        lm: a loaded lm-eval HFLM.
        model_dir: its pretrained directory (recorded as ``model_args``).
        url: the judge's base URL (``LocalServer`` or str).
        out: the ``--output_path`` folder.
        temperature: sampling temperature (``--gen_kwargs temperature=...``).
        predict_only: generate only, judge nothing (``--predict_only``; judge later with uta-rejudge).

    Returns:
        ``out``.
    """
    import lm_eval
    from lm_eval.loggers import EvaluationTracker

    import uta_tasks

    tracker = EvaluationTracker(output_path=str(out))
    metadata = judge_metadata(url, out.parent / f"{out.name}-judge.sqlite")
    results = lm_eval.simple_evaluate(
        model=lm,
        model_args=f"pretrained={model_dir}",
        tasks=list(TASKS),
        limit=LIMIT,
        gen_kwargs={"max_gen_toks": 40, "temperature": temperature},
        task_manager=uta_tasks.task_manager(metadata=metadata),
        log_samples=True,
        evaluation_tracker=tracker,
        bootstrap_iters=100,
        predict_only=predict_only,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    return out


# ---- the session fixture (imported by the conftest.py of tests/runs, tests/gate, tests/report) ----
# One run per session even though three conftests import the fixture (each import is its own
# fixture definition): the first one to run fills this, the others return it.
_CACHE: dict[str, Any] = {}


def _visible(request: pytest.FixtureRequest, name: str) -> Any:
    """The suite's own fixture ``name`` when it is visible here (e.g. moved to tests/conftest.py)."""
    try:
        return request.getfixturevalue(name)
    except pytest.FixtureLookupError:
        return None


def _model(request: pytest.FixtureRequest, model_dir: Path) -> Any:
    lm = _visible(request, "hf_lm")
    if lm is None:
        if "lm" not in _CACHE:
            from lm_eval.models.huggingface import HFLM

            _CACHE["lm"] = HFLM(pretrained=str(model_dir), batch_size=16, device="cpu")
        lm = _CACHE["lm"]
    return lm


def _judge(request: pytest.FixtureRequest) -> Any:
    url = _visible(request, "llama_url")
    if url is None:
        from uta_tasks.servers.llama_server import llama_server

        stack = contextlib.ExitStack()
        request.addfinalizer(stack.close)
        url = stack.enter_context(llama_server(parallel=8, ctx_size=16384))
    return url


@pytest.fixture(scope="session")
def uta_real_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, smollm2_dir: Path) -> Path:
    """The output folder of one real small run (3 docs of uta_ifbench and uta_ifbench_trunc, judged).

    Reuses the suite's ``hf_lm`` and ``llama_url`` fixtures when they are visible from the
    requesting test; otherwise loads SmolLM2 and starts llama-server once for the session.
    """
    if "dir" not in _CACHE:
        lm = _model(request, smollm2_dir)
        url = _judge(request)
        out = tmp_path_factory.mktemp("uta_real_run") / "out"
        _CACHE["dir"] = write_real_run(lm, smollm2_dir, url, out)
    return _CACHE["dir"]
