"""Helpers of the ``answers_from`` tests: a plain lm-eval gsm8k task on the local fixture, a
scripted model that behaves as a greedy backend does (one answer per question, continued
from any prefix, cut at the request's ``until``), and saving a run as lm-eval's CLI does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline_run import DATA
from scripted_lm import ScriptedLM

GSM8K = DATA / "gsm8k_test.jsonl"
ASSISTANT, USER, END = "<|im_start|>assistant\n", "<|im_start|>user\n", "<|im_end|>"


def plain_gsm8k_folder(folder: Path) -> Path:
    """lm-eval's own ``gsm8k`` (its YAML included as it is) reading the local fixture file."""
    from uta_tasks import lm_eval_compat as compat

    builtin = compat.builtin_task_dir("gsm8k") / "gsm8k.yaml"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gsm8k.yaml").write_text(
        f"include: {builtin}\ntask: gsm8k\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {GSM8K}\ntest_split: test\nfewshot_split: test\ntraining_split: null\n"
    )
    return folder


def saved_prompt(sample: dict) -> str:
    """The prompt of one lm-eval sample: ``arguments`` as the samples file holds them
    (``{"gen_args_0": {"arg_0": ...}}``) or as ``simple_evaluate`` returns them (``[[prompt, kwargs]]``)."""
    args = sample["arguments"]
    return args["gen_args_0"]["arg_0"] if isinstance(args, dict) else args[0][0]


def thinking_answer(question: str, words: int = 40, stop: str = "Question:") -> str:
    """The whole turn of the scripted reasoning model: a ``<think>`` trace holding gsm8k's stop
    string ``Question:``, then a final answer (right for the fixture's first document)."""
    trace = " ".join(f"r{i}" for i in range(words))
    return (f"<think>\nRead {len(question)} characters.\n\n{stop} what is asked? {trace}\n</think>\n"
            "The answer is 12.")


def greedy_script(prompt: str, gen_kwargs: dict, words: int = 40, stop: str = "Question:") -> str:
    """Pass 1 (and its continuation from any prefix of the answer), then a user turn.

    Args:
        prompt: the rendered prompt.
        gen_kwargs: its settings.
        words: words of the reasoning trace (perf/probe_from_samples.py makes it long).
        stop: the text in the trace where gsm8k's ``until`` cuts it (another text: nothing is cut).
    """
    if prompt.endswith(USER):
        shown = prompt.rsplit(ASSISTANT, 1)[1].split(END, 1)[0]
        return f"Why {shown[-10:]!r}?"
    if ASSISTANT not in prompt:  # a run without --apply_chat_template: the prompt is the question
        return thinking_answer(prompt, words, stop)
    head, prefix = prompt.rsplit(ASSISTANT, 1)
    question = head.rsplit(USER, 1)[1].split(END, 1)[0]
    whole = thinking_answer(question, words, stop)
    assert whole.startswith(prefix), (prefix[:40], whole[:40])
    return whole[len(prefix):]


def short_or_long(prompt: str, gen_kwargs: dict) -> str:
    """:func:`greedy_script` with answers of 60 words on some documents and 6 on others (by the parity of
    the question's length), none cut by gsm8k's stop strings, so that a small budget cuts some answers
    and not others."""
    question = prompt.rsplit(ASSISTANT, 1)[0].rsplit(USER, 1)[-1]
    return greedy_script(prompt, gen_kwargs, words=60 if len(question) % 2 == 0 else 6, stop="Goal:")


def fewshot_task_folder(folder: Path, name: str, budget: int) -> Path:
    """A task of our own, as a user writes one: 3-shot arithmetic word problems on the gsm8k fixture,
    stopping at ``Question:``, with a budget of ``budget`` tokens."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(
        f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {GSM8K}\ntest_split: test\n"
        "fewshot_split: test\noutput_type: generate_until\n"
        "doc_to_text: \"Question: {{question}}\\nAnswer:\"\n"
        "doc_to_target: answer\n"  # the worked answer: lm-eval 0.5 takes a number alone for a choice index
        f"num_fewshot: 3\ngeneration_kwargs:\n  until: [\"Question:\"]\n  max_gen_toks: {budget}\n  do_sample: false\n"
        "metric_list:\n  - metric: exact_match\n    aggregation: mean\n    higher_is_better: true\n")
    return folder


class GreedyLM(ScriptedLM):
    """The scripted model as lm-eval's backends behave: responses cut at ``until`` and at
    ``max_gen_toks`` tokens, the chat template applied for ``--apply_chat_template``."""

    tokenizer_name = "smollm2-scripted"
    #: lm-eval's ``think_end_token`` model argument: the reasoning is cut out of every response
    #: before the stop strings apply (lm-eval's ``postprocess_generated_text``)
    think_end_token: str | None = None

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        from lm_eval.models.utils import postprocess_generated_text

        out = []
        for request, text in zip(requests, super().generate_until(requests), strict=True):
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            limit = int(request.args[1].get("max_gen_toks", 256))
            if len(ids) > limit:
                text = self.tokenizer.decode(ids[:limit])
            out.append(postprocess_generated_text(text, request.args[1].get("until") or [], self.think_end_token))
        return out

    def apply_chat_template(self, chat_history: list[dict], add_generation_prompt: bool = True) -> str:
        return self.tokenizer.apply_chat_template(chat_history, tokenize=False,
                                                  add_generation_prompt=add_generation_prompt)

    def chat_template(self, chat_template: Any = False) -> str:
        return str(self.tokenizer.chat_template)


def save(results: dict, out: Path, model_args: str = "pretrained=scripted", **config: Any) -> Path:
    """Write a run as ``lm_eval --output_path out --log_samples`` does; returns the model folder.

    Args:
        config: more of the results' ``config`` as lm-eval's command line writes it (``model``, ``gen_kwargs``).
    """
    from lm_eval.loggers import EvaluationTracker

    results = json.loads(json.dumps(results, default=str))
    results["config"].update(model_args=model_args, **config)
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.model_name_sanitized = "scripted"
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task, logged in samples.items():
        tracker.save_results_samples(task_name=task, samples=logged)
    (folder,) = {p.parent for p in out.rglob("results_*.json")}
    return folder


#: the keys of lm-eval 0.4.2's results.json (evaluator.py's results_dict, simple_evaluate's config, git_hash and
#: date, logging_utils.add_env_info)
RESULTS_0_4_2 = ("results", "groups", "group_subtasks", "configs", "versions", "n-shot", "config", "git_hash", "date",
                 "pretty_env_info", "transformers_version", "upper_git_hash")
#: the keys of one of its samples besides the metrics' values (evaluator.py: one sample per document and filter)
SAMPLE_0_4_2 = ("doc_id", "doc", "target", "arguments", "resps", "filtered_resps")


def save_0_4_2(results: dict, out: Path, model_args: str = "pretrained=scripted") -> Path:
    """Write a run as ``lm_eval --output_path out --log_samples`` of lm-eval 0.4.0 to 0.4.2 does (their
    __main__.py): ``out/results.json`` and, per task of ``configs``, ``<model_args>_<task>.jsonl`` with
    every ``/`` and ``=`` of ``model_args`` made ``__``, holding the task's samples as ONE JSON array
    (``indent=2``), each with 0.4.2's keys (``arguments`` as ``[[prompt, gen_kwargs]]``) and its metrics'
    values. Returns ``out``.

    Args:
        results: ``simple_evaluate``'s results of the installed lm-eval, samples logged.
        out: the ``--output_path`` folder.
        model_args: the run's ``--model_args``.
    """
    import re

    results = json.loads(json.dumps(results, default=str))
    samples = results.pop("samples")
    results["config"] = {"model": "hf", "model_args": model_args, "batch_size": 1, "batch_sizes": [], "device": None,
                         "use_cache": None, "limit": results["config"].get("limit"), "bootstrap_iters": 100000,
                         "gen_kwargs": results["config"].get("gen_kwargs")}
    out.mkdir(parents=True, exist_ok=True)
    kept = {key: results[key] for key in RESULTS_0_4_2 if key in results}
    (out / "results.json").write_text(json.dumps(kept, indent=2, ensure_ascii=False), encoding="utf-8")
    for task in kept["configs"]:
        logged = [{key: value for key, value in sample.items()
                   if key in SAMPLE_0_4_2 or key in (sample.get("metrics") or [])} for sample in samples[task]]
        name = f"{re.sub('/|=', '__', model_args)}_{task}.jsonl"
        (out / name).write_text(json.dumps(logged, indent=2, ensure_ascii=False), encoding="utf-8")
    return out


TOKENIZER = Path(__file__).resolve().parents[1] / "fixtures" / "tokenizers" / "smollm2"


class ModelCreated(Exception):
    """lm-eval reached its model creation."""


def uta_eval_until_the_model(folders: dict, monkeypatch: Any, task: str, limit: int, model: str = "scripted",
                             gen_kwargs: str = "max_gen_toks=200", **meta: Any) -> list[str]:
    """Run ``uta-eval run --model hf`` (lm-eval's own command line) on the saved run in
    ``folders["out"]``, with lm-eval's model creation replaced by one that records the model's name
    and raises ModelCreated.

    Args:
        folders: ``out`` (the saved run) and ``wrap`` (the wrapped task's folder).
        monkeypatch: pytest's, to restore what the command line changes.
        task: the probe task.
        limit: ``--limit``.
        model: ``--model_args pretrained=`` (the tokenizer is SmolLM2's whatever it names).
        gen_kwargs: ``--gen_kwargs``.
        meta: more ``--metadata`` settings.
    """
    import logging

    import lm_eval
    import lm_eval.api.registry
    from pipeline_run import NO_JUDGE

    from uta_tasks import cli
    from uta_tasks.lm_eval_compat.logs import EVALUATOR_LOGGER

    created: list[str] = []

    def get_model(name: str) -> None:
        created.append(name)
        raise ModelCreated(name)

    # restored after the test: the check wraps simple_evaluate (which lm_eval loads lazily, on first use),
    # uta-eval adds a note to the evaluator's log
    loaded = "simple_evaluate" in vars(lm_eval)
    monkeypatch.setitem(vars(lm_eval), "simple_evaluate", lm_eval.simple_evaluate)
    if not loaded:  # as lm-eval's command line finds it; deleted again after the test
        monkeypatch.delitem(vars(lm_eval), "simple_evaluate")
    evaluator_log = logging.getLogger(EVALUATOR_LOGGER)
    monkeypatch.setattr(evaluator_log, "filters", list(evaluator_log.filters))
    monkeypatch.setattr(lm_eval.api.registry, "get_model", get_model)
    metadata = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folders["out"]), **meta}
    monkeypatch.setattr("sys.argv", [
        "uta-eval", "run", "--model", "hf", "--model_args", f"pretrained={model},tokenizer={TOKENIZER}",
        "--tasks", task, "--include_path", str(folders["wrap"]), "--limit", str(limit),
        "--gen_kwargs", gen_kwargs, "--metadata", json.dumps(metadata)])
    cli.main()
    return created
