"""Bridge from probe records to the judge: which user turns are judged, in what context.

Per record, up to three items, all sent in ONE judge run per distinct judge setting
(identical items across tasks are judged once by :func:`uta_tasks.judge.judge_all`):

* ``verdict`` - u after the assistant turn the model actually saw (a');
* ``verdict_ref`` - perturbed tasks: u_ref after the unperturbed a;
* ``verdict_reference`` - held-out conversations: the real next user turn (human ceiling).

The judge sees answers with reasoning removed. ``spec["judge"] is None`` (``--predict_only``
or ``judge: none``) skips judging: the verdicts stay ``None``.
"""

from __future__ import annotations

import json
from collections import defaultdict

from uta_tasks.probe import reasoning


def _settings(spec: dict):
    from uta_tasks.judge import JudgeSettings

    return JudgeSettings.from_metadata(spec["judge"])


def preflight_all(specs: list[dict]) -> None:
    """Check every distinct judge setting of the run before any generation.

    Args:
        specs: request specs of the run.
    """
    from uta_tasks.judge import preflight

    seen: set[str] = set()
    for spec in specs:
        if spec.get("judge") is None:
            continue
        key = json.dumps(spec["judge"], sort_keys=True)
        if key not in seen:
            seen.add(key)
            preflight(_settings(spec))


def _context(record: dict, answer: str) -> tuple[tuple[str, str], ...]:
    turns = [(m["role"], str(m["content"])) for m in record["messages"]]
    return (*turns, ("assistant", reasoning.split(answer).final))


def _items(record: dict) -> list[tuple[str, object]]:
    from uta_tasks.judge import JudgeItem

    items = [("verdict", JudgeItem(_context(record, record["a_prime"]), record["u"]))]
    if record["perturbation"] != "none":
        items.append(("verdict_ref", JudgeItem(_context(record, record["_history"]), record["u_ref"])))
    if record.get("reference_user_turn") is not None:
        items.append(
            ("verdict_reference", JudgeItem(_context(record, record["_history"]), record["reference_user_turn"]))
        )
    return items


def judge_records(records: list[dict], specs: list[dict]) -> None:
    """Attach verdicts and per-record judge usage to ``records`` in place.

    Args:
        records: probe records (with u, u_ref filled in).
        specs: the matching request specs.
    """
    from uta_tasks.judge import judge_all

    for record in records:
        record["verdict"] = record["verdict_ref"] = record["verdict_reference"] = None
        record["judge_usage"] = None
    groups: dict[str, list[int]] = defaultdict(list)
    for i, spec in enumerate(specs):
        if spec.get("judge") is not None:
            groups[json.dumps(spec["judge"], sort_keys=True)].append(i)
    for indices in groups.values():
        slots: list[tuple[int, str]] = []
        items = []
        for i in indices:
            for field, item in _items(records[i]):
                slots.append((i, field))
                items.append(item)
        run = judge_all(items, _settings(specs[indices[0]]))
        for i in indices:
            records[i]["judge_usage"] = {"calls": 0, "cache_hits": 0, "input_tokens": 0, "output_tokens": 0}
        for (i, field), verdict, usage in zip(slots, run.verdicts, run.per_item_usage, strict=True):
            records[i][field] = verdict.to_dict()
            totals = records[i]["judge_usage"]
            totals["calls"] += usage.calls
            totals["cache_hits"] += int(usage.cache_hit)
            totals["input_tokens"] += usage.input_tokens
            totals["output_tokens"] += usage.output_tokens
