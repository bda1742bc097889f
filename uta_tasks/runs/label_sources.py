"""Label sources: who said what about which item, keyed by the stable item id.

A source is read from a path:

- an lm-eval output folder (or ``samples_*.jsonl`` file) written with ``--log_samples``:
  the judge verdicts stored in the probe records (``verdict``, ``verdict_ref``,
  ``verdict_reference``), with ids from :mod:`uta_tasks.runs`; unjudged verdicts are
  left out and counted. It must hold one judge (model and prompt version): compare two
  judges by pointing at two folders (e.g. two ``uta-rejudge`` outputs).
- a ``.jsonl`` file of labels, one object per line with ``item_id``, ``label`` (one of
  the eight) and ``genuine`` (boolean): the export of ``uta-annotate``, or verdicts
  written by any tool. Lines with ``status`` other than ``judged``, or without a label or
  genuine decision, are left out and counted. Lines with an ``annotator`` field make one
  source per annotator (``NAME:annotator``).

The same item id twice in one source must carry the same answer, else it is an error
(two judges or two passes mixed in one source).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from uta_tasks.runs.jsonio import read_jsonl
from uta_tasks.runs.sample_items import sample_items
from uta_tasks.schema.labels import LABELS
from uta_tasks.schema.verdict import Verdict

Answer = tuple[str, bool]


@dataclass
class LabelSource:
    """The answers of one rater.

    Attributes:
        name: Display name.
        path: Where it was read from.
        answers: Item id -> (label, genuine).
        skipped: Entries left out (unjudged or incomplete).
        rater: What rated: the judge model and prompt version, or the annotator.
        judge: ``(judge model, prompt version)`` of a judge's folder, None for a labels file.
        files: Per samples file (``model/task``), the ids of its items: per-file rates.
    """

    name: str
    path: str
    answers: dict[str, Answer] = field(default_factory=dict)
    skipped: int = 0
    rater: str = ""
    judge: tuple[str, str] | None = None
    files: dict[str, list[str]] = field(default_factory=dict)

    def add(self, item_id: str, answer: Answer, where: str) -> None:
        """Record one answer, checking it agrees with an earlier one for the same item.

        Args:
            item_id: The item id.
            answer: (label, genuine).
            where: Location for the error message.
        """
        known = self.answers.get(item_id)
        if known is not None and known != answer:
            raise ValueError(
                f"{where}: item {item_id[:12]} has {answer} but an earlier entry of the same source has {known}; "
                "a source must hold one rater: split the folders or files"
            )
        self.answers[item_id] = answer


def parse_spec(spec: str) -> tuple[str | None, Path]:
    """``NAME=PATH`` or ``PATH``.

    Args:
        spec: The command-line argument.
    """
    name, sep, rest = spec.partition("=")
    if sep and name and "/" not in name and not Path(spec).exists():
        return name, Path(rest).expanduser()
    return None, Path(spec).expanduser()


def load_sources(spec: str) -> list[LabelSource]:
    """Read the label source(s) at ``NAME=PATH`` or ``PATH``.

    Args:
        spec: Folder of saved samples, or a JSONL file of labels.

    Returns:
        One source (a judge, or an annotation file without annotators), or one per annotator.
    """
    name, path = parse_spec(spec)
    if path.is_file() and path.suffix == ".jsonl" and not path.name.startswith("samples_"):
        return _from_jsonl(name, path)
    return [_from_samples(name, path)]


def _from_samples(name: str | None, path: Path) -> LabelSource:
    source = LabelSource(name=name or "", path=str(path))
    raters: set[tuple[str, str]] = set()
    for entry in sample_items([path]):
        verdict = entry.verdict
        if verdict is None or not verdict.judged:
            source.skipped += 1
            continue
        raters.add((str(verdict.judge_model), str(verdict.prompt_version)))
        answer = _answer(verdict.label, verdict.genuine, f"{entry.source.path} doc {entry.doc_id}")
        source.add(entry.item_id, answer, f"{entry.source.path} doc {entry.doc_id}")
        source.files.setdefault(f"{entry.model}/{entry.task}", []).append(entry.item_id)
    if len(raters) > 1:
        shown = sorted(f"{m} ({v})" for m, v in raters)
        raise ValueError(f"{path} holds verdicts of several judges {shown}: give each judge's output folder separately")
    source.judge = next(iter(raters), None)
    source.rater = "no judged verdict" if source.judge is None else f"{source.judge[0]} ({source.judge[1]})"
    source.name = source.name or source.rater.split(" (")[0]
    return source


def _from_jsonl(name: str | None, path: Path) -> list[LabelSource]:
    per_rater: dict[str | None, LabelSource] = {}
    skipped: dict[str | None, int] = defaultdict(int)
    base = name or path.stem
    for where, row in read_jsonl(path):
        if not isinstance(row, dict) or not isinstance(row.get("item_id"), str):
            raise ValueError(f"{where}: expected an object with item_id, label and genuine")
        annotator = row.get("annotator")
        rater = None if annotator is None else str(annotator)
        if rater not in per_rater:
            display = base if rater is None else f"{base}:{rater}"
            per_rater[rater] = LabelSource(name=display, path=str(path), rater=rater or base)
        verdict = Verdict.from_label_row(row)
        if verdict is None or not verdict.judged or verdict.label is None or verdict.genuine is None:
            skipped[rater] += 1
            continue
        per_rater[rater].add(row["item_id"], _answer(verdict.label, verdict.genuine, where), where)
    if not per_rater:
        raise ValueError(f"{path} holds no label: expected JSON lines with item_id, label and genuine")
    for rater, source in per_rater.items():
        source.skipped = skipped[rater]
    return [per_rater[key] for key in sorted(per_rater, key=lambda k: "" if k is None else k)]


def _answer(label: object, genuine: object, where: str) -> Answer:
    if label not in LABELS:
        raise ValueError(f"{where}: label {label!r} is not one of {list(LABELS)}")
    if not isinstance(genuine, bool):
        raise ValueError(f"{where}: genuine is {genuine!r}, not true or false")
    return str(label), genuine
