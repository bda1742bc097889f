"""The task folder is what the generator makes, and lm-eval sees every task and group."""

from uta_tasks.tasks import generate


def test_generated_task_files_are_up_to_date():
    assert generate.stale() == [], "run: python -m uta_tasks.tasks.generate"


def test_check_mode_reports_a_stale_file(tmp_path, monkeypatch):
    monkeypatch.setattr(generate, "TASKS_DIR", tmp_path)
    assert generate.main(["--check"]) == 1
    assert generate.main([]) == 0 and generate.main(["--check"]) == 0


def test_every_benchmark_has_three_tasks_and_groups():
    import uta_tasks

    tm = uta_tasks.task_manager()
    names = set(tm.all_tasks)
    for bench in generate.SELF_GENERATED:
        for suffix in ("", "_trunc", "_question"):
            assert f"uta_{bench}{suffix}" in names
        assert f"uta_{bench}_all" in names
    for group in ("uta", "uta_base", "uta_trunc", "uta_question"):
        assert group in names
    assert "ifeval" in names  # lm-eval's own tasks stay visible
