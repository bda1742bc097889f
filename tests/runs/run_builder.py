"""Write constructed lm-eval output folders of uta tasks with known verdicts.

The per-doc metrics and their aggregation come from the package's own metric functions
(``uta_tasks.metrics.results``), so a constructed results file says exactly what a real run
with those verdicts would say; lm-eval's bare ``NaN`` is written as lm-eval writes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

NAN = float("nan")


@dataclass
class Turn:
    """One repeat of a doc: the verdict on u, and for perturbed tasks the verdict on u_ref.

    Attributes:
        genuine: True/False when judged, None when unjudged.
        label: the label (default: plausible_followup when genuine, else previous_turn_restate).
        ref: perturbed tasks: verdict on u_ref (same meaning as ``genuine``).
        changed: perturbed tasks: whether u differs from u_ref.
    """

    genuine: bool | None
    label: str | None = None
    ref: bool | None = False
    changed: bool = True


@dataclass
class Doc:
    """A doc: its repeats and whether the answer was correct."""

    turns: list[Turn]
    correct: bool = True
    u_text: str = ""


def docs(genuine: list[bool | None], correct: list[bool] | None = None, ref: list[bool | None] | None = None,
         labels: list[str] | None = None) -> list[Doc]:
    """Docs with one repeat each, from parallel lists.

    Args:
        genuine: verdict on u per doc (None = unjudged).
        correct: correctness per doc (default all correct).
        ref: verdict on u_ref per doc (default all False).
        labels: label per doc (default from ``genuine``).
    """
    n = len(genuine)
    correct = correct or [True] * n
    ref = ref if ref is not None else [False] * n
    labels = labels or [None] * n
    return [Doc([Turn(g, lab, r)], c) for g, c, r, lab in zip(genuine, correct, ref, labels)]


def _split(task: str) -> tuple[str, str]:
    name = task[len("uta_"):]
    for pert in ("trunc", "question"):
        if name.endswith("_" + pert):
            return name[: -len(pert) - 1], pert
    return name, "none"


def _verdict(genuine: bool | None, label: str | None, u: str, judge_model: str, prompt_version: str) -> dict:
    prompt = [{"role": "system", "content": "You are FOLLOWUPEVAL."}, {"role": "user", "content": f"Judge: {u}"}]
    base = {"raw_reply": "{}", "prompt": prompt, "judge_model": judge_model, "prompt_version": prompt_version,
            "prompt_sha": "0123abcd", "cached": False, "attempts": 1}
    if genuine is None:
        return {"status": "unjudged", "label": None, "genuine": None, "rationale": None,
                "reason": "no valid reply after 5 attempt(s)", **base}
    label = label or ("plausible_followup" if genuine else "previous_turn_restate")
    return {"status": "judged", "label": label, "genuine": genuine, "rationale": f"because {label}", "reason": None,
            **base}


def _records(task: str, doc_id: int, doc: Doc, temperature: float, judge_model: str, prompt_version: str,
             modes: dict[str, str] | None = None) -> list:
    bench, pert = _split(task)
    out = []
    for r, turn in enumerate(doc.turns):
        u = doc.u_text or f"What about step {doc_id}.{r}?"
        u_ref = u if not turn.changed else f"Reference turn {doc_id}.{r}"
        rec = {
            "task": task, "benchmark": bench, "perturbation": pert, "q": f"Question {doc_id}?",
            "messages": [{"role": "user", "content": f"Question {doc_id}?"}], "pass1_prompt": "<prompt>",
            "a": f"The answer is {doc_id}.", "answer": f"The answer is {doc_id}.", "reasoning_form": "none",
            "a_prime": f"The answer is {doc_id}." if pert == "none" else "The answer",
            "truncation": {"n_tokens": 40, "removed_tokens": 25, "emptied": False} if pert == "trunc" else None,
            "cue": "Any questions?" if pert == "question" else None,
            "role_switch": {"name": "template", "history": "raw", "stop": []},
            "generation": {"assistant": {"temperature": temperature}, "user": {"temperature": temperature}},
            "given_answer": False, "reference_user_turn": None, "pass2_prompt": "<prompt2>",
            "u": u, "u_ref": u if pert == "none" else u_ref,
            "verdict": _verdict(turn.genuine, turn.label, u, judge_model, prompt_version),
            "verdict_ref": None if pert == "none" else _verdict(turn.ref, None, u_ref, judge_model, prompt_version),
            "verdict_reference": None,
            "judge_usage": {"calls": 1, "cache_hits": 0, "input_tokens": 100, "output_tokens": 20},
            **(modes if modes is not None else {"pass2_context": "trace", "truncate_scope": "response"}),
        }
        out.append(rec)
    return out


def _specs(task: str) -> tuple[Any, list]:
    from uta_tasks.datasets import BENCHMARKS
    from uta_tasks.metrics import table

    bench_name, pert = _split(task)
    bench = BENCHMARKS[bench_name]
    shape = table.TaskShape(perturbation=pert, judged=True, held_out=False, primary=bench.primary)
    return bench, table.metrics_for(shape, bench.aggregations)


def _doc_metrics(task: str, doc: Doc, records: list[dict]) -> dict[str, Any]:
    from uta_tasks.metrics.results import doc_metrics
    from uta_tasks.schema.probe import ProbeRecord

    bench, specs = _specs(task)

    def score(_doc: dict, _answer: str) -> dict[str, float]:
        return {key: float(doc.correct) for key in bench.aggregations}

    return doc_metrics({}, [ProbeRecord.from_json(r) for r in records], specs, score, bench.primary)


def _aggregate(task: str, per_doc: list[dict[str, Any]]) -> dict[str, Any]:
    _, specs = _specs(task)
    row: dict[str, Any] = {"alias": task, "name": task, "sample_len": len(per_doc)}
    for spec in specs:
        values = [d[spec.name] for d in per_doc if spec.name in d]
        row[f"{spec.name},none"] = float(spec.aggregation(values))
        row[f"{spec.name}_stderr,none"] = "N/A" if spec.aggregation_name == "sum" else NAN
    return row


@dataclass
class RunSpec:
    """A constructed run.

    Attributes:
        tasks: task name -> docs.
        model: lm-eval model name.
        temperature: sampling temperature.
        judge_model: judge model in verdicts and metadata.
        prompt_version: prompt version in verdicts (and metadata when not the default).
        samples: write samples files (``--log_samples``).
        groups: group name -> member tasks.
        date_id: the ``<date>`` of the file names.
        pass2_context: the records' ``pass2_context`` (None: records written before it existed).
        truncate_scope: the records' ``truncate_scope`` (None: likewise).
    """

    tasks: dict[str, list[Doc]]
    model: str = "org/model-a"
    temperature: float = 0.0
    judge_model: str = "judge-x"
    prompt_version: str = "followupeval-v1"
    samples: bool = True
    groups: dict[str, list[str]] = field(default_factory=dict)
    date_id: str = "2025-01-01T00-00-00.000000"
    pass2_context: str | None = "trace"
    truncate_scope: str | None = "response"


def write_run(out: Path, spec: RunSpec) -> Path:
    """Write the run as lm-eval does under ``out`` and return its results file.

    Args:
        out: the ``--output_path`` folder.
        spec: what to write.
    """
    folder = out / spec.model.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"results": {}, "group_subtasks": dict(spec.groups), "configs": {}, "versions": {},
                               "n-samples": {}}
    for task, task_docs in spec.tasks.items():
        bench, pert = _split(task)
        lines, per_doc = [], []
        for doc_id, doc in enumerate(task_docs):
            recs = _records(task, doc_id, doc, spec.temperature, spec.judge_model, spec.prompt_version,
                            {k: v for k, v in (("pass2_context", spec.pass2_context),
                                               ("truncate_scope", spec.truncate_scope)) if v is not None})
            metrics = _doc_metrics(task, doc, recs)
            per_doc.append(metrics)
            lines.append(json.dumps({"doc_id": doc_id, "doc": {"id": doc_id}, "target": "",
                                     "filtered_resps": [[json.dumps(r) for r in recs]], "filter": "none",
                                     "metrics": list(metrics), **metrics}))
        results["results"][task] = _aggregate(task, per_doc)
        meta = {"version": 1, "uta_benchmark": bench, "uta_perturbation": pert, "judge": "openai",
                "judge_model": spec.judge_model}
        meta["judge_prompt"] = spec.prompt_version
        # The task dumps every probe setting it used into its metadata (UTATask.dump_config).
        meta.update({k: v for k, v in (("pass2_context", spec.pass2_context),
                                       ("truncate_scope", spec.truncate_scope)) if v is not None})
        results["configs"][task] = {"task": task, "repeats": len(task_docs[0].turns), "metadata": meta,
                                    "generation_kwargs": {"until": [], "temperature": spec.temperature}}
        results["versions"][task] = 1
        results["n-samples"][task] = {"original": 100, "effective": len(task_docs)}
        if spec.samples:
            (folder / f"samples_{task}_{spec.date_id}.jsonl").write_text("\n".join(lines) + "\n")
    for group in spec.groups:
        results["results"][group] = {"alias": group, "name": group}
    results.update({"config": {"model": "hf", "model_args": f"pretrained={spec.model}", "limit": None,
                               "gen_kwargs": {"temperature": spec.temperature}},
                    "model_name": spec.model, "lm_eval_version": "0.4.13", "transformers_version": "4.0.0",
                    "git_hash": "abc1234", "date": 1.0})
    path = folder / f"results_{spec.date_id}.json"
    path.write_text(json.dumps(results, indent=2))
    return path
