"""The records of a saved-run probe on a fixture of each source of saved answers (issue 54): what
``tests/fixtures/saved_records/make_golden.py`` wrote with the code before the sources moved, and
``test_saved_records_unchanged.py`` compares byte for byte.

Each probe is ``uta_wrap_gsm8k`` through lm-eval's evaluator with a scripted model on committed
fixtures; paths are written relative to the repository (``<root>``) so that a checkout elsewhere
gives the same bytes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline_run import NO_JUDGE, evaluate
from saved_lm_eval_runs import GSM8K, GreedyLM, greedy_script, plain_gsm8k_folder, save

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "fixtures" / "saved_records"
LM_EVAL_RUN = GOLDEN / "lm_eval_run"  # a plain lm-eval gsm8k run of the scripted model, 3 documents
LOGS = ROOT / "tests" / "fixtures" / "harness_logs"
TASK = "uta_wrap_gsm8k"
GEN = {"max_gen_toks": 200}
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def make_lm_eval_run(tokenizer: Any) -> None:
    """Write the committed lm-eval run the ``lm_eval`` and ``hub`` goldens read (once)."""
    with tempfile.TemporaryDirectory() as tmp:
        plain = evaluate(GreedyLM(tokenizer, greedy_script), ["gsm8k"], include=(plain_gsm8k_folder(Path(tmp)),),
                         limit=3, apply_chat_template=True, num_fewshot=0, gen_kwargs=GEN)
        folder = save(plain, Path(tmp) / "out")
        shutil.rmtree(LM_EVAL_RUN, ignore_errors=True)
        shutil.copytree(folder, LM_EVAL_RUN)
        # no path of this machine in a committed file: the data file repo-relative, the task file by its name
        repo = f"{Path(__file__).resolve().parents[2]}/"
        for results in LM_EVAL_RUN.glob("results_*.json"):
            results.write_text(results.read_text().replace(repo, "").replace(f"{tmp}/", ""))


def _wrap(tmp: Path) -> Path:
    from uta_tasks.wrap.check import plan
    from uta_tasks.wrap.yamls import write

    write(tmp / "wrap", plan(["gsm8k"]), {})
    return tmp / "wrap"


def _hub_module() -> Any:
    """The module that downloads a Hub repo, wherever the code under test keeps it."""
    import importlib

    for name in ("uta_tasks.saved_answers.hub", "uta_tasks.runs.hub_source"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError("no Hub source module")


def _snapshot(tmp: Path) -> Callable[..., str]:
    """``snapshot_download`` as the Hub cache answers it: the committed run under ``scripted__model/``
    of a snapshot named by its commit."""
    snapshot = tmp / "snapshots" / COMMIT
    shutil.copytree(LM_EVAL_RUN, snapshot / "scripted__model")

    def download(repo_id: str, **kwargs: Any) -> str:
        return str(snapshot)

    return download


def probe(source: str, tokenizer: Any, monkeypatch: Any = None) -> str:
    """The records (one JSON text a line) of the probe on ``source``'s fixture, paths relative."""
    from harness_logs import ended_script

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        wrap = _wrap(tmp)
        lm = GreedyLM(tokenizer, greedy_script if source in ("lm_eval", "hub") else ended_script)
        kwargs: dict[str, Any] = {"limit": 3}
        if source == "lm_eval":
            answers_from = str(LM_EVAL_RUN)
        elif source == "hub":
            hub = _hub_module()
            monkeypatch.setattr(hub, "snapshot_download", _snapshot(tmp))
            answers_from = "hf://datasets/open-llm-leaderboard/scripted__model-details/scripted__model"
        elif source == "inspect":
            answers_from = str(LOGS / "inspect_gsm8k.eval")
        elif source == "lighteval":
            (details,) = (LOGS / "lighteval" / "details").rglob("details_*.parquet")
            answers_from, kwargs = str(details), {"limit": None, "samples": {TASK: [1, 2]}}
        else:
            raise ValueError(source)
        metadata = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": answers_from}
        results = evaluate(lm, [TASK], metadata=metadata, include=(wrap,), gen_kwargs=GEN, **kwargs)
        lines = [_text(r) for s in results["samples"][TASK] for r in s["filtered_resps"][0]]
        return "".join(line.replace(str(ROOT), "<root>").replace(str(tmp), "<tmp>") + "\n" for line in lines)


def _text(record: Any) -> str:
    """A record's JSON as the probe wrote it (a ``FilteredRecord``'s text, or the text itself)."""
    text = getattr(record, "text", record)
    return text if isinstance(text, str) else json.dumps(text, sort_keys=True)


class _Patch:
    """A monkeypatch for the script (pytest's outside pytest)."""

    def __init__(self) -> None:
        self.undo: list[tuple[Any, str, Any]] = []

    def setattr(self, target: Any, name: str, value: Any) -> None:
        self.undo.append((target, name, getattr(target, name)))
        setattr(target, name, value)

    def close(self) -> None:
        for target, name, value in reversed(self.undo):
            setattr(target, name, value)


SOURCES = ("lm_eval", "hub", "inspect", "lighteval")


def write_all(tokenizer: Any) -> None:
    """Write every golden file (and the lm-eval run, when it is not there yet)."""
    if not LM_EVAL_RUN.exists():
        make_lm_eval_run(tokenizer)
    for source in SOURCES:
        patch = _Patch()
        try:
            (GOLDEN / f"{source}.jsonl").write_text(probe(source, tokenizer, patch), encoding="utf-8")
        finally:
            patch.close()
