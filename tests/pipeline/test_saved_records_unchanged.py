"""Issue 54: no saved-run record changes when the sources of saved answers move. The probe on a
fixture of each source (an lm-eval run, the same run on the Hub, an inspect_ai log, a lighteval
details file) writes, byte for byte, the records the code before the move wrote
(``tests/fixtures/saved_records/<source>.jsonl``, written by ``make_golden.py`` there)."""

from __future__ import annotations

import pytest
from saved_records import GOLDEN, SOURCES, probe

from uta_tasks.lm_eval_compat.version import IS_05


@pytest.mark.skipif(IS_05, reason="the goldens were written on lm-eval 0.4.13 (and 0.5.0.dev1 cannot log the "
                    "lighteval fixture's --samples run)")
@pytest.mark.parametrize("source", SOURCES)
def test_the_records_of_a_saved_run_probe_are_byte_identical(source, tokenizer, monkeypatch):
    if source == "inspect":
        pytest.importorskip("inspect_ai.log", reason="the inspect extra (uta-tasks[inspect])")
    assert probe(source, tokenizer, monkeypatch) == (GOLDEN / f"{source}.jsonl").read_text(encoding="utf-8")
