"""The structure the contributors rely on: one seam to lm-eval, one metric table."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "uta_tasks"
LM_EVAL_IMPORT = re.compile(r"^\s*(from lm_eval\b|import lm_eval\b)|import_module\(\s*[\"']lm_eval", re.M)


def test_only_the_compat_module_imports_lm_eval():
    offenders = [
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        if "lm_eval_compat" not in path.parts and LM_EVAL_IMPORT.search(path.read_text())
    ]
    assert offenders == [], f"lm-eval internals reached outside uta_tasks/lm_eval_compat/: {offenders}"


def test_manual_metric_table_is_the_generated_one():
    from uta_tasks.metrics.table import markdown_table

    assert _generated("metrics.md", "metrics") == markdown_table(), "docs/metrics.md is stale: run python scripts/metric_docs.py"


def _generated(page: str, marker: str) -> str:
    text = (ROOT / "docs" / page).read_text()
    return text.split(f"<!-- {marker}:start -->\n", 1)[1].split(f"\n<!-- {marker}:end -->", 1)[0]


def test_report_page_lists_are_the_generated_ones():
    from uta_tasks.apps.report.metric_tables import sections_markdown
    from uta_tasks.runs.estimates import intervals_markdown

    assert _generated("report.md", "report-sections") == sections_markdown(), "run: python scripts/metric_docs.py"
    assert _generated("report.md", "intervals") == intervals_markdown(), "run: python scripts/metric_docs.py"


def test_metric_table_decides_aggregation_and_direction():
    from uta_tasks.metrics.table import TaskShape, metrics_for

    shape = TaskShape(perturbation="trunc", judged=True, held_out=False, primary="exact_match")
    specs = {m.name: m for m in metrics_for(shape, {})}
    assert {"genuine_followup_base", "trunc_emptied", "genuine_followup_correct"} <= set(specs)
    assert "genuine_followup_reference" not in specs
    assert specs["label_plausible_followup"].higher_is_better and not specs["label_meta_planning"].higher_is_better
    assert specs["unjudged"].aggregation([1.0, 2.0]) == 3.0


def _unjudged_doc(perturbation: str):
    """Two repeats of a doc probed with the judge off: no verdict anywhere, T = 0."""
    from uta_tasks.metrics.values import Doc
    from uta_tasks.schema.probe import ProbeRecord

    base = dict(task="t", benchmark="b", perturbation=perturbation, q="q?", messages=[], a="a", answer="a",
                reasoning_form="plain", history="a", a_prime="a", role_switch={}, generation={"user": {}},
                given_answer=False, truncation={"emptied": True} if perturbation == "trunc" else None)
    records = (ProbeRecord(**base, u="u one", u_ref="u two"), ProbeRecord(**base, u="same", u_ref="same"))
    return Doc(records, (0, 1), (True, False))


def test_a_metric_needs_the_judge_exactly_when_its_row_says_so():
    """With the judge off a task reports the rows that need no judge, and each of them has a
    value from records without verdicts; a row that needs the judge has none there."""
    from uta_tasks.metrics.table import PROBE_METRICS, TaskShape, metrics_for
    from uta_tasks.metrics.values import share
    from uta_tasks.probe.perturbations import names

    for perturbation in names():
        shape = TaskShape(perturbation, judged=False, held_out=False, primary="exact_match")
        off = {m.name for m in metrics_for(shape, {})}
        on = {m.name: m for m in metrics_for(TaskShape(perturbation, judged=True, held_out=False,
                                                       primary="exact_match"), {})}
        assert off == {n for n, m in on.items() if not m.needs_judge}, perturbation
        doc = _unjudged_doc(perturbation)
        for m in PROBE_METRICS:
            if not m.reported(TaskShape(perturbation, judged=True, held_out=False, primary="exact_match")):
                continue
            if m.units is not None:
                found = m.units(doc)
                value = float(sum(found.values())) if m.count else share(found)
            elif m.value is not None:
                value = m.value(doc)
            else:
                continue  # overlong: counted before any row's function
            measured = value == value and (value != 0.0 or not m.count)
            assert measured != m.needs_judge, (m.name, value, "set needs_judge to what the function reads")


def test_modules_stay_small():
    big = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 420}
    assert big == {}, f"split these modules (one concept per file): {big}"


def test_readme_fits_two_screens_and_links_only_to_pages_that_exist():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200, "README.md is the front page: keep it under 200 lines, move detail to docs/"
    pages = set(re.findall(r"\]\((docs/[\w\-]+\.md)(?:#[\w\-]+)?\)", text))
    assert pages, "the README links into the manual"
    assert [p for p in pages if not (ROOT / p).is_file()] == []
    nav = (ROOT / "mkdocs.yml").read_text()
    assert [p for p in pages if p.removeprefix("docs/") not in nav] == [], "every page the README names is in the nav"


def _nav_pages(entries: list) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for entry in entries:
        for title, target in entry.items():
            out += _nav_pages(target) if isinstance(target, list) else [(title, f"docs/{target}")]
    return out


def test_readme_manual_table_is_the_mkdocs_nav():
    import yaml

    nav = _nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"])
    text = (ROOT / "README.md").read_text()
    table = text.split("| page | what it answers |\n", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| \[([^\]]+)\]\((docs/[\w\-]+\.md)\) \|", table, re.M)
    assert len(rows) == len(table.splitlines()) - 1, "each row of the README's manual table is one page link"
    assert rows == nav, "the README's manual table lists the pages of mkdocs.yml's nav, same titles, same order"


def test_contributing_lists_every_import_contract():
    contracts = re.findall(r"^\[importlinter:contract:([\w\-]+)\]", (ROOT / ".importlinter").read_text(), re.M)
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("### Import contracts\n", 1)[1].split("\n| layer | place |", 1)[0]
    listed = re.findall(r"^- \*\*([\w\-]+)\*\*:", section, re.M)
    assert sorted(listed) == sorted(contracts), "CONTRIBUTING.md's import contracts are those of .importlinter, by id"


def _literal_check():
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_schema_literals", ROOT / "scripts" / "check_schema_literals.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_verdict_status_is_spelled_only_in_the_schema(tmp_path):
    check = _literal_check()
    assert check.find_literals(PACKAGE) == [], "use uta_tasks.schema.verdict.JUDGED / verdict.judged"
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema" / "verdict.py").write_text('JUDGED = "judged"\n')
    (tmp_path / "reader.py").write_text('"""Counts judged turns."""\nok = v.get("status") == \'judged\'\nn = f"{3} judged"\n')
    assert check.find_literals(tmp_path) == [f"{tmp_path / 'reader.py'}:2: 'judged'"]
    assert check.main([str(tmp_path)]) == 1 and check.main([str(PACKAGE)]) == 0
