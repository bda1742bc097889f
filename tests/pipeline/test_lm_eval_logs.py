"""lm-eval's "chat template is not applied" warning, said once in its true sense for uta runs
(uta-eval installs the note; lm-eval's own evaluator emits the warning)."""

from __future__ import annotations

import logging

import pytest
from pipeline_run import evaluate

from uta_tasks import lm_eval_compat
from uta_tasks.lm_eval_compat.logs import EVALUATOR_LOGGER, UTA_RENDERS_ITSELF, ChatTemplateNote

INSTRUCT = "pretrained=HuggingFaceTB/SmolLM2-135M-Instruct"


@pytest.fixture(autouse=True)
def _no_note_left_behind():
    yield
    logger = logging.getLogger(EVALUATOR_LOGGER)
    for note in [f for f in logger.filters if isinstance(f, ChatTemplateNote)]:
        logger.removeFilter(note)


def _lines(caplog, level):
    return [r.getMessage() for r in caplog.records if r.name == EVALUATOR_LOGGER and r.levelno == level]


def test_lm_eval_warns_without_the_note(scripted, caplog):
    caplog.set_level(logging.INFO)
    evaluate(scripted, ["uta_ifbench"], model_args=INSTRUCT, limit=1)
    assert any("chat template is not applied" in line for line in _lines(caplog, logging.WARNING))


def test_a_uta_only_run_gets_one_info_line_instead_of_the_warning(scripted, caplog):
    caplog.set_level(logging.INFO)
    lm_eval_compat.explain_chat_template_warning(lm_eval_compat.tasks_from_argv(["run", "--tasks", "uta_ifbench,uta"]))
    evaluate(scripted, ["uta_ifbench"], model_args=INSTRUCT, limit=1)
    assert not any("chat template" in line for line in _lines(caplog, logging.WARNING))
    assert [line for line in _lines(caplog, logging.INFO) if UTA_RENDERS_ITSELF in line] != []


def test_a_mixed_run_keeps_the_warning_and_says_whom_it_concerns(scripted, caplog):
    caplog.set_level(logging.INFO)
    lm_eval_compat.explain_chat_template_warning(lm_eval_compat.tasks_from_argv(["--tasks=uta_gsm8k,hellaswag"]))
    lm_eval_compat.explain_chat_template_warning(["uta_gsm8k", "hellaswag"])  # idempotent: one note
    evaluate(scripted, ["uta_ifbench"], model_args=INSTRUCT, limit=1)
    warnings = [line for line in _lines(caplog, logging.WARNING) if "chat template is not applied" in line]
    assert len(warnings) == 1 and "concerns the other tasks only" in warnings[0]
