"""``uta-prelabel-check``: the precision of each pre-label rule against a judge, on the same items.

    uta-prelabel-check OUTPUT_DIR [OUTPUT_DIR ...]                         # verdicts stored in the samples
    uta-prelabel-check OUTPUT_DIR --judge --metadata '{"judge_model": "gpt-5.4-mini"}'  # a fresh judge run

Reads the lm-eval output folders written with ``--log_samples`` (see
:mod:`uta_tasks.runs`), applies the rules of :mod:`.prelabel` to every distinct item,
and compares each rule's label with the judge's label on the items it fires on:
precision = items where the judge gave the rule's label / items the rule fired on that
the judge labelled. The judge's labels are the stored verdicts (pre-labelled verdicts
and unjudged ones left out) or, with ``--judge``, a fresh run of the judge named by
``--metadata`` with the rules off (it uses and fills the verdict cache). It also prints
how many of the judge's labels each rule found, and the copy rules at other
thresholds. The paper chose an LLM judge over string matching (summary, "The LLM Judge:
FOLLOWUPEVAL"), so the rules stay off by default until a rule's precision against a
strong judge is shown to be at least 0.98.

Python: :func:`check` on items and labels, :func:`format_report` for the tables.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import add_metadata_option, metadata_from_json
from uta_tasks.judge.prelabel import COPY_THRESHOLD, PRELABEL_MODEL, RULE_LABELS, RULES, prelabel
from uta_tasks.judge.records import JudgeItem
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.judge.settings import JudgeSettings
from uta_tasks.runs.atomic import write_text
from uta_tasks.schema.probe import VERDICT_SLOTS
from uta_tasks.schema.verdict import Verdict

SWEEP: tuple[float, ...] = (0.7, 0.8, 0.85, 0.9, 0.95, 1.0)
COPY_RULES = ("restates_prompt", "copies_answer")
TARGET_PRECISION = 0.98


@dataclass
class RuleFigures:
    """How one rule fared against the judge.

    Attributes:
        rule: The rule.
        label: Its label.
        fired: Distinct items it fired on.
        compared: Of those, items the judge labelled.
        agree: Of those, items the judge gave the rule's label.
        judge_not_genuine: Of ``compared``, items the judge called not genuine.
        judge_labels: The judge's labels on ``compared``.
        judge_total: Items the judge gave the rule's label, over all compared items (``agree``
            of them are found by this rule).
    """

    rule: str
    label: str
    fired: int = 0
    compared: int = 0
    agree: int = 0
    judge_not_genuine: int = 0
    judge_labels: dict[str, int] = field(default_factory=dict)
    judge_total: int = 0

    @property
    def precision(self) -> float | None:
        """``agree / compared``, None when nothing was compared."""
        return self.agree / self.compared if self.compared else None


@dataclass
class CheckReport:
    """The comparison of the rules with a judge.

    Attributes:
        judge: Who labelled (judge model and prompt version).
        items: Distinct items.
        compared: Distinct items with a judge label.
        fired: Distinct items some rule fired on (judge calls a run would save).
        rules: Per rule, at :data:`.prelabel.COPY_THRESHOLD`.
        sweep: ``[threshold, rule, fired, compared, agree]`` of the copy rules.
    """

    judge: str
    items: int
    compared: int
    fired: int
    rules: list[RuleFigures]
    sweep: list[list[Any]]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        data = asdict(self)
        for entry, rule in zip(data["rules"], self.rules, strict=True):
            entry["precision"] = rule.precision
        return data


JudgeLabel = tuple[str, bool]


def check(items: Sequence[JudgeItem], labels: Sequence[JudgeLabel | None], judge: str = "judge",
          thresholds: Sequence[float] = SWEEP) -> CheckReport:
    """Compare the rules with the judge's ``(label, genuine)`` on the same items.

    Args:
        items: The judge items (duplicates are counted once, by fingerprint).
        labels: The judge's label and genuine per item, None when it has none.
        judge: Who labelled, for the report.
        thresholds: Coverage thresholds to sweep for the copy rules.
    """
    distinct: dict[str, tuple[JudgeItem, JudgeLabel | None]] = {}
    for item, label in zip(items, labels, strict=True):
        key = item.fingerprint()
        if key not in distinct or distinct[key][1] is None:
            distinct[key] = (item, label)
    figures = {rule: RuleFigures(rule, RULE_LABELS[rule]) for rule in RULES}
    counters: dict[str, Counter[str]] = {rule: Counter() for rule in RULES}
    fired = 0
    for item, label in distinct.values():
        found = prelabel(item)
        if label is not None:
            for entry in figures.values():
                entry.judge_total += int(label[0] == entry.label)
        if found is None:
            continue
        fired += 1
        entry = figures[found.rule]
        entry.fired += 1
        if label is None:
            continue
        entry.compared += 1
        entry.agree += int(label[0] == entry.label)
        entry.judge_not_genuine += int(not label[1])
        counters[found.rule][label[0]] += 1
    for rule, entry in figures.items():
        entry.judge_labels = dict(counters[rule].most_common())
    compared = sum(1 for _, label in distinct.values() if label is not None)
    return CheckReport(judge, len(distinct), compared, fired, list(figures.values()),
                       _sweep(list(distinct.values()), thresholds))


def _sweep(entries: list[tuple[JudgeItem, JudgeLabel | None]], thresholds: Sequence[float]) -> list[list[Any]]:
    rows = []
    for threshold in thresholds:
        counts = {rule: [0, 0, 0] for rule in COPY_RULES}
        for item, label in entries:
            found = prelabel(item, threshold)
            if found is None or found.rule not in counts:
                continue
            count = counts[found.rule]
            count[0] += 1
            if label is not None:
                count[1] += 1
                count[2] += int(label[0] == found.label)
        rows += [[threshold, rule, *counts[rule]] for rule in COPY_RULES]
    return rows


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "n/a"


def format_report(report: CheckReport) -> str:
    """The report as Markdown: one table per rule, then the threshold sweep.

    Args:
        report: From :func:`check`.
    """
    lines = [
        f"pre-labels (copy threshold {COPY_THRESHOLD:g}) against {report.judge}: {report.items} distinct items, "
        f"{report.compared} with a judge label, rules fire on {report.fired} (judge calls saved)",
        "",
        "| rule | label | fired | compared | agree | precision | judge: not genuine | judge labels on them "
        "| judge's label found |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report.rules:
        labels = ", ".join(f"{label} {count}" for label, count in r.judge_labels.items()) or "-"
        lines.append(
            f"| {r.rule} | {r.label} | {r.fired} | {r.compared} | {r.agree} | {_share(r.agree, r.compared)} | "
            f"{r.judge_not_genuine} | {labels} | {r.agree} of {r.judge_total} |"
        )
    lines += ["", "| threshold | rule | fired | compared | agree | precision |", "|---|---|---|---|---|---|"]
    for threshold, rule, fired, compared, agree in report.sweep:
        lines.append(f"| {threshold:g} | {rule} | {fired} | {compared} | {agree} | {_share(agree, compared)} |")
    return "\n".join(lines)


def stored_label(verdict: Verdict | None) -> JudgeLabel | None:
    """The judge's ``(label, genuine)`` in a stored verdict; None for none, unjudged or pre-labelled.

    Args:
        verdict: A verdict from a samples file.
    """
    if verdict is None or not verdict.judged or verdict.prelabel_rule:
        return None
    if verdict.judge_model == PRELABEL_MODEL or verdict.label is None:
        return None
    return str(verdict.label), bool(verdict.genuine)


def fresh_labels(items: Sequence[JudgeItem], settings: JudgeSettings) -> list[JudgeLabel | None]:
    """Judge every item with the rules off.

    Args:
        items: The items.
        settings: The judge (``judge_prelabel`` is ignored).
    """
    from uta_tasks.judge.runner import judge_all
    from uta_tasks.judge.summary import format_summary

    run = judge_all(items, replace(settings, prelabel=False))
    logging.getLogger(__name__).info("%s", format_summary(run.summary()))
    return [(v.label, bool(v.genuine)) if v.judged and v.label else None for v in run.verdicts]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``uta-prelabel-check``."""
    parser = argparse.ArgumentParser(
        prog="uta-prelabel-check", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", help="lm-eval --output_path folders (or samples_*.jsonl files)")
    parser.add_argument("--judge", action="store_true", help="judge the items afresh instead of reading verdicts")
    add_metadata_option(parser, when="with --judge")
    parser.add_argument("--kinds", default=",".join(VERDICT_SLOTS),
                        help="which user turns (comma-separated record fields; default: all)")
    parser.add_argument("--json", dest="json_path", help="also write the report as JSON to this file")
    return lm_eval_spelling(parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-prelabel-check``.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).

    Returns:
        0 when every rule that fired on a compared item has precision >= 0.98, else 1.
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from uta_tasks.judge.errors import JudgeConfigError
    from uta_tasks.runs.sample_items import sample_items

    metadata = metadata_from_json(args.metadata, "uta-prelabel-check")
    try:
        found = sample_items(args.paths, kinds=[kind.strip() for kind in args.kinds.split(",") if kind.strip()])
        items = [entry.item for entry in found]
        if args.judge:
            settings = JudgeSettings.from_metadata(metadata)
            labels = fresh_labels(items, settings)
            judge = f"{settings.model} ({settings.prompt}), fresh run"
        else:
            labels = [stored_label(entry.verdict) for entry in found]
            judge = ", ".join(sorted({f"{e.verdict.judge_model} ({e.verdict.prompt_version})"
                                      for e, label in zip(found, labels, strict=True) if label and e.verdict}))
    except (JudgeConfigError, FileNotFoundError, ValueError) as exc:
        raise SystemExit(f"uta-prelabel-check: {exc}") from None
    report = check(items, labels, judge or "no judge verdicts")
    print(format_report(report))
    if args.json_path:
        write_text(args.json_path, json.dumps(report.to_dict(), indent=2))
    below = [r for r in report.rules if r.precision is not None and r.precision < TARGET_PRECISION]
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
