"""``answers_from`` on a published details repo by its Hub address (issue 43): a plain lm-eval run
laid out as the Open LLM Leaderboard's details repos are (one folder per model, 2024's ``.json``
samples names), served by a local double of the Hub that huggingface_hub reaches through
``HF_ENDPOINT``; the probe reads it through the Hub cache, as it would read a folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from pipeline_run import evaluate
from saved_lm_eval_runs import GreedyLM, greedy_script, plain_gsm8k_folder, save, saved_prompt

from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from hub_double import HubDouble, Repo  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).with_name("hub_probe_client.py")
TOKEN = "hf_uta_probe_token_never_shown_5678"
DETAILS, GATED = "open-llm-leaderboard/scripted__model-details", "open-llm-leaderboard/gated__model-details"
COMMIT = hashlib.sha1(b"details").hexdigest()


def _details(folder: Path) -> dict[str, bytes]:
    """The saved run's files under ``scripted__model/``, its samples named ``.json`` as in 2024."""
    return {f"scripted__model/{p.name.removesuffix('l') if p.name.startswith('samples_') else p.name}": p.read_bytes()
            for p in folder.iterdir()}


def _probe(answers_from: str, wrap: Path, endpoint: str, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env.update(HF_HOME=str(home), HF_ENDPOINT=endpoint, HF_TOKEN=TOKEN, HF_HUB_DISABLE_TELEMETRY="1",
               HF_HUB_DISABLE_PROGRESS_BARS="1", NO_PROXY="127.0.0.1", no_proxy="127.0.0.1",
               PYTHONPATH=os.pathsep.join([str(CLIENT.parent), str(ROOT), env.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(CLIENT), answers_from, str(wrap)], env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert TOKEN not in done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_details_repo_is_probed_by_its_address_and_a_gated_one_is_refused(tokenizer, tmp_path):
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    plain = evaluate(GreedyLM(tokenizer, greedy_script), ["gsm8k"], include=(plain_gsm8k_folder(tmp_path / "plain"),),
                     limit=3, apply_chat_template=True, num_fewshot=0, gen_kwargs={"max_gen_toks": 200})
    files = _details(save(plain, tmp_path / "out"))
    saved = {s["doc_id"]: s for s in plain["samples"]["gsm8k"] if s["filter"] == "flexible-extract"}
    repos = {DETAILS: Repo(commits={COMMIT: files}, refs={"main": COMMIT}),
             GATED: Repo(commits={COMMIT: files}, refs={"main": COMMIT}, gated=True)}
    with HubDouble(repos) as hub:
        out = _probe(f"hf://datasets/{DETAILS}/scripted__model", tmp_path / "wrap", hub.endpoint, tmp_path / "hf")
        gated = _probe(f"hf://datasets/{GATED}/scripted__model", tmp_path / "wrap", hub.endpoint, tmp_path / "hf")
    probed = [ProbeRecord.from_json(r) for r in out["records"]]
    assert len(probed) == 3
    for record in probed:
        theirs = saved[record.answer_source["doc_id"]]
        assert record.pass1_prompt == saved_prompt(theirs) and record.a.startswith(theirs["resps"][0][0])
        assert record.answer_source["hub"] == {"repo": DETAILS, "revision": COMMIT, "folder": "scripted__model"}
        assert record.answer_source["path"] == f"hf://datasets/{DETAILS}/scripted__model"
        assert record.answer_source["samples"].endswith(".json")
    assert f"{hub.endpoint}/datasets/{GATED}" in gated["error"] and "HF_TOKEN" in gated["error"]
