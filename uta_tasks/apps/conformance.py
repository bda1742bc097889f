"""``uta-conformance``: run a judge on the constructed conformance cases and say how often
it agrees with their expected labels, overall, per expected label and per boundary.

The cases (``uta_tasks/templates/conformance/followupeval-cases-v2.jsonl``) are drawn from
the paper's own examples and label definitions; each names the sentence it rests on, or
says it is the project's choice (``source``), and the boundary it tests (``boundary``:
``core`` for the clear cases; ``voice``, ``missing_information``, ``related_task``,
``plausibility``, ``other``, ``app_c_drill`` and ``restart`` for the lines a judge must
draw). They check the plumbing of any judge setting, and they are a published
conformance set: run them against your own judge before trusting its rates::

    uta-conformance --metadata '{"judge_base_url": "http://127.0.0.1:8000/v1", "judge_model": "my-judge"}'

The judge settings are those of a run (``--metadata`` keys and ``UTA_JUDGE_*``
variables). The command prints one row per case, then the binary and label agreement
overall, per expected label and per boundary; it
exits 0 when the binary agreement reaches ``--min_binary`` (default 0: report only), 1
when it does not, 2 on a bad setting.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.apps.flags import lm_eval_spelling
from uta_tasks.apps.judge_options import add_metadata_option, metadata_from_json
from uta_tasks.judge.records import JudgeItem
from uta_tasks.judge.redact import install_log_redaction
from uta_tasks.judge.settings import JudgeSettings
from uta_tasks.runs.atomic import write_text
from uta_tasks.schema.labels import LABELS
from uta_tasks.schema.verdict import JUDGED, Verdict
from uta_tasks.templates import TEMPLATES_DIR

CASES = TEMPLATES_DIR / "conformance" / "followupeval-cases-v2.jsonl"
CORE = "core"


@dataclass(frozen=True)
class Case:
    """One constructed case.

    Attributes:
        id: ``<label>-<n>``.
        label: the expected label.
        genuine: the expected binary decision.
        context: the conversation, ``(role, content)`` turns ending with the assistant's.
        user_turn: the candidate user turn.
        source: the sentence of the paper (or the project's choice) the case rests on.
        note: what the case shows.
        boundary: the line the case tests (``core`` for a clear case of its label).
    """

    id: str
    label: str
    genuine: bool
    context: tuple[tuple[str, str], ...]
    user_turn: str
    source: str
    note: str = ""
    boundary: str = CORE

    @property
    def item(self) -> JudgeItem:
        """The judge item of the case."""
        return JudgeItem(self.context, self.user_turn)


def load_cases(path: str | Path = CASES) -> list[Case]:
    """Read a cases file (JSON lines with the fields of :class:`Case`).

    Args:
        path: the file.
    """
    cases = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw = json.loads(line)
        if raw.get("label") not in LABELS:
            raise ValueError(f"{path}:{n}: label {raw.get('label')!r} is not one of {', '.join(LABELS)}")
        context = tuple((str(role), str(content)) for role, content in raw["context"])
        cases.append(Case(raw["id"], raw["label"], bool(raw["genuine"]), context, raw["user_turn"], raw["source"],
                          raw.get("note", ""), raw.get("boundary", CORE)))
    return cases


@dataclass(frozen=True)
class Outcome:
    """What the judge said about one case."""

    case: Case
    verdict: Verdict

    @property
    def judged(self) -> bool:
        return self.verdict.judged

    @property
    def binary_ok(self) -> bool:
        return self.judged and self.verdict.genuine == self.case.genuine

    @property
    def label_ok(self) -> bool:
        return self.judged and self.verdict.label == self.case.label


def run(cases: list[Case], settings: JudgeSettings) -> list[Outcome]:
    """Judge every case in one run (identical items once, the cache used).

    Args:
        cases: the cases.
        settings: the judge settings.
    """
    from uta_tasks.judge.runner import judge_all

    verdicts = judge_all([c.item for c in cases], settings).verdicts
    return [Outcome(c, v) for c, v in zip(cases, verdicts, strict=True)]


def _counts(outcomes: list[Outcome]) -> dict[str, int]:
    judged = [o for o in outcomes if o.judged]
    return {"cases": len(outcomes), JUDGED: len(judged), "binary_agree": sum(o.binary_ok for o in judged),
            "label_agree": sum(o.label_ok for o in judged)}


def _grouped(outcomes: list[Outcome], key: Callable[[Case], str]) -> dict[str, dict[str, int]]:
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(key(o.case), []).append(o)
    return {name: _counts(group) for name, group in groups.items()}


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """Counts of agreement (over judged cases) and of unjudged cases, overall, per expected
    label (``by_label``) and per boundary (``by_boundary``).

    Args:
        outcomes: the judged cases.
    """
    return {
        **_counts(outcomes),
        "disagreements": [o.case.id for o in outcomes if o.judged and not (o.binary_ok and o.label_ok)],
        "by_label": _grouped(outcomes, lambda case: case.label),
        "by_boundary": _grouped(outcomes, lambda case: case.boundary),
    }


def _group_rows(title: str, groups: dict[str, dict[str, int]]) -> list[str]:
    rows = ["", f"| {title} | cases | judged | binary agree | label agree |", "|---|---|---|---|---|"]
    for name, c in groups.items():
        judged = c[JUDGED]
        agree = f"{c['binary_agree']}/{judged} | {c['label_agree']}/{judged}"
        rows.append(f"| {name} | {c['cases']} | {judged} | {agree} |")
    return rows


def format_table(outcomes: list[Outcome], settings: JudgeSettings) -> str:
    """The per-case table and the agreement lines.

    Args:
        outcomes: the judged cases.
        settings: the judge settings (named in the header).
    """
    lines = [f"uta-conformance: {settings.model} ({settings.prompt}) on {len(outcomes)} constructed cases",
             "", "| case | boundary | expected | judge | binary | label |", "|---|---|---|---|---|---|"]
    for o in outcomes:
        got = f"{o.verdict.label} / {o.verdict.genuine}" if o.judged else f"unjudged ({o.verdict.reason_code})"
        lines.append(f"| {o.case.id} | {o.case.boundary} | {o.case.label} / {o.case.genuine} | {got} "
                     f"| {'ok' if o.binary_ok else 'NO'} | {'ok' if o.label_ok else 'NO'} |")
    s = summary(outcomes)
    lines += _group_rows("expected label", s["by_label"]) + _group_rows("boundary", s["by_boundary"])
    lines += ["", f"binary agreement: {s['binary_agree']}/{s[JUDGED]} judged "
                  f"({s['cases'] - s[JUDGED]} unjudged); label agreement: {s['label_agree']}/{s[JUDGED]}"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``uta-conformance``.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).
    """
    install_log_redaction()  # no credential in any log line, the HTTP client's included
    parser = argparse.ArgumentParser(prog="uta-conformance", description=__doc__.split("\n\n")[0])
    add_metadata_option(parser)
    parser.add_argument("--cases", default=str(CASES),
                        help="cases file (JSON lines; default: the shipped set v2; v1 is followupeval-cases-v1.jsonl)")
    parser.add_argument("--min_binary", type=float, default=0.0,
                        help="share of judged cases whose genuine decision must agree (0-1); below it exit 1")
    parser.add_argument("--json", dest="json_path", help="also write the outcomes as JSON to this file")
    args = lm_eval_spelling(parser).parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from uta_tasks.judge.errors import JudgeConfigError

    try:
        settings = JudgeSettings.from_metadata(metadata_from_json(args.metadata, "uta-conformance"))
        outcomes = run(load_cases(args.cases), settings)
    except (JudgeConfigError, FileNotFoundError, ValueError, KeyError) as exc:
        parser.error(f"{exc} (check --metadata and --cases)")
    print(format_table(outcomes, settings))
    s = summary(outcomes)
    if args.json_path:
        rows = [{"id": o.case.id, "boundary": o.case.boundary, "expected": [o.case.label, o.case.genuine],
                 "status": o.verdict.status,
                 "label": o.verdict.label, "genuine": o.verdict.genuine} for o in outcomes]
        write_text(args.json_path, json.dumps({**s, "cases": rows, "prompt_version": settings.prompt,
                                               "judge_model": settings.model}, indent=2))
    share = s["binary_agree"] / s[JUDGED] if s[JUDGED] else 0.0
    return 0 if share >= args.min_binary else 1


if __name__ == "__main__":
    sys.exit(main())
