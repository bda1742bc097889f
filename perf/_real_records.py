"""Run folders of any size made of the records a real run writes (``perf/tools_scale.py``).

:func:`template_run` makes one small run the way a user's run is made: lm-eval's
``simple_evaluate`` on the three gsm8k tasks (``uta_gsm8k``, ``_trunc``, ``_question``), the
scripted model of the pipeline tests (a real tokenizer and chat template, ``generate_until``
answering from a script) under the real two-pass hook, judged live by the real judge client
against the judge double of ``tests/judge`` (``fault_server.FaultServer``), saved by lm-eval's
own ``EvaluationTracker``. Nothing here writes a record: whatever the hook writes (record
v3, v4, ...) is what the folder holds. 1 answer in :data:`LONG_ANSWER_EVERY` and 1 user turn
in :data:`LONG_USER_EVERY` is 5-20 kB long (:data:`LONG_CHARS`), as a reasoning model's are;
the double refuses to judge one of the scripted user turns (:data:`UNJUDGED_TURN`).

:func:`replicate` then writes a folder of N samples from it: each task's lines again and
again, each copy with new ``doc_id`` values (``copy x template docs + doc_id``) and nothing
else changed, a line at a time (the template's lines are decoded once; a copy is the
template's text with another number in its ``doc_id`` slot); the results file's
``n-samples`` say the new counts.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
TASKS = ("uta_gsm8k", "uta_gsm8k_trunc", "uta_gsm8k_question")
TEMPLATE_DOCS = 200  # per task: 1 in 50 and 1 in 40 are then several long texts per task
LONG_ANSWER_EVERY = 50
LONG_USER_EVERY = 40
LONG_CHARS = (5_000, 20_000)
# The judge double answers this user turn with a reply outside the verdict schema, every time:
# its verdicts are unjudged (about 1 in 5), as a run's judge failures are.
UNJUDGED_TURN = "Great, that helps."
SEED = 45
_DOC_ID = "@@uta-doc-id@@"


def _words(draw: random.Random, chars: int) -> str:
    """About ``chars`` characters of varied words (a long answer or user turn)."""
    vocabulary = ("first", "the", "total", "is", "we", "add", "then", "check", "each", "step", "so", "boxes",
                  "pens", "times", "minus", "left", "plus", "again", "because", "which", "gives", "number")
    out: list[str] = []
    size = 0
    while size < chars:
        word = draw.choice(vocabulary) + (str(draw.randrange(1000)) if draw.random() < 0.2 else "")
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


class Script:
    """The scripted model's replies: pass 1 an answer, pass 2 a follow-up, counted per pass so
    that 1 answer in :data:`LONG_ANSWER_EVERY` and 1 user turn in :data:`LONG_USER_EVERY` is long."""

    def __init__(self, seed: int = SEED) -> None:
        self.draw = random.Random(seed)
        self.answers = itertools.count(1)
        self.users = itertools.count(1)

    def __call__(self, prompt: str, gen_kwargs: dict) -> str:
        if prompt.endswith("<|im_start|>assistant\n"):
            n = next(self.answers)
            q = prompt.rsplit("<|im_start|>user\n", 1)[1].split("<|im_end|>", 1)[0]
            body = _words(self.draw, self.draw.randint(*LONG_CHARS)) if n % LONG_ANSWER_EVERY == 0 else \
                _words(self.draw, self.draw.randint(120, 400))
            return f"To answer [{q[:40]}]: {body}. The answer is {self.draw.randrange(100)}."
        if prompt.endswith("<|im_start|>user\n"):
            n = next(self.users)
            if n % LONG_USER_EVERY == 0:
                return _words(self.draw, self.draw.randint(*LONG_CHARS)) + "?"
            return self.draw.choice(("Thanks.", "Why did you add them first?", "Can you check step two again?",
                                     UNJUDGED_TURN, "What if there were twice as many?"))
        raise ValueError(f"perf/_real_records.py: unexpected prompt tail {prompt[-40:]!r}")


def _data(path: Path, docs: int) -> Path:
    """A gsm8k test file of ``docs`` questions: the fixture's, each made distinct."""
    rows = [json.loads(line) for line in (TESTS / "fixtures" / "data" / "gsm8k_test.jsonl").read_text().splitlines()]
    with path.open("w", encoding="utf-8") as out:
        for index in range(docs):
            row = rows[index % len(rows)]
            out.write(json.dumps({"question": f"{row['question']} (case {index})", "answer": row["answer"]}) + "\n")
    return path


def template_run(out: Path, docs: int = TEMPLATE_DOCS) -> Path:
    """Run the three tasks on ``docs`` documents each with the scripted model and the live judge
    (module doc) and save the output folder as ``lm_eval --output_path out --log_samples`` does.

    Returns:
        The model folder (results and samples files).
    """
    sys.path[:0] = [str(TESTS / "pipeline"), str(TESTS / "judge")]
    import lm_eval
    from fault_server import MODEL, FaultConfig, FaultServer
    from saved_lm_eval_runs import save
    from scripted_lm import ScriptedLM, load_tokenizer

    import uta_tasks

    out.mkdir(parents=True, exist_ok=True)
    lm = ScriptedLM(load_tokenizer("smollm2"), Script())
    with FaultServer(FaultConfig(faults={UNJUDGED_TURN: ("schema", None)})) as judge:
        metadata = {"judge_base_url": judge.base_url, "judge_model": MODEL, "judge_cache": "none",
                    "gsm8k_data_files": str(_data(out / "gsm8k.jsonl", docs))}
        results = lm_eval.simple_evaluate(model=lm, tasks=list(TASKS), limit=docs, log_samples=True,
                                          task_manager=uta_tasks.task_manager(metadata=metadata), bootstrap_iters=0)
    return save(json.loads(json.dumps(results, default=str)), out / "run")


def _copies(line: str) -> tuple[str, str, int]:
    """A samples line split around its ``doc_id`` value, and that value."""
    sample: dict[str, Any] = json.loads(line)
    doc_id = sample["doc_id"]
    sample["doc_id"] = _DOC_ID
    head, tail = json.dumps(sample, ensure_ascii=False).split(json.dumps(_DOC_ID), 1)
    return head, tail, doc_id


def replicate(template: Path, samples: int, out: Path) -> Path:
    """Write a run folder of ``samples`` samples (split evenly over the template's tasks) made of
    the template's lines with new ``doc_id`` values (module doc).

    Args:
        template: The template run's model folder.
        samples: Samples in all.
        out: The ``--output_path`` of the new folder.

    Returns:
        The new model folder.
    """
    folder = out / template.name
    folder.mkdir(parents=True, exist_ok=True)
    files = sorted(template.glob("samples_*.jsonl"))
    per_task = samples // len(files)
    counts = {}
    for path in files:
        lines = [_copies(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        size = max(doc_id for _head, _tail, doc_id in lines) + 1
        with (folder / path.name).open("w", encoding="utf-8") as sink:
            written = 0
            for copy in itertools.count():
                for head, tail, doc_id in lines:
                    if written == per_task:
                        break
                    sink.write(f"{head}{copy * size + doc_id}{tail}\n")
                    written += 1
                if written == per_task:
                    break
        counts[path.name] = written
    (results_path,) = template.glob("results_*.json")
    results = json.loads(results_path.read_text(encoding="utf-8"))
    for task in results.get("n-samples", {}):
        results["n-samples"][task] = {"original": per_task, "effective": per_task}
    (folder / results_path.name).write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    return folder
