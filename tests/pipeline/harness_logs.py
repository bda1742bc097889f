"""Helpers of the ``answers_from`` tests on other harnesses' logs: the logs of
tests/fixtures/harness_logs (each written by its own library on SmolLM2-135M-Instruct, make_logs.py),
the scripted model that had ended every saved answer, and the probe ``uta:gsm8k`` on a log."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_run import NO_JUDGE, evaluate
from saved_lm_eval_runs import ASSISTANT, END, GSM8K, USER

from uta_tasks.lm_eval_compat.version import IS_05

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "harness_logs"
INSPECT, INSPECT_DEFAULTS = LOGS / "inspect_gsm8k.eval", LOGS / "inspect_gsm8k_defaults.eval"
(LIGHTEVAL,) = (LOGS / "lighteval" / "details").rglob("details_*.parquet")
TASK = "uta_wrap_gsm8k"
GEN = {"max_gen_toks": 200}
MODEL = "smollm2-135m-instruct"  # the served alias the inspect log names, the folder lighteval loaded

# lm-eval 0.5.0.dev1 numbers a --samples run's requests by the documents' own numbers, then looks
# each up again as a position in the --samples list when it logs them (evaluator_utils
# build_samples: indices[doc_id]): a run of documents 1 and 2 fails there with IndexError, for
# any task. The tests below log such runs; on 0.4.13 they run.
LOGS_A_SAMPLES_RUN = pytest.mark.skipif(IS_05, reason="lm-eval 0.5.0.dev1 cannot log a --samples run of documents "
                                        "other than 0..k-1 (evaluator_utils: indices[doc_id])")


def ended_script(prompt: str, gen_kwargs: dict) -> str:
    """A model that had ended every saved answer (a continuation adds nothing) and asks a user turn."""
    if prompt.endswith(USER):
        shown = prompt.rsplit(ASSISTANT, 1)[1].split(END, 1)[0]
        return f"Why {shown[-10:]!r}?"
    assert not prompt.endswith(ASSISTANT), "pass 1 was generated instead of read from the log"
    return ""


def probe(lm, wrap: Path, answers_from, limit=3, samples=None, gen_kwargs=GEN, **meta) -> dict:
    """``uta_wrap_gsm8k`` through lm-eval's evaluator on the answers of a log (``gen_kwargs=None``: the
    task's own settings, as with no ``--gen_kwargs``)."""
    metadata = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(answers_from), **meta}
    return evaluate(lm, [TASK], metadata=metadata, include=(wrap,), limit=None if samples else limit,
                    samples=samples, gen_kwargs=gen_kwargs)


def lighteval_rows(path: Path) -> dict[int, dict]:
    """A lighteval details file's rows by ``doc.id``."""
    import pyarrow.parquet as pq

    return {int(row["doc"]["id"]): row for row in pq.read_table(path).to_pylist()}
