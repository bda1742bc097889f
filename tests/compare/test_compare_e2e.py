"""``uta-compare`` for real: three models on the CPU, each in a ``uta-eval`` process of its own.

The real SmolLM2 (``--model hf``) generates its answers; two scripted models (``--model
uta-scripted``, constructed by lm-eval from ``--model_args``: a model that cannot run here) read
theirs from saved runs published on a Hub double, by their Hub address. The judge is the scripted
OpenAI-compatible double on 127.0.0.1, one request at a time, with its on-disk cache. The
comparison is killed (SIGKILL) while the second model is being judged, then run again: the first
model is not run again, and no verdict answered before the kill is asked for again. The page is
opened in headless Chromium: the rankings, the figure, the links to each model's report and the
rank intervals are there.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from compare_env import GSM8K, ROOT, TOKENIZER, process_env
from published import details, published_run

pytestmark = pytest.mark.slow

TASKS = ["uta_gsm8k", "uta_gsm8k_trunc"]
LIMIT, MAX_GEN_TOKS = 3, 48
COMMIT = hashlib.sha1(b"published").hexdigest()
CURIOUS_TURN = "Why does it end with"  # the scripted curious model's user turns (tests/compare/scripted_backend.py)


def _compare(config: Path, out: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "uta_tasks.apps.compare", str(config), "--output_path", str(out),
                             "--iterations", "300"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _key(body: dict) -> str:
    return json.dumps(body.get("messages"), sort_keys=True)


def test_three_models_one_page_killed_and_resumed_without_paying_twice(smollm2_dir, tmp_path):
    from fault_server import MODEL, FaultConfig, FaultServer
    from hub_double import HubDouble, Repo

    repos = {}
    for kind in ("curious", "echo"):
        folder = published_run(kind, f"org/{kind}", tmp_path / "published" / kind, TASKS, LIMIT, MAX_GEN_TOKS)
        repos[f"org/{kind}-details"] = Repo(commits={COMMIT: details(folder, f"org__{kind}")}, refs={"main": COMMIT})
    killed: dict[str, float] = {}
    running: list[subprocess.Popen] = []
    lock = threading.Lock()

    def kill_on_the_third_curious_turn(_count: int) -> None:
        with lock:
            curious = [r for r in server.requests if r.user_turn and r.user_turn.startswith(CURIOUS_TURN)]
            if len(curious) == 3 and not killed:
                killed["at"] = time.monotonic()
                os.kill(running[0].pid, signal.SIGKILL)  # the comparison; its uta-eval gets SIGTERM
                time.sleep(3)  # this request stays unanswered until that process is gone

    with HubDouble(repos) as hub, FaultServer(FaultConfig(on_chat=kill_on_the_third_curious_turn)) as server:
        config = tmp_path / "models.yaml"
        scripted = f"tokenizer={TOKENIZER}"
        config.write_text(yaml.safe_dump({
            "tasks": TASKS, "limit": LIMIT, "gen_kwargs": f"max_gen_toks={MAX_GEN_TOKS}",
            "metadata": {"gsm8k_data_files": str(GSM8K), "judge_base_url": server.base_url, "judge_model": MODEL,
                         "judge_cache": str(tmp_path / "judge.sqlite"), "judge_concurrency": 1,
                         "user_max_gen_toks": 24},
            "models": [
                {"name": "smollm2", "model": "hf", "model_args": f"pretrained={smollm2_dir}",
                 "eval_args": ["--device", "cpu", "--batch_size", "8"]},
                {"name": "curious", "model": "uta-scripted", "model_args": f"pretrained=org/curious,{scripted},script=curious",
                 "answers_from": "hf://datasets/org/curious-details/org__curious"},
                {"name": "echo <i>", "model": "uta-scripted", "model_args": f"pretrained=org/echo,{scripted},script=echo",
                 "answers_from": "hf://datasets/org/echo-details/org__echo"},
            ]}))
        out = tmp_path / "cmp"
        env = process_env(HF_ENDPOINT=hub.endpoint, HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="0")
        first = _compare(config, out, env)
        running.append(first)
        said, _ = first.communicate(timeout=1200)
        assert first.returncode == -signal.SIGKILL and killed, said[-3000:]
        assert "[1/3] smollm2: eval done" in said and "[2/3] curious: eval (missing" in said, said[-3000:]
        before = {_key(r.body) for r in server.chat_requests() if r.user_turn and r.answered and r.answered < killed["at"]}
        (smollm2_results,) = (out / "runs" / "smollm2").rglob("results_*.json")
        digest = hashlib.sha256(smollm2_results.read_bytes()).hexdigest()
        assert not list((out / "runs" / "curious").rglob("results_*.json")), "the killed model left no results file"
        server.reset_counts()

        again = _compare(config, out, env)
        said, _ = again.communicate(timeout=1200)
        assert again.returncode == 0, said[-3000:]
    assert "[1/3] smollm2: eval skipped" in said and "[2/3] curious: eval done" in said
    assert [p.name for p in (out / "runs" / "smollm2").rglob("results_*.json")] == [smollm2_results.name]
    assert hashlib.sha256(smollm2_results.read_bytes()).hexdigest() == digest
    assert (out / "logs" / "smollm2.eval.log").read_text().count("\n=== ") == 1, "smollm2 ran once"
    after = [_key(r.body) for r in server.requests if r.user_turn]
    assert len(after) == len(set(after)), "no user turn is judged twice after the resume"
    assert before and not before & set(after), "no verdict answered before the kill is asked for again"
    assert sum(1 for r in server.requests if r.user_turn and r.user_turn.startswith(CURIOUS_TURN)) < 6, \
        "the curious model's verdicts cached before the kill came from the cache"

    board = json.loads((out / "leaderboard.json").read_text())
    assert [m["name"] for m in board["models"]] == ["smollm2", "curious", "echo <i>"]
    assert "hf://datasets/org/curious-details/org__curious" in board["models"][1]["answers"] and board["models"][0]["answers"] == "generated"
    for ranking in board["rankings"]:
        rows = {r["model"]: r for r in ranking["models"]}
        assert rows["curious"]["value"] == 1.0 and rows["echo <i>"]["value"] == 0.0
        assert rows["curious"]["rank"] == 1 and rows["echo <i>"]["rank"] >= 2
    _check_the_page_in_chromium(out, tmp_path / "profile")


def _check_the_page_in_chromium(out: Path, profile: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
    from browser import start_chromium
    from selenium.webdriver.common.by import By

    driver = start_chromium(profile)
    try:
        driver.get((out / "index.html").as_uri())
        for task in TASKS:
            rows = driver.find_elements(By.CSS_SELECTOR, f"#table-rank-{task} tbody tr")
            assert len(rows) == 3
            cells = [[c.text for c in row.find_elements(By.TAG_NAME, "td")] for row in rows]
            assert cells[0][2] == "curious" and cells[0][0] == "1" and all(c[1] for c in cells)  # rank intervals
            assert driver.find_element(By.CSS_SELECTOR, f"#fig-rank-{task} svg").size["height"] > 50
        assert "echo <i>" in driver.find_element(By.ID, "table-models").text  # shown as text, not markup
        assert not driver.find_elements(By.CSS_SELECTOR, "#table-models i")
        figure = driver.find_element(By.CSS_SELECTOR, "#fig-accuracy svg")
        assert figure.size["width"] > 200 and len(figure.find_elements(By.TAG_NAME, "circle")) == 3
        links = driver.find_elements(By.CSS_SELECTOR, "#table-models a.model")
        assert [a.text for a in links] == ["smollm2", "curious", "echo <i>"]
        links[1].click()
        assert driver.current_url.endswith("reports/curious/report.html")
        assert "curious" in driver.title
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == []
    finally:
        driver.quit()
