"""The two ways in: ``python -m uta_tasks wrap TASK... --out DIR`` and ``uta-eval --tasks uta:TASK``.

``python -m uta_tasks wrap gsm8k mgsm_direct --out wrapped/`` writes the YAML of each wrapped
family (and of each wrapped group) for plain ``lm_eval --include_path wrapped/``.
``uta-eval --tasks uta:gsm8k,uta:mgsm_direct ...`` does the same into a temporary folder and
runs lm-eval on the wrapped groups. Both refuse, before any model loads, a task that cannot
be wrapped (with the reason), and ``uta-eval`` refuses a task that runs code to score unless
``--confirm_run_unsafe_code`` is given, as lm-eval does.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
from pathlib import Path

from .check import plan
from .names import CLI_PREFIX, family_group, group_name
from .settings import WrapError
from .yamls import write

UNSAFE_FLAG = "--confirm_run_unsafe_code"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m uta_tasks wrap",
                                     description="Wrap lm-eval generation tasks as user-turn probe families.")
    parser.add_argument("tasks", nargs="+", help="lm-eval task, group or tag names")
    parser.add_argument("--out", required=True, type=Path, help="folder to write the YAML into")
    parser.add_argument("--num_fewshot", type=int, default=None, help="few-shot examples in q (default 0)")
    parser.add_argument("--data_files", action="append", default=[], metavar="TASK=PATH",
                        help="evaluate TASK on a local file in its own schema (repeatable)")
    parser.add_argument("--include_path", action="append", default=[], metavar="DIR",
                        help="a folder of task YAML files of your own, looked up as lm-eval's --include_path "
                             "(repeatable; a later folder's task replaces an earlier one's of the same name)")
    return parser


def include_path_of(argv: list[str]) -> tuple[str, ...]:
    """The ``--include_path`` lm-eval's own command line takes from ``argv``: one folder (its
    option keeps the last one given), or none."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--include_path", type=str, default=None)
    known, _ = parser.parse_known_args(argv)
    return () if known.include_path is None else (known.include_path,)


def _settings(num_fewshot: int | None, data_files: list[str]) -> dict[str, object]:
    settings: dict[str, object] = {}
    if num_fewshot is not None:
        settings["uta_num_fewshot"] = num_fewshot
    for item in data_files:
        task, sep, path = item.partition("=")
        if not sep or not task or not path:
            raise WrapError(f"--data_files {item!r}: give TASK=PATH")
        settings[f"{task}_data_files"] = str(Path(path).resolve())
    return settings


def main(argv: list[str]) -> int:
    """``python -m uta_tasks wrap``; prints the files written and the lm_eval command to run."""
    args = _parser().parse_args(argv)
    try:
        wrap_plan = plan(args.tasks, args.include_path)
        written = write(args.out, wrap_plan, _settings(args.num_fewshot, args.data_files))
    except WrapError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    for path in written:
        print(path)
    names = [group_name(n) if n in wrap_plan.groups else family_group(n) for n in args.tasks]
    flag = f" {UNSAFE_FLAG}" if wrap_plan.unsafe else ""
    print(f"run: lm_eval --include_path {args.out} --tasks {','.join(names)}{flag} ...", file=sys.stderr)
    return 0


def _tasks_value(argv: list[str]) -> tuple[int, str] | None:
    for i, arg in enumerate(argv):
        if arg in ("--tasks", "-t") and i + 1 < len(argv):
            return i + 1, argv[i + 1]
        if arg.startswith("--tasks="):
            return i, arg
    return None


def expand_argv(argv: list[str]) -> tuple[list[str], Path | None]:
    """Replace each ``uta:NAME`` of ``--tasks`` by its wrapped group, written into a temporary
    folder (removed when the process ends).

    Args:
        argv: ``uta-eval``'s arguments.

    Returns:
        The arguments to hand lm-eval, and the folder to add to its include path (None when
        no task is wrapped).

    Raises:
        WrapError: a task that cannot be wrapped, or one that runs code without the confirmation.
    """
    found = _tasks_value(argv)
    if found is None:
        return argv, None
    index, value = found
    prefix, _, names = value.rpartition("=") if value.startswith("--tasks=") else ("", "", value)
    items = names.split(",")
    wrapped = [item[len(CLI_PREFIX):] for item in items if item.startswith(CLI_PREFIX)]
    if not wrapped:
        return argv, None
    wrap_plan = plan(wrapped, include_path_of(argv))
    if wrap_plan.unsafe and UNSAFE_FLAG not in argv:
        raise WrapError(f"{', '.join(wrap_plan.unsafe)}: scores by running the model's code; lm-eval runs it only "
                        f"with {UNSAFE_FLAG} (and HF_ALLOW_CODE_EVAL=1 for tasks scored by `evaluate`'s code_eval)")
    folder = Path(tempfile.mkdtemp(prefix="uta-wrap-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    write(folder, wrap_plan, {})
    new = [(group_name(i[len(CLI_PREFIX):]) if i[len(CLI_PREFIX):] in wrap_plan.groups
            else family_group(i[len(CLI_PREFIX):])) if i.startswith(CLI_PREFIX) else i for i in items]
    out = list(argv)
    out[index] = (prefix + "=" if prefix else "") + ",".join(new)
    return out, folder
