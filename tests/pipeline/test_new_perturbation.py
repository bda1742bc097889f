"""CONTRIBUTING.md's worked example of a new perturbation, carried out: ``upper`` is registered
as the page says, its task is generated and runs through lm-eval's evaluator and the probe,
and the paper's group ``uta`` keeps its 15 tasks. The registry is restored after each test."""

from __future__ import annotations

import shutil

import pytest
from pipeline_run import NO_JUDGE, evaluate, records

from uta_tasks.cli import task_uses
from uta_tasks.probe import perturbations
from uta_tasks.probe.perturb import Context, Perturbed
from uta_tasks.tasks import generate

PAPER_TASKS = 15  # the paper: 5 benchmarks x (none, trunc, question)


# ---- the example as CONTRIBUTING.md writes it ---------------------------------------------
# uta_tasks/probe/perturb.py
def upper(text: str, context: Context) -> Perturbed:
    """``upper``: a' = a in capital letters (the final answer; the reasoning in front is kept)."""
    return Perturbed(text=text.upper())


def register_upper() -> None:
    # uta_tasks/probe/perturbations.py, below the paper's three
    perturbations.register(perturbations.Perturbation("upper", upper, "a in capital letters"))
# ---------------------------------------------------------------------------------------------


@pytest.fixture()
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy of the registry for one test; the module's own is back afterwards."""
    monkeypatch.setattr(perturbations, "_REGISTRY", dict(perturbations._REGISTRY))


def test_the_fixture_leaves_the_registry_as_it_was(registry):
    register_upper()
    assert "upper" in perturbations.names()


def test_registry_is_back_after_a_test():
    assert "upper" not in perturbations.names()


def test_a_new_perturbation_gets_its_tasks_and_groups_but_not_the_papers(registry):
    paper_group = generate.TASKS_DIR / "groups" / f"{generate.PAPER_GROUP}.yaml"
    register_upper()
    made = generate.files()
    task = made[generate.TASKS_DIR / "gsm8k" / "uta_gsm8k_upper.yaml"]
    assert "task: uta_gsm8k_upper\n" in task and "uta_perturbation: upper\n" in task
    assert "  - uta_gsm8k_upper\n" in made[generate.TASKS_DIR / "gsm8k" / "_uta_gsm8k_all.yaml"]
    assert "uta_upper" in generate.perturbation_groups()
    assert made[generate.TASKS_DIR / "groups" / "uta_upper.yaml"].count("  - uta_") == len(generate.SELF_GENERATED)
    # the paper's group: the same 15 tasks, the same file, the same help text
    assert len(generate.paper_tasks()) == PAPER_TASKS
    assert made[paper_group] == paper_group.read_text()
    assert made[paper_group].count("  - uta_") == PAPER_TASKS and "upper" not in made[paper_group]
    assert f"the {PAPER_TASKS} probe tasks" in " ".join(task_uses().split())


def test_the_new_task_runs_through_the_probe(registry, scripted, tmp_path):
    register_upper()
    made = generate.files()
    shutil.copy(generate.TASKS_DIR / "_default_template_yaml", tmp_path / "_default_template_yaml")
    (tmp_path / "ifbench").mkdir()
    name = "uta_ifbench_upper"
    (tmp_path / "ifbench" / f"{name}.yaml").write_text(made[generate.TASKS_DIR / "ifbench" / f"{name}.yaml"])
    results = evaluate(scripted, [name], metadata=NO_JUDGE, include=(tmp_path,), limit=2)
    got = records(results, name)
    assert len(got) == 2
    for record in got:
        assert record.perturbation == "upper" and record.perturbed
        assert record.a_prime == record.history.upper() != record.history
        assert record.u and record.u_ref, "u after a' and u_ref after the unperturbed history"
        assert record.truncation is None and record.cue is None
