"""A judged saved run full of hostile text, for the attack suite."""

from __future__ import annotations

import json
from pathlib import Path

from saved_runs import write_run

from uta_tasks.schema import output

SECRETS = ("hunter2", "tok-SECRET-123", "AZ-SECRET-456", "sk-live-abcdefghijkl", "hf_TOKENTOKEN", "KEY-SECRET-1",
           "AUTH-SECRET-2", "PASS-SECRET-3", "ss-SECRET-4", "COMMA-SECRET-5", "PW-SECRET-6", "SPACE-SECRET-7",
           "TOKEN-SECRET-8")
MODEL_ARGS = ("pretrained=org/model-a,base_url=https://bob:hunter2@api.example.com/v1/completions,"
              "api_key=sk-live-abcdefghijkl,token=hf_TOKENTOKEN,"
              "header={'Authorization': 'Bearer tok-SECRET-123', 'api-key': 'AZ-SECRET-456'},"
              "key=KEY-SECRET-1,auth=AUTH-SECRET-2,pass=PASS-SECRET-3,"
              "tokenizer_base=https://u:p@ss-SECRET-4@hub.example.com/x,api_key=abc,COMMA-SECRET-5,"
              "credentials={'user': 'u', 'pw': 'PW-SECRET-6'},password='a b SPACE-SECRET-7',"
              "headers={'Authorization': 'Token a TOKEN-SECRET-8'}")
PAYLOAD = '<img src=x onerror="window.__pwned=1">'
HOSTILE_NAME = f"{PAYLOAD}\u202eevil\x1b[2J\x00\ud800 | *x* [l](javascript:alert(1))"
INVALID = "INVALID-BYTES-HERE"
HOSTILE_TURNS = [
    "lone \ud800 high and \udfff low surrogates",
    "NUL \x00 inside, ESC \x1b[31m red",
    "right-to-left \u202eoverride\u202c and \u2066isolate\u2069",
    '</script><script>window.__pwned=1</script><svg onload="window.__pwned=1">',
    f"{PAYLOAD} ]]><!-- {{{{7*7}}}} `code` | pipe | **bold** [x](javascript:alert(1))",
    f"invalid utf-8: {INVALID}",
]
BIG = "A" * 1_000_000


def hostile_run(root: Path, judge: dict) -> tuple[Path, list[str]]:
    """A judged saved run whose texts, model name and model_args are hostile; and its user turns as read."""
    folder = write_run(root, "org/model-a", {"uta_gsm8k": 6, "uta_gsm8k_trunc": 3}, judge)
    turns = []
    for path in folder.glob("samples_*.jsonl"):
        lines = []
        for index, line in enumerate(path.read_text().splitlines()):
            row = json.loads(line)
            record = json.loads(row["filtered_resps"][0][0])
            turn = HOSTILE_TURNS[index % len(HOSTILE_TURNS)]
            turn = f"{record['task']} {index}: {turn}"  # one item per turn: a source holds one verdict each
            record["u"] = turn if index else turn + BIG
            record["u_ref"] = f"{turn} (on the unperturbed answer)"
            turns.append(record["u"].replace(INVALID, "\ufffd\ufffd\ufffd( bytes"))
            record["a_prime"] = record["history"] = f"{HOSTILE_TURNS[(index + 1) % len(HOSTILE_TURNS)]}"
            record["q"] = f"{PAYLOAD} question {index}"
            row["resps"] = row["filtered_resps"] = [[json.dumps(record)]]
            row["doc"]["answer"] = f"{PAYLOAD} so #### {index}"  # GSM8K's schema: uta-rejudge rescores
            lines.append(json.dumps(row))
        data = ("\n".join(lines) + "\n").encode()
        path.write_bytes(data.replace(INVALID.encode(), b"\xff\xfe\xc3( bytes"))
    (results,) = folder.glob("results_*.json")
    data = json.loads(results.read_text())
    data["model_name"] = HOSTILE_NAME
    for task in data["results"]:  # lm-eval's aggregate (the gate and the summary recount it from the samples)
        data["results"][task] = {"alias": task, "genuine_followup,none": 0.5, "genuine_followup_stderr,none": 0.1}
    data["configs"] = task_configs(data["results"])
    data["config"]["model_args"] = MODEL_ARGS
    results.write_text(json.dumps(data))
    return folder, turns


def task_configs(tasks: list[str] | dict) -> dict:
    """lm-eval's ``configs`` of the saved tasks, naming their benchmark (GSM8K) and perturbation."""
    return {task: {"task": task, "metadata": {output.META_BENCHMARK: "gsm8k",
                                              output.META_PERTURBATION: "trunc" if task.endswith("_trunc") else "none"}}
            for task in tasks}


def scored_run(root: Path, judge: dict, tasks: dict[str, int]) -> Path:
    """A judged saved run whose results file names each task's benchmark and whose docs carry
    GSM8K's answer, so that every command scores it as a uta run; returns the model folder."""
    folder = write_run(root, "org/model-a", tasks, judge)
    for path in folder.glob("samples_*.jsonl"):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            row["doc"]["answer"] = f"so #### {row['doc_id']}"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (results,) = folder.glob("results_*.json")
    data = json.loads(results.read_text())
    data["configs"] = task_configs(data["results"])
    results.write_text(json.dumps(data))
    return folder
