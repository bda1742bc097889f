"""A folder of lm-eval tasks of the user's own, written by a test (no such task ships anywhere).

``my_task`` and ``my_task_b`` are short arithmetic questions in a local JSONL file, generated
with lm-eval's completion-style stop strings (``until: ["\\n\\n", "Question:"]``) and scored
by the last number of the response (so where the response is cut decides the score), with
gsm8k's ``regexes_to_ignore`` (``,``): lm-eval 0.5 reads a target made only of digits as an
int (``_coerce_target``), and its ``exact_match`` compares a string with it as numpy does, never
equal, unless the metric first turns both into strings, as a regex to ignore does (a bare
``exact_match`` on a digit-only target scores 0 under lm-eval 0.5's own run of the task);
``my_group`` holds both and aggregates their accuracy, weighted by size, as leaderboard
groups do.
"""

from __future__ import annotations

import json
from pathlib import Path

DESCRIPTION = "Solve the arithmetic problem."
#: (question, answer): a few steps each, so that a model writes more than one paragraph
PROBLEMS = [
    ("Tom has 3 apples and buys 4 more. How many apples does he have?", "7"),
    ("A box holds 6 pens. How many pens are in 2 boxes?", "12"),
    ("Sara had 10 sweets and ate 3. How many are left?", "7"),
    ("What is 9 plus 8?", "17"),
    ("A train has 5 cars with 4 seats each. How many seats?", "20"),
    ("Ben reads 2 pages a day for 6 days. How many pages?", "12"),
    ("What is 15 minus 6?", "9"),
    ("Half of 18 children go home. How many stay?", "9"),
    ("A farmer has 3 cows and 2 goats. How many animals?", "5"),
    ("What is 4 times 5?", "20"),
    ("Ann has 7 coins and finds 6. How many coins now?", "13"),
    ("There are 11 birds and 4 fly away. How many remain?", "7"),
]

_TASK = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
fewshot_split: test
output_type: generate_until
description: "{description}"
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: "{{{{answer}}}}"
target_delimiter: " "
fewshot_config:
  sampler: first_n
  doc_to_target: "The answer is {{{{answer}}}}."
generation_kwargs:
  until: ["\\n\\n", "Question:"]
  do_sample: false
  max_gen_toks: 96
filter_list:
  - name: last-number
    filter:
      - function: regex
        regex_pattern: "(-?[0-9]+)"
        group_select: -1
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
{ignore}metadata:
  version: 2.0
"""

_GROUP = """group: my_group
task:
  - my_task
  - my_task_b
aggregate_metric_list:
  - metric: exact_match
    filter_list: ["last-number"]
    aggregation: mean
    weight_by_size: true
metadata:
  version: 1.0
"""


def write_tasks(folder: Path, split: int = 7, regexes_to_ignore: tuple[str, ...] = (",",)) -> Path:
    """Write ``my_task`` (the first ``split`` problems), ``my_task_b`` (the rest) and ``my_group``.

    Args:
        folder: where (created).
        split: how many problems ``my_task`` gets.
        regexes_to_ignore: the ``exact_match`` option (none: a bare ``exact_match``).
    """
    ignore = f"    regexes_to_ignore: {json.dumps(list(regexes_to_ignore))}\n" if regexes_to_ignore else ""
    folder.mkdir(parents=True, exist_ok=True)
    for name, part in (("my_task", PROBLEMS[:split]), ("my_task_b", PROBLEMS[split:])):
        data = folder / f"{name}.jsonl"
        data.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n" for q, a in part))
        (folder / f"{name}.yaml").write_text(_TASK.format(name=name, data=data, description=DESCRIPTION,
                                                                     ignore=ignore))
    (folder / "my_group.yaml").write_text(_GROUP)
    return folder
