"""The calibration set: human labels of items one judge (model + prompt version) also judged.

Written by ``uta-agreement HUMAN JUDGE --reference HUMAN --calibration_out FILE`` and read by
``uta-summary``, ``uta-report`` and ``uta-gate`` (``--calibration FILE``) to correct a run's
follow-up rate for that judge's error (:mod:`uta_tasks.stats.correction`)::

    {"schema": "uta-calibration/1", "judge_model": "gpt-5.4-mini", "prompt_version": "followupeval-v2",
     "human": {"path": "human.jsonl", "annotators": ["ann1", "ann2"]}, "judge_path": "out/rejudge-mini",
     "ties_left_out": 1, "items": [{"item_id": "...", "human": true, "judge": false}, ...]}

One row per item both sides answered: ``human`` is the majority of the annotators' genuine
decisions (items where they tie are left out and counted), ``judge`` the judge's. The
packet must have been drawn without looking at the judge's verdict (``--allocation
proportional``); a hard-case packet distorts the judge's sensitivity and specificity.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.runs.atomic import write_text
from uta_tasks.runs.comparability import CALIBRATION_KEYS, differences
from uta_tasks.runs.jsonio import MAX_BYTES
from uta_tasks.runs.regular_file import read_bounded
from uta_tasks.stats.correction import JudgeAccuracy

from .label_sources import LabelSource

SCHEMA = "uta-calibration/1"


@dataclass(frozen=True)
class CalibrationSet:
    """Human and judge genuine decisions on the same items.

    Attributes:
        judge_model: the judge model the verdicts came from.
        prompt_version: its judge prompt version.
        items: ``(item id, human genuine, judge genuine)``, sorted by item id.
        annotators: the annotators behind the human decisions.
        human_path: where the human labels were read.
        judge_path: where the judge's verdicts were read.
        ties_left_out: items the annotators split evenly on.
        path: the calibration file (empty when built in memory).
        digest: sha256 of the file's bytes (empty when built in memory).
    """

    judge_model: str
    prompt_version: str
    items: tuple[tuple[str, bool, bool], ...]
    annotators: tuple[str, ...] = ()
    human_path: str = ""
    judge_path: str = ""
    ties_left_out: int = 0
    path: str = ""
    digest: str = ""

    @property
    def accuracy(self) -> JudgeAccuracy:
        """The judge's confusion against the humans."""
        return JudgeAccuracy.from_pairs([(human, judge) for _, human, judge in self.items])

    def matches(self, provenance: Mapping[str, Any]) -> str | None:
        """Why a run's task cannot use this calibration, or None when it can: the settings of
        the comparability table that guard a calibration (:data:`~uta_tasks.runs.comparability.CALIBRATION_KEYS`)
        and that the calibration set records must be equal.

        Args:
            provenance: the task's settings (:func:`uta_tasks.runs.provenance.task_provenance`).
        """
        own = {"judge_model": self.judge_model, "prompt_version": self.prompt_version}
        differ = differences(provenance, own, [k for k in CALIBRATION_KEYS if k in own])
        if differ:
            return (
                f"not comparable: the run was judged by {provenance.get('judge_model')} "
                f"({provenance.get('prompt_version')}) but the calibration set {self.path or '(in memory)'} measured "
                f"{self.judge_model} ({self.prompt_version}) ({'; '.join(differ)}); calibrate that judge, or "
                "re-judge the run with this one (uta-rejudge)"
            )
        return None

    def describe(self) -> dict[str, Any]:
        """What a summary or report records about the calibration used."""
        acc = self.accuracy
        return {
            "path": self.path, "sha256": self.digest, "judge_model": self.judge_model,
            "prompt_version": self.prompt_version, "items": acc.items, "annotators": list(self.annotators),
            "ties_left_out": self.ties_left_out, **acc.to_dict(),
        }

    def to_dict(self) -> dict[str, Any]:
        """The file's content."""
        return {
            "schema": SCHEMA, "judge_model": self.judge_model, "prompt_version": self.prompt_version,
            "human": {"path": self.human_path, "annotators": list(self.annotators)}, "judge_path": self.judge_path,
            "ties_left_out": self.ties_left_out,
            "items": [{"item_id": i, "human": h, "judge": j} for i, h, j in self.items],
        }

    def write(self, path: str | Path) -> Path:
        """Write the calibration file.

        Args:
            path: where.
        """
        target = Path(path)
        write_text(target, json.dumps(self.to_dict(), indent=1) + "\n")
        return target


def build_calibration(humans: Sequence[LabelSource], judge: LabelSource) -> CalibrationSet:
    """The calibration set of a judge against one or more annotators.

    Args:
        humans: the annotators' label sources (one per annotator).
        judge: the judge's verdicts (a saved-samples folder).

    Raises:
        ValueError: the judge source is not a judge's folder, or nothing overlaps.
    """
    if judge.judge is None:
        raise ValueError(
            f"{judge.name} ({judge.path}) is not a judge's saved-samples folder: the calibration set needs the "
            "judge model and prompt version its verdicts name"
        )
    votes: dict[str, list[bool]] = {}
    for human in humans:
        for item_id, (_, genuine) in human.answers.items():
            votes.setdefault(item_id, []).append(genuine)
    items, ties = [], 0
    for item_id in sorted(set(votes) & set(judge.answers)):
        yes = sum(votes[item_id])
        no = len(votes[item_id]) - yes
        if yes == no:
            ties += 1
            continue
        items.append((item_id, yes > no, judge.answers[item_id][1]))
    if not items:
        raise ValueError(
            f"{judge.name} and the human labels {[h.name for h in humans]} share no item with a majority decision: "
            "annotate a packet drawn from the judge's folder"
        )
    return CalibrationSet(
        judge_model=judge.judge[0], prompt_version=judge.judge[1], items=tuple(items),
        annotators=tuple(h.rater for h in humans), human_path=humans[0].path if humans else "",
        judge_path=judge.path, ties_left_out=ties,
    )


def read_calibration(path: str | Path) -> CalibrationSet:
    """Read a calibration file.

    Args:
        path: the file written by ``uta-agreement --calibration_out``.

    Raises:
        ValueError: unreadable or not a calibration file (the message names the fix).
    """
    p = Path(path).expanduser()
    try:
        raw = read_bounded(p, MAX_BYTES, "calibration file")
    except ValueError as exc:
        raise ValueError(f"cannot read the calibration file: {exc}") from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"calibration file {p} is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(
            f"{p} is not a calibration file (schema {SCHEMA}): write one with "
            "uta-agreement human=HUMAN.jsonl judge=JUDGE_FOLDER --reference human --calibration_out FILE"
        )
    try:
        items = tuple(
            (str(row["item_id"]), bool(row["human"]), bool(row["judge"])) for row in data["items"]
        )
        human = data.get("human") or {}
        return CalibrationSet(
            judge_model=str(data["judge_model"]), prompt_version=str(data["prompt_version"]), items=items,
            annotators=tuple(human.get("annotators") or ()), human_path=str(human.get("path", "")),
            judge_path=str(data.get("judge_path", "")), ties_left_out=int(data.get("ties_left_out", 0)),
            path=str(p), digest=hashlib.sha256(raw).hexdigest(),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"calibration file {p} is malformed ({exc!r}): write it again with uta-agreement") from None
