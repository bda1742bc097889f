"""Codemod for issue 20 part 3: move the package into its layers (library, servers, apps).

Run it from the top of a clean checkout (the moves are ``git mv``)::

    python3 scripts/codemods/layers.py            # move, rewrite, write the contracts
    python3 scripts/codemods/layers.py --dry-run  # only say what it would do

It is idempotent: on a tree that is already moved it changes nothing and says so.

What it does, in order:

1. Plans the moves in :data:`MOVES` (paths relative to the repository) and derives from them
   the module renames (``uta_tasks.judge.local_server`` -> ``uta_tasks.servers.llama_server``).
   A package listed in :data:`DISSOLVED` (``uta_tasks/samples/``) is merged into another one:
   its modules move, its ``__init__`` goes, and every ``from uta_tasks.samples import name``
   imports the name from the module that defines it.
2. Rewrites every Python file under ``uta_tasks/``, ``tests/``, ``perf/``, ``scripts/``,
   ``examples/``: ``from``-imports (relative ones too, which are kept relative when the
   relation still holds and made absolute otherwise; ``from uta_tasks import quickstart``
   becomes ``from uta_tasks.apps import quickstart``), then every dotted module path and
   every ``uta_tasks/...`` file path in the text (so ``monkeypatch.setattr("uta_tasks.x.y")``,
   ``mock.patch`` targets and ``python -m uta_tasks.quickstart`` follow).
3. Rewrites dotted and file paths in the other text files: ``Makefile``, ``pyproject.toml``,
   ``mkdocs.yml``, ``README.md``, ``CONTRIBUTING.md``, ``docs/*.md``, ``examples/*``,
   ``scripts/*.sh``, ``.ci/*``, ``.github/**/*.yml``, the jinja2 templates and the ``.md`` files
   under ``uta_tasks/``, ``tests/`` and ``perf/``.
4. ``git mv``s the files, writes the ``__init__.py`` of the new packages, removes the
   dissolved ``__init__``.
5. Writes the import contracts (``.importlinter``), adds ``lint-imports`` to ``make lint``,
   ``import-linter`` to the test extra of ``pyproject.toml``, and the contracts' lines and the
   layers table to ``CONTRIBUTING.md``.
6. Sorts the imports of the touched Python files with ``ruff check --select I --fix`` when
   ruff is importable by this interpreter (else prints that command).

Standard library only. The files' own text is the only input: nothing is guessed from
names that are not in :data:`MOVES`.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "uta_tasks"

# (old path, new path), relative to the repository. A file or a whole folder. Files that
# leave a folder which itself moves are listed before that folder.
MOVES: tuple[tuple[str, str], ...] = (
    # processes: the servers the package starts
    ("uta_tasks/processes.py", "uta_tasks/servers/processes.py"),
    ("uta_tasks/vllm_server.py", "uta_tasks/servers/vllm_server.py"),
    ("uta_tasks/judge/local_server.py", "uta_tasks/servers/llama_server.py"),
    # library: moved down out of the commands that used to hold them
    ("uta_tasks/agreement/calibration.py", "uta_tasks/runs/calibration.py"),
    ("uta_tasks/agreement/sources.py", "uta_tasks/runs/label_sources.py"),
    ("uta_tasks/agreement/alpha.py", "uta_tasks/stats/alpha.py"),
    ("uta_tasks/report/collect.py", "uta_tasks/runs/collect.py"),
    ("uta_tasks/report/pooled.py", "uta_tasks/runs/pooled.py"),
    ("uta_tasks/scale_out.py", "uta_tasks/probe/scale_out.py"),
    ("uta_tasks/samples/files.py", "uta_tasks/runs/sample_files.py"),
    ("uta_tasks/samples/items.py", "uta_tasks/runs/sample_items.py"),
    # commands
    ("uta_tasks/runs/cli.py", "uta_tasks/apps/summary.py"),
    ("uta_tasks/judge/prelabel_check.py", "uta_tasks/apps/prelabel_check.py"),
    ("uta_tasks/judge/batch", "uta_tasks/apps/batch"),
    ("uta_tasks/gate", "uta_tasks/apps/gate"),
    ("uta_tasks/report", "uta_tasks/apps/report"),
    ("uta_tasks/rejudge", "uta_tasks/apps/rejudge"),
    ("uta_tasks/annotate", "uta_tasks/apps/annotate"),
    ("uta_tasks/agreement", "uta_tasks/apps/agreement"),
    ("uta_tasks/quickstart", "uta_tasks/apps/quickstart"),
)

# Packages whose modules all moved elsewhere: old package -> the package that takes them.
DISSOLVED: dict[str, str] = {"uta_tasks.samples": "uta_tasks.runs"}

NEW_PACKAGES: dict[str, str] = {
    "uta_tasks/apps/__init__.py": (
        '"""The commands (console scripts and ``python -m`` entry points), above the library.\n\n'
        "Nothing in the library (``probe``, ``judge``, ``datasets``, ``metrics``, ``stats``,\n"
        "``runs``, ``paper``, ...) or in :mod:`uta_tasks.servers` imports from here (see\n"
        '``.importlinter``).\n"""\n'
    ),
    "uta_tasks/servers/__init__.py": (
        '"""The processes the package starts and supervises: vLLM, llama-server.\n\n'
        "Above the library, below the commands (see ``.importlinter``).\n"
        '"""\n'
    ),
}

PY_ROOTS = ("uta_tasks", "tests", "perf", "scripts", "examples")
TEXT_FILES = ("Makefile", "pyproject.toml", "mkdocs.yml", "README.md", "CONTRIBUTING.md")
TEXT_GLOBS = ("docs/**/*.md", "examples/*", "scripts/*.sh", ".ci/*", "tests/**/*.md", "perf/**/*.md", "*.cfg",
              "uta_tasks/templates/**/*.j2", "uta_tasks/**/*.md", ".github/**/*.yml")
SELF = Path("scripts/codemods")

IMPORTLINTER = """\
# Import contracts of uta_tasks (issue 20, part 3); `make lint` runs `lint-imports`.
# One line per contract in CONTRIBUTING.md ("Import contracts").
[importlinter]
root_package = uta_tasks
include_external_packages = True

[importlinter:contract:layers]
name = Commands (apps) above processes (servers) above the library
type = layers
layers =
    uta_tasks.apps
    uta_tasks.servers
    uta_tasks.probe : uta_tasks.judge : uta_tasks.datasets : uta_tasks.metrics : uta_tasks.stats : uta_tasks.runs : uta_tasks.paper : uta_tasks.lm_eval_compat : uta_tasks.tasks : uta_tasks.templates : uta_tasks.embedded : uta_tasks.paths

[importlinter:contract:library]
name = The library never imports the commands or the servers
type = forbidden
source_modules =
    uta_tasks.probe
    uta_tasks.judge
    uta_tasks.datasets
    uta_tasks.metrics
    uta_tasks.stats
    uta_tasks.runs
    uta_tasks.paper
    uta_tasks.lm_eval_compat
    uta_tasks.tasks
    uta_tasks.templates
    uta_tasks.embedded
    uta_tasks.paths
    uta_tasks.lm_eval_task
forbidden_modules =
    uta_tasks.apps
    uta_tasks.servers

[importlinter:contract:lm-eval]
name = Only uta_tasks.lm_eval_compat imports lm_eval
type = forbidden
source_modules =
    uta_tasks
forbidden_modules =
    lm_eval
ignore_imports =
    uta_tasks.lm_eval_compat.** -> lm_eval
allow_indirect_imports = True

[importlinter:contract:acyclic]
name = No import cycles between the modules of a package
type = acyclic_siblings
ancestors =
    uta_tasks
"""

CONTRACT_LINES = """\
<!-- layers:begin (written by scripts/codemods/layers.py) -->
### Import contracts

`make lint` runs `lint-imports` with these contracts from `.importlinter`:

- **layers**: `uta_tasks.apps` (the commands) above `uta_tasks.servers` (the processes we start) above the library (`probe`, `judge`, `datasets`, `metrics`, `stats`, `runs`, `paper`, `lm_eval_compat`, `tasks`, `templates`, `embedded`, `paths`).
- **library**: no library module (nor `lm_eval_task`) imports `uta_tasks.apps` or `uta_tasks.servers`, not even indirectly; a command's helper that the library needs moves down into the library.
- **lm-eval**: only `uta_tasks.lm_eval_compat` imports `lm_eval`.
- **acyclic**: no import cycle between the modules of any package of `uta_tasks`.

| layer | place |
|---|---|
| commands | `uta_tasks/apps/`: `gate/`, `report/`, `rejudge/`, `batch/`, `annotate/`, `agreement/`, `summary.py`, `prelabel_check.py`, `quickstart/`; `uta_tasks/cli.py` (`uta-eval`) |
| processes | `uta_tasks/servers/`: `processes.py` (supervision), `vllm_server.py`, `llama_server.py` |
| library | `uta_tasks/probe/` (with `scale_out.py`), `judge/`, `datasets/`, `metrics/`, `runs/` (the one reader of output folders: `sample_files.py`, `sample_items.py`, `collect.py` and `pooled.py` (the report's data), `calibration.py`, `label_sources.py`), `stats/` (with `alpha.py`), `paper/`, `lm_eval_compat/`, `tasks/`, `templates/`, `embedded/` |
<!-- layers:end -->
"""


@dataclass(frozen=True)
class Renames:
    """Old dotted module -> new dotted module, applied to the longest matching prefix."""

    modules: dict[str, str]
    dissolved_names: dict[str, dict[str, str]]  # old package -> {exported name -> old module}

    def module(self, dotted: str) -> str:
        """``dotted`` (a module, or a module and attributes) under the new layout."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            head = ".".join(parts[:cut])
            if head in self.modules:
                return ".".join([self.modules[head], *parts[cut:]])
            if head in self.dissolved_names:
                rest = parts[cut:]
                if rest and rest[0] in self.dissolved_names[head]:
                    return ".".join([self.module(self.dissolved_names[head][rest[0]]), *rest])
                if not rest:
                    return DISSOLVED[head]
        return dotted


def module_of(path: str) -> str:
    """Dotted module of a repository path (file or folder)."""
    path = path.removesuffix(".py").removesuffix("/__init__")
    return path.replace("/", ".")


def plan(root: Path) -> tuple[list[tuple[str, str]], Renames]:
    """The moves still to do, and the renames of the whole layout (done or not)."""
    modules = {module_of(old): module_of(new) for old, new in MOVES}
    dissolved_names: dict[str, dict[str, str]] = {}
    for package in DISSOLVED:
        init = root / package.replace(".", "/") / "__init__.py"
        names: dict[str, str] = {}
        if init.exists():
            for node in ast.parse(init.read_text()).body:
                if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                    for alias in node.names:
                        names[alias.asname or alias.name] = f"{package}.{node.module}"
        dissolved_names[package] = names
    todo = []
    for old, new in MOVES:
        if (root / old).exists():
            if (root / new).exists():
                raise SystemExit(f"layers codemod: both {old} and {new} exist; move one by hand, then rerun")
            todo.append((old, new))
    return todo, Renames(modules, dissolved_names)


DOTTED = re.compile(r"(?<![\w.])" + PACKAGE + r"(?:\.\w+)+")
SLASHED = re.compile(r"(?<![\w/.-])" + PACKAGE + r"(?:/\w+)+(?:\.py)?/?")


def rewrite_dotted(text: str, renames: Renames) -> str:
    return DOTTED.sub(lambda m: renames.module(m.group(0)), text)


def rewrite_slashed(text: str, renames: Renames) -> str:
    def one(match: re.Match[str]) -> str:
        found = match.group(0)
        trail = "/" if found.endswith("/") else ""
        body = found.rstrip("/")
        suffix = ".py" if body.endswith(".py") else ""
        dotted = body.removesuffix(".py").replace("/", ".")
        new = renames.module(dotted)
        if new == dotted:
            return found
        return new.replace(".", "/") + suffix + trail

    return SLASHED.sub(one, text)


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module of ``from <level dots><target> import ...`` written in ``module``."""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def relative_for(module: str, is_package: bool, target: str) -> tuple[int, str] | None:
    """``(level, name)`` to write ``target`` relatively from ``module``, within its package."""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    tparts = target.split(".")
    for level in range(1, len(base) + 1):
        anchor = base[: len(base) - (level - 1)]
        if tparts[: len(anchor)] == anchor:
            return level, ".".join(tparts[len(anchor):])
    return None


def _alias(name: str, asname: str | None) -> str:
    return f"{name} as {asname}" if asname and asname != name else name


def rewrite_import_from(
    node: ast.ImportFrom, old_module: str, new_module: str, is_package: bool, renames: Renames
) -> list[str] | None:
    """The statements replacing ``node`` (None: keep it as written)."""
    if node.level:
        source = resolve_relative(old_module, is_package, node.level, node.module)
    else:
        source = node.module or ""
    if not (source == PACKAGE or source.startswith(PACKAGE + ".")):
        return None
    groups: dict[str, list[str]] = {}
    for alias in node.names:
        full = f"{source}.{alias.name}"
        moved = renames.module(full)
        if moved != full and alias.name != "*":
            target, _, name = moved.rpartition(".")
            groups.setdefault(target, []).append(_alias(name, alias.asname or (alias.name if name != alias.name else None)))
        else:
            groups.setdefault(renames.module(source), []).append(_alias(alias.name, alias.asname))
    same_names = [n for names in groups.values() for n in names] == [_alias(a.name, a.asname) for a in node.names]
    written_as = resolve_relative(new_module, is_package, node.level, node.module) if node.level else source
    if same_names and list(groups) == [written_as]:
        return None  # the statement as written still names the right module
    out = []
    for target, names in groups.items():
        written = target
        if node.level:
            rel = relative_for(new_module, is_package, target)
            if rel is not None and rel[0] == node.level:
                written = "." * rel[0] + rel[1]
        out.append(f"from {written} import {', '.join(names)}")
    return out


def rewrite_python(path: Path, rel: str, renames: Renames) -> str:
    """The new text of a Python file (``rel``: its old repository path)."""
    text = path.read_text()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return rewrite_slashed(rewrite_dotted(text, renames), renames)
    in_package = rel.startswith(PACKAGE + "/")
    old_module = module_of(rel) if in_package else "__outside__"
    new_module = renames.module(old_module) if in_package else old_module
    is_package = rel.endswith("__init__.py")
    lines = text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (in_package or not node.level):
            new = rewrite_import_from(node, old_module, new_module, is_package, renames)
            if new is not None:
                edits.append((node, new))
    for node, new in sorted(edits, key=lambda e: e[0].lineno, reverse=True):
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        head = lines[first][: node.col_offset]
        tail = lines[last][node.end_col_offset :]
        block = "".join(f"{indent}{stmt}\n" for stmt in new)
        block = head + block[len(indent) :].rstrip("\n") + tail
        lines[first : last + 1] = [block]
    return rewrite_slashed(rewrite_dotted("".join(lines), renames), renames)


SKIP_MARK = "layers-codemod: skip"  # a file holding this line spells the old layout on purpose


def python_files(root: Path) -> list[Path]:
    out = []
    for top in PY_ROOTS:
        out += [p for p in (root / top).rglob("*.py") if SELF not in p.relative_to(root).parents]
    return sorted(p for p in set(out) if SKIP_MARK not in p.read_text())


def text_files(root: Path) -> list[Path]:
    out = [root / name for name in TEXT_FILES if (root / name).exists()]
    for pattern in TEXT_GLOBS:
        out += [p for p in root.glob(pattern) if p.is_file() and p.suffix != ".py"]
    return sorted(set(out))


def write_contracts(root: Path, dry_run: bool) -> list[str]:
    """``.importlinter``, ``lint-imports`` in ``make lint``, the lines in CONTRIBUTING.md."""
    done = []
    config = root / ".importlinter"
    if not config.exists() or config.read_text() != IMPORTLINTER:
        done.append("write .importlinter")
        if not dry_run:
            config.write_text(IMPORTLINTER)
    makefile = root / "Makefile"
    text = makefile.read_text()
    mypy = re.search(r"^(\t.*-m mypy uta_tasks.*)$", text, re.M)
    if mypy and "lint-imports" not in text:
        done.append("Makefile: lint runs lint-imports")
        line = "\t$(FAST_VENV)/bin/lint-imports"
        text = text[: mypy.end()] + "\n" + line + text[mypy.end() :]
        text = text.replace("make lint          ruff, and mypy on the package", "make lint          ruff, mypy on the package, and the import contracts")
        if not dry_run:
            makefile.write_text(text)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    if "import-linter" not in text:
        new_text = re.sub(r'^(test = \[.*?"mypy>=[^"]*", )', r'\1"import-linter>=2.17", ', text, count=1, flags=re.M | re.S)
        if new_text == text:
            raise SystemExit("layers codemod: pyproject.toml has no test extra naming mypy; add import-linter to it by hand")
        done.append("pyproject.toml: import-linter in the test extra")
        if not dry_run:
            pyproject.write_text(new_text)
    contributing = root / "CONTRIBUTING.md"
    text = contributing.read_text()
    block = re.compile(r"<!-- layers:begin.*?<!-- layers:end -->\n", re.S)
    if block.search(text):
        new = block.sub(lambda _: CONTRACT_LINES, text)
    else:
        # after the "where each concept lives" table: the first blank line after the first table
        table = re.search(r"^\|.*\n(?:\|.*\n)+", text, re.M)
        at = table.end() if table else len(text)
        new = text[:at] + "\n" + CONTRACT_LINES + text[at:]
    new = new.replace(
        "| the judge | `uta_tasks/judge/` (settings, prompt, client, cache, preflight, local server) |",
        "| the judge | `uta_tasks/judge/` (settings, prompt, client, cache, preflight); the local llama-server judge `uta_tasks/servers/llama_server.py` |",
    )
    new = new.replace("| `make lint` | ruff, and mypy on the package |", "| `make lint` | ruff, mypy on the package, and the import contracts (`lint-imports`) |")
    if new != text:
        done.append("CONTRIBUTING.md: import contracts and layers")
        if not dry_run:
            contributing.write_text(new)
    return done


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    if not (root / PACKAGE / "__init__.py").exists():
        raise SystemExit(f"layers codemod: {root} has no {PACKAGE}/__init__.py; run it from the repository's top")
    moves, renames = plan(root)

    # old path of every file that moves, so relative imports resolve where they were written
    old_of: dict[Path, str] = {}
    for old, _new in moves:
        src = root / old
        for f in [src] if src.is_file() else sorted(src.rglob("*.py")):
            old_of[f] = f.relative_to(root).as_posix()

    changed: list[Path] = []
    for path in python_files(root):
        rel = old_of.get(path, path.relative_to(root).as_posix())
        before = path.read_text()
        after = rewrite_python(path, rel, renames)
        if after != before:
            changed.append(path)
            if not args.dry_run:
                path.write_text(after)
    for path in text_files(root):
        before = path.read_text(errors="strict")
        after = rewrite_slashed(rewrite_dotted(before, renames), renames)
        if after != before:
            changed.append(path)
            if not args.dry_run:
                path.write_text(after)

    for old, new in moves:
        print(f"git mv {old} {new}")
        if not args.dry_run:
            (root / new).parent.mkdir(parents=True, exist_ok=True)
            git(root, "mv", old, new)
    for package in DISSOLVED:
        folder = root / package.replace(".", "/")
        init = folder / "__init__.py"
        if init.exists():
            print(f"git rm {init.relative_to(root)}")
            if not args.dry_run:
                git(root, "rm", "-qf", str(init.relative_to(root)))
                if folder.exists() and not any(p.name != "__pycache__" for p in folder.iterdir()):
                    shutil.rmtree(folder)  # only bytecode is left
    for rel, text in NEW_PACKAGES.items():
        if not (root / rel).exists():
            print(f"create {rel}")
            if not args.dry_run:
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
                git(root, "add", rel)
    contract_edits = write_contracts(root, args.dry_run)
    for line in contract_edits:
        print(line)

    py_changed = [p for p in changed if p.suffix == ".py"]
    print(f"rewrote {len(changed)} files ({len(py_changed)} Python)")
    if py_changed and not args.dry_run:
        sort_imports(root)
    if not moves and not changed and not contract_edits:
        print("layers codemod: the tree is already in its layers; nothing to do")
    return 0


def sort_imports(root: Path) -> None:
    folders = [name for name in (*PY_ROOTS[:3], "scripts") if (root / name).is_dir()]
    command = [sys.executable, "-m", "ruff", "check", "--select", "I", "--fix", "--quiet", *folders]
    try:
        import ruff  # noqa: F401
    except ImportError:
        print("ruff is not importable here; sort the imports with: python -m ruff check --select I --fix " + " ".join(PY_ROOTS[:3]))
        return
    subprocess.run(command, cwd=root, check=False)
    print("sorted the imports: " + " ".join(command[1:]))


if __name__ == "__main__":
    sys.exit(main())
