"""``answers_from`` with the real SmolLM2, greedy (issue 35): plain lm-eval ``gsm8k`` on the local
fixture with ``--apply_chat_template --log_samples``, then ``uta:gsm8k`` from those samples,
equal character for character to a full ``uta:gsm8k`` run of the same documents."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from runs import NO_JUDGE, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from saved_lm_eval_runs import GSM8K, plain_gsm8k_folder, save  # noqa: E402

from uta_tasks.schema.probe import ProbeRecord  # noqa: E402
from uta_tasks.wrap.check import plan  # noqa: E402
from uta_tasks.wrap.yamls import write  # noqa: E402

pytestmark = pytest.mark.slow
TASK, LIMIT, GEN = "uta_wrap_gsm8k", 2, {"max_gen_toks": 192}


def _records(results: dict) -> list[ProbeRecord]:
    return [ProbeRecord.from_json(r) for s in results["samples"][TASK] for r in s["filtered_resps"][0]]


def test_smollm2_probe_from_plain_lm_eval_samples_equals_a_full_run(lm, smollm2_dir, tmp_path):
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    plain = evaluate(lm, ["gsm8k"], include=(plain_gsm8k_folder(tmp_path / "plain"),), limit=LIMIT,
                     apply_chat_template=True, num_fewshot=0, gen_kwargs=GEN)
    saved = save(plain, tmp_path / "out", model_args=f"pretrained={smollm2_dir}")
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "pretrained": str(smollm2_dir)}
    full = evaluate(lm, [TASK], metadata=meta, include=(tmp_path / "wrap",), limit=LIMIT, gen_kwargs=GEN)
    from_saved = evaluate(lm, [TASK], metadata={**meta, "answers_from": str(saved)}, include=(tmp_path / "wrap",),
                          limit=LIMIT, gen_kwargs=GEN)

    responses = {s["doc_id"]: s["resps"][0][0] for s in plain["samples"]["gsm8k"]}
    for mine, theirs, sample in zip(_records(from_saved), _records(full), from_saved["samples"][TASK], strict=True):
        assert mine.a == theirs.a and mine.a.startswith(responses[sample["doc_id"]])
        assert (mine.pass1_prompt, mine.u, mine.pass2_prompt) == (theirs.pass1_prompt, theirs.u, theirs.pass2_prompt)
        assert mine.answer_source is not None and mine.answer_source["tokens_added"] >= 0
        scored = {s["filter"]: s["exact_match"] for s in plain["samples"]["gsm8k"] if s["doc_id"] == sample["doc_id"]}
        assert sample["exact_match_flexible-extract"] == scored["flexible-extract"]
        assert sample["exact_match_strict-match"] == scored["strict-match"]
    assert from_saved["results"][TASK] == full["results"][TASK]
