"""``answers_from`` with the real SmolLM2, greedy (issue 43): a 5-shot lm-eval ``gsm8k`` run, as one
prompt and as earlier chat turns, probed from its samples (the saved prompt is pass 1, character
for character); and the real command lines, ``lm_eval`` then ``uta-eval``, on a run saved without
the chat template: refused with exit 2 before the model loads, and the process exits.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from runs import NO_JUDGE, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from saved_lm_eval_runs import GSM8K, plain_gsm8k_folder, save, saved_prompt  # noqa: E402

from uta_tasks.schema.probe import PROMPT_DIFFERS, ProbeRecord  # noqa: E402
from uta_tasks.wrap.check import plan  # noqa: E402
from uta_tasks.wrap.yamls import write  # noqa: E402

pytestmark = pytest.mark.slow
TASK, LIMIT, GEN = "uta_wrap_gsm8k", 2, {"max_gen_toks": 96}
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("multiturn", [False, True], ids=["one-prompt", "multiturn"])
def test_a_5_shot_run_is_probed_on_its_saved_prompts(lm, smollm2_dir, tmp_path, multiturn):
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    plain = evaluate(lm, ["gsm8k"], include=(plain_gsm8k_folder(tmp_path / "plain"),), limit=LIMIT,
                     apply_chat_template=True, num_fewshot=5, fewshot_as_multiturn=multiturn, gen_kwargs=GEN)
    saved = save(plain, tmp_path / "out", model_args=f"pretrained={smollm2_dir}")
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "pretrained": str(smollm2_dir), "answers_from": str(saved)}
    probed = evaluate(lm, [TASK], metadata=meta, include=(tmp_path / "wrap",), limit=LIMIT, gen_kwargs=GEN)
    theirs = {s["doc_id"]: s for s in plain["samples"]["gsm8k"]}
    assert len(probed["samples"][TASK]) == LIMIT  # every document: an answer its budget cut is used, not dropped
    for sample in probed["samples"][TASK]:
        record = ProbeRecord.from_json(sample["filtered_resps"][0][0])
        saved_sample = theirs[sample["doc_id"]]
        assert record.pass1_prompt == saved_prompt(saved_sample)
        assert record.pass1_prompt.count("<|im_start|>assistant") == (6 if multiturn else 1)
        assert record.a.startswith(saved_sample["resps"][0][0]) and record.overlong is None
        assert record.pass2_prompt.startswith(record.pass1_prompt + record.a)
        assert record.answer_source["prompt_check"]["rendered"] == PROMPT_DIFFERS


def test_uta_eval_refuses_a_run_saved_without_the_chat_template_and_exits(smollm2_dir, tmp_path):
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    plain = subprocess.run(
        [str(BIN / "lm_eval"), "run", "--model", "hf", "--model_args", f"pretrained={smollm2_dir}", "--tasks", "gsm8k",
         "--include_path", str(plain_gsm8k_folder(tmp_path / "plain")), "--num_fewshot", "0", "--limit", str(LIMIT),
         "--gen_kwargs", "max_gen_toks=16", "--log_samples", "--output_path", str(tmp_path / "out")],
        env=env, capture_output=True, text=True, timeout=1800, check=False)
    assert plain.returncode == 0, plain.stderr[-2000:]
    meta = f'{{"answers_from": "{tmp_path / "out"}", "judge": "none", "gsm8k_data_files": "{GSM8K}"}}'
    # a generous limit: it only tells a hung process from one that exits
    probe = subprocess.run(
        [str(BIN / "uta-eval"), "run", "--model", "hf", "--model_args", f"pretrained={smollm2_dir}", "--tasks", TASK,
         "--include_path", str(tmp_path / "wrap"), "--limit", str(LIMIT), "--metadata", meta, "--log_samples",
         "--output_path", str(tmp_path / "probe")],
        env=env, capture_output=True, text=True, timeout=900, check=False)
    last = probe.stderr.strip().splitlines()[-1]
    assert probe.returncode == 2, probe.stderr[-2000:]
    assert last.startswith(f"uta-eval: {TASK}: document 0: the saved prompt") and "--apply_chat_template" in last
    assert "Traceback" not in probe.stderr and not (tmp_path / "probe").exists()
