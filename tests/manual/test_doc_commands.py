"""Every command on a user page works on the install that page names.

The fenced commands of ``README.md`` and ``docs/*.md`` (:mod:`doc_commands`) are classified by
what they need. Those that need only the plain install and a saved run are run as written in
a folder holding constructed runs (``uta-summary``, ``uta-report``, ``uta-gate --rules``,
``uta-agreement``), with ``uta-eval --plan`` and ``python -c``. Every other command of this
project or of lm-eval is parsed by its own command line parser (lm-eval's for ``uta-eval`` and
``lm_eval``), stopped right after parsing: its subcommands and flags exist and its values
parse. An install line names only extras that exist and never the unpublished name alone; a
``make`` target exists; and a page whose commands need an extra (``vllm``, ``hf``,
``ifbench``) names that extra.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from doc_commands import ROOT, Command, commands, extras_needed, names_extra, user_pages
from run_builder import RunSpec, docs, write_run

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SCRIPTS: dict[str, str] = PYPROJECT["project"]["scripts"]
EXTRAS = set(PYPROJECT["project"]["optional-dependencies"])
MAKE_TARGETS = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M))
# Commands that need the saved runs of the fixture folder and nothing else: run as written.
SAVED_RUN_COMMANDS = frozenset({"uta-summary", "uta-report", "uta-gate", "uta-agreement"})
# Programs that are not ours and need no check beyond the install the page names.
OTHERS = frozenset({"git", "cd", "vllm"})

ALL = [c for page in user_pages() for c in commands(page)]


class Parsed(BaseException):
    """Raised once a command's outermost parser has parsed its arguments (nothing runs after)."""


@contextlib.contextmanager
def stop_after_parsing() -> Iterator[None]:
    """Let ``argparse`` parse (subparsers included) and stop the program right after the
    outermost ``parse_args`` / ``parse_known_args`` returns. A program whose command line was
    refused goes on as it would (``uta-gate`` reads its ``--junit`` again to write the refusal)."""
    depth = 0
    refused = False
    originals = {name: getattr(argparse.ArgumentParser, name) for name in ("parse_args", "parse_known_args")}

    def wrap(name: str) -> Callable[..., object]:
        def parse(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> object:
            nonlocal depth, refused
            if refused:
                return originals[name](self, *args, **kwargs)
            depth += 1
            try:
                result = originals[name](self, *args, **kwargs)
            except SystemExit:
                refused = depth == 1
                raise
            finally:
                depth -= 1
            if depth == 0:
                raise Parsed(result)
            return result

        return parse

    try:
        for name in originals:
            setattr(argparse.ArgumentParser, name, wrap(name))
        yield
    finally:
        for name, original in originals.items():
            setattr(argparse.ArgumentParser, name, original)


def entry_point(cmd: Command) -> tuple[Callable[[], object], list[str]]:
    """The function a command runs and the ``sys.argv`` it reads."""
    program, *args = cmd.words
    if program in ("lm_eval", "uta-eval") and "--plan" not in args and not {"-h", "--help"} & set(args):
        # lm-eval's own parser reads the line; uta-eval adds only --plan, --help and uta:NAME
        # (tests/manual/test_eval_help.py, tests/wrap/).
        return importlib.import_module("uta_tasks.lm_eval_compat").cli_main, ["lm_eval", *args]
    if program == "python" and args[:2] == ["-m", "uta_tasks"] and args[2:3] == ["wrap"]:
        main = importlib.import_module("uta_tasks.wrap.command").main
        return lambda: main(args[3:]), ["python -m uta_tasks wrap", *args[3:]]
    if program == "python" and args[:1] == ["-m"]:
        module = importlib.import_module(args[1])
        return module.main, [args[1], *args[2:]]
    assert program in SCRIPTS, f"{cmd.where}: not a console script of pyproject.toml"
    module, _, function = SCRIPTS[program].partition(":")
    return getattr(importlib.import_module(module), function), [program, *args]


def call(cmd: Command, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run a command in this process as its console script would; its exit code."""
    function, argv = entry_point(cmd)
    monkeypatch.setattr(sys, "argv", argv)
    try:
        code = function()
    except SystemExit as exc:
        code = exc.code
    return 0 if code is None else code if isinstance(code, int) else 1


def runnable_here(cmd: Command, folder: Path) -> bool:
    """Needs only the plain install, and every folder it reads exists in the fixture."""
    program, *args = cmd.words
    if program in ("uta-eval", "lm_eval"):
        return "--plan" in args or bool({"-h", "--help"} & set(args))
    if program == "python":
        return args[:1] == ["-c"]
    if program == "uta-compare":  # the plan and the page run as written; a run of the models is parsed
        return "--plan" in args or "--page_only" in args
    if program not in SAVED_RUN_COMMANDS or "--paper" in args:
        return False
    inputs = [a.partition("=")[2] or a for a in args if not a.startswith("-") and a.partition("=")[2] != ""
              or a.startswith("out/")]
    reads = [a for a in inputs if a.startswith("out/")]
    previous = dict(zip(args, args[1:]))
    written = {previous.get(flag) for flag in ("--output_path", "--json", "--junit", "--markdown")}
    return all((folder / a).exists() for a in reads if a not in written)


@pytest.fixture(scope="module")
def saved_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder where the pages' saved-run commands find what they read: ``out/candidate``,
    ``out/baseline`` and the report page's runs (GSM8K base and truncated, 60 documents, its
    group), and ``gate.yaml`` (the example rules)."""
    root = tmp_path_factory.mktemp("doc-commands")
    n = 60
    for i, name in enumerate(("candidate", "baseline", "run_t0", "run_t07", "other_model")):
        genuine = [d % 4 == i % 2 for d in range(n)]
        spec = RunSpec({"uta_gsm8k": docs(genuine, correct=[d % 3 != 0 for d in range(n)]),
                        "uta_gsm8k_trunc": docs([d % 3 == 0 for d in range(n)], ref=genuine)},
                       model="org/model-b" if name == "other_model" else "org/model-a",
                       temperature=0.7 if name == "run_t07" else 0.0,
                       groups={"uta_gsm8k_all": ["uta_gsm8k", "uta_gsm8k_trunc"]})
        write_run(root / "out" / name, spec)
    shutil.copy(ROOT / "examples" / "uta_gate_rules.yaml", root / "gate.yaml")
    compared_models(root)
    return root


def compared_models(root: Path) -> None:
    """The "Compare many models" page's ``models.yaml`` as the page writes it, and a constructed
    run of each of its models where ``uta-compare`` keeps it (``cmp/runs/<model>/``)."""
    from markdown_it import MarkdownIt

    from uta_tasks.apps.compare.spec import load_comparison

    page = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    (block,) = [t.content for t in MarkdownIt("commonmark").parse(page)
                if t.type == "fence" and t.info.strip() == "yaml" and "models:" in t.content]
    (root / "models.yaml").write_text(block, encoding="utf-8")
    n = 40
    for i, model in enumerate(load_comparison(root / "models.yaml").models):
        genuine = [d % (i + 2) == 0 for d in range(n)]
        spec = RunSpec({"uta_gsm8k": docs(genuine, correct=[d % 3 != 0 for d in range(n)]),
                        "uta_gsm8k_trunc": docs([d % 3 == 0 for d in range(n)], ref=genuine)},
                       model=model.model_args.split("=", 1)[1].split(",")[0])
        write_run(root / "cmp" / "runs" / model.slug, spec)


def test_the_manual_has_commands_of_every_kind():
    programs = {c.words[0] for c in ALL}
    assert {"make", "pip", "uta-eval", "uta-summary", "uta-report", "uta-gate", "lm_eval", "python"} <= programs
    assert len(ALL) >= 60


def test_every_program_is_known():
    known = OTHERS | set(SCRIPTS) | {"make", "pip", "python", "lm_eval"}
    assert [c.where for c in ALL if c.words[0] not in known] == []


def test_every_page_names_the_extras_its_commands_need():
    missing = []
    for page in user_pages():
        text = page.read_text(encoding="utf-8")
        need = set().union(*(extras_needed(c) for c in commands(page)))
        missing += [f"{page.relative_to(ROOT)}: the `{x}` extra" for x in sorted(need) if not names_extra(text, x)]
    assert missing == [], "a page's commands need an extra the page does not name"


@pytest.mark.parametrize("cmd", [c for c in ALL if c.words[0] == "pip"], ids=lambda c: c.where)
def test_install_lines_name_extras_that_exist_and_no_unpublished_package(cmd):
    assert cmd.words[1] in ("install", "wheel"), cmd.where
    values = {"-w", "--index-url"}  # options followed by a value
    words = cmd.words[2:]
    for before, spec in zip(("",) + words, words):
        if spec.startswith("-") or before in values:
            continue
        name, _, extras = spec.partition("[")
        if name.split()[0] in ("torch",):
            continue
        assert name.startswith(("uta-tasks", ".", "dist/uta_tasks-")), f"{cmd.where}: {spec}"
        assert name != "uta-tasks" or "@ git+" in spec, f"{cmd.where}: uta-tasks is not on PyPI"
        unknown = set(extras.partition("]")[0].split(",")) - EXTRAS - {""}
        assert unknown == set(), f"{cmd.where}: no such extra {unknown}"


def test_make_targets_exist():
    assert [c.where for c in ALL if c.words[0] == "make" and c.words[1] not in MAKE_TARGETS] == []


@pytest.mark.parametrize("cmd", [c for c in ALL if c.words[0] not in OTHERS | {"make", "pip"}],
                         ids=lambda c: c.where)
def test_command_parses_or_runs(cmd, saved_runs, monkeypatch, capsys):
    monkeypatch.chdir(saved_runs)
    if cmd.words[:2] == ("python", "-c"):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run([sys.executable, *cmd.words[1:]], capture_output=True, text=True, env=env, check=False)
        assert done.returncode == 0 and done.stdout.strip(), f"{cmd.where}\n{done.stderr}"
        return
    if runnable_here(cmd, saved_runs):
        code = call(cmd, monkeypatch)
        out = capsys.readouterr()
        decided = (0, 1) if cmd.words[0] == "uta-gate" else (0,)  # the gate's 1 is a decision: a rule failed
        assert code in decided, f"{cmd.where}: exit {code}\n{out.out[-2000:]}\n{out.err[-2000:]}"
        if "--plan_price" in cmd.words:
            assert "Batch API" in out.out and "$" in out.out, out.out
        return
    with stop_after_parsing():
        try:
            code = call(cmd, monkeypatch)
        except Parsed:
            return
    err = capsys.readouterr().err
    pytest.fail(f"{cmd.where}: its parser refused it (exit {code})\n{err[-2000:]}")


def test_a_flag_no_parser_knows_is_refused(monkeypatch, capsys):
    for words in (("uta-gate", "out/candidate", "--rules", "gate.yaml", "--baseline_dir", "out/b"),
                  ("uta-eval", "--model", "vllm", "--tasks", "uta", "--plan_prize", "1,2")):
        with stop_after_parsing():
            code = call(Command("page.md", 1, words), monkeypatch)
        assert code == 2 and "unrecognized arguments" in capsys.readouterr().err


def test_a_pasted_placeholder_fails_as_it_would_in_a_shell(monkeypatch, capsys):
    from doc_commands import _commands_of_block

    (words,) = _commands_of_block('uta-eval --tasks uta_gsm8k --plan --plan_price "$IN,$OUT"\n')
    assert words[-1] == "$IN,$OUT", "an unknown variable stays as pasted"
    assert call(Command("page.md", 1, tuple(words)), monkeypatch) != 0


# In a fresh interpreter: vLLM's own command line parses each `vllm serve` line of the pages
# (argv as JSON on stdin); prints one JSON list of [exit code, stderr tail] per line.
VLLM_PARSE = r"""
import argparse, contextlib, io, json, sys
from vllm.entrypoints.cli.main import main

class Parsed(BaseException):
    pass

original = argparse.ArgumentParser.parse_args
depth = 0
def parse_args(self, *args, **kwargs):
    global depth
    depth += 1
    try:
        result = original(self, *args, **kwargs)
    finally:
        depth -= 1
    if depth == 0:
        raise Parsed()
    return result
argparse.ArgumentParser.parse_args = parse_args

outcomes = []
for argv in json.load(sys.stdin):
    sys.argv = argv
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            main()
        outcomes.append([1, "ran past parsing"])
    except Parsed:
        outcomes.append([0, ""])
    except SystemExit as exc:
        outcomes.append([exc.code if isinstance(exc.code, int) else 1, err.getvalue()[-1500:]])
print("OUTCOMES " + json.dumps(outcomes))
"""


@pytest.mark.slow  # imports vLLM (about 30 s on 2 cores); runs where vLLM is installed (make test's .venv)
def test_vllm_serve_lines_parse_with_vllms_own_parser():
    import json

    lines = [c for c in ALL if c.words[0] == "vllm"]
    assert lines and all(c.words[1] == "serve" for c in lines)
    argvs = [list(c.words) for c in lines] + [["vllm", "serve", "org/model", "--no-such-flag"]]
    done = subprocess.run([sys.executable, "-c", VLLM_PARSE], input=json.dumps(argvs), capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = json.loads(done.stdout.rsplit("OUTCOMES ", 1)[1])
    *ours, refused = outcomes
    assert refused[0] == 2 and "--no-such-flag" in refused[1], "the parser refuses a flag it does not know"
    assert [f"{c.where}: {err}" for c, (code, err) in zip(lines, ours) if code != 0] == []
