"""Run the probe on a Hub address in a process of its own, as ``uta-eval`` does: huggingface_hub
reads ``HF_ENDPOINT``, ``HF_HOME`` and ``HF_TOKEN`` when it is imported.

``python hub_probe_client.py ANSWERS_FROM WRAP_FOLDER`` writes one JSON object to stdout:
``{"records": [record JSON, ...]}``, or ``{"error": message}`` when the task refuses the address.
"""

from __future__ import annotations

import json
import sys

from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import GSM8K, GreedyLM, greedy_script
from scripted_lm import load_tokenizer

from uta_tasks.lm_eval_task import UTATaskError

TASK = "uta_wrap_gsm8k"

if __name__ == "__main__":
    answers_from, wrap = sys.argv[1], sys.argv[2]
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": answers_from}
    try:
        results = evaluate(GreedyLM(load_tokenizer(), greedy_script), [TASK], metadata=meta, include=(wrap,), limit=3,
                           gen_kwargs={"max_gen_toks": 200})
    except UTATaskError as exc:
        sys.stdout.write(json.dumps({"error": str(exc)}) + "\n")
    else:
        sys.stdout.write(json.dumps({"records": [r.to_json() for r in records(results, TASK)]}) + "\n")
