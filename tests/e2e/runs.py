"""Helpers of the end-to-end tests: run lm-eval in process and read its logged samples."""

from __future__ import annotations

import json
from pathlib import Path

IFBENCH = ["uta_ifbench", "uta_ifbench_trunc", "uta_ifbench_question"]
# Small budgets keep CPU runs short; the behaviour under test does not depend on length.
GEN = {"max_gen_toks": 40}
# IFBench docs whose verifier needs NLTK data that no package ships are left out (see benchmarks).
NO_JUDGE = {"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": 16}


def evaluate(lm, tasks, *, metadata=None, include=(), **kwargs):
    """Run lm-eval's simple_evaluate with the uta tasks visible."""
    import lm_eval

    import uta_tasks

    tm = uta_tasks.task_manager(metadata=metadata or dict(NO_JUDGE))
    if include:
        from lm_eval.tasks import TaskManager

        tm = TaskManager(include_path=[uta_tasks.include_path(), *map(str, include)], metadata=metadata or dict(NO_JUDGE))
    kwargs.setdefault("gen_kwargs", dict(GEN))
    return lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=tm, log_samples=True, **kwargs)


def records(results, task):
    """The probe records of a task's logged samples, decoded (every text whole) as plain dicts."""
    from uta_tasks.schema.probe import ProbeRecord

    return [ProbeRecord.from_json(r).to_dict() for s in results["samples"][task] for r in s["resps"][0]]


def logged_record_text(results, task) -> str:
    return results["samples"][task][0]["resps"][0][0]


def model_dir_without_template(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    (dst / "chat_template.jinja").unlink(missing_ok=True)
    cfg = json.loads((dst / "tokenizer_config.json").read_text())
    cfg.pop("chat_template", None)
    (dst / "tokenizer_config.json").write_text(json.dumps(cfg))
    return dst
