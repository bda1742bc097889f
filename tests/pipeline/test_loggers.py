"""lm-eval's own W&B logger on a uta run (issue 13 part 3): its sample tables read the
dumped ``metric_list``. A stub ``wandb`` module stands in for the service."""

from __future__ import annotations

import contextlib
import io
import sys
import types
from typing import Any

from pipeline_run import evaluate


class _Run:
    def __init__(self) -> None:
        self.logged: list[dict[str, Any]] = []
        self.artifacts: list[Any] = []
        self.config = types.SimpleNamespace(update=lambda *a, **k: None)
        self.summary = types.SimpleNamespace(update=lambda *a, **k: None)

    def log(self, data: dict[str, Any], step: Any = None) -> None:
        self.logged.append(data)

    def log_artifact(self, artifact: Any) -> None:
        self.artifacts.append(artifact)


class _Artifact:
    def __init__(self, name: str, type: str) -> None:
        self.name, self.files = name, {}

    @contextlib.contextmanager
    def new_file(self, name: str, mode: str = "w", encoding: str = "utf-8"):
        buffer = io.StringIO()
        yield buffer
        self.files[name] = buffer.getvalue()


class _Table:
    def __init__(self, columns: list[str]) -> None:
        self.columns, self.rows = columns, []

    def add_data(self, *row: Any) -> None:
        self.rows.append(row)


def _stub_wandb(monkeypatch) -> _Run:
    run = _Run()
    stub = types.ModuleType("wandb")
    stub.__version__ = "0.19.0"
    stub.run = run
    stub.init = lambda **kwargs: run
    stub.Table = _Table
    stub.Artifact = _Artifact
    stub.require = lambda *a: None
    stub.__path__ = []  # a package: the logger imports wandb.sdk.lib.printer
    printer = types.ModuleType("wandb.sdk.lib.printer")
    printer.new_printer = lambda: types.SimpleNamespace(display=lambda *a, **k: None)
    for name, module in (("wandb", stub), ("wandb.sdk", types.ModuleType("wandb.sdk")),
                         ("wandb.sdk.lib", types.ModuleType("wandb.sdk.lib")), ("wandb.sdk.lib.printer", printer)):
        monkeypatch.setitem(sys.modules, name, module)
    return run


def test_wandb_logger_logs_every_metric_of_the_sample_table(scripted, judge_server, monkeypatch, tmp_path):
    run = _stub_wandb(monkeypatch)
    from lm_eval.loggers import WandbLogger

    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge",
            "judge_cache": str(tmp_path / "judge.sqlite"), "ifbench_unverifiable": "drop", "user_max_gen_toks": 16}
    results = evaluate(scripted, ["uta_ifbench_trunc"], limit=2, metadata=meta)
    samples = results.pop("samples")
    logger = WandbLogger()
    logger.post_init(results)
    logger.log_eval_result()
    logger.log_eval_samples(samples)
    tables = [d["uta_ifbench_trunc_eval_results"] for d in run.logged if "uta_ifbench_trunc_eval_results" in d]
    assert tables, "the sample table was logged"
    listed = {m["metric"] for m in results["configs"]["uta_ifbench_trunc"]["metric_list"]}
    assert {"genuine_followup", "share_changed", "prompt_level_strict_acc"} <= listed
    assert listed <= set(tables[0].columns)
    assert any(a.name == "uta_ifbench_trunc" for a in run.artifacts)
