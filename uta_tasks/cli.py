"""``uta-eval``: lm-eval's own command line with the uta tasks already visible.

Every lm-eval flag passes through unchanged (``uta-eval run ...``, ``uta-eval ls tasks``,
``--include_path`` for more task folders). Where the installed lm-eval discovers task
folders through the ``lm_eval.tasks`` entry point (which this package declares), nothing
is added; elsewhere the uta task folder is appended to the include path of every
``TaskManager`` of this process, once. lm-eval's "chat template is not applied" warning is
said once in its true sense: the uta tasks always apply the model's own template.
``--plan`` prints what the run will generate, judge and cost, and runs nothing; ``--help`` says
what uta adds (the tasks, ``uta:NAME``, ``--metadata`` and its settings page, ``--plan`` and its
flags) before lm-eval's own help.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from typing import NoReturn

from uta_tasks import TASKS_DIR
from uta_tasks import lm_eval_compat as compat
from uta_tasks.judge.redact import RedactingStream, install_log_redaction, redact_config

HELP_FLAGS = frozenset({"-h", "--help"})
# What uta adds to lm-eval's command line; the task names come from the code that makes them
# ({tasks}) and the --plan flags from the plan's own parser ({plan_flags}).
USES = """\
uta-eval: lm-eval's command line with the uta tasks already visible. Every lm-eval flag
passes through; lm-eval's own help follows this section.

What uta adds:
{tasks}
  --metadata '{"key": value}'
                            the probe's, data sets' and judge's settings (judge_model,
                            judge_base_url, user_max_gen_toks, ...), each with its default and
                            meaning on the manual's "Settings" page (docs/settings.md of the
                            source repository); the judge's key is read from OPENAI_API_KEY
  --plan                    print the documents, generations, token budgets, judge calls and
                            cost of this command line; it generates nothing and calls no
                            judge. With it:
{plan_flags}
  uta-eval --plan --help    the same flags in the plan's own help
"""
_FLAG_COLUMN = 28


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


def _entry(flag: str, text: str) -> str:
    return textwrap.fill(text, width=96, initial_indent=f"  {flag:<{_FLAG_COLUMN - 2}}",
                         subsequent_indent=" " * _FLAG_COLUMN, break_on_hyphens=False)


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


def task_uses() -> str:
    """The help's ``--tasks uta`` and ``--tasks uta:NAME`` entries, with the names and the count of
    the code that makes them (:mod:`uta_tasks.tasks.generate`, :mod:`uta_tasks.wrap.names`)."""
    from uta_tasks.probe import perturbations
    from uta_tasks.tasks import generate
    from uta_tasks.wrap import names

    variants = [generate.suffix(p) or "plain" for p in perturbations.paper_names()]
    groups = [*generate.perturbation_groups(), generate.family_group("<benchmark>")]
    paper = (f"the {len(generate.paper_tasks())} probe tasks ({len(generate.SELF_GENERATED)} benchmarks, each "
             f"{_and(variants)}); also {', '.join(groups)} and each task alone (uta-eval ls tasks lists them)")
    wrapped = [names.task_name("NAME", p) for p in perturbations.names()]
    wrap = (f"wrap lm-eval's generation task NAME as a probe family ({', '.join(wrapped)}, the group "
            f"{names.family_group('NAME')}), checked before any model loads; "
            "python -m uta_tasks wrap NAME --out DIR writes its YAML")
    return "\n".join([_entry(f"--tasks {generate.PAPER_GROUP}", paper),
                      _entry(f"--tasks {names.CLI_PREFIX}NAME", wrap)])


def uses() -> str:
    """What ``uta-eval --help`` says before lm-eval's help: the tasks (:func:`task_uses`),
    ``uta:NAME``, the settings page and ``--plan`` with its flags (read from
    :func:`uta_tasks.apps.plan.parser`)."""
    from uta_tasks.apps.plan import parser

    lines = []
    for action in parser()._actions:
        names = [n for n in action.option_strings if n.startswith("--plan_")]
        if names:
            metavar = f" {action.metavar}" if action.metavar else (" N" if action.nargs != 0 else "")
            lines.append(f"    {names[0] + metavar:<24}{action.help}")
    return USES.replace("{tasks}", task_uses()).replace("{plan_flags}", "\n".join(lines))


def refuse(message: str) -> NoReturn:
    """Stop before lm-eval runs: the message (it names the task, the file or setting, and the fix)
    on stderr, exit status 2 (a refusal, as argparse exits on a bad command line)."""
    sys.stderr.write(f"uta-eval: {message}\n")
    sys.stderr.flush()
    raise SystemExit(2)


def check_saved_requests(arguments: dict) -> None:
    """At the top of lm-eval's ``simple_evaluate``, before it loads the model, when the uta
    tasks' ``answers_from`` is set (read from lm-eval's parsed ``--metadata`` through
    :class:`~uta_tasks.probe.task_settings.TaskSettings`): build the tasks through lm-eval's own
    ``TaskManager``, once (lm-eval evaluates these task objects, :func:`compat.requests_without_model`).
    Each uta task reads its saved run and refuses it there (no samples of the task, a document it
    lacks, another model, stripped reasoning where ``pass2_context`` asks for the paper's trace);
    each request then goes through the probe's pass-1 checks with the model's tokenizer alone
    (:mod:`uta_tasks.probe.saved_precheck`: the prompt and the temperature).

    Args:
        arguments: ``simple_evaluate``'s arguments.
    """
    from uta_tasks.lm_eval_task import UTATask, UTATaskError
    from uta_tasks.probe import saved_precheck
    from uta_tasks.probe.hook import ProbeError
    from uta_tasks.probe.task_settings import TaskSettingError, TaskSettings

    try:
        settings = TaskSettings.from_metadata("uta-eval --metadata", arguments.get("metadata") or {})
    except TaskSettingError:
        return  # each task refuses it, naming itself, when lm-eval builds it
    if settings.answers_from is None:
        return
    model_args = arguments.get("model_args") or {}
    model_args = compat.parse_args_string(model_args) if isinstance(model_args, str) else dict(model_args)
    try:
        instances = compat.requests_without_model(
            arguments, lambda task: isinstance(task, UTATask) and task.saved_run is not None)
        if not instances:
            return
        tokenizer = saved_precheck.tokenizer_of(model_args)
        if tokenizer is not None:
            saved_precheck.check([i.args for i in instances], tokenizer, compat.model_chat_template_args(model_args))
    except (UTATaskError, ProbeError) as exc:
        refuse(str(exc))


def main() -> None:
    """Entry point of ``uta-eval`` (``--plan``: print the run's plan instead, :mod:`uta_tasks.apps.plan`;
    ``--help``: what uta adds, then lm-eval's help)."""
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    args = sys.argv[1:]
    if "--plan" in args:
        from uta_tasks.apps.plan import main as plan

        raise SystemExit(plan(args))
    if HELP_FLAGS & set(args) and args[0] not in ("ls", "validate"):
        print(uses())
    install()
    expand_wrapped_tasks()
    compat.check_before_model(check_saved_requests)
    compat.explain_chat_template_warning(compat.tasks_from_argv(sys.argv[1:]))
    # lm-eval prints its --model_args and writes them to the results: both without credentials
    stdout = RedactingStream(sys.stdout)
    try:
        with contextlib.redirect_stdout(stdout):
            compat.cli_main(clean_results=redact_config)
    finally:
        stdout.flush()


if __name__ == "__main__":
    main()
