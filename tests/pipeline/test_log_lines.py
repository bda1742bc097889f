"""The probe's own log lines (each pass, the completions of saved answers) are shown where lm-eval's
command line shows its own: it gives only its ``lm_eval`` logger a handler (``setup_logging``), so a
line of the ``uta_tasks`` logger reached no handler but Python's last resort, which shows warnings only."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import logging
from lm_eval.utils import setup_logging
from uta_tasks import lm_eval_compat as compat
setup_logging(logging.INFO)  # as lm-eval's command line does
logging.getLogger("uta_tasks.probe.saved").info("before: nobody shows this")
with compat.shown_beside_lm_eval("uta_tasks"):
    logging.getLogger("uta_tasks.probe.saved").info("uta pass 1: completing 2 of 3 saved answers")
logging.getLogger("uta_tasks.probe.saved").info("after: nobody shows this")
ours = logging.getLogger("uta_tasks")
print(len(ours.handlers), ours.level)  # as it was: nothing left for what runs next
"""


def test_uta_info_lines_are_shown_once_where_lm_eval_shows_its_own():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    lines = done.stderr.splitlines()
    assert [line for line in lines if "uta pass 1: completing 2 of 3 saved answers" in line] == [
        next(line for line in lines if "uta pass 1" in line)]
    assert "INFO" in lines[-1] and "[uta_tasks.probe.saved:" in lines[-1]
    assert "nobody shows this" not in done.stderr and done.stdout.split() == ["0", "0"]


def test_nothing_changes_where_lm_eval_set_up_no_handler():
    """The Python API without lm-eval's logging set up: the lines go where the application sends them."""
    script = ("import logging\nfrom uta_tasks import lm_eval_compat as compat\n"
              "with compat.shown_beside_lm_eval('uta_tasks'):\n"
              "    ours = logging.getLogger('uta_tasks')\n    print(len(ours.handlers), ours.level, ours.propagate)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "0", "True"]


def test_the_passes_lines_survive_the_log_redaction(scripted, judge_server, caplog):
    """The judge's check installs the process's log redaction, which masks the value of a
    ``pass: ...`` pair: the passes' counts must not read as one."""
    import logging

    from pipeline_run import DATA, evaluate

    caplog.set_level(logging.INFO, logger="uta_tasks.probe.backend")
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none",
            "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"), "user_max_gen_toks": 16}
    evaluate(scripted, ["uta_gsm8k"], limit=2, metadata=meta, bootstrap_iters=0)
    lines = [r.getMessage() for r in caplog.records if r.name == "uta_tasks.probe.backend"]
    assert any(line.startswith("uta assistant pass ({'requested': 2") for line in lines), lines
    assert any(line.startswith("uta user pass ({") for line in lines), lines
    assert not [line for line in lines if "REDACTED" in line]
