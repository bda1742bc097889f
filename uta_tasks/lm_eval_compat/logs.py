"""lm-eval's log, as the uta tasks use it: lm-eval log lines that do not apply to them, said once in
their own words, and their own lines shown where lm-eval shows its own.

lm-eval warns "... appears to be an instruct or chat variant but chat template is not
applied" (``lm_eval.evaluator``, 0.4.13 and 0.5) whenever the model name contains "inst"
or "chat" and ``--apply_chat_template`` is off. The uta tasks always render both passes
with the model's own chat template, so for them the warning is noise; for other tasks in
the same run it still matters.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence

LM_EVAL_LOGGER = "lm_eval"
EVALUATOR_LOGGER = "lm_eval.evaluator"
CHAT_TEMPLATE_WARNING = "chat template is not applied"
UTA_RENDERS_ITSELF = "the uta tasks render every prompt with the model's own chat template"


class ChatTemplateNote(logging.Filter):
    """Rewrites lm-eval's chat-template warning for a run of uta tasks.

    Args:
        only_uta: every task of the run is a uta task or group: the warning becomes one
            INFO line; otherwise it stays a warning, saying which tasks it concerns.
    """

    def __init__(self, only_uta: bool) -> None:
        super().__init__()
        self.only_uta = only_uta

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if CHAT_TEMPLATE_WARNING not in message:
            return True
        if self.only_uta:
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = f"{UTA_RENDERS_ITSELF}; --apply_chat_template does not concern them", ()
        else:
            record.msg, record.args = f"{message} (This concerns the other tasks only: {UTA_RENDERS_ITSELF}.)", ()
        return True


def tasks_from_argv(argv: Sequence[str]) -> list[str]:
    """The task names of an lm-eval command line (``--tasks a,b`` or ``--tasks=a,b``)."""
    for i, arg in enumerate(argv):
        if arg == "--tasks" and i + 1 < len(argv):
            return [t for t in argv[i + 1].split(",") if t]
        if arg.startswith("--tasks="):
            return [t for t in arg.split("=", 1)[1].split(",") if t]
    return []


def explain_chat_template_warning(tasks: Sequence[str]) -> None:
    """Install :class:`ChatTemplateNote` on lm-eval's evaluator logger (idempotent).

    Args:
        tasks: the run's task names; without any, nothing is installed.
    """
    if not tasks:
        return
    logger = logging.getLogger(EVALUATOR_LOGGER)
    for old in [f for f in logger.filters if isinstance(f, ChatTemplateNote)]:
        logger.removeFilter(old)
    logger.addFilter(ChatTemplateNote(all(t.startswith("uta") for t in tasks)))


@contextlib.contextmanager
def shown_beside_lm_eval(name: str) -> Iterator[None]:
    """While it lasts, show the log lines of logger ``name`` (the probe's passes, its completions)
    where and at the level lm-eval shows its own; afterwards the logger is as it was.

    lm-eval's command line gives its ``lm_eval`` logger a handler of its own and stops it from
    propagating (``setup_logging``, 0.4.13 and 0.5); a line of another package's logger then reaches
    no handler but Python's last resort, which prints warnings only. The logger gets lm-eval's
    handlers and level, and still propagates (to pytest's, or an application's own handlers).
    Nothing changes when lm-eval's logger has no handler (the Python API without its logging set up).

    Args:
        name: the logger, e.g. ``uta_tasks``.
    """
    theirs, ours = logging.getLogger(LM_EVAL_LOGGER), logging.getLogger(name)
    added = [h for h in theirs.handlers if h not in ours.handlers]
    level = ours.level
    for handler in added:
        ours.addHandler(handler)
    if added:
        ours.setLevel(theirs.getEffectiveLevel())
    try:
        yield
    finally:
        for handler in added:
            ours.removeHandler(handler)
        ours.setLevel(level)
