"""``answers_from`` on another harness's log with the real SmolLM2 (issue 43 item 4): the
lighteval details file of tests/fixtures/harness_logs, which lighteval's transformers backend
wrote on this model folder, probed as ``uta:gsm8k`` with ``--model hf``: the prompt lighteval sent
(its token ids, decoded by the model's tokenizer) is pass 1, equal to the prompt a full run
renders, and the user turns are the model's own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from runs import NO_JUDGE, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from saved_lm_eval_runs import GSM8K  # noqa: E402

from uta_tasks.schema.probe import ProbeRecord  # noqa: E402
from uta_tasks.wrap.check import plan  # noqa: E402
from uta_tasks.wrap.yamls import write  # noqa: E402

pytestmark = pytest.mark.slow
TASK, GEN = "uta_wrap_gsm8k", {"max_gen_toks": 256}
LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "harness_logs"
WHOLE = [1, 2]  # the log's documents SmolLM2 ended within its 256 tokens


def _records(results: dict) -> list[ProbeRecord]:
    return [ProbeRecord.from_json(r) for s in results["samples"][TASK] for r in s["filtered_resps"][0]]


def test_smollm2_probes_the_lighteval_details_it_wrote(lm, smollm2_dir, tmp_path):
    import pyarrow.parquet as pq

    (details,) = (LOGS / "lighteval" / "details").rglob("details_*.parquet")
    rows = {int(r["doc"]["id"]): r for r in pq.read_table(details).to_pylist()}
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "pretrained": str(smollm2_dir)}
    include = (tmp_path / "wrap",)
    with pytest.raises(Exception, match=r"answered with smollm2-135m-instruct.*answers_from_settings"):
        evaluate(lm, [TASK], metadata={**meta, "answers_from": str(details)}, include=include,
                 samples={TASK: WHOLE}, gen_kwargs=GEN)
    stated = {"answers_from": str(details), "answers_from_settings": {"model": str(smollm2_dir)}}
    from_log = evaluate(lm, [TASK], metadata={**meta, **stated}, include=include, samples={TASK: WHOLE},
                        gen_kwargs=GEN)
    full = evaluate(lm, [TASK], metadata=meta, include=include, samples={TASK: WHOLE}, gen_kwargs=GEN)
    for mine, theirs, doc_id in zip(_records(from_log), _records(full), WHOLE, strict=True):
        row = rows[doc_id]
        assert mine.pass1_prompt == lm.tokenizer.decode(row["model_response"]["input_tokens"])
        assert mine.pass1_prompt == theirs.pass1_prompt  # lighteval's gsm8k prompt, rendered as a full run renders it
        assert mine.a.startswith(row["model_response"]["text"][0])
        assert mine.answer_source["prompt_check"]["rendered"] == "equal" and mine.u.strip()
