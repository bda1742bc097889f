"""One judge bill per item (issue 44, item 6): two ``uta-rejudge`` processes on one folder and
one verdict cache, started together against a judge double that counts calls, pay for each
item once, and both end with every verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fault_server import MODEL, FaultConfig, FaultServer
from saved_runs import write_run as write_saved

from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
DOCS = 600
_MAIN = "import sys; from uta_tasks.apps.rejudge.cli import main; sys.exit(main())"


def _verdicts(folder: Path) -> list[Verdict]:
    (path,) = folder.rglob("samples_uta_gsm8k_*.jsonl")
    return [ProbeRecord.from_json(json.loads(line)["resps"][0][0]).verdict for line in path.read_text().splitlines()]


def test_two_concurrent_rejudges_sharing_a_cache_call_the_judge_once_per_item(tmp_path: Path) -> None:
    folder = write_saved(tmp_path / "run", "org/model-a", {"uta_gsm8k": DOCS}, judge=None)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # every answer takes a while, so that both runs are judging at the same time
    with FaultServer(FaultConfig(delay=0.1)) as server:
        meta = {"judge_base_url": server.base_url, "judge_model": MODEL, "judge_cache": str(tmp_path / "cache.sqlite"),
                "judge_max_retries": 0, "judge_concurrency": 16, "judge_concurrency_max": 16}
        runs = [subprocess.Popen([sys.executable, "-c", _MAIN, str(folder), "--metadata", json.dumps(meta),
                                  "--output_path", str(tmp_path / f"judged{n}"), "--bootstrap_iters", "0"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for n in (1, 2)]
        outputs = [run.communicate(timeout=600) for run in runs]
        item_calls = [r for r in server.chat_requests() if r.user_turn is not None]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert len({r.user_turn for r in item_calls}) == DOCS
    assert len(item_calls) == DOCS, f"{len(item_calls)} judge calls for {DOCS} items"
    for n in (1, 2):
        verdicts = _verdicts(tmp_path / f"judged{n}")
        assert len(verdicts) == DOCS and all(v.judged for v in verdicts)
