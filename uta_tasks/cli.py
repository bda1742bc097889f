"""``uta-eval``: lm-eval's own command line with the uta tasks already visible.

Every lm-eval flag passes through unchanged (``uta-eval run ...``, ``uta-eval ls tasks``,
``--include_path`` for more task folders). Where the installed lm-eval discovers task
folders through the ``lm_eval.tasks`` entry point (which this package declares), nothing
is added; elsewhere the uta task folder is appended to the include path of every
``TaskManager`` of this process, once. lm-eval's "chat template is not applied" warning is
said once in its true sense: the uta tasks always apply the model's own template.
``--plan`` prints what the run will generate, judge and cost, and runs nothing.
"""

from __future__ import annotations

import sys

from uta_tasks import TASKS_DIR
from uta_tasks import lm_eval_compat as compat


def install() -> None:
    """Make the uta tasks visible to lm-eval in this process (idempotent)."""
    if not compat.reads_task_entry_points():
        compat.add_include_path(TASKS_DIR)


def expand_wrapped_tasks() -> None:
    """``--tasks uta:NAME``: wrap lm-eval's NAME as a probe family (:mod:`uta_tasks.wrap.command`),
    or exit with the reason it cannot be wrapped, before any model loads."""
    from uta_tasks.wrap import WrapError
    from uta_tasks.wrap.command import expand_argv

    try:
        sys.argv[1:], folder = expand_argv(sys.argv[1:])
    except WrapError as exc:
        raise SystemExit(f"uta-eval: {exc}") from None
    if folder is not None:
        compat.add_include_path(folder)


def main() -> None:
    """Entry point of ``uta-eval`` (``--plan``: print the run's plan instead, :mod:`uta_tasks.apps.plan`)."""
    if "--plan" in sys.argv[1:]:
        from uta_tasks.apps.plan import main as plan

        raise SystemExit(plan(sys.argv[1:]))
    install()
    expand_wrapped_tasks()
    compat.explain_chat_template_warning(compat.tasks_from_argv(sys.argv[1:]))
    compat.cli_main()


if __name__ == "__main__":
    main()
