"""The number of tasks in the paper's group ``uta``, and of its benchmarks, as the manual states
them, is the code's (:mod:`uta_tasks.tasks.generate`), and so is the one ``uta-eval --help`` gives."""

from __future__ import annotations

import re
from pathlib import Path

from uta_tasks.cli import task_uses
from uta_tasks.probe import perturbations
from uta_tasks.tasks import generate
from uta_tasks.wrap import names

ROOT = Path(__file__).resolve().parents[2]
#: the pages that state the group's size, each at least once
PAGES = ("README.md", "docs/tasks.md", "docs/how-a-run-works.md", "uta_tasks/tasks/README.md")
TASK_COUNT = re.compile(r"\b(\d+) self-generated (?:tasks|and)\b|`uta` \((\d+) tasks\)")
BENCHMARK_COUNT = re.compile(r"\b(\d+) (?:self-generated )?benchmarks\b")
PERTURBATION_COUNT = re.compile(r"the paper's (\d+) perturbations\b")


def _counts(pattern: re.Pattern[str], text: str) -> list[int]:
    return [int(next(g for g in m.groups() if g)) for m in pattern.finditer(text)]


def test_the_manual_states_the_size_of_uta_as_the_code_makes_it():
    tasks, benchmarks = len(generate.paper_tasks()), len(generate.SELF_GENERATED)
    perturbs = len(perturbations.paper_names())
    for page in PAGES:
        text = (ROOT / page).read_text()
        stated = _counts(TASK_COUNT, text)
        assert stated, f"{page} no longer states the size of the group uta: update PAGES"
        assert set(stated) == {tasks}, f"{page} says uta has {stated} tasks; the code makes {tasks}"
        assert set(_counts(BENCHMARK_COUNT, text)) <= {benchmarks}, f"{page}: the code has {benchmarks} benchmarks"
        assert set(_counts(PERTURBATION_COUNT, text)) <= {perturbs}, f"{page}: the paper's group has {perturbs}"


def test_help_names_the_tasks_the_code_makes():
    text = " ".join(task_uses().split())
    assert f"the {len(generate.paper_tasks())} probe tasks ({len(generate.SELF_GENERATED)} benchmarks" in text
    wrapped = [names.task_name("NAME", p) for p in perturbations.names()]
    assert f"({', '.join(wrapped)}, the group {names.family_group('NAME')})" in text
    assert all(group in text for group in generate.perturbation_groups())
